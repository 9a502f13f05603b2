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
 * along k (a dense's packed weight [N/P,K,P] along n).  conv2d (NCHW, OIHW, one group) as an implicit product: A is
 * the weight [O, I*KH*KW] and B the input's windows, n running over the
 * output's (image, row, column) and k over (channel, ky, kx), read
 * straight from the input with the padding selected to zero (no im2col
 * buffer); n consecutive along the output's columns, so B's loads walk
 * n.
 *
 * A packed conv2d (NCHW4c, OIHW4o, NCHW4c) is the same product, its
 * tensors images on a texture device (or buffers), which are read and
 * written in texels of 4 channels:
 *   - k runs over (channel / 4, ky, kx, channel % 4), so that 4
 *     consecutive k are one texel of the input at one n; 4 consecutive m
 *     are one texel of the weight (its 4o) at one k.  The tiles are
 *     loaded a texel at a time (one read_imagef, or one 16-byte load,
 *     for 4 elements of shared memory) instead of one lane per load.
 *   - an image is written whole texels at a time (write_imagef), so each
 *     work item owns whole output texels: its TM rows (4 or 8) are runs
 *     of 4 consecutive m (4 ty.. 4 ty + 3, then 4 TY further), kept as
 *     [TN, TM] accumulators, and each run is stored as one texel with
 *     the fused consumers (bias, residual add, relu) computed on its 4
 *     lanes.  Staging the block of results through shared memory after
 *     the k loop would do as well for the store but cost a barrier and
 *     BM x BN words of shared memory; owning texels costs nothing: the
 *     16 items of a half-warp share ty, so their reads of the A tile are
 *     one broadcast word either way.
 *   - the work group is TY x TX = 256 items with TY = 16, 8 or 4, as M
 *     allows (32 output channels are 8 rows of items owning 4 each), and
 *     TN goes down to 1 while the grid is short of work groups; then TY
 *     is halved while the block is taller than wide.
 * On the H100 (bench/h100.md, "Textures in the shared-memory product")
 * conv2d 8x256x56x56 ran at the same speed on images as on buffers, and
 * 1.2x faster than the element-wise tile loads and stores before.
 *
 * It applies when the sizes divide into tiles (M and N into 32, K into
 * 8; packed, M into 16 and N into 256 / TY), and ragged (the last
 * tiles clamped) to an unpacked conv2d, dense and batch_matmul of at
 * least 16 rows and columns: vit_b_16's 197 tokens left its dense to
 * lower_tile.c's register tiles at 0.3 TFLOP/s on the H100 (110 ms a
 * run, 5.4 ms ragged; bench/h100.md).  The tiles shrink from 128x128 while the grid has fewer than
 * MIN_BLOCKS work groups, so that a small product still fills the
 * device's multiprocessors (132 on an H100, two work groups each).
 */
#include <stdint.h>
#include <string.h>

#include "gbuild.h"
#include "layout.h"
#include "lower_impl.h"
#include "ops/ops.h"

enum { T16 = 16, THREADS = T16 * T16, MIN_BLOCKS = 264 };

typedef struct Gemm Gemm;
struct Gemm {
	int64_t B, M, N, K;
	bool a_kfast, b_kfast;     /* the tile loads walk k fastest, else m / n */
	/* M, N and K need not divide into the tiles (an unpacked conv2d):
	 * the last tiles' loads are clamped into the operands, k past K
	 * reads zero, and the stores past M or N are skipped */
	bool ragged_ok;
	ElemKind kk;               /* the accumulator's kind */
	PExpr *(*load_a)(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *k);
	PExpr *(*load_b)(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k);
	/* val at (m, n); with lanes 4 (packed), m is the texel of 4 rows */
	bool (*store)(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *n, PExpr *val,
	              uint32_t lanes);
	/* the operands */
	PVar *x, *w;
	MatmulShape mm;            /* dense, batch_matmul */
	bool matmul;               /* a dense or batch_matmul (grid_goal, min_slice) */
	/* conv2d */
	ConvAttrs ca;
	bool packed;               /* NCHW4c data and result, OIHW4o weight */
	bool hwio;                 /* an HWIO weight (A is read along m) */
	int64_t C, H, W, KH, KW, OH, OW;
	/* packed: whole texels, k ordered (channel / 4, ky, kx, channel % 4) */
	PExpr *(*texel_a)(GroupCx *c, const Gemm *g, PExpr *mt, PExpr *k); /* m = 4 mt.. 4 mt + 3 */
	PExpr *(*texel_b)(GroupCx *c, const Gemm *g, PExpr *n, PExpr *k);  /* k = k.. k + 3 */
};

/* The tile shape: TM x TN register tiles, k steps of BK, TY x TX work
 * items (TY * TX = THREADS). */
typedef struct {
	int64_t TM, TN, BK, TY, TX;
	bool rm, rn, rk;           /* M, N, K do not divide into the blocks */
	int64_t S;                 /* k split into S slices (blockIdx.z) */
} Tiles;

static int64_t
ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

static PExpr *
as_kind(GroupCx *c, ElemKind k, PExpr *e)
{
	return pe_cast(c->b, (DType){k, 1}, e);
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
	return lower_loop(b, "u", n, FK_UNROLLED);
}

/* The register tile's side: the largest of 8, 4, 2 (down to lo) with n a
 * multiple of `items` of it; 0 if none. */
static int64_t
tile_side(int64_t n, int64_t items, int64_t lo)
{
	for (int64_t t = 8; t >= lo; t /= 2)
		if (n % (items * t) == 0)
			return t;
	return 0;
}

/* Opens the loop over a work item's elements of one operand's k tile
 * (R rows by BK, THREADS elements at a time, consecutive items walking k
 * when kfast, else the rows): *l the element, *r its row, *kk its k. */
static void
tile_elements(PBuild *b, bool kfast, int64_t R, int64_t BK, PExpr *tid, PExpr **l, PExpr **r,
              PExpr **kk)
{
	*l = unrolled(b, R * BK / THREADS);
	PExpr *e = pb_let(b, "e", pe_add(b, pe_mul(b, *l, pe_i32(b, THREADS)), tid));
	if (kfast) {
		*kk = pb_let(b, "kk", pe_mod(b, e, pe_i32(b, BK)));
		*r = pb_let(b, "r", pe_div(b, e, pe_i32(b, BK)));
	} else {
		*r = pb_let(b, "r", pe_mod(b, e, pe_i32(b, R)));
		*kk = pb_let(b, "kk", pe_div(b, e, pe_i32(b, R)));
	}
}

