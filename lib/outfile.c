/* outfile.c: output files replaced atomically (see outfile.h). */
/* realpath(3) is XSI; faccessat(2) is POSIX 2008. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"
#include "outfile.h"

/* ------------------------------------------------------------- files */

/* The file a dangling symlink names, following links as open(2) would
 * (40 hops at most), so writing through it creates that file; NULL if
 * the chain cannot be read. */
static char *
dangling_target(const char *path)
{
	size_t n = strlen(path);
	char *cur = xmalloc(n + 1);
	memcpy(cur, path, n + 1);
	for (int hops = 0; hops < 40; hops++) {
		struct stat sb;
		if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode))
			return cur;
		char link[4096];
		ssize_t k = readlink(cur, link, sizeof link - 1);
		if (k <= 0)
			break;
		link[k] = 0;
		/* A relative link is relative to the folder of the link. */
		const char *slash = link[0] == '/' ? NULL : strrchr(cur, '/');
		size_t dn = slash ? (size_t)(slash - cur) + 1 : 0;
		char *next = xmalloc(dn + (size_t)k + 1);
		memcpy(next, cur, dn);
		memcpy(next + dn, link, (size_t)k + 1);
		free(cur);
		cur = next;
	}
	free(cur);
	return NULL;
}

static int
open_fail(OutFile *o, int err)
{
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return err;
}

int
outfile_open(OutFile *o, const char *path)
{
	return outfile_open_flags(o, path, 0);
}

int
outfile_open_flags(OutFile *o, const char *path, int flags)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	struct stat sb;
	int fd;
	bool nofollow = flags & OUTFILE_NOFOLLOW;
	if (nofollow) {
		/* the name itself, whatever it is: a link is replaced, and
		 * only a regular file may be */
		if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
			return S_ISDIR(sb.st_mode) ? EISDIR : EEXIST;
	} else {
		o->direct = stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
	}
	if (o->direct) {
		fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return errno;
	} else {
		if (!nofollow && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
			o->target = realpath(path, NULL);
			if (!o->target && errno == ENOENT)
				o->target = dangling_target(path);
		}
		if (!o->target) {
			o->target = xmalloc(strlen(path) + 1);
			strcpy(o->target, path);
		}
		/* a file that exists keeps its mode, and one the user may not
		 * write is refused, as `>` would refuse it */
		mode_t mask = umask(0);
		umask(mask);
		mode_t mode = 0666 & ~mask;
		if (lstat(o->target, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS) != 0) {
				o->direct = true;   /* "cannot open" it */
				return open_fail(o, errno);
			}
			mode = sb.st_mode & 0777;
		}
		size_t n = strlen(o->target);
		o->tmp = xmalloc(n + 11);
		memcpy(o->tmp, o->target, n);
		memcpy(o->tmp + n, ".tmpXXXXXX", 11);
		fd = mkstemp(o->tmp);
		if (fd < 0)
			return open_fail(o, errno);
		(void)fchmod(fd, mode);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int err = errno;
		close(fd);
		if (o->tmp)
			unlink(o->tmp);
		return open_fail(o, err);
	}
	return 0;
}

int
outfile_finish(OutFile *o)
{
	if (!o->f)
		return 0;
	int err = 0;
	if (ferror(o->f) || fflush(o->f) != 0)
		err = errno ? errno : EIO;
	if (fclose(o->f) != 0 && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	return err;
}

int
outfile_commit(OutFile *o)
{
	int err = outfile_finish(o);
	if (!err && o->tmp && rename(o->tmp, o->target) != 0)
		err = errno;
	if (err) {
		outfile_discard(o);
		return err;
	}
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
	return 0;
}

void
outfile_discard(OutFile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	memset(o, 0, sizeof *o);
}

/* ------------------------------------------------------------ groups */

OutFile *
outgroup_add(OutGroup *g, const char *path, int flags, int *err, bool *direct)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 8;
		g->f = xrealloc(g->f, g->cap * sizeof *g->f);
		g->path = xrealloc(g->path, g->cap * sizeof *g->path);
	}
	size_t n = strlen(path);
	char *p = memcpy(xmalloc(n + 1), path, n + 1);
	OutFile *o = xmalloc(sizeof *o);
	*err = outfile_open_flags(o, p, flags);
	if (direct)
		*direct = o->direct;
	if (*err) {
		free(o);
		free(p);
		return NULL;
	}
	g->f[g->n] = o;
	g->path[g->n++] = p;
	return o;
}

static void
group_free(OutGroup *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->f[i]);
		free(g->path[i]);
	}
	free(g->f);
	free(g->path);
	memset(g, 0, sizeof *g);
}

int
outgroup_commit(OutGroup *g, char *failed, size_t failedsz)
{
	int err = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (err) {
			outfile_discard(g->f[i]);
			continue;
		}
		err = outfile_commit(g->f[i]);
		if (err && failedsz)
			snprintf(failed, failedsz, "%s", g->path[i]);
	}
	group_free(g);
	return err;
}

void
outgroup_discard(OutGroup *g)
{
	for (size_t i = 0; i < g->n; i++)
		outfile_discard(g->f[i]);
	group_free(g);
}
