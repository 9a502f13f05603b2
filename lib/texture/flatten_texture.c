/* flatten_texture.c: texture flattening (TVM's TextureFlatten; see
 * ir-flatten-texture(1)).
 *
 * A buffer in a texture scope is an image of RGBA texels (texture.h).
 * Lowering reads and writes it through its N-d indices; OpenCL reaches
 * an image only by texel coordinates, so every access becomes one:
 *   %B[i, j, k, l, 0:4]      texture2d_load(%B, X, Y)
 *   %B[i, j, k, l, c]        lane(texture2d_load(%B, X, Y), c)
 *   %B[i, j, k, l, 0:4] = v  texture2d_store(%B, X, Y, v)
 * with Y the row-major number of the row axes and X that of the column
 * axes, built with pbuild's folding so that no `* 1` or `+ 0` is left.
 * A store of one channel cannot be flattened (an image is written a
 * whole texel at a time) and is an error, as is any other lane run.
 *
 * Parameters keep their types and scopes (their callers do not change);
 * a texture alloc gets its image2d[W, H] and must stand outside kernels.
 * Every image is checked against its device's image2d_max.
 *
 * Statements are walked with walk.h's explicit stack (nesting is the
 * user's); expressions recurse, their depth being capped by the parser.  A prim
 * with no texture buffer is left untouched, byte for byte, and flattened
 * code has no N-d access to an image left, so a second run changes
 * nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "texture/flatten_texture.h"
#include "pbuild.h"
#include "texture/texture.h"
#include "walk.h"

/* PVar.scratch of a texture buffer whose image is valid: its accesses
 * are flattened.  Cleared when the prim is done. */
enum { IMAGE_OK = 1 };

typedef struct {
	Module *m;
	Ctx *ctx;
	PBuild b;          /* for expressions only: their folding */
	bool ok;
	Loc at;            /* the statement being flattened */
	bool found;        /* has_images: an image alloc was seen */
} Flat;

/* The image of texture buffer v (wh: width, height): checked against
 * its type and its device, errors at v's declaration.  Marks v IMAGE_OK
 * when its accesses can be flattened. */
static bool
check_image(Flat *F, PVar *v, int64_t wh[2])
{
	char why[256], ty[128];
	type_text(v->type, ty, sizeof ty);
	if (!texture_image(v->type, v->vd->scope, wh, why, sizeof why)) {
		error_at(F->ctx, v->loc, "'%%%s' cannot be an image: %s", v->name, why);
		return F->ok = false;
	}
	const Device *d = module_device(F->m, v->vd->dev);
	if (d && !d->texture) {
		error_at(F->ctx, v->loc, "'%%%s' is in %s on @%s, a device without images "
		         "(declare it with texture=true)", v->name, v->vd->scope, d->name);
		return F->ok = false;
	}
	if (d && (wh[0] > d->image2d_max[0] || wh[1] > d->image2d_max[1])) {
		error_at(F->ctx, v->loc, "'%%%s', %s in %s, is an image of %lldx%lld texels, past "
		         "@%s's image2d_max of %lldx%lld", v->name, ty, v->vd->scope,
		         (long long)wh[0], (long long)wh[1], d->name, (long long)d->image2d_max[0],
		         (long long)d->image2d_max[1]);
		return F->ok = false;
	}
	v->scratch = IMAGE_OK;
	return true;
}

static bool
is_image(const PVar *v)
{
	return v && v->kind == PV_BUFFER && v->vd && is_texture_scope(v->vd->scope);
}

/* ------------------------------------------------------------ coordinates */

/* The type coordinate arithmetic over idx[from, to) is done in: that of
 * the indices that are not literals when they agree, else i64; i32
 * when all are literals. */
static ElemKind
coord_kind(const PIndex *idx, uint32_t from, uint32_t to)
{
	int k = -1;
	for (uint32_t a = from; a < to; a++) {
		if (idx[a].e->kind == E_INT)
			continue;
		if (k >= 0 && k != idx[a].e->dt.kind)
			return ET_I64;
		k = idx[a].e->dt.kind;
	}
	return k < 0 ? ET_I32 : (ElemKind)k;
}

