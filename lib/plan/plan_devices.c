/* plan_devices.c: device and memory-scope planning (TVM's PlanDevices).
 *
 * Every value gets a domain: a union-find node holding a partial virtual
 * device (a device, a scope, either may be open).  Constraints are applied
 * in the order DESIGN.md fixes, so the result does not depend on anything
 * but the program text:
 *   1. hard constraints: written `on`, on_device bodies and results,
 *      device_copy ends, a function returning a normal on_device;
 *   2. structure: a call's result is the callee's result;
 *   3. edges, program order: if conditions and yields, tuple fields,
 *      projections, returns, then operator operands and call arguments.
 *      An edge joins two domains when they are compatible; when not, the
 *      use will get a device_copy;
 *   4. free on_device: result and body join when compatible;
 *   5. defaults: function results to the default device, parameters to
 *      their function's result device, anything else to the default.
 * Scopes are never defaulted: a scope nobody chose stays open, so a later
 * run (after ir-lower) can still adopt the scopes kernels ask for.
 *
 * Then the module is rewritten: on_device disappears (or becomes the copy
 * it implies, keeping its name), same-placement device_copies disappear,
 * and each use whose placement differs from its value's reads a copy, one
 * per value and destination, in the innermost block holding its uses.
 *
 * Walks over blocks use explicit stacks; union-find is iterative.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/copy_cut.h"
#include "diag.h"
#include "ir.h"
#include "map.h"
#include "nameset.h"
#include "plan/plan_devices.h"
#include "walk.h"

/* The planner's own Value flags (see VF_PASS_A); settle and rewrite clear
 * them, or the value leaves the function. */
enum {
	VF_USED = VF_PASS_A,        /* a binding something reads; after the
	                             * rewrite walk: one with copies after it */
	VF_REMOVED = VF_PASS_B,     /* a binding to be unlinked */
	VF_NEWCOPY = VF_PASS_C,     /* a copy made here */
	VF_RESULT_COPY = VF_PASS_D, /* a call_lowered whose result is copied */
};

typedef struct {
	uint32_t parent, size;
	Sym dev, scope;
	uint32_t dev_at, scope_at; /* where the hard constraint came from:
	                         * an index in Planner's at (0: nowhere) */
	const VDev *vd;          /* of a root, once settled (dom_vdev) */
} Dom;

typedef struct {
	Module *m;
	Ctx *ctx;
	bool ok;
	Dom *d;
	uint32_t n, cap;
	/* the places of hard constraints, kept apart from the domains (one
	 * per constraint, where domains are one per value) */
	Loc *at;
	uint32_t nat, capat;
	Sym default_dev;
	/* The few bindings later phases look at, in program order and module
	 * order, gathered by phase 1 so those phases need not walk everything
	 * again: calls (phase 2), ifs/tuples/projections (phase 3's
	 * structural edges), free on_devices (phase 4). */
	PtrVec calls, structural, frees;
	/* statistics */
	uint64_t placed, copies_dev, copies_scope, bytes;
	/* devices in declaration order (a device's label is its index), and
	 * bytes copied per (source, destination) label pair */
	Sym *devs;
	uint32_t ndev;
	uint64_t *pair;
} Planner;

/* ---------------------------------------------------------- union-find */

static uint32_t
dom_new(Planner *P)
{
	VEC_RESERVE(P->d, P->n, P->cap);
	Dom *d = &P->d[P->n];
	memset(d, 0, sizeof *d);
	d->parent = P->n;
	d->size = 1;
	return P->n++;
}

static uint32_t
find(Planner *P, uint32_t x)
{
	uint32_t r = x;
	while (P->d[r].parent != r)
		r = P->d[r].parent;
	while (P->d[x].parent != r) {
		uint32_t next = P->d[x].parent;
		P->d[x].parent = r;
		x = next;
	}
	return r;
}

static bool
compatible(const Dom *a, const Dom *b)
{
	return (!a->dev || !b->dev || a->dev == b->dev) &&
	       (!a->scope || !b->scope || a->scope == b->scope);
}

static void
vdev_name(const Dom *d, char *buf, size_t n)
{
	snprintf(buf, n, "@%s%s%s", d->dev ? d->dev : "?", d->scope ? ":" : "", d->scope ? d->scope : "");
}

/* Says why two domains cannot be one: the two constraints that clash. */
static void
report_clash(Planner *P, const Dom *a, const Dom *b, Loc at, const char *what)
{
	bool dev = a->dev && b->dev && a->dev != b->dev;
	uint32_t ka = dev ? a->dev_at : a->scope_at, kb = dev ? b->dev_at : b->scope_at;
	Loc la = ka ? P->at[ka] : (Loc){0}, lb = kb ? P->at[kb] : (Loc){0};
	char x[160], y[160];
	vdev_name(a, x, sizeof x);
	vdev_name(b, y, sizeof y);
	P->ok = false;
	error_at(P->ctx, at, "%s: %s and %s", what, x, y);
	if (la.line)
		note_at(P->ctx, la, "%s is required here", x);
	if (lb.line)
		note_at(P->ctx, lb, "%s is required here", y);
}

/* Joins when compatible; false (and nothing changed) when not. */
static bool
join(Planner *P, uint32_t a, uint32_t b)
{
	a = find(P, a);
	b = find(P, b);
	if (a == b)
		return true;
	if (!compatible(&P->d[a], &P->d[b]))
		return false;
	if (P->d[a].size < P->d[b].size) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	Dom *ra = &P->d[a], *rb = &P->d[b];
	rb->parent = a;
	ra->size += rb->size;
	if (!ra->dev) {
		ra->dev = rb->dev;
		ra->dev_at = rb->dev_at;
	}
	if (!ra->scope) {
		ra->scope = rb->scope;
		ra->scope_at = rb->scope_at;
	}
	return true;
}

static void
must_join(Planner *P, uint32_t a, uint32_t b, Loc at, const char *what)
{
	if (!join(P, a, b))
		report_clash(P, &P->d[find(P, a)], &P->d[find(P, b)], at, what);
}

/* A hard constraint: domain x (of the value named what) must be on vd;
 * clashes are errors naming both constraints. */
static void
constrain(Planner *P, uint32_t x, const VDev *vd, Loc at, const char *what)
{
	uint32_t c = dom_new(P);
	P->d[c].dev = vd->dev;
	P->d[c].scope = vd->scope;
	if (!P->nat) /* index 0: no place */
		VEC_PUSH(P->at, P->nat, P->capat) = (Loc){0};
	VEC_PUSH(P->at, P->nat, P->capat) = at;
	P->d[c].dev_at = P->d[c].scope_at = P->nat - 1;
	char msg[300];
	snprintf(msg, sizeof msg, "conflicting placements for %s", what);
	must_join(P, x, c, at, msg);
}

