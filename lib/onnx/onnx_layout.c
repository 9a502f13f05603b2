/* onnx_layout.c: ONNX's operators over positions that the IR has no
 * operator of, imported as compositions of its operators: Trilu and
 * CumSum (a mask of positions known at import, compared or applied with
 * where and summed), EyeLike (a constant), DepthToSpace and SpaceToDepth
 * (reshape, transpose, reshape), ReduceProd (halving products of slices).
 */
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

/* An optional scalar integer input (Trilu's k, CumSum's axis): NULL when
 * absent; refused when not a scalar integer. */
static bool
scalar_int_input(Imp *im, Val **in, size_t nin, size_t i, const char *what, Val **v)
{
	*v = nin > i ? in[i] : NULL;
	if (*v && ((*v)->kind == ET_BOOL || elem_is_float((*v)->kind) ||
	           onnx_shape_numel((*v)->rank, (*v)->dims) != 1))
		return onnx_fail(im, "its %s must be one integer", what), false;
	return true;
}

/* Trilu: x where col - row >= k (upper) or <= k (lower), else 0, over the
 * last two axes; k may be computed. */
MAP_FN(onnx_map_trilu)
{
	(void)nout;
	Val *x = in[0], *k;
	const char *h = onnx_out_hint(im, 0);
	if (x->rank < 2 || x->kind == ET_BOOL)
		return onnx_fail(im, "needs a number tensor of rank 2 or more"), false;
	if (!scalar_int_input(im, in, nin, 1, "k", &k))
		return false;
	if (!k)
		k = onnx_scalar(im, ET_I64, 0);
	else if (k->rank)
		k = onnx_op_reshape(im, k, 0, NULL, "k");
	if (!k || !(k = onnx_op_cast(im, k, ET_I64, "k")))
		return false;
	int64_t d[2] = {x->dims[x->rank - 2], x->dims[x->rank - 1]};
	Tensor *t = onnx_fold_new(ET_I64, 2, d);
	if (!t)
		return onnx_fail(im, "too large to compute at import"), false;
	for (int64_t i = 0; i < d[0]; i++)
		for (int64_t j = 0; j < d[1]; j++)
			tensor_set_int(t, i * d[1] + j, j - i);
	bool upper = onnx_attr_int(n, "upper", 1) != 0;
	Val *keep = onnx_op_binary(im, upper ? BIN_GE : BIN_LE, onnx_val_known(im, "diag", t), k, h);
	Val *y = keep ? onnx_op_where(im, keep, x, onnx_scalar(im, x->kind, 0), h) : NULL;
	return (out[0] = y) != NULL;
}

/* The cumulative sum of x along axis a: sum over j of where(j <= i, x[j],
 * 0) (j < i exclusive; j >= i, j > i reversed), the mask known at import. */
static Val *
cumsum_axis(Imp *im, Val *x, uint32_t a, bool excl, bool rev, const char *h)
{
	int64_t K = x->dims[a], xd[MAX_RANK], md[MAX_RANK];
	uint32_t r = x->rank + 1;
	if (r > MAX_RANK)
		return onnx_fail(im, "rank %u leaves no room for the sum's axis", x->rank);
	for (uint32_t i = 0, j = 0; i < r; i++) {
		xd[i] = i == a + 1 ? 1 : x->dims[j++];
		md[i] = i == a || i == a + 1 ? K : 1;
	}
	Tensor *m = onnx_fold_new(ET_BOOL, r, md);
	if (!m)
		return onnx_fail(im, "too large to compute at import");
	for (int64_t j = 0; j < K; j++)
		for (int64_t i = 0; i < K; i++) {
			bool take = rev ? (excl ? j > i : j >= i) : (excl ? j < i : j <= i);
			tensor_set_int(m, j * K + i, take);
		}
	Val *xe = onnx_op_reshape(im, x, r, xd, h);
	Val *s = xe ? onnx_op_where(im, onnx_val_known(im, "tri", m), xe,
	                            onnx_scalar(im, x->kind, 0), h) : NULL;
	int64_t ax = a;
	return s ? onnx_emit1(im, h, x->kind, x->rank, x->dims, O_SUM, s,
	                      ATTRS(im, {"axis", onnx_ints(im, &ax, 1)}, {"keepdims", gb_bool(false)}))
	         : NULL;
}

/* CumSum: along its axis; a computed axis selects among the sums along
 * every axis. */
