/* ref_nn.c: reference kernels of the operators with windows or
 * contractions: nn.conv2d, nn.dense, nn.batch_matmul, nn.max_pool2d,
 * nn.avg_pool2d and nn.global_avg_pool2d.
 *
 * Window operators loop over logical indices (N, C, H, W; O, I, KH, KW)
 * and map each to an element offset through its layout (layout_offset), so
 * every pairing of the NCHW/NCHW4c and OIHW/OIHW4o layouts is one loop.
 * The outputs have the shapes the shape rules give (ref_eval checked
 * them), so the kernels take their sizes from the tensors.
 */
#include <math.h>

#include "ref_impl.h"

/* A window's taps along one axis sit at o*s + j*d (before the padding
 * shift) for o < n_out, j < k: the last must be an int64 (with
 * ceil_mode, the last window may start past the padded input, so a huge
 * stride can overflow where the shape rule's sizes did not). */
static bool
taps_fit(RefCx *c, const char *axis, int64_t n_out, int64_t k, int64_t d, int64_t s)
{
	int64_t last, eff = (k - 1) * d + 1;    /* the shape rule checked it */
	if (n_out > 0 && (__builtin_mul_overflow(n_out - 1, s, &last) ||
	                  __builtin_add_overflow(last, eff, &last)))
		return ref_fail(c, "the %s stride is too large", axis);
	return true;
}

/* The offset of idx (4 indices of letters) in t laid out as l: through
 * strides (layout_strides's) when l splits no axis, else layout_offset.
 * The loops over a window ask it for every tap. */
typedef struct {
	const Layout *l;
	const int64_t *dims;
	const char *letters;
	bool plain;
	int64_t strides[4];
} Offsets;

static Offsets
offsets_of(const Layout *l, const Tensor *t, const char *letters)
{
	Offsets o = {l, t->dims, letters, false, {0}};
	o.plain = layout_strides(l, t->dims, letters, o.strides);
	return o;
}

static inline int64_t
offset_at(const Offsets *o, const int64_t *idx)
{
	if (o->plain)
		return idx[0] * o->strides[0] + idx[1] * o->strides[1] + idx[2] * o->strides[2] +
		       idx[3] * o->strides[3];
	return layout_offset(o->l, o->dims, o->letters, idx);
}

/* --------------------------------------------------------------- conv2d */

bool
ref_conv2d(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	ConvAttrs a;
	if (!conv2d_attrs(c, &a))
		return false;
	const int64_t *st = a.st, *dil = a.dil, *pad = a.pad;
	int64_t groups = a.groups;
	const Layout *dl = a.dl, *kl = a.kl, *ol = a.ol;
	/* out_dtype is the output tensor's element type. */
	const Tensor *x = args[0], *w = args[1];
	Tensor *out = outs[0];
	int64_t N = layout_dim(dl, x->dims, 'N');
	int64_t H = layout_dim(dl, x->dims, 'H'), W = layout_dim(dl, x->dims, 'W');
	int64_t O = layout_dim(kl, w->dims, 'O'), I = layout_dim(kl, w->dims, 'I');
	int64_t KH = layout_dim(kl, w->dims, 'H'), KW = layout_dim(kl, w->dims, 'W');
	int64_t OH = layout_dim(ol, out->dims, 'H'), OW = layout_dim(ol, out->dims, 'W');
	if (out->numel == 0)
		return true;
	int64_t opg = O / groups;       /* output channels per group */
	Offsets xo = offsets_of(dl, x, "NCHW"), wo = offsets_of(kl, w, "OIHW");
	Offsets oo = offsets_of(ol, out, "NCHW");
	for (int64_t n = 0; n < N; n++)
		for (int64_t o = 0; o < O; o++)
			for (int64_t y = 0; y < OH; y++)
				for (int64_t xx = 0; xx < OW; xx++) {
					Acc acc = acc_zero(x->kind);
					int64_t g = o / opg;
					for (int64_t i = 0; i < I; i++)
						for (int64_t ky = 0; ky < KH; ky++) {
							int64_t iy = y * st[0] - pad[0] + ky * dil[0];
							if (iy < 0 || iy >= H)
								continue;       /* zero padding */
							for (int64_t kx = 0; kx < KW; kx++) {
								int64_t ix = xx * st[1] - pad[1] + kx * dil[1];
								if (ix < 0 || ix >= W)
									continue;
								int64_t xi[4] = {n, g * I + i, iy, ix};
								int64_t wi[4] = {o, i, ky, kx};
								acc_mac(&acc, x, offset_at(&xo, xi), w, offset_at(&wo, wi));
							}
						}
					int64_t oi[4] = {n, o, y, xx};
					acc_store(&acc, out, offset_at(&oo, oi));
				}
	return true;
}