/* One operand's k tile into shared memory: sh[kk, r] = load(r0 + r,
 * k0 + kk) for r < R, kk < BK, THREADS elements at a time; with reg, a
 * work item's elements into its registers instead (reg[l], l < R * BK /
 * THREADS), for put_tile to store a step later.  Ragged (t->rm, rn,
 * rk): a row past the operand's last reads the last (its results are
 * not stored), and k past K reads zero in both operands (an inf or nan
 * there would otherwise reach the sum), from a clamped k so that the
 * load stays in bounds. */
static void
load_tile(GroupCx *c, const Gemm *g, const Tiles *t, bool is_a, PVar *sh, PVar *reg, int64_t R,
          int64_t BK, PExpr *tid, PExpr *bt, PExpr *r0, PExpr *k0)
{
	PBuild *b = c->b;
	int op = pb_depth(b);
	PExpr *l, *r, *kk;
	tile_elements(b, is_a ? g->a_kfast : g->b_kfast, R, BK, tid, &l, &r, &kk);
	PExpr *row = pe_add(b, r0, r), *k = pe_add(b, k0, kk);
	int64_t rows = is_a ? g->M : g->N;
	if (is_a ? t->rm : t->rn)
		row = pe_call2(b, I_MIN, row, pe_i32(b, rows - 1));
	PExpr *kin = NULL;
	if (t->rk) {
		k = pb_let(b, "k", k);
		kin = pe_bin(b, OP_LT, k, pe_i32(b, g->K));
		k = pb_let(b, "k", pe_call2(b, I_MIN, k, pe_i32(b, g->K - 1)));
	}
	PExpr *v = is_a ? g->load_a(c, g, bt, row, k) : g->load_b(c, g, bt, row, k);
	if (kin)
		v = pe_select(b, kin, v, pe_like(b, v, 0));
	PExpr *si[2] = {kk, r};
	if (reg)
		pb_store(b, reg, &l, 1, as_kind(c, g->kk, v));
	else
		pb_store(b, sh, si, 1, as_kind(c, g->kk, v));
	pb_close_to(b, op);
}

/* The registers load_tile filled into the operand's tile in shared
 * memory, each element where load_tile would have stored it. */
static void
put_tile(GroupCx *c, const Gemm *g, bool is_a, PVar *sh, PVar *reg, int64_t R, int64_t BK,
         PExpr *tid)
{
	PBuild *b = c->b;
	int op = pb_depth(b);
	PExpr *l, *r, *kk;
	tile_elements(b, is_a ? g->a_kfast : g->b_kfast, R, BK, tid, &l, &r, &kk);
	PExpr *si[2] = {kk, r};
	pb_store(b, sh, si, 1, pe_load(b, reg, &l, 1));
	pb_close_to(b, op);
}

/* A packed operand's k tile into shared memory a texel at a time (one
 * image read, or one 16-byte load, for 4 elements): A's texels are 4
 * consecutive m (the weight's 4o) at one k, B's 4 consecutive k (the
 * input's 4c, k being ordered (channel / 4, ky, kx, channel % 4)) at one
 * n.  Consecutive items walk A's k (rows of the A tile are a word longer
 * than a multiple of 32, so that their stores land in different banks)
 * and B's n (consecutive texels of a row of the input).  A's r0 counts
 * texels (m / 4), B's elements. */
static void
load_tile_texels(GroupCx *c, const Gemm *g, bool is_a, PVar *sh, int64_t R, int64_t BK,
                 PExpr *tid, PExpr *r0, PExpr *k0)
{
	PBuild *b = c->b;
	int64_t units = R * BK / 4;
	int op = pb_depth(b);
	PExpr *l = unrolled(b, (units + THREADS - 1) / THREADS);
	PExpr *e = pb_let(b, "e", pe_add(b, pe_mul(b, l, pe_i32(b, THREADS)), tid));
	if (units % THREADS)
		pb_if(b, pe_bin(b, OP_LT, e, pe_i32(b, units)));
	PExpr *t, *si[2];
	if (is_a) {
		PExpr *kk = pb_let(b, "kk", pe_mod(b, e, pe_i32(b, BK)));
		PExpr *r = pb_let(b, "r", pe_div(b, e, pe_i32(b, BK)));
		t = pb_let(b, "t", g->texel_a(c, g, pe_add(b, r0, r), pe_add(b, k0, kk)));
		for (uint32_t q = 0; q < 4; q++) {
			si[0] = kk, si[1] = pe_add(b, pe_mul(b, r, pe_i32(b, 4)), pe_i32(b, q));
			pb_store(b, sh, si, 1, as_kind(c, g->kk, pe_lane(b, t, q)));
		}
	} else {
		PExpr *r = pb_let(b, "r", pe_mod(b, e, pe_i32(b, R)));
		PExpr *kk = pb_let(b, "kk", pe_mul(b, pe_div(b, e, pe_i32(b, R)), pe_i32(b, 4)));
		t = pb_let(b, "t", g->texel_b(c, g, pe_add(b, r0, r), pe_add(b, k0, kk)));
		for (uint32_t q = 0; q < 4; q++) {
			si[0] = pe_add(b, kk, pe_i32(b, q)), si[1] = r;
			pb_store(b, sh, si, 1, as_kind(c, g->kk, pe_lane(b, t, q)));
		}
	}
	pb_close_to(b, op);
}

/* A dense or batch_matmul splits k into slices as short as
 * MIN_SLICE_MM steps and stops splitting, and shrinking its tiles, at
 * MIN_BLOCKS_MM work groups (a power of two: S doubles, and 128 tiles
 * split in 2 are 256 groups, which MIN_BLOCKS would double again).  On
 * the H100 (bench/h100.md, "Split k of products"), each product alone:
 * an encoder's FFN 1024x2048x512 85.5 -> 77.6 us (2 slices, not 4),
 * 1024x512x2048 86.7 -> 76.7 (8, not 16), 1024x512x512 34.2 -> 29.7
 * (8 slices of 4 steps of 8x8 tiles, not 4 of 4x4), the batch-1
 * encoder's 128x2048x512 24.6 -> 20.5, vit_b_16's 197x768x768 26.8 ->
 * ~23.  A conv2d keeps MIN_BLOCKS and MIN_SLICE: its loads gather a
 * patch each, and the same rule made resnet18 5-7% slower there. */
