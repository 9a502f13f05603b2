/* lower_reduce.c: reductions spread over several work items per result,
 * on a gpu (the cpu's schedule is lower_reduce_cpu.c; both use the
 * description and the helpers here).
 *
 * With one work item per result, a global average pool of 112x112 is
 * one work item adding 12,544 elements: efficientnet_b0's took 280 us
 * each on the H100.  A group ending in a sum, a mean, a global average
 * pool or a pool of a large window gets instead T work items per unit (a
 * result, or a texel of 4 lanes of a packed one), G = WG / T units per
 * work group, as TVM's cross-thread reduction does:
 *
 *   for %bz in 0..S bind(blockIdx.y) {          (S > 1 only)
 *   for %bx in 0..ceil(U / G) bind(blockIdx.x) {
 *     alloc %part: A[WG] @dev:shared            ([WG, 4] for texels)
 *     for %tx in 0..WG bind(threadIdx.x) {
 *       (unit bx * G + tx / T; item t = tx % T of it adds up elements
 *        t, t + T, t + 2T, ... of its slice into a local accumulator)
 *       %part[%tx] = ...; barrier
 *       if t < T/2 { %part[%tx] = %part[%tx] + %part[%tx + T/2] }; barrier
 *       ... halving down to 1 ...
 *       if t == 0 { (the unit's result, or its slice's part in %ps) }
 *
 * T is the power of two that leaves each item about 4 elements, at most
 * the device's work-group limit; consecutive items read consecutive
 * elements where the reduced axes are the innermost ones.  When the
 * units alone make fewer than GPU_GROUPS work groups of a long
 * reduction, each unit's elements are cut into S slices, one work group
 * each, whose parts (a buffer %ps [S, U, lanes]) a second kernel adds
 * up, so that a pool of 32 channels fills the device.  The order of
 * additions differs from a serial sum, as on any gpu.  An integer mean
 * adds up in 64 bits (lower_average_kind), %part included.
 */
#include <string.h>

#include "lower_impl.h"
#include "ops/ops.h"

enum {
	/* Split only reductions at least this long, ... */
	GPU_MIN_LENGTH = 32,
	/* ... unless their elements are not the innermost ones (each item
	 * then reads with a stride, where an item per result reads
	 * consecutive ones): then only as before, at most this many results
	 * of at least this length. */
	GPU_STRIDED_MAX_RESULTS = 4096, GPU_STRIDED_MIN_LENGTH = 512,
	/* Each item's share is about this many loads ... */
	GPU_PER_ITEM = 4,
	/* ... and when that leaves more than this many, slices are cut until
	 * there are this many work groups: not sooner, since the second
	 * kernel costs as much as the first (each about 6 us on the H100,
	 * bench/h100.md). */
	GPU_MAX_PER_ITEM = 32, GPU_GROUPS = 256,
};

/* ----------------------------------------------------- the description */

static int64_t
ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

bool
lower_reduction(GroupCx *c, Reduction *rd)
{
	const Value *v = c->g->members[c->g->n - 1];
	memset(rd, 0, sizeof *rd);
	rd->op = v->u.op->op->id;
	if ((rd->op != O_SUM && rd->op != O_MEAN && rd->op != O_GLOBAL_AVG_POOL2D &&
	     rd->op != O_AVG_POOL2D && rd->op != O_MAX_POOL2D) ||
	    v->args[0]->kind == VK_LIT || v->type->kind != TY_TENSOR)
		return false;
	const Type *it = v->args[0]->type, *ot = v->type;
	rd->it = it;
	rd->ot = ot;
	rd->kk = (ElemKind)ot->dt.kind;
	rd->ak = rd->op == O_SUM || rd->op == O_MAX_POOL2D ? rd->kk : lower_average_kind(rd->kk);
	rd->R = 1;
	if (rd->op == O_SUM || rd->op == O_MEAN) {
		ReduceAttrs ra;
		lower_reduce_attrs(v, &ra);
		memcpy(rd->red, ra.red, it->n * sizeof *rd->red);
		rd->keep = ra.keepdims;
	} else {
		lower_pool_attrs(v, &rd->pa);
		const Layout *l = rd->pa.l;
		rd->hax = (int)(strchr(l->axes, 'H') - l->axes);
		rd->wax = (int)(strchr(l->axes, 'W') - l->axes);
		rd->window = rd->op != O_GLOBAL_AVG_POOL2D;
		if (rd->window)
			rd->R = rd->pa.ps[0] * rd->pa.ps[1];
		else
			rd->red[rd->hax] = rd->red[rd->wax] = true;
	}
	if (!rd->window)
		for (uint32_t d = 0; d < it->n; d++)
			if (rd->red[d])
				rd->R *= it->dims[d];
	/* A packed result is written a texel at a time (it may be an image):
	 * a unit is a texel, or the group is not split. */
	rd->lanes = 1;
	if (lower_packed_result(c)) {
		if (lower_group_lanes(c) != 4)
			return false;
		rd->lanes = 4;
	}
	memcpy(rd->udims, ot->dims, ot->n * sizeof *rd->udims);
	if (rd->lanes > 1)
		rd->udims[ot->n - 1] = 1;
	rd->U = type_numel(ot) / rd->lanes;
	return rd->U >= 1 && rd->R >= 1;
}

