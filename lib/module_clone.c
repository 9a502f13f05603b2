/* module_clone.c: a deep copy of a module in memory (module_clone in
 * ir.h), for a pass that plans or rewrites a copy and looks at the
 * original's nodes beside it (ir-alter-layout plans devices on one).
 *
 * Every node is copied once and found again through one table from the
 * original's pointers to the copy's (values, variables, functions,
 * prims, blocks, and the hash-consed types and virtual devices), so the
 * copy is linear in the module's size.  Blocks, however deep they nest,
 * go through a work list; only loop-level expressions (depth capped by
 * the parser) and attribute lists (bracket nesting capped by the lexer)
 * and tuple types (IR_MAX_TYPE_DEPTH) are copied by recursion.
 */
#include <stdlib.h>
#include <string.h>

#include "gbuild.h"
#include "ir.h"
#include "walk.h"

typedef struct {
	const void *from;
	void *to;
} Pair;

typedef struct {
	const Module *m;
	Module *n;
	Map seen;             /* Pair, by from */
	Arena *tmp;           /* the pairs */
	PtrVec work;          /* loop-level blocks to copy: from, to, from, to ... */
} Clone;

static void *
copy_of(const Clone *c, const void *from)
{
	MapProbe it;
	for (Pair *p = map_first(&c->seen, map_hash_ptr(from), &it); p; p = map_next(&it))
		if (p->from == from)
			return p->to;
	return NULL;
}

static void *
remember(Clone *c, const void *from, void *to)
{
	Pair *p = arena_alloc(c->tmp, sizeof *p);
	p->from = from;
	p->to = to;
	map_add(&c->seen, map_hash_ptr(from), p);
	return to;
}

static Sym
sym(Clone *c, Sym s)
{
	return s ? sym_intern_cstr(c->n, s) : NULL;
}

static const char *
name(Clone *c, const char *s)
{
	return s ? module_name(c->n, s, strlen(s)) : NULL;
}

static const Type *
type(Clone *c, const Type *t)
{
	if (!t)
		return NULL;
	const Type *got = copy_of(c, t);
	if (got)
		return got;
	const Type *r;
	if (t->kind == TY_TENSOR) {
		r = type_tensor(c->n, t->dt, t->n, t->dims);
	} else {
		const Type *f0[16], **f = t->n <= 16 ? f0 : xmalloc(t->n * sizeof *f);
		for (uint32_t i = 0; i < t->n; i++)
			f[i] = type(c, t->fields[i]);
		r = type_tuple(c->n, t->n, f);
		if (f != f0)
			free(f);
	}
	return remember(c, t, (void *)r);
}

static const VDev *
vdev(Clone *c, const VDev *vd)
{
	if (!vd)
		return NULL;
	const VDev *got = copy_of(c, vd);
	return got ? got : remember(c, vd, (void *)vdev_get(c->n, sym(c, vd->dev), sym(c, vd->scope)));
}

static Attr
attr(Clone *c, const Attr *a)
{
	Attr r = *a;
	switch (a->kind) {
	case AT_STR:
		r.u.s = arena_strndup(c->n->arena, a->u.s, a->n);
		break;
	case AT_SYM:
		r.u.sym = sym(c, a->u.sym);
		break;
	case AT_LIST:
		r.u.list = arena_alloc(c->n->arena, (a->n ? a->n : 1) * sizeof *r.u.list);
		for (uint32_t i = 0; i < a->n; i++)
			r.u.list[i] = attr(c, &a->u.list[i]);
		break;
	}
	return r;
}

static AttrMap
attrs(Clone *c, const AttrMap *am)
{
	AttrMap r = {.n = am->n};
	r.e = arena_alloc(c->n->arena, am->n * sizeof *r.e + 1);
	for (uint32_t i = 0; i < am->n; i++) {
		r.e[i].key = sym(c, am->e[i].key);
		r.e[i].loc = am->e[i].loc;
		r.e[i].val = attr(c, &am->e[i].val);
	}
	return r;
}

static AttrMap *
attrs_ptr(Clone *c, const AttrMap *am)
{
	if (!am)
		return NULL;
	AttrMap *r = arena_alloc(c->n->arena, sizeof *r);
	*r = attrs(c, am);
	return r;
}

/* ----------------------------------------------------------- graph level */

static ConstData *
const_data(Clone *c, const ConstData *cd, bool fl)
{
	ConstData *r = arena_alloc(c->n->arena, sizeof *r);
	*r = *cd;
	r->path = name(c, cd->path);
	if (cd->path)
		return r;
	size_t sz = fl ? sizeof *cd->u.f : sizeof *cd->u.i;
	void *d = arena_alloc(c->n->arena, cd->count * sz + 1);
	if (cd->count)
		memcpy(d, fl ? (const void *)cd->u.f : (const void *)cd->u.i, cd->count * sz);
	if (fl)
		r->u.f = d;
	else
		r->u.i = d;
	return r;
}

