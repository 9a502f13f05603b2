/* lower_tile_gpu.c: dense, batch_matmul and conv2d on a gpu as one
 * matrix product C[m,n] = sum_k A[m,k] B[n,k], tiled in shared memory.
 *
 * A work group of 16x16 work items computes a block of BM x BN results
 * (BM = 16 TM, BN = 16 TN); each work item a register tile of TM x TN,
 * its rows ty, ty+16, ... and columns tx, tx+16, ... of the block, so
 * that the 16 items of a half-warp read 16 consecutive words of shared
 * memory (no bank conflicts) and store 16 consecutive results.  The
 * reduction runs in k tiles of BK: the work group first loads the A and
 * B tiles of the step into `shared` allocs, each item a few elements
 * (loads of consecutive items walk the operand's contiguous axis, so
 * that they coalesce), meets at a barrier, multiplies the tiles out of
 * shared memory (TM + TN loads for TM x TN fmas per k), and meets again
 * before the next step overwrites them.
 *
 * This is the classic gpu SGEMM (as in CLBlast and cuBLAS's fp32
 * kernels, without the double buffering): an element-per-item product
 * reads two operands from memory per fma, which bounds it far under the
 * fp32 peak; a register tile of 8x8 out of shared tiles reads 16 words
 * of shared memory per 64 fmas.  bench/h100.md has what it ran at.
 *
 * dense [M,K] x [N,K] and batch_matmul: A = x and B = w, both contiguous
 * along k.  conv2d (NCHW, OIHW, one group) as an implicit product: A is
 * the weight [O, I*KH*KW] and B the input's windows, n running over the
 * output's (image, row, column) and k over (channel, ky, kx), read
 * straight from the input with the padding selected to zero (no im2col
 * buffer); n consecutive along the output's columns, so B's loads walk
 * n.  A packed conv2d (NCHW4c, OIHW4o, NCHW4c) is the same product with
 * channel c at texel c / 4, lane c % 4; on a texture device its tensors
 * then stay in buffers (lower.c's group_scopes asks
 * lower_gpu_packed_gemm), as on the H100 the product on buffers ran
 * several times faster than the texel-per-item tile on images.
 *
 * It applies when the sizes divide into tiles (M and N into 32, K into
 * 8); the other shapes keep lower_tile.c's register tiles or one element
 * per item.  The tiles shrink from 128x128 while the grid has fewer than
 * MIN_BLOCKS work groups, so that a small product still fills the
 * device's multiprocessors (132 on an H100, two work groups each).
 */
#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "lower_impl.h"
#include "ops/ops.h"

enum { T16 = 16, THREADS = T16 * T16, MIN_BLOCKS = 264 };

typedef struct Gemm Gemm;
struct Gemm {
	int64_t B, M, N, K;
	bool a_kfast, b_kfast;     /* the tile loads walk k fastest, else m / n */
	ElemKind kk;               /* the accumulator's kind */
	PExpr *(*load_a)(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *k);
	PExpr *(*load_b)(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k);
	bool (*store)(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *n, PExpr *val);
	/* the operands */
	PVar *x, *w;
	bool batched, bx_bcast, bw_bcast;
	/* conv2d */
	ConvAttrs ca;
	bool packed;               /* NCHW4c data and result, OIHW4o weight */
	int64_t C, H, W, KH, KW, OH, OW;
};

static PExpr *
as_kind(GroupCx *c, ElemKind k, PExpr *e)
{
	return pe_cast(c->b, (DType){k, 1}, e);
}

static PExpr *
fma_of(GroupCx *c, PExpr *acc, PExpr *x, PExpr *w)
{
	if (elem_is_float(acc->dt.kind)) {
		PExpr *args[3] = {x, w, acc};
		return pe_call(c->b, I_FMA, 3, args);
	}
	return pe_add(c->b, acc, pe_mul(c->b, x, w));
}

static PVar *
thread_loop(PBuild *b, const char *prefix, int64_t n, const char *thread)
{
	PVar *v = pb_scalar(b, prefix, (DType){ET_I32, 1});
	pb_for(b, v, pe_i32(b, 0), pe_i32(b, n), FK_THREAD, thread);
	return v;
}

