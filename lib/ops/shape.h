/* shape.h: the shape rule of every graph-level operator.
 *
 * One rule per operator takes the shapes of its operands ({element type,
 * rank, dims}) and its attributes and gives the result's shape, or reports
 * why the call is wrong.  Three sides call the same rule, so they cannot
 * disagree on a result shape or word an error two ways:
 *   - the type rules (ops.c's op_infer: operand types in, a Type out, the
 *     errors as diagnostics at the binding or the attribute: opcx_init);
 *   - the reference kernels (lib/ref: ref_eval checks the outputs against
 *     the rule before a kernel writes them);
 *   - the ONNX importer, which has operand shapes and attributes but no
 *     binding: opcx_init_msg makes the errors one "op: message" string.
 * A rule reads its attributes through attrs.h (which reports bad ones), then
 * checks the operands' element types and shapes.
 */
#ifndef OPS_SHAPE_H
#define OPS_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attrs.h"
#include "ir.h"

/* A tensor's shape: its element type (scalar elements at the graph
 * level), rank and dimensions. */
typedef struct Shape {
	DType dt;
	uint32_t rank;
	int64_t dims[OPS_MAX_RANK];
} Shape;

/* s = {dt, rank, dims}; rank at most OPS_MAX_RANK. */
void shape_set(Shape *s, DType dt, uint32_t rank, const int64_t *dims);
/* The shape of tensor type t (rank at most OPS_MAX_RANK). */
void shape_of_type(Shape *s, const Type *t);
/* "f32[2,3]", as type_text spells the tensor type of that shape. */
const char *shape_text(const Shape *s, char *buf, size_t n);
/* "[1, 2, 3]" (dims, a list attribute's integers) into buf, truncated to
 * size bytes. */
const char *ints_text(const int64_t *v, uint32_t n, char *buf, size_t size);

/* The result shape of one call of c's operator (c->id) on the nargs
 * operand shapes args, its attributes c->attrs, into *out; false after
 * reporting through c.  Any operator but split (see split_shape); the
 * tuple operand of concatenate is given as its fields, one per arg. */
bool op_shape(OpCx *c, const Shape *args, uint32_t nargs, Shape *out);

/* split of the operand shape x: the pieces are x with sizes[i] along
 * *axis, i < the count returned; sizes is malloc'd (free it).  0 with
 * sizes NULL after reporting through c. */
uint32_t split_shape(OpCx *c, const Shape *x, uint32_t *axis, int64_t **sizes);

/* What a kernel needs of an operator's attributes besides the result's
 * shape, read and checked as the shape rule reads them:
 * transpose: the axis of x each result axis is (default: reversed). */
bool transpose_perm(OpCx *c, const Shape *x, int64_t *perm);
/* layout_transform: the layouts, and the logical axes of src
 * (NUL-terminated, at most 7), which dst must have too. */
bool transform_axes(OpCx *c, const Layout **src, const Layout **dst, char axes[8]);

#endif
