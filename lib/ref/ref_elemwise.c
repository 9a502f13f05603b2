/* ref_elemwise.c: reference kernels of the elementwise and broadcasting
 * operators (binary arithmetic, unary math, clip, cast, nn.bias_add),
 * nn.softmax, nn.layer_norm and the reductions.  Their outputs have the
 * shapes and element types the shape rules give (ref_eval checked them).
 */
#include <math.h>
#include <stdlib.h>

#include "ref_impl.h"

/* --------------------------------------------------------------- binary */

/* Integer a^b, trunc(a^b) modulo 2^64; false for 0^negative. */
static bool
int_pow(RefCx *c, int64_t a, int64_t b, bool uns, uint64_t *res)
{
	if (!uns && b < 0) {
		if (a == 0)
			return ref_fail(c, "integer 0 raised to a negative power (division by zero)");
		*res = a == 1 ? 1 : a == -1 ? ((b & 1) ? ref_u(-1) : 1) : 0;
		return true;
	}
	uint64_t base = ref_u(a), e = ref_u(b), r = 1;
	while (e) {
		if (e & 1)
			r *= base;
		base *= base;
		e >>= 1;
	}
	*res = r;
	return true;
}

/* out[o] = a[ia] OP b[ib], all three of one element type. */
static bool
binary_elem(RefCx *c, const Tensor *a, int64_t ia, const Tensor *b, int64_t ib, Tensor *out,
            int64_t o)
{
	if (elem_is_float(out->kind)) {
		double x = tensor_get(a, ia), y = tensor_get(b, ib), r = 0;
		switch (c->id) {
		case O_ADD: r = x + y; break;
		case O_SUBTRACT: r = x - y; break;
		case O_MULTIPLY: r = x * y; break;
		case O_DIVIDE: r = x / y; break;
		case O_MAXIMUM: r = isnan(x) ? x : isnan(y) ? y : x > y ? x : y; break;
		case O_MINIMUM: r = isnan(x) ? x : isnan(y) ? y : x < y ? x : y; break;
		case O_POWER: r = pow(x, y); break;
		default: break;         /* ref_binary serves only these */
		}
		tensor_set(out, o, r);
		return true;
	}
	bool uns = !elem_is_signed(out->kind);
	int64_t x = tensor_get_int(a, ia), y = tensor_get_int(b, ib);
	uint64_t ux = ref_u(x), uy = ref_u(y), r = 0;
	switch (c->id) {
	case O_ADD: r = ux + uy; break;
	case O_SUBTRACT: r = ux - uy; break;
	case O_MULTIPLY: r = ux * uy; break;
	case O_DIVIDE:
		if (y == 0)
			return ref_fail(c, "integer division by zero (element %lld of the result)",
			                (long long)o);
		if (uns)
			r = ux / uy;
		else    /* INT64_MIN / -1 overflows: it wraps to INT64_MIN */
			r = x == INT64_MIN && y == -1 ? ux : ref_u(x / y);
		break;
	case O_MAXIMUM: r = (uns ? ux > uy : x > y) ? ux : uy; break;
	case O_MINIMUM: r = (uns ? ux < uy : x < y) ? ux : uy; break;
	case O_POWER:
		if (!int_pow(c, x, y, uns, &r))
			return false;
		break;
	default:
		break;
	}
	tensor_set_int(out, o, ref_s(r));
	return true;
}

void
ref_broadcast_strides(const Tensor *t, uint32_t r, int64_t *st)
{
	int64_t s = 1;
	for (uint32_t i = r; i-- > 0;) {
		st[i] = 0;
		if (i + t->rank >= r) {
			int64_t d = t->dims[i + t->rank - r];
			if (d != 1)
				st[i] = s;
			s *= d;
		}
	}
}

bool
ref_binary(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *a = args[0], *b = args[1];
	Tensor *out = outs[0];
	/* out has the broadcast shape (NumPy's, ref_eval checked it) */
	uint32_t r = out->rank;
	const int64_t *dims = out->dims;
	int64_t sa[TENSOR_MAX_RANK], sb[TENSOR_MAX_RANK];
	if (out->numel == 0)
		return true;
	ref_broadcast_strides(a, r, sa);
	ref_broadcast_strides(b, r, sb);
	/* An odometer over the result's index, moving both operand offsets. */
	int64_t idx[TENSOR_MAX_RANK] = {0}, ia = 0, ib = 0;
	for (int64_t o = 0; o < out->numel; o++) {
		if (!binary_elem(c, a, ia, b, ib, out, o))
			return false;
		for (uint32_t k = r; k-- > 0;) {
			ia += sa[k];
			ib += sb[k];
			if (++idx[k] < dims[k])
				break;
			ia -= sa[k] * dims[k];
			ib -= sb[k] * dims[k];
			idx[k] = 0;
		}
	}
	return true;
}

