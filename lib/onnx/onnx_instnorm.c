/* onnx_instnorm.c: InstanceNormalization, MeanVarianceNormalization and
 * LRN as compositions of the IR's reductions and elementwise operators,
 * each as ONNX defines it (MeanVarianceNormalization by its function
 * body: (x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9)). */
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

static Val *
mean_over(Imp *im, Val *x, const int64_t *axes, size_t na, const char *h)
{
	if (!x)
		return NULL;
	return onnx_emit1(im, h, x->kind, 0, NULL, O_MEAN, x,
	                  ATTRS(im, {"axis", onnx_ints(im, axes, na)}, {"keepdims", gb_bool(true)}));
}

/* v [C] as [C, 1, ..., 1] for a rank-r tensor's axis 1. */
static Val *
per_channel(Imp *im, Val *v, uint32_t r, int64_t C, const char *what)
{
	if (v->rank != 1 || v->dims[0] != C)
		return onnx_fail(im, "its %s must have one value per channel (%lld)", what, (long long)C);
	int64_t d[MAX_RANK];
	for (uint32_t i = 0; i + 1 < r; i++)
		d[i] = i ? 1 : C;
	return onnx_op_reshape(im, v, r - 1, d, what);
}

MAP_FN(onnx_map_instnorm)
{
	(void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	if (nin < 3 || !in[1] || !in[2])
		return onnx_fail(im, "needs its scale and B"), false;
	if (!elem_is_float(x->kind) || x->rank < 3)
		return onnx_fail(im, "needs a floating-point input of rank 3 or more"), false;
	if (in[1]->kind != x->kind || in[2]->kind != x->kind)
		return onnx_fail(im, "its scale and B must be of the input's element type"), false;
	int64_t axes[MAX_RANK];
	for (uint32_t i = 2; i < x->rank; i++)
		axes[i - 2] = i;
	double eps = onnx_attr_float(n, "epsilon", 1e-5);
	Val *s = per_channel(im, in[1], x->rank, x->dims[1], "scale");
	Val *b = s ? per_channel(im, in[2], x->rank, x->dims[1], "B") : NULL;
	Val *m = b ? mean_over(im, x, axes, x->rank - 2, h) : NULL;
	Val *c = onnx_op_binary(im, BIN_SUB, x, m, h);
	Val *var = mean_over(im, onnx_op_binary(im, BIN_MUL, c, c, h), axes, x->rank - 2, h);
	Val *sd = var ? onnx_op_unary(im, UN_SQRT, onnx_op_binary(im, BIN_ADD, var, onnx_scalar(im, x->kind, eps),
	                                               h), h) : NULL;
	Val *y = onnx_op_binary(im, BIN_ADD, onnx_op_binary(im, BIN_MUL, onnx_op_binary(im, BIN_DIV, c, sd, h), s, h), b, h);
	return (out[0] = y) != NULL;
}

MAP_FN(onnx_map_mvn)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	if (!elem_is_float(x->kind))
		return onnx_fail(im, "needs a floating-point input"), false;
	int64_t axes[MAX_RANK] = {0, 2, 3};
	long na = onnx_attr_ints(n, "axes", axes, MAX_RANK);
	if (na > MAX_RANK)
		return onnx_fail(im, "too many axes"), false;
	if (na < 0)
		na = 3;
	for (long i = 0; i < na; i++)
		if ((axes[i] = onnx_norm_axis(im, axes[i], x->rank, "axis")) < 0)
			return false;
	Val *m = mean_over(im, x, axes, (size_t)na, h);
	Val *ex2 = mean_over(im, onnx_op_binary(im, BIN_MUL, x, x, h), axes, (size_t)na, h);
	Val *var = onnx_op_binary(im, BIN_SUB, ex2, onnx_op_binary(im, BIN_MUL, m, m, h), h);
	Val *sd = onnx_op_unary(im, UN_SQRT, var, h);
	Val *den = onnx_op_binary(im, BIN_ADD, sd, onnx_scalar(im, x->kind, 1e-9), h);
	return (out[0] = onnx_op_binary(im, BIN_DIV, onnx_op_binary(im, BIN_SUB, x, m, h), den, h)) != NULL;
}

/* LRN: x / (bias + alpha / size * the sum of squares over the channels
 * from c - floor((size-1)/2) to c + ceil((size-1)/2))^beta; the window's
 * sum is size slices of the squares padded with zeros along the
 * channels. */
MAP_FN(onnx_map_lrn)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	if (!elem_is_float(x->kind) || x->rank < 3)
		return onnx_fail(im, "needs a floating-point input of rank 3 or more"), false;
	int64_t size = onnx_attr_int(n, "size", 0), C = x->dims[1];
	if (size < 1 || size > 4096)
		return onnx_fail(im, "size %lld is out of range", (long long)size), false;
	double alpha = onnx_attr_float(n, "alpha", 1e-4), beta = onnx_attr_float(n, "beta", 0.75);
	double bias = onnx_attr_float(n, "bias", 1);
	Val *sq = onnx_op_binary(im, BIN_MUL, x, x, h);
	int64_t w[2 * MAX_RANK] = {0};
	w[2] = (size - 1) / 2, w[3] = size / 2;
	Val *p = sq ? onnx_emit1(im, h, x->kind, 0, NULL, O_PAD, sq,
	                         ATTRS(im, {"pad_value", onnx_num(0)},
	                               {"pad_width", onnx_ints(im, w, 2 * (size_t)x->rank)})) : NULL;
	Val *sum = NULL;
	for (int64_t k = 0; k < size && p; k++) {
		Val *s = onnx_op_slice_axis(im, p, 1, k, 1, C, h);
		sum = sum ? onnx_op_binary(im, BIN_ADD, sum, s, h) : s;
		if (!sum)
			return false;
	}
	Val *d = onnx_op_binary(im, BIN_ADD, onnx_op_binary(im, BIN_MUL, sum, onnx_scalar(im, x->kind, alpha / (double)size),
	                              h), onnx_scalar(im, x->kind, bias), h);
	Val *pw = onnx_op_binary(im, BIN_POW, d, onnx_scalar(im, x->kind, beta), h);
	return (out[0] = onnx_op_binary(im, BIN_DIV, x, pw, h)) != NULL;
}
