/* lower_norm.c: nn.layer_norm, lowered whole as one kernel of rows.
 *
 * A row is the elements of the axes axis..rank-1 at one position of the
 * others: they lie next to each other.  Each row gets its mean, its
 * biased variance (of x - mean, a second pass over the row, as torch's
 * decomposition computes it), then (x - mean) / sqrt(var + epsilon) *
 * gamma + beta.  torch.onnx's decomposition was four kernels (vit_b_16:
 * 100 launches of about 5 us a run on the H100).  f16 rows are computed
 * in f32.
 *
 * On a gpu, rows of at least 32 get T work items each, G rows a work
 * group, as softmax's rows (lower_reduce.c): each statistic is combined
 * in shared memory and read by every item after a barrier.  On a cpu,
 * f32 rows along the last axis of at least 16 are a work item each in
 * vectors of V lanes (the tail one at a time), as lower_softmax_cpu.
 * Otherwise (and with --no-tile) a work item per row, element by element.
 *
 * After a gpu dense (lower.c's norm_epilogue) the layer_norm is the
 * product's prim's second kernel (lower_norm_product): the same rows,
 * which are the product's, each element the sum of the product's k
 * slices through the members between, as lower_store_through would have
 * stored it.
 */
#include <string.h>

#include "diag.h"
#include "lower_impl.h"
#include "ops/ops.h"

typedef struct {
	int k;                       /* the layer_norm's place in the group */
	PVar *x, *g, *bt;            /* data (NULL after a product), gamma, beta */
	uint32_t rank;
	int64_t axis, n, rows;       /* n: elements per row */
	double eps;
	ElemKind kk, ak;             /* the result's kind, the arithmetic's */
	int64_t dims[LOWER_MAX_RANK];/* the data's */
	int64_t rdims[LOWER_MAX_RANK];/* the rows': the normalized axes 1 */
	/* After a product (lower_norm_product): its S slices' sums in ps,
	 * its shape, the row being normalized (the product's), and the
	 * product's index of the element at hand. */
	PVar *ps;
	int64_t S;
	const MatmulShape *mm;
	PExpr *row, *col;
	PExpr *pidx[LOWER_MAX_RANK];
} Norm;

static bool
norm_of(GroupCx *c, Norm *nm)
{
	memset(nm, 0, sizeof *nm);
	nm->k = c->g->n - 1;
	const Value *v = c->g->members[nm->k];
	const Type *ty = v->type;
	if (ty->kind != TY_TENSOR || ty->n == 0 || type_numel(ty) < 1)
		return false;
	OpCx oc;
	opcx_init_msg(&oc, v->u.op->op, v->u.op->attrs, NULL, 0);
	layer_norm_attrs(&oc, &nm->axis, &nm->eps);
	nm->rank = ty->n;
	if (nm->axis < 0)
		nm->axis += nm->rank;
	memcpy(nm->dims, ty->dims, nm->rank * sizeof *nm->dims);
	memcpy(nm->rdims, ty->dims, nm->rank * sizeof *nm->rdims);
	nm->n = 1;
	for (uint32_t d = (uint32_t)nm->axis; d < nm->rank; d++) {
		nm->n *= ty->dims[d];
		nm->rdims[d] = 1;
	}
	nm->rows = type_numel(ty) / nm->n;
	nm->kk = (ElemKind)ty->dt.kind;
	nm->ak = nm->kk == ET_F16 ? ET_F32 : nm->kk;
	nm->x = nm->k == 0 ? lower_input(c, 0, 0, -1)->buf : NULL;
	nm->g = lower_input(c, nm->k, 1, -1)->buf;
	nm->bt = lower_input(c, nm->k, 2, -1)->buf;
	return true;
}

/* buf at idx (lanes along the last axis), in the arithmetic's kind. */
static PExpr *
load(PBuild *b, const Norm *nm, PVar *buf, PExpr *const *idx, uint8_t lanes)
{
	PExpr *e = pe_load(b, buf, idx, lanes);
	return nm->ak != nm->kk ? pe_cast(b, (DType){nm->ak, lanes}, e) : e;
}

/* Stores (x - mean) / sd * gamma + beta at idx (lanes along the last
 * axis); mean and sd are scalars; x the data there. */
