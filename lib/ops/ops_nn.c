/* ops_nn.c: shape rules of the neural-network operators with windows or
 * contractions: nn.conv2d, nn.dense, nn.batch_matmul and the 2-d pools.
 *
 * Layouts follow TVM: a rule reads its operands in their layouts, computes
 * on logical sizes (N, C, H, W and O, I, H, W), and lays the result out in
 * the output layout, so any pairing of the supported data and kernel
 * layouts works as TVM's type relation allows it.
 */
#include <string.h>

#include "ops_impl.h"


/* The output size of one spatial axis of a window of size k, dilation d,
 * stride s over n elements padded by p0 and p1; -1 after an error. */
static int64_t
window_out(OpCx *c, const char *axis, int64_t n, int64_t k, int64_t d, int64_t s,
           int64_t p0, int64_t p1, bool ceil_mode)
{
	int64_t eff, padded;
	if (!ck_mul(k - 1, d, &eff) || !ck_add(eff, 1, &eff) || !ck_add(n, p0, &padded) ||
	    !ck_add(padded, p1, &padded)) {
		op_error(c, "the %s window or padding is too large", axis);
		return -1;
	}
	if (padded < eff) {
		op_error(c, "the %swindow (%lld) is larger than the padded %s (%lld)",
		         d > 1 ? "dilated " : "", (long long)eff, axis, (long long)padded);
		return -1;
	}
	int64_t span = padded - eff;
	/* TVM's Pool2DRel: ceil_mode rounds the last partial window up
	 * (span + s - 1 could overflow). */
	return span / s + (ceil_mode && span % s != 0) + 1;
}

/* --------------------------------------------------------------- conv2d */

/* Channel counts against groups, channels and kernel_size. */
static bool
conv_check_channels(OpCx *c, const ConvAttrs *a, int64_t C, int64_t O, int64_t I,
                    int64_t KH, int64_t KW)
{
	if (C % a->groups != 0 || O % a->groups != 0) {
		op_error_at(c, oa_loc(c, "groups"), "'groups' of nn.conv2d (%lld) must divide the "
		            "input channels (%lld) and the output channels (%lld)",
		            (long long)a->groups, (long long)C, (long long)O);
		return false;
	}
	int64_t want;
	bool fits = ck_mul(I, a->groups, &want);
	if (!fits || want != C) {
		if (fits)
			op_error(c, "the input has %lld channels but the weight expects %lld (I*groups "
			         "= %lld*%lld)", (long long)C, (long long)want, (long long)I,
			         (long long)a->groups);
		else
			op_error(c, "the input has %lld channels but the weight expects %lld*%lld "
			         "(I*groups)", (long long)C, (long long)I, (long long)a->groups);
		return false;
	}
	if (a->channels && a->channels != O) {
		op_error_at(c, oa_loc(c, "channels"), "'channels' of nn.conv2d is %lld, but the "
		            "weight has %lld output channels", (long long)a->channels, (long long)O);
		return false;
	}
	if (a->ks[0] && (a->ks[0] != KH || a->ks[1] != KW)) {
		op_error_at(c, oa_loc(c, "kernel_size"), "'kernel_size' of nn.conv2d is [%lld, %lld], "
		            "but the weight's window is [%lld, %lld]", (long long)a->ks[0],
		            (long long)a->ks[1], (long long)KH, (long long)KW);
		return false;
	}
	return true;
}

bool
shape_conv2d(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	ConvAttrs a;
	if (!conv2d_attrs(c, &a))
		return false;
	const Shape *x = &args[0], *w = &args[1];
	if (!layout_check(c, a.dl, x, "data") || !layout_check(c, a.kl, w, "weight") ||
	    !check_same_dtype(c, x, w, "data", "weight") || !check_not_bool(c, x))
		return false;
	int64_t N = layout_dim(a.dl, x->dims, 'N'), C = layout_dim(a.dl, x->dims, 'C');
	int64_t H = layout_dim(a.dl, x->dims, 'H'), W = layout_dim(a.dl, x->dims, 'W');
	int64_t O = layout_dim(a.kl, w->dims, 'O'), I = layout_dim(a.kl, w->dims, 'I');
	int64_t KH = layout_dim(a.kl, w->dims, 'H'), KW = layout_dim(a.kl, w->dims, 'W');
	if (!conv_check_channels(c, &a, C, O, I, KH, KW))
		return false;
	int64_t OH = window_out(c, "height", H, KH, a.dil[0], a.st[0], a.pad[0], a.pad[2],
	                        false);
	int64_t OW = OH < 0 ? -1 : window_out(c, "width", W, KW, a.dil[1], a.st[1], a.pad[1],
	                                      a.pad[3], false);
	if (OW < 0)
		return false;
	int64_t size[4] = {N, O, OH, OW};
	if (layout_shape(a.ol, "NCHW", size, out->dims)) {
		op_error(c, "output layout %s needs the output channels (%lld) to be a multiple "
		         "of %u", a.ol->name, (long long)O, (unsigned)a.ol->factor);
		return false;
	}
	out->dt = a.has_out_dt ? a.out_dt : x->dt;
	out->rank = a.ol->rank;
	return true;
}

/* ---------------------------------------------------------------- dense */

