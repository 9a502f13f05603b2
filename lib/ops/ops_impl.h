/* ops_impl.h: private to lib/ops, the operator registry and shape rules.
 *
 * ops.c holds the registry and the common checks (arity, literal operands,
 * attribute names); ops_attr.c the attribute readers (attrs.h) and message
 * helpers; ops_decode.c the decoders of the operator families (attrs.h);
 * ops_elemwise.c, ops_logic.c, ops_nn.c and ops_shape.c the shape rules
 * (shape.h); shape.c calls them (op_shape) and makes op_infer's type rules
 * of them (op_type).
 *
 * A rule reads its attributes first, then checks shapes.  Every reader
 * reports its own error (at the attribute's location) and clears cx->ok, so
 * a rule can read all its attributes, report every bad one, and stop before
 * the shape checks, which would only repeat the damage.
 */
#ifndef OPS_IMPL_H
#define OPS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "attrs.h"
#include "ir.h"
#include "layout.h"
#include "ops.h"
#include "shape.h"

/* The element type's name ("f32"). */
const char *dtype_text(DType d, char *buf8);

/* Element-type checks; each reports "op: ..." at the binding. */
bool check_not_bool(OpCx *c, const Shape *t);     /* arithmetic on bool: refused */
bool check_float(OpCx *c, const Shape *t);
/* an, bn name the operands ("data", "weight"); NULL for plain operands. */
bool check_same_dtype(OpCx *c, const Shape *a, const Shape *b, const char *an, const char *bn);

/* Checked arithmetic: false on overflow. */
static inline bool
ck_add(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

static inline bool
ck_mul(int64_t a, int64_t b, int64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}

/* --------------------------------------------------------------- layouts */

/* Checks that t is a tensor laid out as l (rank, inner factor); `what`
 * names the operand in messages ("data"). */
bool layout_check(OpCx *c, const Layout *l, const Shape *t, const char *what);

/* ----------------------------------------------------------- shape rules */

/* The type rule of v's call (shape.c): its operands' types through its
 * shape rule, the errors at v; op_infer's last step. */
const Type *op_type(Module *m, Value *v);

/* One operator's rule (shape.h's op_shape, by ops.def). */
typedef bool ShapeRule(OpCx *c, const Shape *args, uint32_t nargs, Shape *out);

/* ops_elemwise.c */
ShapeRule shape_binary, shape_unary, shape_unary_float, shape_clip, shape_hard_sigmoid,
	shape_cast, shape_bias_add, shape_softmax, shape_layer_norm;
/* ops_logic.c */
ShapeRule shape_compare, shape_logical, shape_where;
/* ops_nn.c */
ShapeRule shape_conv2d, shape_dense, shape_batch_matmul, shape_pool2d, shape_global_pool2d;
/* ops_shape.c (split_shape is shape.h's) */
ShapeRule shape_reshape, shape_transpose, shape_layout_transform, shape_concatenate,
	shape_squeeze, shape_expand_dims, shape_reduce, shape_argreduce, shape_strided_slice,
	shape_pad;

#endif
