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
 * Write: format 1.0 as numpy writes it (keys sorted, the header padded with
 * spaces and a newline so the data starts at a multiple of 64 bytes),
 * through a temporary file in the same directory renamed over the target,
 * so readers never see a partial file.
 */
#ifndef NPY_H
#define NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "tensor.h"

/* The tensor in path, or NULL with "path: message" in err (at most errsz
 * bytes, NUL-terminated; err may be NULL when errsz is 0). */
Tensor *npy_read(const char *path, char *err, size_t errsz);
/* Writes t to path; false with "path: message" in err on failure (the
 * target is then untouched and the temporary removed). */
bool npy_write(const char *path, const Tensor *t, char *err, size_t errsz);

#endif