static PExpr *
unrolled(PBuild *b, int64_t n)
{
	if (n == 1)
		return pe_i32(b, 0);
	PVar *v = pb_scalar(b, "u", (DType){ET_I32, 1});
	pb_for(b, v, pe_i32(b, 0), pe_i32(b, n), FK_UNROLLED, NULL);
	return pe_var(b, v);
}

/* The register tile's side: the largest of 8, 4, 2 with n a multiple of
 * 16 of it; 0 if none. */
static int64_t
tile_side(int64_t n)
{
	for (int64_t t = 8; t >= 2; t /= 2)
		if (n % (T16 * t) == 0)
			return t;
	return 0;
}

/* One operand's k tile into shared memory: sh[kk, r] = load(r0 + r,
 * k0 + kk) for r < R, kk < BK, THREADS elements at a time. */
static void
load_tile(GroupCx *c, const Gemm *g, bool is_a, PVar *sh, int64_t R, int64_t BK, PExpr *tid,
          PExpr *bt, PExpr *r0, PExpr *k0)
{
	PBuild *b = c->b;
	bool kfast = is_a ? g->a_kfast : g->b_kfast;
	int op = pb_depth(b);
	PExpr *l = unrolled(b, R * BK / THREADS);
	PExpr *e = pb_let(b, "e", pe_add(b, pe_mul(b, l, pe_i32(b, THREADS)), tid));
	PExpr *r, *kk;
	if (kfast) {
		kk = pb_let(b, "kk", pe_mod(b, e, pe_i32(b, BK)));
		r = pb_let(b, "r", pe_div(b, e, pe_i32(b, BK)));
	} else {
		r = pb_let(b, "r", pe_mod(b, e, pe_i32(b, R)));
		kk = pb_let(b, "kk", pe_div(b, e, pe_i32(b, R)));
	}
	PExpr *row = pe_add(b, r0, r), *k = pe_add(b, k0, kk);
	PExpr *v = is_a ? g->load_a(c, g, bt, row, k) : g->load_b(c, g, bt, row, k);
	PExpr *si[2] = {kk, r};
	pb_store(b, sh, si, 1, as_kind(c, g->kk, v));
	pb_close_to(b, op);
}

/* The register tile TM x TN and the k step of g (in t, when not NULL);
 * false when the sizes do not divide into tiles. */
static bool
gemm_tiles(const GroupCx *c, const Gemm *g, int64_t t[3])
{
	if (!c->device || lower_wg_limit(c->device) < THREADS)
		return false;
	int64_t TM = tile_side(g->M), TN = tile_side(g->N);
	int64_t BK = g->K % 16 == 0 ? 16 : g->K % 8 == 0 ? 8 : 0;
	if (!TM || !TN || !BK)
		return false;
	while (g->B * (g->M / (T16 * TM)) * (g->N / (T16 * TN)) < MIN_BLOCKS) {
		if (TN >= TM && TN > 2)
			TN /= 2;
		else if (TM > 2)
			TM /= 2;
		else
			break;
	}
	if (t)
		t[0] = TM, t[1] = TN, t[2] = BK;
	return true;
}

