/* lower.c: ir-lower (see lower.h and ir-lower(1)).
 *
 * 1. Fusion, per block in program order, as TVM's FuseOps: a binding
 *    joins the group of an operand when that operand is the group's last
 *    member, is used by nothing else, sits on the same virtual device, and
 *    the patterns allow it: elementwise and broadcast consumers after a
 *    conv2d/dense/batch_matmul (same shape); elementwise, broadcast and
 *    injective consumers after injective producers; a reduction after
 *    injective producers, which ends the group; on a gpu, after a dense
 *    or batch_matmul and its elementwise consumers, one run of
 *    transposes and reshapes that its tiles store through
 *    (index_epilogue), and a layer_norm over the last axis after a
 *    dense's group, which ends it (norm_epilogue: the prim's second
 *    kernel normalizes the product's rows).  softmax and split stand
 *    alone, as does anything under --no-fuse.  A dense or
 *    batch_matmul on a gpu also takes in, as a prologue, the group of
 *    index-only operators that makes an operand of it and nothing else
 *    (index_prologue: its tiles load through the chain), and a conv2d
 *    the squeeze-and-excitation multiply (scale_prologue).  A cpu keeps
 *    both apart: its tiles load and store vectors of buffers.  A value of several uses
 *    ends its group unless they close a diamond (close_diamond: x *
 *    sigmoid(x) after a conv2d is one group).
 * 2. Each group becomes a prim: buffer parameters for the outside operands
 *    and the results, with memory scopes chosen for the device (texture
 *    for packed 5-d activations and texture:weight for packed conv2d
 *    weights on a device with texture=true, while the image fits its
 *    image2d_max; global otherwise), and one kernel per result.
 * 3. A group equal to an earlier one in everything its prim is built
 *    from (a key made before building, see group_key) calls the earlier
 *    prim instead, as TVM's compile engine caches lowered functions by
 *    structure: a network of repeated blocks gets one prim per distinct
 *    block, and builds each once.
 * 4. The group's last binding becomes `call_lowered @prim(inputs)` under
 *    its own name; the other members disappear.
 *
 * Layering: each file calls only the files below it, never up (no
 * callbacks):
 *   lower.c         fusion, a group's parameters and scopes, prim sharing,
 *                   the schedule by operator id (schedule), the calls
 *   lower_tile.c    register-tiled dense, batch_matmul and conv2d
 *                   (lower_tile_gpu.c: in shared memory on a gpu;
 *                   lower_gemv.c: a product of few rows on a gpu;
 *                   lower_tile_dw.c: grouped and depthwise conv2d),
 *                   beside each other: schedule() picks one
 *   lower_tile_base.c  what the tiles share
 *   lower_reduce.c  sums, means and pools over several work items per
 *                   result (lower_reduce_cpu.c: on a cpu;
 *                   lower_pool_cpu.c: pools of a window on a cpu)
 *   lower_ops.c     each operator's value at an index; softmax and split
 *   lower_index_map.c  the index-only operators: a prologue's contiguous
 *                   axis, an epilogue's forward map
 *   lower_nest.c    a group's inputs, kernels, loop nests over a device
 *   pbuild.c        statements and expressions (lib/)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "lower_impl.h"
#include "map.h"
#include "nameset.h"
#include "ops/ops.h"
#include "walk.h"

/* ir-lower's own Value flag (see VF_PASS_A): a group member that goes,
 * unlinked by unlink_removed. */
enum { VF_REMOVED = VF_PASS_A };

/* ---------------------------------------------------------------- state */

typedef struct {
	Module *m;
	const LowerOpts *o;
	Func *f;
	/* by Value.scratch, numbered by count_uses (values made since, calls
	 * and projections, have UINT32_MAX: in no group) */
	uint32_t *uses;       /* number of uses */
	uint32_t *group_of;   /* 1 + index into groups, 0 = none */
	uint32_t nids;
	Group *groups;
	size_t ngroups, capgroups;
	NameSet names;        /* the function's local names, for new bindings */
	Map suffix;           /* prim names (Suffix) -> the last _N given */
	Map shared;           /* the prims so far (SharedPrim) by their keys */
	uint64_t *key;        /* the group key being built (see group_key) */
	size_t keyn, keycap;
	/* statistics */
	unsigned nops, nprims, nfused, ntexture, nfallback, nshared, nviews;
	unsigned nscaled;     /* multiplies fused into their conv2d (scale_prologue) */
	unsigned nprologue;   /* operators read through by a product (index_prologue) */
	unsigned nepilogue;   /* index maps a product stores through (index_epilogue) */
	unsigned nnorm;       /* layer_norms after their product (norm_epilogue) */
} Lower;

/* ------------------------------------------------------------- fusion */

static void
count_use(Lower *L, Value *a)
{
	if (a && a->kind != VK_LIT)
		L->uses[a->scratch]++;
}

/* 1 + the index of v's group, 0 when v is in none. */
static uint32_t
group_of(const Lower *L, const Value *v)
{
	return v->scratch < L->nids ? L->group_of[v->scratch] : 0;
}

/* Numbers the function's parameters and bindings in Value.scratch (the
 * index into L->uses and L->group_of) and counts their uses. */
static void
count_uses(Lower *L)
{
	FuncWalk w;
	WalkStep s;
	Block *blk;
	uint32_t n = 0;
	for (uint32_t i = 0; i < L->f->nparams; i++)
		L->f->params[i]->scratch = n++;
	fwalk_start(&w, L->f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		v->scratch = n++;
	L->nids = n;
	L->uses = xrealloc(L->uses, (n ? n : 1) * sizeof *L->uses);
	L->group_of = xrealloc(L->group_of, (n ? n : 1) * sizeof *L->group_of);
	memset(L->uses, 0, n * sizeof *L->uses);
	memset(L->group_of, 0, n * sizeof *L->group_of);
	fwalk_start(&w, L->f);
	while (fwalk_next(&w, &s)) {
		if (s.ev == W_BIND) {
			for (uint32_t i = 0; i < s.v->nargs; i++)
				count_use(L, s.v->args[i]);
		} else {
			count_use(L, s.blk->yield);
		}
	}
}

static Group *
new_group(Lower *L, Value *v, Block *blk)
{
	Group *g = &VEC_PUSH(L->groups, L->ngroups, L->capgroups);
	memset(g, 0, sizeof *g);
	g->members[0] = v;
	g->n = 1;
	g->pattern = v->u.op->op->pattern;
	g->blk = blk;
	L->group_of[v->scratch] = (uint32_t)L->ngroups;
	return g;
}

static bool
same_shape(const Type *a, const Type *b)
{
	return a == b || (a->kind == TY_TENSOR && b->kind == TY_TENSOR && a->n == b->n &&
	                  memcmp(a->dims, b->dims, a->n * sizeof *a->dims) == 0);
}

static const Device *group_device(Lower *L, const Group *g);
static bool image_candidate(const Lower *L, const Device *dev, const Type *t);

/* The position in g->members of member t of all g->n + g->npro: the
 * chain's, then the prologue's (index_prologue). */
static int
member_slot(const Group *g, int t)
{
	return t < g->n ? t : LOWER_PRO0(g) + t - g->n;
}

/* Can index map v (a transpose or reshape) join g, a dense or
 * batch_matmul on a gpu with its elementwise consumers, as its
 * epilogue?  Then the tile stores each element where the map puts it
 * (lower_store_through) instead of a kernel moving the product's
 * result (a transformer's attention heads back to [S*B, D], its
 * out-projection back to [B, S, D]).  The maps make one run: after an
 * elementwise member that follows a map, no other map joins.  Not on a
 * cpu, whose tiles store vectors along the product's last axis, nor
 * into an image, written a texel at a time. */
static bool
index_epilogue(Lower *L, const Group *g, const Value *v)
{
	OpId m0 = g->members[0]->u.op->op->id;
	if (!lower_is_index_map(v->u.op->op->id, false) || (m0 != O_DENSE && m0 != O_BATCH_MATMUL) ||
	    v->type->dt.kind != v->args[0]->type->dt.kind)
		return false;
	bool maps = false;
	for (int k = 1; k < g->n; k++)
		maps |= lower_is_index_map(g->members[k]->u.op->op->id, false);
	if (maps && !lower_is_index_map(g->members[g->n - 1]->u.op->op->id, false))
		return false;
	const Device *dev = group_device(L, g);
	return dev && dev->kind != DK_CPU && !image_candidate(L, dev, v->type) &&
	       !image_candidate(L, dev, v->args[0]->type);
}

/* Can v (pattern p) join g, whose last member a is v's operand? */
static bool
fusible(Lower *L, const Group *g, const Value *a, const Value *v, int p)
{
	if (g->closed || g->n + g->npro == LOWER_MAX_GROUP || a->vd != v->vd)
		return false;
	if (v->type->kind != TY_TENSOR || !lower_is_elementwise_form(v->u.op->op))
		return false;
	for (uint32_t i = 0; i < v->nargs; i++)
		if (v->args[i]->kind != VK_LIT && v->args[i]->type->kind != TY_TENSOR)
			return false;
	if (g->pattern == PAT_OUT_FUSABLE)
		return (p <= PAT_BROADCAST && same_shape(a->type, v->type)) || index_epilogue(L, g, v);
	if (g->pattern <= PAT_INJECTIVE)
		return p <= PAT_INJECTIVE || p == PAT_REDUCE;
	return false;
}

/* How many of v's operands are a. */
static uint32_t
count_operand(const Value *v, const Value *a)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->nargs; i++)
		n += v->args[i] == a;
	return n;
}