enum { MIN_BLOCKS_MM = 256, MIN_SLICE_MM = 2 };

static int64_t
grid_goal(const Gemm *g)
{
	return g->matmul ? MIN_BLOCKS_MM : MIN_BLOCKS;
}

/* Halves TM or TN, the larger first, down to lo, while the grid (k in
 * S slices) has fewer than goal work groups. */
static void
shrink_tiles(const Gemm *g, int64_t *TM, int64_t *TN, int64_t S, int64_t lo, int64_t goal)
{
	while (g->B * S * ceil_div(g->M, T16 * *TM) * ceil_div(g->N, T16 * *TN) < goal) {
		if (*TN >= *TM && *TN > lo)
			*TN /= 2;
		else if (*TM > lo)
			*TM /= 2;
		else
			break;
	}
}

/* The tiles of a product whose sizes need not divide into them: 16 x 16
 * work items, TM and TN the smallest of 8, 4, 2, 1 whose block still
 * covers M (N) in as few blocks as 8 would; k steps of 16 (of 8 when K
 * is a multiple of 8 but not of 16 and the tiles are 2 or more, so that
 * each item loads whole elements of both tiles).  A grid short of
 * MIN_BLOCKS work groups first splits k into S slices of at least
 * MIN_SLICE steps, each a work group, as long as S divides the steps;
 * only then do the tiles shrink, down to 1, the larger first.  Splitting
 * before shrinking keeps an item's 8x8 tile, 4 products for each value
 * it loads from local memory where a 2x2 tile does 1: on the H100
 * (bench/h100.md) vit_b_16's 197-token products went from 7-13 to 17-22
 * TFLOP/s and its kernels from 5.43 to 3.72 ms a run; densenet121 2.87
 * -> 2.81, squeezenet1_1 0.374 -> 0.360, the other four within noise. */
enum { MIN_SLICE = 8, MAX_SPLIT = 16 };

/* The last work group of a tile adds S * TM * TN values an item, alone
 * while the other groups are done: fused only up to MAX_LAST_ADDS of
 * them.  On the H100 (bench/h100.md) the fused form saved the second
 * kernel's launch on the convolutions of squeezenet1_1, resnet18,
 * densenet121 and googlenet (at most 16 slices of 2x2 tiles: 64 adds),
 * and lost 14-18 us a product on vit_b_16's and an encoder's (512 and
 * 1024 adds: one group reading 16 slices of a 128x64 tile). */
enum { MAX_LAST_ADDS = 64 };

/* A product double-buffers its tiles when each slice has at least this
 * many steps of k (build_gemm). */
enum { DB_MIN_STEPS = 8 };

/* The slices k is split into (blockIdx.z) while the grid of TM x TN
 * tiles has fewer than grid_goal work groups: powers of two of at least
 * MIN_SLICE (MIN_SLICE_MM) steps of BK each that divide the steps; only
 * one product at a time (g->B == 1: blockIdx.z is the batch otherwise).
 * *goal: the work groups the tiles then shrink to reach (grid_goal, or
 * fewer where the slices filled the grid and were halved again). */
static int64_t
k_slices(const Gemm *g, int64_t TM, int64_t TN, int64_t BK, int64_t *goal)
{
	int64_t KT = ceil_div(g->K, BK), S = 1;
	int64_t min_slice = g->matmul ? MIN_SLICE_MM : MIN_SLICE;
	int64_t tiles = ceil_div(g->M, T16 * TM) * ceil_div(g->N, T16 * TN);
	while (g->B == 1 && S < MAX_SPLIT && S * tiles < grid_goal(g) &&
	       KT % (2 * S) == 0 && KT / (2 * S) >= min_slice)
		S *= 2;
	/* A product whose slices fill the grid (its tiles then keep their
	 * size) takes half as many while a multiprocessor's share of the
	 * work does not grow: each of the 132 then has at most
	 * ceil(groups / 132) work groups of KT / S steps.  Fewer slices
	 * write fewer partial sums for the second kernel to add (on the
	 * H100, an encoder's FFN 1024x2048x512 unsplit ran 10 us a layer
	 * faster than in 2 slices, 1024x512x2048 in 4 slices 3.5 us faster
	 * than in 8; bench/h100.md, "Fewer slices"). */
	*goal = grid_goal(g);
	while (g->matmul && S > 1 && S * tiles >= grid_goal(g) &&
	       2 * ceil_div(S / 2 * tiles, MIN_BLOCKS / 2) <= ceil_div(S * tiles, MIN_BLOCKS / 2)) {
		S /= 2;
		*goal = S * tiles;
	}
	return S;
}

static void
ragged_tiles(const Gemm *g, Tiles *t)
{
	int64_t TM = 8, TN = 8;
	while (TM > 1 && ceil_div(g->M, T16 * TM / 2) == ceil_div(g->M, T16 * TM))
		TM /= 2;
	while (TN > 1 && ceil_div(g->N, T16 * TN / 2) == ceil_div(g->N, T16 * TN))
		TN /= 2;
	int64_t BK = g->K % 16 != 0 && g->K % 8 == 0 && TM >= 2 && TN >= 2 ? 8 : 16;
	int64_t goal;
	int64_t S = k_slices(g, TM, TN, BK, &goal);
	shrink_tiles(g, &TM, &TN, S, 1, goal);
	if (BK == 8 && (TM < 2 || TN < 2))
		BK = 16, S = 1; /* (rare: K a multiple of 8, not 16, and short) */
	*t = (Tiles){TM, TN, BK, T16, T16, g->M % (T16 * TM) != 0, g->N % (T16 * TN) != 0,
	             g->K % BK != 0, S};
}

/* A dense of 8x8 tiles short of one work group a multiprocessor would
 * split k into slices (and a second kernel adds them); 8x6 tiles (96
 * columns, N a multiple of 96) make more work groups of the same rows:
 * when they make one wave, at least 3/4 of the MIN_BLOCKS / 2 (132 on
 * an H100) and no more, the product takes them unsplit.  On the H100
 * (bench/h100.md, "One wave of 8x6 tiles") an encoder's QKV
 * 1024x1536x512 ran 65.8 us in 128 work groups of 8x6 against 70.8 in
 * 4 slices of 96 groups of 8x8 and their sums.  Returns 6, or 0. */