PExpr *
lower_reduction_index(GroupCx *c, const Reduction *rd, PExpr *const *oidx, PExpr *f, uint32_t V,
                      PExpr **in)
{
	PBuild *b = c->b;
	const Type *it = rd->it;
	if (!rd->window) {
		int64_t dims[LOWER_MAX_RANK];
		memcpy(dims, it->dims, it->n * sizeof *dims);
		dims[it->n - 1] /= V;
		for (uint32_t d = 0, o = 0; d < it->n; d++) {
			if (!rd->red[d])
				in[d] = oidx[o];
			/* sum and mean drop reduced axes without keepdims */
			if (!rd->red[d] || rd->keep || rd->op == O_GLOBAL_AVG_POOL2D)
				o++;
		}
		lower_unflatten(b, f, dims, rd->red, it->n, in);
		if (V > 1)
			in[it->n - 1] = pe_mul(b, in[it->n - 1], pe_i32(b, V));
		return NULL;
	}
	const PoolAttrs *pa = &rd->pa;
	for (uint32_t d = 0; d < it->n; d++)
		in[d] = oidx[d];
	PExpr *k[2];
	lower_unflatten(b, f, pa->ps, NULL, 2, k);
	int ax[2] = {rd->hax, rd->wax};
	for (int i = 0; i < 2; i++)
		in[ax[i]] = pb_let(b, i ? "x" : "y",
		                   pe_add(b, pe_sub(b, pe_mul(b, oidx[ax[i]], pe_i32(b, pa->st[i])),
		                                    pe_i32(b, pa->pad[i])),
		                          pe_mul(b, k[i], pe_i32(b, pa->dil[i]))));
	return lower_inside(b, in[rd->hax], in[rd->wax], 0, it->dims[rd->hax], 0, it->dims[rd->wax]);
}

PExpr *
lower_reduction_operand(GroupCx *c, const Reduction *rd, PExpr *const *in, uint32_t lanes)
{
	PExpr *x = lower_operand(c, c->g->n - 1, 0, in, lanes);
	return x ? pe_cast(c->b, (DType){rd->ak, (uint8_t)lanes}, x) : NULL;
}

PExpr *
lower_reduction_combine(GroupCx *c, const Reduction *rd, PExpr *a, PExpr *x)
{
	return rd->op == O_MAX_POOL2D ? pe_call2(c->b, I_MAX, a, x) : pe_add(c->b, a, x);
}

PExpr *
lower_reduction_init(GroupCx *c, const Reduction *rd)
{
	return rd->op == O_MAX_POOL2D ? pe_lowest(c->b, rd->kk) : pe_float(c->b, 0, rd->ak);
}

/* How many of a window's positions along axis i (0: H, 1: W) of output
 * index o lie in [lo, hi): a loop of pool_size steps. */
