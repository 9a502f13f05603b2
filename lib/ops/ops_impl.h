/* ops_impl.h: private to lib/ops*.c, the operator type rules.
 *
 * ops.c holds the registry and the common checks (arity, literal operands,
 * attribute names); ops_attr.c the attribute readers (attrs.h) and message
 * helpers; ops_decode.c the decoders of the operator families (attrs.h);
 * ops_elemwise.c, ops_logic.c, ops_nn.c and ops_shape.c the type rules.
 *
 * A type rule reads its attributes first, then checks shapes.  Every reader
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

/* The element type's name ("f32"). */
const char *dtype_text(DType d, char *buf8);
/* "[1, 2, 3]" into buf, truncated to size bytes. */
const char *ints_text(const int64_t *v, uint32_t n, char *buf, size_t size);

/* Element-type checks; each reports "op: ..." at the binding. */
bool check_not_bool(OpCx *c, const Type *t);     /* arithmetic on bool: refused */
bool check_float(OpCx *c, const Type *t);
/* an, bn name the operands ("data", "weight"); NULL for plain operands. */
bool check_same_dtype(OpCx *c, const Type *a, const Type *b, const char *an, const char *bn);

/* Operand i (already typed; op_infer has refused tuples where they do not
 * belong). */
static inline const Type *
op_arg(const OpCx *c, uint32_t i)
{
	return c->v->args[i]->type;
}

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
bool layout_check(OpCx *c, const Layout *l, const Type *t, const char *what);

/* ------------------------------------------------------------ type rules */

/* ops_elemwise.c */
const Type *infer_binary(Module *m, Value *v);
const Type *infer_unary(Module *m, Value *v);
const Type *infer_unary_float(Module *m, Value *v);
const Type *infer_clip(Module *m, Value *v);
const Type *infer_hard_sigmoid(Module *m, Value *v);
const Type *infer_cast(Module *m, Value *v);
const Type *infer_bias_add(Module *m, Value *v);
const Type *infer_softmax(Module *m, Value *v);

/* ops_logic.c */
const Type *infer_compare(Module *m, Value *v);
const Type *infer_logical(Module *m, Value *v);
const Type *infer_where(Module *m, Value *v);

/* ops_nn.c */
const Type *infer_conv2d(Module *m, Value *v);
const Type *infer_dense(Module *m, Value *v);
const Type *infer_batch_matmul(Module *m, Value *v);
const Type *infer_pool2d(Module *m, Value *v);
const Type *infer_global_pool2d(Module *m, Value *v);

/* ops_shape.c */
const Type *infer_reshape(Module *m, Value *v);
const Type *infer_transpose(Module *m, Value *v);
const Type *infer_layout_transform(Module *m, Value *v);
const Type *infer_concatenate(Module *m, Value *v);
const Type *infer_split(Module *m, Value *v);
const Type *infer_squeeze(Module *m, Value *v);
const Type *infer_expand_dims(Module *m, Value *v);
const Type *infer_reduce(Module *m, Value *v);
const Type *infer_argreduce(Module *m, Value *v);
const Type *infer_strided_slice(Module *m, Value *v);
const Type *infer_pad(Module *m, Value *v);

#endif
