/* layout.h: the tensor layouts irpipe knows (NCHW, NCHW4c, NHWC, OIHW,
 * OIHW4o), shared by the type rules (ops_*.c) and the reference kernels
 * (ref_*.c), so both read a layout the same way. */
#ifndef LAYOUT_H
#define LAYOUT_H

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

/* NULL if s is not one of NCHW NCHW4c NHWC OIHW OIHW4o. */
const Layout *layout_find(const char *s);
/* The upper-case letters of l, in order: its logical axes ("NCHW"). */
void layout_logical_axes(const Layout *l, char *out);

#endif