static const char *
value_what(const Value *v, char *buf, size_t n)
{
	snprintf(buf, n, "'%%%s'", v->name);
	return buf;
}

/* ------------------------------------------------------------ domains */

static uint32_t
vdom(const Value *v)
{
	return (uint32_t)(v->scratch - 1);
}

/* Creates v's domain, turning a placement it already has into a hard
 * constraint (written `on`, or the output of an earlier run). */
static void
init_value(Planner *P, Value *v, Loc at)
{
	const VDev *vd = v->vd;
	char buf[300];
	v->scratch = (uintptr_t)dom_new(P) + 1;
	if (vd)
		constrain(P, vdom(v), vd, at, value_what(v, buf, sizeof buf));
}

static bool
is_normal_on_device(const Value *v)
{
	return v && v->kind == VK_BIND && v->form == B_ON_DEVICE && (v->flags & VF_BODY) &&
	       !(v->flags & VF_RESULT);
}

/* A device's label: its index in declaration order; -1 if undeclared. */
static int32_t
dev_label(const Planner *P, Sym dev)
{
	for (uint32_t i = 0; i < P->ndev; i++)
		if (P->devs[i] == dev)
			return (int32_t)i;
	return -1;
}

/* ------------------------------------------------------------- phases */

static void
init_globals(Planner *P)
{
	char buf[300];
	for (Func *f = P->m->funcs; f; f = f->next) {
		f->scratch = dom_new(P);
		snprintf(buf, sizeof buf, "the result of '@%s'", f->name);
		if (f->ret_vd)
			constrain(P, (uint32_t)f->scratch, f->ret_vd, f->loc, buf);
		for (uint32_t i = 0; i < f->nparams; i++)
			init_value(P, f->params[i], f->params[i]->loc);
	}
	for (Prim *p = P->m->prims; p; p = p->next)
		for (uint32_t i = 0; i < p->nparams; i++) {
			PVar *pv = p->params[i];
			pv->scratch = dom_new(P);
			snprintf(buf, sizeof buf, "'%%%s' of '@%s'", pv->name, p->name);
			if (pv->vd)
				constrain(P, (uint32_t)pv->scratch, pv->vd, pv->loc, buf);
		}
}

/* Phase 1: every binding's domain and the hard constraints. */
static void
phase_hard(Planner *P, Func *f)
{
	FuncWalk w;
	Block *blk;
	char ba[300], bv[300];
	/* Operands are defined before their uses: their domains exist. */
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		init_value(P, v, v->loc);
		Value *a = v->nargs ? v->args[0] : NULL;
		if (v->form == B_ON_DEVICE) {
			if ((v->flags & VF_BODY) && a->kind != VK_LIT)
				constrain(P, vdom(a), v->u.target, v->loc, value_what(a, ba, sizeof ba));
			if (v->flags & VF_RESULT)
				constrain(P, vdom(v), v->u.target, v->loc, value_what(v, bv, sizeof bv));
		} else if (v->form == B_DEVICE_COPY) {
			if (a->kind != VK_LIT)
				constrain(P, vdom(a), v->u.copy->src, v->loc, value_what(a, ba, sizeof ba));
			constrain(P, vdom(v), v->u.copy->dst, v->loc, value_what(v, bv, sizeof bv));
		}
		if (v->form == B_CALL || v->form == B_CALL_LOWERED)
			ptrvec_push(&P->calls, v);
		else if (v->form == B_IF || v->form == B_TUPLE || v->form == B_PROJ)
			ptrvec_push(&P->structural, v);
		else if (v->form == B_ON_DEVICE && !(v->flags & (VF_BODY | VF_RESULT)))
			ptrvec_push(&P->frees, v);
	}
	/* TVM's rule for an annotated body: the function's result is there.
	 * (A NULL in the structural list stands for this function's return.) */
	ptrvec_push(&P->structural, NULL);
	Value *r = f->body.yield;
	if (is_normal_on_device(r)) {
		snprintf(ba, sizeof ba, "the result of '@%s'", f->name);
		constrain(P, (uint32_t)f->scratch, r->u.target, f->body.yloc, ba);
	}
}

/* Phase 2: a call's result is its callee's result. */
static void
phase_structure(Planner *P)
{
	for (size_t k = 0; k < P->calls.n && P->ok; k++) {
		Value *v = P->calls.v[k];
		if (v->form == B_CALL) {
			must_join(P, vdom(v), (uint32_t)v->u.callee->scratch, v->loc,
			          "the call's placement differs from the callee's result");
		} else {
			/* A call_lowered's result is a copy point: where the binding
			 * is placed apart from the prim's result buffers, the kernel
			 * writes into the buffers' placement and a copy follows.  A
			 * tuple of results is one value with one placement (TVM's
			 * tuples are homogeneous too), so its buffers must agree and
			 * it is copied as one. */
			Prim *p = v->u.prim;
			uint32_t res = (uint32_t)p->params[v->nargs]->scratch;
			for (uint32_t i = v->nargs + 1; i < p->nparams && P->ok; i++) {
				char what[300];
				snprintf(what, sizeof what, "the results of '@%s' are placed apart", p->name);
				must_join(P, res, (uint32_t)p->params[i]->scratch, v->loc, what);
			}
			/* (a call without arguments has no room for the copy's operand) */
			if (v->nargs > 0) {
				if (!join(P, vdom(v), res))
					v->flags |= VF_RESULT_COPY;
			} else {
				must_join(P, vdom(v), res, v->loc,
				          "the call's placement differs from the prim's result buffer");
			}
		}
	}
}

/* The domain a use of operand i of v expects, or UINT32_MAX for none. */
static uint32_t
use_dom(const Value *v, uint32_t i)
{
	switch (v->form) {
	case B_OP: case B_TUPLE: case B_PROJ: return vdom(v);
	case B_IF: return vdom(v);                 /* the condition */
	case B_CALL: return vdom(v->u.callee->params[i]);
	case B_CALL_LOWERED: return (uint32_t)v->u.prim->params[i]->scratch;
	default: return UINT32_MAX;                /* on_device, device_copy: own rules */
	}
}

static void
edge(Planner *P, Value *val, uint32_t use)
{
	if (val && val->kind != VK_LIT && use != UINT32_MAX)
		join(P, vdom(val), use); /* when not compatible: a copy, later */
}

/* The phase-0 rule of TVM: a projection of a normal on_device of a tuple
 * is taken before the annotation, so only the field used is copied. */