/* A coordinate as a linear form: the sum of coefficient times term, plus
 * a constant.  Index arithmetic (+, -, * by a literal, negation) is
 * opened up, so that the row-major number of [%r * 4 + 1, %k, %l] over
 * [8, 3, 3] reads %r * 36 + %k * 3 + %l + 9 rather than
 * ((%r * 4 + 1) * 3 + %k) * 3 + %l; anything else (a division, a min, a
 * load) is a term as it stands.  Exact in wrapping arithmetic, which is a
 * ring. */
#define LIN_TERMS 32
#define LIN_MAX ((int64_t)1 << 31)

typedef struct {
	PExpr *t[LIN_TERMS];
	int64_t c[LIN_TERMS];
	int n;
	int64_t k;
	bool failed;       /* too many terms, or a coefficient past 2^31 */
} Lin;

static bool
same_term(const PExpr *a, const PExpr *b)
{
	return a == b || (a->kind == E_VAR && b->kind == E_VAR && a->u.var == b->u.var);
}

static int64_t
lin_scale(Lin *l, int64_t a, int64_t b)
{
	if (a <= -LIN_MAX || a >= LIN_MAX || b <= -LIN_MAX || b >= LIN_MAX ||
	    a * b <= -LIN_MAX || a * b >= LIN_MAX) {
		l->failed = true;
		return 0;
	}
	return a * b;
}

/* Adds coef * e to l; e has the coordinate's type k.  Recursion is
 * bounded by the parser's cap on expression depth. */
static void
lin_add(Lin *l, PExpr *e, int64_t coef, ElemKind k)
{
	if (l->failed || coef == 0)
		return;
	if (e->dt.kind == k && e->dt.lanes == 1) {
		if (e->kind == E_INT && e->op != E_INT_U64) {
			l->k += lin_scale(l, coef, e->u.i);
			if (l->k <= -LIN_MAX || l->k >= LIN_MAX)
				l->failed = true;
			return;
		}
		if (e->kind == E_UN && e->op == OP_NEG) {
			lin_add(l, e->u.ops.a, -coef, k);
			return;
		}
		if (e->kind == E_BIN && (e->op == OP_ADD || e->op == OP_SUB)) {
			lin_add(l, e->u.ops.a, coef, k);
			lin_add(l, e->u.ops.b, e->op == OP_ADD ? coef : -coef, k);
			return;
		}
		if (e->kind == E_BIN && e->op == OP_MUL) {
			PExpr *a = e->u.ops.a, *b = e->u.ops.b;
			if (b->kind == E_INT && b->op != E_INT_U64) {
				lin_add(l, a, lin_scale(l, coef, b->u.i), k);
				return;
			}
			if (a->kind == E_INT && a->op != E_INT_U64) {
				lin_add(l, b, lin_scale(l, coef, a->u.i), k);
				return;
			}
		}
	}
	for (int i = 0; i < l->n; i++)
		if (same_term(l->t[i], e)) {
			l->c[i] += coef;
			if (l->c[i] <= -LIN_MAX || l->c[i] >= LIN_MAX)
				l->failed = true;
			return;
		}
	if (l->n == LIN_TERMS) {
		l->failed = true;
		return;
	}
	l->t[l->n] = e;
	l->c[l->n++] = coef;
}

/* The expression of l: the terms with positive coefficients in order,
 * then those with negative ones subtracted, then the constant (first
 * when every term is subtracted: 2 - %j, not -%j + 2). */
static PExpr *
lin_expr(Flat *F, const Lin *l, ElemKind k)
{
	PBuild *b = &F->b;
	PExpr *acc = NULL;
	bool any_pos = false;
	for (int i = 0; i < l->n; i++)
		any_pos |= l->c[i] > 0;
	int64_t kk = l->k;
	if (!any_pos && kk > 0) {
		acc = pe_int(b, kk, k);
		kk = 0;
	}
	for (int neg = 0; neg < 2; neg++)
		for (int i = 0; i < l->n; i++) {
			int64_t c = l->c[i];
			if (c == 0 || (c < 0) != neg)
				continue;
			PExpr *t = pe_mul(b, l->t[i], pe_int(b, c < 0 ? -c : c, k));
			if (!acc)
				acc = neg ? pe_neg(b, t) : t;
			else
				acc = neg ? pe_sub(b, acc, t) : pe_add(b, acc, t);
		}
	if (!acc)
		return pe_int(b, kk, k);
	if (kk > 0)
		return pe_add(b, acc, pe_int(b, kk, k));
	if (kk < 0)
		return pe_sub(b, acc, pe_int(b, -kk, k));
	return acc;
}

