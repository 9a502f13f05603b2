/* lower_index_map.c: the operators that only move elements (transpose,
 * reshape, squeeze, expand_dims, strided_slice), as a product's prologue
 * and epilogue see them (lower.c's index_prologue and the epilogue rule
 * in fusible).  A prologue member's value is computed by lower_ops.c
 * like any other member's, read at the index its reader asks; here are
 * only what that does not give: the forward map an epilogue stores
 * through (the master's index to the result's), and the operand axis
 * that is contiguous in the prologue's source, which a tile's loads walk
 * to stay coalesced.
 *
 * It calls lower_nest.c and pbuild (see the layering in lower.c).
 */
#include <stdint.h>
#include <string.h>

#include "lower_impl.h"
#include "ops/attrs.h"
#include "ops/ops.h"

bool
lower_is_index_map(OpId op, bool slices)
{
	switch (op) {
	case O_TRANSPOSE: case O_RESHAPE: case O_SQUEEZE: case O_EXPAND_DIMS:
		return true;
	case O_STRIDED_SLICE:
		return slices;
	default:
		return false;
	}
}

void
lower_transpose_axes(const Value *v, int64_t *axes)
{
	uint32_t r = v->type->n, n = 0;
	OpCx ac;
	opcx_init_msg(&ac, v->u.op->op, v->u.op->attrs, NULL, 0);
	int64_t got[OPS_MAX_RANK];
	bool given = oa_ints(&ac, "axes", 0, OPS_MAX_RANK, INT64_MIN, got, &n, "") == 1 && n == r;
	for (uint32_t d = 0; d < r; d++) {
		int64_t ax = given ? got[d] : r - 1 - d;   /* default: reversed */
		axes[d] = ax < 0 ? ax + r : ax;
	}
}

/* A reshape's result index for its operand's: the leading axes that
 * differ flattened and taken apart again; the trailing axes the two
 * shapes share stay as they are (the out-projection's [S*B, D] to [S,
 * B, D] divides only the row). */
static void
reshape_forward(GroupCx *c, const Type *it, const Type *ot, PExpr *const *in, PExpr **out)
{
	PBuild *b = c->b;
	uint32_t ri = it->n, ro = ot->n;
	while (ri > 0 && ro > 0 && it->dims[ri - 1] == ot->dims[ro - 1]) {
		out[ro - 1] = in[ri - 1];
		ri--, ro--;
	}
	if (ro == 0)
		return;
	PExpr *flat = pe_i32(b, 0);
	for (uint32_t d = 0; d < ri; d++)
		flat = it->dims[d] == 1 ? flat : pe_add(b, pe_mul(b, flat, pe_i32(b, it->dims[d])), in[d]);
	lower_unflatten(b, pb_let(b, "f", flat), ot->dims, NULL, ro, out);
}

void
lower_index_forward(GroupCx *c, int k, PExpr *const *in, PExpr **out)
{
	const Value *v = c->g->members[k];
	if (v->u.op->op->id == O_TRANSPOSE) {
		int64_t axes[LOWER_MAX_RANK];
		lower_transpose_axes(v, axes);
		for (uint32_t d = 0; d < v->type->n; d++)
			out[d] = in[axes[d]];
		return;
	}
	reshape_forward(c, v->args[0]->type, v->type, in, out);
}

/* Where axis f of v's operand (contiguous in the source) is in v's
 * result, or -1: a transpose moves it; a reshape keeps it last when it
 * was last and the new last axis divides it into whole runs; a slice of
 * step 1 along it and an elementwise operator keep it. */
static int
fast_axis_after(const Value *v, int f)
{
	if (f < 0)
		return -1;
	const Type *it = v->args[0]->type, *ot = v->type;
	switch (v->u.op->op->id) {
	case O_TRANSPOSE: {
		int64_t axes[LOWER_MAX_RANK];
		lower_transpose_axes(v, axes);
		for (uint32_t d = 0; d < ot->n; d++)
			if (axes[d] == f)
				return (int)d;
		return -1;
	}
	case O_RESHAPE: case O_SQUEEZE: case O_EXPAND_DIMS: {
		int64_t last = ot->n ? ot->dims[ot->n - 1] : 0;
		return (uint32_t)f + 1 == it->n && ot->n && last > 1 && it->dims[f] % last == 0
		       ? (int)ot->n - 1 : -1;
	}
	case O_STRIDED_SLICE: {
		OpCx ac;
		opcx_init_msg(&ac, v->u.op->op, v->u.op->attrs, NULL, 0);
		SliceAttrs a;
		slice_attrs(&ac, it->n, it->dims, &a);
		return a.step[f] == 1 ? f : -1;
	}
	default:        /* elementwise, of the same shape (index_prologue) */
		return f;
	}
}

/* The operand of prologue member v that carries the chain: the one of
 * v's own shape that is not a single element (index_prologue lets an
 * elementwise member's other operands be single elements only). */
static const Value *
chain_operand(const Value *v)
{
	if (lower_is_index_map(v->u.op->op->id, true))
		return v->args[0];
	for (uint32_t j = 0; j < v->nargs; j++) {
		const Value *a = v->args[j];
		if (a->kind != VK_LIT && a->type->kind == TY_TENSOR && type_numel(a->type) != 1)
			return a;
	}
	return v->args[0];
}

int
lower_operand_fast_axis(const GroupCx *c, uint32_t j)
{
	const Group *g = c->g;
	const Value *a = g->members[0]->args[j];
	if (a->kind == VK_LIT || a->type->kind != TY_TENSOR)
		return -1;
	if (lower_prologue_of(g, a) < 0)
		return (int)a->type->n - 1;
	/* back from a to the chain's source, an outside operand */
	const Value *chain[LOWER_MAX_GROUP];
	int n = 0;
	for (const Value *v = a; v->kind != VK_LIT && lower_prologue_of(g, v) >= 0 &&
	     n < LOWER_MAX_GROUP; v = chain_operand(v))
		chain[n++] = v;
	const Value *src = chain_operand(chain[n - 1]);
	int f = src->kind == VK_LIT ? -1 : (int)src->type->n - 1;
	while (n > 0)
		f = fast_axis_after(chain[--n], f);
	return f;
}
