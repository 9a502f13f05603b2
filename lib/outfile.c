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

int
outfile_open(OutFile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->path = path;
	struct stat sb;
	int fd;
	o->direct = stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
	if (o->direct) {
		fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return errno;
	} else {
		if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
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
				int err = errno;
				free(o->target);
				o->target = NULL;
				o->direct = true;   /* "cannot open" it */
				return err;
			}
			mode = sb.st_mode & 0777;
		}
		size_t n = strlen(o->target);
		o->tmp = xmalloc(n + 11);
		memcpy(o->tmp, o->target, n);
		memcpy(o->tmp + n, ".tmpXXXXXX", 11);
		fd = mkstemp(o->tmp);
		if (fd < 0) {
			int err = errno;
			free(o->tmp);
			free(o->target);
			o->tmp = o->target = NULL;
			return err;
		}
		(void)fchmod(fd, mode);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int err = errno;
		close(fd);
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		free(o->target);
		o->tmp = o->target = NULL;
		return err;
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
