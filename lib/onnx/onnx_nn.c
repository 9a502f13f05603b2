/* onnx_nn.c: the mapping of convolution, pooling, matrix products,
 * normalization, softmax and reductions onto the registry's nn.* and
 * reduction operators. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

/* An attribute of 2 ints (strides, dilations), default `def` for both. */
static bool
attr2(Imp *im, const Onnx__NodeProto *n, const char *name, int64_t def, int64_t *v, int64_t lo)
{
	int64_t t[4];
	long c = onnx_attr_ints(n, name, t, 4);
	v[0] = v[1] = def;
	if (c < 0)
		return true;
	if (c != 2)
		return onnx_fail(im, "%s has %ld values; only 2-D windows are supported", name, c), false;
	if (t[0] < lo || t[1] < lo || t[0] > ((int64_t)1 << 30) || t[1] > ((int64_t)1 << 30))
		return onnx_fail(im, "%s [%lld, %lld] is out of range", name, (long long)t[0],
		                 (long long)t[1]), false;
	v[0] = t[0], v[1] = t[1];
	return true;
}

/* The padding [top, left, bottom, right] of a 2-D window op: pads, or
 * what auto_pad computes from the input size. */
static bool
window_pads(Imp *im, const Onnx__NodeProto *n, const int64_t *in_hw, const int64_t *k,
            const int64_t *st, const int64_t *dl, int64_t *pad)
{
	char buf[32];
	const char *ap = onnx_attr_str(n, "auto_pad", "NOTSET", buf, sizeof buf);
	memset(pad, 0, 4 * sizeof *pad);
	if (strcmp(ap, "NOTSET") == 0) {
		int64_t t[8];
		long c = onnx_attr_ints(n, "pads", t, 8);
		if (c < 0)
			return true;
		if (c != 4)
			return onnx_fail(im, "pads has %ld values; only 2-D windows are supported", c), false;
		for (int i = 0; i < 4; i++) {
			if (t[i] < 0 || t[i] > ((int64_t)1 << 30))
				return onnx_fail(im, "pads holds %lld", (long long)t[i]), false;
			pad[i] = t[i];
		}
		return true;
	}
	if (strcmp(ap, "VALID") == 0)
		return true;
	bool upper = strcmp(ap, "SAME_UPPER") == 0;
	if (!upper && strcmp(ap, "SAME_LOWER") != 0)
		return onnx_fail(im, "auto_pad '%s' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER", ap),
		       false;
	for (int i = 0; i < 2; i++) {
		int64_t o = (in_hw[i] + st[i] - 1) / st[i];
		int64_t total = (o - 1) * st[i] + (k[i] - 1) * dl[i] + 1 - in_hw[i];
		if (total < 0)
			total = 0;
		int64_t small = total / 2, big = total - small;
		pad[i] = upper ? small : big;
		pad[i + 2] = upper ? big : small;
	}
	return true;
}

