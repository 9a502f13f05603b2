/* lower_reduce_cpu.c: a sum, a mean or a global average pool on a cpu,
 * in vectors and in slices.
 *
 * An element per work item makes a pool of 32 channels of 112x112 32
 * items, each adding 12,544 numbers one at a time, in one work group,
 * so on one core: POCL can vectorize across a group's items, but items
 * whose elements lie 12,544 apart only as gathers.  Here each item adds
 * its rows in vectors of V lanes along the reduced last axis (the row's
 * tail one at a time), and when there are few results their rows are
 * cut into S slices, a second parallel axis:
 *
 *   for %u in 0..U parallel {
 *     for %s in 0..S parallel {                (S > 1 only)
 *       alloc %acc: A[V] @dev:local
 *       for %q in 0..ROWS/S {
 *         for %j in 0..LAST/V { %acc[0:V] = %acc[0:V] + x[..., %j * V:V] }
 *         (the row's last LAST % V elements into a scalar)
 *       (the lanes added up: the unit's result, or its slice's part in
 *        %ps [S, U, 1], which a second kernel adds up)
 *
 * A packed result (NCHW4c) already adds texels as vectors.  Where its
 * rows run along the axis before the lanes (W of NCHW4c) in a multiple
 * of 4, the pool or sum alone (a fused producer's operands may
 * broadcast) gathers 4 neighbouring texels into one vector and adds
 * that: 4 sums side by side, added up at the end.  A texel a step was
 * a chain of dependent 4-lane adds: efficientnet_b0's global average
 * pools ran at 2 GFLOP/s on POCL, 0.7 ms of its 15.  The order of
 * additions differs from a serial sum.
 */
#include <string.h>

#include "lower_impl.h"
#include "ops/ops.h"

enum {
	/* Reductions shorter than this keep an element per item. */
	CPU_MIN_LENGTH = 64,
	/* Slices are cut until there are this many tasks, ... */
	CPU_TASKS = 256,
	/* ... each of at least this many elements. */
	CPU_MIN_SLICE = 1024,
};

static int64_t
ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* in[] gets the kept axes' indices from oidx, the reduced ones but the
 * last from q, their flat index (C order); with Q > 1, q counts runs of
 * Q along the axis before the last (whose index is then a multiple of
 * Q). */
static void
row_index(GroupCx *c, const Reduction *rd, PExpr *const *oidx, PExpr *q, bool last_too, int64_t Q,
          PExpr **in)
{
	const Type *it = rd->it;
	bool sel[LOWER_MAX_RANK];
	int64_t dims[LOWER_MAX_RANK];
	memcpy(dims, it->dims, it->n * sizeof *dims);
	for (uint32_t d = 0, o = 0; d < it->n; d++) {
		sel[d] = rd->red[d] && (last_too || d + 1 < it->n);
		if (!rd->red[d])
			in[d] = oidx[o];
		if (!rd->red[d] || rd->keep || rd->op == O_GLOBAL_AVG_POOL2D)
			o++;
	}
	if (Q > 1)
		dims[it->n - 2] /= Q;
	lower_unflatten(c->b, q, dims, sel, it->n, in);
	if (Q > 1)
		in[it->n - 2] = pe_mul(c->b, in[it->n - 2], pe_i32(c->b, (int32_t)Q));
}