/* Can w join a diamond over a: an elementwise or broadcast operator of
 * a's shape on a's device, so that it reads a at its own index? */
static bool
diamond_member(const Value *a, const Value *w)
{
	if (w->vd != a->vd || w->type->kind != TY_TENSOR || !same_shape(a->type, w->type) ||
	    w->u.op->op->pattern > PAT_BROADCAST)
		return false;
	for (uint32_t i = 0; i < w->nargs; i++)
		if (w->args[i]->kind != VK_LIT && w->args[i]->type->kind != TY_TENSOR)
			return false;
	return true;
}

/* v (pattern p) closes a diamond: one of its operands is the last member
 * of a group g2 whose master reads a, the last member of an earlier
 * group g1, and every use of a is in g2 or v (x * sigmoid(x): a = x, g2 =
 * [sigmoid]; a hard-swish spelled x * clip(x + 3, 0, 6) / 6).  Then g2
 * and v join g1, so the diamond is one prim that reads a where it is
 * computed instead of from memory.  Only elementwise and broadcast
 * operators of a's shape join (each reads a at the index of its own
 * element, so a is computed once per element: GroupCx.memo).  True when
 * merged. */
static bool
close_diamond(Lower *L, Value *v, Block *blk, int p)
{
	if (p > PAT_BROADCAST || v->type->kind != TY_TENSOR)
		return false;
	for (uint32_t j = 0; j < v->nargs; j++) {
		Value *s = v->args[j];
		uint32_t g2i = s->kind != VK_LIT && s->form == B_OP ? group_of(L, s) : 0;
		if (!g2i)
			continue;
		Group *g2 = &L->groups[g2i - 1];
		if (g2->blk != blk || g2->closed || g2->members[g2->n - 1] != s ||
		    L->uses[s->scratch] != count_operand(v, s))
			continue;
		Value *m0 = g2->members[0];
		for (uint32_t i = 0; i < m0->nargs; i++) {
			Value *a = m0->args[i];
			uint32_t g1i = a->kind != VK_LIT && a->form == B_OP ? group_of(L, a) : 0;
			if (!g1i || g1i == g2i)
				continue;
			Group *g1 = &L->groups[g1i - 1];
			if (g1->blk != blk || g1->closed || g1->members[g1->n - 1] != a ||
			    g1->n + g1->npro + g2->n + 1 > LOWER_MAX_GROUP || !diamond_member(a, v))
				continue;
			uint32_t uses = count_operand(v, a);
			bool fits = true;
			for (int k = 0; k < g2->n && fits; k++) {
				uses += count_operand(g2->members[k], a);
				fits = diamond_member(a, g2->members[k]);
			}
			if (!fits || uses != L->uses[a->scratch])
				continue;
			int base = g1->n;
			g1->reread |= 1u << (base - 1) | g2->reread << base;
			for (int k = 0; k < g2->n; k++) {
				g1->members[g1->n++] = g2->members[k];
				L->group_of[g2->members[k]->scratch] = g1i;
			}
			g1->members[g1->n++] = v;
			L->group_of[v->scratch] = g1i;
			if (g2->pattern > g1->pattern)
				g1->pattern = g2->pattern;
			if (p > g1->pattern)
				g1->pattern = p;
			g2->n = 0;
			g2->closed = true;
			L->nfused += 2;        /* g2's master and v */
			return true;
		}
	}
	return false;
}

/* The squeeze-and-excitation scale: conv2d v's data operand is y = x * s
 * (either order), a multiply alone in its group, in v's block, on v's
 * virtual device, used by v alone and only as its data; of floats; x of
 * y's shape, s of it but 1 along the data layout's spatial axes H and W
 * (s per image and channel, as the excitation's sigmoid makes it).  Then
 * the multiply becomes the conv's prologue (Group.scale): each tile
 * multiplies the elements of x by s as it loads them, and y is never
 * written (efficientnet_b0, mobilenet_v3, regnet_y).  A full-shaped s
 * stays a kernel of its own: a tile reads its input many times, and
 * would read both.  Returns 1 + the multiply's group, setting *xop to
 * x's operand index, or 0. */
static uint32_t
scale_prologue(Lower *L, const Value *v, const Block *blk, uint32_t *xop)
{
	if (v->u.op->op->id != O_CONV2D || v->nargs < 2 || v->type->kind != TY_TENSOR)
		return 0;
	Value *y = v->args[0];
	/* (only operator bindings have groups) */
	uint32_t gi = y->kind != VK_LIT && y->form == B_OP ? group_of(L, y) : 0;
	const Group *g = gi ? &L->groups[gi - 1] : NULL;
	if (!g || g->n != 1 || g->members[0] != y || g->blk != blk || g->scale ||
	    y->u.op->op->id != O_MULTIPLY || y->vd != v->vd || v->args[1] == y ||
	    L->uses[y->scratch] != 1)
		return 0;
	const Type *yt = y->type;
	if (yt->kind != TY_TENSOR || !elem_is_float(yt->dt.kind) || y->nargs != 2)
		return 0;
	ConvAttrs ca;
	lower_conv_attrs(v, &ca);
	if (ca.dl->rank != yt->n)
		return 0;
	for (uint32_t xi = 0; xi < 2; xi++) {
		const Value *x = y->args[xi], *sv = y->args[1 - xi];
		if (x->kind == VK_LIT || sv->kind == VK_LIT || !same_shape(x->type, yt) ||
		    sv->type->kind != TY_TENSOR || sv->type->n != yt->n)
			continue;
		bool ok = true;
		for (uint32_t d = 0; d < yt->n && ok; d++) {
			char ax = ca.dl->axes[d];
			ok = sv->type->dims[d] == (ax == 'H' || ax == 'W' ? 1 : yt->dims[d]);
		}
		if (ok) {
			*xop = xi;
			return gi;
		}
	}
	return 0;
}

static bool group_is_view(const Lower *L, const Group *g);

/* Is a, an operand of m, a single element that m broadcasts (a literal,
 * or a tensor of one element on no image)? */
