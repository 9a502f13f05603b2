/* lower_pool_cpu.c: max and average pools of a window on a cpu, a row of
 * output columns per work item, in vectors along the row.
 *
 * An element per work item made each output a chain of scalar max (or
 * add) over its window, each tap a bounds test and a load: googlenet's
 * max pools took about 9 of its 47 ms on POCL, 1 thread (issue 23).
 * Here a work item computes RX = 8 (or 4) consecutive output columns of
 * one output row (the last tile shifted left to end at the row's end
 * where RX does not divide the width, storing only its own columns), and
 * combines each tap's RX outputs as one vector:
 *
 *   stride 1: acc = max(acc, x[..., iy, x0 + kx * dil : RX]) per tap,
 *             straight from the input;
 *   else:     the window's row read once in vectors (of RX, then fewer)
 *             into a private array, each tap's RX elements gathered from
 *             it by constant indices (a compiler keeps both arrays in
 *             registers and makes the gathers shuffles).
 *
 * That needs the tile's row inside the input: the tiles at the row's
 * ends, where the padding or ceil_mode's last window lies, read the row
 * one element at a time, clamped, the columns outside the input selected
 * to the identity (the lowest value, or 0), and combine scalars.  Rows
 * of the window in the padding above or below are skipped whole.  An
 * average pool's outputs are divided by their own count as before
 * (lower_reduction_store).
 *
 * Producers fused before the pool must compute RX consecutive elements
 * as one vector (a concatenation along the channels can, one along the
 * columns cannot): otherwise, and for packed results (NCHW4c, whose
 * items combine texels already), an element per item as before.
 */
#include <string.h>

#include "lower_impl.h"
#include "ops/ops.h"

enum {
	/* Rows of the window longer than this keep an element per item. */
	MAX_SPAN = 64,
};

/* What both kinds of tile need: the pool, its tile of RX columns from
 * ox0 (start: where it would begin unshifted), the row of the window
 * from input column x0 (span columns). */
typedef struct {
	Reduction rd;
	int64_t RX, span;
	bool shifted;
	PExpr *oidx[LOWER_MAX_RANK];
	PExpr *start, *ox0, *x0;
} Tile;

static PVar *
private_array(GroupCx *c, const char *prefix, const Reduction *rd, int64_t n)
{
	return pb_alloc(c->b, prefix, type_tensor(c->m, (DType){rd->ak, 1}, 1, &n), c->local);
}

/* Opens the window's rows: the loop over ky, and the test that row iy
 * lies in the input where some may not; in[] the operand's index but
 * for the column (closed by the caller). */
static void
open_rows(GroupCx *c, Tile *t, PExpr **in)
{
	PBuild *b = c->b;
	const Reduction *rd = &t->rd;
	const PoolAttrs *pa = &rd->pa;
	int64_t H = rd->it->dims[rd->hax], OH = rd->ot->dims[rd->hax], KH = pa->ps[0];
	PExpr *ky = lower_loop(b, "r", KH, FK_SERIAL);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, t->oidx[rd->hax], pe_i32(b, pa->st[0])),
	                                              pe_i32(b, pa->pad[0])),
	                                  pe_mul(b, ky, pe_i32(b, pa->dil[0]))));
	if (pa->pad[0] > 0 || (OH - 1) * pa->st[0] - pa->pad[0] + (KH - 1) * pa->dil[0] >= H)
		pb_if(b, lower_in_range(b, iy, 0, H));
	for (uint32_t d = 0; d < rd->it->n; d++)
		in[d] = t->oidx[d];
	in[rd->hax] = iy;
}

/* A tile whose row lies inside the input, producers that can compute
 * RX consecutive elements as one vector: each tap's RX outputs as one
 * vector, read straight from the input for stride 1; else the row read
 * in vectors (of RX, then fewer) into a private array and each tap's
 * elements gathered from it by constant indices (in registers once the
 * compiler has promoted the arrays).  A max pool's result stored as one
 * vector where the tile is not shifted; else column by column. */