static void
project_before_annotation(Value *v)
{
	Value *t = v->args[0];
	if (is_normal_on_device(t) && t->args[0]->kind != VK_LIT && t->args[0]->type->kind == TY_TUPLE)
		v->args[0] = t->args[0];
}

/* Phase 3: structural edges first (ifs, tuples, projections, returns),
 * then operands and arguments, each in program order. */
static void
phase_structural_edges(Planner *P)
{
	Func *f = P->m->funcs;
	for (size_t k = 0; k < P->structural.n; k++) {
		Value *v = P->structural.v[k];
		if (!v) { /* the end of f's bindings: its return */
			edge(P, f->body.yield, (uint32_t)f->scratch);
			f = f->next;
			continue;
		}
		if (v->form == B_PROJ)
			project_before_annotation(v);
		if (v->form == B_IF) {
			edge(P, v->args[0], vdom(v));
			edge(P, v->u.arms[0].yield, vdom(v));
			edge(P, v->u.arms[1].yield, vdom(v));
		} else {
			for (uint32_t i = 0; i < v->nargs; i++)
				edge(P, v->args[i], vdom(v));
		}
	}
}

static void
phase_operand_edges(Planner *P, Func *f)
{
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		if (v->form == B_OP || v->form == B_CALL || v->form == B_CALL_LOWERED)
			for (uint32_t i = 0; i < v->nargs; i++)
				edge(P, v->args[i], use_dom(v, i));
}

/* Phase 4: a free on_device joins its body when it can. */
static void
phase_free(Planner *P)
{
	for (size_t k = 0; k < P->frees.n; k++) {
		Value *v = P->frees.v[k];
		edge(P, v->args[0], vdom(v));
	}
}

static void
default_dev(Planner *P, uint32_t x, Sym dev)
{
	Dom *r = &P->d[find(P, x)];
	if (!r->dev)
		r->dev = dev;
}

/* Phase 5: the device, never the scope, of what is still open. */
static void
phase_defaults(Planner *P)
{
	for (Func *f = P->m->funcs; f; f = f->next) {
		default_dev(P, (uint32_t)f->scratch, P->default_dev);
		Sym rdev = P->d[find(P, (uint32_t)f->scratch)].dev;
		for (uint32_t i = 0; i < f->nparams; i++)
			default_dev(P, vdom(f->params[i]), rdev);
	}
	for (uint32_t i = 0; i < P->n; i++)
		default_dev(P, i, P->default_dev);
}

/* ------------------------------------------------------------ rewrite */

static const VDev *
dom_vdev(Planner *P, uint32_t x)
{
	Dom *r = &P->d[find(P, x)];
	if (!r->vd) /* domains no longer change: one lookup per root */
		r->vd = vdev_get(P->m, r->dev, r->scope);
	return r->vd;
}

/* Copies are made while the rewrite walks a function and placed after it
 * (DESIGN.md): at most one per value and destination, in the innermost
 * block that holds every use asking for it.  A use or an annotation that
 * asks for one is a request; the copy goes
 *   - where the first request was, when that was an annotation and the
 *     other requests are in its block (the copy takes its place, name and
 *     all: a program planned once keeps its copies where they are);
 *   - right after the value, when that block is the value's own;
 *   - else first in that block (an if arm, or the body for a parameter).
 * An annotation that asks for a copy already asked for reads it; the copy
 * takes the name of the first annotation that asked.
 *
 * The innermost block holding all requests so far is found as Tarjan's
 * offline LCA: blocks are numbered as the walk opens them, a block that
 * closes is linked to its parent, so the root of the link chain from the
 * last answer is the innermost still open block holding it, and so holds
 * the current request too.  Near-linear, no recursion. */
typedef struct {
	const void *key;      /* a value; for dst NULL a block */
	const VDev *dst;      /* NULL: the record of block key */
	Value *copy;          /* (val, dst): the copy */
	Value *annot;         /* (val, dst): the annotation that asked first, if one did */
	uint32_t lca, ablk;   /* (val, dst): the requests' block, the annotation's */
	uint32_t head, tail;  /* (block, NULL): records of copies placed first in
	                       * the block, chained by next (1-based) */
	uint32_t next;
} CopyRec;

typedef struct {
	Planner *P;
	Func *f;
	CopyRec *rec;         /* records in creation order */
	uint32_t nrec, caprec;
	Map map;              /* record index + 1 as a pointer (rec moves) */
	/* blocks: id -> Block, id -> parent once closed (itself while open),
	 * and the open ones, innermost last */
	PtrVec blocks;
	uint32_t *up, *open;
	uint32_t nopen, capb;
	NameSet names;        /* of the function, so new names are unique */
	bool have_names;
} Rewriter;

/* Whether s contains "_to_" or "_in_". */
static bool
has_copy_infix(const char *s)
{
	for (; (s = strchr(s, '_')); s++)
		if ((s[1] == 't' && s[2] == 'o' && s[3] == '_') || (s[1] == 'i' && s[2] == 'n' && s[3] == '_'))
			return true;
	return false;
}

/* A copy's name contains "_to_" (a call whose result is copied, "_in_"),
 * so only names that do can clash with one: all the set needs to hold. */
static void
collect_names(Rewriter *rw)
{
	FuncWalk w;
	Block *blk;
	for (uint32_t i = 0; i < rw->f->nparams; i++)
		if (has_copy_infix(rw->f->params[i]->name))
			nameset_add(&rw->names, rw->f->params[i]->name);
	fwalk_start(&w, rw->f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		if (!(v->flags & VF_NEWCOPY) && has_copy_infix(v->name))
			nameset_add(&rw->names, v->name);
	rw->have_names = true;
}

static void
append_clean(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);
	for (; *s && len + 1 < n; s++)
		buf[len++] = (char)((*s == ':' || *s == '-' || *s == '.') ? '_' : *s);
	buf[len] = 0;
}

/* %x copied to @gpu is %x_to_gpu; to another scope, %x_to_texture; to
 * both, %x_to_gpu_texture (a scope's ':' '-' '.' become '_'). */
static const char *
derived_name(Rewriter *rw, const Value *val, const char *infix, const VDev *src, const VDev *dst)
{
	char buf[512];
	size_t n = strlen(val->name);
	n = n < sizeof buf - 8 ? n : sizeof buf - 8;
	memcpy(buf, val->name, n);
	memcpy(buf + n, infix, 5); /* "_to_" or "_in_" and the NUL */
	bool dev = src->dev != dst->dev;
	bool scope = dst->scope && src->scope != dst->scope;
	if (dev)
		append_clean(buf, sizeof buf, dst->dev);
	if (dev && scope)
		append_clean(buf, sizeof buf, "_");
	if (scope || !dev)
		append_clean(buf, sizeof buf, dst->scope ? dst->scope : "open");
	if (!rw->have_names)
		collect_names(rw);
	/* One probe of the set per name: the name is made first (a clash,
	 * rare, wastes a few bytes of the module's arena). */
	const char *s = module_name(rw->P->m, buf, strlen(buf));
	for (int k = 2; !nameset_add(&rw->names, s); k++) {
		char cand[540];
		int n = snprintf(cand, sizeof cand, "%s_%d", buf, k);
		s = module_name(rw->P->m, cand, (size_t)n);
	}
	return s;
}

