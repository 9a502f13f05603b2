/* plan_memory.c: the buffers of @main, their lifetimes and pools, for
 * ir-plan-memory (plan_memory) and the verifier (plan_memory_check).
 *
 * Ticks count @main's bindings in program order (walk.h: an if, its then
 * arm, its else arm, what follows).  A buffer lives from the tick of the
 * binding that makes it to the last tick that uses it or anything
 * aliasing it: on_device, tuples, projections, ifs and views of buffers
 * (a reshape, squeeze or expand_dims out of texture scopes) make
 * no buffer of their own, they name their operands' (an if, both arms' yields; a
 * projection of what is not a plain tuple, all of it: conservative).
 * A call of a function makes none either: its body is not planned, so
 * at run time its result is memory the callee's own values got or the
 * buffer of an operand it returns, never a place of @main's plan; it
 * names the operands whose parameters the callee may return (see
 * returned_params), so they live as long as the result is used.
 * A device_copy of a tuple names its operand's buffers too: ir-run copies
 * only tensors, a tuple's fields where a use wants them in the other form.
 * Buffers: the tensor results of operators, lowered calls and copies of
 * tensors (one per tensor field), constants (a read-only pool, all alive
 * throughout), the `global` allocs of called prims (alive at each call:
 * from the first to the last), and with --io the parameters (from tick 0)
 * and the result (to the end).  A buffer in a texture scope is an image instead:
 * images are shared whole across disjoint lifetimes, with equal element
 * type, device and scope, best fit per axis (TVM's TokenAllocator2D).
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "map.h"
#include "ops/ops.h"
#include "plan_memory.h"
#include "texture/texture.h"
#include "walk.h"

enum { BK_WORK, BK_CONST, BK_IMAGE };

typedef struct {
	const void *node;     /* Value or PVar */
	uint32_t field;       /* its index in node's places */
	const char *name;
	Loc loc;
	Sym dev, scope;
	bool dev_open, scope_open; /* not written: an on_device may fix them */
	const Value *via;     /* the on_device that fixed them, if one did */
	const Type *type;     /* its tensor */
	uint8_t base_kind;    /* BK_WORK or BK_CONST, whatever the scope */
	ElemKind ek;
	int64_t bytes, wh[2];
	uint32_t start, end;
	uint8_t kind;         /* BK_* */
	bool io;              /* a parameter or the result of @main */
	bool pinned;          /* scope global-<pool> */
	const Attr *cands;    /* candidate_pools of an alloc */
	Loc candloc;
} Buf;

/* Which buffers a value names: ids[first .. first + n). */
typedef struct {
	const Value *v;
	uint32_t first, n;
} Names;

typedef struct {
	Module *m;
	Buf *b;
	uint32_t nb, capb;
	uint32_t *ids;
	uint32_t nids, capids;
	Map names;            /* Names by value */
	uint32_t tick;
	bool ok;
	Func *main;
	Map rets;             /* Rets by callee: returned_params, memoized */
} Ex;

/* Which parameters of a function its result may name. */
typedef struct {
	const Func *f;
	bool *ret;            /* f->nparams of them */
} Rets;

/* A parameter's index, by the parameter. */
typedef struct {
	const Value *v;
	uint32_t i;
} ParamIx;

static Names *
names_of(Ex *x, const Value *v)
{
	MapProbe pr;
	for (Names *n = map_first(&x->names, map_hash_ptr(v), &pr); n; n = map_next(&pr))
		if (n->v == v)
			return n;
	return NULL;
}

static Names *
names_new(Ex *x, const Value *v)
{
	Names *n = arena_alloc(x->m->arena, sizeof *n);
	n->v = v;
	n->first = x->nids;
	map_add(&x->names, map_hash_ptr(v), n);
	return n;
}

/* The t->tensors tensors of t into out, fields in order, depth first.
 * The verifier keeps t within IR_MAX_TYPE_DEPTH, so the stack of
 * (tuple, next field) is fixed. */
static void
leaves(const Type *t, const Type **out)
{
	if (t->kind == TY_TENSOR) {
		out[0] = t;
		return;
	}
	struct { const Type *t; uint32_t i; } st[IR_MAX_TYPE_DEPTH + 1];
	uint32_t sp = 0, n = 0;
	st[sp].t = t;
	st[sp++].i = 0;
	while (sp) {
		if (st[sp - 1].i == st[sp - 1].t->n) {
			sp--;
			continue;
		}
		const Type *c = st[sp - 1].t->fields[st[sp - 1].i++];
		if (c->kind == TY_TENSOR) {
			out[n++] = c;
		} else if (sp <= IR_MAX_TYPE_DEPTH) {
			st[sp].t = c;
			st[sp++].i = 0;
		}
	}
}

static Sym
dev_of(Ex *x, const VDev *vd)
{
	if (vd)
		return vd->dev;
	Device *d = module_default_device(x->m);
	return d ? d->name : NULL;
}

/* Pinned scope "global-<pool>": the pool's name, else NULL. */
static const char *
pinned_pool(Sym scope)
{
	return scope && !strncmp(scope, "global-", 7) && scope[7] ? scope + 7 : NULL;
}