static int
build_gemm(GroupCx *c, const Gemm *g)
{
	int64_t t[3];
	if (!gemm_tiles(c, g, t))
		return 0;
	int64_t TM = t[0], TN = t[1], BK = t[2];
	int64_t BM = T16 * TM, BN = T16 * TN;
	PBuild *b = c->b;
	Module *m = c->m;
	ElemKind kk = g->kk;
	const VDev *shared = vdev_get(m, c->dev, sym_intern_cstr(m, "shared"));

	int close = pb_depth(b);
	lower_kernel(c);
	PExpr *bt = g->B > 1 ? pe_var(b, thread_loop(b, "bz", g->B, "blockIdx.z")) : pe_i32(b, 0);
	PExpr *by = pe_var(b, thread_loop(b, "by", g->M / BM, "blockIdx.y"));
	PExpr *bx = pe_var(b, thread_loop(b, "bx", g->N / BN, "blockIdx.x"));
	/* A padding word per row of a tile loaded along k: the items that
	 * store one row's k into column r of consecutive rows of the tile
	 * then land in different banks. */
	int64_t adims[2] = {BK, BM + g->a_kfast}, bdims[2] = {BK, BN + g->b_kfast};
	PVar *as = pb_alloc(b, "as", type_tensor(m, (DType){kk, 1}, 2, adims), shared);
	PVar *bs = pb_alloc(b, "bs", type_tensor(m, (DType){kk, 1}, 2, bdims), shared);
	PExpr *ty = pe_var(b, thread_loop(b, "ty", T16, "threadIdx.y"));
	PExpr *tx = pe_var(b, thread_loop(b, "tx", T16, "threadIdx.x"));
	PExpr *tid = pb_let(b, "tid", pe_add(b, pe_mul(b, ty, pe_i32(b, T16)), tx));
	PExpr *m0 = pb_let(b, "m", pe_mul(b, by, pe_i32(b, BM)));
	PExpr *n0 = pb_let(b, "n", pe_mul(b, bx, pe_i32(b, BN)));
	int64_t tdims[2] = {TM, TN};
	PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){kk, 1}, 2, tdims), c->local);
	int op = pb_depth(b);
	PExpr *ai[2] = {unrolled(b, TM), unrolled(b, TN)};
	pb_store(b, acc, ai, 1, pe_float(b, 0, kk));
	pb_close_to(b, op);

	int kop = pb_depth(b);
	PVar *kt = pb_scalar(b, "kt", (DType){ET_I32, 1});
	pb_for(b, kt, pe_i32(b, 0), pe_i32(b, g->K / BK), FK_SERIAL, NULL);
	PExpr *k0 = pb_let(b, "k", pe_mul(b, pe_var(b, kt), pe_i32(b, BK)));
	load_tile(c, g, true, as, BM, BK, tid, bt, m0, k0);
	load_tile(c, g, false, bs, BN, BK, tid, bt, n0, k0);
	pb_barrier(b);
	op = pb_depth(b);
	PExpr *q = unrolled(b, BK);
	/* Straight-line: TM + TN loads, then every product, so that the
	 * accumulators are indexed by constants and stay in registers. */
	PExpr *av[8], *bv[8];
	for (int64_t i = 0; i < TM; i++) {
		PExpr *si[2] = {q, pe_add(b, ty, pe_i32(b, i * T16))};
		av[i] = pb_let(b, "a", pe_load(b, as, si, 1));
	}
	for (int64_t j = 0; j < TN; j++) {
		PExpr *si[2] = {q, pe_add(b, tx, pe_i32(b, j * T16))};
		bv[j] = pb_let(b, "b", pe_load(b, bs, si, 1));
	}
	for (int64_t i = 0; i < TM; i++)
		for (int64_t j = 0; j < TN; j++) {
			PExpr *ci[2] = {pe_i32(b, i), pe_i32(b, j)};
			pb_store(b, acc, ci, 1, fma_of(c, pe_load(b, acc, ci, 1), av[i], bv[j]));
		}
	pb_close_to(b, op);
	pb_barrier(b);
	pb_close_to(b, kop);

	op = pb_depth(b);
	PExpr *i = unrolled(b, TM), *j = unrolled(b, TN);
	PExpr *ci[2] = {i, j};
	PExpr *row = pe_add(b, m0, pe_add(b, ty, pe_mul(b, i, pe_i32(b, T16))));
	PExpr *col = pe_add(b, n0, pe_add(b, tx, pe_mul(b, j, pe_i32(b, T16))));
	bool ok = g->store(c, g, bt, row, col, pe_load(b, acc, ci, 1));
	pb_close_to(b, op);
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* ------------------------------------------------- dense, batch_matmul */

static PExpr *
mm_load_a(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *k)
{
	PExpr *xi[3] = {g->bx_bcast ? pe_i32(c->b, 0) : bt, m, k};
	return pe_load(c->b, g->x, xi + !g->batched, 1);
}

static PExpr *
mm_load_b(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k)
{
	PExpr *wi[3] = {g->bw_bcast ? pe_i32(c->b, 0) : bt, n, k};
	return pe_load(c->b, g->w, wi + !g->batched, 1);
}

static bool
mm_store(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *n, PExpr *val)
{
	PExpr *oi[3] = {bt, m, n};
	return lower_store_through(c, val, oi + !g->batched, 1);
}

