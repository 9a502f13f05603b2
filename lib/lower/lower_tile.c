/* lower_tile.c: register-tiled schedules for dense, batch_matmul and
 * conv2d.
 *
 * One element per work item leaves a compiler nothing to vectorise:
 * research/perf.md §4 measured such kernels at 1-3 GFLOP/s on POCL where
 * register tiles of explicit 16-wide vectors in fully unrolled loops reach
 * 150-330.  So each work item here computes a tile of outputs into a local
 * accumulator array of vectors, and every loop over the tile is `unrolled`
 * with constant bounds, so that code generation can turn the array into
 * registers.
 *
 * A dense's rows are all the axes of its input but the last (torch's
 * MatMul of a transformer is a dense of [1,197,768]: 197 rows), taken
 * apart from the row index once per tile.
 *
 * dense [M,K] x [N,K] (and batch_matmul, per batch), on a gpu or with
 * fewer than 8 rows: a tile of RM rows x RN columns, each accumulator a
 * vector of V consecutive k (both operands are contiguous along k); the V
 * partial sums are added at the end.  On a cpu otherwise the weight is
 * first transposed to panels of columns ([N/P,K,P]) and each element of
 * x broadcast over vectors of V consecutive columns (tile_matmul_cpu);
 * a dense whose weight is in panels already (weight_layout "NC<P>n",
 * which ir-fold-constants writes for constant weights) skips the
 * transpose, whatever its rows, and a gpu's tile reads it as it is.
 *
 * The sizes were checked by translating the loop nests to OpenCL C by
 * hand (as the code generator will) and timing them on POCL and on an
 * H100 (see the comments at the tile sizes below).  On POCL (2 threads)
 * the dense tile ran 512^3 at 250-270 GFLOP/s against 4.4 for one element
 * per item, and the conv2d prim (transpose, pad, tile) 64->64 56x56 at
 * 137-141, about torch's 130-149.
 *
 * conv2d NCHW/OIHW, on a cpu: a tile of V output channels x RX output
 * columns, as in perf.md's conv_blk2.  The weight is first transposed to
 * [I,KH,KW,O] so that V output channels are contiguous, and a padded
 * input is written when there is padding, so the inner loops read
 * without bounds checks: two stages, each a kernel of its own, before
 * the convolution's.  An HWIO weight (ir-fold-constants makes constant
 * weights so) has them contiguous already and skips the first stage.
 *
 * The consumers fused after the master (bias_add, relu, ...) run on each
 * element of the tile as it is stored (GroupCx.master).
 */
#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "lower_impl.h"
#include "ops/ops.h"
#include "target.h"

/* `for %<prefix>N in 0..n unrolled {` (lower_loop). */
static PExpr *
unrolled(GroupCx *c, const char *prefix, int64_t n)
{
	return lower_loop(c->b, prefix, n, FK_UNROLLED);
}

static PExpr *
serial(GroupCx *c, const char *prefix, int64_t n)
{
	return lower_loop(c->b, prefix, n, FK_SERIAL);
}

static PExpr *
as_type(GroupCx *c, ElemKind k, PExpr *e)
{
	return pe_cast(c->b, (DType){k, e->dt.lanes}, e);
}

static PVar *
local_tile(GroupCx *c, ElemKind k, uint32_t n, const int64_t *dims)
{
	return pb_alloc(c->b, "acc", type_tensor(c->m, (DType){k, 1}, n, dims), c->local);
}

/* A conv2d tile's accumulators: rows vectors of `lanes` lanes, zeroed by
 * an unrolled loop of vector stores. */
static PVar *
zeroed_rows(GroupCx *c, ElemKind k, int64_t rows, int64_t lanes)
{
	PBuild *b = c->b;
	int64_t dims[2] = {rows, lanes};
	PVar *acc = local_tile(c, k, 2, dims);
	int op = pb_depth(b);
	PExpr *q = unrolled(c, "u", rows);
	PExpr *ai[2] = {q, pe_i32(b, 0)};
	pb_store(b, acc, ai, (uint32_t)lanes, pe_broadcast(b, (uint8_t)lanes, pe_float(b, 0, k)));
	pb_close_to(b, op);
	return acc;
}

/* A weight vector w of a conv2d tile that broadcasts each input element
 * over it, for the input channel and image of x's index xi: times s
 * where the group has a scale prologue and the tile reads x itself
 * (src); a padded copy of x was scaled as it was written
 * (lower_load_data).  Scaling x there instead cost a scalar load and
 * multiply per broadcast element: efficientnet_b0's 1x1 projections
 * on POCL ran at half their speed so.  The product rounds as
 * (w * s) * x, where the graph says w * (x * s). */
static PExpr *
scaled_weight(GroupCx *c, PVar *src, PExpr *w, PExpr *const *xi)
{
	if (!c->g->scale || src != lower_input(c, 0, 0, -1)->buf)
		return w;
	PExpr *sv = as_type(c, (ElemKind)w->dt.kind, lower_data_scale(c, xi, 1));
	return pe_mul(c->b, w, pe_broadcast(c->b, w->dt.lanes, sv));
}

/* ------------------------------------------------- dense, batch_matmul */

/* Lanes along k: 16 fill an AVX-512 register (target_dense_lanes); on
 * the H100 4 lanes did better (1024^3: 1834 GFLOP/s against 1595 with
 * 16, 481 untiled). */
static const int64_t dense_lanes_gpu[] = {4, 2, 1};
static const int64_t dense_rows[] = {4, 2, 1};

/* dense [M,K] x [N,K], or batch_matmul [B|1,M,K] x [B|1,N,K] (batched);
 * with other transposes (an operand not contiguous along k) the tile
 * reads one k at a time (V = 1). */
