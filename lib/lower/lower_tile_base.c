/* lower_tile_base.c: what the tiled schedules share (lower_tile.c,
 * lower_tile_dw.c, lower_tile_gpu.c), a layer below them so that none
 * calls another: the device's kind, loops, multiply-adds and layout
 * names, a matrix product's shape and indices, and a tile's values
 * stored through the fused consumers.  lower.c's schedule() picks which
 * tile a group takes.
 */
#include <stdint.h>
#include <string.h>

#include "layout.h"
#include "lower_impl.h"

bool
lower_on_gpu(const GroupCx *c)
{
	return c->device && c->device->kind != DK_CPU;
}

PExpr *
lower_loop(PBuild *b, const char *prefix, int64_t n, ForKind kind)
{
	if (n == 1)
		return pe_i32(b, 0);
	PVar *v = pb_scalar(b, prefix, (DType){ET_I32, 1});
	pb_for(b, v, pe_i32(b, 0), pe_i32(b, n), kind, NULL);
	return pe_var(b, v);
}

PExpr *
lower_mac(PBuild *b, PExpr *acc, PExpr *x, PExpr *w)
{
	if (elem_is_float(acc->dt.kind)) {
		PExpr *args[3] = {x, w, acc};
		return pe_call(b, I_FMA, 3, args);
	}
	return pe_add(b, acc, pe_mul(b, x, w));
}

bool
lower_is_layout(const Layout *l, const char *name)
{
	return strcmp(l->name, name) == 0;
}

/* The run of index maps in the group's epilogue before member last
 * (lower.c's index_epilogue: transposes and reshapes, f to *l - 1, with
 * elementwise members before and after it); its first member, or last
 * + 1 when there is none. */
static int
epilogue_maps(const Group *g, int last, int *l)
{
	int f = 1;
	while (f <= last && !lower_is_index_map(g->members[f]->u.op->op->id, false))
		f++;
	for (*l = f; *l <= last && lower_is_index_map(g->members[*l]->u.op->op->id, false); ++*l)
		;
	return f;
}

void
lower_index_through(GroupCx *c, PExpr *const *idx, int last, PExpr **oi)
{
	const Group *g = c->g;
	int l, f = epilogue_maps(g, last, &l);
	memcpy(oi, idx, g->members[0]->type->n * sizeof *idx);
	for (int k = f; k < l; k++) {
		PExpr *in[LOWER_MAX_RANK];
		memcpy(in, oi, g->members[k]->args[0]->type->n * sizeof *in);
		lower_index_forward(c, k, in, oi);
	}
}

PExpr *
lower_value_through(GroupCx *c, PExpr *e, PExpr *const *idx, PExpr *const *oi, int last,
                    uint32_t lanes)
{
	const Group *g = c->g;
	c->master = e;
	/* With an index-map epilogue: the members before it at the
	 * master's index, then member last at the index through the run,
	 * where the run's last member has that value. */
	int l, f = epilogue_maps(g, last, &l);
	PExpr *v = NULL;
	if (f <= last) {
		/* (one lane: lower.c fuses such an epilogue only where the
		 * tiles store one element at a time; lower_member's values
		 * are variables already) */
		c->given = lanes == 1 ? lower_member(c, f - 1, idx, 1) : NULL;
		c->given_k = l - 1;
		v = c->given ? lower_member(c, last, oi, 1) : NULL;
		c->given = NULL;
	} else {
		v = lower_member(c, last, idx, lanes);
	}
	c->master = NULL;
	return v;
}

bool
lower_store_through(GroupCx *c, PExpr *e, PExpr *const *idx, uint32_t lanes)
{
	int last = c->g->n - 1;
	PExpr *oi[LOWER_MAX_RANK];
	e = pb_let(c->b, "s", e);
	lower_index_through(c, idx, last, oi);
	PExpr *v = lower_value_through(c, e, idx, oi, last, lanes);
	if (!v)
		return false;
	pb_store(c->b, c->out[0], oi, lanes, v);
	return true;
}

PExpr *
lower_slice_sum(PBuild *b, PVar *ps, int64_t S, PExpr *row, PExpr *col)
{
	PExpr *sum = NULL;
	for (int64_t q = 0; q < S; q++) {
		PExpr *si[3] = {pe_i32(b, q), row, col};
		PExpr *p = pe_load(b, ps, si, 1);
		sum = sum ? pe_add(b, sum, p) : p;
	}
	return sum;
}