/* b's device, scope and kind, from its placement vd (NULL: open). */
static void
buf_place(Ex *x, Buf *b, const VDev *vd)
{
	b->dev = dev_of(x, vd);
	b->scope = vd ? vd->scope : NULL;
	b->dev_open = !vd || !vd->dev;
	b->scope_open = !b->scope;
	b->kind = b->base_kind;
	b->pinned = pinned_pool(b->scope) != NULL;
	if (is_texture_scope(b->scope)) {
		char why[160];
		if (texture_image(b->type, b->scope, b->wh, why, sizeof why))
			b->kind = BK_IMAGE;
	}
}

static uint32_t
new_buf(Ex *x, const void *node, uint32_t field, const char *name, Loc loc, const Type *t,
        const VDev *vd, uint8_t kind)
{
	Buf b = {0};
	b.node = node;
	b.field = field;
	b.name = name;
	b.loc = loc;
	b.type = t;
	b.base_kind = kind;
	b.ek = (ElemKind)t->dt.kind;
	b.bytes = type_bytes(t);
	b.start = b.end = x->tick;
	buf_place(x, &b, vd);
	VEC_PUSH(x->b, x->nb, x->capb) = b;
	return x->nb - 1;
}

/* An on_device that constrains its body (the default) puts its operand
 * where ir-plan-devices would: the buffers the operand names take the
 * target's device where their own 'on' left it open, its scope where the
 * devices agree and the scope was open (the first such on_device wins; a
 * conflict is ir-plan-devices' to report).  So a pin to a pool by an
 * on_device is checked, and planned, as one written with 'on'. */
static void
on_device_bufs(Ex *x, const Value *v)
{
	const VDev *t = v->u.target;
	Names *nm = names_of(x, v);
	if (!(v->flags & VF_BODY) || !t || !nm)
		return;
	for (uint32_t i = 0; i < nm->n; i++) {
		Buf *b = &x->b[x->ids[nm->first + i]];
		if (b->dev_open)
			buf_place(x, b, t);
		else if (b->scope_open && t->scope && b->dev == t->dev)
			buf_place(x, b, vdev_get(x->m, b->dev, t->scope));
		else
			continue;
		b->via = v;
	}
}

/* A view (ops.h) of a buffer: a reshape, squeeze or expand_dims neither
 * of whose sides is in a texture scope (an image's rows split the
 * elements elsewhere: a reshape of one is an image of its own). */
static bool
buffer_view(const Value *v)
{
	const VDev *a = v->nargs ? v->args[0]->vd : NULL;
	return value_is_view(v) && !(v->vd && v->vd->scope && is_texture_scope(v->vd->scope)) &&
	       !(a && a->scope && is_texture_scope(a->scope));
}

/* A value makes its own buffers, one per tensor field. */
static void
own_bufs(Ex *x, const Value *v, uint8_t kind)
{
	uint32_t n = v->type->tensors;
	const Type **lv = xmalloc(n * sizeof *lv);
	leaves(v->type, lv);
	Names *nm = names_new(x, v);
	for (uint32_t i = 0; i < n; i++)
		VEC_PUSH(x->ids, x->nids, x->capids) =
			new_buf(x, v, i, v->name, v->loc, lv[i], v->vd, kind);
	nm->n = n;
	free(lv);
}

static void
use(Ex *x, const Value *v)
{
	Names *nm = v ? names_of(x, v) : NULL;
	if (!nm)
		return;
	for (uint32_t i = 0; i < nm->n; i++) {
		Buf *b = &x->b[x->ids[nm->first + i]];
		if (b->end < x->tick)
			b->end = x->tick;
	}
}

/* A value that names other values' buffers. */
static void
alias(Ex *x, const Value *v, const Value *const *from, uint32_t n, int64_t proj)
{
	Names *nm = names_new(x, v);
	uint32_t start = x->nids;
	for (uint32_t i = 0; i < n; i++) {
		Names *f = from[i] ? names_of(x, from[i]) : NULL;
		if (!f)
			continue;
		uint32_t lo = 0, hi = f->n;
		if (proj >= 0 && from[i]->type->kind == TY_TUPLE && (uint64_t)proj < from[i]->type->n) {
			/* the leaves of the fields before proj, if f is exactly the leaves */
			const Type *t = from[i]->type;
			if (t->tensors == f->n) {
				uint32_t before = 0;
				for (int64_t k = 0; k < proj; k++)
					before += t->fields[k]->tensors;
				lo = before;
				hi = before + t->fields[proj]->tensors;
			}
		}
		for (uint32_t k = lo; k < hi; k++) {
			uint32_t id = x->ids[f->first + k];
			VEC_PUSH(x->ids, x->nids, x->capids) = id;
		}
	}
	nm->first = start;
	nm->n = x->nids - start;
}

/* Which parameters of f its result may be (or hold, in a tuple): those
 * its yield reaches through tuples, projections, on_device, device_copy
 * (which both runtimes may answer with the operand itself) and both arms
 * of ifs; through a call inside f, every operand of it (conservative).
 * Operators, lowered calls and constants make memory of their own.  One
 * walk of f back from its yield, each value once: linear in f. */
