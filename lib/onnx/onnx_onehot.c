/* onnx_onehot.c: ONNX's operators that index by computed values, imported
 * as compositions of the IR's operators through a one-hot mask (the
 * indices compared with 0..K-1 along a new axis): Gather with computed
 * indices and GatherElements are a `where` of the mask between the data
 * and 0, summed over that axis (exact: one element and zeros); Hardmax is
 * argmax compared with 0..K-1; NegativeLogLikelihoodLoss and
 * SoftmaxCrossEntropyLoss weigh the log-probabilities by the mask times
 * the class weights.  The IR has no gather or scatter operator; the mask
 * costs K times the result's elements, which the small index operands of
 * ONNX's tests and losses allow. */
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

static bool
index_kind_ok(Imp *im, Val *idx)
{
	if (idx->kind == ET_BOOL || elem_is_float(idx->kind))
		return onnx_fail(im, "its indices must be integers, not %s", elem_name(idx->kind)), false;
	return true;
}

/* dims with a 1 inserted at p (rank r + 1, which must fit). */
static void
insert_one(uint32_t r, const int64_t *dims, uint32_t p, int64_t *out)
{
	for (uint32_t i = 0, j = 0; i <= r; i++)
		out[i] = i == p ? 1 : dims[j++];
}

/* 0, 1, ..., K-1 of kind k along axis p of a rank-r shape of ones. */
static Val *
iota(Imp *im, ElemKind k, uint32_t r, uint32_t p, int64_t K)
{
	int64_t d[MAX_RANK];
	for (uint32_t i = 0; i < r; i++)
		d[i] = i == p ? K : 1;
	Tensor *t = onnx_fold_new(k, r, d);
	if (!t)
		return onnx_fail(im, "too large to compute at import");
	for (int64_t i = 0; i < K; i++)
		tensor_set_int(t, i, i);
	return onnx_val_known(im, "iota", t);
}

/* The bool mask idx == j along a new axis p of size K (with wrap,
 * negative indices count from the end, as ONNX's gathers take them). */
static Val *
onehot(Imp *im, Val *idx, int64_t K, uint32_t p, bool wrap, const char *h)
{
	if (idx->rank + 1 > MAX_RANK)
		return onnx_fail(im, "its indices' rank %u leaves no room for the mask's axis", idx->rank);
	Val *w = idx;
	if (wrap) {
		Val *z = onnx_scalar(im, idx->kind, 0), *kv = onnx_scalar(im, idx->kind, (double)K);
		Val *neg = onnx_op_binary(im, BIN_LT, idx, z, h);
		Val *up = neg ? onnx_op_binary(im, BIN_ADD, idx, kv, h) : NULL;
		w = up ? onnx_op_where(im, neg, up, idx, h) : NULL;
	}
	int64_t d[MAX_RANK];
	insert_one(idx->rank, idx->dims, p, d);
	Val *e = w ? onnx_op_reshape(im, w, idx->rank + 1, d, h) : NULL;
	Val *io = e ? iota(im, idx->kind, idx->rank + 1, p, K) : NULL;
	return io ? onnx_op_binary(im, BIN_EQ, e, io, h) : NULL;
}

/* sum over axis q of where(mask, x, 0): the one element the mask picks. */
static Val *
pick(Imp *im, Val *mask, Val *x, int64_t q, const char *h)
{
	if (!mask || !x)
		return NULL;
	Val *s = onnx_op_where(im, mask, x, onnx_scalar(im, x->kind, 0), h);
	if (!s)
		return NULL;
	return onnx_emit1(im, h, x->kind, 0, NULL, O_SUM, s,
	                  ATTRS(im, {"axis", onnx_ints(im, &q, 1)}, {"keepdims", gb_bool(false)}));
}

static bool
data_kind_ok(Imp *im, Val *x)
{
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "gathering from bool tensors by computed indices is not "
		                 "supported"), false;
	return true;
}