int
lower_reduce_cpu(GroupCx *c)
{
	Reduction rd;
	if (!c->device || c->device->kind != DK_CPU || !lower_reduction(c, &rd) || rd.window ||
	    rd.R < CPU_MIN_LENGTH)
		return 0;
	const Type *it = rd.it;
	uint32_t n = it->n, V = 1;
	int64_t last = n ? it->dims[n - 1] : 1, rows = rd.R;
	bool along = rd.lanes == 1 && n > 0 && rd.red[n - 1];
	if (along) {
		V = last >= 8 ? 8 : last >= 4 ? 4 : 1;
		if (V > 1 && c->g->n > 1 && !lower_chain_lanes_ok(c, c->g->n - 2, V))
			V = 1;
		rows = rd.R / last;
	}
	/* runs of Q texels as one vector (the comment at the top) */
	int64_t Q = 1;
	if (!along && rd.lanes == 4 && c->g->n == 1 && n >= 2 && !rd.red[n - 1] && rd.red[n - 2] &&
	    it->dims[n - 2] % 4 == 0)
		Q = 4, rows /= 4;
	int64_t S = 1;
	if (rd.U < CPU_TASKS) {
		S = ceil_div(CPU_TASKS, rd.U);
		if (S > rows)
			S = rows;
		if (S > rd.R / CPU_MIN_SLICE)
			S = rd.R / CPU_MIN_SLICE;
		if (S < 1)
			S = 1;
	}
	int64_t RS = ceil_div(rows, S);
	S = ceil_div(rows, RS);
	if (S == 1 && V == 1 && Q == 1)
		return 0;    /* nothing to gain over an element per item */
	PBuild *b = c->b;
	Module *m = c->m;
	uint8_t L = (uint8_t)rd.lanes;
	PVar *ps = lower_reduction_parts(c, &rd, S);

	int depth = pb_depth(b);
	lower_kernel(c);
	PVar *uv = pb_scalar(b, "u", (DType){ET_I32, 1});
	pb_for(b, uv, pe_i32(b, 0), pe_i32(b, rd.U), FK_PARALLEL, NULL);
	PExpr *u = pe_var(b, uv), *s = NULL;
	if (S > 1) {
		PVar *sv = pb_scalar(b, "s", (DType){ET_I32, 1});
		pb_for(b, sv, pe_i32(b, 0), pe_i32(b, S), FK_PARALLEL, NULL);
		s = pe_var(b, sv);
	}
	PExpr *oidx[LOWER_MAX_RANK], *in[LOWER_MAX_RANK];
	lower_unflatten(b, u, rd.udims, NULL, rd.ot->n, oidx);
	PExpr *zero = pe_i32(b, 0);
	PExpr *init = lower_reduction_init(c, &rd);
	/* vectors of V lanes along the last axis, or Q texels' lanes */
	uint8_t W = (uint8_t)(along ? V : L * Q);
	int64_t wl = W;
	PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){rd.ak, 1}, 1, &wl), c->local);
	pb_store(b, acc, &zero, W, pe_broadcast(b, W, init));
	int64_t one = 1, full = along ? last / V : 0;
	bool tail = along && last % V != 0;
	PVar *rest = NULL;
	if (tail) {
		rest = pb_alloc(b, "rest", type_tensor(m, (DType){rd.ak, 1}, 1, &one), c->local);
		pb_store(b, rest, &zero, 1, init);
	}
	int body = pb_depth(b);
	PVar *qv = pb_scalar(b, "q", (DType){ET_I32, 1});
	pb_for(b, qv, zero, pe_i32(b, RS), FK_SERIAL, NULL);
	PExpr *q = pe_var(b, qv);
	if (s)
		q = pb_let(b, "q", pe_add(b, pe_mul(b, s, pe_i32(b, RS)), q));
	if (S * RS != rows)
		pb_if(b, pe_bin(b, OP_LT, q, pe_i32(b, rows)));
	row_index(c, &rd, oidx, q, !along, Q, in);
	if (along) {
		if (full) {
			PVar *jv = pb_scalar(b, "j", (DType){ET_I32, 1});
			pb_for(b, jv, zero, pe_i32(b, full), FK_SERIAL, NULL);
			in[n - 1] = pe_mul(b, pe_var(b, jv), pe_i32(b, V));
			PExpr *x = lower_reduction_operand(c, &rd, in, V);
			if (!x)
				return -1;
			pb_store(b, acc, &zero, V, lower_reduction_combine(c, &rd, pe_load(b, acc, &zero, V), x));
			pb_close(b);
		}
		if (tail) {
			PVar *jv = pb_scalar(b, "j", (DType){ET_I32, 1});
			pb_for(b, jv, pe_i32(b, full * V), pe_i32(b, last), FK_SERIAL, NULL);
			in[n - 1] = pe_var(b, jv);
			PExpr *x = lower_reduction_operand(c, &rd, in, 1);
			if (!x)
				return -1;
			pb_store(b, rest, &zero, 1, lower_reduction_combine(c, &rd, pe_load(b, rest, &zero, 1), x));
			pb_close(b);
		}
	} else if (Q > 1) {
		/* the Q texels gathered into one vector (a run of lanes stays
		 * within the last axis) */
		PVar *run = pb_alloc(b, "run", type_tensor(m, (DType){rd.ak, 1}, 1, &wl), c->local);
		PExpr *col = in[n - 2];
		for (int64_t i = 0; i < Q; i++) {
			in[n - 2] = i ? pe_add(b, col, pe_i32(b, (int32_t)i)) : col;
			PExpr *x = lower_reduction_operand(c, &rd, in, L), *at = pe_i32(b, (int32_t)(i * L));
			if (!x)
				return -1;
			pb_store(b, run, &at, L, x);
		}
		pb_store(b, acc, &zero, W,
		         lower_reduction_combine(c, &rd, pe_load(b, acc, &zero, W), pe_load(b, run, &zero, W)));
	} else {
		PExpr *x = lower_reduction_operand(c, &rd, in, L);
		if (!x)
			return -1;
		pb_store(b, acc, &zero, L, lower_reduction_combine(c, &rd, pe_load(b, acc, &zero, L), x));
	}
	pb_close_to(b, body);

	PExpr *total = pe_load(b, acc, &zero, W);
	if (Q > 1) { /* the Q texels' sums added up */
		total = pe_load(b, acc, &zero, L);
		for (int64_t i = 1; i < Q; i++) {
			PExpr *at = pe_i32(b, (int32_t)(i * L));
			total = lower_reduction_combine(c, &rd, total, pe_load(b, acc, &at, L));
		}
		total = pb_let(b, "t", total);
	}
	if (along) {
		/* the lanes in order, then the rows' tails */
		PExpr *v = W > 1 ? pb_let(b, "v", total) : total;
		total = W > 1 ? pe_lane(b, v, 0) : v;
		for (uint32_t i = 1; i < W; i++)
			total = lower_reduction_combine(c, &rd, total, pe_lane(b, v, i));
		if (tail)
			total = lower_reduction_combine(c, &rd, total, pe_load(b, rest, &zero, 1));
		total = pb_let(b, "t", total);
	}
	lower_reduction_finish(c, &rd, ps, s, u, oidx, total, depth, S);
	return 1;
}