static bool
vector_tile(GroupCx *c, Tile *t)
{
	PBuild *b = c->b;
	Reduction *rd = &t->rd;
	const PoolAttrs *pa = &rd->pa;
	uint32_t RX = (uint32_t)t->RX;
	int64_t st = pa->st[1], dil = pa->dil[1];
	PVar *acc = private_array(c, "acc", rd, t->RX);
	PVar *row = st == 1 ? NULL : private_array(c, "row", rd, t->span);
	PVar *tap = st == 1 ? NULL : private_array(c, "tap", rd, t->RX);
	PExpr *in[LOWER_MAX_RANK], *zero = pe_i32(b, 0);
	pb_store(b, acc, &zero, RX, pe_broadcast(b, (uint8_t)RX, lower_reduction_init(c, rd)));
	int op = pb_depth(b);
	open_rows(c, t, in);
	for (int64_t j = 0, n; row && j < t->span; j += n) {
		for (n = RX; n > t->span - j; n /= 2)
			;
		in[rd->wax] = pe_add(b, t->x0, pe_i32(b, j));
		PExpr *v = lower_reduction_operand(c, rd, in, (uint32_t)n), *at = pe_i32(b, j);
		if (!v)
			return false;
		pb_store(b, row, &at, (uint32_t)n, v);
	}
	for (int64_t kx = 0; kx < pa->ps[1]; kx++) {
		PExpr *v;
		if (!row) {
			in[rd->wax] = pe_add(b, t->x0, pe_i32(b, kx * dil));
			if (!(v = lower_reduction_operand(c, rd, in, RX)))
				return false;
		} else {
			for (int64_t q = 0; q < t->RX; q++) {
				PExpr *at = pe_i32(b, q * st + kx * dil), *ti = pe_i32(b, q);
				pb_store(b, tap, &ti, 1, pe_load(b, row, &at, 1));
			}
			v = pe_load(b, tap, &zero, RX);
		}
		pb_store(b, acc, &zero, RX, lower_reduction_combine(c, rd, pe_load(b, acc, &zero, RX), v));
	}
	pb_close_to(b, op);
	PExpr *oi[LOWER_MAX_RANK];
	memcpy(oi, t->oidx, rd->ot->n * sizeof *oi);
	if (!t->shifted && rd->op == O_MAX_POOL2D) {
		oi[rd->wax] = t->ox0;
		pb_store(b, c->out[0], oi, RX, pe_cast(b, (DType){rd->kk, (uint8_t)RX}, pe_load(b, acc, &zero, RX)));
		return true;
	}
	PExpr *res = pb_let(b, "v", pe_load(b, acc, &zero, RX));
	for (uint32_t q = 0; q < RX; q++) {
		oi[rd->wax] = pe_add(b, t->ox0, pe_i32(b, q));
		op = pb_depth(b);
		if (t->shifted)
			pb_if(b, pe_bin(b, OP_GE, oi[rd->wax], t->start));
		lower_reduction_store(c, rd, oi, pe_lane(b, res, q));
		pb_close_to(b, op);
	}
	return true;
}

/* A tile at the row's ends, in scalars: the row of the window read once
 * per input row, clamped, the columns outside the input the identity;
 * then RX x KW combinations of registers. */
static bool
scalar_tile(GroupCx *c, Tile *t)
{
	PBuild *b = c->b;
	Reduction *rd = &t->rd;
	const PoolAttrs *pa = &rd->pa;
	int64_t W = rd->it->dims[rd->wax];
	PVar *acc = private_array(c, "acc", rd, t->RX);
	PVar *row = private_array(c, "row", rd, t->span);
	PExpr *in[LOWER_MAX_RANK];
	int op = pb_depth(b);
	PExpr *q = lower_loop(b, "u", t->RX, FK_UNROLLED);
	pb_store(b, acc, &q, 1, lower_reduction_init(c, rd));
	pb_close_to(b, op);
	open_rows(c, t, in);
	int jop = pb_depth(b);
	PExpr *j = lower_loop(b, "u", t->span, FK_UNROLLED);
	PExpr *ix = pb_let(b, "cx", pe_add(b, t->x0, j));
	in[rd->wax] = pe_call2(b, I_MIN, pe_call2(b, I_MAX, ix, pe_i32(b, 0)), pe_i32(b, W - 1));
	PExpr *val = lower_reduction_operand(c, rd, in, 1);
	if (!val)
		return false;
	pb_store(b, row, &j, 1, pe_select(b, lower_in_range(b, ix, 0, W), val, lower_reduction_init(c, rd)));
	pb_close_to(b, jop);
	int kop = pb_depth(b);
	PExpr *kx = lower_loop(b, "u", pa->ps[1], FK_UNROLLED);
	q = lower_loop(b, "u", t->RX, FK_UNROLLED);
	PExpr *at = pe_add(b, pe_mul(b, q, pe_i32(b, pa->st[1])), pe_mul(b, kx, pe_i32(b, pa->dil[1])));
	pb_store(b, acc, &q, 1, lower_reduction_combine(c, rd, pe_load(b, acc, &q, 1), pe_load(b, row, &at, 1)));
	pb_close_to(b, kop);
	pb_close_to(b, op); /* the guard, ky */

	/* (a shifted tile's columns left of its own start are another's) */
	q = lower_loop(b, "u", t->RX, FK_UNROLLED);
	PExpr *ox = pe_add(b, t->ox0, q);
	if (t->shifted)
		pb_if(b, pe_bin(b, OP_GE, ox, t->start));
	PExpr *oi[LOWER_MAX_RANK];
	memcpy(oi, t->oidx, rd->ot->n * sizeof *oi);
	oi[rd->wax] = ox;
	lower_reduction_store(c, rd, oi, pe_load(b, acc, &q, 1));
	pb_close_to(b, op);
	return true;
}