Val *
onnx_gather_computed(Imp *im, Val *x, int64_t axis, Val *idx, const char *h)
{
	if (!index_kind_ok(im, idx) || !data_kind_ok(im, x))
		return NULL;
	/* x: A K B, idx: I; the mask 1..1 I K 1..1 against x as A 1..1 K B */
	uint32_t a = (uint32_t)axis, b = x->rank - a - 1, ri = idx->rank;
	uint32_t r = a + ri + 1 + b;
	if (r > MAX_RANK)
		return onnx_fail(im, "the gather's rank %u is more than %d", r, MAX_RANK);
	int64_t K = x->dims[a], md[MAX_RANK], xd[MAX_RANK];
	Val *m = onehot(im, idx, K, ri, true, h);
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < r; i++) {
		bool in_i = i >= a && i < a + ri;
		md[i] = in_i ? idx->dims[i - a] : i == a + ri ? K : 1;
		xd[i] = i < a ? x->dims[i] : in_i ? 1 : x->dims[i - ri];
	}
	Val *mr = onnx_op_reshape(im, m, r, md, h);
	Val *xr = mr ? onnx_op_reshape(im, x, r, xd, h) : NULL;
	return pick(im, mr, xr, a + ri, h);
}

MAP_FN(onnx_map_gather_elements)
{
	(void)nin, (void)nout;
	Val *x = in[0], *idx = in[1];
	const char *h = onnx_out_hint(im, 0);
	if (!index_kind_ok(im, idx) || !data_kind_ok(im, x))
		return false;
	if (x->rank == 0 || idx->rank != x->rank)
		return onnx_fail(im, "its indices need the data's rank (%u), not %u", x->rank,
		                 idx->rank), false;
	int64_t a = onnx_norm_axis(im, onnx_attr_int(n, "axis", 0), x->rank, "axis");
	if (a < 0)
		return false;
	if (x->rank + 1 > MAX_RANK)
		return onnx_fail(im, "rank %u leaves no room for the mask's axis", x->rank), false;
	/* the data's other axes as long as the indices' */
	for (uint32_t i = 0; i < x->rank && x; i++) {
		if (i == a || idx->dims[i] == x->dims[i])
			continue;
		if (idx->dims[i] > x->dims[i])
			return onnx_fail(im, "its indices are longer than the data on axis %u", i), false;
		x = onnx_op_slice_axis(im, x, i, 0, 1, idx->dims[i], h);
	}
	if (!x)
		return false;
	int64_t xd[MAX_RANK];
	insert_one(x->rank, x->dims, (uint32_t)a, xd);
	Val *xr = onnx_op_reshape(im, x, x->rank + 1, xd, h);
	Val *m = xr ? onehot(im, idx, x->dims[a], (uint32_t)a + 1, true, h) : NULL;
	return (out[0] = pick(im, m, xr, a + 1, h)) != NULL;
}

/* Hardmax: 1 where argmax along axis (the first of equals), else 0; before
 * opset 13 over the axes from axis on, flattened, as Softmax. */
MAP_FN(onnx_map_hardmax)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	if (!elem_is_float(x->kind) || x->rank == 0)
		return onnx_fail(im, "needs a floating-point input of rank 1 or more"), false;
	int64_t axis = onnx_norm_axis(im, onnx_attr_int(n, "axis", im->opset >= 13 ? -1 : 1),
	                              x->rank, "axis");
	if (axis < 0)
		return false;
	Val *f = x;
	if (im->opset < 13) {
		int64_t d2[2] = {onnx_shape_numel((uint32_t)axis, x->dims),
		                 onnx_shape_numel(x->rank - (uint32_t)axis, x->dims + axis)};
		f = onnx_op_reshape(im, x, 2, d2, "flat");
		axis = 1;
	}
	if (!f)
		return false;
	if (f->dims[axis] == 0)
		return out[0] = x, true;
	Val *am = onnx_emit1(im, h, ET_I32, 0, NULL, O_ARGMAX, f,
	                     ATTRS(im, {"axis", onnx_ints(im, &axis, 1)}, {"keepdims", gb_bool(true)},
	                           {"select_last_index", gb_bool(false)}));
	Val *io = am ? iota(im, ET_I32, f->rank, (uint32_t)axis, f->dims[axis]) : NULL;
	Val *eq = io ? onnx_op_binary(im, BIN_EQ, am, io, h) : NULL;
	Val *y = onnx_op_cast(im, eq, x->kind, h);
	return (out[0] = y ? onnx_op_reshape(im, y, x->rank, x->dims, h) : NULL) != NULL;
}