static PExpr *
window_count(GroupCx *c, const Reduction *rd, int i, PExpr *o, int64_t lo, int64_t hi)
{
	PBuild *b = c->b;
	const PoolAttrs *pa = &rd->pa;
	int64_t one = 1;
	PExpr *zero = pe_i32(b, 0);
	PVar *n = pb_alloc(b, "n", type_tensor(c->m, (DType){ET_I32, 1}, 1, &one), c->local);
	pb_store(b, n, &zero, 1, zero);
	PVar *k = pb_scalar(b, "k", (DType){ET_I32, 1});
	pb_for(b, k, zero, pe_i32(b, pa->ps[i]), FK_SERIAL, NULL);
	PExpr *p = pe_add(b, pe_sub(b, pe_mul(b, o, pe_i32(b, pa->st[i])), pe_i32(b, pa->pad[i])),
	                  pe_mul(b, pe_var(b, k), pe_i32(b, pa->dil[i])));
	p = pb_let(b, i ? "x" : "y", p);
	pb_if(b, lower_in_range(b, p, lo, hi));
	pb_store(b, n, &zero, 1, pe_add(b, pe_load(b, n, &zero, 1), pe_i32(b, 1)));
	pb_close(b);
	pb_close(b);
	return pb_let(b, "n", pe_load(b, n, &zero, 1));
}

void
lower_reduction_store(GroupCx *c, const Reduction *rd, PExpr *const *oidx, PExpr *total)
{
	PBuild *b = c->b;
	uint8_t L = (uint8_t)rd->lanes;
	DType rt = {rd->kk, L};
	PExpr *res = total;
	if (rd->op == O_MEAN || rd->op == O_GLOBAL_AVG_POOL2D) {
		res = pe_cast(b, rt, pe_div(b, total, pe_broadcast(b, L, pe_float(b, (double)rd->R, rd->ak))));
	} else if (rd->op == O_AVG_POOL2D) {
		/* the count of elements averaged: inside the padded input
		 * (count_include_pad) or the input; none gives 0, as pool2d */
		bool cip = rd->pa.count_include_pad;
		const int64_t *pad = rd->pa.pad;
		int64_t H = rd->it->dims[rd->hax], W = rd->it->dims[rd->wax];
		PExpr *ny = window_count(c, rd, 0, oidx[rd->hax], cip ? -pad[0] : 0, cip ? H + pad[2] : H);
		PExpr *nx = window_count(c, rd, 1, oidx[rd->wax], cip ? -pad[1] : 0, cip ? W + pad[3] : W);
		PExpr *n = pb_let(b, "n", pe_mul(b, ny, nx));
		PExpr *div = pe_div(b, total, pe_broadcast(b, L, pe_cast(b, (DType){rd->ak, 1},
		                                                         pe_call2(b, I_MAX, n, pe_i32(b, 1)))));
		res = pe_select(b, pe_bin(b, OP_EQ, n, pe_i32(b, 0)), pe_broadcast(b, L, pe_float(b, 0, rd->kk)),
		                pe_cast(b, rt, div));
	} else {
		res = pe_cast(b, rt, total);
	}
	pb_store(b, c->out[0], oidx, L, res);
}

/* The flat index of unit oidx among the units (C order over udims). */
static PExpr *
unit_of(GroupCx *c, const Reduction *rd, PExpr *const *oidx)
{
	PExpr *u = pe_i32(c->b, 0);
	for (uint32_t d = 0; d < rd->ot->n; d++)
		if (rd->udims[d] != 1)
			u = pe_add(c->b, pe_mul(c->b, u, pe_i32(c->b, rd->udims[d])), oidx[d]);
	return u;
}

PVar *
lower_reduction_parts(GroupCx *c, const Reduction *rd, int64_t S)
{
	if (S <= 1)
		return NULL;
	Module *m = c->m;
	int64_t pdims[3] = {S, rd->U, rd->lanes};
	return pb_alloc(c->b, "ps", type_tensor(m, (DType){rd->ak, 1}, 3, pdims),
	                vdev_get(m, c->dev, sym_intern_cstr(m, "global")));
}

void
lower_reduction_finish(GroupCx *c, const Reduction *rd, PVar *ps, PExpr *s, PExpr *u,
                       PExpr *const *oidx, PExpr *total, int depth, int64_t S)
{
	PBuild *b = c->b;
	if (ps) {
		PExpr *pi[3] = {s, u, pe_i32(b, 0)};
		pb_store(b, ps, pi, (uint8_t)rd->lanes, total);
	} else {
		lower_reduction_store(c, rd, oidx, total);
	}
	pb_close_to(b, depth);
	if (ps)
		lower_reduction_slices(c, rd, ps, S);
}