/* The row-major number of indices idx[from, to) over dims, simplified:
 * as a linear form where it opens up (signed types), else
 * (i0 * d1 + i1) * d2 + ..., which pbuild folds. */
static PExpr *
rowmajor(Flat *F, const PIndex *idx, const int64_t *dims, uint32_t from, uint32_t to)
{
	PBuild *b = &F->b;
	ElemKind k = coord_kind(idx, from, to);
	PExpr *ix[IR_MAX_RANK];
	for (uint32_t a = from; a < to; a++) {
		PExpr *i = idx[a].e;
		int64_t lo;
		uint64_t hi;
		elem_int_range(k, &lo, &hi);
		if (i->kind == E_INT && i->op != E_INT_U64 && i->u.i >= lo &&
		    (i->u.i < 0 || (uint64_t)i->u.i <= hi))
			ix[a] = pe_int(b, i->u.i, k);   /* retyped, not cast */
		else
			ix[a] = i->dt.kind == k ? i : pe_cast(b, (DType){(uint8_t)k, 1}, i);
	}
	if (elem_is_signed(k)) {
		/* strides first, so the terms come in the order of the axes */
		Lin l = {.n = 0};
		int64_t stride[IR_MAX_RANK], st = 1;
		for (uint32_t a = to; a-- > from;) {
			stride[a] = st;
			st = lin_scale(&l, st, dims[a]);
		}
		for (uint32_t a = from; a < to && !l.failed; a++)
			lin_add(&l, ix[a], stride[a], k);
		if (!l.failed)
			return lin_expr(F, &l, k);
	}
	PExpr *acc = NULL;
	for (uint32_t a = from; a < to; a++)
		acc = acc ? pe_add(b, pe_mul(b, acc, pe_int(b, dims[a], k)), ix[a]) : ix[a];
	return acc ? acc : pe_int(b, 0, k);
}

/* The texel coordinates of an access of image v with indices idx. */
static void
texel_of(Flat *F, const PVar *v, const PIndex *idx, PExpr **x, PExpr **y)
{
	const Type *t = v->type;
	uint32_t s = (uint32_t)texture_split(v->vd->scope, t->n);
	*y = rowmajor(F, idx, t->dims, 0, s);
	*x = rowmajor(F, idx, t->dims, s, t->n - 1);
}

/* Whether the last index is the whole texel, 0:4. */
static bool
whole_texel(const PIndex *last)
{
	return last->lanes == 4 && last->e->kind == E_INT && last->e->u.i == 0;
}

/* ------------------------------------------------------------ expressions */

static PExpr *flatten_expr(Flat *F, PExpr *e);

static uint16_t
depth_of(const PExpr *e)
{
	return e ? e->depth : 0;
}

static void
deepen(PExpr *e, const PExpr *child)
{
	uint16_t d = depth_of(child);
	if (d >= e->depth)
		e->depth = (uint16_t)(d + 1);
}

/* A load of image v (indices already flattened) as a texel read. */
static PExpr *
flatten_load(Flat *F, PExpr *e)
{
	PVar *v = e->u.load.buf;
	PIndex *last = &e->u.load.idx[e->n - 1];
	if (last->lanes && !whole_texel(last)) {
		error_at(F->ctx, e->loc, "image '%%%s' is read a whole texel (%%%s[..., 0:4]) or one "
		         "channel at a time, not %u lanes", v->name, v->name, (unsigned)last->lanes);
		F->ok = false;
		return e;
	}
	PExpr *t = arena_alloc(F->m->arena, sizeof *t);
	t->kind = E_TEX_LOAD;
	t->dt = (DType){v->type->dt.kind, 4};
	t->loc = e->loc;
	t->u.tex.buf = v;
	texel_of(F, v, e->u.load.idx, &t->u.tex.x, &t->u.tex.y);
	t->depth = 1;
	deepen(t, t->u.tex.x);
	deepen(t, t->u.tex.y);
	if (last->lanes)
		return t;
	/* One channel: lane c of the texel; c need not be a literal. */
	PExpr *args[2] = {t, last->e};
	PExpr *l = pe_call(&F->b, I_LANE, 2, args);
	l->dt = (DType){v->type->dt.kind, 1};
	l->loc = e->loc;
	return l;
}

