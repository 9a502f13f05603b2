/* layout.h: the tensor layouts irpipe knows (NCHW, NCHW4c, NHWC, OIHW,
 * OIHW4o, HWIO) and their arithmetic, shared by the type rules (lib/ops/), the
 * reference kernels (lib/ref/) and lowering (lib/lower/), so all read a
 * layout the same way. */
#ifndef LAYOUT_H
#define LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

/* Upper-case letters are logical axes; the one lower-case letter (if any)
 * is the inner part of its upper-case axis, split by `factor`: logical
 * index = outer * factor + inner. */
typedef struct {
	const char *name;      /* "NCHW4c" */
	uint8_t rank;
	char axes[8];          /* "NCHWc": one letter per dimension */
	uint8_t factor;        /* of the lower-case axis; 0 if none */
} Layout;

/* Their names, NULL-terminated. */
extern const char *const layout_names[];

/* NULL if s is not one of NCHW NCHW4c NHWC OIHW OIHW4o HWIO. */
const Layout *layout_find(const char *s);
/* The upper-case letters of l, in order: its logical axes ("NCHW"). */
void layout_logical_axes(const Layout *l, char *out);

/* Do dims (rank n) fit l?  0 if so; else LAYOUT_RANK (n differs),
 * LAYOUT_INNER (dimension *axis, an inner one, is not the factor) or
 * LAYOUT_TOO_LARGE (the axis at *axis, multiplied back together with its
 * inner part, overflows int64). */
enum { LAYOUT_FITS, LAYOUT_RANK, LAYOUT_INNER, LAYOUT_TOO_LARGE };
int layout_fit(const Layout *l, const int64_t *dims, uint32_t n, uint32_t *axis);
/* The logical size of upper-case axis ax of dims laid out as l. */
int64_t layout_dim(const Layout *l, const int64_t *dims, char ax);
/* dims laid out as l from logical sizes: size[i] is the size of letters[i]
 * (1 for a letter not there).  Returns the letter whose size the factor
 * does not divide, or 0. */
char layout_shape(const Layout *l, const char *letters, const int64_t *size, int64_t *dims);
/* The C-order element offset in dims laid out as l of the logical index
 * idx (idx[i] for letters[i]). */
int64_t layout_offset(const Layout *l, const int64_t *dims, const char *letters,
                      const int64_t *idx);
/* The element strides of letters' axes in l (layout_offset of idx is then
 * the sum of idx[a] * strides[a]), for the reference kernels' inner loops;
 * false, strides unset, when l splits an axis (layout_offset alone maps
 * those). */
bool layout_strides(const Layout *l, const int64_t *dims, const char *letters,
                    int64_t *strides);
/* The inverse of layout_offset: the logical index (idx[i] for letters[i],
 * which name every upper-case axis of l) of element offset off in dims
 * laid out as l. */
void layout_index(const Layout *l, const int64_t *dims, int64_t off, const char *letters,
                  int64_t *idx);

#endif
