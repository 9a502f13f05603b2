/* interp_prim.c: the loop-level interpreter (see interp_prim.h).
 *
 * Statements run on an explicit stack (a prim may nest ten thousand
 * deep); expressions recurse, their depth being capped by the parser.
 * Scalars (parameters, loop variables, lets) live in slots numbered once
 * per run through PVar.scratch; buffers (parameters and allocs) likewise
 * in a second table.  The numbering is a preorder walk, so the variables
 * defined inside one statement have consecutive slots: a work item's own
 * state, under a barrier, is one range of each table.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_prim_impl.h"
#include "texture/texture.h"
#include "walk.h"
/* Saving every work item's state costs memory per item; a work group is
 * at most a few thousand items on real devices. */
#define MAX_WORK_ITEMS 65536

bool
prim_fail(Run *r, Loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	error_at(r->ctx, loc, "in @%s: %s", r->p->name, msg);
	return false;
}
/* ------------------------------------------------------------ numbering */

/* Numbers the scalars and allocs in preorder, so each statement's own
 * definitions are consecutive. */
static void
number_stmts(const PBlock *body, uint32_t *ns, uint32_t *nb)
{
	PrimWalk w;
	pwalk_start(&w, body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		if (s->kind == S_FOR)
			s->u.loop.var->scratch = (*ns)++;
		else if (s->kind == S_LET)
			s->u.let.var->scratch = (*ns)++;
		else if (s->kind == S_ALLOC)
			s->u.alloc.buf->scratch = (*nb)++;
	}
}

/* Widens [*lo, *hi) to hold v. */
static void
widen(uint32_t *lo, uint32_t *hi, uint32_t v)
{
	if (v < *lo)
		*lo = v;
	if (v + 1 > *hi)
		*hi = v + 1;
}

/* The scalar and buffer slots defined inside loop (its variable
 * included): [*s0, *s1) and [*b0, *b1). */
static void
slot_ranges(const PStmt *loop, uint32_t *s0, uint32_t *s1, uint32_t *b0, uint32_t *b1)
{
	*s0 = *s1 = (uint32_t)loop->u.loop.var->scratch;
	(*s1)++;
	*b0 = UINT32_MAX;
	*b1 = 0;
	PrimWalk w;
	pwalk_start(&w, &loop->u.loop.body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		if (s->kind == S_FOR)
			widen(s0, s1, (uint32_t)s->u.loop.var->scratch);
		else if (s->kind == S_LET)
			widen(s0, s1, (uint32_t)s->u.let.var->scratch);
		else if (s->kind == S_ALLOC)
			widen(b0, b1, (uint32_t)s->u.alloc.buf->scratch);
	}
	if (*b0 > *b1)
		*b0 = *b1 = 0;
}

/* The work items' own state between barriers (run_work_group): the slots
 * [s0, s0 + ns) the nest defines and its buffers [b0, b0 + nb), per item.
 * A scalar slot keeps its first lane only (8 bytes, not a Val's 128):
 * the tiles' work items define a few hundred scalars each, and copying
 * whole Vals in and out for every item at every barrier was 15% of an
 * interpreted shared-memory product. */
typedef struct {
	uint32_t s0, b0;
	size_t ns, nb, nv;
	uint32_t *vec;       /* the slots (from s0) of vectors */
	Lane *lane;          /* [item][ns]: each slot's first lane */
	Val *vals;           /* [item][nv]: the vector slots whole */
	Tensor **bufs;       /* [item][nb] */
} ItemState;

static void
item_state_init(ItemState *is, const PStmt *loop, size_t items)
{
	uint32_t s1, b1;
	slot_ranges(loop, &is->s0, &s1, &is->b0, &b1);
	is->ns = s1 - is->s0;
	is->nb = b1 - is->b0;
	is->nv = 0;
	is->vec = xcalloc(is->ns + 1, sizeof *is->vec);
	PrimWalk w;
	pwalk_start(&w, &loop->u.loop.body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));)
		if (s->kind == S_LET && s->u.let.val->dt.lanes > 1)
			is->vec[is->nv++] = (uint32_t)s->u.let.var->scratch - is->s0;
	is->lane = xcalloc(items * is->ns + 1, sizeof *is->lane);
	is->vals = xcalloc(items * is->nv + 1, sizeof *is->vals);
	is->bufs = xcalloc(items * is->nb + 1, sizeof *is->bufs);
}

static void
item_state_free(ItemState *is)
{
	free(is->vec);
	free(is->lane);
	free(is->vals);
	free(is->bufs);
}

/* Item t's state from the run's slots and (with bufs) buffers: before
 * the first segment an item has no buffers of its own yet. */
static void
item_save(const Run *r, ItemState *is, size_t t, bool bufs)
{
	const Val *from = &r->slot[is->s0];
	Lane *l = &is->lane[t * is->ns];
	for (size_t i = 0; i < is->ns; i++)
		l[i] = from[i].l[0];
	for (size_t j = 0; j < is->nv; j++)
		is->vals[t * is->nv + j] = from[is->vec[j]];
	if (bufs)
		memcpy(&is->bufs[t * is->nb], &r->buf[is->b0], is->nb * sizeof *is->bufs);
}

