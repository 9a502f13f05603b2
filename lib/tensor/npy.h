/* npy.h: NumPy .npy files <-> Tensors.
 *
 * Read: format versions 1.0, 2.0 (and 3.0, which differs from 2.0 only in
 * the header's text encoding), C order, little-endian or byte-order-free
 * element types: '|b1' '|i1' '|u1' '<i2' '<u2' '<i4' '<u4' '<i8' '<u8'
 * '<f2' '<f4' '<f8' ('=' is taken as '<' on a little-endian host, and the
 * 1-byte types may also be written with '<' or '=').  Bool bytes other than
 * 0 read as 1.  Everything else is refused with a message naming the file:
 * Fortran order, big-endian data, object, string, structured or unknown
 * dtypes, ranks above TENSOR_MAX_RANK, a shape whose size overflows, a file
 * shorter or longer than its header says, a bad magic or a malformed header.
 * A shape () is a rank-0 tensor.
 *
 * The length of a regular file is checked against the header before
 * anything is allocated for the data.
 *
 * Write: format 1.0 as numpy writes it (keys sorted, the header padded with
 * spaces and a newline so the data starts at a multiple of 64 bytes),
 * through a temporary file in the same directory renamed over the target,
 * so readers never see a partial file (a device or a FIFO is written
 * directly: outfile.h).
 */
#ifndef NPY_H
#define NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "outfile.h"
#include "tensor.h"

/* A .npy file whose header has been read, so a caller can check the
 * element type, the shape and the size before the data is read. */
typedef struct {
	FILE *f;              /* NULL once closed */
	const char *path;
	Tensor head;          /* kind, rank, dims, numel; no data */
	uint64_t bytes;       /* of the data */
	char descr[64];       /* the dtype as written, for messages */
} NpyFile;

/* Opens path and reads its header; false with "path: message" in err
 * (the file closed). */
bool npy_open(NpyFile *nf, const char *path, char *err, size_t errsz);
/* The data of an opened file as a tensor, or NULL with the message in err;
 * closes the file either way. */
Tensor *npy_load(NpyFile *nf, char *err, size_t errsz);
/* Closes a file opened and not loaded. */
void npy_close(NpyFile *nf);

/* The tensor in path, or NULL with "path: message" in err (at most errsz
 * bytes, NUL-terminated; err may be NULL when errsz is 0). */
Tensor *npy_read(const char *path, char *err, size_t errsz);
/* Writes t to path; false with "path: message" in err on failure (the
 * target is then untouched and the temporary removed). */
bool npy_write(const char *path, const Tensor *t, char *err, size_t errsz);
/* Writes t to path as a member of g (outfile.h), to be committed with
 * the others, opened with flags (OUTFILE_NOFOLLOW); false with "path:
 * message" in err (the caller then discards g). */
bool npy_stage(OutGroup *g, const char *path, const Tensor *t, int flags, char *err,
               size_t errsz);
/* The whole file of t to f; false with errno set on a write error (EINVAL:
 * not a valid tensor). */
bool npy_write_stream(FILE *f, const Tensor *t);

#endif
