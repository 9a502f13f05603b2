/* lower_gemv.c: a product of few rows on a gpu (a matrix times a
 * vector): a dense or batch_matmul of fewer than 8 rows (a classifier at
 * batch 1: 1x1280 by 1000) and a 1x1 conv2d of a 1x1 image (NCHW, OIHW
 * or HWIO, one group: a squeeze-and-excitation block's two
 * convolutions, after its pool).
 *
 * Its results are few and each sums a long k, which neither the
 * shared-memory product (16 rows at least) nor an item per result does
 * well: the register tile gave each item 4 results and all of k, and
 * mobilenet_v2's classifier ran 704 us on the H100 that way; an item per
 * result made efficientnet_b0's 1152 -> 48 squeeze 48 items in one work
 * group, each adding 1152 products, 48 us a call (a third of the
 * model's kernel time in its five such convolutions).  Here a work
 * group of OT x KT = 256 items (fewer where the device allows fewer)
 * takes OT results; the KT items of a result each add every KT-th
 * product (k = kt, kt + KT, ...), the KT
 * shares are then added in shared memory by halving, and the item
 * kt = 0 stores the result through the fused consumers (bias, SiLU's
 * multiply, sigmoid).  The items of a warp read consecutive weights:
 * along k where the weight's rows are contiguous (dense, a
 * batch_matmul's transposed y, OIHW: kt varies fastest), along the
 * results where its columns are (HWIO, y [B,K,N]: ot varies fastest).
 * The sum's order differs from a serial one, as on any gpu.
 */
#include <string.h>

#include "layout.h"
#include "lower_impl.h"
#include "ops/ops.h"

enum {
	GEMV_ROWS = 8,       /* a product of fewer rows takes this schedule */
	GEMV_ITEMS = 256,    /* a work group, where the device allows it ... */
	GEMV_MIN_ITEMS = 32, /* ... and fewer than a warp's are not worth it */
	GEMV_MIN_K = 64,     /* shorter sums stay an element per item */
	GEMV_MAX_KT = 64,    /* items per result at most ... */
	GEMV_PER_ITEM = 8,   /* ... each adding about this many products at least */
};

typedef struct {
	int64_t U, K;     /* results, products per result */
	bool conv;
	bool n_fast;      /* the weight contiguous along the results */
	MatmulShape sh;   /* a dense's or batch_matmul's */
} Gemv;

/* Does the group's master take this schedule, and with what shape? */
static bool
gemv_shape(GroupCx *c, Gemv *g)
{
	const Value *v = c->g->members[0];
	memset(g, 0, sizeof *g);
	if (v->type->kind != TY_TENSOR || !elem_is_float((ElemKind)v->type->dt.kind) ||
	    v->type->dt.lanes != 1 || c->nout != 1 || lower_packed_result(c))
		return false;
	OpId op = v->u.op->op->id;
	if (op == O_DENSE || op == O_BATCH_MATMUL) {
		MatmulShape *sh = &g->sh;
		if (!lower_matmul_shape(c, op == O_BATCH_MATMUL, sh) || sh->M >= GEMV_ROWS || sh->pack ||
		    sh->B * sh->M * sh->N > INT32_MAX || sh->B * sh->M * sh->K > INT32_MAX ||
		    sh->BW * sh->N * sh->K > INT32_MAX)
			return false;
		g->U = sh->B * sh->M * sh->N, g->K = sh->K;
		g->n_fast = !sh->tb;
	} else if (op == O_CONV2D) {
		ConvAttrs a;
		lower_conv_attrs(v, &a);
		const Type *xt = v->args[0]->type, *wt = v->args[1]->type, *yt = v->type;
		if (v->args[0]->kind == VK_LIT || v->args[1]->kind == VK_LIT ||
		    !lower_is_layout(a.dl, "NCHW") || !lower_is_layout(a.ol, "NCHW") || a.groups != 1)
			return false;
		g->n_fast = lower_is_layout(a.kl, "HWIO");
		if (!g->n_fast && !lower_is_layout(a.kl, "OIHW"))
			return false;
		/* one image of 1x1 in and out, a 1x1 kernel, no padding */
		int64_t kh = wt->dims[g->n_fast ? 0 : 2], kw = wt->dims[g->n_fast ? 1 : 3];
		if (xt->dims[0] != 1 || xt->dims[2] != 1 || xt->dims[3] != 1 || yt->dims[2] != 1 ||
		    yt->dims[3] != 1 || kh != 1 || kw != 1 || a.pad[0] || a.pad[1] || a.pad[2] || a.pad[3])
			return false;
		g->conv = true;
		g->U = yt->dims[1], g->K = xt->dims[1];
	} else {
		return false;
	}
	return g->U >= 1 && g->K >= GEMV_MIN_K;
}

/* A product's result u as (batch, row, column), let-bound; a conv2d's
 * is its output channel. */
static void
gemv_result(PBuild *b, const Gemv *g, PExpr *u, PExpr **bt, PExpr **row, PExpr **col)
{
	const MatmulShape *sh = &g->sh;
	*bt = *row = pe_i32(b, 0);
	*col = u;
	if (g->conv)
		return;
	if (sh->B > 1)
		*bt = pb_let(b, "bt", pe_div(b, u, pe_i32(b, sh->M * sh->N)));
	if (sh->M > 1)
		*row = pb_let(b, "m", pe_mod(b, pe_div(b, u, pe_i32(b, sh->N)), pe_i32(b, sh->M)));
	if (sh->B * sh->M > 1)
		*col = pb_let(b, "n", pe_mod(b, u, pe_i32(b, sh->N)));
}

