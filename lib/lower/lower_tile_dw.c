/* lower_tile_dw.c: grouped and depthwise conv2d tiles, on a cpu and on a
 * gpu (buffers or images).
 *
 * A depthwise convolution (groups == channels) does KH x KW
 * multiply-adds per output, each on an input element of its own
 * channel: nothing is shared across output channels, so neither the
 * channel vectors of lower_tile.c's conv2d tile nor the shared-memory
 * product of lower_tile_gpu.c apply, and such convs ran an element per
 * work item, every tap a bounds test and two loads (issue 23).  Here a
 * work item computes RX consecutive output columns of one output row,
 * and reads each input row of its window once into a private array (the
 * "window"): (RX - 1) * stride + (KW - 1) * dilation + 1 elements per
 * row instead of RX * KW, the padding selected to zero as the row is
 * read (a clamped load, so nothing is read out of bounds), after which
 * the RX x KW multiply-adds read registers only.  A row of the window
 * that lies in the padding above or below is skipped whole.
 *
 * NCHW (OIHW or HWIO weight), any groups > 1 whose output channels per
 * group are no multiple of 4 (those keep lower_tile.c's channel-vector
 * tile): one output channel per item, scalars; its group's input
 * channels one after the other.
 *
 * NCHW4c with an OIHW4o weight, one input channel per output channel
 * (groups == channels): the 4 lanes of a texel are 4 channels at one
 * pixel, so each tap is one multiply-add of texels, whatever the
 * stride: the window is an array of texels, the weight of a tap one
 * texel.  On a cpu, KB = 4 texels (16 channels) side by side in 16-lane
 * vectors where the channels allow, gathered a texel at a time (row
 * parts: lib/ocl/kernel.c keeps them in registers); on a gpu one texel,
 * which is also what an image reads and writes whole.
 *
 * The columns per item: on a cpu up to 8 (as lower_tile.c's conv2d
 * tile), on a gpu up to 4, dividing the output's width, so that a small
 * layer still has work items to spread.
 */
#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "lower_impl.h"
#include "ops/ops.h"
#include "target.h"

static const int64_t cols_cpu[] = {8, 7, 6, 5, 4, 3, 2, 1};
static const int64_t cols_gpu[] = {4, 3, 2, 1};
static const int64_t cols_pow2[] = {8, 4, 2, 1};

static PExpr *
as_type(PBuild *b, ElemKind k, PExpr *e)
{
	return pe_cast(b, (DType){k, e->dt.lanes}, e);
}

static PExpr *
clamp(PBuild *b, PExpr *e, int64_t hi)
{
	return pe_call2(b, I_MIN, pe_call2(b, I_MAX, e, pe_i32(b, 0)), pe_i32(b, hi - 1));
}

static PVar *
private_array(GroupCx *c, const char *prefix, ElemKind k, uint32_t n, const int64_t *dims)
{
	return pb_alloc(c->b, prefix, type_tensor(c->m, (DType){k, 1}, n, dims), c->local);
}

/* The window's shape along x: its first input column for output column
 * ox0, and the columns it spans. */
typedef struct {
	int64_t RX, span;
	bool xpad;                 /* some column may fall in the padding */
} Window;

static Window
window(const ConvAttrs *ca, int64_t W, int64_t KW, int64_t OW, int64_t RX)
{
	Window w = {RX, (RX - 1) * ca->st[1] + (KW - 1) * ca->dil[1] + 1, false};
	/* the last item's window ends past the input, or starts before it */
	int64_t last = (OW - RX) * ca->st[1] - ca->pad[1] + w.span - 1;
	w.xpad = ca->pad[1] > 0 || last >= W;
	return w;
}

/* Opens `if lo <= iy < hi {` where the window's row may lie in the
 * padding (closed with the caller's depth). */
static void
row_guard(PBuild *b, PExpr *iy, const ConvAttrs *ca, int64_t H, int64_t OH, int64_t KH)
{
	int64_t last = (OH - 1) * ca->st[0] - ca->pad[0] + (KH - 1) * ca->dil[0];
	if (ca->pad[0] > 0 || last >= H)
		pb_if(b, lower_in_range(b, iy, 0, H));
}

/* ------------------------------------------------------------ NCHW */