/* ---------------------------------------------------------------- unary */

bool
ref_unary(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	/* hard_swish is x hard_sigmoid(x) with ONNX's HardSwish constants */
	double alpha = 1.0 / 6, beta = 0.5;
	if (c->id == O_HARD_SIGMOID && !hard_sigmoid_attrs(c, &alpha, &beta))
		return false;
	if (elem_is_float(x->kind)) {
		for (int64_t i = 0; i < x->numel; i++) {
			double v = tensor_get(x, i), r = 0, h = alpha * v + beta;
			/* comparisons, not fmin/fmax: NaN stays NaN */
			h = h < 0 ? 0.0 : h > 1 ? 1.0 : h;
			switch (c->id) {
			case O_NEGATIVE: r = -v; break;
			case O_RELU: r = v < 0 ? 0.0 : v; break;
			case O_EXP: r = exp(v); break;
			case O_LOG: r = log(v); break;
			case O_SQRT: r = sqrt(v); break;
			case O_RSQRT: r = 1.0 / sqrt(v); break;
			case O_SIGMOID: r = 1.0 / (1.0 + exp(-v)); break;
			case O_TANH: r = tanh(v); break;
			case O_ERF: r = erf(v); break;
			case O_SIN: r = sin(v); break;
			case O_COS: r = cos(v); break;
			case O_ASIN: r = asin(v); break;
			case O_ACOS: r = acos(v); break;
			case O_ATAN: r = atan(v); break;
			case O_HARD_SIGMOID: r = h; break;
			case O_HARD_SWISH: r = v * h; break;
			default: break;     /* ref_unary serves only these */
			}
			tensor_set(out, i, r);
		}
		return true;
	}
	/* integers: negative and nn.relu only (the shape rule's check_float) */
	bool uns = !elem_is_signed(x->kind);
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t v = tensor_get_int(x, i);
		if (c->id == O_NEGATIVE)
			tensor_set_int(out, i, ref_s(0 - ref_u(v)));   /* wraps */
		else
			tensor_set_int(out, i, !uns && v < 0 ? 0 : v);
	}
	return true;
}

bool
ref_clip(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	double lo, hi;
	if (!clip_attrs(c, &lo, &hi))
		return false;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	if (elem_is_float(x->kind)) {
		for (int64_t i = 0; i < x->numel; i++) {
			double v = tensor_get(x, i);
			tensor_set(out, i, isnan(v) ? v : v < lo ? lo : v > hi ? hi : v);
		}
		return true;
	}
	/* Integers: the bounds converted to the element type first (TVM casts
	 * them), truncating toward zero and saturating. */
	bool uns = !elem_is_signed(x->kind);
	int64_t ilo = elem_int_from_double(x->kind, lo), ihi = elem_int_from_double(x->kind, hi);
	for (int64_t i = 0; i < x->numel; i++) {
		int64_t v = tensor_get_int(x, i);
		if (uns ? ref_u(v) < ref_u(ilo) : v < ilo)
			v = ilo;
		if (uns ? ref_u(v) > ref_u(ihi) : v > ihi)
			v = ihi;
		tensor_set_int(out, i, v);
	}
	return true;
}

bool
ref_cast(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)c;
	(void)nargs;
	(void)nouts;
	/* The target type is the output's (the shape rule's, from dtype). */
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	bool from_float = elem_is_float(x->kind), uns = !elem_is_signed(x->kind);
	for (int64_t i = 0; i < x->numel; i++) {
		if (from_float)
			tensor_set(out, i, tensor_get(x, i));
		else
			ref_store_int(out, i, ref_u(tensor_get_int(x, i)), uns);
	}
	return true;
}

/* ------------------------------------------------------------- bias_add */

bool
ref_bias_add(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0], *b = args[1];
	Tensor *out = outs[0];
	uint32_t axis = ref_axis(c, x->rank);
	if (x->numel == 0)
		return true;
	int64_t n = x->dims[axis], inner = ref_prod(x->dims, axis + 1, x->rank);
	RefCx add = *c;
	add.id = O_ADD;
	for (int64_t i = 0; i < x->numel; i++)
		if (!binary_elem(&add, x, i, b, (i / inner) % n, out, i))
			return false;
	return true;
}

