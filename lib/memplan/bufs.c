/* bufs.c: see bufs.h. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "map.h"
#include "memplan/bufs.h"
#include "ops/ops.h"
#include "texture/texture.h"
#include "walk.h"

/* Which buffers a value names: ids[first .. first + n). */
typedef struct {
	const Value *v;
	uint32_t first, n;
} Names;

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
names_of(MBufs *x, const Value *v)
{
	MapProbe pr;
	for (Names *n = map_first(&x->names, map_hash_ptr(v), &pr); n; n = map_next(&pr))
		if (n->v == v)
			return n;
	return NULL;
}

static Names *
names_new(MBufs *x, const Value *v)
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
dev_of(MBufs *x, const VDev *vd)
{
	if (vd)
		return vd->dev;
	Device *d = module_default_device(x->m);
	return d ? d->name : NULL;
}

const char *
mbuf_pinned_pool(Sym scope)
{
	return scope && !strncmp(scope, "global-", 7) && scope[7] ? scope + 7 : NULL;
}

/* b's device, scope and kind, from its placement vd (NULL: open). */
static void
buf_place(MBufs *x, MBuf *b, const VDev *vd)
{
	b->dev = dev_of(x, vd);
	b->scope = vd ? vd->scope : NULL;
	b->dev_open = !vd || !vd->dev;
	b->scope_open = !b->scope;
	b->kind = b->base_kind;
	b->pinned = mbuf_pinned_pool(b->scope) != NULL;
	if (is_texture_scope(b->scope)) {
		char why[160];
		if (texture_image(b->type, b->scope, b->wh, why, sizeof why))
			b->kind = MB_IMAGE;
	}
}

static uint32_t
new_buf(MBufs *x, const void *node, uint32_t field, const char *name, Loc loc, const Type *t,
        const VDev *vd, uint8_t kind)
{
	MBuf b = {0};
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
on_device_bufs(MBufs *x, const Value *v)
{
	const VDev *t = v->u.target;
	Names *nm = names_of(x, v);
	if (!(v->flags & VF_BODY) || !t || !nm)
		return;
	for (uint32_t i = 0; i < nm->n; i++) {
		MBuf *b = &x->b[x->ids[nm->first + i]];
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
own_bufs(MBufs *x, const Value *v, uint8_t kind)
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
use(MBufs *x, const Value *v)
{
	Names *nm = v ? names_of(x, v) : NULL;
	if (!nm)
		return;
	for (uint32_t i = 0; i < nm->n; i++) {
		MBuf *b = &x->b[x->ids[nm->first + i]];
		if (b->end < x->tick)
			b->end = x->tick;
	}
}

/* A value that names other values' buffers. */
static void
alias(MBufs *x, const Value *v, const Value *const *from, uint32_t n, int64_t proj)
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
returned_params(MBufs *x, const Func *f)
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
prim_allocs(MBufs *x, const Prim *p, Map *seen)
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
			bool global = !sc || !strcmp(sc, "global") || mbuf_pinned_pool(sc);
			bool image = s->u.alloc.image[0] != 0;
			/* a zeroed buffer keeps its contents from call to call:
			 * the runtime holds it alone (ir(5)) */
			if ((!global && !image) || attr_true(&v->annots, ANNOT_ZEROED))
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
			uint32_t b = new_buf(x, v, 0, v->name, v->loc, v->type, v->vd, MB_WORK);
			if (image) {
				x->b[b].kind = MB_IMAGE;
				x->b[b].wh[0] = s->u.alloc.image[0];
				x->b[b].wh[1] = s->u.alloc.image[1];
			} else if (x->b[b].kind == MB_IMAGE) {
				x->b[b].kind = MB_WORK;
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

bool
mbuf_extract(MBufs *x, Module *m, bool io)
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
			own_bufs(x, f->params[i], MB_WORK);
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
			own_bufs(x, v, MB_WORK);
			break;
		case B_OP:
			if (buffer_view(v))         /* its operand's buffer */
				alias(x, v, (const Value *const *)v->args, 1, -1);
			else
				own_bufs(x, v, MB_WORK);
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
			own_bufs(x, v, MB_WORK);
			prim_allocs(x, v->u.prim, &seen);
			break;
		case B_CONST:
			own_bufs(x, v, MB_CONST);
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
		if (x->b[i].kind == MB_CONST) {
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

void
mbuf_free(MBufs *x)
{
	free(x->b);
	free(x->ids);
	map_free(&x->names);
	map_free(&x->rets);
}

/* ------------------------------------------------------------ pools */

int64_t
mbuf_pool_align(const Pool *pl)
{
	const Attr *a = attr_get(&pl->attrs, "alignment");
	return a && a->kind == AT_INT && a->u.i > 0 ? a->u.i : 16;
}

bool
mbuf_pool_reaches(const Pool *pl, Sym dev)
{
	const Attr *a = attr_get(&pl->attrs, "devices");
	if (!a || a->kind != AT_LIST || !dev)
		return true;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->u.list[i].kind == AT_SYM && a->u.list[i].u.sym == dev)
			return true;
	return false;
}

void
mbuf_note_via(Module *m, const MBuf *b)
{
	if (b->via)
		note_at(m->ctx, b->via->loc, "'%%%s' puts '%%%s' on '@%s%s%s' here", b->via->name, b->name,
		        b->dev, b->scope ? ":" : "", b->scope ? b->scope : "");
}

static int
cmp_start(const void *a, const void *b, const MBuf *bs)
{
	const MBuf *x = &bs[*(const uint32_t *)a], *y = &bs[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static const MBuf *cmp_bufs;
static int
cmp_start_q(const void *a, const void *b)
{
	return cmp_start(a, b, cmp_bufs);
}

void
mbuf_sort_by_start(const MBufs *x, uint32_t *ord, size_t n)
{
	cmp_bufs = x->b;
	if (n)
		qsort(ord, n, sizeof *ord, cmp_start_q);
}