static void
count_copy(Planner *P, const Value *c)
{
	if (c->u.copy->src->dev != c->u.copy->dst->dev)
		P->copies_dev++;
	else
		P->copies_scope++;
	P->bytes += (uint64_t)type_bytes(c->type);
	int32_t a = dev_label(P, c->u.copy->src->dev), b = dev_label(P, c->u.copy->dst->dev);
	if (a >= 0 && b >= 0)
		P->pair[(uint32_t)a * P->ndev + (uint32_t)b] += (uint64_t)type_bytes(c->type);
}

static uint32_t
rec_hash(const void *key, const VDev *dst)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)dst * 0xc2b2ae3d27d4eb4fu;
	return (uint32_t)(h >> 17);
}

/* The record of (key, dst), made when make is set; 0 when there is none,
 * else its index + 1.  Pointers into rw->rec go stale when one is made. */
static uint32_t
rec_find(Rewriter *rw, const void *key, const VDev *dst, bool make)
{
	uint32_t h = rec_hash(key, dst);
	MapProbe it;
	for (void *e = map_first(&rw->map, h, &it); e; e = map_next(&it)) {
		uint32_t k = (uint32_t)(uintptr_t)e;
		CopyRec *r = &rw->rec[k - 1];
		if (r->key == key && r->dst == dst)
			return k;
	}
	if (!make)
		return 0;
	CopyRec *r = &VEC_PUSH(rw->rec, rw->nrec, rw->caprec);
	memset(r, 0, sizeof *r);
	r->key = key;
	r->dst = dst;
	map_add(&rw->map, h, (void *)(uintptr_t)rw->nrec);
	return rw->nrec;
}

/* Appends record r (1-based) to the chain of (key, NULL). */
static void
chain_push(Rewriter *rw, const void *key, uint32_t r)
{
	uint32_t k = rec_find(rw, key, NULL, true);
	CopyRec *kr = &rw->rec[k - 1];
	if (kr->tail)
		rw->rec[kr->tail - 1].next = r;
	else
		kr->head = r;
	kr->tail = r;
}

/* ---- blocks */

static uint32_t
block_open(Rewriter *rw, Block *b)
{
	uint32_t id = (uint32_t)rw->blocks.n;
	ptrvec_push(&rw->blocks, b);
	if (id >= rw->capb) {
		rw->capb = rw->capb ? 2 * rw->capb : 64;
		rw->up = xrealloc(rw->up, rw->capb * sizeof *rw->up);
		rw->open = xrealloc(rw->open, rw->capb * sizeof *rw->open);
	}
	rw->up[id] = id;
	rw->open[rw->nopen++] = id;
	return id;
}

static void
block_close(Rewriter *rw)
{
	uint32_t id = rw->open[--rw->nopen];
	rw->up[id] = rw->open[rw->nopen - 1];
}

static uint32_t
block_cur(const Rewriter *rw)
{
	return rw->open[rw->nopen - 1];
}

/* The innermost open block holding block b (path halving). */
static uint32_t
block_find(Rewriter *rw, uint32_t b)
{
	while (rw->up[b] != b) {
		rw->up[b] = rw->up[rw->up[b]];
		b = rw->up[b];
	}
	return b;
}

/* ---- requests */

/* The copy of val to dst that a use (annot NULL) or an annotation in the
 * current block asks for. */
static Value *
request(Rewriter *rw, Value *val, const VDev *dst, Value *annot, Loc at)
{
	uint32_t cur = block_cur(rw);
	uint32_t k = rec_find(rw, val, dst, true);
	CopyRec *r = &rw->rec[k - 1];
	Value *c = r->copy;
	if (!c) {
		Planner *P = rw->P;
		c = value_new(P->m, VK_BIND, 1);
		c->args[0] = val;
		c->type = val->type;
		c->vd = dst;
		value_set_copy(P->m, c, val->vd, dst);
		c->loc = at;
		c->flags = VF_NEWCOPY;
		count_copy(P, c);
		r->copy = c;
		r->annot = annot;
		r->lca = r->ablk = cur;
	} else {
		r->lca = block_find(rw, r->lca);
	}
	if (annot && !c->name) {
		c->name = annot->name;
		c->loc = annot->loc;
		c->flags |= (uint16_t)(annot->flags & VF_LOC);
	}
	return c;
}

/* Removed on_devices and device_copies stand for their operand. */
static Value *
resolve(Value *v)
{
	while (v && v->kind == VK_BIND && (v->flags & VF_REMOVED))
		v = v->args[0];
	return v;
}

static Value *
use(Rewriter *rw, Value *val, const VDev *want, Loc at)
{
	val = resolve(val);
	if (!val || val->kind == VK_LIT || val->vd == want)
		return val;
	return request(rw, val, want, NULL, at);
}

static void
mark_used(Value *v)
{
	if (v && v->kind == VK_BIND)
		v->flags |= VF_USED;
}

/* Sets every value's final placement (the domain is no longer needed),
 * and marks the values something reads (rewrite drops an on_device that
 * nothing reads). */
static void
settle(Planner *P, Func *f)
{
	FuncWalk w;
	Block *blk;
	for (uint32_t i = 0; i < f->nparams; i++)
		f->params[i]->vd = dom_vdev(P, vdom(f->params[i]));
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		v->vd = dom_vdev(P, vdom(v));
		for (uint32_t i = 0; i < v->nargs; i++)
			mark_used(v->args[i]);
		if (v->form == B_IF) {
			mark_used(v->u.arms[0].yield);
			mark_used(v->u.arms[1].yield);
		}
		P->placed++;
	}
	mark_used(f->body.yield);
	f->ret_vd = dom_vdev(P, (uint32_t)f->scratch);
	P->placed += f->nparams + 1;
}

static const VDev *
use_vdev(const Value *v, uint32_t i)
{
	switch (v->form) {
	case B_CALL: return v->u.callee->params[i]->vd;
	case B_CALL_LOWERED: return v->u.prim->params[i]->vd;
	default: return v->vd;
	}
}

