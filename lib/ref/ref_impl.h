/* ref_impl.h: private to lib/ref_*.c, the reference kernels.
 *
 * ref_ops.c holds ref_eval (checks, dispatch) and the accumulators
 * (attributes are read by ops/attrs.h, layouts computed by layout.h);
 * ref_elemwise.c the elementwise and broadcasting operators, softmax,
 * layer_norm and the reductions; ref_nn.c conv2d, dense, batch_matmul
 * and the pools; ref_shape.c the data-movement operators.
 *
 * Before a kernel runs, ref_eval applies the operator's shape rule
 * (ops/shape.h, the type rule's) to the operands and compares what it
 * gives with the preallocated outputs, so a caller that disagrees with the
 * registry gets an error, never a write out of bounds, and a kernel takes
 * its sizes from its tensors.
 */
#ifndef REF_IMPL_H
#define REF_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir.h"
#include "layout.h"
#include "ops/attrs.h"
#include "ops/shape.h"
#include "ref_ops.h"
#include "tensor/tensor.h"

/* One kernel invocation: the operator (op, id), its attributes, and
 * where its error goes (c->err, "op: message"), read with the type rules'
 * readers and decoders (ops/attrs.h). */
typedef OpCx RefCx;

typedef bool RefKernel(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs,
                       uint32_t nouts);

/* "op: message" into c->err; returns false. */
bool ref_fail(RefCx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The operator's axis (bias_add, softmax, concatenate, split),
 * normalized against rank: the shape rule checked it. */
static inline uint32_t
ref_axis(RefCx *c, uint32_t rank)
{
	return (uint32_t)axis_norm(c, "axis", op_axis(c), rank);
}
/* t's shape into *s; returns s. */
Shape *ref_shape_of(const Tensor *t, Shape *s);
/* Strides (in elements) of t's axes aligned to the right of a rank-r
 * broadcast shape; 0 where t has size 1 or no axis (ref_elemwise.c). */
void ref_broadcast_strides(const Tensor *t, uint32_t r, int64_t *st);

/* ---------------------------------------------------------- arithmetic */

/* Bits of an int64 as a uint64 and back, without implementation-defined
 * conversions. */
static inline uint64_t
ref_u(int64_t v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return u;
}

static inline int64_t
ref_s(uint64_t u)
{
	int64_t v;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* Stores the integer whose 64 bits are `bits` (unsigned: zero-extended,
 * else sign-extended) into element o of out: integer kinds keep the low
 * bits, float kinds get the value correctly rounded. */
void ref_store_int(Tensor *out, int64_t o, uint64_t bits, bool is_unsigned);

/* An accumulator: exact integer arithmetic modulo 2^64 for integer and
 * bool operands (so an integer result equals what an accumulator of the
 * result's width computes, wrap-around included), double for floats. */
typedef struct {
	bool isint, uns;
	uint64_t i;
	double f;
} Acc;

static inline Acc
acc_zero(ElemKind k)
{
	Acc a = {!elem_is_float(k), !elem_is_signed(k), 0, 0.0};
	return a;
}

static inline void
acc_add(Acc *a, const Tensor *t, int64_t i)
{
	if (a->isint)
		a->i += ref_u(tensor_get_int(t, i));
	else
		a->f += tensor_get(t, i);
}

/* a += x[i] * w[j] */
static inline void
acc_mac(Acc *a, const Tensor *x, int64_t i, const Tensor *w, int64_t j)
{
	if (a->isint)
		a->i += ref_u(tensor_get_int(x, i)) * ref_u(tensor_get_int(w, j));
	else
		a->f += tensor_get(x, i) * tensor_get(w, j);
}

/* Element o of out (any element type) = the accumulated value. */
void acc_store(const Acc *a, Tensor *out, int64_t o);
/* ... divided by n > 0; integer division truncates toward zero. */
void acc_store_div(const Acc *a, int64_t n, Tensor *out, int64_t o);

/* Product of dims[lo..hi): 0 if one is 0, else saturated at INT64_MAX
 * (only a subset of the axes of an empty tensor can overflow: kernels
 * return before using it when their output is empty). */
int64_t ref_prod(const int64_t *dims, uint32_t lo, uint32_t hi);

/* ------------------------------------------------------------- kernels */

/* ref_elemwise.c */
RefKernel ref_binary, ref_unary, ref_clip, ref_cast, ref_bias_add, ref_softmax, ref_layer_norm,
	ref_reduce, ref_argreduce;
/* ref_logic.c */
RefKernel ref_compare, ref_logical_not, ref_where;
/* ref_nn.c */
RefKernel ref_conv2d, ref_dense, ref_batch_matmul, ref_pool2d, ref_global_avg_pool2d;
/* ref_shape.c (ref_copy: reshape, squeeze, expand_dims) */
RefKernel ref_copy, ref_transpose, ref_layout_transform, ref_concatenate, ref_split,
	ref_strided_slice, ref_pad;

#endif
