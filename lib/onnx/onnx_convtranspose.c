/* onnx_convtranspose.c: ConvTranspose (1-D and 2-D) as the convolution it
 * equals: the input with stride - 1 zeros between its elements (a new
 * axis after each spatial one, padded, flattened), padded by
 * dilation (kernel - 1) less the pads on each side (plus output_padding
 * at the end; a negative amount crops), convolved at stride 1 by the
 * weights flipped along the spatial axes with their input and output
 * channels swapped per group.  No new IR operator. */
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

/* An ints attribute of sp values (default def each); false after
 * reporting. */
static bool
ints_attr(Imp *im, const Onnx__NodeProto *n, const char *name, uint32_t sp, int64_t def,
          int64_t lo, int64_t *v)
{
	int64_t t[4];
	long c = onnx_attr_ints(n, name, t, 4);
	if (c >= 0 && (uint32_t)c != sp)
		return onnx_fail(im, "%s has %ld values for %u spatial axes", name, c, sp), false;
	for (uint32_t i = 0; i < sp; i++)
		v[i] = c < 0 ? def : t[i];
	for (uint32_t i = 0; i < sp; i++)
		if (v[i] < lo || v[i] > ((int64_t)1 << 20))
			return onnx_fail(im, "%s holds %lld", name, (long long)v[i]), false;
	return true;
}

static Val *
pad(Imp *im, Val *x, const int64_t *w, const char *h)
{
	for (uint32_t i = 0; i < 2 * x->rank; i++)
		if (w[i])
			return onnx_emit1(im, h, x->kind, 0, NULL, O_PAD, x,
			                  ATTRS(im, {"pad_value", onnx_num(0)},
			                        {"pad_width", onnx_ints(im, w, 2 * (size_t)x->rank)}));
	return x;
}