static const bool *
returned_params(Ex *x, const Func *f)
{
	MapProbe pr;
	for (Rets *r = map_first(&x->rets, map_hash_ptr(f), &pr); r; r = map_next(&pr))
		if (r->f == f)
			return r->ret;
	Rets *r = arena_alloc(x->m->arena, sizeof *r);
	r->f = f;
	r->ret = arena_alloc(x->m->arena, (f->nparams ? f->nparams : 1) * sizeof *r->ret);
	memset(r->ret, 0, (f->nparams ? f->nparams : 1) * sizeof *r->ret);
	map_add(&x->rets, map_hash_ptr(f), r);
	Map params = {0}, seen = {0};
	ParamIx *pix = xcalloc(f->nparams ? f->nparams : 1, sizeof *pix);
	for (uint32_t i = 0; i < f->nparams; i++) {
		pix[i] = (ParamIx){f->params[i], i};
		map_add(&params, map_hash_ptr(f->params[i]), &pix[i]);
	}
	const Value **st = NULL;
	size_t n = 0, cap = 0;
	if (f->body.yield)
		VEC_PUSH(st, n, cap) = f->body.yield;
	while (n) {
		const Value *v = st[--n];
		bool dup = false;
		for (const Value *e = map_first(&seen, map_hash_ptr(v), &pr); e && !dup;
		     e = map_next(&pr))
			dup = e == v;
		if (dup)
			continue;
		map_add(&seen, map_hash_ptr(v), (void *)v);
		if (v->kind == VK_PARAM) {
			for (ParamIx *p = map_first(&params, map_hash_ptr(v), &pr); p; p = map_next(&pr))
				if (p->v == v)
					r->ret[p->i] = true;
			continue;
		}
		if (v->kind != VK_BIND)
			continue;
		switch (v->form) {
		case B_TUPLE:
		case B_PROJ:
		case B_ON_DEVICE:
		case B_DEVICE_COPY:
		case B_CALL:
			for (uint32_t i = 0; i < v->nargs; i++)
				if (v->args[i])
					VEC_PUSH(st, n, cap) = v->args[i];
			break;
		case B_IF:
			for (int a = 0; a < 2; a++)
				if (v->u.arms[a].yield)
					VEC_PUSH(st, n, cap) = v->u.arms[a].yield;
			break;
		case B_OP:
			/* a view names its operand's buffer */
			if (buffer_view(v))
				VEC_PUSH(st, n, cap) = v->args[0];
			break;
		default:
			break;
		}
	}
	free(st);
	free(pix);
	map_free(&params);
	map_free(&seen);
	return r->ret;
}

/* The global allocs of a called prim: alive at the call. */
static void
prim_allocs(Ex *x, const Prim *p, Map *seen)
{
	PStmt **st = NULL;
	size_t n = 0, cap = 0;
	for (PStmt *s = p->body.first; s; s = s->next)
		VEC_PUSH(st, n, cap) = s;
	while (n) {
		PStmt *s = st[--n];
		switch (s->kind) {
		case S_FOR:
			for (PStmt *c = s->u.loop.body.first; c; c = c->next)
				VEC_PUSH(st, n, cap) = c;
			break;
		case S_KERNEL:
			for (PStmt *c = s->u.kernel.body.first; c; c = c->next)
				VEC_PUSH(st, n, cap) = c;
			break;
		case S_IF:
			for (int a = 0; a < 2; a++)
				for (PStmt *c = s->u.cond.arms[a].first; c; c = c->next)
					VEC_PUSH(st, n, cap) = c;
			break;
		case S_ALLOC: {
			PVar *v = s->u.alloc.buf;
			Sym sc = v->vd ? v->vd->scope : NULL;
			bool global = !sc || !strcmp(sc, "global") || pinned_pool(sc);
			bool image = s->u.alloc.image[0] != 0;
			if (!global && !image)
				break;
			MapProbe pr;
			uint32_t *id = NULL;
			for (uint32_t *e = map_first(seen, map_hash_ptr(v), &pr); e; e = map_next(&pr))
				if (x->b[*e].node == v)
					id = e;
			if (id) {
				x->b[*id].end = x->tick;
				break;
			}
			uint32_t b = new_buf(x, v, 0, v->name, v->loc, v->type, v->vd, BK_WORK);
			if (image) {
				x->b[b].kind = BK_IMAGE;
				x->b[b].wh[0] = s->u.alloc.image[0];
				x->b[b].wh[1] = s->u.alloc.image[1];
			} else if (x->b[b].kind == BK_IMAGE) {
				x->b[b].kind = BK_WORK;
			}
			const Attr *c = attr_get(&v->annots, "candidate_pools");
			if (c && c->kind == AT_LIST) {
				x->b[b].cands = c;
				x->b[b].candloc = c->loc;
			}
			id = arena_alloc(x->m->arena, sizeof *id);
			*id = b;
			map_add(seen, map_hash_ptr(v), id);
			break;
		}
		default:
			break;
		}
	}
	free(st);
}