static int
tile_matmul(GroupCx *c, bool batched)
{
	const Value *v = c->g->members[0];
	MatmulShape sh;
	/* (a packed weight has its units, not k, contiguous; an operand
	 * read through a prologue is no buffer to load vectors from) */
	if (c->g->npro || !lower_matmul_shape(c, batched, &sh) || sh.pack)
		return 0;
	uint32_t o = sh.o;
	int64_t B = sh.B, M = sh.M, K = sh.K, N = sh.N;
	int64_t V = sh.ta || !sh.tb ? 1
	            : target_largest_divisor(K, lower_on_gpu(c) ? dense_lanes_gpu : target_dense_lanes);
	int64_t RM = target_largest_divisor(M, dense_rows), RN = target_largest_divisor(N, dense_rows);
	ElemKind kk = (ElemKind)v->type->dt.kind;
	PBuild *b = c->b;
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;

	int64_t grid[3] = {B, M / RM, N / RN};
	PExpr *t[3] = {NULL, NULL, NULL};
	int close = pb_depth(b);
	lower_open_nest(c, grid + !batched, 2 + o, t + !batched, false);
	PExpr *i0 = pb_let(b, "m", pe_mul(b, t[1], pe_i32(b, RM)));
	PExpr *j0 = pb_let(b, "n", pe_mul(b, t[2], pe_i32(b, RN)));
	int64_t tdims[3] = {RM, RN, V};
	PVar *acc = local_tile(c, kk, 3, tdims);
	int op = pb_depth(b);
	PExpr *u = unrolled(c, "u", RM), *q = unrolled(c, "u", RN);
	PExpr *ai[3] = {u, q, pe_i32(b, 0)};
	pb_store(b, acc, ai, (uint32_t)V, pe_broadcast(b, (uint8_t)V, pe_float(b, 0, kk)));
	pb_close_to(b, op);

	int kop = pb_depth(b);
	PExpr *r = serial(c, "k", K / V);
	PExpr *k0 = pe_mul(b, r, pe_i32(b, V));
	op = pb_depth(b);
	u = unrolled(c, "u", RM);
	PExpr *xi[LOWER_MAX_RANK], *wi[3];
	lower_matmul_xi(b, &sh, t[0], pe_add(b, i0, u), k0, NULL, xi);
	PExpr *a = pb_let(b, "a", as_type(c, kk, pe_load(b, x, xi, (uint32_t)V)));
	q = unrolled(c, "u", RN);
	lower_matmul_wi(b, &sh, t[0], pe_add(b, j0, q), k0, wi);
	PExpr *acci[3] = {u, q, pe_i32(b, 0)};
	pb_store(b, acc, acci, (uint32_t)V,
	         lower_mac(c->b, pe_load(b, acc, acci, (uint32_t)V), a,
	             as_type(c, kk, pe_load(b, w, wi, (uint32_t)V))));
	pb_close_to(b, op);
	pb_close_to(b, kop);

	op = pb_depth(b);
	u = unrolled(c, "u", RM);
	q = unrolled(c, "u", RN);
	/* The V partial sums, added pairwise: a tree of depth log2(V). */
	PExpr *part[16];
	for (int64_t l = 0; l < V; l++) {
		PExpr *li[3] = {u, q, pe_i32(b, l)};
		part[l] = pe_load(b, acc, li, 1);
	}
	for (int64_t n = V; n > 1; n /= 2)
		for (int64_t l = 0; l < n / 2; l++)
			part[l] = pe_add(b, part[2 * l], part[2 * l + 1]);
	PExpr *sum = part[0];
	PExpr *oi[LOWER_MAX_RANK];
	lower_matmul_oi(b, &sh, t[0], pe_add(b, i0, u), pe_add(b, j0, q), NULL, oi);
	bool ok = lower_store_through(c, sum, oi, 1);
	pb_close_to(b, op);
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* On a cpu: the weight is first transposed to panels [N/P,K,P] of
 * P = RN*V columns (per batch), so that V consecutive output columns are
 * contiguous; a tile of RM rows x RN*V
 * columns then broadcasts one element of x over each vector of columns,
 * with no sum across lanes at the end (perf.md's gemm_blk, RM=8 and two
 * float16).  Generated through ir-codegen-ocl, the tile kernel alone runs
 * as fast as gemm_blk on POCL here (paired, 512^3: 321 against 331
 * GFLOP/s on an idle machine); with the transpose the prim ran 0.94-1.00x
 * gemm_blk in paired runs, 0.79-0.90x with a transpose of a row per work
 * item.  A lanes-along-k tile of separate vector variables (no
 * transpose, 4 x 4 or 8 x 2 vectors) ran 0.73-0.84x by hand. */
static int
tile_matmul_cpu(GroupCx *c, bool batched)
{
	const Value *v = c->g->members[0];
	const Type *wt = v->args[1]->type;
	MatmulShape sh;
	if (c->g->npro || !lower_matmul_shape(c, batched, &sh))   /* (lower.c fuses none on a cpu) */
		return 0;
	uint32_t o = sh.o;
	int64_t B = sh.B, BW = sh.BW, M = sh.M, K = sh.K, N = sh.N;
	/* Fewer rows than a tile (a batch of 1 in inference) reuse the
	 * transposed weight too little to pay for transposing it: those
	 * keep the lanes-along-k tile.  A weight packed already (dense's
	 * weight_layout "NC<PL>n") is read as it is, whatever the rows. */
	if (M < target_cpu_dense_rows[0] && !sh.pack) {
		int r = tile_matmul(c, batched);
		if (r)
			return r;
	}
	int64_t V, RN;
	target_cpu_dense_panel(sh.pack ? sh.pack : N, &V, &RN);
	/* Likewise columns that no vector of 4 or more divides (attention's
	 * q k^T, 197 columns: panels of one column ran at 1.75 GFLOP/s on
	 * POCL) take panels of 2 vectors of 16, the last panel's columns
	 * past N copies of column N - 1 that are not stored. */
	bool ragged_n = !sh.pack && V < 4 && N >= 2 * target_dense_lanes[0];
	if (ragged_n)
		V = target_dense_lanes[0], RN = target_cpu_dense_vecs[0];
	int64_t RM = target_largest_divisor(M, target_cpu_dense_rows);
	/* Rows that no tile of 4 or more divides (a ViT's 197 tokens) take
	 * tiles of 8 rows, the last one's rows past M reading row M - 1 and
	 * storing nothing: a tile of one row loads a vector of the panel for
	 * each fma.  On POCL (1 thread) [197,768] x [768,768] ran at 20-27
	 * GFLOP/s in tiles of 1 row, 80-95 in ragged tiles of 8
	 * (bench/kernels.sh). */
	bool ragged = RM < 4 && M >= target_cpu_dense_rows[0];
	if (ragged)
		RM = target_cpu_dense_rows[0];
	int64_t MT = (M + RM - 1) / RM;
	ElemKind kk = (ElemKind)v->type->dt.kind;
	PBuild *b = c->b;
	const VDev *global = vdev_get(c->m, c->dev, sym_intern_cstr(c->m, "global"));
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;
	int64_t P = RN * V, NP = (N + P - 1) / P;
	/* The panels' width PL: P when transposed here, a multiple of P when
	 * packed (each panel then SP tiles wide). */
	int64_t PL = sh.pack ? sh.pack : P, SP = PL / P;
	PVar *wT = w;
	int close;
	/* Stage 1: the weight in panels of P = RN*V columns, [BW,]N/P,K,P,
	 * so that a tile reads its P columns of every k from one contiguous
	 * run.  As [K,N], 1024^3 ran at 27-65 GFLOP/s on POCL here (the
	 * tile's rows of the weight 4 KiB apart); in panels 170-190, as
	 * 512^3.  A work item per row k and V columns: V strided reads
	 * gathered in a local vector and written as one run (work items next
	 * to each other read neighbouring k, so the reads share cache lines;
	 * 512x512 took 0.08 ms so, against 0.16-0.23 for a row of N elements
	 * per work item, 15% of the whole 512^3 dense).  A weight packed
	 * already, by ir-fold-constants for a constant, skips this stage. */
	if (!sh.pack) {
		int64_t tdims[4] = {BW, NP, K, P};
		wT = pb_alloc(b, "wt", type_tensor(c->m, wt->dt, 3 + o, tdims + !batched), global);
		int64_t tgrid[4] = {BW, NP, RN, K}, titems = BW * NP * RN * K;
		PExpr *tg[4] = {pe_i32(b, 0), NULL, NULL, NULL}, *tflat;
		close = pb_depth(b);
		lower_open_nest(c, &titems, 1, &tflat, false);
		lower_unflatten(b, tflat, tgrid + !batched, NULL, 3 + o, tg + !batched);
		PExpr *q0 = pb_let(b, "q", pe_mul(b, tg[2], pe_i32(b, V)));
		PExpr *n0 = pb_let(b, "n", pe_add(b, pe_mul(b, tg[1], pe_i32(b, P)), q0));
		PVar *col = pb_alloc(b, "col", type_tensor(c->m, (DType){wt->dt.kind, 1}, 1, &V), c->local);
		int op = pb_depth(b);
		PExpr *l = unrolled(c, "u", V);
		PExpr *wsrc[3];
		PExpr *n = pe_add(b, n0, l);
		if (ragged_n)
			n = pe_call2(b, I_MIN, n, pe_i32(b, N - 1));
		lower_matmul_wi(b, &sh, tg[0], n, tg[3], wsrc);
		pb_store(b, col, &l, 1, pe_load(b, w, wsrc, 1));
		pb_close_to(b, op);
		PExpr *zero = pe_i32(b, 0), *wdst[4] = {tg[0], tg[1], tg[3], q0};
		pb_store(b, wT, wdst + !batched, (uint32_t)V, pe_load(b, col, &zero, (uint32_t)V));
		pb_close_to(b, close);
	}

	/* Stage 2: the product, a tile of RM rows x RN vectors of V columns,
	 * the tiles of one panel next to each other (the panel stays in
	 * cache while the rows of x go by: 2.5x at 1024^3 over the panels
	 * side by side). */
	int64_t grid[3] = {B, NP, MT};
	PExpr *t[3] = {NULL, NULL, NULL};
	close = pb_depth(b);
	/* One parallel axis of all the tiles: as rows x columns, 512^3 was
	 * 64 tasks of 16 tiles, one work group on POCL, one core busy. */
	int64_t tiles = B * grid[1] * grid[2];
	PExpr *flat;
	lower_open_nest(c, &tiles, 1, &flat, false);
	lower_unflatten(b, flat, grid + !batched, NULL, 2 + o, t + !batched);
	PExpr *i0 = pb_let(b, "m", pe_mul(b, t[2], pe_i32(b, RM)));
	PExpr *j0 = pb_let(b, "n", pe_mul(b, t[1], pe_i32(b, P)));
	/* a batch of 1 is broadcast */
	PExpr *bw = batched && BW != 1 ? t[0] : pe_i32(b, 0);
	/* The tile's rows (clamped into x when ragged), and a dense's rows
	 * taken apart into x's leading axes, once per tile. */
	PExpr *row[8], *pre[8][LOWER_MAX_RANK]; /* target_cpu_dense_rows[0] */
	for (int64_t u = 0; u < RM; u++) {
		PExpr *m = pe_add(b, i0, pe_i32(b, u));
		if (ragged && u > 0)
			m = pe_call2(b, I_MIN, m, pe_i32(b, M - 1));
		row[u] = sh.lead > 1 || (ragged && u > 0) ? pb_let(b, "r", m) : m;
		lower_matmul_rows(b, &sh, row[u], pre[u]);
	}
	/* One accumulator alloc of V lanes per vector of the tile, and the
	 * tile written out statement by statement: a single array of the
	 * tile, read and written in runs of V, stayed in memory on POCL
	 * (40 GFLOP/s against 150 with separate vectors). */
	PVar *acc[8][2]; /* target_cpu_dense_rows[0] x target_cpu_dense_vecs[0] */
	for (int64_t u = 0; u < RM; u++)
		for (int64_t q = 0; q < RN; q++) {
			int64_t n1 = V;
			acc[u][q] = local_tile(c, kk, 1, &n1);
			PExpr *zero = pe_i32(b, 0);
			pb_store(b, acc[u][q], &zero, (uint32_t)V, pe_broadcast(b, (uint8_t)V, pe_float(b, 0, kk)));
		}

	/* the tile's panel and its first column in it */
	PExpr *panel = t[1], *c0 = pe_i32(b, 0);
	if (SP > 1) {
		panel = pb_let(b, "p", pe_div(b, t[1], pe_i32(b, SP)));
		c0 = pb_let(b, "c", pe_mul(b, pe_mod(b, t[1], pe_i32(b, SP)), pe_i32(b, P)));
	}
	int kop = pb_depth(b);
	PExpr *k = serial(c, "k", K);
	PExpr *wv[2];
	for (int64_t q = 0; q < RN; q++) {
		PExpr *wi[4] = {bw, panel, k, SP > 1 ? pe_add(b, c0, pe_i32(b, q * V)) : pe_i32(b, q * V)};
		wv[q] = pb_let(b, "w", as_type(c, kk, pe_load(b, wT, wi + !batched, (uint32_t)V)));
	}
	for (int64_t u = 0; u < RM; u++) {
		PExpr *xi[LOWER_MAX_RANK];
		lower_matmul_xi(b, &sh, t[0], row[u], k, pre[u], xi);
		PExpr *a = pb_let(b, "a", pe_broadcast(b, (uint8_t)V, as_type(c, kk, pe_load(b, x, xi, 1))));
		for (int64_t q = 0; q < RN; q++) {
			PExpr *zero = pe_i32(b, 0);
			pb_store(b, acc[u][q], &zero, (uint32_t)V,
			         lower_mac(c->b, pe_load(b, acc[u][q], &zero, (uint32_t)V), a, wv[q]));
		}
	}
	pb_close_to(b, kop);

	bool ok = true;
	for (int64_t u = 0; u < RM && ok; u++) {
		int rop = pb_depth(b);
		if (ragged && u > 0)
			pb_if(b, pe_bin(b, OP_LT, pe_add(b, i0, pe_i32(b, u)), pe_i32(b, M)));
		for (int64_t q = 0; q < RN && ok; q++) {
			int op = pb_depth(b);
			PExpr *l = unrolled(c, "u", V);
			PExpr *col = pe_add(b, j0, pe_add(b, pe_i32(b, q * V), l));
			if (ragged_n) {
				col = pb_let(b, "c", col);
				pb_if(b, pe_bin(b, OP_LT, col, pe_i32(b, N)));
			}
			PExpr *oi[LOWER_MAX_RANK];
			lower_matmul_oi(b, &sh, t[0], row[u], col, pre[u], oi);
			ok = lower_store_through(c, pe_load(b, acc[u][q], &l, 1), oi, 1);
			pb_close_to(b, op);
		}
		pb_close_to(b, rop);
	}
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* ------------------------------------------------------------ conv2d */

static const int64_t conv_lanes[] = {16, 8, 4, 1};

/* x [N,C,H,W] (lanes 1), or [N,C,H,W,4] read and written a texel at a
 * time (lanes 4), with its padding pad (top, left, bottom, right)
 * written out as zeros, in a new buffer of scope global; x itself
 * without padding. */
static PVar *
padded_input(GroupCx *c, PVar *x, const Type *xt, const int64_t *pad, uint32_t lanes,
             const VDev *global)
{
	if (!(pad[0] || pad[1] || pad[2] || pad[3]))
		return x;
	PBuild *b = c->b;
	int64_t H = xt->dims[2], W = xt->dims[3];
	int64_t pdims[5] = {xt->dims[0], xt->dims[1], H + pad[0] + pad[2], W + pad[1] + pad[3], 4};
	uint32_t rank = lanes == 1 ? 4 : 5;
	PVar *src = pb_alloc(b, "xp", type_tensor(c->m, xt->dt, rank, pdims), global);
	PExpr *pi[5];
	int close = pb_depth(b);
	lower_open_nest(c, pdims, 4, pi, lanes == 1);
	PExpr *y = pe_sub(b, pi[2], pe_i32(b, pad[0])), *xx = pe_sub(b, pi[3], pe_i32(b, pad[1]));
	PExpr *inside = lower_inside(b, y, xx, 0, H, 0, W);
	/* Clamped, the load stays in bounds where select drops it. */
	PExpr *cy = pe_call2(b, I_MIN, pe_call2(b, I_MAX, y, pe_i32(b, 0)), pe_i32(b, H - 1));
	PExpr *cx = pe_call2(b, I_MIN, pe_call2(b, I_MAX, xx, pe_i32(b, 0)), pe_i32(b, W - 1));
	PExpr *xi[5] = {pi[0], pi[1], cy, cx, pe_i32(b, 0)};
	PExpr *val = lower_load_data(c, x, xi, lanes);
	pi[4] = pe_i32(b, 0);
	pb_store(b, src, pi, lanes, pe_select(b, inside, val, pe_like(b, val, 0)));
	pb_close_to(b, close);
	return src;
}

/* An NCHW conv2d (OIHW, HWIO or OIHW16o weight): its sizes, and what
 * the two channel tiles below (tile_conv2d_cols, tile_conv2d) open
 * alike. */
typedef struct {
	const ConvAttrs *ca;
	bool hwio, panel;          /* an HWIO, an OIHW16o weight */
	int64_t N, C, H, W, O, I, KH, KW, OH, OW;
	ElemKind kk;               /* the result's and accumulators' kind */
	/* set once a tile is chosen (lower_input binds them) */
	PVar *x, *w;               /* the operands' buffers */
	const VDev *global;
} ConvNchw;

static void
conv_nchw(GroupCx *c, const ConvAttrs *ca, ConvNchw *cv)
{
	const Value *v = c->g->members[0];
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	*cv = (ConvNchw){.ca = ca, .hwio = lower_is_layout(ca->kl, "HWIO"),
	                 .panel = lower_is_layout(ca->kl, "OIHW16o"), .N = xt->dims[0],
	                 .C = xt->dims[1], .H = xt->dims[2], .W = xt->dims[3],
	                 .O = layout_dim(ca->kl, wt->dims, 'O'), .I = layout_dim(ca->kl, wt->dims, 'I'),
	                 .KH = layout_dim(ca->kl, wt->dims, 'H'), .KW = layout_dim(ca->kl, wt->dims, 'W'),
	                 .OH = ot->dims[2], .OW = ot->dims[3], .kk = (ElemKind)ot->dt.kind};
}

/* A tile's first index base, let-bound as name; shifted (the last tile
 * moved back to end at the axis's end), min(start, last) with start,
 * base let-bound too, in *start (else NULL). */
static PExpr *
tile_start(PBuild *b, const char *name, PExpr *base, int64_t last, bool shifted, PExpr **start)
{
	*start = NULL;
	if (shifted) {
		*start = pb_let(b, name, base);
		base = pe_call2(b, I_MIN, *start, pe_i32(b, last));
	}
	return pb_let(b, name, base);
}

/* The loops of a tile of RC output channels x RX output columns.
 * conv_open_grid opens the grid (image, channel tile, row, column tile)
 * in g, to close back to close, and lets the tile's first channel oc0
 * and column ox0 and the first input channel of its group gbase; where
 * RX does not divide the width (shifted) the last tile is moved left to
 * end at OW: ox0 is then min(start, OW - RX), start the column the tile
 * would begin at; where RC does not divide O (cshifted), likewise the
 * last channel tile, oc0 then min(cstart, O - RC).  conv_open_reduction then makes the accumulators acc
 * (rows vectors of lanes, zeroed) and opens the reduction's loops ic,
 * ky (with the input row iy) and kx, to close back to rop. */
typedef struct {
	PExpr *g[4], *oc0, *ox0, *start, *cstart, *gbase, *ic, *ky, *iy, *kx;
	PVar *acc;
	int close, rop;
} ConvLoops;

static void
conv_open_grid(GroupCx *c, const ConvNchw *cv, int64_t RC, int64_t RX, bool shifted, bool cshifted,
               ConvLoops *t)
{
	PBuild *b = c->b;
	int64_t groups = cv->ca->groups;
	int64_t grid[4] = {cv->N, (cv->O + RC - 1) / RC, cv->OH, (cv->OW + RX - 1) / RX};
	t->close = pb_depth(b);
	lower_open_nest(c, grid, 4, t->g, false);
	t->oc0 = tile_start(b, "oc", pe_mul(b, t->g[1], pe_i32(b, RC)), cv->O - RC, cshifted, &t->cstart);
	t->ox0 = tile_start(b, "ox", pe_mul(b, t->g[3], pe_i32(b, RX)), cv->OW - RX, shifted, &t->start);
	PExpr *first = pe_mul(b, pe_div(b, t->oc0, pe_i32(b, cv->O / groups)), pe_i32(b, cv->I));
	t->gbase = groups == 1 ? pe_i32(b, 0) : pb_let(b, "g", first);
}

static void
conv_open_reduction(GroupCx *c, const ConvNchw *cv, int64_t rows, int64_t lanes, ConvLoops *t)
{
	PBuild *b = c->b;
	const int64_t *st = cv->ca->st, *dil = cv->ca->dil;
	t->acc = zeroed_rows(c, cv->kk, rows, lanes);
	t->rop = pb_depth(b);
	t->ic = serial(c, "r", cv->I);
	t->ky = serial(c, "r", cv->KH);
	t->iy = pb_let(b, "y", pe_add(b, pe_mul(b, t->g[2], pe_i32(b, st[0])),
	                              pe_mul(b, t->ky, pe_i32(b, dil[0]))));
	t->kx = serial(c, "r", cv->KW);
}

/* A 1x1 conv2d, or one of few multiply-adds per output (I * KH * KW at
 * most COLS_MAX_TAPS), with stride 1 along x and 8 or 16 dividing the
 * output's width, on a cpu: a tile of RC output channels x XV
 * consecutive output columns, each accumulator a vector along x, the
 * input read as vectors of a row and each weight broadcast, the results
 * and the fused consumers stored a vector at a time.  The channel tile
 * below stores its results one by one, 16 channel planes apart, with the
 * fused consumers on each: with 16 input channels that epilogue
 * outweighed the products, and mobilenet_v2's 1x1 conv 16 -> 96 at
 * 112x112 ran at 29-42 GFLOP/s on POCL (1 thread) against 88-98 in
 * vectors along x (its 24 -> 144 at 56x56: 0.41 ms against 0.23; a 1x1
 * 96 -> 24 at 56x56 0.27 against 0.19; 64 -> 64 at 56x56 the same).
 * A 3x3 conv 64 -> 64 at 56x56 ran 1.5-2.8 times as long in vectors
 * along x, and 1x1 convs of 28 columns 1.4-2.5 times as long in vectors
 * of 4: those keep the channel tile. */
enum { COLS_MAX_TAPS = 32, COLS_RC = 8 };

static int
tile_conv2d_cols(GroupCx *c, const ConvNchw *cv, int64_t XV)
{
	const int64_t *dil = cv->ca->dil, RC = COLS_RC;
	bool hwio = cv->hwio, panel = cv->panel;
	ElemKind kk = cv->kk;
	PBuild *b = c->b;

	/* Stage 1: the input with its padding written out as zeros. */
	PVar *src = padded_input(c, cv->x, c->g->members[0]->args[0]->type, cv->ca->pad, 1, cv->global);

	/* Stage 2: the convolution, RC channels x XV columns a tile. */
	ConvLoops t;
	conv_open_grid(c, cv, RC, XV, false, false, &t);
	/* OIHW16o: the tile's RC channels within one panel of 16 */
	PExpr *pn = NULL, *pl = NULL;
	if (panel) {
		pn = pb_let(b, "pn", pe_div(b, t.oc0, pe_i32(b, 16)));
		pl = pb_let(b, "pl", pe_mod(b, t.oc0, pe_i32(b, 16)));
	}
	conv_open_reduction(c, cv, RC, XV, &t);
	PExpr *xi[4] = {t.g[0], pe_add(b, t.gbase, t.ic), t.iy,
	                pe_add(b, t.ox0, pe_mul(b, t.kx, pe_i32(b, dil[1])))};
	PExpr *xv = pb_let(b, "x", as_type(c, kk, lower_load_data(c, src, xi, (uint32_t)XV)));
	int op = pb_depth(b);
	PExpr *u = unrolled(c, "u", RC), *oc = pe_add(b, t.oc0, u);
	PExpr *wi[5] = {hwio ? t.ky : oc, hwio ? t.kx : t.ic, hwio ? t.ic : t.ky, hwio ? oc : t.kx};
	if (panel)
		wi[0] = pn, wi[1] = t.ic, wi[2] = t.ky, wi[3] = t.kx, wi[4] = pe_add(b, pl, u);
	PExpr *wv = pe_broadcast(b, (uint8_t)XV, as_type(c, kk, pe_load(b, cv->w, wi, 1)));
	PExpr *acci[2] = {u, pe_i32(b, 0)};
	pb_store(b, t.acc, acci, (uint32_t)XV,
	         lower_mac(b, pe_load(b, t.acc, acci, (uint32_t)XV), wv, xv));
	pb_close_to(b, op);
	pb_close_to(b, t.rop); /* kx, ky, ic */

	op = pb_depth(b);
	u = unrolled(c, "u", RC);
	PExpr *li[2] = {u, pe_i32(b, 0)};
	PExpr *oi[4] = {t.g[0], pe_add(b, t.oc0, u), t.g[2], t.ox0};
	bool ok = lower_store_through(c, pe_load(b, t.acc, li, (uint32_t)XV), oi, (uint32_t)XV);
	pb_close_to(b, op);
	pb_close_to(b, t.close);
	return ok ? 1 : -1;
}
static const int64_t conv_cols[] = {8, 7, 6, 5, 4, 3, 2, 1};

/* The columns of a cpu conv2d tile: of 4 to 8 (or all of OW below 8),
 * the count that loads the fewest values per input channel and tap,
 * tiles x (RX broadcast inputs + 1 weight vector), an exact divisor on
 * a tie.  Where RX does not divide OW the last tile is shifted left to
 * end at OW and stores only the columns no other tile has
 * (*shifted).  A divisor alone gave squeezenet's 13x13 convs tiles of
 * 1 column and its 55x55 ones 5: one multiply-add chain per weight
 * load (its classifier, 512 -> 1000 at 13x13, ran at 5.7 GFLOP/s on
 * POCL, 1 thread); at 13 columns 2 tiles of 7 (one column twice). */
static int64_t
conv_tile_cols(int64_t OW, bool *shifted)
{
	int64_t best = target_largest_divisor(OW, conv_cols);
	int64_t cost = OW / best * (best + 1);
	*shifted = false;
	if (OW <= conv_cols[0])
		return OW;
	for (const int64_t *rx = conv_cols; *rx >= 4; rx++) {
		int64_t n = (OW + *rx - 1) / *rx, k = n * (*rx + 1);
		if (k < cost)
			best = *rx, cost = k, *shifted = OW % *rx != 0;
	}
	return best;
}

static int
tile_conv2d(GroupCx *c)
{
	const Value *v = c->g->members[0];
	/* Measured on the H100 (64->64 channels, 56x56, 3x3, translated by
	 * hand): one element per work item, 200k items, ran at 4676 GFLOP/s;
	 * tiles of 16 channels x 8 columns at 871, 4 x 1 at 4543.  A gpu
	 * keeps the element-per-item schedule. */
	if (lower_on_gpu(c))
		return 0;
	if (v->args[0]->kind == VK_LIT || v->args[1]->kind == VK_LIT)
		return 0;
	ConvAttrs ca;
	lower_conv_attrs(v, &ca);
	/* An HWIO weight (ir-fold-constants writes constant weights so) has
	 * the output channels innermost already: no transpose stage; an
	 * OIHW16o one (so for a module of cpus only) has each tile's
	 * weights in one run too. */
	bool hwio = lower_is_layout(ca.kl, "HWIO"), panel = lower_is_layout(ca.kl, "OIHW16o");
	if (!lower_is_layout(ca.dl, "NCHW") || !(hwio || panel || lower_is_layout(ca.kl, "OIHW")) ||
	    !lower_is_layout(ca.ol, "NCHW"))
		return 0;
	ConvNchw cv;
	conv_nchw(c, &ca, &cv);
	const int64_t *st = ca.st, *dil = ca.dil, *pad = ca.pad, groups = ca.groups;
	int64_t N = cv.N, C = cv.C, H = cv.H, W = cv.W, O = cv.O, I = cv.I, KH = cv.KH, KW = cv.KW;
	int64_t OH = cv.OH, OW = cv.OW;
	int64_t V = target_largest_divisor(O / groups, conv_lanes);
	/* One group of more than 16 channels that 16 does not divide
	 * (squeezenet's classifier, 1000): 16 channels a tile all the same,
	 * the last tile shifted down to end at O, storing only the channels
	 * no other tile has. */
	bool cshifted = groups == 1 && !panel && V < 16 && O > 16;
	if (cshifted)
		V = 16;
	if (V == 1 || (panel && V != 16) || N * OH * OW * I * KH * KW == 0 ||
	    N * C * (H + pad[0] + pad[2]) * (W + pad[1] + pad[3]) > INT32_MAX)
		return 0; /* (the padded input must stay within i32 indices) */
	int64_t XV = OW % 16 == 0 ? 16 : OW % 8 == 0 ? 8 : 0;
	bool cols = XV && st[1] == 1 && ((KH == 1 && KW == 1) || I * KH * KW <= COLS_MAX_TAPS) &&
	            (O / groups) % COLS_RC == 0 && lower_consumers_lanes_ok(c, (uint32_t)XV);
	bool shifted;
	int64_t RX = conv_tile_cols(OW, &shifted);
	ElemKind kk = cv.kk;
	PBuild *b = c->b;
	cv.global = vdev_get(c->m, c->dev, sym_intern_cstr(c->m, "global"));
	cv.x = lower_input(c, 0, 0, -1)->buf, cv.w = lower_input(c, 0, 1, -1)->buf;
	if (cols)
		return tile_conv2d_cols(c, &cv, XV);

	/* Stage 1: the weight as [I,KH,KW,O]. */
	PVar *wT = cv.w;
	if (!hwio && !panel) {
		const Type *wt = v->args[1]->type;
		int64_t tdims[4] = {I, KH, KW, O};
		wT = pb_alloc(b, "wt", type_tensor(c->m, wt->dt, 4, tdims), cv.global);
		PExpr *ti[4];
		int close = pb_depth(b);
		lower_open_nest(c, tdims, 4, ti, true);
		PExpr *wsrc[4] = {ti[3], ti[0], ti[1], ti[2]};
		pb_store(b, wT, ti, 1, pe_load(b, cv.w, wsrc, 1));
		pb_close_to(b, close);
	}

	/* Stage 2: the input with its padding written out as zeros. */
	PVar *src = padded_input(c, cv.x, v->args[0]->type, pad, 1, cv.global);

	/* Stage 3: the convolution, a tile of V channels x RX columns. */
	ConvLoops t;
	conv_open_grid(c, &cv, V, RX, shifted, cshifted, &t);
	conv_open_reduction(c, &cv, RX, V, &t);
	PExpr *wi[5] = {hwio ? t.ky : t.ic, hwio ? t.kx : t.ky, hwio ? t.ic : t.kx, t.oc0};
	if (panel) /* (V is 16: the tile is panel g[1]) */
		wi[0] = t.g[1], wi[1] = t.ic, wi[2] = t.ky, wi[3] = t.kx, wi[4] = pe_i32(b, 0);
	PExpr *chan = pe_add(b, t.gbase, t.ic);
	PExpr *si[4] = {t.g[0], chan, t.iy, t.kx};
	PExpr *wv = pb_let(b, "w", scaled_weight(c, src, as_type(c, kk, pe_load(b, wT, wi, (uint32_t)V)), si));
	int op = pb_depth(b);
	PExpr *q = unrolled(c, "u", RX);
	PExpr *ix = pe_add(b, pe_mul(b, pe_add(b, t.ox0, q), pe_i32(b, st[1])),
	                   pe_mul(b, t.kx, pe_i32(b, dil[1])));
	PExpr *xi[4] = {t.g[0], chan, t.iy, ix};
	PExpr *xv = pe_broadcast(b, (uint8_t)V, as_type(c, kk, pe_load(b, src, xi, 1)));
	PExpr *acci[2] = {q, pe_i32(b, 0)};
	pb_store(b, t.acc, acci, (uint32_t)V, lower_mac(b, pe_load(b, t.acc, acci, (uint32_t)V), xv, wv));
	pb_close_to(b, op);
	pb_close_to(b, t.rop); /* kx, ky, ic */

	op = pb_depth(b);
	q = unrolled(c, "u", RX);
	/* (a shifted tile's columns left of its own start are another's) */
	if (shifted)
		pb_if(b, pe_bin(b, OP_GE, pe_add(b, t.ox0, q), t.start));
	PExpr *l = unrolled(c, "u", V);
	if (cshifted)
		pb_if(b, pe_bin(b, OP_GE, pe_add(b, t.oc0, l), t.cstart));
	PExpr *li[2] = {q, l};
	PExpr *oi[4] = {t.g[0], pe_add(b, t.oc0, l), t.g[2], pe_add(b, t.ox0, q)};
	bool ok = lower_store_through(c, pe_load(b, t.acc, li, 1), oi, 1);
	pb_close_to(b, op);
	pb_close_to(b, t.close);
	return ok ? 1 : -1;
}

/* A packed tile's end: acc [RX,16] holds 4 output texels (ot0 .. ot0+3)
 * of RX columns from ox0 of row g[2]; each texel is stored through the
 * fused consumers, 4 lanes at a time (the columns before start and the
 * texels before tstart, when not NULL, are another tile's: a shifted
 * tile's).  Where the consumers allow (lower_consumers_wide_ok), they
 * run on a column's 4 texels as one 16-lane vector instead:
 * efficientnet_b0's SiLU (x * sigmoid(x)) after its 1x1 convolutions
 * took most of their time in 4-lane exp. */
static bool
store_texel_rows(GroupCx *c, PVar *acc, int64_t RX, PExpr *const *g, PExpr *ot0, PExpr *ox0, PExpr *start,
                 PExpr *tstart)
{
	PBuild *b = c->b;
	bool ok = true;
	if (lower_consumers_wide_ok(c)) {
		int op = pb_depth(b);
		PExpr *q = unrolled(c, "u", RX);
		if (start)
			pb_if(b, pe_bin(b, OP_GE, pe_add(b, ox0, q), start));
		PExpr *li[2] = {q, pe_i32(b, 0)};
		PExpr *oi[5] = {g[0], ot0, g[2], pe_add(b, ox0, q), pe_i32(b, 0)};
		ok = lower_store_wide(c, pe_load(b, acc, li, 16), oi, 4, tstart);
		pb_close_to(b, op);
		return ok;
	}
	for (int j = 0; j < 4 && ok; j++) {
		int op = pb_depth(b);
		if (tstart)
			pb_if(b, pe_bin(b, OP_GE, pe_add(b, ot0, pe_i32(b, j)), tstart));
		PExpr *q = unrolled(c, "u", RX);
		if (start)
			pb_if(b, pe_bin(b, OP_GE, pe_add(b, ox0, q), start));
		PExpr *li[2] = {q, pe_i32(b, 4 * j)};
		PExpr *oi[5] = {g[0], pe_add(b, ot0, pe_i32(b, j)), g[2], pe_add(b, ox0, q), pe_i32(b, 0)};
		ok = lower_store_through(c, pe_load(b, acc, li, 4), oi, 4);
		pb_close_to(b, op);
	}
	return ok;
}

/* Packed conv2d on a cpu, with 4 output texels (16 channels) of one group:
 * a tile of 16 channels x RX columns, as tile_conv2d.  The input is
 * first written out padded (a kernel of its own); per input texel and
 * kernel tap, the 16 weights of each of its 4 channels are gathered from
 * 4 weight texels into one vector, and each input channel is read as a
 * scalar and broadcast over them: 16-lane multiply-adds and broadcasts
 * from memory, where the texel-per-column tile below does 4-lane ones
 * and takes the channels out of a texel.  Translated by hand, on POCL
 * here (1 thread, 64->64 channels 56x56 3x3): 1.42 ms against 7.3 for
 * that tile (3.7 with 16 lanes but the texel tile's clamped reads and
 * lane(); 2.4 with the input padded too).  The columns as tile_conv2d's
 * (conv_tile_cols, the last tile shifted): an exact divisor gave
 * squeezenet1_1's 13, 27 and 55 columns tiles of 1, 3 and 5. */
static int
tile_conv2d_packed_cpu(GroupCx *c, const ConvAttrs *ca)
{
	const Value *v = c->g->members[0];
	const int64_t *st = ca->st, *dil = ca->dil, *pad = ca->pad, groups = ca->groups;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	int64_t N = xt->dims[0], CB = xt->dims[1], H = xt->dims[2], W = xt->dims[3];
	int64_t O = wt->dims[0] * 4, I = wt->dims[1], KH = wt->dims[2], KW = wt->dims[3];
	int64_t OH = ot->dims[2], OW = ot->dims[3];
	int64_t HP = H + pad[0] + pad[2], WP = W + pad[1] + pad[3];
	/* One group of more than 16 channels that 16 does not divide
	 * (squeezenet1_1's classifier, 1000: an item per texel took 64% of
	 * its time packed): 4 texels a tile all the same, the last tile
	 * shifted down to end at O, storing only the texels no other tile
	 * has. */
	bool cshifted = groups == 1 && O % 16 != 0 && O > 16;
	if (((O / groups) % 16 != 0 && !cshifted) || N * CB * HP * WP * 4 > INT32_MAX)
		return 0;
	bool shifted;
	int64_t RX = conv_tile_cols(OW, &shifted);
	ElemKind kk = (ElemKind)ot->dt.kind;
	PBuild *b = c->b;
	const VDev *global = vdev_get(c->m, c->dev, sym_intern_cstr(c->m, "global"));
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;

	/* Stage 1: the input with its padding written out as zeros. */
	PVar *src = padded_input(c, x, xt, pad, 4, global);

	/* Stage 2: the convolution, a tile of 4 output texels x RX columns. */
	int64_t grid[4] = {N, (O + 15) / 16, OH, (OW + RX - 1) / RX};
	PExpr *g[4], *start, *tstart;
	int close = pb_depth(b);
	lower_open_nest(c, grid, 4, g, false);
	PExpr *ot0 = tile_start(b, "o", pe_mul(b, g[1], pe_i32(b, 4)), O / 4 - 4, cshifted, &tstart);
	PExpr *ox0 = tile_start(b, "ox", pe_mul(b, g[3], pe_i32(b, RX)), OW - RX, shifted, &start);
	/* the first input texel of the output channels' group */
	PExpr *gbase = groups == 1 ? pe_i32(b, 0)
	             : pb_let(b, "g", pe_mul(b, pe_div(b, ot0, pe_i32(b, O / groups / 4)), pe_i32(b, I / 4)));
	PVar *acc = zeroed_rows(c, kk, RX, 16);
	int rop = pb_depth(b);
	PExpr *icb = serial(c, "r", I / 4);
	PExpr *ky = serial(c, "r", KH);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_mul(b, g[2], pe_i32(b, st[0])), pe_mul(b, ky, pe_i32(b, dil[0]))));
	PExpr *kx = serial(c, "r", KW);
	/* the weights of input channel icb*4+i for the 16 output channels */
	int64_t wdims[2] = {4, 16};
	PVar *wl = pb_alloc(b, "wg", type_tensor(c->m, (DType){kk, 1}, 2, wdims), c->local);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			PExpr *wi[5] = {pe_add(b, ot0, pe_i32(b, j)), pe_add(b, pe_mul(b, icb, pe_i32(b, 4)), pe_i32(b, i)),
			                ky, kx, pe_i32(b, 0)};
			PExpr *li[2] = {pe_i32(b, i), pe_i32(b, 4 * j)};
			pb_store(b, wl, li, 4, as_type(c, kk, pe_load(b, w, wi, 4)));
		}
	PExpr *wv[4];
	for (int i = 0; i < 4; i++) {
		PExpr *li[2] = {pe_i32(b, i), pe_i32(b, 0)};
		PExpr *si[5] = {g[0], pe_add(b, gbase, icb), iy, kx, pe_i32(b, i)};
		wv[i] = pb_let(b, "w", scaled_weight(c, src, pe_load(b, wl, li, 16), si));
	}
	int op = pb_depth(b);
	PExpr *q = unrolled(c, "u", RX);
	PExpr *ix = pb_let(b, "x", pe_add(b, pe_mul(b, pe_add(b, ox0, q), pe_i32(b, st[1])),
	                                  pe_mul(b, kx, pe_i32(b, dil[1]))));
	PExpr *acci[2] = {q, pe_i32(b, 0)};
	PExpr *sum = pe_load(b, acc, acci, 16);
	for (int i = 0; i < 4; i++) {
		PExpr *xi[5] = {g[0], pe_add(b, gbase, icb), iy, ix, pe_i32(b, i)};
		sum = lower_mac(c->b, sum, pe_broadcast(b, 16, as_type(c, kk, pe_load(b, src, xi, 1))), wv[i]);
	}
	pb_store(b, acc, acci, 16, sum);
	pb_close_to(b, op);
	pb_close_to(b, rop); /* kx, ky, icb */

	bool ok = store_texel_rows(c, acc, RX, g, ot0, ox0, start, tstart);
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* An NCHW input into a packed result (OIHW4o weight, NCHW4c output) on a
 * cpu: a model's first convolution once ir-alter-layout packs the rest,
 * its 3 input channels no texel.  A tile of 4 output texels (16
 * channels) x RX columns as tile_conv2d's, the input written out padded
 * first; per input channel and tap the 4 weight texels are gathered into
 * one 16-lane vector and each input element broadcast over it; the
 * results are stored a texel at a time.  One texel per work item, 27
 * scalar multiply-adds each, ran efficientnet_b0's 3 -> 32 stride 2 at
 * 224x224 at 8 GFLOP/s on POCL (1 thread, 2.6 ms of its 24). */