static int64_t
one_wave_tn(const Gemm *g, int64_t TY, int64_t TX, int64_t TM, int64_t TN)
{
	int64_t wave = MIN_BLOCKS / 2;
	if (!g->matmul || g->packed || g->B != 1 || TM != 8 || TN != 8 || g->N % (TX * 6) != 0)
		return 0;
	int64_t rows = g->M / (TY * TM), tiles = rows * (g->N / (TX * TN));
	int64_t narrow = rows * (g->N / (TX * 6));
	return tiles < wave && narrow <= wave && 4 * narrow >= 3 * wave ? 6 : 0;
}

/* The tiles of g (in t, when not NULL); false when the sizes do not
 * divide into them (and g is not ragged_ok).  A packed product's work items own whole output
 * texels (TM of 4 or 8 consecutive m), so it takes TY = 16, 8 or 4 rows
 * of items as M allows and TN down to 1; the others 16 x 16 items and
 * tiles of 2 to 8. */
static bool
gemm_tiles(const GroupCx *c, const Gemm *g, Tiles *t)
{
	if (!c->device || lower_wg_limit(c->device) < THREADS)
		return false;
	int64_t TY = T16, lo = 2;
	if (g->packed) {
		lo = 1;
		while (TY >= 4 && g->M % (TY * 4) != 0)
			TY /= 2;
		if (TY < 4)
			return false;
	}
	int64_t TX = THREADS / TY;
	int64_t TM = tile_side(g->M, TY, g->packed ? 4 : 2), TN = tile_side(g->N, TX, lo);
	int64_t BK = g->K % 16 == 0 ? 16 : g->K % 8 == 0 ? 8 : 0;
	if (!TM || !TN || !BK) {
		/* (fewer than 16 rows or columns leave most of a block's
		 * items idle: an element per item does as well) */
		if (!g->ragged_ok || g->M < T16 || g->N < T16)
			return false;
		if (t)
			ragged_tiles(g, t);
		return true;
	}
	/* k split first, as for ragged sizes (a packed product's slices are
	 * not built: its rows are counted in texels) */
	int64_t narrow = one_wave_tn(g, TY, TX, TM, TN);
	if (narrow) {
		if (t)
			*t = (Tiles){TM, narrow, BK, TY, TX, false, false, false, 1};
		return true;
	}
	int64_t goal = grid_goal(g);
	int64_t S = g->packed ? 1 : k_slices(g, TM, TN, BK, &goal);
	int64_t tm_lo = g->packed ? 4 : 2;
	while (g->B * S * (g->M / (TY * TM)) * (g->N / (TX * TN)) < goal) {
		if (TN >= TM && TN > lo)
			TN /= 2;
		else if (TM > tm_lo)
			TM /= 2;
		else if (TN > lo)
			TN /= 2;
		else
			break;
	}
	/* A packed product's block made squarer (fewer rows of items, as
	 * many work groups): on the H100, 64 -> 64 channels at 56x56 ran
	 * 0.046 ms in blocks of 32x32 against 0.056 in 64x16 (images). */
	while (g->packed && TY > 4 && TY * TM > TX * TN && g->M % (TY / 2 * TM) == 0 &&
	       g->N % (2 * TX * TN) == 0)
		TY /= 2, TX *= 2;
	if (t)
		*t = (Tiles){TM, TN, BK, TY, TX, false, false, false, S};
	return true;
}

/* Row i (< TM) of a work item's register tile, counted from the block's
 * first: 4 consecutive rows per output texel for a packed product. */
static PExpr *
tile_row(PBuild *b, const Gemm *g, const Tiles *t, PExpr *ty, int64_t i)
{
	if (g->packed)
		return pe_add(b, pe_mul(b, ty, pe_i32(b, 4)), pe_i32(b, (i / 4) * 4 * t->TY + i % 4));
	return pe_add(b, ty, pe_i32(b, i * t->TY));
}

/* The register tile into the result: element by element, or for a
 * packed product a texel (4 consecutive m of one n) at a time, the fused
 * consumers computed on 4 lanes, so that an image can take it
 * (write_imagef writes whole texels). */
static bool
store_tile(GroupCx *c, const Gemm *g, const Tiles *t, PVar *acc, PExpr *bt, PExpr *m0, PExpr *n0,
           PExpr *ty, PExpr *tx)
{
	PBuild *b = c->b;
	int op = pb_depth(b);
	bool ok;
	if (!g->packed) {
		PExpr *i = unrolled(b, t->TM), *j = unrolled(b, t->TN);
		PExpr *ci[2] = {i, j};
		PExpr *row = pe_add(b, m0, pe_add(b, ty, pe_mul(b, i, pe_i32(b, t->TY))));
		PExpr *col = pe_add(b, n0, pe_add(b, tx, pe_mul(b, j, pe_i32(b, t->TX))));
		if (t->rm || t->rn) {
			row = pb_let(b, "row", row);
			col = pb_let(b, "col", col);
			PExpr *in = t->rm ? pe_bin(b, OP_LT, row, pe_i32(b, g->M)) : NULL;
			if (t->rn) {
				PExpr *cn = pe_bin(b, OP_LT, col, pe_i32(b, g->N));
				in = in ? pe_bin(b, OP_AND, in, cn) : cn;
			}
			pb_if(b, in);
		}
		ok = g->store(c, g, bt, row, col, pe_load(b, acc, ci, 1), 1);
		pb_close_to(b, op);
		return ok;
	}
	PExpr *j = unrolled(b, t->TN), *i = unrolled(b, t->TM / 4);
	/* m0 is the block's first texel here */
	PExpr *row = pe_add(b, m0, pe_add(b, ty, pe_mul(b, i, pe_i32(b, t->TY))));
	PExpr *col = pe_add(b, n0, pe_add(b, tx, pe_mul(b, j, pe_i32(b, t->TX))));
	PExpr *ci[2] = {j, pe_mul(b, i, pe_i32(b, 4))};
	if (lower_group_lanes(c) == 4) {
		ok = g->store(c, g, bt, row, col, pe_load(b, acc, ci, 4), 4);
	} else {
		/* a consumer without a 4-lane form: a buffer, element by element */
		PExpr *q = unrolled(b, 4);
		ci[1] = pe_add(b, ci[1], q);
		row = pe_add(b, pe_mul(b, row, pe_i32(b, 4)), q);
		ok = g->store(c, g, bt, row, col, pe_load(b, acc, ci, 1), 1);
	}
	pb_close_to(b, op);
	return ok;
}

