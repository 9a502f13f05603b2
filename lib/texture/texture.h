/* texture.h: how a buffer in a texture scope is held as a 2-d image.
 *
 * A texture buffer [d0, ..., d(r-2), 4] is an image of RGBA texels: the
 * last axis is the channel, the axes before a split point s make the
 * rows (y, the height) and the axes from s on the columns (x, the width),
 * each group row-major (ir(5), TVM's DefaultTextureLayoutSeparator):
 *   texture         s = r - 2   [A,B,C,D,4]: A*B*C high, D wide
 *   texture:weight  s = 1       [A,B,C,D,4]: A high, B*C*D wide
 *   texture:nhwc    s = 1 at rank 3, else 2: A*B high, C*D wide
 * Row-major N-d order and row-major image order agree, so texel (x, y)
 * is elements (y * width + x) * 4 .. + 3 of the N-d buffer: the
 * interpreter runs images on the buffer as it is.
 *
 * The verifier, ir-flatten-texture, the interpreter and code generation
 * all take the convention from here.
 */
#ifndef TEXTURE_H
#define TEXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* texture, or any scope that begins with "texture:". */
bool is_texture_scope(Sym scope);

/* The split point s of a texture scope for a buffer of rank r, or -1
 * when the scope names no convention this toolchain knows. */
int texture_split(Sym scope, uint32_t rank);

/* The image of buffer type t in texture scope `scope`: wh[0] the width,
 * wh[1] the height, in texels.  On false, why says what is wrong with
 * the type (at least 128 bytes): a rank below 3, a last axis not 4, an
 * unknown convention, or a side past 2^31-1. */
bool texture_image(const Type *t, Sym scope, int64_t wh[2], char *why, size_t whysz);

#endif