bool
lower_store_wide(GroupCx *c, PExpr *e, PExpr *const *idx, uint32_t n, PExpr *tstart)
{
	PBuild *b = c->b;
	c->master = pb_let(b, "s", e);
	c->wide = n;
	PExpr *v = lower_member(c, c->g->n - 1, idx, 4 * n);
	c->wide = 0;
	c->master = NULL;
	if (!v)
		return false;
	/* through a private array, from which each texel is read back */
	int64_t len = 4 * (int64_t)n;
	PVar *res = pb_alloc(b, "res", type_tensor(c->m, (DType){v->dt.kind, 1}, 1, &len), c->local);
	PExpr *zero = pe_i32(b, 0);
	pb_store(b, res, &zero, 4 * n, v);
	for (uint32_t t = 0; t < n; t++) {
		PExpr *oi[5] = {idx[0], t ? pe_add(b, idx[1], pe_i32(b, (int32_t)t)) : idx[1], idx[2], idx[3], idx[4]};
		int op = pb_depth(b);
		if (tstart)
			pb_if(b, pe_bin(b, OP_GE, oi[1], tstart));
		PExpr *li = pe_i32(b, 4 * (int32_t)t);
		pb_store(b, c->out[0], oi, 4, pe_load(b, res, &li, 4));
		pb_close_to(b, op);
	}
	return true;
}

bool
lower_matmul_shape(const GroupCx *c, bool batched, MatmulShape *sh)
{
	const Value *v = c->g->members[0];
	const Type *xt = v->args[0]->type, *wt = v->args[1]->type;
	if (v->args[0]->kind == VK_LIT || v->args[1]->kind == VK_LIT || xt->n < 1 ||
	    (batched && (xt->n != 3 || wt->n != 3)))
		return false;
	/* A result in an image (a dense's 5-d result of 4 units on a
	 * texture device, taken for a packed tensor) is written a texel at
	 * a time, as the element-wise schedule gathers them. */
	const char *scope = c->nout == 1 ? c->out[0]->vd->scope : NULL;
	if (scope && strncmp(scope, "texture", 7) == 0)
		return false;
	memset(sh, 0, sizeof *sh);
	sh->batched = batched;
	sh->o = batched;
	if (batched) {
		lower_matmul_transposes(v, &sh->ta, &sh->tb);
		sh->B = v->type->dims[0], sh->BX = xt->dims[0], sh->BW = wt->dims[0];
		sh->M = xt->dims[sh->ta ? 2 : 1], sh->K = xt->dims[sh->ta ? 1 : 2];
		sh->N = wt->dims[sh->tb ? 1 : 2];
	} else {
		/* the rows: x's leading axes, which the result shares */
		sh->tb = true;
		sh->B = sh->BX = sh->BW = 1;
		sh->lead = xt->n - 1;
		sh->ldims = xt->dims;
		sh->M = 1;
		for (uint32_t d = 0; d < sh->lead; d++)
			sh->M *= xt->dims[d];
		sh->K = xt->dims[xt->n - 1];
		sh->N = v->type->dims[v->type->n - 1];
		sh->pack = lower_dense_pack(v);
	}
	return sh->B && sh->M && sh->N && sh->K;
}

void
lower_matmul_rows(PBuild *b, const MatmulShape *sh, PExpr *m, PExpr **pre)
{
	/* leading dims of 1 index 0: [1,37,24] is [37,24], kernel for kernel */
	uint32_t wide = 0, at = 0;
	for (uint32_t i = 0; i < sh->lead; i++)
		if (sh->ldims[i] != 1)
			wide++, at = i;
	if (wide <= 1) {
		for (uint32_t i = 0; i < sh->lead; i++)
			pre[i] = i == at ? m : pe_i32(b, 0);
	} else {
		lower_unflatten(b, m, sh->ldims, NULL, sh->lead, pre);
	}
}

/* The leading entries of an index of x or the result: the batch, or a
 * dense's row taken apart; returns how many. */
static uint32_t
row_index(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *m, PExpr *const *pre, PExpr **idx)
{
	if (sh->batched) {
		idx[0] = bt;
		idx[1] = m;
		return 2;
	}
	if (pre)
		memcpy(idx, pre, sh->lead * sizeof *idx);
	else
		lower_matmul_rows(b, sh, m, idx);
	return sh->lead;
}

void
lower_matmul_xi(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *m, PExpr *k, PExpr *const *pre,
                PExpr **idx)
{
	uint32_t r = row_index(b, sh, sh->BX == 1 ? pe_i32(b, 0) : bt, m, pre, idx);
	idx[r] = k;
	if (sh->ta) /* [B|1,K,M] */
		idx[1] = k, idx[2] = m;
}

void
lower_matmul_wi(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *n, PExpr *k, PExpr **idx)
{
	uint32_t r = 0;
	if (sh->batched)
		idx[r++] = sh->BW == 1 ? pe_i32(b, 0) : bt;
	idx[r] = sh->tb ? n : k;
	idx[r + 1] = sh->tb ? k : n;
}

void
lower_matmul_oi(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *m, PExpr *n, PExpr *const *pre,
                PExpr **idx)
{
	idx[row_index(b, sh, bt, m, pre, idx)] = n;
}