int
lower_pool_cpu(GroupCx *c)
{
	Tile t;
	Reduction *rd = &t.rd;
	if (!c->device || c->device->kind != DK_CPU || !lower_reduction(c, rd) || !rd->window ||
	    rd->lanes != 1 || rd->wax != (int)rd->it->n - 1)
		return 0;
	const PoolAttrs *pa = &rd->pa;
	uint32_t n = rd->it->n;
	int64_t H = rd->it->dims[rd->hax], W = rd->it->dims[rd->wax], OW = rd->ot->dims[rd->wax];
	int64_t KW = pa->ps[1], st = pa->st[1], dil = pa->dil[1];
	t.RX = OW >= 8 ? 8 : OW >= 4 ? 4 : 0;
	t.span = (t.RX - 1) * st + (KW - 1) * dil + 1;
	if (!t.RX || t.span > MAX_SPAN || H < 1 || W < 1)
		return 0;
	t.shifted = OW % t.RX != 0;
	/* Whether every tile's row lies inside the input, or none does (the
	 * last tile's row ends at (OW - 1) * st + (KW - 1) * dil - pad). */
	int64_t last = (OW - 1) * st + (KW - 1) * dil - pa->pad[1];
	bool all_inside = pa->pad[1] == 0 && last < W, none_inside = t.span > W;
	/* vectors straight from the input: stride 1, a max, producers that
	 * can compute RX consecutive elements as one vector */
	bool vec = !none_inside &&
	           (c->g->n == 1 || lower_chain_lanes_ok(c, c->g->n - 2, (uint32_t)t.RX));
	/* Without vectors (producers that cannot compute them) the scalar
	 * tiles of consecutive work items read with a stride, which POCL
	 * vectorises across items as gathers: slower on squeezenet1_1's
	 * pools than an element per item. */
	if (!vec)
		return 0;
	PBuild *b = c->b;

	int64_t grid[LOWER_MAX_RANK];
	memcpy(grid, rd->udims, n * sizeof *grid);
	grid[rd->wax] = (OW + t.RX - 1) / t.RX;
	int close = pb_depth(b);
	lower_open_nest(c, grid, n, t.oidx, false);
	t.start = pb_let(b, "ox", pe_mul(b, t.oidx[rd->wax], pe_i32(b, t.RX)));
	t.ox0 = t.shifted ? pb_let(b, "ox", pe_call2(b, I_MIN, t.start, pe_i32(b, OW - t.RX))) : t.start;
	t.x0 = pb_let(b, "x", pe_sub(b, pe_mul(b, t.ox0, pe_i32(b, st)), pe_i32(b, pa->pad[1])));
	PExpr *inside = NULL;
	if (!all_inside && !none_inside)
		inside = pb_let(b, "in", pe_bin(b, OP_AND, pe_bin(b, OP_GE, t.x0, pe_i32(b, 0)),
		                                pe_bin(b, OP_LE, t.x0, pe_i32(b, W - t.span))));
	bool ok;
	if (all_inside) {
		ok = vector_tile(c, &t);
	} else {
		int op = pb_depth(b);
		pb_if(b, inside);
		ok = vector_tile(c, &t);
		pb_close_to(b, op);
		pb_if(b, pe_not(b, inside));
		ok = ok && scalar_tile(c, &t);
	}
	pb_close_to(b, close);
	return ok ? 1 : -1;
}
