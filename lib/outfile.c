/* outfile.c: output files replaced atomically (see outfile.h). */
/* realpath(3) is XSI; faccessat(2) and sigaction(2) are POSIX 2008. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"
#include "outfile.h"

/* ------------------------------------------- temporaries on signals */

/* The temporaries not yet committed or discarded, for the handler of
 * SIGINT, SIGTERM and SIGHUP.  This is process state by nature (a signal
 * ends the whole process): chunks of slots, each slot set or cleared by
 * one atomic store, chunks only ever added, so the handler may walk them
 * at any moment. */
#define TMP_CHUNK 64
typedef struct TmpChunk {
	_Atomic(char *) slot[TMP_CHUNK];
	_Atomic(struct TmpChunk *) next;
} TmpChunk;

static TmpChunk tmp_first;
static const int tmp_signals[] = {SIGINT, SIGTERM, SIGHUP};
static bool tmp_handlers_set;

/* Unlinks every temporary (unlink is async-signal-safe), then lets the
 * signal end the process: the handler was reset to the default on entry
 * (SA_RESETHAND) and the signal is not blocked in it (SA_NODEFER). */
static void
tmp_on_signal(int sig)
{
	int saved = errno;
	for (TmpChunk *c = &tmp_first; c; c = atomic_load(&c->next))
		for (int i = 0; i < TMP_CHUNK; i++) {
			char *p = atomic_load(&c->slot[i]);
			if (p)
				unlink(p);
		}
	raise(sig);
	errno = saved;
}

static void
tmp_handlers(void)
{
	if (tmp_handlers_set)
		return;
	tmp_handlers_set = true;
	for (size_t i = 0; i < sizeof tmp_signals / sizeof *tmp_signals; i++) {
		struct sigaction old, sa;
		if (sigaction(tmp_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
			continue;   /* ignored (nohup), or the program's own */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = tmp_on_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigaction(tmp_signals[i], &sa, NULL);
	}
}

static void
tmp_register(char *p)
{
	for (TmpChunk *c = &tmp_first;; c = atomic_load(&c->next)) {
		for (int i = 0; i < TMP_CHUNK; i++) {
			char *none = NULL;
			if (atomic_compare_exchange_strong(&c->slot[i], &none, p))
				return;
		}
		if (!atomic_load(&c->next)) {
			TmpChunk *n = xcalloc(1, sizeof *n);   /* never freed: the handler may walk it */
			atomic_store(&c->next, n);
		}
	}
}

static void
tmp_unregister(const char *p)
{
	for (TmpChunk *c = &tmp_first; c; c = atomic_load(&c->next))
		for (int i = 0; i < TMP_CHUNK; i++)
			if (atomic_load(&c->slot[i]) == p) {
				atomic_store(&c->slot[i], NULL);
				return;
			}
}

/* The signals the handler catches, blocked (or unblocked) around making
 * a temporary and registering it, so that none is left unregistered. */
static void
tmp_block(bool block, sigset_t *old)
{
	if (block) {
		sigset_t set;
		sigemptyset(&set);
		for (size_t i = 0; i < sizeof tmp_signals / sizeof *tmp_signals; i++)
			sigaddset(&set, tmp_signals[i]);
		sigprocmask(SIG_BLOCK, &set, old);
	} else {
		sigprocmask(SIG_SETMASK, old, NULL);
	}
}

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
		sigset_t old;
		tmp_handlers();
		tmp_block(true, &old);
		fd = mkstemp(o->tmp);
		int err = errno;
		if (fd >= 0)
			tmp_register(o->tmp);
		tmp_block(false, &old);
		if (fd < 0)
			return open_fail(o, err);
		(void)fchmod(fd, mode);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int err = errno;
		close(fd);
		if (o->tmp) {
			unlink(o->tmp);
			tmp_unregister(o->tmp);
		}
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
	if (o->tmp)
		tmp_unregister(o->tmp);
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
	if (o->tmp) {
		unlink(o->tmp);
		tmp_unregister(o->tmp);
	}
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