/* ------------------------------------------------------------ losses */

static Val *
reduce(Imp *im, OpId op, Val *x, const int64_t *axes, size_t na, bool keep, const char *h)
{
	if (!x)
		return NULL;
	return onnx_emit1(im, h, x->kind, 0, NULL, op, x,
	                  ATTRS(im, {"axis", onnx_ints(im, axes, na)}, {"keepdims", gb_bool(keep)}));
}

/* log_softmax along axis 1: x - max - log(sum(exp(x - max))). */
static Val *
log_softmax1(Imp *im, Val *x, const char *h)
{
	int64_t one = 1;
	Val *mx = reduce(im, O_MAX, x, &one, 1, true, h);
	Val *c = mx ? onnx_op_binary(im, BIN_SUB, x, mx, h) : NULL;
	Val *e = onnx_op_unary(im, UN_EXP, c, h);
	Val *s = reduce(im, O_SUM, e, &one, 1, true, h);
	Val *l = onnx_op_unary(im, UN_LOG, s, h);
	return l ? onnx_op_binary(im, BIN_SUB, c, l, h) : NULL;
}

/* NegativeLogLikelihoodLoss of the log-probabilities lp [N, C, d...] and
 * the targets t [N, d...]: -lp[n, t, d...] w[t], 0 where t is
 * ignore_index; the mean divides the sum by the weights taken. */
static Val *
nll(Imp *im, const Onnx__NodeProto *n, Val *lp, Val *t, Val *w, const char *h)
{
	if (!index_kind_ok(im, t))
		return NULL;
	if (lp->rank < 2 || t->rank != lp->rank - 1)
		return onnx_fail(im, "needs an input [N, C, d...] and targets [N, d...]");
	for (uint32_t i = 0; i < t->rank; i++)
		if (t->dims[i] != lp->dims[i ? i + 1 : 0])
			return onnx_fail(im, "its targets' shape does not match the input's");
	int64_t C = lp->dims[1];
	if (w && (w->rank != 1 || w->dims[0] != C || w->kind != lp->kind))
		return onnx_fail(im, "its weights must be [C] of the input's element type");
	char red[16];
	onnx_attr_str(n, "reduction", "mean", red, sizeof red);
	if (strcmp(red, "mean") && strcmp(red, "sum") && strcmp(red, "none"))
		return onnx_fail(im, "reduction '%s' is not none, sum or mean", red);
	/* an ignored target becomes -1, which matches no class */
	const Onnx__AttributeProto *ii = onnx_attr(n, "ignore_index");
	if (ii) {
		Val *is = onnx_op_binary(im, BIN_EQ, t, onnx_scalar(im, t->kind, (double)ii->i), h);
		t = is ? onnx_op_where(im, is, onnx_scalar(im, t->kind, -1), t, h) : NULL;
		if (!t)
			return NULL;
	}
	Val *m = onehot(im, t, C, 1, false, h);
	Val *wm = onnx_op_cast(im, m, lp->kind, h);
	if (wm && w) {
		int64_t wd[MAX_RANK];
		for (uint32_t i = 0; i < lp->rank; i++)
			wd[i] = i == 1 ? C : 1;
		Val *wr = onnx_op_reshape(im, w, lp->rank, wd, h);
		wm = wr ? onnx_op_binary(im, BIN_MUL, wm, wr, h) : NULL;
	}
	Val *prod = wm ? onnx_op_binary(im, BIN_MUL, lp, wm, h) : NULL;
	int64_t one = 1, all[MAX_RANK];
	Val *loss = prod ? onnx_op_unary(im, UN_NEG, reduce(im, O_SUM, prod, &one, 1, false, h), h)
	          : NULL;
	if (!loss || !strcmp(red, "none"))
		return loss;
	for (uint32_t i = 0; i < lp->rank; i++)
		all[i] = i;
	Val *sum = reduce(im, O_SUM, loss, all, loss->rank, false, h);
	if (!sum || !strcmp(red, "sum"))
		return sum;
	Val *den = reduce(im, O_SUM, wm, all, lp->rank, false, h);
	return den ? onnx_op_binary(im, BIN_DIV, sum, den, h) : NULL;
}