void
lower_reduction_slices(GroupCx *c, const Reduction *rd, PVar *ps, int64_t S)
{
	PBuild *b = c->b;
	PExpr *oidx[LOWER_MAX_RANK];
	int depth = pb_depth(b);
	lower_open_nest(c, rd->udims, rd->ot->n, oidx, false);
	PExpr *u = pb_let(b, "u", unit_of(c, rd, oidx));
	PExpr *zero = pe_i32(b, 0);
	uint8_t L = (uint8_t)rd->lanes;
	int64_t lanes = L;
	PVar *acc = pb_alloc(b, "acc", type_tensor(c->m, (DType){rd->ak, 1}, 1, &lanes), c->local);
	PExpr *pi[3] = {zero, u, zero};
	pb_store(b, acc, &zero, L, pe_load(b, ps, pi, L));
	PVar *s = pb_scalar(b, "s", (DType){ET_I32, 1});
	pb_for(b, s, pe_i32(b, 1), pe_i32(b, S), FK_SERIAL, NULL);
	pi[0] = pe_var(b, s);
	pb_store(b, acc, &zero, L, lower_reduction_combine(c, rd, pe_load(b, acc, &zero, L), pe_load(b, ps, pi, L)));
	pb_close(b);
	lower_reduction_store(c, rd, oidx, pe_load(b, acc, &zero, L));
	pb_close_to(b, depth);
}

/* --------------------------------------------------------------- gpu */

/* The work group's shares (each item's acc[0]), halved to one through
 * shared memory: part[t] = acc[0], then WG/2, WG/4, ... items add their
 * partner's; the sum ends in part[0] (WG a power of two). */
void
lower_sum_shares(PBuild *b, PVar *part, PVar *acc, PExpr *t, int64_t WG)
{
	PExpr *zero = pe_i32(b, 0);
	pb_store(b, part, &t, 1, pe_load(b, acc, &zero, 1));
	pb_barrier(b);
	for (int64_t s = WG / 2; s >= 1; s /= 2) {
		pb_if(b, pe_bin(b, OP_LT, t, pe_i32(b, s)));
		PExpr *other = pe_add(b, t, pe_i32(b, s));
		pb_store(b, part, &t, 1, pe_add(b, pe_load(b, part, &t, 1), pe_load(b, part, &other, 1)));
		pb_close(b);
		if (s > 1)
			pb_barrier(b);
	}
}

void
lower_combine_shares(PBuild *b, PVar *part, PExpr *share, PExpr *t, PExpr *tx, int64_t T,
                     int64_t stride, uint8_t L, bool max)
{
	PExpr *zero = pe_i32(b, 0);
	PExpr *at[2] = {tx, zero};
	pb_store(b, part, at, L, share);
	pb_barrier(b);
	for (int64_t s = T / 2; s >= 1; s /= 2) {
		pb_if(b, pe_bin(b, OP_LT, t, pe_i32(b, s)));
		PExpr *other[2] = {pe_add(b, tx, pe_i32(b, s * stride)), zero};
		PExpr *x = pe_load(b, part, at, L), *y = pe_load(b, part, other, L);
		pb_store(b, part, at, L, max ? pe_call2(b, I_MAX, x, y) : pe_add(b, x, y));
		pb_close(b);
		if (s > 1)
			pb_barrier(b);
	}
}

PExpr *
lower_open_groups(GroupCx *c, int64_t groups, int64_t WG, ElemKind k, uint8_t L, PExpr **bx,
                  PVar **part)
{
	PBuild *b = c->b;
	Module *m = c->m;
	PVar *bv = pb_scalar(b, "bx", (DType){ET_I32, 1});
	pb_for(b, bv, pe_i32(b, 0), pe_i32(b, groups), FK_THREAD, "blockIdx.x");
	int64_t pdims[2] = {WG, L};
	*part = pb_alloc(b, "part", type_tensor(m, (DType){k, 1}, L > 1 ? 2 : 1, pdims),
	                 vdev_get(m, c->dev, sym_intern_cstr(m, "shared")));
	PVar *txv = pb_scalar(b, "tx", (DType){ET_I32, 1});
	pb_for(b, txv, pe_i32(b, 0), pe_i32(b, WG), FK_THREAD, "threadIdx.x");
	*bx = pe_var(b, bv);
	return pe_var(b, txv);
}