/* v = call_lowered @k(...) placed apart from @k's result buffers: the
 * call moves to a new binding %v_in_<scope> placed as the buffers, and v
 * becomes the copy from it (a tuple's fields copied as one), keeping v's
 * name and placement.  The new binding goes in front of v when blocks are
 * relinked (its args[0]). */
static void
copy_result(Rewriter *rw, Value *v)
{
	Planner *P = rw->P;
	Prim *p = v->u.prim;
	Value *c = value_new(P->m, VK_BIND, v->nargs);
	c->form = B_CALL_LOWERED;
	c->u.prim = p;
	memcpy(c->args, v->args, v->nargs * sizeof *v->args);
	c->type = v->type;
	c->loc = v->loc;
	c->vd = dom_vdev(P, (uint32_t)p->params[v->nargs]->scratch);
	c->flags = VF_NEWCOPY;
	c->name = derived_name(rw, v, "_in_", v->vd, c->vd);
	v->nargs = 1;
	v->args[0] = c;
	value_set_copy(P->m, v, c->vd, v->vd);
	count_copy(P, v);
}

/* The walk: operands read copies where their placement differs, annotations
 * become requests or go, block numbering for the placement of copies. */
static void
rewrite_walk(Rewriter *rw)
{
	Func *f = rw->f;
	FuncWalk w;
	WalkStep ws;
	block_open(rw, &f->body);
	fwalk_start(&w, f);
	while (fwalk_next(&w, &ws)) {
		if (ws.blk != rw->blocks.v[block_cur(rw)])
			block_open(rw, ws.blk); /* an arm begins (or an empty one ends) */
		/* A block's yield is rewritten where the block ends, once the
		 * bindings it may name have been (an on_device it yields may
		 * have gone). */
		if (ws.ev != W_BIND) {
			const VDev *want = ws.ev == W_BODY_END ? f->ret_vd : ws.v->vd;
			ws.blk->yield = use(rw, ws.blk->yield, want, ws.blk->yloc);
			if (ws.ev == W_ARM_END)
				block_close(rw);
			continue;
		}
		Value *v = ws.v;
		/* An on_device nobody reads (a projection was moved before it,
		 * or it was written for its constraint alone) has done its work:
		 * it is dropped, not turned into a copy to nowhere. */
		bool used = v->flags & VF_USED;
		v->flags &= (uint16_t)~VF_USED;
		if (v->form == B_ON_DEVICE && !used)
			v->flags |= VF_REMOVED;
		if (v->flags & VF_REMOVED)
			continue;
		if (v->form == B_ON_DEVICE || v->form == B_DEVICE_COPY) {
			/* It goes: uses read its operand, or the copy it asks for. */
			Value *a = resolve(v->args[0]);
			v->flags |= VF_REMOVED;
			v->args[0] = a->kind == VK_LIT || a->vd == v->vd ? a : request(rw, a, v->vd, v, v->loc);
			continue;
		}
		for (uint32_t i = 0; i < v->nargs; i++)
			v->args[i] = use(rw, v->args[i], use_vdev(v, i), v->loc);
		if (v->flags & VF_RESULT_COPY)
			copy_result(rw, v);
	}
}

/* After the walk: names for copies no annotation named, and where each goes.
 * A copy that takes its annotation's place marks it VF_NEWCOPY; one placed
 * first in a block is chained on the block; one placed after its value (a
 * binding) is chained on the value, which is marked VF_USED (the walk has
 * cleared it).  A hash lookup per copy and value was a good share of the
 * planner's time on large DAGs, so a value's chain is a ring of records
 * whose last is parked in the value's scratch until the value is relinked
 * (scratch is a field of its own: parking leaves vd alone). */
static void
plan_places(Rewriter *rw)
{
	for (uint32_t k = 0; k < rw->nrec; k++) {
		CopyRec *r = &rw->rec[k];
		if (!r->dst)
			continue;
		Value *c = r->copy, *val = c->args[0];
		if (!c->name)
			c->name = derived_name(rw, val, "_to_", c->u.copy->src, r->dst);
		if (r->annot && r->lca == r->ablk) {
			r->annot->flags |= VF_NEWCOPY;
		} else if (val->kind == VK_PARAM) {
			chain_push(rw, rw->blocks.v[r->lca], k + 1);
		} else if (!(val->flags & VF_USED)) {
			val->flags |= VF_USED;
			r->next = k + 1;
			val->scratch = k + 1;
		} else {
			CopyRec *last = &rw->rec[val->scratch - 1];
			r->next = last->next;
			last->next = k + 1;
			val->scratch = k + 1;
		}
	}
}

/* Relinking a block: drops removed bindings, puts copies in, keeps last. */
typedef struct {
	Rewriter *rw;
	Block *b;
	Value *prev;
	PtrVec queue;         /* linked values whose copies may follow them */
	size_t qhead;
} Relink;

static void
link_value(Relink *rl, Value *v)
{
	v->flags &= (uint16_t)~VF_NEWCOPY;
	if (rl->prev)
		rl->prev->next = v;
	else
		rl->b->first = v;
	rl->prev = v;
	if (v->flags & VF_USED)
		ptrvec_push(&rl->queue, v);
}

/* The copies of the values just linked that stay in this block follow
 * them (a copy of a copy after its copy); the others wait for their
 * block, which is inside this one and relinked later. */
static void
link_copies(Relink *rl)
{
	Rewriter *rw = rl->rw;
	while (rl->qhead < rl->queue.n) {
		Value *x = rl->queue.v[rl->qhead++];
		x->flags &= (uint16_t)~VF_USED;
		uint32_t last = (uint32_t)x->scratch, r = rw->rec[last - 1].next, next;
		/* Its copies' source is its placement; restated, not restored:
		 * parking in scratch no longer overwrites vd. */
		x->vd = rw->rec[r - 1].copy->u.copy->src;
		for (bool more = true; more; r = next) {
			Block *to = rw->blocks.v[rw->rec[r - 1].lca];
			more = r != last;
			next = rw->rec[r - 1].next;
			rw->rec[r - 1].next = 0;
			if (to == rl->b)
				link_value(rl, rw->rec[r - 1].copy);
			else
				chain_push(rw, to, r);
		}
	}
	rl->queue.n = rl->qhead = 0;
}