static bool
single_element(const Lower *L, const Device *dev, const Value *a)
{
	return a->kind == VK_LIT ||
	       (a->type->kind == TY_TENSOR && type_numel(a->type) == 1 &&
	        !image_candidate(L, dev, a->type));
}

/* Can m, member k of an operand's group, be part of the product's
 * prologue: an index map (strided_slice too) of a tensor, or an
 * elementwise operator of its chain operand's shape whose other
 * operands are single elements (Q's division by sqrt(Dh)), reading no
 * image? */
static bool
prologue_member(const Lower *L, const Device *dev, const Group *ga, int k)
{
	const Value *m = ga->members[k];
	const OpDef *op = m->u.op->op;
	if (m->type->kind != TY_TENSOR || image_candidate(L, dev, m->type))
		return false;
	if (lower_is_index_map(op->id, true))
		return m->args[0]->kind != VK_LIT && !image_candidate(L, dev, m->args[0]->type);
	if (op->pattern > PAT_BROADCAST || !lower_is_elementwise_form(op) ||
	    lower_has_reduction(op))
		return false;
	int chain = 0;
	for (uint32_t j = 0; j < m->nargs; j++) {
		const Value *a = m->args[j];
		if (k > 0 ? a == ga->members[k - 1] && same_shape(a->type, m->type)
		          : a->kind != VK_LIT && same_shape(a->type, m->type) &&
		            type_numel(a->type) != 1 && !image_candidate(L, dev, a->type))
			chain++;
		else if (!single_element(L, dev, a))
			return false;
	}
	return chain == 1;
}

/* The index-only prologue of a dense or batch_matmul v on a gpu: its
 * operand j (not a packed dense weight) is the last member of a group
 * in v's block, on v's virtual device, used by v alone, once, whose
 * members are prologue_member's and move elements (at least one index
 * map: a group of reshapes alone is a view already, and costs no
 * kernel).  Then the group becomes part of v's (Group.npro): the tile
 * computes each element it loads through the chain from the chain's
 * source (lower_operand) instead of reading a copy that a kernel of its
 * own made (a transformer's Q, K and V cut out of the QKV product, split
 * into heads and transposed; the layer's input made sequence-first).
 * Not on a cpu, whose tiles load vectors of the operand's buffer, nor
 * on an image.  Returns 1 + the group, or 0. */
static uint32_t
index_prologue(Lower *L, const Value *v, const Block *blk, uint32_t j, int room)
{
	OpId id = v->u.op->op->id;
	if ((id != O_DENSE && id != O_BATCH_MATMUL) || v->nargs < 2 || v->type->kind != TY_TENSOR ||
	    (id == O_DENSE && j == 1 && lower_dense_pack(v)))
		return 0;
	Value *a = v->args[j];
	uint32_t gi = a->kind != VK_LIT && a->form == B_OP ? group_of(L, a) : 0;
	const Group *ga = gi ? &L->groups[gi - 1] : NULL;
	if (!ga || !ga->n || ga->members[ga->n - 1] != a || ga->blk != blk || ga->scale ||
	    ga->npro || ga->reread || L->uses[a->scratch] != 1 || a->vd != v->vd ||
	    ga->n > room || v->args[1 - j] == a || group_is_view(L, ga))
		return 0;
	const Device *dev = group_device(L, ga);
	if (!dev || dev->kind == DK_CPU)
		return 0;
	bool moves = false;
	for (int k = 0; k < ga->n; k++) {
		if (!prologue_member(L, dev, ga, k))
			return 0;
		moves |= lower_is_index_map(ga->members[k]->u.op->op->id, true);
	}
	return moves ? gi : 0;
}

/* New group g's prologues (index_prologue), operand 0's chain then
 * operand 1's, at the end of its members. */
static void
add_prologues(Lower *L, Group *g, const Value *v, const Block *blk)
{
	uint32_t gis[2] = {0, 0};
	int room = LOWER_MAX_GROUP - g->n, total = 0;
	for (uint32_t j = 0; j < 2; j++)
		if ((gis[j] = index_prologue(L, v, blk, j, room - total)))
			total += L->groups[gis[j] - 1].n;
	g->npro = total;
	int at = LOWER_PRO0(g);
	for (uint32_t j = 0; j < 2; j++) {
		if (!gis[j])
			continue;
		Group *ga = &L->groups[gis[j] - 1];
		for (int k = 0; k < ga->n; k++) {
			g->members[at++] = ga->members[k];
			L->group_of[ga->members[k]->scratch] = (uint32_t)L->ngroups;
		}
		L->nprologue += (unsigned)ga->n;
		ga->n = 0;
		ga->closed = true;
	}
}

/* Is t a float32 tensor whose last axis is n long? */
static bool
f32_rows_of(const Type *t, int64_t n)
{
	return t->kind == TY_TENSOR && t->n >= 1 && t->dt.kind == ET_F32 && t->dt.lanes == 1 &&
	       t->dims[t->n - 1] == n;
}

/* The layer_norm after a dense on a gpu: v, an nn.layer_norm over its
 * last axis only, whose data is the last member of a dense's group (with
 * its elementwise consumers and transposes and reshapes that keep the
 * last axis, as an attention's out-projection plus the residual, or an
 * FFN's second product plus it), used by v alone, in v's block, on v's
 * virtual device, f32, the dense's result as long along its last axis,
 * at least 16 rows of at least 32 (the shared-memory tile's least, as
 * gemm_tiles takes them: fewer are lower_gemv.c's or lower_tiled's; and
 * the rows take several work items each),
 * no image, weights not packed, a device of 256 work items a group (the
 * tile's 16x16).  Then v joins the group and is its second kernel
 * (lower_norm_product): the product's sums, in k slices or not, are
 * added up row by row there, through the consumers, and normalized,
 * instead of a kernel adding the slices and storing the row for a
 * layer_norm kernel to read again (an encoder's two per layer).  Not
 * with --no-tile, nor on a cpu.  True when v joined. */
static bool
norm_epilogue(Lower *L, Value *v, Block *blk)
{
	if (v->u.op->op->id != O_LAYER_NORM || L->o->no_tile || v->nargs != 3)
		return false;
	Value *a = v->args[0];
	uint32_t gi = a->kind != VK_LIT && a->form == B_OP ? group_of(L, a) : 0;
	Group *g = gi ? &L->groups[gi - 1] : NULL;
	if (!g || g->blk != blk || g->n + g->npro >= LOWER_MAX_GROUP || g->members[g->n - 1] != a ||
	    g->pattern != PAT_OUT_FUSABLE || g->scale || L->uses[a->scratch] != 1 ||
	    count_operand(v, a) != 1 || a->vd != v->vd)
		return false;
	const Value *d = g->members[0];
	const Device *dev = group_device(L, g);
	if (d->u.op->op->id != O_DENSE || lower_dense_pack(d) || d->args[0]->kind == VK_LIT ||
	    d->args[1]->kind == VK_LIT || !dev || dev->kind == DK_CPU ||
	    dev->max_work_group_size < 256 || image_candidate(L, dev, v->type))
		return false;
	OpCx oc;
	int64_t axis;
	double eps;
	opcx_init_msg(&oc, v->u.op->op, v->u.op->attrs, NULL, 0);
	layer_norm_attrs(&oc, &axis, &eps);
	const Type *dt = d->type;
	int64_t n = dt->kind == TY_TENSOR && dt->n >= 1 ? dt->dims[dt->n - 1] : 0;
	if (!f32_rows_of(v->type, n) || (axis != -1 && axis != (int64_t)v->type->n - 1) || n < 32 ||
	    type_numel(dt) / n < 16)
		return false;
	for (int k = 0; k < g->n; k++) {
		const Value *w = g->members[k];
		if (!f32_rows_of(w->type, n) || image_candidate(L, dev, w->type))
			return false;
		if (w->u.op->op->id == O_TRANSPOSE) {
			int64_t axes[LOWER_MAX_RANK];
			lower_transpose_axes(w, axes);
			if (axes[w->type->n - 1] != (int64_t)w->type->n - 1)
				return false;
		}
	}
	g->members[g->n++] = v;
	g->closed = true;
	L->group_of[v->scratch] = gi;
	L->nfused++;
	L->nnorm++;
	return true;
}