static void
store_normalized(GroupCx *c, const Norm *nm, PExpr *const *idx, uint8_t lanes, PExpr *x,
                 PExpr *mean, PExpr *sd)
{
	PBuild *b = c->b;
	if (lanes > 1) {
		mean = pe_broadcast(b, lanes, mean);
		sd = pe_broadcast(b, lanes, sd);
	}
	PExpr *const *gi = idx + nm->axis;
	PExpr *y = pe_add(b, pe_mul(b, pe_div(b, pe_sub(b, x, mean), sd),
	                            load(b, nm, nm->g, gi, lanes)),
	                  load(b, nm, nm->bt, gi, lanes));
	if (nm->ak != nm->kk)
		y = pe_cast(b, (DType){nm->kk, lanes}, y);
	pb_store(b, c->out[0], idx, lanes, y);
}

/* Element e of the row (0..n-1) into idx[axis..rank-1]; after a
 * product, the whole of idx, through the epilogue's index maps from the
 * product's index (nm->pidx). */
static void
row_element(GroupCx *c, Norm *nm, PExpr *e, PExpr **idx)
{
	PBuild *b = c->b;
	if (nm->ps) {
		nm->col = e;
		lower_matmul_oi(b, nm->mm, pe_i32(b, 0), nm->row, e, NULL, nm->pidx);
		lower_index_through(c, nm->pidx, nm->k - 1, idx);
		return;
	}
	bool sel[LOWER_MAX_RANK];
	for (uint32_t d = 0; d < nm->rank; d++)
		sel[d] = (int64_t)d >= nm->axis;
	if (nm->axis + 1 == (int64_t)nm->rank)
		idx[nm->axis] = e;
	else
		lower_unflatten(b, e, nm->dims, sel, nm->rank, idx);
}

/* The elements t, t + T, ... of the row (T 1: all of them), their index
 * in idx; opens the loops (close to a depth taken before) and returns
 * the loop's variable, the element's place in the item's share. */
static PExpr *
row_loop(GroupCx *c, Norm *nm, PExpr *t, int64_t T, PExpr **idx)
{
	PBuild *b = c->b;
	PVar *r = pb_scalar(b, "r", (DType){ET_I32, 1});
	pb_for(b, r, pe_i32(b, 0), pe_i32(b, (nm->n + T - 1) / T), FK_SERIAL, NULL);
	PExpr *e = pe_var(b, r), *place = e;
	if (T > 1) {
		e = pe_add(b, pe_mul(b, e, pe_i32(b, T)), t);
		if (nm->n % T)
			pb_if(b, pe_bin(b, OP_LT, e, pe_i32(b, nm->n)));
		e = pb_let(b, "e", e);
	}
	row_element(c, nm, e, idx);
	return place;
}

/* The data at idx (row_loop's element): loaded, or after a product the
 * sum of its slices through the epilogue members; NULL after an error. */
static PExpr *
data_at(GroupCx *c, Norm *nm, PExpr *const *idx)
{
	if (!nm->ps)
		return load(c->b, nm, nm->x, idx, 1);
	PExpr *sum = pb_let(c->b, "s", lower_slice_sum(c->b, nm->ps, nm->S, nm->row, nm->col));
	return lower_value_through(c, sum, nm->pidx, idx, nm->k - 1, 1);
}

/* The gpu's row kernel (spread: T items per row, G rows per work group)
 * or a work item per row (T = 1).  A spread item's share of at most
 * ROW_CACHE elements is read once, into an array of its own (registers:
 * vit_b_16's rows of 768 are 3 elements an item), for the variance and
 * the result. */
enum { ROW_CACHE = 16 };