/* The output size of a window, as nn.conv2d and the pools count it. */
static int64_t
window_out(int64_t in, int64_t k, int64_t d, int64_t s, int64_t p0, int64_t p1, bool ceil_mode)
{
	int64_t span = in + p0 + p1 - ((k - 1) * d + 1);
	if (span < 0)
		return -1;
	return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

static Val *
scalar(Imp *im, ElemKind k, double v)
{
	Tensor *t = tensor_new(k, 0, NULL);
	tensor_set(t, 0, v);
	return onnx_val_known(im, "c", t);
}

/* A per-channel vector [C] shaped to broadcast along axis 1 of a rank-r
 * value: [C,1,...,1]. */
static Val *
per_channel(Imp *im, Val *v, uint32_t r, const char *hint)
{
	int64_t dims[MAX_RANK];
	dims[0] = v->dims[0];
	for (uint32_t i = 1; i + 1 < r; i++)
		dims[i] = 1;
	return onnx_op_reshape(im, v, r > 1 ? r - 1 : 1, dims, hint);
}

/* ------------------------------------------------------------ BatchNorm */

/* scale / sqrt(var + eps) and bias - mean * that, each [C]: folded when
 * the parameters are known, else computed in the module. */
static bool
bn_affine(Imp *im, const Onnx__NodeProto *bn, Val **p, Val **s, Val **t)
{
	double eps = onnx_attr_float(bn, "epsilon", 1e-5);
	const char *h = "bn";
	Val *e = scalar(im, p[0]->kind, eps);
	Val *v = onnx_op_binary(im, BIN_ADD, p[3], e, h);
	v = onnx_op_unary(im, UN_SQRT, v, h);
	*s = v ? onnx_op_binary(im, BIN_DIV, p[0], v, "bn_scale") : NULL;
	Val *m = *s ? onnx_op_binary(im, BIN_MUL, p[2], *s, h) : NULL;
	*t = m ? onnx_op_binary(im, BIN_SUB, p[1], m, "bn_shift") : NULL;
	return *t != NULL;
}

static bool
bn_params_ok(Imp *im, const Onnx__NodeProto *bn, Val **p, int64_t c, ElemKind k)
{
	for (int i = 0; i < 4; i++)
		if (!p[i] || p[i]->rank != 1 || p[i]->dims[0] != c || p[i]->kind != k)
			return onnx_fail(im, "its scale, bias, mean and variance must be vectors of %lld %s",
			                 (long long)c, elem_name(k)), false;
	if (onnx_attr_int(bn, "training_mode", 0))
		return onnx_fail(im, "training_mode is not supported (inference only)"), false;
	for (size_t i = 1; i < bn->n_output; i++)
		if (bn->output[i] && *bn->output[i])
			return onnx_fail(im, "only the first output is supported (inference)"), false;
	return true;
}

MAP_FN(onnx_map_batchnorm)
{
	(void)nout;
	Val *x = in[0];
	if (nin < 5 || x->rank < 2)
		return onnx_fail(im, "needs 5 inputs and an input of rank 2 or more"), false;
	if (!elem_is_float(x->kind))
		return onnx_fail(im, "needs a floating-point input"), false;
	if (!bn_params_ok(im, n, in + 1, x->dims[1], x->kind))
		return false;
	Val *s, *t;
	if (!bn_affine(im, n, in + 1, &s, &t))
		return false;
	Val *sc = per_channel(im, s, x->rank, "bn_scale");
	Val *sh = sc ? per_channel(im, t, x->rank, "bn_shift") : NULL;
	Val *y = sh ? onnx_op_binary(im, BIN_MUL, x, sc, onnx_out_hint(im, 0)) : NULL;
	y = y ? onnx_op_binary(im, BIN_ADD, y, sh, onnx_out_hint(im, 0)) : NULL;
	return (out[0] = y) != NULL;
}

/* ------------------------------------------------------------ Conv */

/* The BatchNormalization that only the convolution's output feeds, when
 * its parameters and the weights are known (its index in *index), else
 * NULL. */
static const Onnx__NodeProto *
foldable_bn(Imp *im, const Onnx__NodeProto *conv, Val *w, Val **p, size_t *index)
{
	if (!w->k || conv->n_output < 1 || !conv->output[0])
		return NULL;
	const Onnx__NodeProto *bn = onnx_sole_user(im, conv->output[0], index);
	if (!bn || !bn->op_type || strcmp(bn->op_type, "BatchNormalization") != 0 ||
	    (bn->domain && *bn->domain && strcmp(bn->domain, "ai.onnx") != 0) ||
	    bn->n_input < 5 || !bn->input[0] || strcmp(bn->input[0], conv->output[0]) != 0 ||
	    onnx_attr_int(bn, "training_mode", 0) ||
	    (im->opset < 7 && (!onnx_attr_int(bn, "is_test", 0) || onnx_attr_int(bn, "spatial", 1) != 1)))
		return NULL;  /* (opset 6's training form is refused where it is mapped) */
	for (size_t i = 1; i < bn->n_output; i++)
		if (bn->output[i] && *bn->output[i])
			return NULL;
	for (int i = 0; i < 4; i++) {
		Name *nm = bn->input[i + 1] ? onnx_name_get(im, bn->input[i + 1]) : NULL;
		p[i] = nm ? nm->val : NULL;
		if (!p[i] || !p[i]->k || p[i]->rank != 1 || p[i]->dims[0] != w->dims[0] ||
		    p[i]->kind != w->kind)
			return NULL;
	}
	return bn;
}

/* Conv of rank 3 (1-D) as a 2-D one of height 1. */
typedef bool MapFn(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);

/* A 1-D convolution (weights: in[1] too) or pool as the 2-D one (fn) of
 * height 1: the input [N, C, L] as [N, C, 1, L], the attributes' one
 * value per axis as [1, v], pads [b, e] as [0, b, 0, e]. */
static bool
as_2d(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout,
      bool weights, MapFn *fn)
{
	Val *x = in[0], *w = weights ? in[1] : NULL;
	int64_t xd[4] = {x->dims[0], x->dims[1], 1, x->dims[2]};
	int64_t wd[4] = {w ? w->dims[0] : 0, w ? w->dims[1] : 0, 1, w ? w->dims[2] : 0};
	Val *a[3] = {onnx_op_reshape(im, x, 4, xd, "x2d"),
	             w ? onnx_op_reshape(im, w, 4, wd, "w2d") : nin > 1 ? in[1] : NULL,
	             nin > 2 ? in[2] : NULL};
	if (!a[0] || (w && !a[1]))
		return false;
	/* the 1-D attributes become 2-D ones on a copy of the node */
	Onnx__NodeProto c = *n;
	Onnx__AttributeProto **attrs = xcalloc(n->n_attribute + 1, sizeof *attrs);
	Onnx__AttributeProto *copies = xcalloc(n->n_attribute + 1, sizeof *copies);
	int64_t *ints = xcalloc(n->n_attribute * 8 + 8, sizeof *ints);
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *s = n->attribute[i];
		copies[i] = *s;
		attrs[i] = &copies[i];
		const char *nm = s->name ? s->name : "";
		int64_t *o = ints + i * 8;
		if (s->n_ints == 1 && (!strcmp(nm, "strides") || !strcmp(nm, "dilations") ||
		                       !strcmp(nm, "kernel_shape"))) {
			o[0] = 1, o[1] = s->ints[0];
			copies[i].n_ints = 2, copies[i].ints = o;
		} else if (s->n_ints == 2 && !strcmp(nm, "pads")) {
			o[0] = 0, o[1] = s->ints[0], o[2] = 0, o[3] = s->ints[1];
			copies[i].n_ints = 4, copies[i].ints = o;
		}
	}
	c.attribute = attrs;
	Val *y = NULL;
	bool ok = fn(im, &c, a, nin < 3 ? nin : 3, &y, nout);
	free(attrs);
	free(copies);
	free(ints);
	if (!ok)
		return false;
	int64_t yd[3] = {y->dims[0], y->dims[1], y->dims[3]};
	return (out[0] = onnx_op_reshape(im, y, 3, yd, onnx_out_hint(im, 0))) != NULL;
}