/* The run's slots and buffers from item t's state. */
static void
item_restore(Run *r, const ItemState *is, size_t t)
{
	Val *to = &r->slot[is->s0];
	const Lane *l = &is->lane[t * is->ns];
	for (size_t i = 0; i < is->ns; i++)
		to[i].l[0] = l[i];
	for (size_t j = 0; j < is->nv; j++)
		to[is->vec[j]] = is->vals[t * is->nv + j];
	memcpy(&r->buf[is->b0], &is->bufs[t * is->nb], is->nb * sizeof *is->bufs);
}
/* ---------------------------------------------------------- arithmetic */

bool
prim_division_by_zero(Run *r, const PExpr *e)
{
	return prim_fail(r, e->loc, "integer %s by zero", e->op == OP_DIV ? "division" : "modulo");
}

static bool eval(Run *r, const PExpr *e, Val *out);
/* eval1 with a scalar variable, the commonest operand, read in place
 * rather than through a call. */
static inline bool
operand(Run *r, const PExpr *e, Lane *out)
{
	if (e->kind == E_VAR && e->dt.lanes <= 1) {
		*out = r->slot[e->u.var->scratch].l[0];
		return true;
	}
	return prim_eval1(r, e, out);
}

/* An index out of bounds: i (raw, the lane read) of kind k on axis d. */
bool
prim_index_error(Run *r, const PVar *b, const PIndex *ix, uint32_t d, ElemKind k, int64_t raw,
            int64_t size, Loc loc)
{
	char at[48];
	if (k == ET_U64)
		snprintf(at, sizeof at, "%llu", (unsigned long long)raw);
	else
		snprintf(at, sizeof at, "%lld", (long long)as_count(k, raw));
	if (ix->lanes)
		return prim_fail(r, loc, "lanes %s:%u are out of bounds for axis %u of '%%%s' (size %lld)",
		            at, (unsigned)ix->lanes, (unsigned)d, b->name, (long long)size);
	return prim_fail(r, loc, "index %s is out of bounds for axis %u of '%%%s' (size %lld)", at,
	            (unsigned)d, b->name, (long long)size);
}

/* The element offset of an index into buffer b, bounds-checked, and the
 * number of consecutive elements it covers (a lane run on the last axis). */
static bool
offset(Run *r, const PVar *b, const PIndex *idx, uint32_t n, Loc loc, int64_t *off,
       uint32_t *lanes)
{
	const Tensor *t = r->buf[b->scratch];
	if (!t)   /* the scope rules make this impossible; do not crash on it */
		return prim_fail(r, loc, "internal error: '%%%s' is used before its alloc ran", b->name);
	int64_t o = 0;
	*lanes = 1;
	for (uint32_t d = 0; d < n; d++) {
		Lane v;
		if (!operand(r, idx[d].e, &v))
			return false;
		ElemKind k = (ElemKind)idx[d].e->dt.kind;
		int64_t i = as_count(k, v.i), size = t->dims[d];
		uint32_t l = idx[d].lanes ? idx[d].lanes : 1;
		if (i < 0 || i > size - (int64_t)l)
			return prim_index_error(r, b, &idx[d], d, k, v.i, size, loc);
		o = o * size + i;
		*lanes = l;
	}
	*off = o;
	return true;
}

/* The element offset of texel (x, y) of image b, bounds-checked: the
 * image is the N-d buffer itself, row-major order being the same
 * (texture.h). */
static bool
texel(Run *r, const PVar *b, const PExpr *xe, const PExpr *ye, Loc loc, int64_t *off)
{
	const Tensor *t = r->buf[b->scratch];
	if (!t)
		return prim_fail(r, loc, "internal error: '%%%s' is used before its alloc ran", b->name);
	int64_t wh[2];
	char why[256];
	if (!texture_image(b->type, b->vd->scope, wh, why, sizeof why))
		return prim_fail(r, loc, "'%%%s' is not an image: %s", b->name, why);
	Lane v[2];
	if (!prim_eval1(r, xe, &v[0]) || !prim_eval1(r, ye, &v[1]))
		return false;
	int64_t c[2];
	for (int i = 0; i < 2; i++) {
		ElemKind k = (ElemKind)(i ? ye : xe)->dt.kind;
		c[i] = as_count(k, v[i].i);
		if (c[i] < 0 || c[i] >= wh[i]) {
			char at[48];
			if (k == ET_U64)
				snprintf(at, sizeof at, "%llu", (unsigned long long)v[i].i);
			else
				snprintf(at, sizeof at, "%lld", (long long)c[i]);
			return prim_fail(r, loc, "texel %s %s is out of bounds for '%%%s', an image %lld wide "
			            "and %lld high", i ? "y" : "x", at, b->name, (long long)wh[0],
			            (long long)wh[1]);
		}
	}
	*off = (c[1] * wh[0] + c[0]) * 4;
	return true;
}
/* Recursion: the parser caps expression depth at IR_MAX_EXPR_DEPTH.
 * Only the expression's lanes of out are written; most code is scalar
 * and goes through eval1 instead. */