/* T, the items per unit of R elements (a power of two, each item about
 * GPU_PER_ITEM elements, at most the device's limit), and G, the units
 * of U per work group. */
static void
items_per_unit(const Device *dev, int64_t R, int64_t U, int64_t *T, int64_t *G)
{
	int64_t limit = lower_wg_limit(dev);
	*T = 1;
	while (2 * *T <= limit && *T * GPU_PER_ITEM < R)
		*T *= 2;
	*G = 1;
	while (2 * *G * *T <= limit && *G < U)
		*G *= 2;
}

int
lower_reduce_gpu(GroupCx *c)
{
	Reduction rd;
	if (!c->device || c->device->kind == DK_CPU || !lower_reduction(c, &rd))
		return 0;
	const Type *it = rd.it;
	/* consecutive elements of a unit lie next to each other: the last
	 * axis is reduced, or is the texel's lanes, or a window's rows */
	bool inner = rd.window || rd.lanes > 1 || (it->n > 0 && rd.red[it->n - 1]);
	if (rd.R < GPU_MIN_LENGTH ||
	    (!inner && (rd.R < GPU_STRIDED_MIN_LENGTH || rd.U > GPU_STRIDED_MAX_RESULTS)))
		return 0;
	/* vectors of 8 (or 4) along a reduced last axis of a multiple of
	 * 8 (or 4): more bytes in flight per item, which a pool of 32
	 * channels of 112x112, 32 work groups, needs on the H100 */
	uint32_t V = 1;
	int64_t last = it->n ? it->dims[it->n - 1] : 1;
	if (!rd.window && rd.lanes == 1 && it->n > 0 && rd.red[it->n - 1])
		for (V = 8; V > 1; V /= 2)
			if (last % V == 0 && (c->g->n == 1 || lower_chain_lanes_ok(c, c->g->n - 2, V)))
				break;
	int64_t E = rd.R / V;   /* loads per unit */
	int64_t T, G;
	items_per_unit(c->device, E, rd.U, &T, &G);
	if (T < 4)
		return 0;
	int64_t WG = G * T, groups = ceil_div(rd.U, G), S = 1;
	if (!rd.window && groups < GPU_GROUPS && E > T * GPU_MAX_PER_ITEM) {
		S = ceil_div(GPU_GROUPS, groups);
		if (S > E / (T * GPU_PER_ITEM))
			S = E / (T * GPU_PER_ITEM);
	}
	int64_t RS = ceil_div(E, S);
	S = ceil_div(E, RS);    /* no empty slice */
	PBuild *b = c->b;
	Module *m = c->m;
	uint8_t L = (uint8_t)rd.lanes;
	PVar *ps = lower_reduction_parts(c, &rd, S);

	int depth = pb_depth(b);
	lower_kernel(c);
	PExpr *bz = NULL;
	if (S > 1) {
		PVar *z = pb_scalar(b, "bz", (DType){ET_I32, 1});
		pb_for(b, z, pe_i32(b, 0), pe_i32(b, S), FK_THREAD, "blockIdx.y");
		bz = pe_var(b, z);
	}
	PVar *bx = pb_scalar(b, "bx", (DType){ET_I32, 1});
	pb_for(b, bx, pe_i32(b, 0), pe_i32(b, groups), FK_THREAD, "blockIdx.x");
	int64_t pdims[2] = {WG, L};
	PVar *part = pb_alloc(b, "part", type_tensor(m, (DType){rd.ak, 1}, L > 1 ? 2 : 1, pdims),
	                      vdev_get(m, c->dev, sym_intern_cstr(m, "shared")));
	PVar *txv = pb_scalar(b, "tx", (DType){ET_I32, 1});
	pb_for(b, txv, pe_i32(b, 0), pe_i32(b, WG), FK_THREAD, "threadIdx.x");
	PExpr *tx = pe_var(b, txv), *t = tx, *u = pe_var(b, bx);
	if (G > 1) {
		t = pb_let(b, "t", pe_mod(b, tx, pe_i32(b, T)));
		u = pb_let(b, "u", pe_add(b, pe_mul(b, u, pe_i32(b, G)), pe_div(b, tx, pe_i32(b, T))));
	}
	PExpr *oidx[LOWER_MAX_RANK], *in[LOWER_MAX_RANK];
	lower_unflatten(b, u, rd.udims, NULL, rd.ot->n, oidx);
	PExpr *ulive = groups * G != rd.U ? pe_bin(b, OP_LT, u, pe_i32(b, rd.U)) : NULL;

	/* Each item's share: elements t, t + T, ... of its slice. */
	int64_t alanes = L * V;
	PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){rd.ak, 1}, 1, &alanes), c->local);
	PExpr *zero = pe_i32(b, 0);
	pb_store(b, acc, &zero, (uint8_t)alanes, pe_broadcast(b, (uint8_t)alanes, lower_reduction_init(c, &rd)));
	int items = pb_depth(b);
	if (ulive)
		pb_if(b, ulive);
	PVar *r = pb_scalar(b, "r", (DType){ET_I32, 1});
	pb_for(b, r, pe_i32(b, 0), pe_i32(b, ceil_div(RS, T)), FK_SERIAL, NULL);
	PExpr *f = pe_add(b, pe_mul(b, pe_var(b, r), pe_i32(b, T)), t);
	if (RS % T)
		pb_if(b, pe_bin(b, OP_LT, f, pe_i32(b, RS)));
	if (bz)
		f = pe_add(b, pe_mul(b, bz, pe_i32(b, RS)), f);
	f = pb_let(b, "f", f);
	if (S * RS != E)
		pb_if(b, pe_bin(b, OP_LT, f, pe_i32(b, E)));
	PExpr *inside = lower_reduction_index(c, &rd, oidx, f, V, in);
	if (inside)
		pb_if(b, inside);
	uint8_t AL = (uint8_t)(L * V);
	PExpr *x = lower_reduction_operand(c, &rd, in, AL);
	if (!x)
		return -1;
	pb_store(b, acc, &zero, AL, lower_reduction_combine(c, &rd, pe_load(b, acc, &zero, AL), x));
	pb_close_to(b, items);

	PExpr *share = pe_load(b, acc, &zero, AL);
	if (V > 1) {
		PExpr *v = pb_let(b, "v", share);
		share = pe_lane(b, v, 0);
		for (uint32_t i = 1; i < V; i++)
			share = lower_reduction_combine(c, &rd, share, pe_lane(b, v, i));
	}
	lower_combine_shares(b, part, share, t, tx, T, 1, L, rd.op == O_MAX_POOL2D);
	PExpr *first = pe_bin(b, OP_EQ, t, zero);
	pb_if(b, ulive ? pe_bin(b, OP_AND, first, ulive) : first);
	PExpr *at[2] = {tx, zero};
	PExpr *total = pe_load(b, part, at, L);
	lower_reduction_finish(c, &rd, ps, bz, u, oidx, total, depth, S);
	return 1;
}