static int
tile_grouped_nchw(GroupCx *c, const ConvAttrs *ca)
{
	const Value *v = c->g->members[0];
	bool hwio = lower_is_layout(ca->kl, "HWIO");
	if (!lower_is_layout(ca->dl, "NCHW") || !lower_is_layout(ca->ol, "NCHW") ||
	    !(hwio || lower_is_layout(ca->kl, "OIHW")))
		return 0;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	int64_t N = xt->dims[0], H = xt->dims[2], W = xt->dims[3], groups = ca->groups;
	int64_t O = layout_dim(ca->kl, wt->dims, 'O'), I = layout_dim(ca->kl, wt->dims, 'I');
	int64_t KH = layout_dim(ca->kl, wt->dims, 'H'), KW = layout_dim(ca->kl, wt->dims, 'W');
	int64_t OH = ot->dims[2], OW = ot->dims[3], OG = O / groups;
	/* whole vectors of a group's output channels: lower_tile.c's tile */
	if (!lower_on_gpu(c) && OG % 4 == 0)
		return 0;
	if (N * O * OH * OW * I * KH * KW == 0 || H < 1 || W < 1 || type_numel(xt) > INT32_MAX ||
	    type_numel(ot) > INT32_MAX)
		return 0;
	/* Fused consumers (bias, sigmoid * x, clip) on a cpu take the row as
	 * one vector where they can: scalar, efficientnet_b0's swish after
	 * its depthwise convs cost more than the convs (NCHW, 1 POCL thread:
	 * 42.5 ms per inference against 29.4 with the swish unfused). */
	int64_t RX = target_largest_divisor(OW, lower_on_gpu(c) ? cols_gpu : cols_cpu);
	bool vec_out = false;
	if (!lower_on_gpu(c) && c->g->n > 1) {
		int64_t V = target_largest_divisor(OW, cols_pow2);
		if (V > 1 && lower_consumers_lanes_ok(c, (uint32_t)V))
			RX = V, vec_out = true;
	}
	Window win = window(ca, W, KW, OW, RX);
	ElemKind kk = (ElemKind)ot->dt.kind;
	PBuild *b = c->b;
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;

	int64_t grid[4] = {N, O, OH, OW / RX};
	PExpr *g[4];
	int close = pb_depth(b);
	lower_open_nest(c, grid, 4, g, false);
	PExpr *ox0 = pb_let(b, "ox", pe_mul(b, g[3], pe_i32(b, RX)));
	PExpr *x0 = pb_let(b, "x", pe_sub(b, pe_mul(b, ox0, pe_i32(b, ca->st[1])), pe_i32(b, ca->pad[1])));
	/* the first input channel of the output channel's group */
	PExpr *gbase = OG == 1 && I == 1 ? g[1]
	             : pb_let(b, "g", pe_mul(b, pe_div(b, g[1], pe_i32(b, OG)), pe_i32(b, I)));
	PVar *acc = private_array(c, "acc", kk, 1, &RX);
	PVar *row = private_array(c, "win", kk, 1, &win.span);
	int op = pb_depth(b);
	PExpr *q = lower_loop(b, "u", RX, FK_UNROLLED);
	pb_store(b, acc, &q, 1, pe_float(b, 0, kk));
	pb_close_to(b, op);

	int rop = pb_depth(b);
	PExpr *ic = lower_loop(b, "r", I, FK_SERIAL);
	PExpr *ky = lower_loop(b, "r", KH, FK_SERIAL);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, g[2], pe_i32(b, ca->st[0])), pe_i32(b, ca->pad[0])),
	                                  pe_mul(b, ky, pe_i32(b, ca->dil[0]))));
	row_guard(b, iy, ca, H, OH, KH);
	PExpr *chan = I == 1 ? gbase : pe_add(b, gbase, ic);
	op = pb_depth(b);
	PExpr *j = lower_loop(b, "u", win.span, FK_UNROLLED);
	PExpr *ix = pe_add(b, x0, j);
	PExpr *xi[4] = {g[0], chan, iy, win.xpad ? clamp(b, ix, W) : ix};
	PExpr *val = as_type(b, kk, lower_load_data(c, x, xi, 1));
	if (win.xpad)
		val = pe_select(b, lower_in_range(b, ix, 0, W), val, pe_like(b, val, 0));
	pb_store(b, row, &j, 1, val);
	pb_close_to(b, op);
	op = pb_depth(b);
	PExpr *kx = lower_loop(b, "u", KW, FK_UNROLLED);
	PExpr *wi[4] = {hwio ? ky : g[1], hwio ? kx : ic, hwio ? ic : ky, hwio ? g[1] : kx};
	PExpr *wv = pb_let(b, "w", as_type(b, kk, pe_load(b, w, wi, 1)));
	q = lower_loop(b, "u", RX, FK_UNROLLED);
	PExpr *at = pe_add(b, pe_mul(b, q, pe_i32(b, ca->st[1])), pe_mul(b, kx, pe_i32(b, ca->dil[1])));
	pb_store(b, acc, &q, 1, lower_mac(b, pe_load(b, acc, &q, 1), pe_load(b, row, &at, 1), wv));
	pb_close_to(b, op);
	pb_close_to(b, rop); /* the guard, ky, ic */

	bool ok;
	if (vec_out) {
		/* the row gathered into a vector for the consumers */
		PVar *res = private_array(c, "res", kk, 1, &RX);
		op = pb_depth(b);
		q = lower_loop(b, "u", RX, FK_UNROLLED);
		pb_store(b, res, &q, 1, pe_load(b, acc, &q, 1));
		pb_close_to(b, op);
		PExpr *zero = pe_i32(b, 0), *oi[4] = {g[0], g[1], g[2], ox0};
		ok = lower_store_through(c, pe_load(b, res, &zero, (uint32_t)RX), oi, (uint32_t)RX);
	} else {
		op = pb_depth(b);
		q = lower_loop(b, "u", RX, FK_UNROLLED);
		PExpr *oi[4] = {g[0], g[1], g[2], pe_add(b, ox0, q)};
		ok = lower_store_through(c, pe_load(b, acc, &q, 1), oi, 1);
		pb_close_to(b, op);
	}
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* ---------------------------------------------------------- NCHW4c */