static bool
lower_rows(GroupCx *c, Norm *nm, bool spread, int64_t T, int64_t G)
{
	PBuild *b = c->b;
	Module *m = c->m;
	PExpr *idx[LOWER_MAX_RANK], *zero = pe_i32(b, 0), *t = NULL, *tx = NULL, *first = NULL;
	PExpr *live = NULL;
	PVar *part = NULL;
	int64_t WG = G * T, one = 1;
	int depth = pb_depth(b);
	if (spread) {
		int64_t groups = (nm->rows + G - 1) / G;
		lower_kernel(c);
		PVar *bx = pb_scalar(b, "bx", (DType){ET_I32, 1});
		pb_for(b, bx, zero, pe_i32(b, groups), FK_THREAD, "blockIdx.x");
		part = pb_alloc(b, "part", type_tensor(m, (DType){nm->ak, 1}, 1, &WG),
		                vdev_get(m, c->dev, sym_intern_cstr(m, "shared")));
		PVar *txv = pb_scalar(b, "tx", (DType){ET_I32, 1});
		pb_for(b, txv, zero, pe_i32(b, WG), FK_THREAD, "threadIdx.x");
		PExpr *u = pe_var(b, bx);
		t = tx = pe_var(b, txv);
		first = zero;
		if (G > 1) {
			t = pb_let(b, "t", pe_mod(b, tx, pe_i32(b, T)));
			u = pb_let(b, "u", pe_add(b, pe_mul(b, u, pe_i32(b, G)), pe_div(b, tx, pe_i32(b, T))));
			first = pb_let(b, "w", pe_sub(b, tx, t));
		}
		nm->row = u;
		if (!nm->ps)
			lower_unflatten(b, u, nm->rdims, NULL, nm->rank, idx);
		if (groups * G != nm->rows)
			live = pe_bin(b, OP_LT, u, pe_i32(b, nm->rows));
	} else {
		lower_open_nest(c, nm->rdims, nm->rank, idx, false);
	}
	int64_t share = (nm->n + T - 1) / T;
	PVar *xs = spread && share <= ROW_CACHE
	         ? pb_alloc(b, "xs", type_tensor(m, (DType){nm->ak, 1}, 1, &share), c->local) : NULL;
	/* the mean, then the variance: each a sum over the row */
	PExpr *stat[2] = {NULL, NULL};
	PExpr *count = pe_float(b, (double)nm->n, nm->ak);
	for (int k = 0; k < 2; k++) {
		PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){nm->ak, 1}, 1, &one), c->local);
		pb_store(b, acc, &zero, 1, pe_float(b, 0, nm->ak));
		int open = pb_depth(b);
		if (live)
			pb_if(b, live);
		PExpr *r = row_loop(c, nm, t, T, idx);
		PExpr *x;
		if (xs && k) {
			x = pe_load(b, xs, &r, 1);
		} else {
			if (!(x = data_at(c, nm, idx)))
				return false;
			if (xs) {
				x = pb_let(b, "x", x);
				pb_store(b, xs, &r, 1, x);
			}
		}
		if (k)
			x = pb_let(b, "d", pe_sub(b, x, stat[0]));
		pb_store(b, acc, &zero, 1, pe_add(b, pe_load(b, acc, &zero, 1), k ? pe_mul(b, x, x) : x));
		pb_close_to(b, open);
		PExpr *sum = pe_load(b, acc, &zero, 1);
		if (spread) {
			lower_combine_shares(b, part, sum, t, tx, T, 1, 1, false);
			pb_barrier(b);
			sum = pe_load(b, part, &first, 1);
		}
		stat[k] = k ? pb_let(b, "sd", pe_call1(b, I_SQRT, pe_add(b, pe_div(b, sum, count),
		                                                         pe_float(b, nm->eps, nm->ak))))
		            : pb_let(b, "mean", pe_div(b, sum, count));
		if (spread && k == 0)
			pb_barrier(b);  /* read by all before the variance's shares overwrite it */
	}
	if (live)
		pb_if(b, live);
	PExpr *r = row_loop(c, nm, t, T, idx);
	PExpr *x = xs ? pe_load(b, xs, &r, 1) : data_at(c, nm, idx);
	if (!x)
		return false;
	store_normalized(c, nm, idx, 1, x, stat[0], stat[1]);
	pb_close_to(b, depth);
	return true;
}

int
lower_layer_norm_gpu(GroupCx *c)
{
	Norm nm;
	if (!c->device || c->device->kind == DK_CPU || !norm_of(c, &nm))
		return 0;
	int64_t T, G;
	if (!lower_row_items(c->device, nm.n, nm.rows, true, &T, &G))
		return 0;
	return lower_rows(c, &nm, true, T, G) ? 1 : -1;
}

int
lower_norm_product(GroupCx *c, PVar *ps, int64_t S, const MatmulShape *mm)
{
	Norm nm;
	int64_t T, G;
	/* (lower.c's norm_epilogue fuses only rows that take several items
	 * on this gpu: f32, the last axis, a product of 16 rows or more) */
	if (!norm_of(c, &nm) || !lower_row_items(c->device, nm.n, nm.rows, true, &T, &G)) {
		const Value *v = c->g->members[c->g->n - 1];
		error_at(c->m->ctx, v->loc, "internal error: the rows of %%%s take no work items "
		         "of their own after the product", v->name);
		return -1;
	}
	nm.ps = ps, nm.S = S, nm.mm = mm;
	return lower_rows(c, &nm, true, T, G) ? 1 : -1;
}