MAP_FN(onnx_map_nll_loss)
{
	(void)nout;
	Val *x = in[0];
	if (!elem_is_float(x->kind))
		return onnx_fail(im, "needs a floating-point input, not %s", elem_name(x->kind)), false;
	Val *w = nin > 2 ? in[2] : NULL;
	return (out[0] = nll(im, n, x, in[1], w, onnx_out_hint(im, 0))) != NULL;
}

MAP_FN(onnx_map_sce_loss)
{
	Val *x = in[0];
	if (!elem_is_float(x->kind) || x->rank < 2)
		return onnx_fail(im, "needs a floating-point input [N, C, d...]"), false;
	Val *lp = log_softmax1(im, x, nout > 1 ? onnx_out_hint(im, 1) : "log_prob");
	if (!lp)
		return false;
	if (nout > 1)
		out[1] = lp;
	Val *w = nin > 2 ? in[2] : NULL;
	return (out[0] = nll(im, n, lp, in[1], w, onnx_out_hint(im, 0))) != NULL;
}

/* ------------------------------------------------------------ one-hot, scatter */

/* OneHot: values[1] where the index (negative ones from the end) is the
 * position along the new axis, values[0] elsewhere; depth known at import. */
MAP_FN(onnx_map_onehot)
{
	(void)nout;
	Val *idx = in[0], *dep = nin > 1 ? in[1] : NULL, *vals = nin > 2 ? in[2] : NULL;
	const char *h = onnx_out_hint(im, 0);
	if (!dep || !vals)
		return onnx_fail(im, "needs its indices, depth and values"), false;
	if (!dep->k || dep->k->numel != 1)
		return onnx_fail(im, "its depth must be one value known at import"), false;
	double dv = tensor_get(dep->k, 0);
	if (!(dv >= 1 && dv <= (double)((int64_t)1 << 40)))
		return onnx_fail(im, "depth %g is out of range", dv), false;
	if (vals->rank != 1 || vals->dims[0] != 2)
		return onnx_fail(im, "its values must be [off, on]"), false;
	if (idx->kind == ET_BOOL)
		return onnx_fail(im, "its indices must be numbers"), false;
	if (elem_is_float(idx->kind) && !(idx = onnx_op_cast(im, idx, ET_I64, h)))
		return false;
	int64_t axis = onnx_attr_int(n, "axis", -1);
	if ((axis = onnx_norm_axis(im, axis, idx->rank + 1, "axis")) < 0)
		return false;
	Val *m = onehot(im, idx, (int64_t)dv, (uint32_t)axis, true, h);
	Val *off = m ? onnx_op_slice_axis(im, vals, 0, 0, 1, 1, "off") : NULL;
	Val *on = off ? onnx_op_slice_axis(im, vals, 0, 1, 1, 1, "on") : NULL;
	off = on ? onnx_op_reshape(im, off, 0, NULL, "off") : NULL;
	on = off ? onnx_op_reshape(im, on, 0, NULL, "on") : NULL;
	return (out[0] = on ? onnx_op_where(im, m, on, off, h) : NULL) != NULL;
}

/* ScatterElements (and opset 9's Scatter): along axis, the updates at
 * their indices' positions: the mask (indices [.., U, ..] against 0..K-1
 * in a new axis after it) picks each update, summed (or multiplied) over
 * U; positions no index hits keep the data.  Reduction none, add, mul
 * (max and min are refused). */
