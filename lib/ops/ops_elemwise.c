/* ops_elemwise.c: shape rules of elementwise and broadcasting operators:
 * the binary arithmetic ops (NumPy broadcasting), the unary math ops, clip,
 * cast, nn.bias_add, nn.softmax and nn.layer_norm.
 */
#include <math.h>
#include <string.h>

#include "ops_impl.h"

bool
shape_binary(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *a = &args[0], *b = &args[1];
	if (!check_same_dtype(c, a, b, NULL, NULL) || !check_not_bool(c, a))
		return false;
	/* NumPy: align on the right; equal sizes or a 1 on one side. */
	uint32_t r = a->rank > b->rank ? a->rank : b->rank;
	for (uint32_t i = 0; i < r; i++) {
		int64_t da = i + a->rank >= r ? a->dims[i + a->rank - r] : 1;
		int64_t db = i + b->rank >= r ? b->dims[i + b->rank - r] : 1;
		if (da != db && da != 1 && db != 1) {
			char x[256], y[256];
			op_error(c, "shapes do not broadcast: %s and %s (%lld vs %lld at axis %u of "
			         "the result)", shape_text(a, x, sizeof x), shape_text(b, y, sizeof y),
			         (long long)da, (long long)db, (unsigned)i);
			return false;
		}
		out->dims[i] = da == 1 ? db : da;
	}
	out->dt = a->dt;
	out->rank = r;
	return true;
}

/* negative, nn.relu: the operand's shape, not on bool. */
bool
shape_unary(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	if (!check_not_bool(c, &args[0]))
		return false;
	*out = args[0];
	return true;
}

/* exp, log, sqrt, rsqrt, sigmoid, tanh, erf, hard_swish, sin, cos, asin, acos, atan: defined on floats only (TVM's
 * type relation lets ints through and fails in the kernel). */
bool
shape_unary_float(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	if (!check_float(c, &args[0]))
		return false;
	*out = args[0];
	return true;
}

bool
shape_clip(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	double lo, hi;
	if (!clip_attrs(c, &lo, &hi))
		return false;
	return shape_unary(c, args, nargs, out);
}

bool
shape_hard_sigmoid(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	double alpha, beta;
	if (!hard_sigmoid_attrs(c, &alpha, &beta))
		return false;
	return shape_unary_float(c, args, nargs, out);
}

bool
shape_cast(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	DType to;
	if (!oa_require(c, "dtype", "dtype=\"f16\""))
		return false;
	if (!oa_dtype(c, "dtype", &to)) {
		if (c->ok)      /* dtype="" */
			op_error_at(c, oa_loc(c, "dtype"), "'dtype' of cast must name an element "
			            "type such as \"f16\"");
		return false;
	}
	*out = args[0];
	out->dt = to;
	return true;
}

bool
shape_bias_add(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	int64_t axis = op_axis(c);
	if (!c->ok)
		return false;
	const Shape *x = &args[0], *b = &args[1];
	if (!check_same_dtype(c, x, b, "data", "bias") || !check_not_bool(c, x))
		return false;
	axis = axis_norm(c, "axis", axis, x->rank);
	if (axis < 0)
		return false;
	if (b->rank != 1 || b->dims[0] != x->dims[axis]) {
		char xs[256], bs[256];
		op_error(c, "bias has type %s, but data %s needs a 1-d bias of %lld elements "
		         "(the size of axis %lld)", shape_text(b, bs, sizeof bs),
		         shape_text(x, xs, sizeof xs), (long long)x->dims[axis], (long long)axis);
		return false;
	}
	*out = *x;
	return true;
}

bool
shape_softmax(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	int64_t axis = op_axis(c);
	if (!c->ok)
		return false;
	const Shape *x = &args[0];
	if (!check_float(c, x) || axis_norm(c, "axis", axis, x->rank) < 0)
		return false;
	*out = *x;
	return true;
}

/* nn.layer_norm(data, gamma, beta): gamma and beta have exactly the shape
 * of the normalized axes (ONNX broadcasts them; ir-import-onnx expands
 * them where they are smaller). */
bool
shape_layer_norm(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	int64_t axis;
	double eps;
	if (!layer_norm_attrs(c, &axis, &eps))
		return false;
	const Shape *x = &args[0];
	if (!check_float(c, x) || (axis = axis_norm(c, "axis", axis, x->rank)) < 0)
		return false;
	Shape want = {.dt = x->dt, .rank = x->rank - (uint32_t)axis};
	memcpy(want.dims, x->dims + axis, want.rank * sizeof *want.dims);
	static const char *const names[] = {"gamma", "beta"};
	for (int i = 0; i < 2; i++) {
		const Shape *p = &args[1 + i];
		if (!check_same_dtype(c, x, p, "data", names[i]))
			return false;
		if (p->rank != want.rank || memcmp(p->dims, want.dims, want.rank * sizeof *want.dims)) {
			char xs[256], ps[256], ws[256];
			op_error(c, "%s has type %s, but data %s normalized over axes %lld to %u needs "
			         "%s", names[i], shape_text(p, ps, sizeof ps), shape_text(x, xs, sizeof xs),
			         (long long)axis, (unsigned)x->rank - 1, shape_text(&want, ws, sizeof ws));
			return false;
		}
	}
	*out = *x;
	return true;
}