static void
group_binding(Lower *L, Value *v, Block *blk)
{
	const OpDef *op = v->u.op->op;
	int p = op->pattern;
	L->nops++;
	if (!L->o->no_fuse && norm_epilogue(L, v, blk))
		return;
	if (!L->o->no_fuse && p != PAT_OPAQUE && p != PAT_OUT_FUSABLE) {
		if (close_diamond(L, v, blk, p))
			return;
		for (uint32_t i = 0; i < v->nargs; i++) {
			Value *a = v->args[i];
			if (a->kind == VK_LIT || a->form != B_OP)
				continue;
			uint32_t gi = group_of(L, a);
			if (!gi)
				continue;
			Group *g = &L->groups[gi - 1];
			/* every use of a is v's (x * x reads it twice) */
			uint32_t n = count_operand(v, a);
			if (g->blk != blk || g->members[g->n - 1] != a || L->uses[a->scratch] != n ||
			    !fusible(L, g, a, v, p))
				continue;
			if (g->pattern == PAT_OUT_FUSABLE && lower_is_index_map(v->u.op->op->id, false))
				L->nepilogue++;
			if (n > 1)
				g->reread |= 1u << (g->n - 1);
			g->members[g->n++] = v;
			if (p > g->pattern)
				g->pattern = p;
			if (p == PAT_REDUCE)
				g->closed = true;
			L->group_of[v->scratch] = gi;
			L->nfused++;
			return;
		}
	}
	uint32_t xop = 0, si = L->o->no_fuse ? 0 : scale_prologue(L, v, blk, &xop);
	Group *g = new_group(L, v, blk);
	if (si) {
		Group *sg = &L->groups[si - 1];
		g->scale = sg->members[0];
		g->scale_x = xop;
		L->group_of[g->scale->scratch] = (uint32_t)L->ngroups;
		sg->n = 0;
		sg->closed = true;
		L->nscaled++;
	}
	if (!L->o->no_fuse)
		add_prologues(L, g, v, blk);
	if (p == PAT_OPAQUE || v->type->kind != TY_TENSOR || !lower_is_elementwise_form(op))
		g->closed = true;
}

/* ------------------------------------------------------------- scopes */

static const Type *
input_type(const GroupInput *in)
{
	return in->field < 0 ? in->v->type : in->v->type->fields[in->field];
}

/* The image of a packed 5-d tensor in scope: height x width in texels. */
static void
image_size(const Type *t, bool weight, int64_t *w, int64_t *h)
{
	const int64_t *d = t->dims;
	if (weight) {
		*h = d[0];
		*w = d[1] * d[2] * d[3];
	} else {
		*h = d[0] * d[1] * d[2];
		*w = d[3];
	}
}

/* The scope of a buffer of type t for a group on device dev: "texture" or
 * "texture:weight" for packed float tensors when the device has textures
 * and the image fits, else "global". */
static const char *
choose_scope(Lower *L, const Device *dev, const Type *t, bool weight,
             const char *what)
{
	if (!dev || !dev->texture || L->o->no_texture)
		return "global";
	if (t->kind != TY_TENSOR || t->n != 5 || t->dims[4] != 4 || !elem_is_float(t->dt.kind) ||
	    t->dt.kind == ET_F64)
		return "global";
	int64_t w, h;
	image_size(t, weight, &w, &h);
	if (w > dev->image2d_max[0] || h > dev->image2d_max[1] || w < 1 || h < 1) {
		L->nfallback++;
		if (L->o->stats)
			fprintf(L->o->stats, "ir-lower: %s: an image of %lldx%lld texels exceeds "
			        "image2d_max [%lld, %lld] of @%s: kept in global memory\n", what,
			        (long long)w, (long long)h, (long long)dev->image2d_max[0],
			        (long long)dev->image2d_max[1], dev->name);
		return "global";
	}
	L->ntexture++;
	return weight ? "texture:weight" : "texture";
}

/* A conv2d master with the OIHW4o kernel layout reads its weight as an
 * image of texture:weight. */
static bool
is_packed_weight(const GroupCx *c, const GroupInput *in)
{
	Value *m0 = c->g->members[0];
	if (m0->u.op->op->id != O_CONV2D || m0->nargs < 2 || m0->args[1] != in->v)
		return false;
	ConvAttrs ca;
	lower_conv_attrs(m0, &ca);
	return ca.kl->factor != 0;      /* OIHW4o, the one packed kernel layout */
}

/* --------------------------------------------------------- the prims */

/* ------------------------------------------------------------ views */

static const Device *group_device(Lower *L, const Group *g);

/* Would a buffer of type t on dev be an image (choose_scope, without its
 * counting and reports)? */
static bool
image_candidate(const Lower *L, const Device *dev, const Type *t)
{
	return dev && dev->texture && !L->o->no_texture && t->kind == TY_TENSOR && t->n == 5 &&
	       t->dims[4] == 4 && elem_is_float(t->dt.kind) && t->dt.kind != ET_F64;
}

/* A scope a view may live in: open (global by default) or global. */
static bool
global_scope(const VDev *vd)
{
	return !vd || !vd->scope || strcmp(vd->scope, "global") == 0;
}

/* Is group g made of reshapes, squeezes and expand_dims alone (a chain
 * of them is one), whose operands and results are buffers in global
 * memory?  Then its members stay operators, views of their operands'
 * buffers (the same elements in the same order): no prim, no kernel, no
 * copy (ops.h's value_is_view says how the tools after ir-lower take
 * them).  Under --no-fuse every operator is a prim. */
static bool
group_is_view(const Lower *L, const Group *g)
{
	if (L->o->no_fuse)
		return false;
	const Device *dev = group_device((Lower *)L, g);
	for (int k = 0; k < g->n; k++) {
		const Value *v = g->members[k], *a = v->args[0];
		if (!value_is_view(v) || a->type->kind != TY_TENSOR ||
		    a->type->dt.kind != v->type->dt.kind || image_candidate(L, dev, a->type) ||
		    image_candidate(L, dev, v->type) || !global_scope(v->vd) || !global_scope(a->vd))
			return false;
	}
	return true;
}

/* The last _N given to a prim name. */
typedef struct {
	Sym base;
	int last;
} Suffix;

/* A name for a group's prim, not yet taken: new_prim takes it. */
typedef struct {
	Sym name;
	int *slot;            /* the suffix counter of its base name */
	int last;             /* the suffix in name */
} PrimName;

/* "fused_nn_conv2d_nn_bias_add_nn_relu" (TVM's naming), or the operator
 * alone ("nn_softmax") for a group of one, unique in the module. */