bool
shape_dense(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	MatmulAttrs a;
	if (!matmul_attrs(c, &a))
		return false;
	int64_t units = a.units, P = a.pack;
	const Shape *x = &args[0], *w = &args[1];
	char xs[256], ws[256];
	/* weight_layout "NC<P>n": the weight is [units/P, K, P] */
	if (x->rank < 1 || w->rank != (P ? 3u : 2u)) {
		op_error(c, "needs data of rank >= 1 and a %s weight %s, not %s and %s", P ? "3-d" : "2-d",
		         P ? "[units/n, K, n] (weight_layout \"NC<n>n\")" : "[units, K]",
		         shape_text(x, xs, sizeof xs), shape_text(w, ws, sizeof ws));
		return false;
	}
	if (P && w->dims[2] != P) {
		op_error_at(c, oa_loc(c, "weight_layout"), "'weight_layout' of nn.dense is \"NC%lldn\", "
		            "but the weight %s does not end in %lld", (long long)P,
		            shape_text(w, ws, sizeof ws), (long long)P);
		return false;
	}
	int64_t U = w->dims[0];
	if (P && __builtin_mul_overflow(w->dims[0], P, &U)) {
		op_error(c, "the weight %s has too many units", shape_text(w, ws, sizeof ws));
		return false;
	}
	if (!check_same_dtype(c, x, w, "data", "weight") || !check_not_bool(c, x))
		return false;
	if (x->dims[x->rank - 1] != w->dims[1]) {
		op_error(c, "data %s has %lld features (last axis) but the weight %s expects %lld",
		         shape_text(x, xs, sizeof xs), (long long)x->dims[x->rank - 1],
		         shape_text(w, ws, sizeof ws), (long long)w->dims[1]);
		return false;
	}
	if (units && units != U) {
		op_error_at(c, oa_loc(c, "units"), "'units' of nn.dense is %lld, but the weight "
		            "has %lld %s", (long long)units, (long long)U, P ? "units" : "rows");
		return false;
	}
	*out = *x;
	out->dims[x->rank - 1] = U;
	if (a.has_out_dt)
		out->dt = a.out_dt;
	return true;
}

/* --------------------------------------------------------- batch_matmul */

bool
shape_batch_matmul(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	MatmulAttrs a;
	if (!matmul_attrs(c, &a))
		return false;
	bool ta = a.ta, tb = a.tb;
	const Shape *x = &args[0], *y = &args[1];
	char xs[256], ys[256];
	if (x->rank != 3 || y->rank != 3) {
		op_error(c, "needs two 3-d operands, not %s and %s", shape_text(x, xs, sizeof xs),
		         shape_text(y, ys, sizeof ys));
		return false;
	}
	if (!check_same_dtype(c, x, y, "x", "y") || !check_not_bool(c, x))
		return false;
	int64_t B = x->dims[0], M = x->dims[ta ? 2 : 1], K = x->dims[ta ? 1 : 2];
	int64_t N = y->dims[tb ? 1 : 2], K2 = y->dims[tb ? 2 : 1];
	if (K != K2) {
		op_error(c, "the reduction sizes differ: %lld in x %s and %lld in y %s "
		         "(transpose_a=%s, transpose_b=%s)", (long long)K, shape_text(x, xs, sizeof xs),
		         (long long)K2, shape_text(y, ys, sizeof ys), ta ? "true" : "false",
		         tb ? "true" : "false");
		return false;
	}
	if (B != y->dims[0] && B != 1 && y->dims[0] != 1) {
		op_error(c, "batch sizes %lld and %lld differ and neither is 1", (long long)B,
		         (long long)y->dims[0]);
		return false;
	}
	int64_t dims[3] = {B == 1 ? y->dims[0] : B, M, N};
	shape_set(out, a.has_out_dt ? a.out_dt : x->dt, 3, dims);
	return true;
}

/* --------------------------------------------------------------- pooling */

bool
shape_pool2d(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	PoolAttrs a;
	if (!pool2d_attrs(c, &a))
		return false;
	const int64_t *ps = a.ps, *st = a.st, *dl = a.dil, *pad = a.pad;
	bool ceil_mode = a.ceil_mode;
	const Layout *l = a.l;
	const Shape *x = &args[0];
	if (!layout_check(c, l, x, "data") || !check_not_bool(c, x))
		return false;
	int64_t N = layout_dim(l, x->dims, 'N'), C = layout_dim(l, x->dims, 'C');
	int64_t H = layout_dim(l, x->dims, 'H'), W = layout_dim(l, x->dims, 'W');
	int64_t OH = window_out(c, "height", H, ps[0], dl[0], st[0], pad[0], pad[2], ceil_mode);
	int64_t OW = OH < 0 ? -1 : window_out(c, "width", W, ps[1], dl[1], st[1], pad[1],
	                                      pad[3], ceil_mode);
	if (OW < 0)
		return false;
	int64_t size[4] = {N, C, OH, OW};
	layout_shape(l, "NCHW", size, out->dims);   /* C came from l: divisible */
	out->dt = x->dt;
	out->rank = l->rank;
	return true;
}

bool
shape_global_pool2d(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	PoolAttrs a;
	if (!pool2d_attrs(c, &a))
		return false;
	const Layout *l = a.l;
	const Shape *x = &args[0];
	if (!layout_check(c, l, x, "data") || !check_not_bool(c, x))
		return false;
	*out = *x;      /* layout_check: rank l->rank */
	for (uint32_t i = 0; i < l->rank; i++)
		if (l->axes[i] == 'H' || l->axes[i] == 'W')
			out->dims[i] = 1;
	return true;
}