/* The operands' indices at (bt, row, col), reduction k. */
static void
gemv_index(PBuild *b, const Gemv *g, PExpr *bt, PExpr *row, PExpr *col, PExpr *k, PExpr **xi,
           PExpr **wi)
{
	PExpr *zero = pe_i32(b, 0);
	if (!g->conv) {
		lower_matmul_xi(b, &g->sh, bt, row, k, NULL, xi);
		lower_matmul_wi(b, &g->sh, bt, col, k, wi);
		return;
	}
	xi[0] = zero, xi[1] = k, xi[2] = zero, xi[3] = zero;
	if (g->n_fast)
		wi[0] = zero, wi[1] = zero, wi[2] = k, wi[3] = col;
	else
		wi[0] = col, wi[1] = k, wi[2] = zero, wi[3] = zero;
}

int
lower_gemv_gpu(GroupCx *c)
{
	Gemv g;
	if (!lower_on_gpu(c) || !gemv_shape(c, &g))
		return 0;
	/* a power of two the device's max_work_group_size allows: the
	 * halving pairs items kt and kt + s */
	int64_t wg = 1;
	while (2 * wg <= GEMV_ITEMS && 2 * wg <= lower_wg_limit(c->device))
		wg *= 2;
	if (wg < GEMV_MIN_ITEMS)
		return 0;
	int64_t KT = 1;
	while (KT < GEMV_MAX_KT && 2 * KT <= wg && 2 * KT * GEMV_PER_ITEM <= g.K)
		KT *= 2;
	int64_t OT = wg / KT, groups = (g.U + OT - 1) / OT;
	PBuild *b = c->b;
	Module *m = c->m;
	ElemKind ak = (ElemKind)c->g->members[0]->type->dt.kind;
	int depth = pb_depth(b);
	lower_kernel(c);
	PExpr *bx;
	PVar *part;
	PExpr *tx = lower_open_groups(c, groups, wg, ak, 1, &bx, &part);
	/* n_fast: ot fastest (tx = kt OT + ot), else kt (tx = ot KT + kt) */
	PExpr *kt = pb_let(b, "kt", g.n_fast ? pe_div(b, tx, pe_i32(b, OT)) : pe_mod(b, tx, pe_i32(b, KT)));
	PExpr *ot = g.n_fast ? pe_mod(b, tx, pe_i32(b, OT)) : pe_div(b, tx, pe_i32(b, KT));
	PExpr *u = pb_let(b, "u", pe_add(b, pe_mul(b, bx, pe_i32(b, OT)), ot));
	PExpr *live = groups * OT != g.U ? pe_bin(b, OP_LT, u, pe_i32(b, g.U)) : NULL;
	PExpr *bt, *row, *col;
	gemv_result(b, &g, u, &bt, &row, &col);

	/* this item's share: products k = kt, kt + KT, ... */
	int64_t one = 1;
	PVar *acc = pb_alloc(b, "acc", type_tensor(m, (DType){ak, 1}, 1, &one), c->local);
	PExpr *zero = pe_i32(b, 0);
	pb_store(b, acc, &zero, 1, pe_float(b, 0, ak));
	int items = pb_depth(b);
	if (live)
		pb_if(b, live);
	PVar *r = pb_scalar(b, "r", (DType){ET_I32, 1});
	pb_for(b, r, pe_i32(b, 0), pe_i32(b, (g.K + KT - 1) / KT), FK_SERIAL, NULL);
	PExpr *k = pb_let(b, "k", pe_add(b, pe_mul(b, pe_var(b, r), pe_i32(b, KT)), kt));
	if (g.K % KT)
		pb_if(b, pe_bin(b, OP_LT, k, pe_i32(b, g.K)));
	PExpr *xi[LOWER_MAX_RANK], *wi[LOWER_MAX_RANK];
	gemv_index(b, &g, bt, row, col, k, xi, wi);
	PExpr *x = lower_operand(c, 0, 0, xi, 1), *w = x ? lower_operand(c, 0, 1, wi, 1) : NULL;
	if (!w)
		return -1;
	pb_store(b, acc, &zero, 1,
	         lower_mac(b, pe_load(b, acc, &zero, 1), pe_cast(b, (DType){ak, 1}, x),
	                   pe_cast(b, (DType){ak, 1}, w)));
	pb_close_to(b, items);

	/* the KT shares of a result added by halving: partner kt + s */
	lower_combine_shares(b, part, pe_load(b, acc, &zero, 1), kt, tx, KT, g.n_fast ? OT : 1, 1, false);
	PExpr *first = pe_bin(b, OP_EQ, kt, zero);
	pb_if(b, live ? pe_bin(b, OP_AND, first, live) : first);
	PExpr *oi[LOWER_MAX_RANK];
	if (g.conv)
		oi[0] = zero, oi[1] = col, oi[2] = zero, oi[3] = zero;
	else
		lower_matmul_oi(b, &g.sh, bt, row, col, NULL, oi);
	bool ok = lower_store_through(c, pe_load(b, part, &tx, 1), oi, 1);
	pb_close_to(b, depth);
	return ok ? 1 : -1;
}