/* e with every access to an image flattened; recursion is bounded by
 * the parser's cap on expression depth, and depths are recomputed on
 * the way up (a texel read may be deeper than the load it replaces). */
static PExpr *
flatten_expr(Flat *F, PExpr *e)
{
	e->depth = 1;
	switch (e->kind) {
	case E_INT: case E_FLOAT: case E_BOOL: case E_VAR:
		return e;
	case E_LOAD:
		for (uint32_t i = 0; i < e->n; i++) {
			e->u.load.idx[i].e = flatten_expr(F, e->u.load.idx[i].e);
			deepen(e, e->u.load.idx[i].e);
		}
		if (e->n && e->u.load.buf && e->u.load.buf->scratch == IMAGE_OK &&
		    is_image(e->u.load.buf))
			return flatten_load(F, e);
		return e;
	case E_TEX_LOAD:
		e->u.tex.x = flatten_expr(F, e->u.tex.x);
		e->u.tex.y = flatten_expr(F, e->u.tex.y);
		deepen(e, e->u.tex.x);
		deepen(e, e->u.tex.y);
		return e;
	case E_BIN: case E_UN: case E_SELECT:
		e->u.ops.a = flatten_expr(F, e->u.ops.a);
		deepen(e, e->u.ops.a);
		if (e->kind == E_UN)
			return e;
		e->u.ops.b = flatten_expr(F, e->u.ops.b);
		deepen(e, e->u.ops.b);
		if (e->kind == E_SELECT) {
			e->u.ops.c = flatten_expr(F, e->u.ops.c);
			deepen(e, e->u.ops.c);
		}
		return e;
	case E_CAST: case E_BROADCAST:
		e->u.cast.a = flatten_expr(F, e->u.cast.a);
		deepen(e, e->u.cast.a);
		return e;
	case E_CALL:
		for (uint32_t i = 0; i < e->n; i++) {
			e->u.call.args[i] = flatten_expr(F, e->u.call.args[i]);
			deepen(e, e->u.call.args[i]);
		}
		return e;
	}
	return e;
}

/* A whole expression of the statement at F->at, which must still print
 * within the parser's depth cap. */
static PExpr *
flatten_top(Flat *F, PExpr *e)
{
	if (!e)
		return e;
	e = flatten_expr(F, e);
	if (e->depth > IR_MAX_EXPR_DEPTH) {
		error_at(F->ctx, F->at, "flattening nests this expression deeper than %d; bind "
		         "indices of images with 'let' first", IR_MAX_EXPR_DEPTH);
		F->ok = false;
	}
	return e;
}

/* ------------------------------------------------------------- statements */

/* %B[..., 0:4] = v of image B as texture2d_store(%B, X, Y, v). */
static void
flatten_store(Flat *F, PStmt *s)
{
	PVar *v = s->u.store.buf;
	PIndex *idx = s->u.store.idx, *last = &idx[s->n - 1];
	if (!last->lanes) {
		error_at(F->ctx, s->loc, "a store to one channel of image '%%%s': images are written a "
		         "whole texel at a time (%%%s[..., 0:4])", v->name, v->name);
		F->ok = false;
		return;
	}
	if (!whole_texel(last)) {
		error_at(F->ctx, s->loc, "image '%%%s' is written a whole texel at a time "
		         "(%%%s[..., 0:4]), not %u lanes", v->name, v->name, (unsigned)last->lanes);
		F->ok = false;
		return;
	}
	PExpr *x, *y, *val = s->u.store.val;
	texel_of(F, v, idx, &x, &y);
	if (x->depth > IR_MAX_EXPR_DEPTH || y->depth > IR_MAX_EXPR_DEPTH) {
		error_at(F->ctx, s->loc, "flattening nests this expression deeper than %d; bind "
		         "indices of images with 'let' first", IR_MAX_EXPR_DEPTH);
		F->ok = false;
		return;
	}
	s->kind = S_TEX_STORE;
	s->n = 0;
	s->u.tex.buf = v;
	s->u.tex.x = x;
	s->u.tex.y = y;
	s->u.tex.val = val;
}