/* A buffer annotation (ir(5), "Allocation annotations"): key=true. */
static void
annotate_true(Module *m, PVar *v, const char *key)
{
	v->annots = *gb_attrs(m, 1, &(GAttr){key, gb_bool(true)});
}

/* The split-k epilogue fused into the split kernel (CUDA's
 * threadFenceReduction, stream-K's fixup): each work item has stored its
 * slice's sums into ps; they are fenced, the group meets at a barrier,
 * and one item counts the group in (atomic_add on the tile's counter).
 * The group that counts S-1 is the tile's last: its items (told through
 * shared memory) add the S slices of their elements in slice order, as
 * the epilogue kernel does, so the sums are the same to the bit, store
 * them through the fused consumers, and set the counter back to zero for
 * the next launch (count is zeroed: ir(5)).  Groups may finish in any
 * order; only the last reads ps, after every slice's fence. */
static bool
split_k_last(GroupCx *c, const Gemm *g, const Tiles *t, PVar *ps, PVar *count,
             PExpr *const *tile, PVar *last, PExpr *tid, PExpr *m0, PExpr *n0, PExpr *ty,
             PExpr *tx)
{
	PBuild *b = c->b;
	PExpr *zero = pe_i32(b, 0), *first = pe_bin(b, OP_EQ, tid, pe_i32(b, 0));
	pb_mem_fence(b);
	pb_barrier(b);
	int op = pb_depth(b);
	pb_if(b, first);
	PExpr *el = pe_load(b, count, tile, 1);
	PExpr *seen = pb_let(b, "seen", pe_call2(b, I_ATOMIC_ADD, el, pe_i32(b, 1)));
	pb_store(b, last, &zero, 1, pe_select(b, pe_bin(b, OP_EQ, seen, pe_i32(b, t->S - 1)),
	                                      pe_i32(b, 1), zero));
	pb_close_to(b, op);
	pb_barrier(b);
	pb_if(b, pe_bin(b, OP_NE, pe_load(b, last, &zero, 1), zero));
	/* the other groups' stores, seen after their fences */
	pb_mem_fence(b);
	int inner = pb_depth(b);
	PExpr *i = unrolled(b, t->TM), *j = unrolled(b, t->TN);
	PExpr *row = pb_let(b, "row", pe_add(b, m0, pe_add(b, ty, pe_mul(b, i, pe_i32(b, t->TY)))));
	PExpr *col = pb_let(b, "col", pe_add(b, n0, pe_add(b, tx, pe_mul(b, j, pe_i32(b, t->TX)))));
	if (t->rm || t->rn)
		pb_if(b, pe_bin(b, OP_AND, pe_bin(b, OP_LT, row, pe_i32(b, g->M)),
		                pe_bin(b, OP_LT, col, pe_i32(b, g->N))));
	bool ok = g->store(c, g, pe_i32(b, 0), row, col, lower_slice_sum(b, ps, t->S, row, col), 1);
	pb_close_to(b, inner);
	pb_if(b, first);
	pb_store(b, count, tile, 1, zero);
	pb_close_to(b, op);
	return ok;
}