MAP_FN(onnx_map_conv)
{
	(void)nout;
	if (nin < 2 || !in[0] || !in[1])
		return onnx_fail(im, "needs an input and weights"), false;
	Val *x = in[0], *w = in[1], *b = nin > 2 ? in[2] : NULL;
	if (x->rank == 3 && w->rank == 3)
		return as_2d(im, n, in, nin, out, nout, true, onnx_map_conv);
	if (x->rank != 4 || w->rank != 4)
		return onnx_fail(im, "only 1-D and 2-D convolutions are supported (input of rank %u)",
		                 x->rank), false;
	if (!elem_is_float(x->kind) || w->kind != x->kind || (b && b->kind != x->kind))
		return onnx_fail(im, "needs floating-point input, weights and bias of one type"), false;
	int64_t g = onnx_attr_int(n, "group", 1), O = w->dims[0], C = x->dims[1];
	if (g < 1 || O % g || w->dims[1] * g != C)
		return onnx_fail(im, "weights [%lld,%lld,...] with group %lld do not fit %lld input "
		                 "channels", (long long)O, (long long)w->dims[1], (long long)g,
		                 (long long)C), false;
	int64_t k[2] = {w->dims[2], w->dims[3]}, ks[2], st[2], dl[2], pad[4];
	if (!attr2(im, n, "kernel_shape", 1, ks, 1) || !attr2(im, n, "strides", 1, st, 1) ||
	    !attr2(im, n, "dilations", 1, dl, 1) ||
	    !window_pads(im, n, x->dims + 2, k, st, dl, pad))
		return false;
	if (k[0] > ((int64_t)1 << 30) || k[1] > ((int64_t)1 << 30))
		return onnx_fail(im, "a kernel of %lldx%lld is too large", (long long)k[0],
		                 (long long)k[1]), false;
	if (onnx_attr(n, "kernel_shape") && (ks[0] != k[0] || ks[1] != k[1]))
		return onnx_fail(im, "kernel_shape differs from the weights' shape"), false;
	if (b && (b->rank != 1 || b->dims[0] != O))
		return onnx_fail(im, "its bias is not a vector of %lld", (long long)O), false;
	int64_t dims[4] = {x->dims[0], O,
	                   window_out(x->dims[2], k[0], dl[0], st[0], pad[0], pad[2], false),
	                   window_out(x->dims[3], k[1], dl[1], st[1], pad[1], pad[3], false)};
	if (dims[2] < 1 || dims[3] < 1)
		return onnx_fail(im, "the window is larger than the padded input"), false;

	const char *hint = onnx_out_hint(im, 0);
	Val *p[4];
	size_t bn_index = 0;
	const Onnx__NodeProto *bn = foldable_bn(im, n, w, p, &bn_index);
	if (bn && b && !b->k)
		bn = NULL;
	if (bn) {
		/* y = (conv(x, w) + b - mean) * s + bias = conv(x, w*s) + (b - mean)*s + bias */
		Val *s, *t;
		const Onnx__NodeProto *self = im->node;
		im->node = bn;
		bool ok = bn_affine(im, bn, p, &s, &t);
		im->node = self;
		if (!ok)
			return false;
		/* the folded weights and bias are named after those they replace */
		int64_t sd[4] = {O, 1, 1, 1};
		char wh[96], bh[96];
		snprintf(wh, sizeof wh, "%.80s_bn", w->hint);
		snprintf(bh, sizeof bh, "%.80s_bn", b ? b->hint : "bias");
		Val *s4 = onnx_op_reshape(im, s, 4, sd, "bn_scale");
		w = s4 ? onnx_op_binary(im, BIN_MUL, w, s4, wh) : NULL;
		if (!w)
			return false;
		if (b) {
			Val *bs = onnx_op_binary(im, BIN_MUL, b, s, bh);
			b = bs ? onnx_op_binary(im, BIN_ADD, bs, t, bh) : NULL;
		} else {
			b = t;
			free(b->hint);
			b->hint = strcpy(xmalloc(strlen(bh) + 1), bh);
		}
		if (!b)
			return false;
		if (bn->output[0] && *bn->output[0])
			hint = bn->output[0];
	}
	/* channels must be positive: a weight of 0 output channels (an empty
	 * result) goes without it */
	GAttr ca[6] = {
		{"channels", gb_int(O)},
		{"dilation", onnx_ints(im, dl, 2)},
		{"groups", gb_int(g)},
		{"kernel_size", onnx_ints(im, k, 2)},
		{"padding", onnx_ints(im, pad, 4)},
		{"strides", onnx_ints(im, st, 2)},
	};
	AttrMap *am = O > 0 ? onnx_attrs(im, 6, ca) : onnx_attrs(im, 5, ca + 1);
	Val *y = onnx_emit2(im, b ? "conv" : hint, x->kind, 4, dims, O_CONV2D, x, w, am);
	if (b)
		y = onnx_emit2(im, hint, x->kind, 4, dims, O_BIAS_ADD, y, b,
		               ATTRS(im, {"axis", gb_int(1)}));
	if (bn)
		im->absorbed[bn_index] = y;
	out[0] = y;
	return true;
}