static PrimName
prim_name(Lower *L, const Group *g)
{
	/* a scale prologue's multiply first: it comes before the master */
	const Value *ops[LOWER_MAX_GROUP + 1];
	int nm = 0;
	if (g->scale)
		ops[nm++] = g->scale;
	for (int k = LOWER_PRO0(g); k < LOWER_MAX_GROUP; k++)   /* and a prologue */
		ops[nm++] = g->members[k];
	for (int k = 0; k < g->n; k++)
		ops[nm++] = g->members[k];
	size_t cap = 16;
	for (int k = 0; k < nm; k++)
		cap += strlen(ops[k]->u.op->op->name) + 1;
	char *s = xmalloc(cap + 16);
	size_t n = 0;
	if (nm > 1)
		n += (size_t)sprintf(s, "fused");
	for (int k = 0; k < nm; k++) {
		if (n)
			s[n++] = '_';
		for (const char *p = ops[k]->u.op->op->name; *p; p++)
			s[n++] = *p == '.' ? '_' : *p;
	}
	s[n] = 0;
	PrimName pn = {.name = sym_intern(L->m, s, n)};
	/* Many groups share a name: start from the last suffix given. */
	uint32_t h = map_hash_ptr(pn.name);
	MapProbe it;
	Suffix *sf = map_first(&L->suffix, h, &it);
	while (sf && sf->base != pn.name)
		sf = map_next(&it);
	if (!sf) {
		sf = xcalloc(1, sizeof *sf);
		sf->base = pn.name;
		map_add(&L->suffix, h, sf);
	}
	pn.slot = &sf->last;
	pn.last = *pn.slot;
	while (sym_global(pn.name, NULL)) {
		sprintf(s + n, "_%d", ++pn.last);
		pn.name = sym_intern_cstr(L->m, s);
	}
	free(s);
	return pn;
}

static Prim *
new_prim(Module *m, PrimName pn)
{
	Prim *p = arena_alloc(m->arena, sizeof *p);
	p->name = pn.name;
	*pn.slot = pn.last;
	sym_set_global(pn.name, GK_PRIM, p);
	if (m->prims_last)
		m->prims_last->next = p;
	else
		m->prims = p;
	m->prims_last = p;
	return p;
}

/* ------------------------------------------------------- shared prims */

/* Two groups get the same prim when they agree on everything its
 * building reads: the device, the buffers' types and scopes, and per
 * member the operator, its attributes, its type, and for each operand
 * whether it is a literal (its type and value), the chain predecessor,
 * or which buffer.  So the key is made from the group before the prim
 * is built, and a group that finds an earlier prim builds nothing, as
 * TVM's compile engine caches lowered functions by structure.  The key
 * is a string of 64-bit words; pointers stand for what is interned or
 * hash-consed (operators, types, symbols, devices). */
typedef struct {
	uint64_t *key;
	size_t n;
	Prim *p;
} SharedPrim;

static void
key_put(Lower *L, uint64_t w)
{
	VEC_PUSH(L->key, L->keyn, L->keycap) = w;
}

static void
key_ptr(Lower *L, const void *p)
{
	key_put(L, (uint64_t)(uintptr_t)p);
}

static void
key_bytes(Lower *L, const void *s, size_t n)
{
	key_put(L, n);
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = 0;
		memcpy(&w, (const char *)s + i, n - i < 8 ? n - i : 8);
		key_put(L, w);
	}
}

/* Attribute lists nest only as deep as the lexer's bracket limit. */
static void
key_attr(Lower *L, const Attr *a)
{
	key_put(L, (uint64_t)a->kind << 32 | a->n);
	switch (a->kind) {
	case AT_INT:
	case AT_BOOL: key_put(L, (uint64_t)a->u.i); break;
	case AT_FLOAT: {
		uint64_t w;
		memcpy(&w, &a->u.f, sizeof w);
		key_put(L, w);
		break;
	}
	case AT_STR: key_bytes(L, a->u.s, a->n); break;
	case AT_SYM: key_ptr(L, a->u.sym); break;
	case AT_LIST:
		for (uint32_t i = 0; i < a->n; i++)
			key_attr(L, &a->u.list[i]);
		break;
	}
}

/* The key of group c->g on dev with the given buffer scopes, in L->key. */
static void
group_key(Lower *L, const GroupCx *c, const Device *dev, Sym const *in_scope,
          Sym const *out_scope)
{
	const Group *g = c->g;
	L->keyn = 0;
	key_ptr(L, dev);
	key_put(L, (uint64_t)g->n << 32 | (uint64_t)g->npro << 16 | (uint32_t)c->nin);
	for (int i = 0; i < c->nin; i++) {
		key_ptr(L, input_type(&c->in[i]));
		key_ptr(L, in_scope[i]);
	}
	for (int i = 0; i < c->nout; i++)
		key_ptr(L, out_scope[i]);
	for (int t = 0; t < g->n + g->npro; t++) {
		int k = member_slot(g, t);
		const Value *v = g->members[k];
		const AttrMap *am = v->u.op->attrs;
		key_ptr(L, v->u.op->op);
		key_ptr(L, v->type);
		key_put(L, (uint64_t)v->nargs << 32 | (am ? am->n : 0));
		for (uint32_t i = 0; am && i < am->n; i++) {
			key_ptr(L, am->e[i].key);
			key_attr(L, &am->e[i].val);
		}
		for (uint32_t j = 0; j < v->nargs; j++) {
			const Value *a = v->args[j];
			if (a->kind == VK_LIT) {
				uint64_t w;
				memcpy(&w, &a->u.i, sizeof w);
				key_put(L, 1 | (uint64_t)(a->flags & (VF_LIT_FLOAT | VF_LIT_BOOL)) << 8);
				key_ptr(L, a->type);
				key_put(L, w);
			} else if (k > 0 && a == g->members[k - 1]) {
				key_put(L, 2);
			} else if (lower_member_of(g, k, a) >= 0) {
				key_put(L, 4 | (uint64_t)lower_member_of(g, k, a) << 8);
			} else if (lower_prologue_of(g, a) >= 0) {
				key_put(L, 6 | (uint64_t)lower_prologue_of(g, a) << 8);
			} else if (k == 0 && a == g->scale) {
				/* the prologue: which buffers are x and s */
				key_put(L, 5);
				key_ptr(L, a->type);
				for (uint32_t t = 0; t < 2; t++) {
					const Value *xs = a->args[t ? 1 - g->scale_x : g->scale_x];
					int i = 0;
					while (c->in[i].v != xs)
						i++;
					key_put(L, (uint64_t)i);
				}
			} else {
				int i = 0;
				while (c->in[i].v != a)
					i++;
				key_put(L, 3 | (uint64_t)i << 8);
			}
		}
	}
}

static uint32_t
key_hash(const Lower *L)
{
	return map_hash(L->key, L->keyn * sizeof *L->key);
}

/* The prim of an earlier group with the key in L->key, or NULL. */
static Prim *
shared_find(const Lower *L, uint32_t h)
{
	MapProbe it;
	for (SharedPrim *e = map_first(&L->shared, h, &it); e; e = map_next(&it))
		if (e->n == L->keyn && memcmp(e->key, L->key, L->keyn * sizeof *L->key) == 0)
			return e->p;
	return NULL;
}

static void
shared_add(Lower *L, uint32_t h, Prim *p)
{
	SharedPrim *e = xmalloc(sizeof *e);
	e->n = L->keyn;
	e->key = xmalloc(L->keyn * sizeof *e->key);
	memcpy(e->key, L->key, L->keyn * sizeof *e->key);
	e->p = p;
	map_add(&L->shared, h, e);
}

static const Device *
group_device(Lower *L, const Group *g)
{
	const Value *t = g->members[g->n - 1];
	if (t->vd && t->vd->dev)
		return module_device(L->m, t->vd->dev);
	return module_default_device(L->m);
}

/* A name for field `field` of value `base` that the function does not
 * have yet: "base_F", else "base_F_2", ... */
static Sym
field_name(Lower *L, Sym base, int field)
{
	char name[256];
	snprintf(name, sizeof name, "%s_%d", base, field);
	size_t n = strlen(name);
	for (int k = 2; nameset_has(&L->names, name); k++)
		snprintf(name + n, sizeof name - n, "_%d", k);
	Sym s = module_name(L->m, name, strlen(name));
	nameset_add(&L->names, s);
	return s;
}

/* The call's operands: the inputs, a tuple's fields as its projections
 * (new bindings before the call when the tuple is not written as one;
 * queued on g->pre, spliced in by unlink_removed). */
