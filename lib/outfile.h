/* outfile.h: an output file that readers never see half written.
 *
 * The policy of every irpipe tool's -o: a regular file (or a path that
 * does not exist yet) is written to a temporary beside it and renamed
 * over it once complete.  The new file gets the mode of the file it
 * replaces, or the mode a new file would get (0666 less the umask); an
 * existing file that the user may not write (a read-only file, for a
 * user other than root) is refused with EACCES, as the shell's `>` would
 * refuse it.  A symlink to a regular file has the file it points to
 * replaced, the link kept, and a dangling one has the file it names
 * made.  Anything else that exists (/dev/null, a FIFO, a terminal, or a
 * symlink to one) cannot be replaced without destroying it, so it is
 * opened and written directly.
 *
 * Files a tool names itself (the .npy files of constants in a data
 * folder) are opened with OUTFILE_NOFOLLOW: a symlink there is replaced
 * by the new file, never written through, and anything else that is not
 * a regular file is refused (EEXIST).
 *
 * A temporary is removed if the process is ended by SIGINT, SIGTERM or
 * SIGHUP before it is committed (unless that signal was ignored when the
 * first temporary was made): a handler unlinks every temporary still
 * open, then ends the process by the same signal.
 *
 * Several outputs that must change together (ir-run's tuple results, the
 * data files of ir-import-onnx and ir-fold-constants) are staged in an
 * OutGroup: all written and finished before any is committed, so a
 * failure before the commits leaves every target as it was.
 */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
	const char *path;     /* as given */
	char *tmp;            /* the temporary renamed over target; NULL: direct */
	char *target;         /* what tmp becomes (symlinks resolved) */
	FILE *f;              /* where to write; NULL once finished */
	bool direct;          /* written in place: not a regular file */
} OutFile;

enum { OUTFILE_NOFOLLOW = 1 };

/* Opens path for writing (see above).  0, or an errno: then nothing is
 * left behind, and o->direct tells whether the file was being opened
 * directly ("cannot open") or a temporary created ("cannot create"). */
int outfile_open(OutFile *o, const char *path);
/* The same, with flags (OUTFILE_NOFOLLOW). */
int outfile_open_flags(OutFile *o, const char *path, int flags);
/* Flushes and closes o->f: 0, or the errno of the first write error. */
int outfile_finish(OutFile *o);
/* Renames the finished temporary over the target (nothing for a direct
 * write): 0 or an errno.  Frees o either way; the temporary is removed
 * if the rename fails. */
int outfile_commit(OutFile *o);
/* Closes o if open, removes its temporary, frees o: the target is left
 * as it was (a direct write keeps what was written). */
void outfile_discard(OutFile *o);

/* Outputs staged to be committed together ({0} is an empty group). */
typedef struct {
	OutFile **f;
	char **path;          /* each one's path, owned */
	size_t n, cap;
} OutGroup;

/* A new member of g for path (copied), opened with outfile_open_flags:
 * the caller writes to its f and finishes it (outfile_finish), or
 * discards the whole group.  NULL with *err set to an errno when it
 * cannot be opened (and then it is not a member; o->direct as for
 * outfile_open is in *direct when direct is not NULL). */
OutFile *outgroup_add(OutGroup *g, const char *path, int flags, int *err, bool *direct);
/* Commits every member in order, and frees g's members: 0, or the errno
 * of the first that failed, its path copied into failed (failedsz bytes;
 * the members after it are discarded, those before it are committed
 * already: a rename fails only when the folder changed under the tool). */
int outgroup_commit(OutGroup *g, char *failed, size_t failedsz);
/* Discards every member and frees them: every target as it was. */
void outgroup_discard(OutGroup *g);

#endif
