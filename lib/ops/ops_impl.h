/* ops_impl.h: private to lib/ops*.c, the operator type rules.
 *
 * ops.c holds the registry and the common checks (arity, literal operands,
 * attribute names); ops_attr.c the attribute readers, layouts and message
 * helpers; ops_elemwise.c, ops_nn.c and ops_shape.c the type rules.
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
#include "ir.h"
#include "layout.h"
#include "ops.h"

/* Ranks above this are refused, so rules can keep dimensions in fixed
 * arrays on the stack instead of allocating per binding. */
#define OPS_MAX_RANK IR_MAX_RANK

/* One type-rule invocation. */
typedef struct {
	Module *m;
	Value *v;
	const char *op;          /* operator name, for messages */
	const AttrMap *attrs;    /* may be NULL */
	bool ok;                 /* false once an error was reported */
} OpCx;

void opcx_init(OpCx *c, Module *m, Value *v);

/* "op: message" at the binding. */
void op_error(OpCx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "message" at loc (an attribute's). */
void op_error_at(OpCx *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

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

/* ------------------------------------------------------------ attributes */

/* NULL if absent. */
const Attr *oa_get(const OpCx *c, const char *key);
/* The attribute's location, or the binding's when absent. */
Loc oa_loc(const OpCx *c, const char *key);
/* Reports "op: missing attribute 'key'" (with an example) when absent. */
bool oa_require(OpCx *c, const char *key, const char *example);

/* An integer in [lo, hi]; dflt when absent or bad. */
int64_t oa_int(OpCx *c, const char *key, int64_t dflt, int64_t lo, int64_t hi);
/* A number (int or float); dflt when absent or bad. */
double oa_num(OpCx *c, const char *key, double dflt);
/* true/false (or 0/1); dflt when absent or bad. */
bool oa_bool(OpCx *c, const char *key, bool dflt);
/* A string without NUL bytes; dflt when absent or bad. */
const char *oa_str(OpCx *c, const char *key, const char *dflt);

/* A list of between nmin and nmax integers, each >= lo, into out (room for
 * nmax).  Returns 1 if present and good, 0 if absent, -1 after an error.
 * `what` completes "'key' of op must be ..." ("a list of 2 positive
 * integers"). */
int oa_ints(OpCx *c, const char *key, uint32_t nmin, uint32_t nmax, int64_t lo,
            int64_t *out, uint32_t *n, const char *what);
/* Exactly two integers >= lo (strides, dilation, pool_size, kernel_size);
 * out keeps its defaults when absent. */
void oa_pair(OpCx *c, const char *key, int64_t lo, int64_t out[2]);
/* 1, 2 or 4 non-negative integers, TVM style, into top, left, bottom,
 * right. */
void oa_padding(OpCx *c, const char *key, int64_t pad[4]);
/* A dtype string: ours ("f16") or TVM's ("float16"); scalar elements only.
 * Returns false when absent (out untouched) or bad. */
bool oa_dtype(OpCx *c, const char *key, DType *out);

/* Normalizes a possibly negative axis against rank (axes -rank..rank-1).
 * Reports at the attribute `key` (or the binding) and returns -1 when out
 * of range. */
int64_t axis_norm(OpCx *c, const char *key, int64_t axis, int64_t rank);

/* --------------------------------------------------------------- layouts */

/* A layout attribute that must be one of `allowed` ("NCHW", "NCHW4c",
 * NULL); dflt when absent. NULL after an error. */
const Layout *oa_layout(OpCx *c, const char *key, const char *dflt, const char *const *allowed);
/* Checks that t is a tensor laid out as l (rank, inner factor); `what`
 * names the operand in messages ("data"). */
bool layout_check(OpCx *c, const Layout *l, const Type *t, const char *what);
/* The logical size of axis `ax` (upper case) of dims laid out as l. */
int64_t layout_dim(const Layout *l, const int64_t *dims, char ax);
/* dims laid out as l from logical sizes: size[i] is the size of letters[i].
 * Returns the letter whose size the factor does not divide, or 0. */
char layout_shape(const Layout *l, const char *letters, const int64_t *size, int64_t *dims);

/* ------------------------------------------------------------ type rules */

/* ops_elemwise.c */
const Type *infer_binary(Module *m, Value *v);
const Type *infer_unary(Module *m, Value *v);
const Type *infer_unary_float(Module *m, Value *v);
const Type *infer_clip(Module *m, Value *v);
const Type *infer_cast(Module *m, Value *v);
const Type *infer_bias_add(Module *m, Value *v);
const Type *infer_softmax(Module *m, Value *v);

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

#endif