static int
tile_conv2d_into_packed_cpu(GroupCx *c, const ConvAttrs *ca)
{
	const Value *v = c->g->members[0];
	const int64_t *st = ca->st, *dil = ca->dil, *pad = ca->pad;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	int64_t N = xt->dims[0], C = xt->dims[1], H = xt->dims[2], W = xt->dims[3];
	int64_t O = wt->dims[0] * 4, I = wt->dims[1], KH = wt->dims[2], KW = wt->dims[3];
	int64_t OH = ot->dims[2], OW = ot->dims[3];
	if (ca->groups != 1 || O % 16 != 0 || I != C || N * OH * OW * I * KH * KW == 0 ||
	    N * C * (H + pad[0] + pad[2]) * (W + pad[1] + pad[3]) > INT32_MAX)
		return 0;
	bool shifted;
	int64_t RX = conv_tile_cols(OW, &shifted);
	ElemKind kk = (ElemKind)ot->dt.kind;
	PBuild *b = c->b;
	const VDev *global = vdev_get(c->m, c->dev, sym_intern_cstr(c->m, "global"));
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;

	/* Stage 1: the input with its padding written out as zeros. */
	PVar *src = padded_input(c, x, xt, pad, 1, global);

	/* Stage 2: the convolution, 4 output texels x RX columns a tile. */
	int64_t grid[4] = {N, O / 16, OH, (OW + RX - 1) / RX};
	PExpr *g[4];
	int close = pb_depth(b);
	lower_open_nest(c, grid, 4, g, false);
	PExpr *ot0 = pb_let(b, "o", pe_mul(b, g[1], pe_i32(b, 4)));
	PExpr *ox0 = pe_mul(b, g[3], pe_i32(b, RX)), *start = NULL;
	if (shifted) /* the last tile ends at OW */
		start = pb_let(b, "ox", ox0), ox0 = pe_call2(b, I_MIN, start, pe_i32(b, OW - RX));
	ox0 = pb_let(b, "ox", ox0);
	PVar *acc = zeroed_rows(c, kk, RX, 16);
	int rop = pb_depth(b);
	PExpr *ic = serial(c, "r", I);
	PExpr *ky = serial(c, "r", KH);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_mul(b, g[2], pe_i32(b, st[0])), pe_mul(b, ky, pe_i32(b, dil[0]))));
	PExpr *kx = serial(c, "r", KW);
	int64_t wn = 16;
	PVar *wl = pb_alloc(b, "wg", type_tensor(c->m, (DType){kk, 1}, 1, &wn), c->local);
	for (int j = 0; j < 4; j++) {
		PExpr *wi[5] = {pe_add(b, ot0, pe_i32(b, j)), ic, ky, kx, pe_i32(b, 0)};
		PExpr *li = pe_i32(b, 4 * j);
		pb_store(b, wl, &li, 4, as_type(c, kk, pe_load(b, w, wi, 4)));
	}
	PExpr *zero = pe_i32(b, 0);
	PExpr *si[4] = {g[0], ic, iy, kx};
	PExpr *wv = pb_let(b, "w", scaled_weight(c, src, pe_load(b, wl, &zero, 16), si));
	int op = pb_depth(b);
	PExpr *q = unrolled(c, "u", RX);
	PExpr *ix = pe_add(b, pe_mul(b, pe_add(b, ox0, q), pe_i32(b, st[1])), pe_mul(b, kx, pe_i32(b, dil[1])));
	PExpr *xi[4] = {g[0], ic, iy, ix};
	PExpr *acci[2] = {q, pe_i32(b, 0)};
	pb_store(b, acc, acci, 16,
	         lower_mac(c->b, pe_load(b, acc, acci, 16), pe_broadcast(b, 16, as_type(c, kk, pe_load(b, src, xi, 1))), wv));
	pb_close_to(b, op);
	pb_close_to(b, rop); /* kx, ky, ic */

	bool ok = store_texel_rows(c, acc, RX, g, ot0, ox0, start, NULL);
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* Packed conv2d (NCHW4c input and output, OIHW4o weight): a tile of one
 * output texel (4 channels) by RX columns.  Per input texel and kernel
 * tap, the 4 weight texels of its channels are read once for the whole
 * tile, and each input texel once for its 4 multiply-adds, its channels
 * taken one by one with lane(): 4 + RX texel reads for 4 * RX vector
 * multiply-adds, against 2 reads for one in the texel-per-item schedule.
 * Padding reads a clamped texel and selects zero, so that control flow
 * stays uniform across work items. */