/* ------------------------------------------------------------ softmax */

/* The row of x along axis: for each element e of the item's share
 * (t, t + T, ... of n), idx[axis] = e; opens the loops (close to the
 * depth taken before). */
static void
row_share(PBuild *b, PExpr **idx, int64_t axis, int64_t n, PExpr *t, int64_t T)
{
	PVar *r = pb_scalar(b, "r", (DType){ET_I32, 1});
	pb_for(b, r, pe_i32(b, 0), pe_i32(b, ceil_div(n, T)), FK_SERIAL, NULL);
	PExpr *e = pe_add(b, pe_mul(b, pe_var(b, r), pe_i32(b, T)), t);
	if (n % T)
		pb_if(b, pe_bin(b, OP_LT, e, pe_i32(b, n)));
	idx[axis] = pb_let(b, "e", e);
}

bool
lower_row_items(const Device *dev, int64_t n, int64_t rows, bool inner, int64_t *T, int64_t *G)
{
	if (n < GPU_MIN_LENGTH ||
	    (!inner && (n < GPU_STRIDED_MIN_LENGTH || rows > GPU_STRIDED_MAX_RESULTS)))
		return false;
	items_per_unit(dev, n, rows, T, G);
	return true;
}

/* softmax on a gpu with rows of at least GPU_MIN_LENGTH along its last
 * axis (or as long and few as a strided reduction): T items per row, G
 * rows per work group, as a reduction's units.  The row's maximum and
 * its sum of exp(x - max) are each combined in shared memory, every
 * item reading the result after a barrier; then each item writes its
 * share of exp(x - max) / sum. */
