/* lower_nest.c: the bottom layer of ir-lower: a group's inputs, its
 * kernels, and the loop nests that spread a result's elements over a
 * device (work items on a gpu, parallel and vector loops on a cpu).
 *
 * It calls only pbuild (and the IR); every other lowering file may call
 * it (see the layering at the top of lower.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lower_impl.h"

/* ------------------------------------------------------------- inputs */

GroupInput *
lower_input(GroupCx *c, int k, uint32_t j, int field)
{
	Value *a = c->g->members[k]->args[j];
	if (a == c->g->scale && k == 0) /* the prologue's x stands for its product */
		a = a->args[c->g->scale_x];
	for (int i = 0; i < c->nin; i++)
		if (c->in[i].v == a && (field < 0 || c->in[i].field == field))
			return &c->in[i];
	return NULL;
}

int
lower_member_of(const Group *g, int k, const Value *a)
{
	for (int i = k - 1; i >= 0; i--)
		if (g->members[i] == a)
			return i;
	return -1;
}

int
lower_prologue_of(const Group *g, const Value *a)
{
	for (int i = LOWER_PRO0(g); i < LOWER_MAX_GROUP; i++)
		if (g->members[i] == a)
			return i;
	return -1;
}

static void
add_input(GroupCx *c, Value *a, int field)
{
	for (int i = 0; i < c->nin; i++)
		if (c->in[i].v == a && c->in[i].field == field)
			return;
	c->in = xrealloc(c->in, (size_t)(c->nin + 1) * sizeof *c->in);
	c->in[c->nin++] = (GroupInput){a, field, NULL};
}

void
lower_collect_inputs(GroupCx *c)
{
	Group *g = c->g;
	/* the prologue's operands first: they stand for the master's */
	for (int t = 0; t < g->n + g->npro; t++) {
		int k = t < g->npro ? LOWER_PRO0(g) + t : t - g->npro;
		Value *v = g->members[k];
		for (uint32_t j = 0; j < v->nargs; j++) {
			Value *a = v->args[j];
			if (a->kind == VK_LIT || lower_member_of(g, k, a) >= 0 ||
			    lower_prologue_of(g, a) >= 0)
				continue;
			if (k == 0 && a == g->scale) { /* x, then s */
				add_input(c, a->args[g->scale_x], -1);
				add_input(c, a->args[1 - g->scale_x], -1);
				continue;
			}
			if (a->type->kind == TY_TUPLE) {
				for (uint32_t f = 0; f < a->type->n; f++)
					add_input(c, a, (int)f);
			} else {
				add_input(c, a, -1);
			}
		}
	}
}

PExpr *
lower_data_scale(GroupCx *c, PExpr *const *idx, uint32_t lanes)
{
	Value *sc = c->g->scale;
	if (!sc)
		return NULL;
	PBuild *b = c->b;
	Value *s = sc->args[1 - c->g->scale_x];
	GroupInput *in = NULL;
	for (int i = 0; i < c->nin && !in; i++)
		if (c->in[i].v == s && c->in[i].field < 0)
			in = &c->in[i];
	/* s is x's shape but 1 along the spatial axes (lower.c's
	 * scale_prologue): an axis of 1 reads index 0, whatever x's index
	 * there (a tile may pass a kernel tap for it) */
	const Type *st = s->type;
	PExpr *si[LOWER_MAX_RANK];
	for (uint32_t d = 0; d < st->n; d++)
		si[d] = st->dims[d] == 1 ? pe_i32(b, 0) : idx[d];
	if (lanes > 1 && st->dims[st->n - 1] == 1)
		return pe_broadcast(b, (uint8_t)lanes, pe_load(b, in->buf, si, 1));
	return pe_load(b, in->buf, si, lanes);
}

PExpr *
lower_load_data(GroupCx *c, PVar *buf, PExpr *const *idx, uint32_t lanes)
{
	PExpr *val = pe_load(c->b, buf, idx, lanes);
	if (!c->g->scale || buf != lower_input(c, 0, 0, -1)->buf)
		return val;
	return pe_mul(c->b, val, lower_data_scale(c, idx, lanes));
}

/* --------------------------------------------------------------- nests */

int64_t
lower_wg_limit(const Device *dev)
{
	return dev->max_work_group_size < 256 ? dev->max_work_group_size : 256;
}