static Value *
input_arg(Lower *L, Group *g, Value *call, const GroupInput *in)
{
	if (in->field < 0)
		return in->v;
	Value *t = in->v;
	if (t->kind == VK_BIND && t->form == B_TUPLE)
		return t->args[in->field];
	Value *p = value_new(L->m, VK_BIND, 1);
	p->scratch = UINT32_MAX;
	p->form = B_PROJ;
	p->name = field_name(L, t->name, in->field);
	p->args[0] = t;
	p->u.index = (uint32_t)in->field;
	p->type = input_type(in);
	p->loc = call->loc;
	p->flags = call->flags & VF_LOC;
	p->next = NULL;
	if (g->pre_last)
		g->pre_last->next = p;
	else
		g->pre = p;
	g->pre_last = p;
	return p;
}

/* A call of a prim with one result has that result's tensor type, so a
 * one-field tuple result (a split into one section) is the call, under
 * a name of its own, wrapped in a tuple that takes the tail's name:
 *     %s_0 = call_lowered @split(%x)
 *     %s = (%s_0,)
 * The call goes last in the group's queue; the tuple is what replaces
 * the tail.  Any other call is returned as it is. */
static Value *
one_tuple(Lower *L, Group *g, Value *call)
{
	const Type *t = call->type;
	if (t->kind != TY_TUPLE || t->n != 1)
		return call;
	Value *tup = value_new(L->m, VK_BIND, 1);
	tup->scratch = UINT32_MAX;
	tup->form = B_TUPLE;
	tup->name = call->name;
	tup->type = t;
	tup->vd = call->vd;
	tup->loc = call->loc;
	tup->flags = call->flags;
	tup->args[0] = call;
	call->name = field_name(L, call->name, 0);
	call->type = t->fields[0];
	call->next = NULL;
	if (g->pre_last)
		g->pre_last->next = call;
	else
		g->pre = call;
	g->pre_last = call;
	return tup;
}

/* Loop-level indices are i32: a tensor of more elements cannot be
 * indexed (and would wrap silently). */
static bool
check_indexable(Lower *L, const Value *at, const Value *v, const Type *t)
{
	if (t->kind != TY_TENSOR || type_numel(t) <= INT32_MAX)
		return true;
	error_at(L->m->ctx, at->loc, "cannot lower %%%s: %s has %lld elements, more than the "
	         "2147483647 that the loop level's i32 indices reach", at->name,
	         v == at ? "its result" : "an operand", (long long)type_numel(t));
	return false;
}

/* The group's value at idx, of `lanes` lanes, stored in the result. */
static bool
store_value(GroupCx *c, PExpr **idx, uint32_t lanes)
{
	PExpr *val = lower_member(c, c->g->n - 1, idx, lanes);
	if (val)
		pb_store(c->b, c->out[0], idx, lanes, val);
	return val != NULL;
}

/* A packed result whose members cannot compute a texel as a vector
 * (index shuffles: layout_transform into NCHW4c, ...): its 4 elements one
 * by one into a local texel, which is then stored whole, so that the
 * result can be an image. */
static bool
gather_texel(GroupCx *c, PExpr **idx)
{
	PBuild *b = c->b;
	const Type *rt = c->g->members[c->g->n - 1]->type;
	int64_t four = 4;
	PVar *tex = pb_alloc(b, "texel", type_tensor(c->m, (DType){rt->dt.kind, 1}, 1, &four), c->local);
	PVar *l = pb_scalar(b, "l", (DType){ET_I32, 1});
	pb_for(b, l, pe_i32(b, 0), pe_i32(b, 4), FK_UNROLLED, NULL);
	PExpr *lane = pe_var(b, l);
	idx[rt->n - 1] = lane;
	PExpr *val = lower_member(c, c->g->n - 1, idx, 1);
	if (val)
		pb_store(b, tex, &lane, 1, val);
	pb_close(b);
	if (!val)
		return false;
	PExpr *zero = pe_i32(b, 0);
	idx[rt->n - 1] = zero;
	pb_store(b, c->out[0], idx, 4, pe_load(b, tex, &zero, 4));
	return true;
}

/* The schedule of every group no other one takes: an element per work
 * item (a cpu: per loop iteration); a packed result a texel (4 lanes) at
 * a time, the loops covering the other axes, the last index 0. */
static bool
schedule_elementwise(GroupCx *c)
{
	const Type *rt = c->g->members[c->g->n - 1]->type;
	uint32_t lanes = lower_group_lanes(c);
	bool gather = lanes == 1 && lower_packed_result(c);
	int64_t dims[LOWER_MAX_RANK];
	memcpy(dims, rt->dims, rt->n * sizeof *dims);
	if (lanes > 1 || gather)
		dims[rt->n - 1] = 1;
	PExpr *idx[LOWER_MAX_RANK];
	int depth = pb_depth(c->b);
	lower_open_nest(c, dims, rt->n, idx, !gather);
	bool ok = gather ? gather_texel(c, idx) : store_value(c, idx, lanes);
	pb_close_to(c->b, depth);
	return ok;
}

/* A dense, batch_matmul or conv2d master's tile, the first that takes
 * it: on a gpu a product of few rows (lower_gemv.c) or the product in
 * shared memory (lower_tile_gpu.c), a
 * grouped or depthwise conv2d's rows (lower_tile_dw.c), the register
 * tiles (lower_tile.c).  1, 0 or -1 as lower_tiled. */
static int
schedule_tiled(GroupCx *c)
{
	if (c->g->members[0]->type->kind != TY_TENSOR)
		return 0;
	if (lower_ends_in_norm(c->g)) {
		/* (norm_epilogue fused it only where this tile applies) */
		int r = lower_tiled_gpu(c);
		if (!r)
			error_at(c->m->ctx, c->g->members[c->g->n - 1]->loc,
			         "internal error: no shared-memory tile for the product before %%%s",
			         c->g->members[c->g->n - 1]->name);
		return r ? r : -1;
	}
	int r = lower_gemv_gpu(c);
	if (!r && lower_on_gpu(c))
		r = lower_tiled_gpu(c);
	if (!r && c->g->members[0]->u.op->op->id == O_CONV2D)
		r = lower_tile_grouped(c);
	return r ? r : lower_tiled(c);
}

/* The group's schedule, by its master operator: softmax and split are
 * lowered whole; dense, batch_matmul and conv2d tiled where a tiling
 * fits (schedule_tiled); a group ending in a long sum, mean or pool over
 * several work items per result (lower_reduce.c on a gpu,
 * lower_reduce_cpu.c on a cpu); a pool of a window on a cpu a row of
 * outputs per item (lower_pool_cpu.c); the rest an element per item. */
static bool
schedule(Lower *L, GroupCx *c)
{
	int r;
	switch (c->g->members[0]->u.op->op->id) {
	case O_SOFTMAX:
		if (!L->o->no_tile && (lower_softmax_gpu(c) || lower_softmax_cpu(c)))
			return true;
		return lower_softmax(c);
	case O_LAYER_NORM:
		if (!L->o->no_tile && (lower_layer_norm_gpu(c) || lower_layer_norm_cpu(c)))
			return true;
		return lower_layer_norm(c);
	case O_SPLIT:
		return lower_split(c);
	case O_DENSE: case O_BATCH_MATMUL: case O_CONV2D:
		if (!L->o->no_tile && (r = schedule_tiled(c)) != 0)
			return r > 0;
		break;
	case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM:
	case O_MINIMUM: case O_POWER: case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG:
	case O_SQRT: case O_RSQRT: case O_SIGMOID: case O_TANH: case O_CLIP: case O_CAST:
	case O_ERF: case O_HARD_SIGMOID: case O_HARD_SWISH: case O_SIN: case O_COS:
	case O_ASIN: case O_ACOS: case O_ATAN:
	case O_BIAS_ADD: case O_SUM: case O_MEAN: case O_MAX: case O_MIN: case O_ARGMAX:
	case O_ARGMIN: case O_MAX_POOL2D:
	case O_AVG_POOL2D:
	case O_GLOBAL_AVG_POOL2D: case O_RESHAPE: case O_TRANSPOSE: case O_LAYOUT_TRANSFORM:
	case O_CONCATENATE: case O_SQUEEZE: case O_EXPAND_DIMS: case O_STRIDED_SLICE:
	case O_PAD: case O_EQUAL: case O_NOT_EQUAL: case O_LESS: case O_LESS_EQUAL: case O_GREATER:
	case O_GREATER_EQUAL: case O_LOGICAL_AND: case O_LOGICAL_OR: case O_LOGICAL_XOR:
	case O_LOGICAL_NOT: case O_WHERE: case O__COUNT:
		break;
	}
	if (!L->o->no_tile && ((r = lower_reduce_gpu(c)) != 0 || (r = lower_pool_cpu(c)) != 0 ||
	                       (r = lower_reduce_cpu(c)) != 0))
		return r > 0;
	return schedule_elementwise(c);
}