/* ------------------------------------------------------------ Gemm, MatMul */

MAP_FN(onnx_map_gemm)
{
	(void)nout;
	if (nin < 2)
		return onnx_fail(im, "needs A and B"), false;
	Val *a = in[0], *b = in[1], *c = nin > 2 ? in[2] : NULL;
	if (a->rank != 2 || b->rank != 2)
		return onnx_fail(im, "A and B must be matrices (ranks %u and %u)", a->rank, b->rank), false;
	if (!elem_is_float(a->kind) || b->kind != a->kind || (c && c->kind != a->kind))
		return onnx_fail(im, "needs floating-point operands of one type"), false;
	double alpha = onnx_attr_float(n, "alpha", 1.0), beta = onnx_attr_float(n, "beta", 1.0);
	static const int64_t t2[2] = {1, 0};
	const char *hint = onnx_out_hint(im, 0);
	if (onnx_attr_int(n, "transA", 0))
		a = onnx_op_transpose(im, a, t2, "a_t");
	/* nn.dense takes the weights [N,K]: B transposed, unless transB */
	if (a && !onnx_attr_int(n, "transB", 0))
		b = onnx_op_transpose(im, b, t2, b->hint);
	if (!a || !b)
		return false;
	if (a->dims[1] != b->dims[1])
		return onnx_fail(im, "A has %lld columns, B %lld rows", (long long)a->dims[1],
		                 (long long)b->dims[1]), false;
	if (alpha != 1.0 && b->k) {
		b = onnx_op_binary(im, BIN_MUL, b, scalar(im, b->kind, alpha), b->hint);
		alpha = 1.0;
		if (!b)
			return false;
	}
	int64_t dims[2] = {a->dims[0], b->dims[0]};
	Val *y = onnx_emit2(im, (c && beta != 0) || alpha != 1.0 ? "dense" : hint, a->kind, 2, dims,
	                    O_DENSE, a, b, ATTRS(im, {"units", gb_int(dims[1])}));
	if (alpha != 1.0)
		y = onnx_op_binary(im, BIN_MUL, y, scalar(im, a->kind, alpha), c && beta != 0 ? "dense" : hint);
	if (y && c && beta != 0) {
		if (beta != 1.0)
			c = onnx_op_binary(im, BIN_MUL, c, scalar(im, c->kind, beta), c->hint);
		y = c ? onnx_op_binary(im, BIN_ADD, y, c, hint) : NULL;
		if (y && (y->rank != 2 || y->dims[0] != dims[0] || y->dims[1] != dims[1]))
			return onnx_fail(im, "C does not broadcast to [%lld,%lld]", (long long)dims[0],
			                 (long long)dims[1]), false;
	}
	return (out[0] = y) != NULL;
}