MAP_FN(onnx_map_scatter_elements)
{
	(void)nin, (void)nout;
	Val *x = in[0], *idx = in[1], *u = in[2];
	const char *h = onnx_out_hint(im, 0);
	if (!index_kind_ok(im, idx) || !data_kind_ok(im, x))
		return false;
	if (idx->rank != x->rank || u->rank != x->rank || u->kind != x->kind ||
	    memcmp(idx->dims, u->dims, idx->rank * sizeof *idx->dims) || x->rank == 0)
		return onnx_fail(im, "its indices and updates need one shape, of the data's rank"), false;
	int64_t a = onnx_norm_axis(im, onnx_attr_int(n, "axis", 0), x->rank, "axis");
	if (a < 0)
		return false;
	char red[8];
	onnx_attr_str(n, "reduction", "none", red, sizeof red);
	bool add = !strcmp(red, "add"), mul = !strcmp(red, "mul");
	if (!add && !mul && strcmp(red, "none"))
		return onnx_fail(im, "reduction '%s' is not supported (none, add, mul are)", red), false;
	int64_t pads[2 * MAX_RANK] = {0};
	bool padded = false;
	for (uint32_t i = 0; i < x->rank; i++) {
		if (i == a)
			continue;
		if (idx->dims[i] > x->dims[i])
			return onnx_fail(im, "its indices are longer than the data on axis %u", i), false;
		pads[2 * i + 1] = x->dims[i] - idx->dims[i];
		padded = padded || pads[2 * i + 1];
	}
	if (idx->rank + 1 > MAX_RANK)
		return onnx_fail(im, "rank %u leaves no room for the mask's axis", idx->rank), false;
	int64_t ud[MAX_RANK];
	insert_one(u->rank, u->dims, (uint32_t)a + 1, ud);
	Val *m = onehot(im, idx, x->dims[a], (uint32_t)a + 1, true, h);
	Val *ue = m ? onnx_op_reshape(im, u, u->rank + 1, ud, h) : NULL;
	Val *fill = onnx_scalar(im, x->kind, mul ? 1 : 0);
	Val *s = ue ? onnx_op_where(im, m, ue, fill, h) : NULL;
	Val *v = NULL;
	if (s && mul) {
		bool r[MAX_RANK] = {false};
		r[a] = true;
		v = onnx_reduce_prod(im, s, r, false, h);
	} else if (s) {
		v = onnx_emit1(im, h, x->kind, 0, NULL, O_SUM, s,
		               ATTRS(im, {"axis", onnx_ints(im, &a, 1)}, {"keepdims", gb_bool(false)}));
	}
	/* where some index hits: any of the mask over U */
	Val *mf = v ? onnx_op_cast(im, m, ET_I32, h) : NULL;
	Val *cnt = mf ? onnx_emit1(im, h, ET_I32, 0, NULL, O_MAX, mf,
	                           ATTRS(im, {"axis", onnx_ints(im, &a, 1)},
	                                 {"keepdims", gb_bool(false)})) : NULL;
	if (cnt && padded) {
		Attr w = onnx_ints(im, pads, 2 * (size_t)x->rank);
		v = onnx_emit1(im, h, x->kind, 0, NULL, O_PAD, v,
		               ATTRS(im, {"pad_value", onnx_num(mul ? 1 : 0)}, {"pad_width", w}));
		cnt = v ? onnx_emit1(im, h, ET_I32, 0, NULL, O_PAD, cnt,
		                     ATTRS(im, {"pad_value", onnx_num(0)}, {"pad_width", w})) : NULL;
	}
	Val *hit = cnt ? onnx_op_binary(im, BIN_GT, cnt, onnx_scalar(im, ET_I32, 0), h) : NULL;
	if (!hit)
		return false;
	if (add || mul)
		return (out[0] = onnx_op_binary(im, add ? BIN_ADD : BIN_MUL, x, v, h)) != NULL;
	return (out[0] = onnx_op_where(im, hit, v, x, h)) != NULL;
}