/* -------------------------------------------------------------- softmax */

bool
ref_softmax(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	uint32_t axis = ref_axis(c, x->rank);
	if (x->numel == 0)
		return true;
	int64_t outer = ref_prod(x->dims, 0, axis), n = x->dims[axis];
	int64_t inner = ref_prod(x->dims, axis + 1, x->rank);
	double *e = xmalloc((size_t)n * sizeof *e);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t k = 0; k < inner; k++) {
			int64_t base = o * n * inner + k;
			/* Stable: exp(x - max) <= 1, the largest term exactly 1. */
			double m = -INFINITY, sum = 0;
			for (int64_t j = 0; j < n; j++) {
				double v = tensor_get(x, base + j * inner);
				if (v > m || isnan(v))
					m = isnan(m) ? m : v;
			}
			for (int64_t j = 0; j < n; j++) {
				e[j] = exp(tensor_get(x, base + j * inner) - m);
				sum += e[j];
			}
			for (int64_t j = 0; j < n; j++)
				tensor_set(out, base + j * inner, e[j] / sum);
		}
	free(e);
	return true;
}

/* ----------------------------------------------------------- layer_norm */

/* Each row of the axes axis..rank-1: its mean, its biased variance (of
 * x - mean, in a second pass, as torch's decomposition computes it), then
 * (x - mean) / sqrt(var + epsilon) * gamma + beta, all in double. */
bool
ref_layer_norm(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0], *g = args[1], *bt = args[2];
	Tensor *out = outs[0];
	int64_t axis;
	double eps;
	layer_norm_attrs(c, &axis, &eps);
	axis = axis_norm(c, "axis", axis, x->rank);
	if (x->numel == 0)
		return true;
	int64_t n = ref_prod(x->dims, (uint32_t)axis, x->rank), rows = x->numel / n;
	for (int64_t r = 0; r < rows; r++) {
		int64_t base = r * n;
		double sum = 0, sq = 0;
		for (int64_t j = 0; j < n; j++)
			sum += tensor_get(x, base + j);
		double mean = sum / (double)n;
		for (int64_t j = 0; j < n; j++) {
			double d = tensor_get(x, base + j) - mean;
			sq += d * d;
		}
		double inv = 1 / sqrt(sq / (double)n + eps);
		for (int64_t j = 0; j < n; j++)
			tensor_set(out, base + j, (tensor_get(x, base + j) - mean) * inv *
			           tensor_get(g, j) + tensor_get(bt, j));
	}
	return true;
}

/* ------------------------------------------------- sum, mean, max, min */

/* max or min into out (ostride: the output offset step of each input
 * axis, 0 for a reduced one): NaN wins, as in maximum and max_pool2d;
 * nothing to reduce gives the lowest (max) or highest (min) value. */
static void
extreme(bool ismax, const Tensor *x, const int64_t *ostride, Tensor *out)
{
	bool isfloat = elem_is_float(x->kind), uns = !elem_is_signed(x->kind);
	int64_t lo;
	uint64_t hi;
	elem_int_range(isfloat ? ET_I64 : x->kind, &lo, &hi);
	for (int64_t j = 0; j < out->numel; j++) {
		if (isfloat)
			tensor_set(out, j, ismax ? -INFINITY : INFINITY);
		else
			tensor_set_int(out, j, ismax ? lo : ref_s(hi));
	}
	int64_t idx[TENSOR_MAX_RANK] = {0}, o = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		if (isfloat) {
			double v = tensor_get(x, i), m = tensor_get(out, o);
			if (!isnan(m) && (isnan(v) || (ismax ? v > m : v < m)))
				tensor_set(out, o, v);
		} else {
			int64_t v = tensor_get_int(x, i), m = tensor_get_int(out, o);
			bool gt = uns ? ref_u(v) > ref_u(m) : v > m;
			bool lt = uns ? ref_u(v) < ref_u(m) : v < m;
			if (ismax ? gt : lt)
				tensor_set_int(out, o, v);
		}
		for (uint32_t k = x->rank; k-- > 0;) {
			o += ostride[k];
			if (++idx[k] < x->dims[k])
				break;
			o -= ostride[k] * x->dims[k];
			idx[k] = 0;
		}
	}
}