PExpr *
lower_in_range(PBuild *b, PExpr *e, int64_t lo, int64_t hi)
{
	return pe_bin(b, OP_AND, pe_bin(b, OP_GE, e, pe_i32(b, lo)), pe_bin(b, OP_LT, e, pe_i32(b, hi)));
}

PExpr *
lower_inside(PBuild *b, PExpr *y, PExpr *x, int64_t ylo, int64_t yhi, int64_t xlo, int64_t xhi)
{
	return pe_bin(b, OP_AND, lower_in_range(b, y, ylo, yhi), lower_in_range(b, x, xlo, xhi));
}

void
lower_kernel(GroupCx *c)
{
	LowerSched *s = c->sched;
	char kname[300];
	snprintf(kname, sizeof kname, "%s_k%d", s->prim, s->nkernels++);
	pb_kernel(c->b, kname);
}

void
lower_unflatten(PBuild *b, PExpr *q, const int64_t *dims, const bool *sel, uint32_t n, PExpr **idx)
{
	int64_t total = 1, stride = 1;
	for (uint32_t d = 0; d < n; d++)
		if (!sel || sel[d])
			total *= dims[d];
	for (uint32_t d = n; d-- > 0;) {
		if (sel && !sel[d])
			continue;
		if (dims[d] == 1) {
			idx[d] = pe_i32(b, 0);
			continue;
		}
		PExpr *e = stride == 1 ? q : pe_div(b, q, pe_i32(b, stride));
		if (stride * dims[d] != total)
			e = pe_mod(b, e, pe_i32(b, dims[d]));
		idx[d] = pb_let(b, "i", e);
		stride *= dims[d];
	}
}

/* A gpu kernel writing an image: work items in 2-d work groups of up to
 * 16x16 (within max_work_group_size), x along the last axis longer than
 * 1 (the image's columns), y over the axes before it.  On the H100 a 1-d
 * work group halves image-write bandwidth (research/perf.md §8). */
static void
open_nest_2d(GroupCx *c, const int64_t *dims, uint32_t n, PExpr **idx)
{
	LowerSched *s = c->sched;
	PBuild *b = c->b;
	uint32_t xa = n;
	while (xa > 0 && dims[xa - 1] == 1)
		xa--;
	xa = xa ? xa - 1 : 0;
	int64_t X = n ? dims[xa] : 1, Y = 1;
	for (uint32_t d = 0; d < xa; d++)
		Y *= dims[d];
	int64_t mwgs = lower_wg_limit(s->dev);
	int64_t lx = X < 16 ? X : 16;
	if (lx > mwgs)
		lx = mwgs;
	if (lx < 1)
		lx = 1;
	int64_t ly = mwgs / lx < 16 ? mwgs / lx : 16;
	if (ly > Y)
		ly = Y;
	if (ly < 1)
		ly = 1;
	int64_t bxn = (X + lx - 1) / lx, byn = (Y + ly - 1) / ly;
	PVar *by = pb_scalar(b, "by", (DType){ET_I32, 1});
	pb_for(b, by, pe_i32(b, 0), pe_i32(b, byn ? byn : 1), FK_THREAD, "blockIdx.y");
	PVar *bx = pb_scalar(b, "bx", (DType){ET_I32, 1});
	pb_for(b, bx, pe_i32(b, 0), pe_i32(b, bxn ? bxn : 1), FK_THREAD, "blockIdx.x");
	PVar *ty = pb_scalar(b, "ty", (DType){ET_I32, 1});
	pb_for(b, ty, pe_i32(b, 0), pe_i32(b, ly), FK_THREAD, "threadIdx.y");
	PVar *tx = pb_scalar(b, "tx", (DType){ET_I32, 1});
	pb_for(b, tx, pe_i32(b, 0), pe_i32(b, lx), FK_THREAD, "threadIdx.x");
	PExpr *gx = pb_let(b, "gx", pe_add(b, pe_mul(b, pe_var(b, bx), pe_i32(b, lx)), pe_var(b, tx)));
	PExpr *gy = pb_let(b, "gy", pe_add(b, pe_mul(b, pe_var(b, by), pe_i32(b, ly)), pe_var(b, ty)));
	PExpr *in = pe_bool(b, true);
	if (bxn * lx != X)
		in = pe_bin(b, OP_LT, gx, pe_i32(b, X));
	if (byn * ly != Y)
		in = pe_bin(b, OP_AND, in, pe_bin(b, OP_LT, gy, pe_i32(b, Y)));
	if (in->kind != E_BOOL) {
		pb_if(b, in);
	}
	for (uint32_t d = xa + 1; d < n; d++)
		idx[d] = pe_i32(b, 0);
	if (n)
		idx[xa] = gx;
	lower_unflatten(b, gy, dims, NULL, xa, idx);
}