static int
build_gemm(GroupCx *c, const Gemm *g)
{
	Tiles t;
	if (!gemm_tiles(c, g, &t))
		return 0;
	int64_t TM = t.TM, TN = t.TN, BK = t.BK, TY = t.TY, TX = t.TX;
	int64_t BM = TY * TM, BN = TX * TN;
	PBuild *b = c->b;
	Module *m = c->m;
	ElemKind kk = g->kk;
	const VDev *shared = vdev_get(m, c->dev, sym_intern_cstr(m, "shared"));
	/* k in S slices: each work group's sums into a buffer of the prim
	 * [S, M, N], then added up in slice order and stored through the
	 * fused consumers: by the last work group of each tile to finish
	 * (fused: a counter per tile, split_k_last), or by a second kernel,
	 * an element per item (--split-k-kernel). */
	PVar *ps = NULL, *count = NULL;
	const VDev *global = vdev_get(m, c->dev, sym_intern_cstr(m, "global"));
	/* A layer_norm after the product (lower.c's norm_epilogue) is the
	 * second kernel: the product's sums go to ps even unsplit, and that
	 * kernel adds the slices of each row it normalizes. */
	bool norm = lower_ends_in_norm(c->g);
	bool fused = t.S > 1 && !norm && !c->split_k_kernel && t.S * t.TM * t.TN <= MAX_LAST_ADDS;
	if (t.S > 1 || norm) {
		int64_t pdims[3] = {t.S, g->M, g->N};
		ps = pb_alloc(b, "ps", type_tensor(m, (DType){kk, 1}, 3, pdims), global);
	}
	if (fused) {
		/* the last group reads what the others wrote in this launch */
		annotate_true(m, ps, ANNOT_COHERENT);
		int64_t cdims[2] = {ceil_div(g->M, BM), ceil_div(g->N, BN)};
		count = pb_alloc(b, "count", type_tensor(m, (DType){ET_I32, 1}, 2, cdims), global);
		annotate_true(m, count, ANNOT_ZEROED);
	}

	int close = pb_depth(b);
	lower_kernel(c);
	PExpr *bt = g->B > 1 ? pe_var(b, thread_loop(b, "bz", g->B, "blockIdx.z")) : pe_i32(b, 0);
	PExpr *slice = t.S > 1 ? pe_var(b, thread_loop(b, "bz", t.S, "blockIdx.z")) : NULL;
	PExpr *by = pe_var(b, thread_loop(b, "by", ceil_div(g->M, BM), "blockIdx.y"));
	PExpr *bx = pe_var(b, thread_loop(b, "bx", ceil_div(g->N, BN), "blockIdx.x"));
	/* A padding word per row of a tile loaded along k: the items that
	 * store one row's k into column r of consecutive rows of the tile
	 * then land in different banks. */
	int64_t adims[2] = {BK, BM + g->a_kfast}, bdims[2] = {BK, BN + g->b_kfast};
	PVar *as = pb_alloc(b, "as", type_tensor(m, (DType){kk, 1}, 2, adims), shared);
	PVar *bs = pb_alloc(b, "bs", type_tensor(m, (DType){kk, 1}, 2, bdims), shared);
	int64_t one = 1;
	PVar *last = fused ? pb_alloc(b, "last", type_tensor(m, (DType){ET_I32, 1}, 1, &one), shared)
	                   : NULL;
	PExpr *ty = pe_var(b, thread_loop(b, "ty", TY, "threadIdx.y"));
	PExpr *tx = pe_var(b, thread_loop(b, "tx", TX, "threadIdx.x"));
	PExpr *tid = pb_let(b, "tid", pe_add(b, pe_mul(b, ty, pe_i32(b, TX)), tx));
	PExpr *m0 = NULL, *mt0 = NULL;
	if (g->packed)
		mt0 = pb_let(b, "mt", pe_mul(b, by, pe_i32(b, BM / 4)));
	else
		m0 = pb_let(b, "m", pe_mul(b, by, pe_i32(b, BM)));
	PExpr *n0 = pb_let(b, "n", pe_mul(b, bx, pe_i32(b, BN)));
	/* packed: [TN, TM], so that a texel's 4 rows are one vector */
	int64_t tdims[2] = {TM, TN};
	if (g->packed)
		tdims[0] = TN, tdims[1] = TM;
	PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){kk, 1}, 2, tdims), c->local);
	int op = pb_depth(b);
	PExpr *ai[2] = {unrolled(b, tdims[0]), unrolled(b, tdims[1])};
	pb_store(b, acc, ai, 1, pe_float(b, 0, kk));
	pb_close_to(b, op);

	int64_t steps = ceil_div(g->K, BK) / t.S;
	/* A dense or batch_matmul of at least DB_MIN_STEPS steps a slice
	 * loads the next step's tiles into registers while it multiplies
	 * this step's (double buffering, as cuBLAS stages them): the loads'
	 * latency, from memory when the weights are not in the cache, hides
	 * behind the products.  On the H100 (bench/h100.md, "Double
	 * buffering") an encoder's FFNs and QKV (8 to 16 steps) ran 10%
	 * faster; products of 2 to 6 steps (vit_b_16's, the batch-1
	 * encoder's, the out-projection's 8 slices of 4) 5-13% slower: the
	 * registers cost more than the one load they hide. */
	PVar *ra = NULL, *rb = NULL;
	if (g->matmul && steps >= DB_MIN_STEPS) {
		int64_t la = BM * BK / THREADS, lb = BN * BK / THREADS;
		ra = pb_alloc(b, "ra", type_tensor(m, (DType){kk, 1}, 1, &la), c->local);
		rb = pb_alloc(b, "rb", type_tensor(m, (DType){kk, 1}, 1, &lb), c->local);
		PExpr *first = slice ? pe_mul(b, slice, pe_i32(b, steps)) : pe_i32(b, 0);
		PExpr *k0 = pb_let(b, "k", pe_mul(b, first, pe_i32(b, BK)));
		load_tile(c, g, &t, true, as, ra, BM, BK, tid, bt, m0, k0);
		load_tile(c, g, &t, false, bs, rb, BN, BK, tid, bt, n0, k0);
	}
	int kop = pb_depth(b);
	PVar *kt = pb_scalar(b, "kt", (DType){ET_I32, 1});
	pb_for(b, kt, pe_i32(b, 0), pe_i32(b, steps), FK_SERIAL, NULL);
	PExpr *kstep = pe_var(b, kt);
	if (slice)
		kstep = pe_add(b, pe_mul(b, slice, pe_i32(b, steps)), kstep);
	if (ra) {
		put_tile(c, g, true, as, ra, BM, BK, tid);
		put_tile(c, g, false, bs, rb, BN, BK, tid);
		pb_barrier(b);
		int iop = pb_depth(b);
		pb_if(b, pe_bin(b, OP_LT, pe_var(b, kt), pe_i32(b, steps - 1)));
		PExpr *k1 = pb_let(b, "k", pe_mul(b, pe_add(b, kstep, pe_i32(b, 1)), pe_i32(b, BK)));
		load_tile(c, g, &t, true, as, ra, BM, BK, tid, bt, m0, k1);
		load_tile(c, g, &t, false, bs, rb, BN, BK, tid, bt, n0, k1);
		pb_close_to(b, iop);
	} else {
		PExpr *k0 = pb_let(b, "k", pe_mul(b, kstep, pe_i32(b, BK)));
		if (g->packed) {
			load_tile_texels(c, g, true, as, BM, BK, tid, mt0, k0);
			load_tile_texels(c, g, false, bs, BN, BK, tid, n0, k0);
		} else {
			load_tile(c, g, &t, true, as, NULL, BM, BK, tid, bt, m0, k0);
			load_tile(c, g, &t, false, bs, NULL, BN, BK, tid, bt, n0, k0);
		}
		pb_barrier(b);
	}
	op = pb_depth(b);
	PExpr *q = unrolled(b, BK);
	/* Straight-line: TM + TN loads, then every product, so that the
	 * accumulators are indexed by constants and stay in registers. */
	PExpr *av[8], *bv[8];
	for (int64_t i = 0; i < TM; i++) {
		PExpr *si[2] = {q, tile_row(b, g, &t, ty, i)};
		av[i] = pb_let(b, "a", pe_load(b, as, si, 1));
	}
	for (int64_t j = 0; j < TN; j++) {
		PExpr *si[2] = {q, pe_add(b, tx, pe_i32(b, j * TX))};
		bv[j] = pb_let(b, "b", pe_load(b, bs, si, 1));
	}
	for (int64_t i = 0; i < TM; i++)
		for (int64_t j = 0; j < TN; j++) {
			PExpr *ci[2] = {pe_i32(b, i), pe_i32(b, j)};
			if (g->packed)
				ci[0] = pe_i32(b, j), ci[1] = pe_i32(b, i);
			pb_store(b, acc, ci, 1, lower_mac(c->b, pe_load(b, acc, ci, 1), av[i], bv[j]));
		}
	pb_close_to(b, op);
	pb_barrier(b);
	pb_close_to(b, kop);

	if (!ps) {
		bool ok = store_tile(c, g, &t, acc, bt, g->packed ? mt0 : m0, n0, ty, tx);
		pb_close_to(b, close);
		return ok ? 1 : -1;
	}
	/* the slice's sums, then their total through the consumers */
	op = pb_depth(b);
	PExpr *i = unrolled(b, TM), *j = unrolled(b, TN);
	PExpr *row = pb_let(b, "row", pe_add(b, m0, pe_add(b, ty, pe_mul(b, i, pe_i32(b, TY)))));
	PExpr *col = pb_let(b, "col", pe_add(b, n0, pe_add(b, tx, pe_mul(b, j, pe_i32(b, TX)))));
	if (t.rm || t.rn)
		pb_if(b, pe_bin(b, OP_AND, pe_bin(b, OP_LT, row, pe_i32(b, g->M)),
		                pe_bin(b, OP_LT, col, pe_i32(b, g->N))));
	PExpr *ci[2] = {i, j}, *pi[3] = {slice ? slice : pe_i32(b, 0), row, col};
	pb_store(b, ps, pi, 1, pe_load(b, acc, ci, 1));
	pb_close_to(b, op);
	if (fused) {
		PExpr *tile[2] = {by, bx};
		bool ok = split_k_last(c, g, &t, ps, count, tile, last, tid, m0, n0, ty, tx);
		pb_close_to(b, close);
		return ok ? 1 : -1;
	}
	pb_close_to(b, close);
	if (norm)
		return lower_norm_product(c, ps, t.S, &g->mm);
	int64_t mn[2] = {g->M, g->N};
	PExpr *e[2];
	lower_open_nest(c, mn, 2, e, false);
	bool ok = g->store(c, g, pe_i32(b, 0), e[0], e[1], lower_slice_sum(b, ps, t.S, e[0], e[1]), 1);
	pb_close_to(b, close);
	return ok ? 1 : -1;
}