static void
flatten_stmt(Flat *F, PStmt *s, const PStmt *kernel)
{
	F->at = s->loc;
	switch (s->kind) {
	case S_FOR:
		s->u.loop.lo = flatten_top(F, s->u.loop.lo);
		s->u.loop.hi = flatten_top(F, s->u.loop.hi);
		break;
	case S_IF:
		s->u.cond.cond = flatten_top(F, s->u.cond.cond);
		break;
	case S_LET:
		s->u.let.val = flatten_top(F, s->u.let.val);
		break;
	case S_STORE:
		for (uint32_t i = 0; i < s->n; i++)
			s->u.store.idx[i].e = flatten_top(F, s->u.store.idx[i].e);
		s->u.store.val = flatten_top(F, s->u.store.val);
		if (s->n && s->u.store.buf && s->u.store.buf->scratch == IMAGE_OK &&
		    is_image(s->u.store.buf))
			flatten_store(F, s);
		break;
	case S_TEX_STORE:
		s->u.tex.x = flatten_top(F, s->u.tex.x);
		s->u.tex.y = flatten_top(F, s->u.tex.y);
		s->u.tex.val = flatten_top(F, s->u.tex.val);
		break;
	case S_EVAL:
		s->u.eval = flatten_top(F, s->u.eval);
		break;
	case S_ALLOC: {
		PVar *v = s->u.alloc.buf;
		int64_t wh[2];
		if (!is_image(v))
			break;
		v->scratch = 0;
		if (kernel) {
			error_at(F->ctx, s->loc, "image '%%%s' is allocated inside kernel @%s; images are "
			         "allocated outside kernels, before they run", v->name,
			         kernel->u.kernel.name);
			F->ok = false;
			break;
		}
		if (check_image(F, v, wh)) {
			s->u.alloc.image[0] = wh[0];
			s->u.alloc.image[1] = wh[1];
		}
		break;
	}
	case S_BARRIER: case S_KERNEL:
		break;
	}
}

/* Calls visit on every statement of p in program order (walk.h's
 * explicit stack), with the kernel it is in or NULL. */
static void
walk_prim(Flat *F, Prim *p, void (*visit)(Flat *, PStmt *, const PStmt *))
{
	PrimWalk w;
	PWalkStep st;
	const PStmt *kernel = NULL;
	int kernels_open = 0;   /* kernels do not nest in valid input; count anyway */
	pwalk_start(&w, &p->body);
	while (pwalk_next(&w, &st)) {
		if (st.ev == PW_BLOCK_END) {
			if (st.s && st.s->kind == S_KERNEL && --kernels_open == 0)
				kernel = NULL;
			continue;
		}
		/* the walk has taken the statement's bodies already: visit may
		 * turn a store into a texel store, which has none */
		visit(F, st.s, kernel);
		if (st.s->kind == S_KERNEL) {
			kernel = st.s;
			kernels_open++;
		}
	}
}

static void
find_image_alloc(Flat *F, PStmt *s, const PStmt *kernel)
{
	(void)kernel;
	if (s->kind == S_ALLOC && is_image(s->u.alloc.buf))
		F->found = true;
}

/* Whether p has a texture parameter or alloc: else it is left alone. */
static bool
has_images(Flat *F, Prim *p)
{
	for (uint32_t i = 0; i < p->nparams; i++)
		if (is_image(p->params[i]))
			return true;
	F->found = false;
	walk_prim(F, p, find_image_alloc);
	return F->found;
}

static void
clear_marks(Flat *F, PStmt *s, const PStmt *kernel)
{
	(void)F;
	(void)kernel;
	if (s->kind == S_ALLOC)
		s->u.alloc.buf->scratch = 0;
}

bool
flatten_texture(Module *m)
{
	if (!module_check_unplanned(m, "ir-flatten-texture"))
		return false;
	Flat F = {.m = m, .ctx = m->ctx, .ok = true};
	for (Prim *p = m->prims; p; p = p->next) {
		if (!has_images(&F, p))
			continue;
		pb_start(&F.b, m, p, p->loc);   /* p->loc is kept: pb_start sets it to itself */
		int64_t wh[2];
		for (uint32_t i = 0; i < p->nparams; i++) {
			p->params[i]->scratch = 0;
			if (is_image(p->params[i]))
				check_image(&F, p->params[i], wh);
		}
		walk_prim(&F, p, flatten_stmt);
		walk_prim(&F, p, clear_marks);
		for (uint32_t i = 0; i < p->nparams; i++)
			p->params[i]->scratch = 0;
	}
	return F.ok;
}