/* Opens a kernel and the loops over dims; idx gets each axis's index.
 * cpu: the outer axes as one parallel loop, the inner one vectorized
 * when the body is straight-line.  gpu: the elements spread over work
 * items, at most max_work_group_size (and 256) per work group, in 2-d
 * groups when the result is an image. */
void
lower_open_nest(GroupCx *c, const int64_t *dims, uint32_t n, PExpr **idx, bool inner_vector)
{
	LowerSched *s = c->sched;
	PBuild *b = c->b;
	lower_kernel(c);
	int64_t total = dims_numel(n, dims);
	bool gpu = s->dev && s->dev->kind != DK_CPU;
	if (!gpu) {
		/* Loops over the axes longer than 1: the outer ones as one
		 * parallel loop of at least CPU_PARALLEL_MIN iterations where
		 * the shape allows (a 4 x 56 x 7 tile grid is 224 tasks, not
		 * 4: on POCL the conv2d tile ran 1.4x faster so), the
		 * innermost vectorized when the body is straight-line. */
		enum { CPU_PARALLEL_MIN = 64 };
		int last = -1, first = -1;
		for (uint32_t d = 0; d < n; d++)
			if (dims[d] != 1) {
				if (first < 0)
					first = (int)d;
				last = (int)d;
			}
		int vec = last != first && inner_vector && !s->reduction ? last : -1;
		uint32_t d = 0;
		for (; d < n && (int)d < first; d++)
			idx[d] = pe_i32(b, 0);
		if (first >= 0) {
			/* the parallel axes: first..par_end-1 */
			uint32_t par_end = (uint32_t)first + 1;
			int64_t tasks = dims[first];
			while (tasks < CPU_PARALLEL_MIN && par_end < n && (int)par_end != vec) {
				tasks *= dims[par_end];
				par_end++;
			}
			PVar *pv = pb_scalar(b, "i", (DType){ET_I32, 1});
			pb_for(b, pv, pe_i32(b, 0), pe_i32(b, tasks), FK_PARALLEL, NULL);
			if (par_end == (uint32_t)first + 1)
				idx[first] = pe_var(b, pv);
			else
				lower_unflatten(b, pe_var(b, pv), dims + first, NULL, par_end - (uint32_t)first,
				                idx + first);
			d = par_end;
		}
		for (; d < n; d++) {
			if (dims[d] == 1) {
				idx[d] = pe_i32(b, 0);
				continue;
			}
			PVar *iv = pb_scalar(b, "i", (DType){ET_I32, 1});
			pb_for(b, iv, pe_i32(b, 0), pe_i32(b, dims[d]), (int)d == vec ? FK_VECTORIZED : FK_SERIAL,
			       NULL);
			idx[d] = pe_var(b, iv);
		}
		return;
	}
	if (s->image) {
		open_nest_2d(c, dims, n, idx);
		return;
	}
	int64_t wg = lower_wg_limit(s->dev);
	if (wg < 1)
		wg = 1;
	if (total < wg)
		wg = total > 0 ? total : 1;
	int64_t blocks = (total + wg - 1) / wg;
	PVar *bx = pb_scalar(b, "bx", (DType){ET_I32, 1});
	pb_for(b, bx, pe_i32(b, 0), pe_i32(b, blocks), FK_THREAD, "blockIdx.x");
	PVar *tx = pb_scalar(b, "tx", (DType){ET_I32, 1});
	pb_for(b, tx, pe_i32(b, 0), pe_i32(b, wg), FK_THREAD, "threadIdx.x");
	PExpr *gid = pb_let(b, "gid", pe_add(b, pe_mul(b, pe_var(b, bx), pe_i32(b, wg)), pe_var(b, tx)));
	if (blocks * wg != total) {
		pb_if(b, pe_bin(b, OP_LT, gid, pe_i32(b, total)));
	}
	lower_unflatten(b, gid, dims, NULL, n, idx);
}