MAP_FN(onnx_map_matmul)
{
	(void)n, (void)nin, (void)nout;
	Val *a = in[0], *b = in[1];
	const char *hint = onnx_out_hint(im, 0);
	if (a->rank == 0 || b->rank == 0)
		return onnx_fail(im, "operands of rank 0"), false;
	if (!elem_is_float(a->kind) || b->kind != a->kind)
		return onnx_fail(im, "needs floating-point operands of one type"), false;
	/* 1-D operands become matrices, and the axis they gained goes again */
	bool a1 = a->rank == 1, b1 = b->rank == 1;
	if (a1) {
		int64_t d[2] = {1, a->dims[0]};
		a = onnx_op_reshape(im, a, 2, d, "a2d");
	}
	if (b1) {
		int64_t d[2] = {b->dims[0], 1};
		b = onnx_op_reshape(im, b, 2, d, "b2d");
	}
	if (!a || !b)
		return false;
	int64_t K = a->dims[a->rank - 1], M = a->dims[a->rank - 2], N = b->dims[b->rank - 1];
	if (b->dims[b->rank - 2] != K)
		return onnx_fail(im, "inner sizes differ: %lld and %lld", (long long)K,
		                 (long long)b->dims[b->rank - 2]), false;
	int64_t rd[MAX_RANK];
	uint32_t rr;
	Val *y;
	if (b->rank == 2) {
		static const int64_t t2[2] = {1, 0};
		Val *wt = onnx_op_transpose(im, b, t2, b->hint);
		if (!wt)
			return false;
		rr = a->rank;
		memcpy(rd, a->dims, rr * sizeof *rd);
		rd[rr - 1] = N;
		y = onnx_emit2(im, hint, a->kind, rr, rd, O_DENSE, a, wt,
		               ATTRS(im, {"units", gb_int(N)}));
	} else {
		/* batches: both flattened to [B,M,K] and [B,K,N]; a batch of 1
		 * broadcasts */
		uint32_t br;
		int64_t bd[MAX_RANK];
		if (!onnx_bcast_shape(a->rank - 2, a->dims, b->rank - 2, b->dims, &br, bd))
			return onnx_fail(im, "batch shapes do not broadcast"), false;
		int64_t nb = onnx_shape_numel(br, bd), na = onnx_shape_numel(a->rank - 2, a->dims),
		        nbb = onnx_shape_numel(b->rank - 2, b->dims);
		if ((na != nb && na != 1) || (nbb != nb && nbb != 1))
			return onnx_fail(im, "partly broadcast batch shapes are not supported"), false;
		int64_t a3[3] = {na, M, K}, b3[3] = {nbb, K, N}, y3[3] = {nb, M, N};
		Val *x = onnx_op_reshape(im, a, 3, a3, "a3d"), *z = x ? onnx_op_reshape(im, b, 3, b3, "b3d") : NULL;
		if (!z)
			return false;
		y = onnx_emit2(im, "bmm", a->kind, 3, y3, O_BATCH_MATMUL, x, z,
		               ATTRS(im, {"transpose_b", gb_bool(false)}));
		rr = br + 2;
		memcpy(rd, bd, br * sizeof *rd);
		rd[br] = M, rd[br + 1] = N;
		y = onnx_op_reshape(im, y, rr, rd, hint);
	}
	if (y && (a1 || b1)) {
		int64_t d[MAX_RANK];
		uint32_t r = 0;
		for (uint32_t i = 0; i < rr; i++)
			if (!((a1 && i == rr - 2) || (b1 && i == rr - 1)))
				d[r++] = rd[i];
		y = onnx_op_reshape(im, y, r, d, hint);
	}
	return (out[0] = y) != NULL;
}