static void
relink(Rewriter *rw)
{
	Relink rl = {.rw = rw};
	PtrVec st = {0};
	ptrvec_push(&st, &rw->f->body);
	while (st.n) {
		Block *b = st.v[--st.n];
		Value *v = b->first;
		rl.b = b;
		rl.prev = NULL;
		uint32_t k = rec_find(rw, b, NULL, false);
		for (uint32_t r = k ? rw->rec[k - 1].head : 0; r; r = rw->rec[r - 1].next) {
			link_value(&rl, rw->rec[r - 1].copy);
			link_copies(&rl);
		}
		for (Value *next; v; v = next) {
			next = v->next;
			if (v->flags & VF_RESULT_COPY) { /* its call goes first */
				v->flags &= (uint16_t)~VF_RESULT_COPY;
				link_value(&rl, v->args[0]);
			}
			if (v->flags & VF_REMOVED) {
				if (v->flags & VF_NEWCOPY) { /* its copy takes its place */
					v->flags &= (uint16_t)~VF_NEWCOPY;
					link_value(&rl, v->args[0]);
					link_copies(&rl);
				}
				continue;
			}
			link_value(&rl, v);
			link_copies(&rl);
			if (v->form == B_IF) {
				ptrvec_push(&st, &v->u.arms[1]);
				ptrvec_push(&st, &v->u.arms[0]);
			}
		}
		if (rl.prev)
			rl.prev->next = NULL;
		else
			b->first = NULL;
		b->last = rl.prev;
	}
	ptrvec_free(&st);
	ptrvec_free(&rl.queue);
}

static void
rewrite(Planner *P, Func *f)
{
	Rewriter rw = {.P = P, .f = f};
	rewrite_walk(&rw);
	plan_places(&rw);
	relink(&rw);
	free(rw.rec);
	map_free(&rw.map);
	free(rw.up);
	free(rw.open);
	ptrvec_free(&rw.blocks);
	nameset_free(&rw.names);
}

/* Open scopes of prim parameters are filled from their callers. */
static void
settle_prims(Planner *P)
{
	for (Prim *p = P->m->prims; p; p = p->next)
		for (uint32_t i = 0; i < p->nparams; i++) {
			PVar *pv = p->params[i];
			if (pv->kind == PV_BUFFER)
				pv->vd = dom_vdev(P, (uint32_t)pv->scratch);
		}
}

/* ------------------------------------------------- fewest bytes copied */

/* --minimize-copies.  Phases 1 and 2 and the structural edges leave the
 * domains the program's constraints make; the operand edges and free
 * on_devices (phases 3b and 4) only choose, in program order, between
 * placements the constraints allow, and phase 5 sends what is still open
 * to the default device.  Those choices are what this replaces: each
 * domain some constraint fixed is a terminal (its device is its label),
 * each other domain a free node, and each value read in a domain other
 * than its own a group of copy_cut.h (its bytes, its readers' domains).
 * The unification plan is made first, as without the option, and is the
 * start the solver improves on; where it copies strictly fewer bytes, the
 * domains of the components it moved get their devices and phases 3b to
 * 5 run again from the saved domains, so scopes still flow by the same
 * rules.  Last, the copies both plans make are counted the way the
 * rewrite makes them (once per value and destination, through removed
 * annotations); the new plan stands only if it copies fewer bytes. */

typedef struct {
	uint32_t val;  /* the value's domain (vdom) */
	uint32_t use;  /* the reader's domain (a root) */
	uint32_t od;   /* vdom of the on_device read through, or UINT32_MAX */
} UseRec;

typedef struct {
	Planner *P;
	UseRec *u;
	size_t n, cap;
	uint8_t *used; /* per domain: a value something reads */
	uint64_t *w;   /* per domain of a value in u: its bytes */
} Uses;

static void
mark_read(Uses *U, const Value *v)
{
	if (v && v->kind != VK_LIT)
		U->used[vdom(v)] = 1;
}

static void
add_use(Uses *U, Value *val, uint32_t use, uint32_t od)
{
	Planner *P = U->P;
	if (!val || val->kind == VK_LIT || use == UINT32_MAX)
		return;
	mark_read(U, val);
	uint32_t a = find(P, vdom(val)), b = find(P, use);
	/* same domain: never a copy; incompatible ones: always one */
	if (a == b || !compatible(&P->d[a], &P->d[b]))
		return;
	UseRec *r = &VEC_PUSH(U->u, U->n, U->cap);
	r->val = vdom(val), r->use = b, r->od = od;
	U->w[vdom(val)] = (uint64_t)type_bytes(val->type);
}

static void
gather_uses(Uses *U, Func *f)
{
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		if (v->form == B_ON_DEVICE || v->form == B_DEVICE_COPY) {
			add_use(U, v->args[0], vdom(v), v->form == B_ON_DEVICE ? vdom(v) : UINT32_MAX);
			mark_read(U, v->args[0]);
			continue;
		}
		for (uint32_t i = 0; i < v->nargs; i++) {
			add_use(U, v->args[i], use_dom(v, i), UINT32_MAX);
			mark_read(U, v->args[i]);
		}
		if (v->form == B_IF)
			for (int k = 0; k < 2; k++) {
				add_use(U, v->u.arms[k].yield, vdom(v), UINT32_MAX);
				mark_read(U, v->u.arms[k].yield);
			}
	}
	add_use(U, f->body.yield, (uint32_t)f->scratch, UINT32_MAX);
	mark_read(U, f->body.yield);
}

/* The groups of copy_cut.h, by value in domain order; an on_device nobody
 * reads is dropped by the rewrite, so its operand's use is no copy. */
typedef struct {
	CopyGraph g;
	int32_t *fixed;
	uint32_t *org, *gstart, *mem;
	uint64_t *w;
	uint8_t *used;  /* per domain: a value something reads */
} Groups;

/* The uses are bucketed by value (a counting sort, stable: a value's
 * readers in program order), and each value's distinct readers are its
 * group; records of 12 bytes and one array of readers, compacted in
 * place, keep what is written (and first touched) small. */