MAP_FN(onnx_map_convtranspose)
{
	(void)nout;
	if (nin < 2 || !in[0] || !in[1])
		return onnx_fail(im, "needs an input and weights"), false;
	Val *x = in[0], *w = in[1], *b = nin > 2 ? in[2] : NULL;
	const char *h = onnx_out_hint(im, 0);
	uint32_t sp = x->rank - 2;
	if ((x->rank != 3 && x->rank != 4) || w->rank != x->rank)
		return onnx_fail(im, "only 1-D and 2-D transposed convolutions are supported (input of "
		                 "rank %u)", x->rank), false;
	if (!elem_is_float(x->kind) || w->kind != x->kind || (b && b->kind != x->kind))
		return onnx_fail(im, "needs floating-point input, weights and bias of one type"), false;
	int64_t g = onnx_attr_int(n, "group", 1), C = x->dims[1];
	if (g < 1 || C % g || w->dims[0] != C || w->dims[1] > INT64_MAX / g)
		return onnx_fail(im, "weights [%lld,%lld,...] with group %lld do not fit %lld input "
		                 "channels", (long long)w->dims[0], (long long)w->dims[1], (long long)g,
		                 (long long)C), false;
	int64_t M = w->dims[1] * g;
	if (b && (b->rank != 1 || b->dims[0] != M))
		return onnx_fail(im, "its bias is not a vector of %lld", (long long)M), false;
	int64_t k[2], s[2], d[2], op[2], pads[4], osh[2];
	for (uint32_t i = 0; i < sp; i++)
		k[i] = w->dims[2 + i];
	if (!ints_attr(im, n, "strides", sp, 1, 1, s) || !ints_attr(im, n, "dilations", sp, 1, 1, d) ||
	    !ints_attr(im, n, "output_padding", sp, 0, 0, op))
		return false;
	int64_t ks[2];
	if (onnx_attr(n, "kernel_shape") && (!ints_attr(im, n, "kernel_shape", sp, 1, 1, ks) ||
	                                     memcmp(ks, k, sp * sizeof *k)))
		return onnx_fail(im, "kernel_shape differs from the weights' shape"), false;
	long np = onnx_attr_ints(n, "pads", pads, 4);
	if (np >= 0 && (uint32_t)np != 2 * sp)
		return onnx_fail(im, "pads has %ld values for %u spatial axes", np, sp), false;
	for (uint32_t i = 0; i < 2 * sp; i++) {
		if (np < 0)
			pads[i] = 0;
		if (pads[i] < 0 || pads[i] > ((int64_t)1 << 20))
			return onnx_fail(im, "pads holds %lld", (long long)pads[i]), false;
	}
	char ap[16];
	onnx_attr_str(n, "auto_pad", "NOTSET", ap, sizeof ap);
	bool upper = !strcmp(ap, "SAME_UPPER"), same = upper || !strcmp(ap, "SAME_LOWER");
	if (!same && strcmp(ap, "NOTSET") && strcmp(ap, "VALID"))
		return onnx_fail(im, "auto_pad '%s' is not supported", ap), false;
	bool given = onnx_attr(n, "output_shape") != NULL;
	if (given && !ints_attr(im, n, "output_shape", sp, 1, 0, osh))
		return false;
	for (uint32_t i = 0; i < sp; i++) {
		int64_t full = s[i] * (x->dims[2 + i] - 1) + op[i] + (k[i] - 1) * d[i] + 1;
		if (!given && !same)
			continue;
		/* the pads that give output_shape (or input times stride for
		 * SAME): ONNX's split of their total */
		int64_t want = given ? osh[i] : x->dims[2 + i] * s[i], total = full - want;
		/* (a negative total, a larger output_shape, pads zeros at the
		 * end: half of it rounded down, as ONNX's reference) */
		int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
		if (want < 1)
			return onnx_fail(im, "output_shape %lld", (long long)want), false;
		pads[i] = upper ? half : total - half;
		pads[sp + i] = total - pads[i];
	}
	/* everything as 2-D: a 1-D one has a height of 1 */
	if (sp == 1) {
		k[1] = k[0], s[1] = s[0], d[1] = d[0], op[1] = op[0];
		k[0] = s[0] = d[0] = 1, op[0] = 0;
		pads[3] = pads[1], pads[1] = pads[0], pads[0] = pads[2] = 0;
		int64_t xd[4] = {x->dims[0], C, 1, x->dims[2]}, wd[4] = {C, w->dims[1], 1, w->dims[2]};
		x = onnx_op_reshape(im, x, 4, xd, "x2d");
		w = x ? onnx_op_reshape(im, w, 4, wd, "w2d") : NULL;
		if (!w)
			return false;
	}
	int64_t N = x->dims[0], H = x->dims[2], W = x->dims[3];
	/* zeros between the elements: [N,C,H,1,W,1] padded to [N,C,H,s0,W,s1] */
	int64_t six[6] = {N, C, H, 1, W, 1}, up[4] = {N, C, H * s[0], W * s[1]};
	int64_t zw[12] = {0, 0, 0, 0, 0, 0, 0, s[0] - 1, 0, 0, 0, s[1] - 1};
	Val *xs = onnx_op_reshape(im, x, 6, six, h);
	xs = xs ? pad(im, xs, zw, h) : NULL;
	xs = xs ? onnx_op_reshape(im, xs, 4, up, h) : NULL;
	/* then dilation (kernel - 1) less the pads each side (the s - 1 zeros
	 * after the last element less at the end); negative amounts crop */
	int64_t pw[8] = {0};
	for (uint32_t i = 0; i < 2 && xs; i++) {
		int64_t span = d[i] * (k[i] - 1), len = xs->dims[2 + i];
		int64_t lo = span - pads[i], hi = span - pads[2 + i] + op[i] - (s[i] - 1);
		int64_t from = lo < 0 ? -lo : 0, cut = hi < 0 ? -hi : 0;
		if (from + cut >= len)
			return onnx_fail(im, "its pads leave nothing of the input"), false;
		if (from || cut)
			xs = onnx_op_slice_axis(im, xs, 2 + i, from, 1, len - from - cut, h);
		pw[2 * (2 + i)] = lo > 0 ? lo : 0, pw[2 * (2 + i) + 1] = hi > 0 ? hi : 0;
	}
	xs = xs ? pad(im, xs, pw, h) : NULL;
	/* the weights flipped, [C, M/g, kh, kw] to [M, C/g, kh, kw] */
	Val *wf = onnx_op_slice_axis(im, w, 2, k[0] - 1, -1, k[0], "w_flip");
	wf = wf ? onnx_op_slice_axis(im, wf, 3, k[1] - 1, -1, k[1], "w_flip") : NULL;
	int64_t g5[5] = {g, C / g, M / g, k[0], k[1]}, p5[5] = {0, 2, 1, 3, 4};
	int64_t w4[4] = {M, C / g, k[0], k[1]};
	wf = wf ? onnx_op_reshape(im, wf, 5, g5, "w_flip") : NULL;
	wf = wf ? onnx_op_transpose(im, wf, p5, "w_flip") : NULL;
	wf = wf ? onnx_op_reshape(im, wf, 4, w4, "w_flip") : NULL;
	if (!xs || !wf)
		return false;
	int64_t one[2] = {1, 1}, zero[4] = {0, 0, 0, 0};
	int64_t dims[4] = {N, M, xs->dims[2] - d[0] * (k[0] - 1), xs->dims[3] - d[1] * (k[1] - 1)};
	if (M == 0)
		return onnx_fail(im, "a transposed convolution of 0 output channels"), false;
	Val *y = onnx_emit2(im, b ? "conv" : h, x->kind, 4, dims, O_CONV2D, xs, wf,
	                    ATTRS(im, {"channels", gb_int(M)}, {"dilation", onnx_ints(im, d, 2)},
	                          {"groups", gb_int(g)}, {"kernel_size", onnx_ints(im, k, 2)},
	                          {"padding", onnx_ints(im, zero, 4)},
	                          {"strides", onnx_ints(im, one, 2)}));
	if (y && b)
		y = onnx_emit2(im, h, x->kind, 4, dims, O_BIAS_ADD, y, b, ATTRS(im, {"axis", gb_int(1)}));
	if (y && sp == 1) {
		int64_t yd[3] = {N, M, dims[3]};
		y = onnx_op_reshape(im, y, 3, yd, h);
	}
	return (out[0] = y) != NULL;
}