bool
lower_layer_norm(GroupCx *c)
{
	Norm nm;
	if (!norm_of(c, &nm))
		return false;
	return lower_rows(c, &nm, false, 1, 1);
}

/* A sum over the row in vectors of V lanes and the tail one at a time,
 * of x (k 0) or (x - mean)^2 (k 1); the lanes added in order, then the
 * tail. */
static PExpr *
cpu_row_sum(GroupCx *c, const Norm *nm, PExpr **idx, uint8_t V, int k, PExpr *mean)
{
	PBuild *b = c->b;
	Module *m = c->m;
	PExpr *zero = pe_i32(b, 0);
	int64_t n = nm->n, wl = V, one = 1;
	DType f = {ET_F32, 1};
	PVar *acc = pb_alloc(b, "acc", type_tensor(m, f, 1, &wl), c->local), *rest = NULL;
	pb_store(b, acc, &zero, V, pe_broadcast(b, V, pe_float(b, 0, ET_F32)));
	if (n % V) {
		rest = pb_alloc(b, "rest", type_tensor(m, f, 1, &one), c->local);
		pb_store(b, rest, &zero, 1, pe_float(b, 0, ET_F32));
	}
	for (int t = 0; t < 2; t++) {     /* the vectors, then the tail */
		uint8_t w = t ? 1 : V;
		PVar *a = t ? rest : acc;
		if (!lower_row_part(b, t, n, V, &idx[nm->rank - 1]))
			continue;
		PExpr *x = pe_load(b, nm->x, idx, w);
		if (k) {
			x = pb_let(b, "d", pe_sub(b, x, w > 1 ? pe_broadcast(b, w, mean) : mean));
			x = pe_mul(b, x, x);
		}
		pb_store(b, a, &zero, w, pe_add(b, pe_load(b, a, &zero, w), x));
		pb_close(b);
	}
	PExpr *lanes = pb_let(b, "v", pe_load(b, acc, &zero, V));
	PExpr *total = pe_lane(b, lanes, 0);
	for (uint32_t i = 1; i < V; i++)
		total = pe_add(b, total, pe_lane(b, lanes, i));
	if (rest)
		total = pe_add(b, total, pe_load(b, rest, &zero, 1));
	return total;
}

int
lower_layer_norm_cpu(GroupCx *c)
{
	Norm nm;
	if (!c->device || c->device->kind != DK_CPU || !norm_of(c, &nm) || nm.kk != ET_F32 ||
	    c->g->members[0]->type->dt.lanes != 1 || nm.axis + 1 != (int64_t)nm.rank || nm.n < 16)
		return 0;
	uint8_t V = nm.n >= 64 ? 16 : 8;
	PBuild *b = c->b;
	int depth = pb_depth(b);
	lower_kernel(c);
	PVar *uv = pb_scalar(b, "u", (DType){ET_I32, 1});
	pb_for(b, uv, pe_i32(b, 0), pe_i32(b, nm.rows), FK_PARALLEL, NULL);
	PExpr *idx[LOWER_MAX_RANK];
	lower_unflatten(b, pe_var(b, uv), nm.rdims, NULL, nm.rank, idx);
	PExpr *count = pe_float(b, (double)nm.n, ET_F32);
	PExpr *mean = pb_let(b, "mean", pe_div(b, cpu_row_sum(c, &nm, idx, V, 0, NULL), count));
	PExpr *var = pe_div(b, cpu_row_sum(c, &nm, idx, V, 1, mean), count);
	PExpr *sd = pb_let(b, "sd", pe_call1(b, I_SQRT, pe_add(b, var, pe_float(b, nm.eps, ET_F32))));
	for (int t = 0; t < 2; t++) {
		uint8_t w = t ? 1 : V;
		if (!lower_row_part(b, t, nm.n, V, &idx[nm.rank - 1]))
			continue;
		store_normalized(c, &nm, idx, w, load(b, &nm, nm.x, idx, w), mean, sd);
		pb_close(b);
	}
	pb_close_to(b, depth);
	return 1;
}