/* Extracts @main's buffers; false (x->main NULL) without a @main. */
static bool
extract(Ex *x, Module *m, bool io)
{
	memset(x, 0, sizeof *x);
	x->m = m;
	x->ok = true;
	x->main = module_func(m, sym_intern_cstr(m, "main"));
	if (!x->main)
		return false;
	Func *f = x->main;
	Map seen = {0};
	if (io)
		for (uint32_t i = 0; i < f->nparams; i++) {
			own_bufs(x, f->params[i], BK_WORK);
			Names *nm = names_of(x, f->params[i]);
			for (uint32_t k = 0; k < nm->n; k++)
				x->b[x->ids[nm->first + k]].io = true;
		}
	FuncWalk w;
	WalkStep s;
	x->tick = 1;
	fwalk_start(&w, f);
	while (fwalk_next(&w, &s)) {
		if (s.ev == W_ARM_END) {
			x->tick++;
			use(x, s.blk->yield);
			if (s.arm == 1) {
				/* the if names both arms' yields */
				const Value *ys[2] = {s.v->u.arms[0].yield, s.v->u.arms[1].yield};
				alias(x, s.v, ys, 2, -1);
			}
			continue;
		}
		if (s.ev == W_BODY_END)
			continue;
		Value *v = s.v;
		x->tick++;
		for (uint32_t i = 0; i < v->nargs; i++)
			use(x, v->args[i]);
		switch (v->form) {
		case B_DEVICE_COPY:
			if (v->type->kind == TY_TUPLE) {
				/* both runtimes answer a tuple's copy with the tuple:
				 * each field is copied where a use wants it */
				alias(x, v, (const Value *const *)v->args, 1, -1);
				break;
			}
			own_bufs(x, v, BK_WORK);
			break;
		case B_OP:
			if (buffer_view(v))         /* its operand's buffer */
				alias(x, v, (const Value *const *)v->args, 1, -1);
			else
				own_bufs(x, v, BK_WORK);
			break;
		case B_CALL: {
			/* the operands it may return, not a buffer of its own */
			const bool *ret = returned_params(x, v->u.callee);
			const Value **from = xcalloc(v->nargs ? v->nargs : 1, sizeof *from);
			uint32_t nf = 0;
			for (uint32_t i = 0; i < v->nargs && i < v->u.callee->nparams; i++)
				if (ret[i])
					from[nf++] = v->args[i];
			alias(x, v, from, nf, -1);
			free(from);
			break;
		}
		case B_CALL_LOWERED:
			own_bufs(x, v, BK_WORK);
			prim_allocs(x, v->u.prim, &seen);
			break;
		case B_CONST:
			own_bufs(x, v, BK_CONST);
			break;
		case B_ON_DEVICE:
			alias(x, v, (const Value *const *)v->args, v->nargs, -1);
			on_device_bufs(x, v);
			break;
		case B_TUPLE:
			alias(x, v, (const Value *const *)v->args, v->nargs, -1);
			break;
		case B_PROJ:
			alias(x, v, (const Value *const *)v->args, 1, v->u.index);
			break;
		case B_IF:   /* named when its last arm ends */
			break;
		}
	}
	uint32_t ticks = x->tick;
	x->tick = ticks + 1;
	use(x, f->body.yield);
	Names *r = f->body.yield ? names_of(x, f->body.yield) : NULL;
	for (uint32_t k = 0; r && k < r->n; k++)
		x->b[x->ids[r->first + k]].io = true;
	for (uint32_t i = 0; i < x->nb; i++) {
		if (x->b[i].kind == BK_CONST) {
			x->b[i].start = 0;
			x->b[i].end = x->tick;
		}
	}
	if (io)
		for (uint32_t i = 0; i < f->nparams; i++) {
			Names *nm = names_of(x, f->params[i]);
			for (uint32_t k = 0; k < nm->n; k++)
				x->b[x->ids[nm->first + k]].start = 0;
		}
	map_free(&seen);
	return true;
}

static void
ex_free(Ex *x)
{
	free(x->b);
	free(x->ids);
	map_free(&x->names);
	map_free(&x->rets);
}

/* ------------------------------------------------------------ pools */

typedef struct {
	Sym name;
	Pool *decl;           /* NULL: implicit */
	Sym dev;              /* implicit: its device */
	int64_t size, align;  /* size -1: unbounded */
	bool constant;
} PInfo;

typedef struct {
	PInfo *p;
	uint32_t n, cap;
} Pools;

static int64_t
pool_align(const Pool *pl)
{
	const Attr *a = attr_get(&pl->attrs, "alignment");
	return a && a->kind == AT_INT && a->u.i > 0 ? a->u.i : 16;
}

static bool
pool_reaches(const Pool *pl, Sym dev)
{
	const Attr *a = attr_get(&pl->attrs, "devices");
	if (!a || a->kind != AT_LIST || !dev)
		return true;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->u.list[i].kind == AT_SYM && a->u.list[i].u.sym == dev)
			return true;
	return false;
}

static bool
pool_is_constant(const Pool *pl)
{
	const Attr *a = attr_get(&pl->attrs, "kind");
	return a && a->kind == AT_STR && !strcmp(a->u.s, "constant");
}

static void
pools_init(Pools *ps, Module *m)
{
	memset(ps, 0, sizeof *ps);
	for (Pool *pl = m->pools; pl; pl = pl->next) {
		const Attr *sz = attr_get(&pl->attrs, "size");
		VEC_PUSH(ps->p, ps->n, ps->cap) = (PInfo){
			pl->name, pl, NULL, sz && sz->kind == AT_INT ? sz->u.i : -1, pool_align(pl),
			pool_is_constant(pl)};
	}
}

/* The implicit pool of dev for constants or not, made on first use. */
static uint32_t
pool_implicit(Pools *ps, Module *m, Sym dev, bool constant)
{
	for (uint32_t k = 0; k < ps->n; k++)
		if (!ps->p[k].decl && ps->p[k].dev == dev && ps->p[k].constant == constant)
			return k;
	char buf[300];
	snprintf(buf, sizeof buf, "%s%s%s", constant ? "constants" : "workspace", dev ? "." : "",
	         dev ? dev : "");
	Sym name = sym_intern_cstr(m, buf);
	for (int i = 1; sym_global(name, &(int){0}) || module_pool(m, name); i++) {
		char b2[320];
		snprintf(b2, sizeof b2, "%s.%d", buf, i);
		name = sym_intern_cstr(m, b2);
	}
	VEC_PUSH(ps->p, ps->n, ps->cap) = (PInfo){name, NULL, dev, -1, 16, constant};
	return ps->n - 1;
}