static bool
eval(Run *r, const PExpr *e, Val *out)
{
	ElemKind k = (ElemKind)e->dt.kind;
	int lanes = e->dt.lanes ? e->dt.lanes : 1;
	switch (e->kind) {
	case E_INT:
	case E_FLOAT:
	case E_BOOL:
		out->l[0] = literal(e, k);
		return true;
	case E_VAR: {
		/* Most values are scalars: a plain copy beats memcpy's setup. */
		const Lane *v = r->slot[e->u.var->scratch].l;
		for (int l = 0; l < lanes; l++)
			out->l[l] = v[l];
		return true;
	}
	case E_LOAD: {
		int64_t off;
		uint32_t n;
		if (!offset(r, e->u.load.buf, e->u.load.idx, e->n, e->loc, &off, &n))
			return false;
		const Tensor *t = r->buf[e->u.load.buf->scratch];
		for (uint32_t l = 0; l < n; l++)
			out->l[l] = load_lane(t, off + l);
		return true;
	}
	case E_TEX_LOAD: {
		int64_t off;
		if (!texel(r, e->u.tex.buf, e->u.tex.x, e->u.tex.y, e->loc, &off))
			return false;
		const Tensor *t = r->buf[e->u.tex.buf->scratch];
		for (int l = 0; l < 4; l++)
			out->l[l] = load_lane(t, off + l);
		return true;
	}
	case E_BIN: {
		Val b;
		if (!eval(r, e->u.ops.a, out) || !eval(r, e->u.ops.b, &b))
			return false;
		ElemKind ka = (ElemKind)e->u.ops.a->dt.kind;
		for (int l = 0; l < e->dt.lanes; l++)
			if (!bin_lane((PBinOp)e->op, ka, out->l[l], b.l[l], &out->l[l]))
				return prim_division_by_zero(r, e);
		return true;
	}
	case E_UN:
		if (!eval(r, e->u.ops.a, out))
			return false;
		for (int l = 0; l < lanes; l++)
			out->l[l] = un_lane((PBinOp)e->op, k, out->l[l]);
		return true;
	case E_SELECT: {
		/* Both values are evaluated, as OpenCL's select does: the
		 * lowering relies on it only where both are defined. */
		Val c, b;
		if (!eval(r, e->u.ops.a, &c) || !eval(r, e->u.ops.b, out) ||
		    !eval(r, e->u.ops.c, &b))
			return false;
		bool one = e->u.ops.a->dt.lanes <= 1;
		for (int l = 0; l < lanes; l++)
			if (!c.l[one ? 0 : l].i)
				out->l[l] = b.l[l];
		return true;
	}
	case E_CAST: {
		if (!eval(r, e->u.cast.a, out))
			return false;
		ElemKind from = (ElemKind)e->u.cast.a->dt.kind;
		for (int l = 0; l < lanes; l++)
			out->l[l] = convert_lane(from, k, out->l[l]);
		return true;
	}
	case E_BROADCAST:
		if (!prim_eval1(r, e->u.cast.a, &out->l[0]))
			return false;
		for (int l = 1; l < lanes; l++)
			out->l[l] = out->l[0];
		return true;
	case E_CALL: {
		IntrinId fn = (IntrinId)e->op;
		if (fn == I_LANE) {
			/* the verifier checked a literal lane number; others here */
			Val v;
			Lane kv;
			const PExpr *ke = e->u.call.args[1];
			if (!eval(r, e->u.call.args[0], &v) || !prim_eval1(r, ke, &kv))
				return false;
			int64_t k = as_count((ElemKind)ke->dt.kind, kv.i);
			int n = e->u.call.args[0]->dt.lanes;
			if (k < 0 || k >= n)
				return prim_fail(r, e->loc, "lane %lld of a vector of %d lanes", (long long)k, n);
			out->l[0] = v.l[k];
			return true;
		}
		if (fn == I_MEM_FENCE) {
			/* work groups run one after another here, each item's
			 * stores seen at once: nothing to order */
			out->l[0].i = 0;
			return true;
		}
		if (fn == I_ATOMIC_ADD) {
			/* one item at a time: the add is indivisible already */
			const PExpr *el = e->u.call.args[0];
			int64_t off;
			uint32_t n;
			Lane v;
			if (!prim_eval1(r, e->u.call.args[1], &v) ||
			    !offset(r, el->u.load.buf, el->u.load.idx, el->n, el->loc, &off, &n))
				return false;
			Tensor *t = r->buf[el->u.load.buf->scratch];
			out->l[0].i = tensor_get_int(t, off);
			tensor_set_int(t, off, wrap(ET_I32, out->l[0].i + v.i));
			return true;
		}
		if (!lanewise_call(e))
			return prim_fail(r, e->loc, "unknown intrinsic '%s'", e->u.call.fn);
		Val v[3];
		for (uint32_t i = 0; i < e->n; i++)
			if (!eval(r, e->u.call.args[i], &v[i]))
				return false;
		for (int l = 0; l < lanes; l++) {
			Lane x[3] = {{0}, {0}, {0}};
			for (uint32_t i = 0; i < e->n; i++)
				x[i] = v[i].l[l];
			out->l[l] = call_lane(fn, k, x);
		}
		return true;
	}
	}
	return prim_fail(r, e->loc, "internal error: unknown expression kind %d", e->kind);
}