bool
ref_reduce(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	ReduceAttrs a;
	if (!reduce_attrs(c, x->rank, &a))
		return false;
	const bool *reduce = a.red;
	int64_t ostride[TENSOR_MAX_RANK], count = 1;
	if (out->numel == 0)
		return true;
	/* The output is not empty, so the count is x->numel / out->numel. */
	count = x->numel / out->numel;
	/* The output offset of an input index: its kept axes, C order. */
	int64_t s = 1;
	for (uint32_t i = x->rank; i-- > 0;) {
		ostride[i] = reduce[i] ? 0 : s;
		if (!reduce[i])
			s *= x->dims[i];
	}
	if (count == 0 && c->id == O_MEAN && !elem_is_float(x->kind))
		return ref_fail(c, "mean of zero integer elements (division by zero)");
	if (c->id == O_MAX || c->id == O_MIN) {
		extreme(c->id == O_MAX, x, ostride, out);
		return true;
	}
	Acc *acc = xmalloc((size_t)out->numel * sizeof *acc);
	for (int64_t o = 0; o < out->numel; o++)
		acc[o] = acc_zero(x->kind);
	int64_t idx[TENSOR_MAX_RANK] = {0}, o = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		acc_add(&acc[o], x, i);
		for (uint32_t k = x->rank; k-- > 0;) {
			o += ostride[k];
			if (++idx[k] < x->dims[k])
				break;
			o -= ostride[k] * x->dims[k];
			idx[k] = 0;
		}
	}
	for (int64_t j = 0; j < out->numel; j++)
		if (c->id == O_SUM)
			acc_store(&acc[j], out, j);
		else if (count == 0)
			tensor_set(out, j, NAN);    /* floats: 0/0 */
		else
			acc_store_div(&acc[j], count, out, j);
	free(acc);
	return true;
}

/* -------------------------------------------------------- argmax, argmin */

bool
ref_argreduce(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	ReduceAttrs a;
	bool last = arg_last_index(c);
	if (!reduce_attrs(c, x->rank, &a) || !c->ok)
		return false;
	/* a number operand, an i32 result, something to reduce: the shape
	 * rule's checks */
	int64_t ostride[TENSOR_MAX_RANK], rstride[TENSOR_MAX_RANK];
	if (out->numel == 0)
		return true;
	/* Offsets of an input index: in the output (kept axes) and among the
	 * reduced axes (the index the result holds), both C order. */
	int64_t s = 1, t = 1;
	for (uint32_t i = x->rank; i-- > 0;) {
		ostride[i] = a.red[i] ? 0 : s;
		rstride[i] = a.red[i] ? t : 0;
		if (a.red[i])
			t *= x->dims[i];
		else
			s *= x->dims[i];
	}
	bool ismax = c->id == O_ARGMAX, isfloat = elem_is_float(x->kind);
	bool uns = !elem_is_signed(x->kind);
	bool *seen = xmalloc((size_t)out->numel * sizeof *seen);
	double *best = xmalloc((size_t)out->numel * sizeof *best);
	int64_t *ibest = xmalloc((size_t)out->numel * sizeof *ibest);
	memset(seen, 0, (size_t)out->numel * sizeof *seen);
	int64_t idx[TENSOR_MAX_RANK] = {0}, o = 0, r = 0;
	for (int64_t i = 0; i < x->numel; i++) {
		bool take;
		if (!seen[o]) {
			take = true;
		} else if (isfloat) {
			double v = tensor_get(x, i), b = best[o];
			/* NaN wins; among equals (and NaNs) the first, or the last */
			if (last)
				take = isnan(v) || (ismax ? v >= b : v <= b);
			else
				take = (isnan(v) && !isnan(b)) || (ismax ? v > b : v < b);
		} else {
			int64_t v = tensor_get_int(x, i), b = ibest[o];
			bool gt = uns ? ref_u(v) > ref_u(b) : v > b, lt = uns ? ref_u(v) < ref_u(b) : v < b;
			take = ismax ? gt || (last && !lt) : lt || (last && !gt);
		}
		if (take) {
			seen[o] = true;
			if (isfloat)
				best[o] = tensor_get(x, i);
			else
				ibest[o] = tensor_get_int(x, i);
			tensor_set_int(out, o, r);
		}
		for (uint32_t k = x->rank; k-- > 0;) {
			o += ostride[k];
			r += rstride[k];
			if (++idx[k] < x->dims[k])
				break;
			o -= ostride[k] * x->dims[k];
			r -= rstride[k] * x->dims[k];
			idx[k] = 0;
		}
	}
	free(seen);
	free(best);
	free(ibest);
	return true;
}