MAP_FN(onnx_map_cumsum)
{
	(void)nout;
	Val *x = in[0], *ax;
	const char *h = onnx_out_hint(im, 0);
	if (x->rank == 0 || x->kind == ET_BOOL)
		return onnx_fail(im, "needs a number tensor of rank 1 or more"), false;
	if (!scalar_int_input(im, in, nin, 1, "axis", &ax))
		return false;
	if (!ax)
		return onnx_fail(im, "needs its axis"), false;
	bool excl = onnx_attr_int(n, "exclusive", 0) != 0, rev = onnx_attr_int(n, "reverse", 0) != 0;
	if (ax->k) {
		int64_t a = onnx_norm_axis(im, tensor_get_int(ax->k, 0), x->rank, "axis");
		return a >= 0 && (out[0] = cumsum_axis(im, x, (uint32_t)a, excl, rev, h)) != NULL;
	}
	Val *a64 = onnx_op_cast(im, ax->rank ? onnx_op_reshape(im, ax, 0, NULL, "axis") : ax, ET_I64,
	                        "axis");
	Val *y = NULL;
	for (uint32_t a = x->rank; a-- > 0 && a64;) {
		Val *s = cumsum_axis(im, x, a, excl, rev, h);
		if (!s)
			return false;
		if (!y) {
			y = s;      /* the last axis: where no other matched */
			continue;
		}
		Val *is = onnx_op_binary(im, BIN_EQ, a64, onnx_scalar(im, ET_I64, a), h);
		Val *isn = onnx_op_binary(im, BIN_EQ, a64, onnx_scalar(im, ET_I64, (double)a - x->rank), h);
		Val *c = is && isn ? onnx_op_binary(im, BIN_OR, is, isn, h) : NULL;
		if (!c || !(y = onnx_op_where(im, c, s, y, h)))
			return false;
	}
	return (out[0] = y) != NULL;
}

/* EyeLike: ones where column - row is k, of x's shape (rank 2), known at
 * import. */
MAP_FN(onnx_map_eyelike)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	if (x->rank != 2)
		return onnx_fail(im, "needs a tensor of rank 2, not %u", x->rank), false;
	ElemKind k = x->kind;
	const Onnx__AttributeProto *dt = onnx_attr(n, "dtype");
	if (dt && (dt->i < 0 || dt->i > INT32_MAX || !onnx_elem((int32_t)dt->i, &k)))
		return onnx_fail(im, "dtype %lld is not an element type the IR has", (long long)dt->i),
		       false;
	int64_t kk = onnx_attr_int(n, "k", 0);
	Tensor *t = onnx_fold_new(k, 2, x->dims);
	if (!t)
		return onnx_fail(im, "too large to compute at import"), false;
	for (int64_t i = 0; i < x->dims[0]; i++) {
		int64_t j = i + kk;
		if (j >= 0 && j < x->dims[1])
			tensor_set_int(t, i * x->dims[1] + j, 1);
	}
	return (out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t)) != NULL;
}

/* DepthToSpace (DCR or CRD) and SpaceToDepth with blocksize b on NCHW:
 * reshape to 6 axes, transpose, reshape. */
MAP_FN(onnx_map_depth_space)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	bool d2s = strcmp(n->op_type, "DepthToSpace") == 0;
	int64_t b = onnx_attr_int(n, "blocksize", 0);
	if (x->rank != 4 || b < 1 || b > ((int64_t)1 << 20))
		return onnx_fail(im, "needs an input of rank 4 and a blocksize of 1 or more"), false;
	int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
	char mode[8];
	onnx_attr_str(n, "mode", "DCR", mode, sizeof mode);
	bool crd = !strcmp(mode, "CRD");
	if (d2s && !crd && strcmp(mode, "DCR"))
		return onnx_fail(im, "mode '%s' is not DCR or CRD", mode), false;
	int64_t six[6], perm[6], res[4];
	if (d2s) {
		if (C % (b * b))
			return onnx_fail(im, "%lld channels do not divide into blocks of %lld",
			                 (long long)C, (long long)(b * b)), false;
		int64_t c = C / (b * b);
		int64_t s_dcr[6] = {N, b, b, c, H, W}, p_dcr[6] = {0, 3, 4, 1, 5, 2};
		int64_t s_crd[6] = {N, c, b, b, H, W}, p_crd[6] = {0, 1, 4, 2, 5, 3};
		memcpy(six, crd ? s_crd : s_dcr, sizeof six);
		memcpy(perm, crd ? p_crd : p_dcr, sizeof perm);
		res[0] = N, res[1] = c, res[2] = H * b, res[3] = W * b;
	} else {
		if (H % b || W % b)
			return onnx_fail(im, "a height and width of %lld and %lld do not divide into "
			                 "blocks of %lld", (long long)H, (long long)W, (long long)b), false;
		int64_t s[6] = {N, C, H / b, b, W / b, b}, p[6] = {0, 3, 5, 1, 2, 4};
		memcpy(six, s, sizeof six);
		memcpy(perm, p, sizeof perm);
		res[0] = N, res[1] = C * b * b, res[2] = H / b, res[3] = W / b;
	}
	Val *r = onnx_op_reshape(im, x, 6, six, h);
	Val *t = r ? onnx_op_transpose(im, r, perm, h) : NULL;
	return (out[0] = t ? onnx_op_reshape(im, t, 4, res, h) : NULL) != NULL;
}