/* Lane 0 of eval(e), out of line: the Val stays out of eval1's frame. */
static bool __attribute__((noinline))
eval_lane0(Run *r, const PExpr *e, Lane *out)
{
	Val v;
	if (!eval(r, e, &v))
		return false;
	*out = v.l[0];
	return true;
}

/* Lane 0 of eval(e), the fast path for scalar code (most of a prim):
 * one Lane moves instead of a Val of MAX_LANES, through the same
 * operations in the same order.  Vectors, textures and the intrinsics
 * that are not lane by lane go to eval. */
bool
prim_eval1(Run *r, const PExpr *e, Lane *out)
{
	ElemKind k = (ElemKind)e->dt.kind;
	if (e->dt.lanes <= 1) {
		switch (e->kind) {
		case E_INT:
		case E_FLOAT:
		case E_BOOL:
			*out = literal(e, k);
			return true;
		case E_VAR:
			*out = r->slot[e->u.var->scratch].l[0];
			return true;
		case E_LOAD: {
			int64_t off;
			uint32_t n;
			if (!offset(r, e->u.load.buf, e->u.load.idx, e->n, e->loc, &off, &n))
				return false;
			*out = load_lane(r->buf[e->u.load.buf->scratch], off);
			return true;
		}
		case E_BIN: {
			Lane b;
			if (!operand(r, e->u.ops.a, out) || !operand(r, e->u.ops.b, &b))
				return false;
			if (!bin_lane((PBinOp)e->op, (ElemKind)e->u.ops.a->dt.kind, *out, b, out))
				return prim_division_by_zero(r, e);
			return true;
		}
		case E_UN:
			if (!prim_eval1(r, e->u.ops.a, out))
				return false;
			*out = un_lane((PBinOp)e->op, k, *out);
			return true;
		case E_SELECT: {
			Lane c, b;
			if (!prim_eval1(r, e->u.ops.a, &c) || !prim_eval1(r, e->u.ops.b, out) ||
			    !prim_eval1(r, e->u.ops.c, &b))
				return false;
			if (!c.i)
				*out = b;
			return true;
		}
		case E_CAST:
			if (!prim_eval1(r, e->u.cast.a, out))
				return false;
			*out = convert_lane((ElemKind)e->u.cast.a->dt.kind, k, *out);
			return true;
		case E_CALL: {
			if (!lanewise_call(e))
				break;
			Lane x[3] = {{0}, {0}, {0}};
			for (uint32_t i = 0; i < e->n; i++)
				if (!prim_eval1(r, e->u.call.args[i], &x[i]))
					return false;
			*out = call_lane((IntrinId)e->op, k, x);
			return true;
		}
		default:
			break;
		}
	}
	return eval_lane0(r, e, out);
}
/* ----------------------------------------------------------- statements */

/* A store of a vector (or of anything not compiled): through eval. */
static bool __attribute__((noinline))
store_val(Run *r, const PStmt *s)
{
	int64_t off;
	uint32_t n;
	Val v;
	if (!eval(r, s->u.store.val, &v) ||
	    !offset(r, s->u.store.buf, s->u.store.idx, s->n, s->loc, &off, &n))
		return false;
	Tensor *t = r->buf[s->u.store.buf->scratch];
	for (uint32_t l = 0; l < n; l++)
		store_lane(t, off + l, v.l[l]);
	return true;
}

static bool
store(Run *r, const PStmt *s)
{
	int ok = prim_code_store(r, s);
	return ok < 0 ? store_val(r, s) : ok;
}

static bool
tex_store(Run *r, const PStmt *s)
{
	int64_t off = 0;   /* set unless the offset fails; gcc cannot tell */
	Val v;
	if (!eval(r, s->u.tex.val, &v) || !texel(r, s->u.tex.buf, s->u.tex.x, s->u.tex.y, s->loc, &off))
		return false;
	Tensor *t = r->buf[s->u.tex.buf->scratch];
	for (int l = 0; l < 4; l++)
		store_lane(t, off + l, v.l[l]);
	return true;
}

static bool
is_shared(const PVar *b)
{
	return b->vd && b->vd->scope && strcmp(b->vd->scope, "shared") == 0;
}

/* Makes the alloc's buffer current.  Its tensor is reused from one run
 * of the statement to the next, poisoned each time: NaN for floats, 0x5a
 * bytes for integers, so code that reads before it writes shows.  Under
 * a barrier each work item has its own, except for shared memory, which
 * the group shares and which is poisoned once per barrier run. */
