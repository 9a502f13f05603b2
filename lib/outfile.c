/* outfile.c: output files replaced atomically (see outfile.h). */
/* realpath(3) is XSI. */
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
		if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode))
			o->target = realpath(path, NULL);
		if (!o->target) {
			o->target = xmalloc(strlen(path) + 1);
			strcpy(o->target, path);
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
		mode_t mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
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