/* ------------------------------------------------------------ softmax */

bool
lower_row_part(PBuild *b, int t, int64_t n, uint8_t V, PExpr **last)
{
	int64_t full = n / V;
	if (t ? n % V == 0 : full == 0)
		return false;
	PVar *jv = pb_scalar(b, "j", (DType){ET_I32, 1});
	pb_for(b, jv, pe_i32(b, t ? full * V : 0), pe_i32(b, t ? n : full), FK_SERIAL, NULL);
	*last = t ? pe_var(b, jv) : pe_mul(b, pe_var(b, jv), pe_i32(b, V));
	return true;
}

/* softmax on a cpu along its last axis, f32 rows of at least 16: a work
 * item per row, as lower_softmax, but in vectors of V lanes along the
 * row (its tail one at a time): the maximum in lanes; exp(x - max)
 * written to the result and summed in lanes; the result divided by the
 * sum in place.  lower_softmax's element loops reduce in order (fmax
 * and a serial sum, which no compiler reorders) and evaluate exp twice:
 * vit_b_16's 12 x 197 x 197 attention took 4 ms a layer on 1 thread.
 * The sum's order differs from a serial one. */
int
lower_softmax_cpu(GroupCx *c)
{
	if (!c->device || c->device->kind != DK_CPU)
		return 0;
	const Value *v = c->g->members[0];
	const Type *ty = v->type;
	uint32_t rank = ty->n;
	if (ty->kind != TY_TENSOR || rank == 0 || ty->dt.kind != ET_F32 || ty->dt.lanes != 1 ||
	    lower_softmax_axis(v) + 1 != rank || ty->dims[rank - 1] < 16)
		return 0;
	int64_t n = ty->dims[rank - 1], rows = type_numel(ty) / n;
	uint8_t V = n >= 64 ? 16 : 8;
	int64_t wl = V, one = 1;
	PBuild *b = c->b;
	Module *m = c->m;
	PVar *in = lower_input(c, 0, 0, -1)->buf, *out = c->out[0];
	DType f = {ET_F32, 1};
	int64_t dims[LOWER_MAX_RANK];
	memcpy(dims, ty->dims, rank * sizeof *dims);
	dims[rank - 1] = 1;

	int depth = pb_depth(b);
	lower_kernel(c);
	PVar *uv = pb_scalar(b, "u", (DType){ET_I32, 1});
	pb_for(b, uv, pe_i32(b, 0), pe_i32(b, rows), FK_PARALLEL, NULL);
	PExpr *idx[LOWER_MAX_RANK], *zero = pe_i32(b, 0), *stat[2] = {NULL, NULL};
	lower_unflatten(b, pe_var(b, uv), dims, NULL, rank, idx);
	/* pass k: 0 the maximum, 1 the sum of exp(x - max), stored */
	for (int k = 0; k < 2; k++) {
		PExpr *init = k ? pe_float(b, 0, ET_F32) : pe_lowest(b, ET_F32);
		PVar *acc = pb_alloc(b, "acc", type_tensor(m, f, 1, &wl), c->local), *rest = NULL;
		pb_store(b, acc, &zero, V, pe_broadcast(b, V, init));
		if (n % V) {
			rest = pb_alloc(b, "rest", type_tensor(m, f, 1, &one), c->local);
			pb_store(b, rest, &zero, 1, init);
		}
		for (int t = 0; t < 2; t++) {     /* the vectors, then the tail */
			uint8_t w = t ? 1 : V;
			PVar *a = t ? rest : acc;
			if (!lower_row_part(b, t, n, V, &idx[rank - 1]))
				continue;
			PExpr *x = pe_load(b, in, idx, w), *old = pe_load(b, a, &zero, w);
			if (k) {
				PExpr *mx = w > 1 ? pe_broadcast(b, w, stat[0]) : stat[0];
				x = pb_let(b, "e", pe_call1(b, I_EXP, pe_sub(b, x, mx)));
				pb_store(b, out, idx, w, x);
			}
			pb_store(b, a, &zero, w, k ? pe_add(b, old, x) : pe_call2(b, I_MAX, old, x));
			pb_close(b);
		}
		PExpr *lanes = pb_let(b, "v", pe_load(b, acc, &zero, V));
		PExpr *total = pe_lane(b, lanes, 0);
		for (uint32_t i = 1; i < V; i++)
			total = k ? pe_add(b, total, pe_lane(b, lanes, i))
			          : pe_call2(b, I_MAX, total, pe_lane(b, lanes, i));
		if (rest) {
			PExpr *r = pe_load(b, rest, &zero, 1);
			total = k ? pe_add(b, total, r) : pe_call2(b, I_MAX, total, r);
		}
		stat[k] = pb_let(b, k ? "s" : "m", total);
	}
	/* exp(x - max) / sum, in place */
	for (int t = 0; t < 2; t++) {
		uint8_t w = t ? 1 : V;
		if (!lower_row_part(b, t, n, V, &idx[rank - 1]))
			continue;
		PExpr *sum = w > 1 ? pe_broadcast(b, w, stat[1]) : stat[1];
		pb_store(b, out, idx, w, pe_div(b, pe_load(b, out, idx, w), sum));
		pb_close(b);
	}
	pb_close_to(b, depth);
	return 1;
}