/* The copy of an operand: a value copied before it (operands come
 * first), or a literal, copied at its first use. */
static Value *
operand(Clone *c, const Value *a)
{
	if (!a)
		return NULL;
	Value *got = copy_of(c, a);
	if (got || a->kind != VK_LIT)
		return got;
	Value *l = value_new(c->n, VK_LIT, 0);
	l->flags = a->flags;
	l->type = type(c, a->type);
	l->loc = a->loc;
	l->u = a->u;
	return remember(c, a, l);
}

/* The fields every value has; its operands and form's own fields are the
 * caller's. */
static Value *
value_shell(Clone *c, const Value *v)
{
	Value *r = value_new(c->n, (ValueKind)v->kind, v->nargs);
	r->form = v->form;
	r->flags = v->flags;
	r->name = name(c, v->name);
	r->type = type(c, v->type);
	r->vd = vdev(c, v->vd);
	r->loc = v->loc;
	return remember(c, v, r);
}

static Value *
binding(Clone *c, const Value *v)
{
	Value *r = value_shell(c, v);
	for (uint32_t i = 0; i < v->nargs; i++)
		r->args[i] = operand(c, v->args[i]);
	switch (v->form) {
	case B_OP:
		r->u.op = module_opcall(c->n, v->u.op->op, attrs_ptr(c, v->u.op->attrs));
		break;
	case B_CALL:
		r->u.callee = copy_of(c, v->u.callee);
		break;
	case B_CALL_LOWERED:
		r->u.prim = copy_of(c, v->u.prim);
		break;
	case B_ON_DEVICE:
		r->u.target = vdev(c, v->u.target);
		break;
	case B_DEVICE_COPY:
		value_set_copy(c->n, r, vdev(c, v->u.copy->src), vdev(c, v->u.copy->dst));
		break;
	case B_TUPLE:
		break;
	case B_PROJ:
		r->u.index = v->u.index;
		break;
	case B_CONST:
		r->u.cdata = const_data(c, v->u.cdata, v->type && elem_is_float(v->type->dt.kind));
		break;
	case B_IF:
		r->u.arms = arena_alloc(c->n->arena, 2 * sizeof *r->u.arms);
		remember(c, &v->u.arms[0], &r->u.arms[0]);
		remember(c, &v->u.arms[1], &r->u.arms[1]);
		break;
	}
	return r;
}

static void
func_body(Clone *c, const Func *f, Func *r)
{
	r->nparams = f->nparams;
	r->params = arena_alloc(c->n->arena, f->nparams * sizeof *r->params + 1);
	for (uint32_t i = 0; i < f->nparams; i++)
		r->params[i] = value_shell(c, f->params[i]);
	remember(c, &f->body, &r->body);
	GBuild b = {.m = c->n, .f = r};
	FuncWalk w;
	WalkStep s;
	fwalk_start(&w, f);
	while (fwalk_next(&w, &s)) {
		Block *to = copy_of(c, s.blk);
		if (s.ev == W_BIND) {
			gb_at_end(&b, to);
			gb_add(&b, binding(c, s.v));
		} else {
			to->yield = operand(c, s.blk->yield);
			to->yloc = s.blk->yloc;
		}
	}
}

/* ------------------------------------------------------------ loop level */

static PVar *
pvar(Clone *c, const PVar *v)
{
	if (!v)
		return NULL;
	PVar *got = copy_of(c, v);
	if (got)
		return got;
	PVar *r = arena_alloc(c->n->arena, sizeof *r);
	r->kind = v->kind;
	r->flags = v->flags;
	r->name = sym(c, v->name);
	r->type = type(c, v->type);
	r->vd = vdev(c, v->vd);
	r->annots = attrs(c, &v->annots);
	r->loc = v->loc;
	return remember(c, v, r);
}

static PExpr *expr(Clone *c, const PExpr *e);

static PIndex *
indices(Clone *c, const PIndex *idx, uint32_t n)
{
	PIndex *r = arena_alloc(c->n->arena, n * sizeof *r + 1);
	for (uint32_t i = 0; i < n; i++) {
		r[i].e = expr(c, idx[i].e);
		r[i].lanes = idx[i].lanes;
	}
	return r;
}