static bool
alloc(Run *r, const PStmt *s)
{
	const PVar *b = s->u.alloc.buf;
	AllocCache *c = &r->cache[b->scratch - r->nargbufs];
	bool shared = r->phased && is_shared(b);
	size_t at = r->phased && !shared ? r->item : 0;
	while (c->t.n <= at)
		ptrvec_push(&c->t, NULL);
	Tensor *t = c->t.v[at];
	if (!t) {
		const Type *ty = b->type;
		char tt[128], why[160];
		uint64_t bytes;
		if (ty->kind != TY_TENSOR || ty->dt.kind >= ET__COUNT ||
		    !tensor_bytes((ElemKind)ty->dt.kind, ty->n, ty->dims, &bytes))
			return prim_fail(r, s->loc, "cannot allocate '%%%s'", b->name);
		if (!mem_take(r->mem, bytes, why, sizeof why))
			return prim_fail(r, s->loc, "cannot allocate '%%%s', %s, %llu bytes: %s", b->name,
			            type_text(ty, tt, sizeof tt), (unsigned long long)bytes, why);
		t = tensor_like_type(ty);
		if (!t) {
			mem_give(r->mem, bytes);
			return prim_fail(r, s->loc, "cannot allocate '%%%s'", b->name);
		}
		r->mem_taken += bytes;
		/* one planned place serves one buffer: not per work item; a
		 * zeroed buffer is never planned (ir-plan-memory leaves it) */
		bool zeroed = attr_true(&b->annots, ANNOT_ZEROED);
		void *planned = r->plan && !r->phased && !zeroed
		                ? r->plan->data_for(r->plan->st, b, bytes) : NULL;
		if (planned) {
			free(t->data);
			t->data = planned;
			ptrvec_push(&r->views, t);
		}
		c->t.v[at] = t;
	}
	r->buf[b->scratch] = t;
	if (shared) {
		if (c->poisoned == r->phase_run)
			return true;
		c->poisoned = r->phase_run;
	}
	/* a zeroed buffer is made zero (tensor_new's) for each call, which
	 * then must leave it so (zeroed_at_end) */
	if (!attr_true(&b->annots, ANNOT_ZEROED))
		tensor_poison(t);
	return true;
}

/* A zeroed alloc (ir(5)) holds zeros when the call begins, so the call
 * must leave it so: the OpenCL runtime keeps the buffer for the next
 * call.  The interpreter makes it afresh, and checks here instead. */
static bool
zeroed_at_end(Run *r, const Prim *p)
{
	for (const PStmt *s = p->body.first; s; s = s->next) {
		if (s->kind != S_ALLOC || !attr_true(&s->u.alloc.buf->annots, ANNOT_ZEROED))
			continue;
		const PVar *b = s->u.alloc.buf;
		const Tensor *t = r->buf[b->scratch];
		for (int64_t i = 0; t && i < t->numel; i++)
			if (is_float(t->kind) ? tensor_get(t, i) != 0 : tensor_get_int(t, i) != 0)
				return prim_fail(r, s->loc, "'%%%s' is zeroed, but its element %lld is not zero when "
				            "the call ends: a zeroed buffer must be left all zeros", b->name,
				            (long long)i);
	}
	return true;
}

static bool
is_thread_loop(const PStmt *s)
{
	return s->kind == S_FOR && s->fkind == FK_THREAD &&
	       strncmp(s->u.loop.thread, "threadIdx", 9) == 0;
}

/* Does s hold a barrier, at any depth?  (An explicit stack of blocks:
 * nests may be deep.) */
static bool
holds_barrier(const PStmt *s)
{
	if (s->kind == S_BARRIER)
		return true;
	PtrVec st = {0};
	bool found = false;
	const PStmt *c = s;
	for (;;) {
		switch (c->kind) {
		case S_BARRIER:
			found = true;
			break;
		case S_FOR:
			ptrvec_push(&st, (void *)c->u.loop.body.first);
			break;
		case S_IF:
			ptrvec_push(&st, (void *)c->u.cond.arms[0].first);
			ptrvec_push(&st, (void *)c->u.cond.arms[1].first);
			break;
		case S_KERNEL:
			ptrvec_push(&st, (void *)c->u.kernel.body.first);
			break;
		default:
			break;
		}
		if (found)
			break;
		/* the next statement: c's successor in a block taken from the stack */
		c = NULL;
		while (!c && st.n)
			c = st.v[--st.n];
		if (!c)
			break;
		if (c->next)
			ptrvec_push(&st, (void *)c->next);
	}
	ptrvec_free(&st);
	return found;
}

/* The body that a barrier in the work items of loop would stand in: the
 * body of the innermost loop of the perfect nest of threadIdx loops that
 * begins at loop.  Returns it if it holds a barrier (at any depth), else
 * NULL. */
static const PBlock *
barrier_body(const PStmt *loop)
{
	const PBlock *b = &loop->u.loop.body;
	while (b->first && !b->first->next && is_thread_loop(b->first))
		b = &b->first->u.loop.body;
	for (const PStmt *s = b->first; s; s = s->next)
		if (holds_barrier(s))
			return b;
	return NULL;
}