static int
tile_matmul_gpu(GroupCx *c, bool batched)
{
	MatmulShape sh;
	if (!lower_matmul_shape(c, batched, &sh))
		return 0;
	const Value *v = c->g->members[0];
	Gemm g = {.B = sh.B, .M = sh.M, .N = sh.N, .K = sh.K, .a_kfast = true, .b_kfast = true,
	          .kk = (ElemKind)v->type->dt.kind, .load_a = mm_load_a, .load_b = mm_load_b,
	          .store = mm_store, .batched = batched, .bx_bcast = sh.BX == 1,
	          .bw_bcast = sh.BW == 1};
	/* (lower_input only after the shape is known to fit: it binds nothing) */
	g.x = lower_input(c, 0, 0, -1)->buf;
	g.w = lower_input(c, 0, 1, -1)->buf;
	return build_gemm(c, &g);
}

/* ------------------------------------------------------------ conv2d */

/* k = (channel, ky, kx) of the weight's [I, KH, KW] */
static void
conv_k(GroupCx *c, const Gemm *g, PExpr *k, PExpr **ic, PExpr **ky, PExpr **kx)
{
	PBuild *b = c->b;
	*ic = pb_let(b, "ic", pe_div(b, k, pe_i32(b, g->KH * g->KW)));
	*ky = pb_let(b, "ky", pe_mod(b, pe_div(b, k, pe_i32(b, g->KW)), pe_i32(b, g->KH)));
	*kx = pb_let(b, "kx", pe_mod(b, k, pe_i32(b, g->KW)));
}

/* n = (image, row, column) of the output */
static void
conv_n(GroupCx *c, const Gemm *g, PExpr *n, PExpr **img, PExpr **oy, PExpr **ox)
{
	PBuild *b = c->b;
	*img = pb_let(b, "im", pe_div(b, n, pe_i32(b, g->OH * g->OW)));
	*oy = pb_let(b, "oy", pe_mod(b, pe_div(b, n, pe_i32(b, g->OW)), pe_i32(b, g->OH)));
	*ox = pb_let(b, "ox", pe_mod(b, n, pe_i32(b, g->OW)));
}

/* Channel ch of a packed tensor: its texel ch / 4, lane ch % 4. */
static PExpr *
texel_of(PBuild *b, PExpr *ch)
{
	return pe_div(b, ch, pe_i32(b, 4));
}

static PExpr *
lane_of(PBuild *b, PExpr *ch)
{
	return pe_mod(b, ch, pe_i32(b, 4));
}

static PExpr *
conv_load_a(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *k)
{
	(void)bt;
	PBuild *b = c->b;
	PExpr *ic, *ky, *kx;
	conv_k(c, g, k, &ic, &ky, &kx);
	if (g->packed) {
		PExpr *wi[5] = {texel_of(b, m), ic, ky, kx, lane_of(b, m)};
		return pe_load(b, g->w, wi, 1);
	}
	PExpr *wi[4] = {m, ic, ky, kx};
	return pe_load(b, g->w, wi, 1);
}

/* The input at (image, channel, y, x), either layout. */
static PExpr *
conv_input(GroupCx *c, const Gemm *g, PExpr *img, PExpr *ic, PExpr *y, PExpr *x)
{
	PBuild *b = c->b;
	if (g->packed) {
		PExpr *xi[5] = {img, texel_of(b, ic), y, x, lane_of(b, ic)};
		return pe_load(b, g->x, xi, 1);
	}
	PExpr *xi[4] = {img, ic, y, x};
	return pe_load(b, g->x, xi, 1);
}

static PExpr *
conv_load_b(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k)
{
	(void)bt;
	PBuild *b = c->b;
	PExpr *img, *oy, *ox, *ic, *ky, *kx;
	conv_n(c, g, n, &img, &oy, &ox);
	conv_k(c, g, k, &ic, &ky, &kx);
	const int64_t *st = g->ca.st, *dil = g->ca.dil, *pad = g->ca.pad;
	PExpr *y = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, oy, pe_i32(b, st[0])), pe_i32(b, pad[0])),
	                                 pe_mul(b, ky, pe_i32(b, dil[0]))));
	PExpr *x = pb_let(b, "x", pe_add(b, pe_sub(b, pe_mul(b, ox, pe_i32(b, st[1])), pe_i32(b, pad[1])),
	                                 pe_mul(b, kx, pe_i32(b, dil[1]))));
	if (!(pad[0] || pad[1] || pad[2] || pad[3]))
		return conv_input(c, g, img, ic, y, x);
	/* Clamped, the load stays in bounds where select drops it. */
	PExpr *cy = pe_call2(b, I_MIN, pe_call2(b, I_MAX, y, pe_i32(b, 0)), pe_i32(b, g->H - 1));
	PExpr *cx = pe_call2(b, I_MIN, pe_call2(b, I_MAX, x, pe_i32(b, 0)), pe_i32(b, g->W - 1));
	PExpr *val = conv_input(c, g, img, ic, cy, cx);
	return pe_select(b, lower_inside(b, y, x, 0, g->H, 0, g->W), val, pe_like(b, val, 0));
}