/* Recursive: the parser caps an expression's depth (IR_MAX_EXPR_DEPTH). */
static PExpr *
expr(Clone *c, const PExpr *e)
{
	if (!e)
		return NULL;
	PExpr *r = arena_alloc(c->n->arena, sizeof *r);
	*r = *e;
	switch (e->kind) {
	case E_INT: case E_FLOAT: case E_BOOL:
		break;
	case E_VAR:
		r->u.var = pvar(c, e->u.var);
		break;
	case E_LOAD:
		r->u.load.buf = pvar(c, e->u.load.buf);
		r->u.load.idx = indices(c, e->u.load.idx, e->n);
		break;
	case E_TEX_LOAD:
		r->u.tex.buf = pvar(c, e->u.tex.buf);
		r->u.tex.x = expr(c, e->u.tex.x);
		r->u.tex.y = expr(c, e->u.tex.y);
		break;
	case E_BIN: case E_UN: case E_SELECT:
		r->u.ops.a = expr(c, e->u.ops.a);
		r->u.ops.b = expr(c, e->u.ops.b);
		r->u.ops.c = expr(c, e->u.ops.c);
		break;
	case E_CAST: case E_BROADCAST:
		r->u.cast.a = expr(c, e->u.cast.a);
		break;
	case E_CALL:
		r->u.call.fn = sym(c, e->u.call.fn);
		r->u.call.args = arena_alloc(c->n->arena, e->n * sizeof *r->u.call.args + 1);
		for (uint32_t i = 0; i < e->n; i++)
			r->u.call.args[i] = expr(c, e->u.call.args[i]);
		break;
	}
	return r;
}

/* The block `to` will get the statements of `from`, once the work list
 * comes to it. */
static void
later(Clone *c, const PBlock *from, PBlock *to)
{
	ptrvec_push(&c->work, (void *)from);
	ptrvec_push(&c->work, to);
}

static Launch *
launch(Clone *c, const Launch *l)
{
	if (!l)
		return NULL;
	Launch *r = arena_alloc(c->n->arena, sizeof *r);
	*r = *l;
	r->args = arena_alloc(c->n->arena, l->nargs * sizeof *r->args + 1);
	for (uint32_t i = 0; i < l->nargs; i++)
		r->args[i] = pvar(c, l->args[i]);
	return r;
}

static PStmt *
stmt(Clone *c, const PStmt *s)
{
	PStmt *r = arena_alloc(c->n->arena, sizeof *r);
	*r = *s;
	r->next = NULL;
	switch (s->kind) {
	case S_FOR:
		r->u.loop.var = pvar(c, s->u.loop.var);
		r->u.loop.lo = expr(c, s->u.loop.lo);
		r->u.loop.hi = expr(c, s->u.loop.hi);
		r->u.loop.thread = sym(c, s->u.loop.thread);
		r->u.loop.body = (PBlock){0};
		later(c, &s->u.loop.body, &r->u.loop.body);
		break;
	case S_IF:
		r->u.cond.cond = expr(c, s->u.cond.cond);
		for (int k = 0; k < 2; k++) {
			r->u.cond.arms[k] = (PBlock){0};
			later(c, &s->u.cond.arms[k], &r->u.cond.arms[k]);
		}
		break;
	case S_LET:
		r->u.let.var = pvar(c, s->u.let.var);
		r->u.let.val = expr(c, s->u.let.val);
		break;
	case S_STORE:
		r->u.store.buf = pvar(c, s->u.store.buf);
		r->u.store.idx = indices(c, s->u.store.idx, s->n);
		r->u.store.val = expr(c, s->u.store.val);
		break;
	case S_ALLOC:
		r->u.alloc.buf = pvar(c, s->u.alloc.buf);
		break;
	case S_TEX_STORE:
		r->u.tex.buf = pvar(c, s->u.tex.buf);
		r->u.tex.x = expr(c, s->u.tex.x);
		r->u.tex.y = expr(c, s->u.tex.y);
		r->u.tex.val = expr(c, s->u.tex.val);
		break;
	case S_KERNEL:
		r->u.kernel.name = sym(c, s->u.kernel.name);
		r->u.kernel.launch = launch(c, s->u.kernel.launch);
		r->u.kernel.body = (PBlock){0};
		later(c, &s->u.kernel.body, &r->u.kernel.body);
		break;
	case S_EVAL:
		r->u.eval = expr(c, s->u.eval);
		break;
	case S_BARRIER:
		break;
	}
	return r;
}

