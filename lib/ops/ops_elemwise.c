/* ops_elemwise.c: type rules of elementwise and broadcasting operators:
 * the binary arithmetic ops (NumPy broadcasting), the unary math ops, clip,
 * cast, nn.bias_add and nn.softmax.
 */
#include <math.h>
#include <string.h>

#include "ops_impl.h"

const Type *
infer_binary(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *a = op_arg(&c, 0), *b = op_arg(&c, 1);
	if (!check_same_dtype(&c, a, b, NULL, NULL) || !check_not_bool(&c, a))
		return NULL;
	/* NumPy: align on the right; equal sizes or a 1 on one side. */
	uint32_t r = a->n > b->n ? a->n : b->n;
	int64_t dims[OPS_MAX_RANK];
	for (uint32_t i = 0; i < r; i++) {
		int64_t da = i + a->n >= r ? a->dims[i + a->n - r] : 1;
		int64_t db = i + b->n >= r ? b->dims[i + b->n - r] : 1;
		if (da != db && da != 1 && db != 1) {
			char x[256], y[256];
			op_error(&c, "shapes do not broadcast: %s and %s (%lld vs %lld at axis %u of "
			         "the result)", type_text(a, x, sizeof x), type_text(b, y, sizeof y),
			         (long long)da, (long long)db, (unsigned)i);
			return NULL;
		}
		dims[i] = da == 1 ? db : da;
	}
	return type_tensor(m, a->dt, r, dims);
}

const Type *
infer_unary(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *a = op_arg(&c, 0);
	return check_not_bool(&c, a) ? a : NULL;
}

/* exp, log, sqrt, rsqrt, sigmoid, tanh, erf, hard_swish: defined on floats only (TVM's
 * type relation lets ints through and fails in the kernel). */
const Type *
infer_unary_float(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *a = op_arg(&c, 0);
	return check_float(&c, a) ? a : NULL;
}

const Type *
infer_clip(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	double lo, hi;
	if (!clip_attrs(&c, &lo, &hi))
		return NULL;
	const Type *a = op_arg(&c, 0);
	return check_not_bool(&c, a) ? a : NULL;
}

const Type *
infer_hard_sigmoid(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	double alpha, beta;
	if (!hard_sigmoid_attrs(&c, &alpha, &beta))
		return NULL;
	const Type *a = op_arg(&c, 0);
	return check_float(&c, a) ? a : NULL;
}

const Type *
infer_cast(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	DType to;
	if (!oa_require(&c, "dtype", "dtype=\"f16\""))
		return NULL;
	if (!oa_dtype(&c, "dtype", &to)) {
		if (c.ok)       /* dtype="" */
			op_error_at(&c, oa_loc(&c, "dtype"), "'dtype' of cast must name an element "
			            "type such as \"f16\"");
		return NULL;
	}
	const Type *a = op_arg(&c, 0);
	return type_tensor(m, to, a->n, a->dims);
}

const Type *
infer_bias_add(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	int64_t axis = op_axis(&c);
	if (!c.ok)
		return NULL;
	const Type *x = op_arg(&c, 0), *b = op_arg(&c, 1);
	if (!check_same_dtype(&c, x, b, "data", "bias") || !check_not_bool(&c, x))
		return NULL;
	axis = axis_norm(&c, "axis", axis, x->n);
	if (axis < 0)
		return NULL;
	if (b->n != 1 || b->dims[0] != x->dims[axis]) {
		char xs[256], bs[256];
		op_error(&c, "bias has type %s, but data %s needs a 1-d bias of %lld elements "
		         "(the size of axis %lld)", type_text(b, bs, sizeof bs),
		         type_text(x, xs, sizeof xs), (long long)x->dims[axis], (long long)axis);
		return NULL;
	}
	return x;
}

const Type *
infer_softmax(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	int64_t axis = op_axis(&c);
	if (!c.ok)
		return NULL;
	const Type *x = op_arg(&c, 0);
	if (!check_float(&c, x) || axis_norm(&c, "axis", axis, x->n) < 0)
		return NULL;
	return x;
}
