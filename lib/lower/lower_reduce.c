/* lower_reduce.c: sum and mean reduced across the work items of a work
 * group, on a gpu.
 *
 * With one work item per result, a sum of a million elements to one
 * value is one work item doing all the work.  When a group ends in a sum
 * or mean with few results and a long reduction, each result gets a
 * work group instead, as TVM's cross-thread reduction does:
 *
 *   for %bx in 0..RESULTS bind(blockIdx.x) {
 *     alloc %part: T[WG] @dev:shared
 *     for %tx in 0..WG bind(threadIdx.x) {
 *       (each item adds up every WG-th element into a local accumulator)
 *       %part[%tx] = ...
 *       barrier
 *       if %tx < WG/2 { %part[%tx] = %part[%tx] + %part[%tx + WG/2] }
 *       barrier
 *       ... halving down to 1 ...
 *       if %tx == 0 { %out[...] = %part[0] }
 *     }
 *   }
 *
 * WG is a power of two within the device's work-group limit.  The order
 * of additions differs from a serial sum, as on any gpu.  An integer
 * mean adds up in 64 bits (lower_average_kind), %part included.
 */
#include <string.h>

#include "lower_impl.h"
#include "ops/ops.h"

/* At most this many results, and at least this long a reduction. */
enum { ACROSS_MAX_RESULTS = 4096, ACROSS_MIN_LENGTH = 512 };

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

int
lower_reduce_across(GroupCx *c)
{
	const Value *v = c->g->members[c->g->n - 1];
	OpId op = v->u.op->op->id;
	bool mean = op == O_MEAN;
	if (!c->device || c->device->kind == DK_CPU || (!mean && op != O_SUM) ||
	    v->args[0]->kind == VK_LIT)
		return 0;
	const Type *it = v->args[0]->type, *ot = v->type;
	ReduceAttrs ra;
	lower_reduce_attrs(v, &ra);
	const bool *red = ra.red;
	int64_t R = 1, outs = type_numel(ot);
	for (uint32_t d = 0; d < it->n; d++)
		if (red[d])
			R *= it->dims[d];
	/* A packed result is computed a texel at a time (it may be an image). */
	if (R < ACROSS_MIN_LENGTH || outs > ACROSS_MAX_RESULTS || outs < 1 || lower_packed_result(c))
		return 0;
	int64_t limit = lower_wg_limit(c->device);
	int64_t WG = 1;
	while (2 * WG <= limit && 2 * WG <= R)
		WG *= 2;
	if (WG < 2)
		return 0;
	bool keep = ra.keepdims;
	ElemKind kk = (ElemKind)ot->dt.kind, ak = mean ? lower_average_kind(kk) : kk;
	PBuild *b = c->b;
	int64_t one = 1;

	int depth = pb_depth(b);
	lower_kernel(c);
	PVar *bx = pb_scalar(b, "bx", (DType){ET_I32, 1});
	pb_for(b, bx, pe_i32(b, 0), pe_i32(b, outs), FK_THREAD, "blockIdx.x");
	int64_t wg = WG;
	PVar *part = pb_alloc(b, "part", type_tensor(c->m, (DType){ak, 1}, 1, &wg),
	                      vdev_get(c->m, c->dev, sym_intern_cstr(c->m, "shared")));
	PVar *tx = pb_scalar(b, "tx", (DType){ET_I32, 1});
	pb_for(b, tx, pe_i32(b, 0), pe_i32(b, WG), FK_THREAD, "threadIdx.x");
	PExpr *t = pe_var(b, tx);

	/* The result's index from the block, then the input's kept axes. */
	PExpr *oidx[LOWER_MAX_RANK], *in[LOWER_MAX_RANK];
	lower_unflatten(b, pe_var(b, bx), ot->dims, NULL, ot->n, oidx);
	for (uint32_t d = 0, o = 0; d < it->n; d++) {
		if (!red[d])
			in[d] = oidx[o];
		if (!red[d] || keep)
			o++;
	}

	/* Each item's share: elements tx, tx + WG, tx + 2 WG, ... */
	PVar *acc = pb_alloc(b, "acc", type_tensor(c->m, (DType){ak, 1}, 1, &one), c->local);
	PExpr *zero = pe_i32(b, 0);
	pb_store(b, acc, &zero, 1, pe_float(b, 0, ak));
	int items = pb_depth(b);
	PVar *r = pb_scalar(b, "r", (DType){ET_I32, 1});
	pb_for(b, r, pe_i32(b, 0), pe_i32(b, (R + WG - 1) / WG), FK_SERIAL, NULL);
	PExpr *f = pb_let(b, "f", pe_add(b, pe_mul(b, pe_var(b, r), pe_i32(b, WG)), t));
	bool ragged = R % WG != 0;
	if (ragged)
		pb_if(b, pe_bin(b, OP_LT, f, pe_i32(b, R)));
	lower_unflatten(b, f, it->dims, red, it->n, in);
	PExpr *x = lower_operand(c, c->g->n - 1, 0, in, 1);
	if (!x)
		return -1;
	x = pe_cast(b, (DType){ak, 1}, x);
	pb_store(b, acc, &zero, 1, pe_add(b, pe_load(b, acc, &zero, 1), x));
	pb_close_to(b, items);  /* if ragged, r */

	lower_sum_shares(b, part, acc, t, WG);
	pb_if(b, pe_bin(b, OP_EQ, t, pe_i32(b, 0)));
	PExpr *res = pe_load(b, part, &zero, 1);
	if (mean)
		res = pe_div(b, res, pe_float(b, (double)R, ak));
	pb_store(b, c->out[0], oidx, 1, pe_cast(b, (DType){kk, 1}, res));
	pb_close_to(b, depth);  /* if, tx, bx, kernel */
	return 1;
}