static int
tile_conv2d_packed(GroupCx *c)
{
	const Value *v = c->g->members[0];
	if (v->args[0]->kind == VK_LIT || v->args[1]->kind == VK_LIT)
		return 0;
	ConvAttrs ca;
	lower_conv_attrs(v, &ca);
	if (!lower_on_gpu(c) && lower_is_layout(ca.dl, "NCHW") && lower_is_layout(ca.kl, "OIHW4o") &&
	    lower_is_layout(ca.ol, "NCHW4c") && lower_group_lanes(c) == 4)
		return tile_conv2d_into_packed_cpu(c, &ca);
	if (!lower_is_layout(ca.dl, "NCHW4c") || !lower_is_layout(ca.kl, "OIHW4o") ||
	    !lower_is_layout(ca.ol, "NCHW4c"))
		return 0;
	const int64_t *st = ca.st, *dil = ca.dil, *pad = ca.pad, groups = ca.groups;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	int64_t N = xt->dims[0], H = xt->dims[2], W = xt->dims[3];
	int64_t O = wt->dims[0] * 4, I = wt->dims[1], KH = wt->dims[2], KW = wt->dims[3];
	int64_t OH = ot->dims[2], OW = ot->dims[3];
	/* Whole texels of input channels per group, and the 4 lanes of the
	 * output within one group. */
	if (I % 4 != 0 || (O / groups) % 4 != 0 || N * OH * OW * I * KH * KW == 0 ||
	    lower_group_lanes(c) != 4)
		return 0;
	if (!lower_on_gpu(c)) {
		int r = tile_conv2d_packed_cpu(c, &ca);
		if (r)
			return r;
	}
	/* One column on a gpu: the reuse of the weight texels across a
	 * tile did not pay for the parallelism it took on the H100 (see
	 * tile_conv2d); the lane() reuse of the input texel stays. */
	int64_t RX = lower_on_gpu(c) ? 1 : target_largest_divisor(OW, conv_cols);
	ElemKind kk = (ElemKind)ot->dt.kind;
	PBuild *b = c->b;
	PVar *x = lower_input(c, 0, 0, -1)->buf, *w = lower_input(c, 0, 1, -1)->buf;

	int64_t grid[5] = {N, O / 4, OH, OW / RX, 1};
	PExpr *g[5];
	int close = pb_depth(b);
	lower_open_nest(c, grid, 5, g, false);
	PExpr *ox0 = pb_let(b, "ox", pe_mul(b, g[3], pe_i32(b, RX)));
	/* the first input texel of the output channels' group */
	PExpr *gbase = groups == 1 ? pe_i32(b, 0)
	             : pb_let(b, "g", pe_mul(b, pe_div(b, g[1], pe_i32(b, O / groups / 4)), pe_i32(b, I / 4)));
	PVar *acc = zeroed_rows(c, kk, RX, 4);
	int rop = pb_depth(b);
	PExpr *icb = serial(c, "r", I / 4);
	PExpr *ky = serial(c, "r", KH);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, g[2], pe_i32(b, st[0])), pe_i32(b, pad[0])),
	                                  pe_mul(b, ky, pe_i32(b, dil[0]))));
	PExpr *kx = serial(c, "r", KW);
	PExpr *wv[4];
	for (int i = 0; i < 4; i++) {
		PExpr *wi[5] = {g[1], pe_add(b, pe_mul(b, icb, pe_i32(b, 4)), pe_i32(b, i)), ky, kx,
		                pe_i32(b, 0)};
		wv[i] = pb_let(b, "w", as_type(c, kk, pe_load(b, w, wi, 4)));
	}
	int op = pb_depth(b);
	PExpr *q = unrolled(c, "u", RX);
	PExpr *ix = pb_let(b, "x", pe_add(b, pe_sub(b, pe_mul(b, pe_add(b, ox0, q), pe_i32(b, st[1])),
	                                             pe_i32(b, pad[1])),
	                                  pe_mul(b, kx, pe_i32(b, dil[1]))));
	bool padded = pad[0] || pad[1] || pad[2] || pad[3];
	PExpr *yy = iy, *xx = ix;
	if (padded) {
		yy = pe_call2(b, I_MIN, pe_call2(b, I_MAX, iy, pe_i32(b, 0)), pe_i32(b, H - 1));
		xx = pe_call2(b, I_MIN, pe_call2(b, I_MAX, ix, pe_i32(b, 0)), pe_i32(b, W - 1));
	}
	PExpr *xi[5] = {g[0], pe_add(b, gbase, icb), yy, xx, pe_i32(b, 0)};
	PExpr *texel = as_type(c, kk, lower_load_data(c, x, xi, 4));
	if (padded) {
		PExpr *inside = lower_inside(b, iy, ix, 0, H, 0, W);
		texel = pe_select(b, inside, texel, pe_like(b, texel, 0));
	}
	texel = pb_let(b, "t", texel);
	PExpr *acci[2] = {q, pe_i32(b, 0)};
	PExpr *sum = pe_load(b, acc, acci, 4);
	for (int i = 0; i < 4; i++) {
		sum = lower_mac(c->b, sum, pe_broadcast(b, 4, pe_lane(b, texel, (uint32_t)i)), wv[i]);
	}
	pb_store(b, acc, acci, 4, sum);
	pb_close_to(b, op);
	pb_close_to(b, rop); /* kx, ky, icb */

	op = pb_depth(b);
	q = unrolled(c, "u", RX);
	PExpr *li[2] = {q, pe_i32(b, 0)};
	PExpr *oi[5] = {g[0], g[1], g[2], pe_add(b, ox0, q), pe_i32(b, 0)};
	bool ok = lower_store_through(c, pe_load(b, acc, li, 4), oi, 4);
	pb_close_to(b, op);
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

int
lower_tiled(GroupCx *c)
{
	switch (c->g->members[0]->u.op->op->id) {
	case O_DENSE:
		return lower_on_gpu(c) ? tile_matmul(c, false) : tile_matmul_cpu(c, false);
	case O_BATCH_MATMUL:
		return lower_on_gpu(c) ? tile_matmul(c, true) : tile_matmul_cpu(c, true);
	case O_CONV2D: {
		int r = tile_conv2d_packed(c);
		return r ? r : tile_conv2d(c);
	}
	default:                /* no tiled schedule */
		return 0;
	}
}