/* ------------------------------------------------------------ pooling */

static bool
pool(Imp *im, const Onnx__NodeProto *n, Val **in, Val **out, bool avg)
{
	Val *x = in[0];
	if (x->rank != 4)
		return onnx_fail(im, "only 2-D pooling is supported (input of rank %u)", x->rank), false;
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "pooling of bool tensors is not supported"), false;
	if (onnx_attr_int(n, "storage_order", 0))
		return onnx_fail(im, "storage_order 1 is not supported"), false;
	int64_t k[2], st[2], dl[2], pad[4];
	if (!onnx_attr(n, "kernel_shape"))
		return onnx_fail(im, "needs kernel_shape"), false;
	if (!attr2(im, n, "kernel_shape", 1, k, 1) || !attr2(im, n, "strides", 1, st, 1) ||
	    !attr2(im, n, "dilations", 1, dl, 1) ||
	    !window_pads(im, n, x->dims + 2, k, st, dl, pad))
		return false;
	bool ceil_mode = onnx_attr_int(n, "ceil_mode", 0) != 0;
	int64_t dims[4] = {x->dims[0], x->dims[1],
	                   window_out(x->dims[2], k[0], dl[0], st[0], pad[0], pad[2], ceil_mode),
	                   window_out(x->dims[3], k[1], dl[1], st[1], pad[1], pad[3], ceil_mode)};
	if (dims[2] < 1 || dims[3] < 1)
		return onnx_fail(im, "the window is larger than the padded input"), false;
	GAttr pa[6] = {
		{"ceil_mode", gb_bool(ceil_mode)},
		{"count_include_pad", gb_bool(onnx_attr_int(n, "count_include_pad", 0) != 0)},
		{"dilation", onnx_ints(im, dl, 2)},
		{"padding", onnx_ints(im, pad, 4)},
		{"pool_size", onnx_ints(im, k, 2)},
		{"strides", onnx_ints(im, st, 2)},
	};
	if (!avg)
		pa[1] = pa[0];   /* max_pool2d has no count_include_pad */
	out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, 4, dims,
	                    avg ? O_AVG_POOL2D : O_MAX_POOL2D, x,
	                    onnx_attrs(im, 5 + avg, pa + !avg));
	return true;
}