static bool
conv_store(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *n, PExpr *val)
{
	(void)bt;
	PExpr *img, *oy, *ox;
	conv_n(c, g, n, &img, &oy, &ox);
	if (g->packed) {
		PExpr *oi[5] = {img, texel_of(c->b, m), oy, ox, lane_of(c->b, m)};
		return lower_store_through(c, val, oi, 1);
	}
	PExpr *oi[4] = {img, m, oy, ox};
	return lower_store_through(c, val, oi, 1);
}

static bool
is_layout(const Layout *l, const char *name)
{
	return strcmp(l->name, name) == 0;
}

/* The product a conv2d master is, in g; false when it is not one the
 * tiles take (layouts, groups, literal operands, i32 indices). */
static bool
conv_gemm(const GroupCx *c, Gemm *g)
{
	const Value *v = c->g->members[0];
	if (v->args[0]->kind == VK_LIT || v->args[1]->kind == VK_LIT)
		return false;
	*g = (Gemm){.B = 1, .a_kfast = true, .b_kfast = false, .load_a = conv_load_a,
	            .load_b = conv_load_b, .store = conv_store};
	lower_conv_attrs(v, &g->ca);
	if (g->ca.groups != 1)
		return false;
	if (is_layout(g->ca.dl, "NCHW4c") && is_layout(g->ca.kl, "OIHW4o") &&
	    is_layout(g->ca.ol, "NCHW4c"))
		g->packed = true;
	else if (!is_layout(g->ca.dl, "NCHW") || !is_layout(g->ca.kl, "OIHW") ||
	         !is_layout(g->ca.ol, "NCHW"))
		return false;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	int64_t NI = xt->dims[0];
	g->C = xt->dims[1] * (g->packed ? 4 : 1), g->H = xt->dims[2], g->W = xt->dims[3];
	g->KH = wt->dims[2], g->KW = wt->dims[3];
	g->OH = ot->dims[2], g->OW = ot->dims[3];
	g->M = wt->dims[0] * (g->packed ? 4 : 1);
	g->N = NI * g->OH * g->OW;
	g->K = wt->dims[1] * g->KH * g->KW;
	g->kk = (ElemKind)ot->dt.kind;
	/* i32 indices: the output's and input's element counts */
	return g->H >= 1 && g->W >= 1 && type_numel(ot) <= INT32_MAX && type_numel(xt) <= INT32_MAX &&
	       g->N <= INT32_MAX && g->M * g->K <= INT32_MAX;
}

static int
tile_conv2d_gpu(GroupCx *c)
{
	Gemm g;
	if (!conv_gemm(c, &g))
		return 0;
	g.x = lower_input(c, 0, 0, -1)->buf;
	g.w = lower_input(c, 0, 1, -1)->buf;
	return build_gemm(c, &g);
}

bool
lower_gpu_packed_gemm(const GroupCx *c)
{
	Gemm g;
	return c->device && c->device->kind != DK_CPU &&
	       c->g->members[0]->u.op->op->id == O_CONV2D && conv_gemm(c, &g) && g.packed &&
	       gemm_tiles(c, &g, NULL);
}

int
lower_tiled_gpu(GroupCx *c)
{
	switch (c->g->members[0]->u.op->op->id) {
	case O_DENSE:
		return tile_matmul_gpu(c, false);
	case O_BATCH_MATMUL:
		return tile_matmul_gpu(c, true);
	case O_CONV2D:
		return tile_conv2d_gpu(c);
	default:
		return 0;
	}
}