/* Declares an implicit pool with the size the plan gave it. */
static void
declare_pool(Module *m, const PInfo *pi, int64_t used)
{
	Pool *pl = arena_alloc(m->arena, sizeof *pl);
	pl->name = pi->name;
	uint32_t n = 0;
	AttrEntry *e = arena_alloc(m->arena, 3 * sizeof *e);
	if (pi->dev) {
		Attr *l = arena_alloc(m->arena, sizeof *l);
		l->kind = AT_SYM;
		l->u.sym = pi->dev;
		e[n].key = sym_intern_cstr(m, "devices");
		e[n].val.kind = AT_LIST;
		e[n].val.n = 1;
		e[n++].val.u.list = l;
	}
	e[n].key = sym_intern_cstr(m, "kind");
	e[n].val.kind = AT_STR;
	e[n].val.u.s = pi->constant ? "constant" : "workspace";
	e[n].val.n = (uint32_t)strlen(e[n].val.u.s);
	n++;
	e[n].key = sym_intern_cstr(m, "size");
	e[n].val.kind = AT_INT;
	e[n++].val.u.i = used > 0 ? used : 1;
	pl->attrs = (AttrMap){n, e};
	/* Located where its device is declared (else @main's first
	 * function): in a module read with loc(...), a line printed without
	 * one would get its place in the printed text when read back, and
	 * print differently (fuzz_memplan found it). */
	const Device *d = pi->dev ? module_device(m, pi->dev) : NULL;
	if (d)
		pl->loc = d->loc;
	else if (m->funcs)
		pl->loc = m->funcs->loc;
	sym_set_global(pl->name, GK_POOL, pl);
	if (m->pools_last)
		m->pools_last->next = pl;
	else
		m->pools = pl;
	m->pools_last = pl;
}

/* Where b's pin came from, when an on_device put it there. */
static void
note_via(Module *m, const Buf *b)
{
	if (b->via)
		note_at(m->ctx, b->via->loc, "'%%%s' puts '%%%s' on '@%s%s%s' here", b->via->name, b->name,
		        b->dev, b->scope ? ":" : "", b->scope ? b->scope : "");
}

/* b's candidate pools into out (at most cap); false after an error. */
static bool
candidates(Ex *x, Pools *ps, const Buf *b, uint32_t *out, uint32_t *n, uint32_t cap)
{
	Module *m = x->m;
	*n = 0;
	const char *pin = pinned_pool(b->scope);
	if (pin || b->cands) {
		uint32_t cnt = pin ? 1 : b->cands->n;
		for (uint32_t i = 0; i < cnt && *n < cap; i++) {
			Sym name;
			Loc at;
			if (pin) {
				name = sym_intern_cstr(m, pin);
				at = b->loc;
			} else {
				if (b->cands->u.list[i].kind != AT_SYM)
					continue;
				name = b->cands->u.list[i].u.sym;
				at = b->cands->u.list[i].loc;
			}
			uint32_t k = 0;
			while (k < ps->n && !(ps->p[k].decl && ps->p[k].name == name))
				k++;
			if (k == ps->n) {
				if (pin) {
					error_at(m->ctx, at, "scope '%s' of '%%%s' names '@%s', which is not a declared pool",
					         b->scope, b->name, name);
					note_via(m, b);
				} else
					error_at(m->ctx, at, "'candidate_pools' names '@%s', which is not a declared pool",
					         name);
				return false;
			}
			if (!pool_reaches(ps->p[k].decl, b->dev)) {
				error_at(m->ctx, at, "pool '@%s' is not accessible from device '@%s' of '%%%s'",
				         name, b->dev, b->name);
				if (pin)
					note_via(m, b);
				note_at(m->ctx, ps->p[k].decl->loc, "'@%s' is declared here", name);
				return false;
			}
			out[(*n)++] = k;
		}
		return true;
	}
	bool constant = b->kind == BK_CONST;
	for (uint32_t k = 0; k < ps->n && *n + 1 < cap; k++)
		if (ps->p[k].decl && ps->p[k].constant == constant && pool_reaches(ps->p[k].decl, b->dev))
			out[(*n)++] = k;
	out[(*n)++] = pool_implicit(ps, m, b->dev, constant);
	return true;
}

/* ------------------------------------------------------------ images */

typedef struct {
	Sym dev, scope;
	ElemKind ek;
	int64_t w, h;
	uint32_t last_end;
	bool used;
} Image;