static void
build_groups(Planner *P, Groups *G)
{
	Uses U = {.P = P, .used = xcalloc(P->n, 1), .w = xmalloc(P->n * sizeof *U.w)};
	for (Func *f = P->m->funcs; f; f = f->next)
		gather_uses(&U, f);
	uint32_t *cnt = xcalloc(P->n + 1, sizeof *cnt);
	size_t kept = 0;
	for (size_t i = 0; i < U.n; i++)
		if (U.u[i].od == UINT32_MAX || U.used[U.u[i].od])
			cnt[U.u[i].val + 1]++, kept++;
	for (uint32_t i = 0; i < P->n; i++)
		cnt[i + 1] += cnt[i];
	G->mem = xmalloc((kept + 1) * sizeof *G->mem);
	for (size_t i = 0; i < U.n; i++)
		if (U.u[i].od == UINT32_MAX || U.used[U.u[i].od])
			G->mem[cnt[U.u[i].val]++] = U.u[i].use;
	free(U.u);
	G->fixed = xmalloc(P->n * sizeof *G->fixed);
	for (uint32_t i = 0; i < P->n; i++)
		G->fixed[i] = P->d[i].parent == i && P->d[i].dev ? dev_label(P, P->d[i].dev) : -1;
	uint32_t ng = 0;
	for (uint32_t i = 0; i < P->n; i++)
		ng += cnt[i + 1] > cnt[i];
	G->org = xmalloc((ng + 1) * sizeof *G->org);
	G->w = xmalloc((ng + 1) * sizeof *G->w);
	G->gstart = xmalloc((ng + 2) * sizeof *G->gstart);
	/* cnt[i] is now where value i's readers end (and i + 1's begin);
	 * a domain's readers once: stamp = group + 1, in what cnt no longer
	 * needs (the readers of values before i) */
	uint32_t *stamp = xcalloc(P->n, sizeof *stamp), nm = 0, k = 0;
	ng = 0;
	for (uint32_t i = 0; i < P->n; i++) {
		uint32_t end = cnt[i];
		if (k == end)
			continue;
		G->org[ng] = find(P, i);
		G->w[ng] = U.w[i];
		G->gstart[ng] = nm;
		for (; k < end; k++)
			if (stamp[G->mem[k]] != ng + 1) {
				stamp[G->mem[k]] = ng + 1;
				G->mem[nm++] = G->mem[k];
			}
		ng++;
	}
	G->gstart[ng] = nm;
	G->g = (CopyGraph){.n = P->n, .nlabels = P->ndev, .fixed = G->fixed, .ng = ng, .org = G->org,
	                   .w = G->w, .gstart = G->gstart, .mem = G->mem};
	G->used = U.used;
	free(stamp);
	free(cnt);
	free(U.w);
}

static void
free_groups(Groups *G)
{
	free(G->fixed), free(G->org), free(G->w), free(G->gstart), free(G->mem), free(G->used);
}

/* ---- counting a plan's copies without making them (rewrite's rules) */

typedef struct {
	uintptr_t key;       /* what is copied: a Value, or (copy << 1) | 1 */
	const VDev *dst;
	uint64_t bytes;
} SimCopy;

typedef struct {
	Planner *P;
	SimCopy *c;
	uint32_t nc, cap;
	Map map;
	uintptr_t *stand;    /* per on_device / device_copy domain: what it reads */
	const uint8_t *used;
	uint64_t *pair, total;
} Sim;

static const VDev *
sim_vdev(Sim *S, uintptr_t key)
{
	if (key & 1)
		return S->c[key >> 1].dst;
	return dom_vdev(S->P, vdom((const Value *)key));
}

static uintptr_t
sim_resolve(Sim *S, Value *v)
{
	if (v->kind == VK_BIND && (v->form == B_ON_DEVICE || v->form == B_DEVICE_COPY))
		return S->stand[vdom(v)];
	return (uintptr_t)v;
}

static void
sim_count(Sim *S, const VDev *src, const VDev *dst, uint64_t bytes)
{
	int32_t a = dev_label(S->P, src->dev), b = dev_label(S->P, dst->dev);
	if (a >= 0 && b >= 0)
		S->pair[(uint32_t)a * S->P->ndev + (uint32_t)b] += bytes;
	S->total += bytes;
}

/* What a read of key on dst reads: key, or its copy there (made once). */
static uintptr_t
sim_use(Sim *S, uintptr_t key, const VDev *dst)
{
	if (!(key & 1) && ((const Value *)key)->kind == VK_LIT)
		return key;
	const VDev *src = sim_vdev(S, key);
	if (src == dst)
		return key;
	uint32_t h = rec_hash((const void *)key, dst);
	MapProbe it;
	for (void *e = map_first(&S->map, h, &it); e; e = map_next(&it)) {
		uint32_t k = (uint32_t)(uintptr_t)e - 1;
		if (S->c[k].key == key && S->c[k].dst == dst)
			return ((uintptr_t)k << 1) | 1;
	}
	uint64_t bytes = key & 1 ? S->c[key >> 1].bytes : (uint64_t)type_bytes(((const Value *)key)->type);
	SimCopy *c = &VEC_PUSH(S->c, S->nc, S->cap);
	c->key = key, c->dst = dst, c->bytes = bytes;
	map_add(&S->map, h, (void *)(uintptr_t)S->nc);
	sim_count(S, src, dst, bytes);
	return ((uintptr_t)(S->nc - 1) << 1) | 1;
}

static const VDev *
sim_use_vdev(Planner *P, const Value *v, uint32_t i)
{
	switch (v->form) {
	case B_CALL: return dom_vdev(P, vdom(v->u.callee->params[i]));
	case B_CALL_LOWERED: return dom_vdev(P, (uint32_t)v->u.prim->params[i]->scratch);
	default: return dom_vdev(P, vdom(v));
	}
}

static void
sim_func(Sim *S, Func *f)
{
	Planner *P = S->P;
	FuncWalk w;
	WalkStep ws;
	fwalk_start(&w, f);
	while (fwalk_next(&w, &ws)) {
		if (ws.ev != W_BIND) {
			const VDev *want = ws.ev == W_BODY_END ? dom_vdev(P, (uint32_t)f->scratch) : dom_vdev(P, vdom(ws.v));
			if (ws.blk->yield)
				sim_use(S, sim_resolve(S, ws.blk->yield), want);
			continue;
		}
		Value *v = ws.v;
		if (v->form == B_ON_DEVICE || v->form == B_DEVICE_COPY) {
			uintptr_t a = sim_resolve(S, v->args[0]);
			bool dropped = v->form == B_ON_DEVICE && !S->used[vdom(v)];
			S->stand[vdom(v)] = dropped ? a : sim_use(S, a, dom_vdev(P, vdom(v)));
			continue;
		}
		for (uint32_t i = 0; i < v->nargs; i++)
			sim_use(S, sim_resolve(S, v->args[i]), sim_use_vdev(P, v, i));
		if (v->form == B_CALL_LOWERED && (v->flags & VF_RESULT_COPY))
			sim_count(S, dom_vdev(P, (uint32_t)v->u.prim->params[v->nargs]->scratch),
			          dom_vdev(P, vdom(v)), (uint64_t)type_bytes(v->type));
	}
}

/* The bytes the rewrite would copy with the domains as they are, per
 * label pair into pair (ndev * ndev, added to). */
static uint64_t
sim_plan(Planner *P, const uint8_t *used, uint64_t *pair)
{
	Sim S = {.P = P, .used = used, .pair = pair};
	S.stand = xcalloc(P->n, sizeof *S.stand);
	for (Func *f = P->m->funcs; f; f = f->next)
		sim_func(&S, f);
	free(S.stand);
	free(S.c);
	map_free(&S.map);
	return S.total;
}