/* ---------------------------------------------------------------- dense */

bool
ref_dense(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	MatmulAttrs a;
	if (!matmul_attrs(c, &a))
		return false;
	int64_t P = a.pack;
	const Tensor *x = args[0], *w = args[1];
	Tensor *out = outs[0];
	/* weight_layout "NC<P>n": the weight is [units/P, K, P], unit u at
	 * [u / P, k, u % P] */
	int64_t U = out->dims[out->rank - 1], K = w->dims[1];
	int64_t rows = ref_prod(x->dims, 0, x->rank - 1);
	if (out->numel == 0)
		return true;
	for (int64_t r = 0; r < rows; r++)
		for (int64_t u = 0; u < U; u++) {
			Acc acc = acc_zero(x->kind);
			int64_t w0 = P ? (u / P) * K * P + u % P : u * K, ws1 = P ? P : 1;
			for (int64_t k = 0; k < K; k++)
				acc_mac(&acc, x, r * K + k, w, w0 + k * ws1);
			acc_store(&acc, out, r * U + u);
		}
	return true;
}

/* --------------------------------------------------------- batch_matmul */

bool
ref_batch_matmul(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	MatmulAttrs a;
	if (!matmul_attrs(c, &a))
		return false;
	bool ta = a.ta, tb = a.tb;
	const Tensor *x = args[0], *y = args[1];
	Tensor *out = outs[0];
	/* x: [B, M, K] or, transposed, [B, K, M]; y: [B, N, K] (transpose_b,
	 * the default) or [B, K, N]. */
	int64_t Bx = x->dims[0], M = x->dims[ta ? 2 : 1], K = x->dims[ta ? 1 : 2];
	int64_t By = y->dims[0], N = y->dims[tb ? 1 : 2], B = out->dims[0];
	if (out->numel == 0)
		return true;
	for (int64_t b = 0; b < B; b++) {
		int64_t bx = Bx == 1 ? 0 : b, by = By == 1 ? 0 : b;
		for (int64_t m = 0; m < M; m++)
			for (int64_t n = 0; n < N; n++) {
				Acc acc = acc_zero(x->kind);
				for (int64_t k = 0; k < K; k++) {
					int64_t xi = ta ? (bx * K + k) * M + m : (bx * M + m) * K + k;
					int64_t yi = tb ? (by * N + n) * K + k : (by * K + k) * N + n;
					acc_mac(&acc, x, xi, y, yi);
				}
				acc_store(&acc, out, (b * M + m) * N + n);
			}
	}
	return true;
}

/* -------------------------------------------------------------- pooling */

/* How many of the k taps start + j*d (j < k) fall inside [0, n), and how
 * many inside the padded range [-p0, n + p1). */
static void
taps_inside(int64_t start, int64_t k, int64_t d, int64_t n, int64_t p0, int64_t p1,
            int64_t *in_data, int64_t *in_padded)
{
	*in_data = *in_padded = 0;
	for (int64_t j = 0; j < k; j++) {
		int64_t i = start + j * d;
		*in_data += i >= 0 && i < n;
		*in_padded += i >= -p0 && i < n + p1;
	}
}