static const char *
for_kind_name(int k)
{
	switch (k) {
	case FK_PARALLEL: return "parallel";
	case FK_VECTORIZED: return "vectorized";
	case FK_UNROLLED: return "unrolled";
	default: return "serial";
	}
}

/* A barrier the interpreter cannot place: say where it stands. */
static bool
barrier_error(Run *r, const PStmt *s, const PStmt *owner)
{
	if (owner && owner->kind == S_IF)
		return prim_fail(r, s->loc, "barrier inside an 'if' is not supported by the interpreter "
		            "(only directly in the body of threadIdx loops)");
	if (owner && owner->kind == S_FOR && owner->fkind != FK_THREAD)
		return prim_fail(r, s->loc, "barrier inside a %s loop is not supported by the interpreter "
		            "(only directly in the body of threadIdx loops)", for_kind_name(owner->fkind));
	if (owner && is_thread_loop(owner))
		return prim_fail(r, s->loc, "barrier in a threadIdx loop nested inside the body of another "
		            "is not supported by the interpreter (nest threadIdx loops perfectly)");
	return prim_fail(r, s->loc, "barrier outside any threadIdx loop is not supported by the "
	            "interpreter");
}

static void
push(Run *r, Frame f)
{
	VEC_PUSH(r->st, r->nst, r->capst) = f;
}

static ElemKind
loop_var_kind(const PStmt *loop)
{
	const PVar *var = loop->u.loop.var;
	return var->type ? (ElemKind)var->type->dt.kind : ET_I32;
}

static void
set_loop_var(Run *r, const PStmt *loop, int64_t v)
{
	r->slot[loop->u.loop.var->scratch].l[0].i = wrap(loop_var_kind(loop), v);
}

static bool loop_bounds(Run *r, const PStmt *s, int64_t *lo, int64_t *hi);
static bool run_work_group(Run *r, const PStmt *loop, const PBlock *body);

/* Runs the statements from first up to stop (NULL: the end of their
 * block), and all that nests in them.  The frames go on r's stack above
 * those of any run this one is nested in. */
static bool
exec(Run *r, const PStmt *first, const PStmt *stop)
{
	size_t base = r->nst;
	push(r, (Frame){NULL, first, 0, 0, NULL, ET_I32});
	bool ok = true;
	while (ok && r->nst > base) {
		Frame *f = &r->st[r->nst - 1];
		const PStmt *s = f->next;
		if (!s || s == stop) {
			/* stop only stands in the first block: the segment ends */
			if (s == NULL && f->var && ++f->cur < f->hi) {
				f->var->i = wrap(f->kind, f->cur);   /* set_loop_var's */
				f->next = f->owner->u.loop.body.first;
			} else {
				r->nst--;
			}
			continue;
		}
		f->next = s->next;
		const PStmt *owner = f->owner;
		Frame in = {s, NULL, 0, 0, NULL, ET_I32};
		switch (s->kind) {
		case S_FOR: {
			const PBlock *wg;
			if (is_thread_loop(s) && (wg = barrier_body(s))) {
				ok = run_work_group(r, s, wg);
				continue;
			}
			if (!(ok = loop_bounds(r, s, &in.cur, &in.hi)) || in.cur >= in.hi)
				continue;
			int leaf = prim_code_leaf(r, s, in.cur, in.hi, loop_var_kind(s));
			if (leaf >= 0) {
				ok = leaf;
				continue;
			}
			set_loop_var(r, s, in.cur);
			in.next = s->u.loop.body.first;
			in.var = &r->slot[s->u.loop.var->scratch].l[0];
			in.kind = loop_var_kind(s);
			break;
		}
		case S_IF: {
			Lane c;
			if (!(ok = prim_code_if(r, s, &c)))
				continue;
			in.next = s->u.cond.arms[c.i ? 0 : 1].first;
			break;
		}
		case S_KERNEL:
			in.next = s->u.kernel.body.first;
			break;
		case S_LET: {
			const PExpr *v = s->u.let.val;
			Val *to = &r->slot[s->u.let.var->scratch];
			ok = v->dt.lanes <= 1 ? prim_code_let(r, s, &to->l[0]) : eval(r, v, to);
			continue;
		}
		case S_STORE:
			ok = store(r, s);
			continue;
		case S_ALLOC:
			ok = alloc(r, s);
			continue;
		case S_EVAL: {
			Lane v;
			ok = prim_eval1(r, s->u.eval, &v);
			continue;
		}
		case S_TEX_STORE:
			ok = tex_store(r, s);
			continue;
		case S_BARRIER:
			ok = barrier_error(r, s, owner);
			continue;
		default:
			ok = prim_fail(r, s->loc, "internal error: unknown statement kind %d", s->kind);
			continue;
		}
		if (in.next)
			push(r, in);
	}
	r->nst = base;
	return ok;
}