static void
prim_body(Clone *c, const Prim *p, Prim *r)
{
	r->nparams = p->nparams;
	r->params = arena_alloc(c->n->arena, p->nparams * sizeof *r->params + 1);
	for (uint32_t i = 0; i < p->nparams; i++)
		r->params[i] = pvar(c, p->params[i]);
	r->attrs = attrs(c, &p->attrs);
	later(c, &p->body, &r->body);
	while (c->work.n) {
		PBlock *to = c->work.v[--c->work.n];
		const PBlock *from = c->work.v[--c->work.n];
		for (const PStmt *s = from->first; s; s = s->next) {
			PStmt *ns = stmt(c, s);
			if (to->last)
				to->last->next = ns;
			else
				to->first = ns;
			to->last = ns;
		}
	}
}

/* -------------------------------------------------------------- globals */

/* Appends x to a list of nodes linked by next (x a copy: its next was
 * the original's). */
#define APPEND(list, last, x)             \
	do {                                \
		(x)->next = NULL;           \
		if (last)                   \
			(last)->next = (x); \
		else                        \
			(list) = (x);       \
		(last) = (x);               \
	} while (0)

/* The name and attributes of a copied device or pool r, of the copy's. */
static void
declared(Clone *c, void *r, int kind, Sym *name, AttrMap *am)
{
	*name = sym(c, *name);
	*am = attrs(c, am);
	sym_set_global(*name, kind, r);
}

static void
globals(Clone *c)
{
	const Module *m = c->m;
	Module *n = c->n;
	for (const Device *d = m->devices; d; d = d->next) {
		Device *r = arena_alloc(n->arena, sizeof *r);
		*r = *d;
		declared(c, r, GK_DEVICE, &r->name, &r->attrs);
		APPEND(n->devices, n->devices_last, r);
	}
	for (const Pool *p = m->pools; p; p = p->next) {
		Pool *r = arena_alloc(n->arena, sizeof *r);
		*r = *p;
		declared(c, r, GK_POOL, &r->name, &r->attrs);
		APPEND(n->pools, n->pools_last, r);
	}
	/* functions and prims before any body: a call may come first */
	for (const Func *f = m->funcs; f; f = f->next) {
		Func *r = arena_alloc(n->arena, sizeof *r);
		r->name = sym(c, f->name);
		r->loc = f->loc;
		r->ret_type = type(c, f->ret_type);
		r->ret_vd = vdev(c, f->ret_vd);
		r->flags = f->flags;
		sym_set_global(r->name, GK_FUNC, r);
		APPEND(n->funcs, n->funcs_last, r);
		remember(c, f, r);
	}
	for (const Prim *p = m->prims; p; p = p->next) {
		Prim *r = arena_alloc(n->arena, sizeof *r);
		r->name = sym(c, p->name);
		r->loc = p->loc;
		r->flags = p->flags;
		sym_set_global(r->name, GK_PRIM, r);
		APPEND(n->prims, n->prims_last, r);
		remember(c, p, r);
	}
	for (const Program *p = m->programs; p; p = p->next) {
		Program *r = arena_alloc(n->arena, sizeof *r);
		*r = *p;
		r->dev = sym(c, p->dev);
		r->first = r->last = NULL;
		for (const ProgLine *l = p->first; l; l = l->next) {
			ProgLine *nl = arena_alloc(n->arena, sizeof *nl);
			nl->s = arena_strndup(n->arena, l->s, l->n);
			nl->n = l->n;
			APPEND(r->first, r->last, nl);
		}
		APPEND(n->programs, n->programs_last, r);
	}
	n->default_dev = sym(c, m->default_dev);
	n->default_loc = m->default_loc;
	n->host_dev = sym(c, m->host_dev);
	n->host_loc = m->host_loc;
	n->has_locs = m->has_locs;
}

static void
place_list(const PlaceList *l, void *st)
{
	Clone *c = st;
	void *node = copy_of(c, l->node);
	if (!node || !l->n)
		return;
	Place p0[8], *p = l->n <= 8 ? p0 : xmalloc(l->n * sizeof *p);
	for (uint32_t i = 0; i < l->n; i++) {
		p[i] = l->p[i];
		p[i].pool = sym(c, l->p[i].pool);
	}
	module_set_places(c->n, node, l->n, p);
	if (p != p0)
		free(p);
}

Module *
module_clone(const Module *m)
{
	Clone c = {.m = m, .n = module_new(m->ctx), .tmp = arena_new()};
	globals(&c);
	Func *rf = c.n->funcs;
	for (const Func *f = m->funcs; f; f = f->next, rf = rf->next)
		func_body(&c, f, rf);
	Prim *rp = c.n->prims;
	for (const Prim *p = m->prims; p; p = p->next, rp = rp->next)
		prim_body(&c, p, rp);
	if (m->places)
		module_each_places(m, place_list, &c);
	ptrvec_free(&c.work);
	map_free(&c.seen);
	arena_free(c.tmp);
	return c.n;
}