bool
ref_pool2d(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	PoolAttrs a;
	if (!pool2d_attrs(c, &a))
		return false;
	const int64_t *ps = a.ps, *st = a.st, *dil = a.dil, *pad = a.pad;
	bool cip = a.count_include_pad;
	const Layout *l = a.l;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	int64_t N = layout_dim(l, x->dims, 'N'), C = layout_dim(l, x->dims, 'C');
	int64_t H = layout_dim(l, x->dims, 'H'), W = layout_dim(l, x->dims, 'W');
	int64_t OH = layout_dim(l, out->dims, 'H'), OW = layout_dim(l, out->dims, 'W');
	if (!taps_fit(c, "height", OH, ps[0], dil[0], st[0]) ||
	    !taps_fit(c, "width", OW, ps[1], dil[1], st[1]))
		return false;
	if (out->numel == 0)
		return true;
	bool isfloat = elem_is_float(x->kind), uns = !elem_is_signed(x->kind);
	int64_t imin;
	uint64_t imax_unused;
	elem_int_range(isfloat ? ET_I64 : x->kind, &imin, &imax_unused);
	Offsets xo = offsets_of(l, x, "NCHW");
	for (int64_t n = 0; n < N; n++)
		for (int64_t ch = 0; ch < C; ch++)
			for (int64_t y = 0; y < OH; y++)
				for (int64_t xx = 0; xx < OW; xx++) {
					int64_t h0 = y * st[0] - pad[0], w0 = xx * st[1] - pad[1];
					int64_t hd, hp, wd, wp;
					taps_inside(h0, ps[0], dil[0], H, pad[0], pad[2], &hd, &hp);
					taps_inside(w0, ps[1], dil[1], W, pad[1], pad[3], &wd, &wp);
					Acc acc = acc_zero(x->kind);
					double fmax = -INFINITY;
					int64_t imax = imin;
					for (int64_t ky = 0; ky < ps[0]; ky++) {
						int64_t iy = h0 + ky * dil[0];
						if (iy < 0 || iy >= H)
							continue;
						for (int64_t kx = 0; kx < ps[1]; kx++) {
							int64_t ix = w0 + kx * dil[1];
							if (ix < 0 || ix >= W)
								continue;
							int64_t xi[4] = {n, ch, iy, ix};
							int64_t at = offset_at(&xo, xi);
							if (c->id == O_AVG_POOL2D) {
								acc_add(&acc, x, at);
							} else if (isfloat) {
								double v = tensor_get(x, at);
								if (v > fmax || isnan(v))
									fmax = isnan(fmax) ? fmax : v;
							} else {
								int64_t v = tensor_get_int(x, at);
								if (uns ? ref_u(v) > ref_u(imax) : v > imax)
									imax = v;
							}
						}
					}
					int64_t oi[4] = {n, ch, y, xx};
					int64_t o = layout_offset(l, out->dims, "NCHW", oi);
					if (c->id == O_MAX_POOL2D && isfloat)
						tensor_set(out, o, fmax);
					else if (c->id == O_MAX_POOL2D)
						tensor_set_int(out, o, imax);
					else if ((cip ? hp * wp : hd * wd) == 0)
						tensor_set(out, o, 0.0);
					else
						acc_store_div(&acc, cip ? hp * wp : hd * wd, out, o);
				}
	return true;
}

bool
ref_global_avg_pool2d(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs,
                      uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	PoolAttrs a;
	if (!pool2d_attrs(c, &a))
		return false;
	const Layout *l = a.l;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	int64_t N = layout_dim(l, x->dims, 'N'), C = layout_dim(l, x->dims, 'C');
	int64_t H = layout_dim(l, x->dims, 'H'), W = layout_dim(l, x->dims, 'W');
	if (out->numel == 0)
		return true;
	if (H * W == 0 && !elem_is_float(x->kind))
		return ref_fail(c, "average of zero integer elements (division by zero)");
	for (int64_t n = 0; n < N; n++)
		for (int64_t ch = 0; ch < C; ch++) {
			Acc acc = acc_zero(x->kind);
			for (int64_t h = 0; h < H; h++)
				for (int64_t w = 0; w < W; w++) {
					int64_t xi[4] = {n, ch, h, w};
					acc_add(&acc, x, layout_offset(l, x->dims, "NCHW", xi));
				}
			int64_t oi[4] = {n, ch, 0, 0};
			int64_t o = layout_offset(l, out->dims, "NCHW", oi);
			if (H * W == 0)
				tensor_set(out, o, NAN);
			else
				acc_store_div(&acc, H * W, out, o);
		}
	return true;
}