/* Builds p, the prim of group c->g, with the buffer scopes chosen. */
static bool
lower_body(Lower *L, GroupCx *c, Prim *p, Sym const *scopes)
{
	Module *m = L->m;
	const Group *g = c->g;
	const Type *rt = g->members[g->n - 1]->type;
	PBuild b;
	pb_start(&b, m, p, g->members[g->n - 1]->loc);
	c->b = &b;
	c->local = vdev_get(m, c->dev, sym_intern_cstr(m, "local"));
	char pname[32];
	for (int i = 0; i < c->nin; i++) {
		snprintf(pname, sizeof pname, "p%d", i);
		c->in[i].buf = pb_param_buffer(&b, pname, input_type(&c->in[i]),
		                               vdev_get(m, c->dev, scopes[i]));
	}
	c->out = xcalloc((size_t)c->nout, sizeof *c->out);
	for (int i = 0; i < c->nout; i++) {
		snprintf(pname, sizeof pname, c->nout == 1 ? "out" : "out%d", i);
		c->out[i] = pb_param_buffer(&b, pname, rt->kind == TY_TUPLE ? rt->fields[i] : rt,
		                            vdev_get(m, c->dev, scopes[c->nin + i]));
	}
	/* The parameters are p0.., out..; the body's names count from 0. */
	b.nvars = 0;
	LowerSched s = {.dev = c->device, .prim = p->name};
	s.image = c->nout == 1 && c->out[0]->vd->scope &&
	          strncmp(c->out[0]->vd->scope, "texture", 7) == 0;
	for (int k = 0; k < g->n; k++)
		s.reduction |= lower_has_reduction(g->members[k]->u.op->op);
	c->sched = &s;
	bool ok = schedule(L, c);
	if (ok && b.bad) {
		const Value *t = g->members[g->n - 1];
		error_at(m->ctx, t->loc, "cannot lower %%%s: its code needs the integer %lld, out of the "
		         "range of %s", t->name, (long long)b.bad_int, elem_name(b.bad_kind));
		ok = false;
	}
	free(c->out);
	return ok;
}

/* Every tensor of the group (results and operands) can be indexed. */
static bool
check_group_indexable(Lower *L, const Group *g)
{
	for (int t = 0; t < g->n + g->npro; t++) {
		const Value *v = g->members[member_slot(g, t)];
		const Type *rt = v->type;
		for (uint32_t f = 0; f < (rt->kind == TY_TUPLE ? rt->n : 1); f++)
			if (!check_indexable(L, v, v, rt->kind == TY_TUPLE ? rt->fields[f] : rt))
				return false;
		for (uint32_t j = 0; j < v->nargs; j++) {
			const Type *at = v->args[j]->type;
			for (uint32_t f = 0; f < (at->kind == TY_TUPLE ? at->n : 1); f++)
				if (!check_indexable(L, v, v->args[j], at->kind == TY_TUPLE ? at->fields[f] : at))
					return false;
		}
	}
	return true;
}

/* The parameters: the memory scope of each input, then of each result
 * (malloc'd; they are part of the key).  The messages name `prim`, the
 * prim the group would get. */
static Sym *
group_scopes(Lower *L, GroupCx *c, const Device *dev, const char *prim)
{
	Module *m = L->m;
	const Group *g = c->g;
	Value *tail = g->members[g->n - 1];
	const Type *rt = tail->type;
	Sym *scopes = xcalloc((size_t)(c->nin + c->nout), sizeof *scopes);
	char what[300];
	for (int i = 0; i < c->nin; i++) {
		snprintf(what, sizeof what, "operand %%%s of @%s", c->in[i].v->name, prim);
		scopes[i] = sym_intern_cstr(m, choose_scope(L, dev, input_type(&c->in[i]),
		                                            is_packed_weight(c, &c->in[i]), what));
	}
	/* An image is written a whole texel at a time (write_imagef has no
	 * one-channel form, and a kernel cannot read back what it writes):
	 * softmax and split, which write element by element, keep their
	 * results in buffers.  Every other packed result is written in
	 * texels (schedule_elementwise). */
	OpId op0 = g->members[0]->u.op->op->id;
	bool texels = op0 != O_SOFTMAX && op0 != O_LAYER_NORM && op0 != O_SPLIT;
	for (int i = 0; i < c->nout; i++) {
		const Type *t = rt->kind == TY_TUPLE ? rt->fields[i] : rt;
		snprintf(what, sizeof what, "result %%%s of @%s", tail->name, prim);
		const char *scope = choose_scope(L, dev, t, false, what);
		if (strcmp(scope, "global") != 0 && !texels) {
			L->ntexture--;
			if (L->o->stats)
				fprintf(L->o->stats, "ir-lower: %s is computed an element at a time, and an "
				        "image is written a texel at a time: kept in global memory\n", what);
			scope = "global";
		}
		scopes[c->nin + i] = sym_intern_cstr(m, scope);
	}
	return scopes;
}

/* The group's last member becomes `call_lowered @p(inputs)` (wrapped in a
 * tuple by one_tuple where need be); the others go (unlink_removed takes
 * them out of the block). */
static void
replace_with_call(Lower *L, Group *g, GroupCx *c, Prim *p)
{
	Value *tail = g->members[g->n - 1];
	Value *call = value_new(L->m, VK_BIND, (uint32_t)c->nin);
	call->scratch = UINT32_MAX;
	for (int i = 0; i < c->nin; i++)
		call->args[i] = input_arg(L, g, tail, &c->in[i]);
	/* Operands are stored inline, so the call is a new value that
	 * takes tail's name and place; uses of tail are retargeted. */
	call->form = B_CALL_LOWERED;
	call->name = tail->name;
	call->type = tail->type;
	call->vd = tail->vd;
	call->loc = tail->loc;
	call->flags = tail->flags & (VF_TYPED | VF_ON | VF_LOC);
	call->u.prim = p;
	g->replaced = tail;
	tail->flags |= VF_REMOVED;
	for (int k = 0; k + 1 < g->n; k++)
		g->members[k]->flags |= VF_REMOVED;
	if (g->scale)
		g->scale->flags |= VF_REMOVED;
	for (int k = LOWER_PRO0(g); k < LOWER_MAX_GROUP; k++)
		g->members[k]->flags |= VF_REMOVED;
	g->members[g->n - 1] = one_tuple(L, g, call);
}

/* One group: its parameters, then its prim (an earlier identical one, or
 * built by its schedule), then the call that replaces it. */