MAP_FN(onnx_map_maxpool)
{
	if (nout > 1 && n->output[1] && *n->output[1])
		return onnx_fail(im, "the Indices output is not supported"), false;
	if (in[0]->rank == 3)
		return as_2d(im, n, in, nin, out, 1, false, onnx_map_maxpool);
	return pool(im, n, in, out, false);
}

MAP_FN(onnx_map_avgpool)
{
	if (in[0]->rank == 3)
		return as_2d(im, n, in, nin, out, nout, false, onnx_map_avgpool);
	return pool(im, n, in, out, true);
}

/* GlobalAveragePool and GlobalMaxPool (the table's arg 1): the mean (max)
 * over the spatial axes, kept; nn.global_avg_pool2d for an average of
 * rank 4. */
MAP_FN(onnx_map_global_pool)
{
	(void)n, (void)nin, (void)nout;
	Val *x = in[0];
	bool max = im->op->arg != 0;
	if (x->rank < 3)
		return onnx_fail(im, "needs an input of rank 3 or more"), false;
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "pooling of bool tensors is not supported"), false;
	if (x->rank == 4 && !max) {
		out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, 0, NULL, O_GLOBAL_AVG_POOL2D, x,
		                    NULL);
		return true;
	}
	int64_t axes[MAX_RANK];
	for (uint32_t i = 2; i < x->rank; i++)
		axes[i - 2] = i;
	out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, 0, NULL, max ? O_MAX : O_MEAN, x,
	                    ATTRS(im, {"axis", onnx_ints(im, axes, x->rank - 2)},
	                          {"keepdims", gb_bool(true)}));
	return true;
}

/* ------------------------------------------------------------ softmax */

static Val *
softmax(Imp *im, const Onnx__NodeProto *n, Val *x, const char *hint)
{
	if (!elem_is_float(x->kind) || x->rank == 0)
		return onnx_fail(im, "needs a floating-point input of rank 1 or more");
	int64_t axis = onnx_norm_axis(im, onnx_attr_int(n, "axis", im->opset >= 13 ? -1 : 1), x->rank,
	                              "axis");
	if (axis < 0)
		return NULL;
	if (im->opset >= 13 || axis == (int64_t)x->rank - 1) {
		return onnx_emit1(im, hint, x->kind, x->rank, x->dims, O_SOFTMAX, x,
		                  ATTRS(im, {"axis", gb_int(axis)}));
	}
	/* before opset 13: over the axes from `axis` on, flattened */
	int64_t d2[2] = {onnx_shape_numel((uint32_t)axis, x->dims),
	                 onnx_shape_numel(x->rank - (uint32_t)axis, x->dims + axis)};
	Val *f = onnx_op_reshape(im, x, 2, d2, "flat");
	if (!f)
		return NULL;
	Val *s = onnx_emit1(im, hint, x->kind, 2, d2, O_SOFTMAX, f, ATTRS(im, {"axis", gb_int(1)}));
	return onnx_op_reshape(im, s, x->rank, x->dims, hint);
}

MAP_FN(onnx_map_softmax)
{
	(void)nin, (void)nout;
	return (out[0] = softmax(im, n, in[0], onnx_out_hint(im, 0))) != NULL;
}