/* A loop's bounds, evaluated once at its entry. */
static bool
loop_bounds(Run *r, const PStmt *s, int64_t *lo, int64_t *hi)
{
	Lane a, b;
	if (!prim_code_bounds(r, s, &a, &b))
		return false;
	*lo = as_count((ElemKind)s->u.loop.lo->dt.kind, a.i);
	*hi = as_count((ElemKind)s->u.loop.hi->dt.kind, b.i);
	return true;
}

/* The work items of the nest of threadIdx loops from loop down to the one
 * whose body is body, one after the other in the order the loops would
 * run them: the values of the nest's variables, depth per item.  Inner
 * bounds are evaluated at each entry, as the loops would. */
static bool
work_items(Run *r, const PStmt *const *nest, size_t depth, int64_t **vals, size_t *nitems)
{
	int64_t *cur = xcalloc(depth, sizeof *cur), *hi = xcalloc(depth, sizeof *hi);
	size_t n = 0, cap = 0;
	int64_t *v = NULL;
	bool ok = true;
	size_t d = 0;
	bool enter = true;
	for (;;) {
		if (enter) {
			if (!(ok = loop_bounds(r, nest[d], &cur[d], &hi[d])))
				break;
		} else {
			cur[d]++;
		}
		if (cur[d] >= hi[d]) {
			/* this level is done: go on with the one around it */
			if (d == 0)
				break;
			d--;
			enter = false;
			continue;
		}
		set_loop_var(r, nest[d], cur[d]);
		if (d + 1 < depth) {
			d++;
			enter = true;
			continue;
		}
		if (n == MAX_WORK_ITEMS) {
			ok = prim_fail(r, nest[0]->loc, "a work group of more than %d work items under a "
			          "barrier is too large for the interpreter", MAX_WORK_ITEMS);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, cap * depth * sizeof *v);
		}
		memcpy(&v[n * depth], cur, depth * sizeof *cur);
		n++;
		enter = false;
	}
	free(cur);
	free(hi);
	if (!ok) {
		free(v);
		return false;
	}
	*vals = v;
	*nitems = n;
	return true;
}

/* A work group whose work items meet at barriers: the nest of threadIdx
 * loops from loop down to the one whose body is body.  Each segment of
 * the body between barriers runs for every work item before the next
 * segment starts, which is what a barrier promises; each item keeps its
 * own scalars and private allocs from one segment to the next. */
static bool
run_work_group(Run *r, const PStmt *loop, const PBlock *body)
{
	/* The items of an enclosing thread loop would each run this group
	 * apart, and a barrier must hold them all. */
	bool nested = r->phased;
	for (size_t i = 0; i < r->nst && !nested; i++)
		nested = r->st[i].owner && is_thread_loop(r->st[i].owner);
	if (nested) {
		const PStmt *b = body->first;
		while (b->kind != S_BARRIER)
			b = b->next;
		return prim_fail(r, b->loc, "barrier in a threadIdx loop nested inside the body of "
		            "another is not supported by the interpreter (nest threadIdx loops "
		            "perfectly)");
	}
	PtrVec nest = {0};
	for (const PStmt *s = loop;; s = s->u.loop.body.first) {
		ptrvec_push(&nest, (void *)s);
		if (&s->u.loop.body == body)
			break;
	}
	size_t depth = nest.n, items;
	int64_t *vals;
	if (!work_items(r, (const PStmt *const *)nest.v, depth, &vals, &items)) {
		ptrvec_free(&nest);
		return false;
	}
	/* Each item's state is the slots the nest defines. */
	ItemState is;
	item_state_init(&is, loop, items);
	for (size_t t = 0; t < items; t++) {
		for (size_t d = 0; d < depth; d++)
			set_loop_var(r, nest.v[d], vals[t * depth + d]);
		item_save(r, &is, t, false);
	}
	r->phased = true;
	r->phase_run++;
	bool ok = true;
	/* The blocks that hold barriers, run for the whole group at once:
	 * the body, and the loops in it (of any depth) that hold barriers,
	 * whose bounds must then be the same for every work item.  Between
	 * two barriers, each item runs the statements in between. */
	typedef struct { const PStmt *loop, *next; int64_t cur, hi; } GFrame;
	GFrame *gs = NULL;
	size_t ngs = 0, capgs = 0;
	VEC_PUSH(gs, ngs, capgs) = (GFrame){NULL, body->first, 0, 0};
	while (ok && ngs) {
		GFrame *f = &gs[ngs - 1];
		const PStmt *seg = f->next;
		if (!seg) {
			if (f->loop && ++f->cur < f->hi) {
				const PVar *var = f->loop->u.loop.var;
				int64_t v = wrap(var->type ? (ElemKind)var->type->dt.kind : ET_I32, f->cur);
				for (size_t t = 0; t < items; t++)
					is.lane[t * is.ns + (var->scratch - is.s0)].i = v;
				f->next = f->loop->u.loop.body.first;
			} else {
				ngs--;
			}
			continue;
		}
		if (seg->kind == S_BARRIER) {
			f->next = seg->next;
			continue;
		}
		if (holds_barrier(seg)) {
			f->next = seg->next;
			if (seg->kind != S_FOR || seg->fkind == FK_THREAD) {
				const PStmt *b = seg->kind == S_IF || seg->kind == S_FOR ? seg : NULL;
				ok = barrier_error(r, seg, b);
				break;
			}
			int64_t lo = 0, hi = 0;
			for (size_t t = 0; ok && t < items; t++) {
				int64_t l, h;
				item_restore(r, &is, t);
				if (!(ok = loop_bounds(r, seg, &l, &h)))
					break;
				if (t == 0)
					lo = l, hi = h;
				else if (l != lo || h != hi)
					ok = prim_fail(r, seg->loc, "a loop that holds a barrier runs %lld..%lld in one "
					          "work item and %lld..%lld in another: a barrier must be met by every "
					          "work item of the group", (long long)lo, (long long)hi,
					          (long long)l, (long long)h);
			}
			if (ok && lo < hi) {
				const PVar *var = seg->u.loop.var;
				ElemKind k = var->type ? (ElemKind)var->type->dt.kind : ET_I32;
				lo = wrap(k, lo);
				for (size_t t = 0; t < items; t++)
					is.lane[t * is.ns + (var->scratch - is.s0)].i = lo;
				VEC_PUSH(gs, ngs, capgs) = (GFrame){seg, seg->u.loop.body.first, lo, hi};
			}
			continue;
		}
		const PStmt *end = seg;
		while (end && !holds_barrier(end))
			end = end->next;
		f->next = end;
		for (size_t t = 0; ok && t < items; t++) {
			item_restore(r, &is, t);
			r->item = t;
			ok = exec(r, seg, end);
			item_save(r, &is, t, true);
		}
	}
	free(gs);
	r->phased = false;
	r->item = 0;
	item_state_free(&is);
	free(vals);
	ptrvec_free(&nest);
	return ok;
}