/* ------------------------------------------------- dense, batch_matmul */

static PExpr *
mm_load_a(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *k)
{
	PExpr *xi[LOWER_MAX_RANK];
	lower_matmul_xi(c->b, &g->mm, bt, m, k, NULL, xi);
	return lower_operand(c, 0, 0, xi, 1);    /* a load, or through a prologue */
}

static PExpr *
mm_load_b(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k)
{
	PExpr *wi[3];
	lower_matmul_wi(c->b, &g->mm, bt, n, k, wi);
	return lower_operand(c, 0, 1, wi, 1);
}

/* dense's weight_layout "NC<P>n": unit n at [n / P, k, n % P] */
static PExpr *
mm_load_b_packed(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k)
{
	(void)bt;
	PBuild *b = c->b;
	PExpr *wi[3] = {pe_div(b, n, pe_i32(b, g->mm.pack)), k, pe_mod(b, n, pe_i32(b, g->mm.pack))};
	return pe_load(b, g->w, wi, 1);
}

static bool
mm_store(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *n, PExpr *val, uint32_t lanes)
{
	(void)lanes;
	PExpr *oi[LOWER_MAX_RANK];
	lower_matmul_oi(c->b, &g->mm, bt, m, n, NULL, oi);
	return lower_store_through(c, val, oi, 1);
}

static int
tile_matmul_gpu(GroupCx *c, bool batched)
{
	MatmulShape sh;
	if (!lower_matmul_shape(c, batched, &sh))
		return 0;
	const Value *v = c->g->members[0];
	Gemm g = {.B = sh.B, .M = sh.M, .N = sh.N, .K = sh.K, .a_kfast = !sh.ta, .b_kfast = sh.tb,
	          .kk = (ElemKind)v->type->dt.kind, .load_a = mm_load_a, .load_b = mm_load_b,
	          .store = mm_store, .mm = sh, .matmul = true, .ragged_ok = true};
	if (sh.pack) { /* the units contiguous */
		g.b_kfast = false;
		g.load_b = mm_load_b_packed;
	}
	/* An operand read through a prologue is walked along the axis that
	 * is contiguous in its source (K read transposed from the QKV
	 * product walks k, not n). */
	int fa = lower_operand_fast_axis(c, 0), fb = lower_operand_fast_axis(c, 1);
	int ka = sh.batched ? (sh.ta ? 1 : 2) : (int)v->args[0]->type->n - 1;
	int kb = sh.batched ? (sh.tb ? 2 : 1) : 1;
	if (fa >= 0 && lower_prologue_of(c->g, v->args[0]) >= 0)
		g.a_kfast = fa == ka;
	if (fb >= 0 && lower_prologue_of(c->g, v->args[1]) >= 0)
		g.b_kfast = fb == kb;
	/* (lower_input only after the shape is known to fit: it binds nothing) */
	if (!gemm_tiles(c, &g, NULL))
		return 0;   /* (few rows: lower_gemv.c, tried before) */
	GroupInput *x = lower_input(c, 0, 0, -1), *w = lower_input(c, 0, 1, -1);
	g.x = x ? x->buf : NULL;        /* (NULL: read through a prologue) */
	g.w = w ? w->buf : NULL;
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
	PExpr *ic, *ky, *kx;
	conv_k(c, g, k, &ic, &ky, &kx);
	PExpr *wi[4] = {m, ic, ky, kx};
	if (g->hwio)
		wi[0] = ky, wi[1] = kx, wi[2] = ic, wi[3] = m;
	return pe_load(c->b, g->w, wi, 1);
}

/* The input's window at output (oy, ox) and tap (ky, kx): the row and
 * column to read, clamped into the input where it is padded; *inside
 * (NULL without padding) says whether they were in it. */
static void
conv_window(GroupCx *c, const Gemm *g, PExpr *oy, PExpr *ox, PExpr *ky, PExpr *kx, PExpr **y,
            PExpr **x, PExpr **inside)
{
	PBuild *b = c->b;
	const int64_t *st = g->ca.st, *dil = g->ca.dil, *pad = g->ca.pad;
	*y = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, oy, pe_i32(b, st[0])), pe_i32(b, pad[0])),
	                           pe_mul(b, ky, pe_i32(b, dil[0]))));
	*x = pb_let(b, "x", pe_add(b, pe_sub(b, pe_mul(b, ox, pe_i32(b, st[1])), pe_i32(b, pad[1])),
	                           pe_mul(b, kx, pe_i32(b, dil[1]))));
	*inside = NULL;
	if (!(pad[0] || pad[1] || pad[2] || pad[3]))
		return;
	/* Clamped, the load stays in bounds where select drops it. */
	*inside = lower_inside(b, *y, *x, 0, g->H, 0, g->W);
	*y = pe_call2(b, I_MIN, pe_call2(b, I_MAX, *y, pe_i32(b, 0)), pe_i32(b, g->H - 1));
	*x = pe_call2(b, I_MIN, pe_call2(b, I_MAX, *x, pe_i32(b, 0)), pe_i32(b, g->W - 1));
}