int
lower_softmax_gpu(GroupCx *c)
{
	if (!c->device || c->device->kind == DK_CPU)
		return 0;
	const Value *v = c->g->members[0];
	const Type *ty = v->type;
	uint32_t rank = ty->n;
	if (ty->kind != TY_TENSOR || rank == 0 || type_numel(ty) < 1)
		return 0;
	int64_t axis = lower_softmax_axis(v);
	int64_t n = ty->dims[axis], rows = type_numel(ty) / n;
	int64_t T, G;
	if (!lower_row_items(c->device, n, rows, axis + 1 == rank, &T, &G))
		return 0;
	int64_t WG = G * T, groups = ceil_div(rows, G);
	ElemKind kk = (ElemKind)ty->dt.kind;
	PBuild *b = c->b;
	Module *m = c->m;
	PVar *in = lower_input(c, 0, 0, -1)->buf;
	int64_t dims[LOWER_MAX_RANK];
	memcpy(dims, ty->dims, rank * sizeof *dims);
	dims[axis] = 1;

	int depth = pb_depth(b);
	lower_kernel(c);
	PExpr *bx;
	PVar *part;
	PExpr *tx = lower_open_groups(c, groups, WG, kk, 1, &bx, &part);
	PExpr *t = tx, *u = bx, *first = pe_i32(b, 0);
	if (G > 1) {
		t = pb_let(b, "t", pe_mod(b, tx, pe_i32(b, T)));
		u = pb_let(b, "u", pe_add(b, pe_mul(b, u, pe_i32(b, G)), pe_div(b, tx, pe_i32(b, T))));
		first = pb_let(b, "w", pe_sub(b, tx, t));
	}
	PExpr *idx[LOWER_MAX_RANK];
	lower_unflatten(b, u, dims, NULL, rank, idx);
	PExpr *live = groups * G != rows ? pe_bin(b, OP_LT, u, pe_i32(b, rows)) : NULL;
	int64_t one = 1;
	PExpr *zero = pe_i32(b, 0);

	/* the maximum, then the sum of exp(x - max), each over the row */
	PExpr *stat[2] = {NULL, NULL};
	for (int k = 0; k < 2; k++) {
		PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){kk, 1}, 1, &one), c->local);
		pb_store(b, acc, &zero, 1, k ? pe_float(b, 0, kk) : pe_lowest(b, kk));
		int open = pb_depth(b);
		if (live)
			pb_if(b, live);
		row_share(b, idx, axis, n, t, T);
		PExpr *x = pe_load(b, in, idx, 1), *a = pe_load(b, acc, &zero, 1);
		pb_store(b, acc, &zero, 1, k ? pe_add(b, a, pe_call1(b, I_EXP, pe_sub(b, x, stat[0])))
		                             : pe_call2(b, I_MAX, a, x));
		pb_close_to(b, open);
		lower_combine_shares(b, part, pe_load(b, acc, &zero, 1), t, tx, T, 1, 1, k == 0);
		pb_barrier(b);
		stat[k] = pb_let(b, k ? "s" : "m", pe_load(b, part, &first, 1));
		if (k == 0)
			pb_barrier(b);  /* read by all before the sum's shares overwrite it */
	}
	if (live)
		pb_if(b, live);
	row_share(b, idx, axis, n, t, T);
	pb_store(b, c->out[0], idx, 1,
	         pe_div(b, pe_call1(b, I_EXP, pe_sub(b, pe_load(b, in, idx, 1), stat[0])), stat[1]));
	pb_close_to(b, depth);
	return 1;
}