/* ------------------------------------------------------------------ run */

static bool
bind_args(Run *r, Tensor *const *args)
{
	const Prim *p = r->p;
	for (uint32_t i = 0; i < p->nparams; i++) {
		const PVar *v = p->params[i];
		const Tensor *t = args[i];
		char want[160], got[160];
		type_text(v->type, want, sizeof want);
		if (!t) {
			error_at(r->ctx, p->loc, "prim @%s: argument %u ('%%%s') is missing, expected %s",
			         p->name, (unsigned)i + 1, v->name, want);
			return false;
		}
		if (!tensor_fits(t, v->type)) {
			error_at(r->ctx, p->loc, "prim @%s: argument %u ('%%%s') is %s, expected %s",
			         p->name, (unsigned)i + 1, v->name, tensor_type_text(t, got, sizeof got), want);
			return false;
		}
		if (v->kind == PV_BUFFER)
			r->buf[v->scratch] = args[i];
		else if (is_float(t->kind))
			r->slot[v->scratch].l[0].f = tensor_get(t, 0);
		else
			r->slot[v->scratch].l[0].i = tensor_get_int(t, 0);
	}
	return true;
}

bool
prim_exec(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs, MemBudget *mem)
{
	return prim_exec_planned(ctx, p, args, nargs, mem, NULL);
}

bool
prim_exec_planned(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs, MemBudget *mem,
                  const PrimPlan *plan)
{
	if (nargs != p->nparams) {
		error_at(ctx, p->loc, "prim @%s takes %u argument%s, %u given", p->name,
		         (unsigned)p->nparams, p->nparams == 1 ? "" : "s", (unsigned)nargs);
		return false;
	}
	Run r = {.ctx = ctx, .p = p, .mem = mem, .plan = plan};
	uint32_t ns = 0, nb = 0;
	for (uint32_t i = 0; i < p->nparams; i++)
		p->params[i]->scratch = p->params[i]->kind == PV_BUFFER ? nb++ : ns++;
	r.nargbufs = nb;
	number_stmts(&p->body, &ns, &nb);
	r.slot = xcalloc(ns + 1, sizeof *r.slot);
	r.buf = xcalloc(nb + 1, sizeof *r.buf);
	r.cache = xcalloc(nb - r.nargbufs + 1, sizeof *r.cache);
	r.code = prim_code_build(&p->body, r.slot, ns);
	bool ok = bind_args(&r, args) && exec(&r, p->body.first, NULL) && zeroed_at_end(&r, p);
	for (size_t i = 0; i < r.views.n; i++)
		((Tensor *)r.views.v[i])->data = NULL;   /* the plan's, not ours */
	ptrvec_free(&r.views);
	for (uint32_t i = 0; i < nb - r.nargbufs; i++) {
		for (size_t j = 0; j < r.cache[i].t.n; j++)
			tensor_free(r.cache[i].t.v[j]);
		ptrvec_free(&r.cache[i].t);
	}
	mem_give(mem, r.mem_taken);
	prim_code_free(r.code);
	free(r.cache);
	free(r.st);
	free(r.slot);
	free(r.buf);
	return ok;
}