MAP_FN(onnx_map_logsoftmax)
{
	(void)nin, (void)nout;
	Val *s = softmax(im, n, in[0], "softmax");
	return (out[0] = onnx_op_unary(im, UN_LOG, s, onnx_out_hint(im, 0))) != NULL;
}

/* ------------------------------------------------------------ reductions */

MAP_FN(onnx_map_reduce)
{
	(void)nout;
	Val *x = in[0];
	const char *t = n->op_type;
	bool sum = strcmp(t, "ReduceSum") == 0, mean = strcmp(t, "ReduceMean") == 0;
	/* The others are sums of something, some with a function after:
	 * L1 = sum |x|, L2 = sqrt(sum x^2), SumSquare = sum x^2,
	 * LogSum = log(sum x), LogSumExp = log(sum exp x). */
	bool l1 = strcmp(t, "ReduceL1") == 0, l2 = strcmp(t, "ReduceL2") == 0;
	bool sq = l2 || strcmp(t, "ReduceSumSquare") == 0, lse = strcmp(t, "ReduceLogSumExp") == 0;
	bool lg = lse || strcmp(t, "ReduceLogSum") == 0;
	bool sum_of = l1 || sq || lg;
	OpId irop = sum || sum_of ? O_SUM : mean ? O_MEAN : strcmp(t, "ReduceMax") == 0 ? O_MAX
	          : O_MIN;
	int chain = mean ? onnx_layernorm_chain(im, n, x, &out[0]) : 0;
	if (chain)
		return chain > 0;
	int64_t axes[MAX_RANK];
	size_t na = 0;
	bool given;
	/* axes became an input in opset 13 (ReduceSum) and 18 (the others) */
	if ((sum && im->opset >= 13) || im->opset >= 18) {
		given = nin > 1 && in[1];
		if (given && !onnx_known_ints(im, in[1], "its axes", axes, MAX_RANK, &na))
			return false;
		if (given && na == 0)
			given = false;
		if (!given && onnx_attr_int(n, "noop_with_empty_axes", 0))
			return out[0] = x, true;
	} else {
		long c = onnx_attr_ints(n, "axes", axes, MAX_RANK);
		if (c > MAX_RANK)
			return onnx_fail(im, "too many axes"), false;
		given = c > 0;
		na = c > 0 ? (size_t)c : 0;
	}
	bool keep = onnx_attr_int(n, "keepdims", 1) != 0, red[MAX_RANK] = {false};
	if (!given)
		for (uint32_t i = 0; i < x->rank; i++)
			red[i] = true;
	for (size_t i = 0; i < na; i++) {
		int64_t a = onnx_norm_axis(im, axes[i], x->rank, "axis");
		if (a < 0)
			return false;
		red[a] = true;
	}
	int64_t list[MAX_RANK];
	size_t cnt = 0;
	for (uint32_t i = 0; i < x->rank; i++)
		if (red[i])
			list[cnt++] = i;
	if (!elem_is_float(x->kind) && (mean || l2 || lg))
		return onnx_fail(im, "%s needs a floating-point input", t), false;
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "%s of bool tensors is not supported", t), false;
	const char *h = onnx_out_hint(im, 0);
	if (strcmp(t, "ReduceProd") == 0)
		return (out[0] = onnx_reduce_prod(im, x, red, keep, h)) != NULL;
	Val *s = l1 ? onnx_op_unary(im, UN_ABS, x, h) : sq ? onnx_op_binary(im, BIN_MUL, x, x, h)
	       : lse ? onnx_op_unary(im, UN_EXP, x, h) : x;
	if (!s)
		return false;
	Val *y = onnx_emit1(im, h, x->kind, 0, NULL, irop, s,
	                    ATTRS(im, {"axis", onnx_ints(im, list, cnt)}, {"keepdims", gb_bool(keep)}));
	if (y && l2)
		y = onnx_op_unary(im, UN_SQRT, y, h);
	else if (y && lg)
		y = onnx_op_unary(im, UN_LOG, y, h);
	return (out[0] = y) != NULL;
}