static PExpr *
conv_load_b(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *n, PExpr *k)
{
	(void)bt;
	PBuild *b = c->b;
	PExpr *img, *oy, *ox, *y, *x, *inside, *ic, *ky, *kx;
	conv_n(c, g, n, &img, &oy, &ox);
	conv_k(c, g, k, &ic, &ky, &kx);
	conv_window(c, g, oy, ox, ky, kx, &y, &x, &inside);
	PExpr *xi[4] = {img, ic, y, x};
	PExpr *val = lower_load_data(c, g->x, xi, 1);
	return inside ? pe_select(b, inside, val, pe_like(b, val, 0)) : val;
}

/* Packed, k = ((channel / 4) * KH + ky) * KW + kx) * 4 + channel % 4:
 * the weight's texel of output channels 4 mt.. 4 mt + 3 at k. */
static PExpr *
conv_texel_a(GroupCx *c, const Gemm *g, PExpr *mt, PExpr *k)
{
	PBuild *b = c->b;
	PExpr *ic, *ky, *kx;
	conv_k(c, g, pe_div(b, k, pe_i32(b, 4)), &ic, &ky, &kx);
	ic = pe_add(b, pe_mul(b, ic, pe_i32(b, 4)), lane_of(b, k));
	PExpr *wi[5] = {mt, ic, ky, kx, pe_i32(b, 0)};
	return pe_load(b, g->w, wi, 4);
}

/* Packed: the input's texel of k.. k + 3 (k a multiple of 4) at n. */
static PExpr *
conv_texel_b(GroupCx *c, const Gemm *g, PExpr *n, PExpr *k)
{
	PBuild *b = c->b;
	PExpr *img, *oy, *ox, *y, *x, *inside, *icb, *ky, *kx;
	conv_n(c, g, n, &img, &oy, &ox);
	conv_k(c, g, pe_div(b, k, pe_i32(b, 4)), &icb, &ky, &kx);
	conv_window(c, g, oy, ox, ky, kx, &y, &x, &inside);
	PExpr *xi[5] = {img, icb, y, x, pe_i32(b, 0)};
	PExpr *val = lower_load_data(c, g->x, xi, 4);
	return inside ? pe_select(b, inside, val, pe_like(b, val, 0)) : val;
}

static bool
conv_store(GroupCx *c, const Gemm *g, PExpr *bt, PExpr *m, PExpr *n, PExpr *val, uint32_t lanes)
{
	(void)bt;
	PExpr *img, *oy, *ox;
	conv_n(c, g, n, &img, &oy, &ox);
	if (g->packed && lanes == 4) {
		PExpr *oi[5] = {img, m, oy, ox, pe_i32(c->b, 0)};
		return lower_store_through(c, val, oi, 4);
	}
	if (g->packed) {
		PExpr *oi[5] = {img, texel_of(c->b, m), oy, ox, lane_of(c->b, m)};
		return lower_store_through(c, val, oi, 1);
	}
	PExpr *oi[4] = {img, m, oy, ox};
	return lower_store_through(c, val, oi, 1);
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
	            .load_b = conv_load_b, .store = conv_store, .texel_a = conv_texel_a,
	            .texel_b = conv_texel_b};
	lower_conv_attrs(v, &g->ca);
	if (g->ca.groups != 1)
		return false;
	if (lower_is_layout(g->ca.dl, "NCHW4c") && lower_is_layout(g->ca.kl, "OIHW4o") &&
	    lower_is_layout(g->ca.ol, "NCHW4c"))
		g->packed = true;
	else if (!lower_is_layout(g->ca.dl, "NCHW") || !lower_is_layout(g->ca.ol, "NCHW"))
		return false;
	else if (lower_is_layout(g->ca.kl, "HWIO"))
		g->hwio = true;
	else if (!lower_is_layout(g->ca.kl, "OIHW"))
		return false;
	/* Unpacked, the tiles need not divide the sizes: a buffer gpu's
	 * NCHW convolutions (7x7, 14x14 and 28x28 outputs, 3-channel
	 * inputs, 24 output channels) would otherwise run an element per
	 * work item.  Packed products keep whole tiles (their texel loads
	 * and stores take no such edges). */
	g->ragged_ok = !g->packed;
	/* An HWIO weight (ir-fold-constants makes constant weights so) has
	 * its output channels contiguous: A's tile loads walk m. */
	g->a_kfast = !g->hwio;
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *ot = v->type;
	const Layout *kl = g->ca.kl;
	int64_t NI = xt->dims[0];
	g->C = xt->dims[1] * (g->packed ? 4 : 1), g->H = xt->dims[2], g->W = xt->dims[3];
	g->KH = layout_dim(kl, wt->dims, 'H'), g->KW = layout_dim(kl, wt->dims, 'W');
	g->OH = ot->dims[2], g->OW = ot->dims[3];
	g->M = layout_dim(kl, wt->dims, 'O'); /* OIHW4o's O counts its 4o */
	g->N = NI * g->OH * g->OW;
	g->K = layout_dim(kl, wt->dims, 'I') * g->KH * g->KW;
	g->kk = (ElemKind)ot->dt.kind;
	/* i32 indices: the output's and input's element counts */
	return g->H >= 1 && g->W >= 1 && type_numel(ot) <= INT32_MAX && type_numel(xt) <= INT32_MAX &&
	       g->N <= INT32_MAX && g->M * g->K <= INT32_MAX;
}

/* Is the group's result an image? */
static bool
image_result(const GroupCx *c)
{
	const char *scope = c->out[0]->vd->scope;
	return c->nout == 1 && scope && strncmp(scope, "texture", 7) == 0;
}

static int
tile_conv2d_gpu(GroupCx *c)
{
	Gemm g;
	if (!conv_gemm(c, &g))
		return 0;
	/* an image takes whole texels, which need a 4-lane epilogue */
	if (g.packed && image_result(c) && lower_group_lanes(c) != 4)
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
	       gemm_tiles(c, &g, NULL) && lower_group_lanes((GroupCx *)c) == 4;
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