static int
tile_depthwise_packed(GroupCx *c, const ConvAttrs *ca)
{
	const Value *v = c->g->members[0];
	if (!lower_is_layout(ca->dl, "NCHW4c") || !lower_is_layout(ca->kl, "OIHW4o") ||
	    !lower_is_layout(ca->ol, "NCHW4c"))
		return 0;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	int64_t N = xt->dims[0], CB = xt->dims[1], H = xt->dims[2], W = xt->dims[3];
	int64_t OB = wt->dims[0], I = wt->dims[1], KH = wt->dims[2], KW = wt->dims[3];
	int64_t OH = ot->dims[2], OW = ot->dims[3];
	/* an output channel per input channel, texel for texel */
	if (ca->groups != CB * 4 || OB != CB || I != 1 || lower_consumer_lanes(c) != 4)
		return 0;
	if (N * CB * OH * OW * KH * KW == 0 || H < 1 || W < 1 || type_numel(xt) > INT32_MAX ||
	    type_numel(ot) > INT32_MAX)
		return 0;
	static const int64_t blocks_cpu[] = {4, 2, 1};
	int64_t KB = lower_on_gpu(c) ? 1 : target_largest_divisor(CB, blocks_cpu), L = 4 * KB;
	Window win = window(ca, W, KW, OW, target_largest_divisor(OW, lower_on_gpu(c) ? cols_gpu : cols_cpu));
	int64_t RX = win.RX;
	ElemKind kk = (ElemKind)ot->dt.kind;
	PBuild *b = c->b;
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;

	int64_t grid[5] = {N, CB / KB, OH, OW / RX, 1};
	PExpr *g[5];
	int close = pb_depth(b);
	lower_open_nest(c, grid, 5, g, false);
	PExpr *cb0 = KB == 1 ? g[1] : pb_let(b, "c", pe_mul(b, g[1], pe_i32(b, KB)));
	PExpr *ox0 = pb_let(b, "ox", pe_mul(b, g[3], pe_i32(b, RX)));
	PExpr *x0 = pb_let(b, "x", pe_sub(b, pe_mul(b, ox0, pe_i32(b, ca->st[1])), pe_i32(b, ca->pad[1])));
	PExpr *zero = pe_i32(b, 0);
	int64_t adims[2] = {RX, L}, wdims[2] = {win.span, L};
	PVar *acc = private_array(c, "acc", kk, 2, adims);
	PVar *row = private_array(c, "win", kk, 2, wdims);
	PVar *wl = KB > 1 ? private_array(c, "wg", kk, 1, &L) : NULL;
	int op = pb_depth(b);
	PExpr *q = lower_loop(b, "u", RX, FK_UNROLLED);
	PExpr *ai[2] = {q, zero};
	pb_store(b, acc, ai, (uint32_t)L, pe_broadcast(b, (uint8_t)L, pe_float(b, 0, kk)));
	pb_close_to(b, op);

	int rop = pb_depth(b);
	PExpr *ky = lower_loop(b, "r", KH, FK_SERIAL);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, g[2], pe_i32(b, ca->st[0])), pe_i32(b, ca->pad[0])),
	                                  pe_mul(b, ky, pe_i32(b, ca->dil[0]))));
	row_guard(b, iy, ca, H, OH, KH);
	/* the window's row: texels of KB channel blocks per column */
	op = pb_depth(b);
	PExpr *j = lower_loop(b, "u", win.span, FK_UNROLLED);
	PExpr *ix = pe_add(b, x0, j);
	PExpr *cx = win.xpad ? pb_let(b, "cx", clamp(b, ix, W)) : ix;
	PExpr *inside = win.xpad ? pb_let(b, "in", lower_in_range(b, ix, 0, W)) : NULL;
	for (int64_t k = 0; k < KB; k++) {
		PExpr *xi[5] = {g[0], k ? pe_add(b, cb0, pe_i32(b, k)) : cb0, iy, cx, zero};
		PExpr *t = as_type(b, kk, lower_load_data(c, x, xi, 4));
		if (inside)
			t = pe_select(b, inside, t, pe_like(b, t, 0));
		PExpr *ri[2] = {j, pe_i32(b, 4 * k)};
		pb_store(b, row, ri, 4, t);
	}
	pb_close_to(b, op);
	op = pb_depth(b);
	PExpr *kx = lower_loop(b, "u", KW, FK_UNROLLED);
	PExpr *wv;
	if (KB == 1) {
		PExpr *wi[5] = {cb0, zero, ky, kx, zero};
		wv = pb_let(b, "w", as_type(b, kk, pe_load(b, w, wi, 4)));
	} else {
		for (int64_t k = 0; k < KB; k++) {
			PExpr *wi[5] = {k ? pe_add(b, cb0, pe_i32(b, k)) : cb0, zero, ky, kx, zero};
			PExpr *li = pe_i32(b, 4 * k);
			pb_store(b, wl, &li, 4, as_type(b, kk, pe_load(b, w, wi, 4)));
		}
		wv = pb_let(b, "w", pe_load(b, wl, &zero, (uint32_t)L));
	}
	q = lower_loop(b, "u", RX, FK_UNROLLED);
	PExpr *at = pe_add(b, pe_mul(b, q, pe_i32(b, ca->st[1])), pe_mul(b, kx, pe_i32(b, ca->dil[1])));
	PExpr *ri[2] = {at, zero}, *acci[2] = {q, zero};
	pb_store(b, acc, acci, (uint32_t)L,
	         lower_mac(b, pe_load(b, acc, acci, (uint32_t)L), pe_load(b, row, ri, (uint32_t)L), wv));
	pb_close_to(b, op);
	pb_close_to(b, rop); /* the guard, ky */

	bool ok = true;
	/* KB blocks' consumers as one vector of L lanes where they allow
	 * (store_texel_rows in lower_tile.c says why) */
	bool wide = KB > 1 && lower_consumers_wide_ok(c);
	if (wide) {
		op = pb_depth(b);
		q = lower_loop(b, "u", RX, FK_UNROLLED);
		PExpr *li[2] = {q, zero};
		PExpr *oi[5] = {g[0], cb0, g[2], pe_add(b, ox0, q), zero};
		ok = lower_store_wide(c, pe_load(b, acc, li, (uint32_t)L), oi, (uint32_t)KB, NULL);
		pb_close_to(b, op);
	}
	for (int64_t k = 0; k < KB && ok && !wide; k++) {
		op = pb_depth(b);
		q = lower_loop(b, "u", RX, FK_UNROLLED);
		PExpr *li[2] = {q, pe_i32(b, 4 * k)};
		PExpr *oi[5] = {g[0], k ? pe_add(b, cb0, pe_i32(b, k)) : cb0, g[2], pe_add(b, ox0, q), zero};
		ok = lower_store_through(c, pe_load(b, acc, li, 4), oi, 4);
		pb_close_to(b, op);
	}
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

int
lower_tile_grouped(GroupCx *c)
{
	const Value *v = c->g->members[0];
	if (v->args[0]->kind == VK_LIT || v->args[1]->kind == VK_LIT)
		return 0;
	ConvAttrs ca;
	lower_conv_attrs(v, &ca);
	if (ca.groups == 1)
		return 0;
	int r = tile_depthwise_packed(c, &ca);
	return r ? r : tile_grouped_nchw(c, &ca);
}