static bool
lower_group(Lower *L, Group *g)
{
	Module *m = L->m;
	if (!check_group_indexable(L, g))
		return false;
	const Device *dev = group_device(L, g);
	if (!dev) {
		/* A prim's buffers name their device: without one declared,
		 * there is nothing to name (ir-plan-devices refuses it too). */
		const Value *t = g->members[g->n - 1];
		error_at(m->ctx, t->loc, "no device is declared, so %%%s cannot be lowered", t->name);
		return false;
	}
	Sym devname = dev->name;
	PrimName pn = prim_name(L, g);
	GroupCx c = {.m = m, .g = g, .dev = devname, .device = dev,
	             .split_k_kernel = L->o->split_k_kernel};
	if (g->reread)
		c.memo = xcalloc(LOWER_MAX_GROUP, sizeof *c.memo);
	lower_collect_inputs(&c);
	const Type *rt = g->members[g->n - 1]->type;
	c.nout = rt->kind == TY_TUPLE ? (int)rt->n : 1;
	Sym *scopes = group_scopes(L, &c, dev, pn.name);
	group_key(L, &c, dev, scopes, scopes + c.nin);
	uint32_t h = key_hash(L);
	Prim *p = shared_find(L, h);
	bool ok = true;
	if (p) {
		L->nshared++;
	} else {
		p = new_prim(m, pn);
		shared_add(L, h, p);
		ok = lower_body(L, &c, p, scopes);
		L->nprims++;
		/* A packed conv2d that the shared-memory product takes reads its
		 * texels into shared memory and writes its result a texel at a
		 * time (lower_tile_gpu.c), so its tensors stay images: said once
		 * per prim, not per call of a shared one. */
		if (ok && dev->texture && !L->o->no_texture && !L->o->no_tile && L->o->stats &&
		    lower_gpu_packed_gemm(&c))
			fprintf(L->o->stats, "ir-lower: @%s is a matrix product tiled in shared memory, "
			        "on images where they fit: texels read into its tiles, its result written "
			        "a texel at a time\n", p->name);
	}
	free(scopes);
	if (ok)
		replace_with_call(L, g, &c, p);
	free(c.in);
	free(c.memo);
	return ok;
}

/* ------------------------------------------------------------- driver */

/* Unlinks the removed members from their blocks and puts each group's
 * call (after its queued projections) in its tail's place: one pass over
 * each block. */
static void
unlink_removed(Lower *L)
{
	Map seen = {0};
	for (size_t i = 0; i < L->ngroups; i++) {
		Block *blk = L->groups[i].blk;
		uint32_t h = map_hash_ptr(blk);
		MapProbe it;
		Block *e = map_first(&seen, h, &it);
		while (e && e != blk)
			e = map_next(&it);
		if (e)
			continue;
		map_add(&seen, h, blk);
		Value **link = &blk->first;
		Value *last = NULL;
		while (*link) {
			Value *v = *link;
			uint32_t gi = (v->flags & VF_REMOVED) ? group_of(L, v) : 0;
			Group *g = gi ? &L->groups[gi - 1] : NULL;
			if (g && g->replaced == v) {
				Value *call = g->members[g->n - 1];
				call->next = v->next;
				if (g->pre) {
					g->pre_last->next = call;
					*link = g->pre;
				} else {
					*link = call;
				}
				continue;
			}
			if (v->flags & VF_REMOVED) {
				*link = v->next;
				continue;
			}
			last = *link;
			link = &(*link)->next;
		}
		blk->last = last;
	}
	map_free(&seen);
}

/* Uses of a replaced tail now read its call. */
static void
retarget_uses(Lower *L)
{
	FuncWalk w;
	WalkStep s;
	fwalk_start(&w, L->f);
	while (fwalk_next(&w, &s)) {
		Value **ops = NULL;
		uint32_t n = 0;
		if (s.ev == W_BIND) {
			ops = s.v->args;
			n = s.v->nargs;
		} else {
			ops = &s.blk->yield;
			n = 1;
		}
		for (uint32_t i = 0; i < n; i++) {
			Value *a = ops[i];
			if (!a || a->kind == VK_LIT || !(a->flags & VF_REMOVED))
				continue;
			uint32_t gi = group_of(L, a);
			if (gi)
				ops[i] = L->groups[gi - 1].members[L->groups[gi - 1].n - 1];
		}
	}
}

static bool
lower_func(Lower *L, Func *f)
{
	L->f = f;
	L->ngroups = 0;
	memset(&L->names, 0, sizeof L->names);
	count_uses(L);
	for (uint32_t i = 0; i < f->nparams; i++)
		nameset_add(&L->names, f->params[i]->name);
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		nameset_add(&L->names, v->name);
		if (v->form == B_OP && v->u.op->op)
			group_binding(L, v, blk);
	}
	bool ok = true;
	for (size_t i = 0; i < L->ngroups && ok; i++) {
		if (!L->groups[i].n)      /* merged into an earlier one */
			continue;
		if (group_is_view(L, &L->groups[i]))
			L->nviews += (unsigned)L->groups[i].n;
		else
			ok = lower_group(L, &L->groups[i]);
	}
	if (ok) {
		/* The calls go in first, so that retargeting sees their operands. */
		unlink_removed(L);
		retarget_uses(L);
	}
	nameset_free(&L->names);
	return ok;
}

bool
lower_module(Module *m, const LowerOpts *o)
{
	if (!module_check_unplanned(m, "ir-lower"))
		return false;
	Lower L = {.m = m, .o = o};
	bool ok = true;
	for (Func *f = m->funcs; f && ok; f = f->next)
		ok = lower_func(&L, f);
	free(L.groups);
	for (uint32_t i = 0; i < L.suffix.cap; i++)
		free(L.suffix.slot[i]);
	map_free(&L.suffix);
	free(L.uses);
	free(L.group_of);
	for (uint32_t i = 0; i < L.shared.cap; i++)
		if (L.shared.slot[i]) {
			SharedPrim *e = L.shared.slot[i];
			free(e->key);
			free(e);
		}
	map_free(&L.shared);
	free(L.key);
	if (ok && o->stats && L.nviews)
		fprintf(o->stats, "ir-lower: %u reshape%s left as view%s of %s operand%s buffer%s "
		        "(no kernel)\n", L.nviews, L.nviews == 1 ? "" : "s", L.nviews == 1 ? "" : "s",
		        L.nviews == 1 ? "its" : "their", L.nviews == 1 ? "'s" : "s'",
		        L.nviews == 1 ? "" : "s");
	if (ok && o->stats && L.nscaled)
		fprintf(o->stats, "ir-lower: %u scale multipl%s (x * s, s per image and channel) "
		        "fused into the conv2d that consumes %s, as its input's prologue\n", L.nscaled,
		        L.nscaled == 1 ? "y" : "ies", L.nscaled == 1 ? "it" : "them");
	if (ok && o->stats && L.nprologue)
		fprintf(o->stats, "ir-lower: %u index-only operator%s read through by products "
		        "(operand prologues)\n", L.nprologue, L.nprologue == 1 ? "" : "s");
	if (ok && o->stats && L.nepilogue)
		fprintf(o->stats, "ir-lower: %u transpose%s and reshape%s stored through by products "
		        "(epilogues)\n", L.nepilogue, L.nepilogue == 1 ? "" : "s",
		        L.nepilogue == 1 ? "" : "s");
	if (ok && o->stats && L.nnorm)
		fprintf(o->stats, "ir-lower: %u layer_norm%s normalizing the rows of the product "
		        "before (norm epilogues)\n", L.nnorm, L.nnorm == 1 ? "" : "s");
	if (ok && o->stats)
		fprintf(o->stats, "ir-lower: %u operator%s in %u prim%s (%u fused into a producer, "
		        "%u call%s of a prim shared with an identical group); "
		        "%u buffer%s in texture memory, %u kept in global memory for image2d_max\n",
		        L.nops, L.nops == 1 ? "" : "s", L.nprims, L.nprims == 1 ? "" : "s", L.nfused,
		        L.nshared, L.nshared == 1 ? "" : "s",
		        L.ntexture, L.ntexture == 1 ? "" : "s", L.nfallback);
	return ok;
}