/* The domains as the structural phases left them. */
typedef struct {
	uint32_t parent, size;
	Sym dev, scope;
} DomCore;

static void
save_doms(Planner *P, DomCore *s)
{
	for (uint32_t i = 0; i < P->n; i++)
		s[i] = (DomCore){P->d[i].parent, P->d[i].size, P->d[i].dev, P->d[i].scope};
}

static void
restore_doms(Planner *P, const DomCore *s)
{
	for (uint32_t i = 0; i < P->n; i++) {
		Dom *d = &P->d[i];
		d->parent = s[i].parent, d->size = s[i].size, d->dev = s[i].dev, d->scope = s[i].scope;
		d->vd = NULL;
	}
}

static void
phases_choose(Planner *P)
{
	for (Func *f = P->m->funcs; f; f = f->next)
		phase_operand_edges(P, f);
	phase_free(P);
	phase_defaults(P);
}

typedef struct {
	bool tried, moved;
	uint64_t before, after;  /* exact bytes of both plans, when tried */
	uint64_t *pair_before;   /* ndev * ndev */
	CopyCutStats cut;
} MinResult;

/* Phases 3b to 5, minimizing the bytes copied (see above). */
static void
phases_minimize(Planner *P, MinResult *R)
{
	Groups G;
	build_groups(P, &G);
	DomCore *saved = xmalloc(P->n * sizeof *saved);
	save_doms(P, saved);
	phases_choose(P);
	int32_t *start = xmalloc(P->n * sizeof *start), *out = xmalloc(P->n * sizeof *out);
	for (uint32_t i = 0; i < P->n; i++)
		start[i] = dev_label(P, P->d[find(P, i)].dev);
	int32_t def = dev_label(P, P->default_dev);
	copy_cut_solve(&G.g, start, def, out, &R->cut);
	R->tried = true;
	if (R->cut.improved) {
		const uint8_t *used = G.used;
		R->before = sim_plan(P, used, R->pair_before);
		restore_doms(P, saved);
		for (uint32_t i = 0; i < P->n; i++)
			if (out[i] >= 0 && G.fixed[i] < 0)
				P->d[i].dev = P->devs[out[i]];
		phases_choose(P);
		uint64_t *scratch = xcalloc((size_t)P->ndev * P->ndev, sizeof *scratch);
		R->after = sim_plan(P, used, scratch);
		free(scratch);
		R->moved = R->after < R->before;
		if (!R->moved) { /* the model and the rewrite disagree: keep unification */
			restore_doms(P, saved);
			phases_choose(P);
		}
	}
	free(start);
	free(out);
	free(saved);
	free_groups(&G);
}

static void
print_pairs(const Planner *P, FILE *out, const char *prefix, const uint64_t *pair)
{
	for (uint32_t a = 0; a < P->ndev; a++)
		for (uint32_t b = 0; b < P->ndev; b++)
			if (pair[a * P->ndev + b])
				fprintf(out, "%sbytes copied @%s -> @%s: %llu\n", prefix, P->devs[a], P->devs[b],
				        (unsigned long long)pair[a * P->ndev + b]);
}

/* The unification plan's copies beside the plan made ("before" and
 * "after"), and what the solver did. */
static void
print_minimize(const Planner *P, FILE *out, const MinResult *R)
{
	if (R->moved) {
		fprintf(out, "unification plan: bytes copied: %llu\n", (unsigned long long)R->before);
		print_pairs(P, out, "unification plan: ", R->pair_before);
	} else {
		/* the plan made is the unification plan */
		fprintf(out, "unification plan: bytes copied: %llu\n", (unsigned long long)P->bytes);
		print_pairs(P, out, "unification plan: ", P->pair);
	}
	fprintf(out, "free components between devices: %u, moved: %u, solved exactly: %u\n",
	        R->cut.components, R->moved ? R->cut.improved : 0, R->cut.exact);
}

bool
plan_devices(Module *m, const PlanOpts *opts)
{
	if (!module_check_unplanned(m, "ir-plan-devices"))
		return false;
	Planner P = {.m = m, .ctx = m->ctx, .ok = true};
	Device *def = module_default_device(m);
	if (opts && opts->default_dev) {
		def = module_device(m, sym_intern_cstr(m, opts->default_dev));
		if (!def) {
			error_at(m->ctx, (Loc){0}, "--default names '@%s', which is not a declared device",
			         opts->default_dev);
			return false;
		}
	}
	if (m->funcs && !def) {
		error_at(m->ctx, m->funcs->loc, "no device is declared, so '@%s' cannot be placed",
		         m->funcs->name);
		return false;
	}
	P.default_dev = def ? def->name : NULL;
	for (Device *d = m->devices; d; d = d->next)
		P.ndev++;
	P.devs = xmalloc((P.ndev ? P.ndev : 1) * sizeof *P.devs);
	P.ndev = 0;
	for (Device *d = m->devices; d; d = d->next)
		P.devs[P.ndev++] = d->name;
	P.pair = xcalloc((size_t)P.ndev * P.ndev + 1, sizeof *P.pair);
	MinResult R = {.pair_before = xcalloc((size_t)P.ndev * P.ndev + 1, sizeof *R.pair_before)};

	init_globals(&P);
	for (Func *f = m->funcs; f; f = f->next)
		phase_hard(&P, f);
	if (P.ok)
		phase_structure(&P);
	if (P.ok) {
		phase_structural_edges(&P);
		if (opts && opts->minimize_copies && P.ndev > 1)
			phases_minimize(&P, &R);
		else
			phases_choose(&P);
		settle_prims(&P);
		for (Func *f = m->funcs; f; f = f->next)
			settle(&P, f);
		for (Func *f = m->funcs; f; f = f->next)
			rewrite(&P, f);
	}
	if (P.ok && opts && opts->stats) {
		fprintf(opts->stats, "placements: %llu\n", (unsigned long long)P.placed);
		fprintf(opts->stats, "copies between devices: %llu\n", (unsigned long long)P.copies_dev);
		fprintf(opts->stats, "copies between scopes: %llu\n", (unsigned long long)P.copies_scope);
		fprintf(opts->stats, "bytes copied: %llu\n", (unsigned long long)P.bytes);
		print_pairs(&P, opts->stats, "", P.pair);
		if (opts->minimize_copies)
			print_minimize(&P, opts->stats, &R);
	}
	free(P.devs);
	free(P.pair);
	free(R.pair_before);
	free(P.d);
	free(P.at);
	ptrvec_free(&P.calls);
	ptrvec_free(&P.structural);
	ptrvec_free(&P.frees);
	return P.ok;
}