static int
cmp_start(const void *a, const void *b, const Buf *bs)
{
	const Buf *x = &bs[*(const uint32_t *)a], *y = &bs[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static const Buf *cmp_bufs;
static int
cmp_start_q(const void *a, const void *b)
{
	return cmp_start(a, b, cmp_bufs);
}

/* Per-axis best fit among free images of the same kind: the least area
 * added by growing, then the least area left over, then the lowest id. */
static void
plan_images(Ex *x, uint32_t *image_of, Image **imgs, uint32_t *nimg)
{
	uint32_t *ord = NULL;
	size_t n = 0, cap = 0, ci = 0;
	for (uint32_t i = 0; i < x->nb; i++)
		if (x->b[i].kind == BK_IMAGE)
			VEC_PUSH(ord, n, cap) = i;
	cmp_bufs = x->b;
	if (n)
		qsort(ord, n, sizeof *ord, cmp_start_q);
	Image *im = NULL;
	uint32_t ni = 0;
	for (size_t r = 0; r < n; r++) {
		const Buf *b = &x->b[ord[r]];
		uint32_t best = UINT32_MAX;
		int64_t best_add = 0, best_left = 0;
		for (uint32_t k = 0; k < ni; k++) {
			Image *g = &im[k];
			if (g->dev != b->dev || g->scope != b->scope || g->ek != b->ek || g->last_end >= b->start)
				continue;
			int64_t w = g->w > b->wh[0] ? g->w : b->wh[0];
			int64_t h = g->h > b->wh[1] ? g->h : b->wh[1];
			int64_t add = w * h - g->w * g->h, left = w * h - b->wh[0] * b->wh[1];
			if (best == UINT32_MAX || add < best_add || (add == best_add && left < best_left)) {
				best = k;
				best_add = add;
				best_left = left;
			}
		}
		if (best == UINT32_MAX) {
			VEC_PUSH(im, ni, ci) = (Image){b->dev, b->scope, b->ek, 0, 0, 0, false};
			best = ni - 1;
		}
		Image *g = &im[best];
		if (b->wh[0] > g->w)
			g->w = b->wh[0];
		if (b->wh[1] > g->h)
			g->h = b->wh[1];
		g->last_end = b->end;
		image_of[ord[r]] = best;
	}
	free(ord);
	*imgs = im;
	*nimg = ni;
}

/* ------------------------------------------------------------ errors */

/* Buffer f fit none of its pools: report its first pool, the bytes alive
 * at the peak within f's lifetime among the buffers that prefer it. */
static void
report_full(Ex *x, const Pools *ps, const MpProblem *pr, uint32_t f)
{
	uint32_t k = pr->buf[f].pools[0];
	const PInfo *pi = &ps->p[k];
	int64_t best = -1;
	uint32_t at = pr->buf[f].start;
	for (uint32_t t = pr->buf[f].start; t <= pr->buf[f].end; t++) {
		int64_t live = 0;
		for (uint32_t i = 0; i < pr->nbuf; i++)
			if (pr->buf[i].pools[0] == k && pr->buf[i].start <= t && t <= pr->buf[i].end)
				live += pr->buf[i].size;
		if (live > best) {
			best = live;
			at = t;
		}
		if (t == UINT32_MAX)
			break;
	}
	const Buf *fb = (const Buf *)pr->buf[f].name;  /* see plan_memory: name is the Buf */
	error_at(x->m->ctx, fb->loc,
	         "pool '@%s' of %lld bytes is too small: %lld bytes are live in it at once, "
	         "'%%%s' (%lld bytes) among them",
	         pi->name, (long long)pi->size, (long long)best, fb->name, (long long)fb->bytes);
	for (uint32_t i = 0; i < pr->nbuf; i++)
		if (i != f && pr->buf[i].pools[0] == k && pr->buf[i].start <= at && at <= pr->buf[i].end) {
			const Buf *b = (const Buf *)pr->buf[i].name;
			note_at(x->m->ctx, b->loc, "'%%%s' (%lld bytes) is live there", b->name,
			        (long long)b->bytes);
		}
	if (pi->decl)
		note_at(x->m->ctx, pi->decl->loc, "'@%s' is declared here", pi->name);
}

/* ------------------------------------------------------------ the pass */

bool
plan_memory(Module *m, const MemPlanOpts *o)
{
	Ex x;
	if (!extract(&x, m, o->io)) {
		error_at(m->ctx, (Loc){0}, "no function @main");
		return false;
	}
	Pools ps;
	pools_init(&ps, m);
	uint32_t ndecl = ps.n;
	MpBuf *mb = xcalloc((size_t)x.nb + 1, sizeof *mb);
	uint32_t *map = xcalloc((size_t)x.nb + 1, sizeof *map);   /* mp index -> buf */
	uint32_t *cand = NULL;
	size_t ncand = 0, ccand = 0;
	uint32_t n = 0;
	bool ok = true;
	/* candidate lists first (pools may be added), then the MpBufs */
	uint32_t *cfirst = xcalloc((size_t)x.nb + 1, sizeof *cfirst), *ccount = xcalloc((size_t)x.nb + 1, sizeof *ccount);
	for (uint32_t i = 0; i < x.nb; i++) {
		Buf *b = &x.b[i];
		if (b->kind == BK_IMAGE || (b->io && !o->io))
			continue;
		uint32_t tmp[256], c = 0;
		if (!candidates(&x, &ps, b, tmp, &c, 256)) {
			ok = false;
			continue;
		}
		cfirst[i] = (uint32_t)ncand;
		ccount[i] = c;
		for (uint32_t k = 0; k < c; k++)
			VEC_PUSH(cand, ncand, ccand) = tmp[k];
	}
	MpPool *mp = xcalloc((size_t)ps.n + 1, sizeof *mp);
	for (uint32_t k = 0; k < ps.n; k++)
		mp[k] = (MpPool){ps.p[k].name, ps.p[k].size};
	for (uint32_t i = 0; ok && i < x.nb; i++) {
		Buf *b = &x.b[i];
		if (!ccount[i])
			continue;
		int64_t al = 1;
		for (uint32_t k = 0; k < ccount[i]; k++)
			if (ps.p[cand[cfirst[i] + k]].align > al)
				al = ps.p[cand[cfirst[i] + k]].align;
		mb[n] = (MpBuf){.name = (const char *)b, .size = b->bytes, .align = al,
		                .start = b->start, .end = b->end,
		                .pools = cand + cfirst[i], .npools = ccount[i]};
		map[n++] = i;
	}
	/* TVM breaks ties by name: give the MpBufs their names for sorting
	 * after the errors are out of the way (report_full reads the Buf). */
	MpProblem pr = {mb, n, mp, ps.n, true};
	MpAlgo chosen = o->algo;
	uint32_t fail = 0;
	if (ok) {
		const char **names = xcalloc((size_t)n + 1, sizeof *names);
		for (uint32_t j = 0; j < n; j++)
			names[j] = x.b[map[j]].name;
		for (uint32_t j = 0; j < n; j++)
			mb[j].name = names[j];
		ok = mp_plan(&pr, o->algo, &chosen, &fail);
		for (uint32_t j = 0; j < n; j++)
			mb[j].name = (const char *)&x.b[map[j]];
		free(names);
		if (!ok)
			report_full(&x, &ps, &pr, fail);
	}
	if (ok) {
		uint32_t *image_of = xcalloc((size_t)x.nb + 1, sizeof *image_of);
		Image *im = NULL;
		uint32_t ni = 0;
		plan_images(&x, image_of, &im, &ni);
		Place *pl = xcalloc((size_t)x.nb + 1, sizeof *pl);
		bool *planned = xcalloc((size_t)x.nb + 1, sizeof *planned);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t i = map[j];
			pl[i] = (Place){ps.p[mb[j].pool].name, mb[j].offset, {0, 0}, x.b[i].loc};
			planned[i] = true;
		}
		for (uint32_t i = 0; i < x.nb; i++)
			if (x.b[i].kind == BK_IMAGE) {
				Image *g = &im[image_of[i]];
				pl[i] = (Place){NULL, image_of[i], {g->w, g->h}, x.b[i].loc};
				planned[i] = true;
			}
		/* one node's buffers are consecutive */
		for (uint32_t i = 0; i < x.nb;) {
			uint32_t e = i + 1;
			while (e < x.nb && x.b[e].node == x.b[i].node)
				e++;
			bool all = true;
			for (uint32_t k = i; k < e; k++)
				all = all && planned[k];
			if (all)
				module_set_places(m, x.b[i].node, e - i, pl + i);
			i = e;
		}
		for (uint32_t k = ndecl; k < ps.n; k++) {
			int64_t used = mp_pool_used(&pr, k);
			bool any = false;
			for (uint32_t j = 0; j < n; j++)
				any = any || mb[j].pool == k;
			if (any)
				declare_pool(m, &ps.p[k], used);
		}
		if (o->stats) {
			for (uint32_t k = 0; k < ps.n; k++) {
				int64_t sum = 0;
				uint32_t cnt = 0;
				for (uint32_t j = 0; j < n; j++)
					if (mb[j].pool == k) {
						sum += mb[j].size;
						cnt++;
					}
				if (!cnt)
					continue;
				fprintf(o->stats,
				        "pool @%s: %u buffers, planned %lld bytes, sum %lld bytes, lower bound %lld bytes\n",
				        ps.p[k].name, cnt, (long long)mp_pool_used(&pr, k), (long long)sum,
				        (long long)mp_pool_peak(&pr, k, NULL));
			}
			for (uint32_t g = 0; g < ni; g++) {
				uint32_t users = 0;
				for (uint32_t i = 0; i < x.nb; i++)
					users += x.b[i].kind == BK_IMAGE && image_of[i] == g;
				fprintf(o->stats, "image %u: %lldx%lld texels, %u buffers\n", g,
				        (long long)im[g].w, (long long)im[g].h, users);
			}
			fprintf(o->stats, "algorithm: %s\n", mp_algo_name(chosen));
		}
		free(pl);
		free(planned);
		free(im);
		free(image_of);
	}
	free(cfirst);
	free(ccount);
	free(cand);
	free(mp);
	free(mb);
	free(map);
	free(ps.p);
	ex_free(&x);
	return ok;
}

/* ------------------------------------------------------------ the check */

/* Only for places the check found to end by INT64_MAX. */
static int64_t
range_end(const Buf *b, const Place *p)
{
	return p->offset + b->bytes;
}

bool
plan_memory_check(Module *m)
{
	if (!m->places)
		return true;
	Ex x;
	if (!extract(&x, m, true)) {
		error_at(m->ctx, (Loc){0}, "a memory plan needs a function @main");
		return false;
	}
	bool ok = true;
	const Place **pp = xcalloc((size_t)x.nb + 1, sizeof *pp);
	Map nodes = {0};
	for (uint32_t i = 0; i < x.nb;) {
		uint32_t e = i + 1;
		while (e < x.nb && x.b[e].node == x.b[i].node)
			e++;
		const PlaceList *l = module_places(m, x.b[i].node);
		if (l && l->n) {
			map_add(&nodes, map_hash_ptr(l), (void *)l);
			if (l->n != e - i) {
				error_at(m->ctx, l->p[0].loc, "'%%%s' has %u places for its %u buffers",
				         x.b[i].name, l->n, e - i);
				ok = false;
			} else {
				for (uint32_t k = i; k < e; k++)
					pp[k] = &l->p[k - i];
			}
		}
		i = e;
	}
	/* every pool place: declared, reachable, aligned, inside */
	for (uint32_t i = 0; i < x.nb; i++) {
		const Place *p = pp[i];
		const Buf *b = &x.b[i];
		if (!p)
			continue;
		if (b->kind == BK_IMAGE) {
			if (p->pool) {
				error_at(m->ctx, p->loc, "'%%%s' is an image: its place is image2d(id)[width, height]", b->name);
				ok = false;
				pp[i] = NULL;
			} else if (p->image[0] < b->wh[0] || p->image[1] < b->wh[1]) {
				error_at(m->ctx, p->loc, "image %lld of %lldx%lld texels is smaller than '%%%s' (%lldx%lld)",
				         (long long)p->offset, (long long)p->image[0], (long long)p->image[1], b->name,
				         (long long)b->wh[0], (long long)b->wh[1]);
				ok = false;
			}
			continue;
		}
		if (!p->pool) {
			error_at(m->ctx, p->loc, "'%%%s' is not in a texture scope: its place is @pool[offset]", b->name);
			ok = false;
			pp[i] = NULL;
			continue;
		}
		Pool *pl = module_pool(m, p->pool);
		if (!pl) {
			error_at(m->ctx, p->loc, "'@%s' is not a declared pool", p->pool);
			ok = false;
			pp[i] = NULL;
			continue;
		}
		if (!pool_reaches(pl, b->dev)) {
			error_at(m->ctx, p->loc, "pool '@%s' is not accessible from device '@%s' of '%%%s'", p->pool,
			         b->dev, b->name);
			note_via(m, b);
			ok = false;
		}
		int64_t al = pool_align(pl);
		if (p->offset % al) {
			error_at(m->ctx, p->loc, "offset %lld of '%%%s' is not a multiple of the alignment %lld of '@%s'",
			         (long long)p->offset, b->name, (long long)al, p->pool);
			ok = false;
		}
		if (p->offset > INT64_MAX - b->bytes) {
			/* range_end would overflow: past any pool, and kept out of
			 * the overlap check below */
			error_at(m->ctx, p->loc, "'%%%s' (%lld bytes at %lld) ends past the largest offset, 2^63-1",
			         b->name, (long long)b->bytes, (long long)p->offset);
			ok = false;
			pp[i] = NULL;
			continue;
		}
		const Attr *sz = attr_get(&pl->attrs, "size");
		if (sz && sz->kind == AT_INT && range_end(b, p) > sz->u.i) {
			error_at(m->ctx, p->loc, "'%%%s' (%lld bytes at %lld) ends past the %lld bytes of '@%s'", b->name,
			         (long long)b->bytes, (long long)p->offset, (long long)sz->u.i, p->pool);
			ok = false;
		}
	}
	/* buffers alive at once: apart in a pool, never one image */
	uint32_t *ord = NULL, *act = NULL;
	size_t n = 0, cap = 0, ca = 0, na = 0;
	for (uint32_t i = 0; i < x.nb; i++)
		if (pp[i])
			VEC_PUSH(ord, n, cap) = i;
	cmp_bufs = x.b;
	if (n)
		qsort(ord, n, sizeof *ord, cmp_start_q);
	for (size_t r = 0; r < n; r++) {
		uint32_t i = ord[r];
		const Buf *b = &x.b[i];
		size_t w = 0;
		for (size_t a = 0; a < na; a++) {
			uint32_t j = act[a];
			const Buf *c = &x.b[j];
			if (c->end < b->start)
				continue;
			act[w++] = j;
			const Place *p = pp[i], *q = pp[j];
			bool clash;
			if (p->pool || q->pool)
				clash = p->pool && p->pool == q->pool && p->offset < range_end(c, q) &&
				        q->offset < range_end(b, p) && b->bytes && c->bytes;
			else
				clash = p->offset == q->offset;
			if (clash && ok) {
				if (p->pool)
					error_at(m->ctx, p->loc, "'%%%s' overlaps '%%%s' in '@%s', and both are live at once",
					         b->name, c->name, p->pool);
				else
					error_at(m->ctx, p->loc, "'%%%s' and '%%%s' share image %lld, and both are live at once",
					         b->name, c->name, (long long)p->offset);
				note_at(m->ctx, c->loc, "'%%%s' is defined here", c->name);
				ok = false;
			}
		}
		na = w;
		VEC_PUSH(act, na, ca) = i;
	}
	free(ord);
	free(act);
	/* places anywhere else */
	for (uint32_t i = 0; m->places && i < ((Map *)m->places)->cap; i++) {
		const PlaceList *l = ((Map *)m->places)->slot[i];
		if (!l || !l->n)
			continue;
		MapProbe pr;
		bool found = false;
		for (void *e = map_first(&nodes, map_hash_ptr(l), &pr); e && !found; e = map_next(&pr))
			found = e == l;
		if (!found) {
			error_at(m->ctx, l->p[0].loc,
			         "a place is only for a buffer of @main: a value it makes, a parameter, "
			         "or a global alloc of a prim it calls");
			ok = false;
		}
	}
	map_free(&nodes);
	free(pp);
	ex_free(&x);
	return ok;
}