/* ReduceProd over the axes red[] of x: those axes moved last and
 * flattened, padded with ones to a power of two, then halves multiplied
 * until one is left (exact, integers too). */
Val *
onnx_reduce_prod(Imp *im, Val *x, const bool *red, bool keep, const char *h)
{
	int64_t perm[MAX_RANK], outd[MAX_RANK], kd[MAX_RANK], R = 1;
	uint32_t no = 0, nk = 0;
	for (uint32_t i = 0; i < x->rank; i++)
		if (!red[i])
			perm[no] = i, outd[no++] = x->dims[i];
	for (uint32_t i = 0, j = no; i < x->rank; i++)
		if (red[i]) {
			perm[j++] = i;
			R *= x->dims[i];
		}
	for (uint32_t i = 0; i < x->rank; i++)
		if (keep || !red[i])
			kd[nk++] = red[i] ? 1 : x->dims[i];
	if (R == 0 || onnx_shape_numel(no, outd) == 0) {
		Tensor *t = onnx_fold_new(x->kind, nk, kd);
		if (!t)
			return onnx_fail(im, "too large to compute at import");
		for (int64_t i = 0; i < t->numel; i++)
			tensor_set_int(t, i, 1);
		return onnx_val_known(im, h, t);
	}
	Val *t = onnx_op_transpose(im, x, perm, h);
	outd[no] = R;
	Val *f = t ? onnx_op_reshape(im, t, no + 1, outd, h) : NULL;
	int64_t p2 = 1;
	while (p2 < R)
		p2 *= 2;
	if (f && p2 > R) {
		int64_t w[2 * (MAX_RANK + 1)] = {0};
		w[2 * no + 1] = p2 - R;
		f = onnx_emit1(im, h, x->kind, 0, NULL, O_PAD, f,
		               ATTRS(im, {"pad_value", onnx_num(1)},
		                     {"pad_width", onnx_ints(im, w, 2 * ((size_t)no + 1))}));
	}
	for (int64_t len = p2; f && len > 1; len /= 2) {
		Val *lo = onnx_op_slice_axis(im, f, no, 0, 1, len / 2, h);
		Val *hi = lo ? onnx_op_slice_axis(im, f, no, len / 2, 1, len / 2, h) : NULL;
		f = hi ? onnx_op_binary(im, BIN_MUL, lo, hi, h) : NULL;
	}
	return f ? onnx_op_reshape(im, f, nk, kd, h) : NULL;
}

/* Tile with repeats known at import: x with a new axis of 1 before each,
 * broadcast against zeros (falses) of the repeats, reshaped. */
MAP_FN(onnx_map_tile)
{
	(void)n, (void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	int64_t rep[MAX_RANK], xd[MAX_RANK], zd[MAX_RANK], od[MAX_RANK];
	size_t nr;
	if (nin < 2 || !in[1])
		return onnx_fail(im, "needs its repeats"), false;
	if (!onnx_known_ints(im, in[1], "its repeats", rep, MAX_RANK, &nr))
		return false;
	if (nr != x->rank || 2 * x->rank > MAX_RANK)
		return onnx_fail(im, "needs one repeat per axis (rank %u, at most %d)", x->rank,
		                 MAX_RANK / 2), false;
	for (uint32_t i = 0; i < x->rank; i++) {
		if (rep[i] < 0 || rep[i] > ((int64_t)1 << 40) ||
		    (x->dims[i] && rep[i] > ((int64_t)1 << 40) / x->dims[i]))
			return onnx_fail(im, "repeat %lld is out of range", (long long)rep[i]), false;
		xd[2 * i] = 1, xd[2 * i + 1] = x->dims[i];
		zd[2 * i] = rep[i], zd[2 * i + 1] = 1;
		od[i] = rep[i] * x->dims[i];
	}
	Tensor *z = onnx_fold_new(x->kind, 2 * x->rank, zd);
	if (!z)
		return onnx_fail(im, "too large to compute at import"), false;
	Val *xr = onnx_op_reshape(im, x, 2 * x->rank, xd, h);
	Val *b = xr ? onnx_op_binary(im, x->kind == ET_BOOL ? BIN_OR : BIN_ADD, xr,
	                             onnx_val_known(im, "zeros", z), h) : NULL;
	return (out[0] = b ? onnx_op_reshape(im, b, x->rank, od, h) : NULL) != NULL;
}
