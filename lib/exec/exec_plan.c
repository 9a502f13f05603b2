/* exec_plan.c: deciding the plan of @main (exec.h): one walk over its
 * body, in order, every call inlined (a frame of values per call) and
 * both arms of every if in turn, that keeps for every tensor value where
 * it is held (its
 * forms on devices, as the runtime's rt_value.c does during a run) and
 * appends the steps that make those forms.  A value is held on a device
 * in the form its user wants: a prim parameter's (an image for a texture
 * scope, else a buffer) or a device_copy's; a form made once is taken by
 * every later user, a new one is copied from a form on the same device
 * if there is one, else from the host (an input, a constant), else from
 * another device through host memory.  Values never change, so a
 * device_copy to a form the value already has on that device shares it.
 * A constant that no prim stores into is put on its devices once, by
 * steps run while the plan is made ("once" steps), not by every run.
 *
 * An if is a branch step that reads its condition (a read step before it
 * brings it to the host), the then arm's steps, a jump over the else
 * arm, and the else arm's; each arm ends by copying its yield into the
 * if's own objects, on the if's device in its scope's form.  The forms a
 * value gets inside an arm are forgotten when the arm ends (the other arm
 * may run instead), so the undo log records each form added.  Lifetimes
 * are intervals of the step list, which covers both arms: conservative,
 * since only one arm runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_impl.h"
#include "ocl/ocl.h"
#include "ops/ops.h"
#include "texture/texture.h"
#include "walk.h"

/* The value indices a Value stands for in one frame (a call's
 * activation; @main's is 0): one for a tensor, its tensors in order for a
 * tuple. */
typedef struct {
	const Value *v;
	uint32_t frame;
	uint32_t first, n;        /* in Exec.slots */
} XRef;

static uint32_t
ref_hash(const Value *v, uint32_t frame)
{
	return map_mix(map_hash_ptr(v), frame);
}

static XRef *
ref_of(const Exec *x, const Value *v, uint32_t frame)
{
	MapProbe it;
	for (XRef *r = map_first(&x->refs, ref_hash(v, frame), &it); r; r = map_next(&it))
		if (r->v == v && r->frame == frame)
			return r;
	return NULL;
}

static void
ref_set(Exec *x, const Value *v, uint32_t frame, uint32_t first, uint32_t n)
{
	XRef *r = xcalloc(1, sizeof *r);
	*r = (XRef){v, frame, first, n};
	map_add(&x->refs, ref_hash(v, frame), r);
}

static uint32_t
new_val(Exec *x, const Type *ty, const char *name, Loc loc)
{
	XVal *d = &VEC_PUSH(x->vals, x->nvals, x->capvals);
	memset(d, 0, sizeof *d);
	d->ty = ty;
	d->name = name ? name : "literal";
	d->loc = loc;
	d->bytes = (uint64_t)type_numel(ty) * elem_size((ElemKind)ty->dt.kind);
	return (uint32_t)(x->nvals - 1);
}

static void
push_slot(Exec *x, uint32_t val)
{
	VEC_PUSH(x->slots, x->nslots, x->capslots) = val;
}

/* Whether a memory plan gives node n places; the one for tensor i of n. */
static const Place *
place_of(const Exec *x, const void *node, uint32_t i, uint32_t n)
{
	const PlaceList *l = x->m->places ? module_places(x->m, node) : NULL;
	return l && l->n == n && i < n ? &l->p[i] : NULL;
}

/* ------------------------------------------------------------ steps */

static XStep *
new_step(Exec *x, XStepKind kind, RtDev *rd, bool once)
{
	XStep *s = &VEC_PUSH(x->steps, x->nsteps, x->capsteps);
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->dev = rd;
	s->once = once;
	return s;
}

/* Object o is used by the step being added (its lifetime grows). */
static void
use(Exec *x, uint32_t o)
{
	XObj *ob = &x->objs[o];
	uint32_t s = (uint32_t)x->nsteps - 1;
	if (ob->first == UINT32_MAX || s < ob->first)
		ob->first = s;
	if (ob->last == UINT32_MAX || s > ob->last)
		ob->last = s;
}

/* A new object on rd for value d (NULL: a workspace) at place pl: in
 * the plan's memory when the place applies there (made now), else fixed
 * for a kept constant, else one with a lifetime. */
static bool
new_obj(Exec *x, RtDev *rd, const XVal *d, const Place *pl, const char *name, Loc loc,
        const Type *ty, Sym scope, const int64_t *img, uint32_t *out)
{
	XObj *ob = &VEC_PUSH(x->objs, x->nobjs, x->capobjs);
	memset(ob, 0, sizeof *ob);
	ob->dev = rd;
	ob->name = name;
	ob->loc = loc;
	ob->ty = ty;
	ob->scope = scope;
	if (img) {
		ob->img[0] = img[0];
		ob->img[1] = img[1];
	}
	ob->bytes = (uint64_t)type_numel(ty) * elem_size((ElemKind)ty->dt.kind);
	ob->first = ob->last = UINT32_MAX;
	*out = (uint32_t)(x->nobjs - 1);
	bool planned = false;
	if (!rt_plan_obj(x->rt, rd, pl, name, loc, ty, scope, img, &ob->o, &planned))
		return false;
	ob->fixed = planned || (d && d->keep);
	ob->konst = d && d->konst;
	if (!planned && scope && is_texture_scope(scope)) {
		/* its image size, checked against the device now */
		int64_t wh[2];
		if (!rt_image_wh(x->rt, rd, name, loc, ty, scope, img, wh))
			return false;
		ob->o.image = true;
		ob->o.wh[0] = (size_t)wh[0];
		ob->o.wh[1] = (size_t)wh[1];
	}
	return true;
}

/* A zeroed workspace (ir(5)): its own object, kept for every run and
 * filled with zeros once, as the plan is made; the prim leaves it so. */
static bool
zeroed_obj(Exec *x, RtDev *rd, const PVar *b, uint32_t o)
{
	Tensor *z = tensor_like_type(b->type);
	if (!z) {
		error_at(x->m->ctx, b->loc, "cannot hold the zeroed buffer '%%%s'", b->name);
		return false;
	}
	ptrvec_push(&x->owned, z);
	XObj *ob = &x->objs[o];
	ob->fixed = true;
	XStep *s = new_step(x, XS_WRITE, rd, true);
	s->host = z;
	s->b = o;
	s->bytes = ob->bytes;
	return true;
}

/* Value di is held in object o on rd from here on (logged: an if's arm
 * forgets it at its end). */
static void
add_res(Exec *x, uint32_t di, RtDev *rd, uint32_t o)
{
	XVal *d = &x->vals[di];
	VEC_PUSH(d->res, d->nres, d->capres) = (XRes){rd, o};
	VEC_PUSH(x->undo, x->nundo, x->capundo) = di;
}

/* Forgets the forms added since the undo log had mark entries. */
static void
undo_to(Exec *x, size_t mark)
{
	while (x->nundo > mark)
		x->vals[x->undo[--x->nundo]].nres--;
}

/* Fills object o of rd with value d's data, from where d is: once, as
 * the plan is made, when o is a kept constant's own. */
static void
fill(Exec *x, uint32_t di, RtDev *rd, uint32_t o)
{
	XVal *d = &x->vals[di];
	bool once = d->keep && x->objs[o].konst && x->objs[o].fixed;
	for (uint32_t i = 0; i < d->nres; i++)
		if (d->res[i].dev == rd) {
			XStep *s = new_step(x, XS_COPY, rd, once);
			s->konst = d->konst;
			s->a = d->res[i].obj;
			s->b = o;
			s->bytes = d->bytes;
			use(x, s->a);
			use(x, s->b);
			return;
		}
	if (d->host) {
		XStep *s = new_step(x, XS_WRITE, rd, once);
		s->konst = d->konst;
		s->host = d->host;
		s->b = o;
		s->bytes = d->bytes;
		use(x, o);
		return;
	}
	/* another device's: of rd's platform, a copy command between the two
	 * (one context: rt_device.c); else through host memory (exec_make
	 * stages it) */
	XStep *s = new_step(x, XS_XCOPY, d->res[0].dev, false);
	s->dev2 = rd;
	s->a = d->res[0].obj;
	s->b = o;
	s->bytes = d->bytes;
	s->via_host = d->res[0].dev->ctx != rd->ctx;
	use(x, s->a);
	use(x, s->b);
}

/* Value d on rd in the form of scope (an image for a texture scope, else
 * a buffer): the object made already, else a new one filled. */
static bool
val_on(Exec *x, uint32_t di, RtDev *rd, const char *name, Loc loc, const Type *ty, Sym scope,
       uint32_t *out)
{
	bool img = scope && is_texture_scope(scope);
	int64_t wh[2] = {0, 0};
	char why[160];
	if (img && !texture_image(ty, scope, wh, why, sizeof why))
		wh[0] = wh[1] = 0;        /* new_obj says why */
	XVal *d = &x->vals[di];
	for (uint32_t i = 0; i < d->nres; i++) {
		const Obj *o = &x->objs[d->res[i].obj].o;
		/* an image of another width will not do: its rows split the
		 * elements elsewhere */
		if (d->res[i].dev == rd && o->image == img &&
		    (!img || ((int64_t)o->wh[0] == wh[0] && (int64_t)o->wh[1] == wh[1]))) {
			*out = d->res[i].obj;
			return true;
		}
	}
	if (!new_obj(x, rd, d, d->place, name, loc, ty, scope, NULL, out))
		return false;
	fill(x, di, rd, *out);
	add_res(x, di, rd, *out);
	return true;
}

/* ------------------------------------------------------------ values */

/* The value indices of operand a (a literal gets a value of its own). */
static bool
operand(Exec *x, const InterpOpts *io, const Value *a, uint32_t frame, uint32_t *first,
        uint32_t *n)
{
	if (a->kind == VK_LIT) {
		uint32_t d = new_val(x, a->type, NULL, a->loc);
		if (!(x->vals[d].host = interp_const_tensor(x->in, io, a)))
			return false;
		x->vals[d].keep = x->vals[d].konst = true;
		*first = (uint32_t)x->nslots;
		*n = 1;
		push_slot(x, d);
		return true;
	}
	const XRef *r = ref_of(x, a, frame);
	if (!r) {
		error_at(x->m->ctx, a->loc, "internal error: the executor has no value for '%%%s'",
		         a->name);
		return false;
	}
	*first = r->first;
	*n = r->n;
	return true;
}

/* The number of tensors in a value of type ty (tuples flattened; types
 * nest at most as deep as the parser allows). */
static uint32_t
ntensors(const Type *ty)
{
	if (ty->kind == TY_TENSOR)
		return 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ty->n; i++)
		n += ntensors(ty->fields[i]);
	return n;
}

/* The tensor types of ty in order, into out (ntensors of them). */
static void
tensor_types(const Type *ty, const Type **out, uint32_t *k)
{
	if (ty->kind == TY_TENSOR) {
		out[(*k)++] = ty;
		return;
	}
	for (uint32_t i = 0; i < ty->n; i++)
		tensor_types(ty->fields[i], out, k);
}

/* The constants some prim stores into (kept for no run), found once. */
static void
find_written(Exec *x)
{
	for (const Func *f = x->m->funcs; f; f = f->next) {
		FuncWalk w;
		Block *blk;
		fwalk_start(&w, f);
		for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
			if (v->form != B_CALL_LOWERED)
				continue;
			for (uint32_t i = 0; i < v->nargs && i < v->u.prim->nparams; i++) {
				const Value *a = v->args[i];
				if (a->kind == VK_BIND && a->form == B_CONST &&
				    rt_prim_writes(x->rt, v->u.prim->params[i]))
					map_add(&x->written, map_hash_ptr(a), (void *)a);
			}
		}
	}
}

static bool
const_written(const Exec *x, const Value *c)
{
	MapProbe it;
	for (const Value *e = map_first(&x->written, map_hash_ptr(c), &it); e; e = map_next(&it))
		if (e == c)
			return true;
	return false;
}

static bool
plan_call(Exec *x, const InterpOpts *io, const Value *v, uint32_t frame)
{
	Ctx *ctx = x->m->ctx;
	const Prim *p = v->u.prim;
	RtDev *rd = rt_dev_of(x->rt, ocl_prim_device(x->m, p));
	if (!rd) {
		error_at(ctx, v->loc, "@%s has no OpenCL program for its device: run "
		         "ir-codegen-ocl (or use --interp)", p->name);
		return false;
	}
	/* the operands' values, then the results' */
	uint32_t *vals = xcalloc(p->nparams + 1, sizeof *vals);
	uint32_t nin = 0;
	bool ok = true;
	for (uint32_t i = 0; i < v->nargs && ok; i++) {
		uint32_t first, n;
		ok = operand(x, io, v->args[i], frame, &first, &n);
		for (uint32_t j = 0; ok && j < n; j++) {
			if (nin < p->nparams)
				vals[nin] = x->slots[first + j];
			nin++;
		}
	}
	uint32_t nout = ntensors(v->type);
	if (ok && nin + nout != p->nparams) {
		error_at(ctx, v->loc, "call_lowered @%s passes %u buffers; the prim takes %u", p->name,
		         (unsigned)(nin + nout), (unsigned)p->nparams);
		ok = false;
	}
	if (!ok) {
		free(vals);
		return false;
	}
	const Type **tys = xcalloc(nout + 1, sizeof *tys);
	uint32_t k = 0;
	tensor_types(v->type, tys, &k);
	uint32_t first_out = (uint32_t)x->nslots;
	for (uint32_t i = 0; i < nout; i++) {
		uint32_t d = new_val(x, tys[i], v->name, v->loc);
		x->vals[d].place = frame ? NULL : place_of(x, v, i, nout);
		vals[nin + i] = d;
		push_slot(x, d);
	}
	free(tys);
	/* every parameter's argument: an object on rd, or a scalar */
	uint32_t nalloc = 0;
	for (const PStmt *s = p->body.first; s; s = s->next)
		nalloc += s->kind == S_ALLOC;
	const PVar **vars = xcalloc(p->nparams + nalloc + 1, sizeof *vars);
	XArg *args = xcalloc(p->nparams + nalloc + 1, sizeof *args);
	uint32_t nv = 0;
	for (uint32_t i = 0; i < p->nparams && ok; i++) {
		const PVar *pv = p->params[i];
		XVal *d = &x->vals[vals[i]];
		vars[nv] = pv;
		if (pv->kind == PV_SCALAR) {
			args[nv++] = (XArg){UINT32_MAX, d->host};
			continue;
		}
		Sym scope = pv->vd ? pv->vd->scope : NULL;
		uint32_t o;
		if (i < nin) {
			ok = val_on(x, vals[i], rd, pv->name, pv->loc, pv->type, scope, &o);
		} else {
			ok = new_obj(x, rd, d, d->place, pv->name, pv->loc, pv->type, scope, NULL, &o);
			if (ok)
				add_res(x, vals[i], rd, o);
		}
		args[nv++] = (XArg){o, NULL};
	}
	/* workspaces: live for the call, where a memory plan puts them */
	for (const PStmt *s = p->body.first; s && ok; s = s->next) {
		if (s->kind != S_ALLOC)
			continue;
		const PVar *b = s->u.alloc.buf;
		const PlaceList *pl = x->m->places ? module_places(x->m, b) : NULL;
		uint32_t o;
		ok = new_obj(x, rd, NULL, pl && pl->n == 1 ? &pl->p[0] : NULL, b->name, b->loc, b->type,
		             b->vd ? b->vd->scope : NULL, s->u.alloc.image, &o);
		if (ok && attr_true(&b->annots, ANNOT_ZEROED))
			ok = zeroed_obj(x, rd, b, o);
		vars[nv] = b;
		args[nv++] = (XArg){o, NULL};
	}
	for (const PStmt *s = p->body.first; s && ok; s = s->next) {
		if (s->kind != S_KERNEL)
			continue;
		const Launch *l = s->u.kernel.launch;
		XStep *st = new_step(x, XS_LAUNCH, rd, false);
		st->k = s;
		st->call = v;
		st->nargs = l->nargs;
		st->args = xcalloc(l->nargs + 1, sizeof *st->args);
		for (uint32_t a = 0; a < l->nargs && ok; a++) {
			uint32_t j = 0;
			while (j < nv && vars[j] != l->args[a])
				j++;
			if (j == nv) {
				error_at(ctx, l->loc, "internal error: kernel @%s takes '%%%s', which is not "
				         "a parameter or an alloc of @%s", s->u.kernel.name, l->args[a]->name,
				         p->name);
				ok = false;
				break;
			}
			st->args[a] = args[j];
			if (args[j].obj != UINT32_MAX)
				use(x, args[j].obj);
		}
	}
	free(vars);
	free(args);
	free(vals);
	if (ok)
		ref_set(x, v, frame, first_out, nout);
	return ok;
}

static bool
plan_copy(Exec *x, const InterpOpts *io, const Value *v, uint32_t frame)
{
	uint32_t first, n;
	if (!operand(x, io, v->args[0], frame, &first, &n))
		return false;
	if (v->type->kind != TY_TENSOR) {
		/* a tuple's copy is the tuple (the interpreter's rule) */
		ref_set(x, v, frame, first, n);
		return true;
	}
	const VDev *to = v->u.copy->dst;
	RtDev *rd = rt_dev_of(x->rt, module_device(x->m, to->dev));
	uint32_t si = x->slots[first];
	int64_t wh[2];
	Sym scope = rt_copy_scope(v, wh);
	bool img = scope != NULL;
	uint32_t o;
	/* a constant goes to the device once, in the copy's form */
	if (x->vals[si].keep && !val_on(x, si, rd, v->name, v->loc, v->type, scope, &o))
		return false;
	uint32_t di = new_val(x, v->type, v->name, v->loc);
	x->vals[di].place = frame ? NULL : place_of(x, v, 0, 1);
	ref_set(x, v, frame, (uint32_t)x->nslots, 1);
	push_slot(x, di);
	XVal *s = &x->vals[si];
	for (uint32_t i = 0; i < s->nres && !x->vals[di].place; i++) {
		const Obj *so = &x->objs[s->res[i].obj].o;
		if (s->res[i].dev == rd && so->image == img && !so->planned &&
		    (!img || ((int64_t)so->wh[0] == wh[0] && (int64_t)so->wh[1] == wh[1]))) {
			/* the same device and form: values never change, so share it
			 * (not when the plan gives the copy a place, nor when it gave
			 * the source one: the source's memory may be reused while the
			 * copy lives) */
			add_res(x, di, rd, s->res[i].obj);
			return true;
		}
	}
	if (!new_obj(x, rd, NULL, x->vals[di].place, v->name, v->loc, v->type, scope, NULL, &o))
		return false;
	fill(x, si, rd, o);
	add_res(x, di, rd, o);
	return true;
}

/* The result: a host tensor per tensor of @main's result, read from where
 * its value is; the RtVal tree as the interpreter gives it.  Tuples nest
 * only as deep as their types, which the parser caps. */
static RtVal *
plan_result(Exec *x, const Type *ty, uint32_t *slot)
{
	RtVal *r = xcalloc(1, sizeof *r);
	ptrvec_push(&x->rtvals, r);
	r->type = ty;
	if (ty->kind == TY_TUPLE) {
		r->n = ty->n;
		r->fields = xcalloc(ty->n + 1, sizeof *r->fields);
		for (uint32_t i = 0; i < ty->n; i++)
			r->fields[i] = plan_result(x, ty->fields[i], slot);
		return r;
	}
	XVal *d = &x->vals[x->slots[(*slot)++]];
	r->t = tensor_like_type(ty);
	ptrvec_push(&x->owned, r->t);
	if (d->nres) {
		XStep *s = new_step(x, XS_READ, d->res[0].dev, false);
		s->a = d->res[0].obj;
		s->host = r->t;
		s->bytes = d->bytes;
		use(x, s->a);
	} else {
		XStep *s = new_step(x, XS_HOST, NULL, false);
		s->host = d->host;
		s->host2 = r->t;
		s->bytes = d->bytes;
	}
	return r;
}

/* ------------------------------------------------------------ the walk */

/* Where the walk is: a block of a frame, and for an if's arm what to do
 * at its end. */
typedef struct {
	const Value *next;        /* the next binding to plan */
	const Block *blk;
	uint32_t frame;
	const Value *ifv;         /* the if whose arm blk is; NULL: a function's body */
	int arm;
	uint32_t jump;            /* the arm's branch (then) or jump (else) step, to aim */
	size_t undo;              /* the undo log at the arm's start */
	uint32_t result;          /* the if's values (Exec.slots) */
	const Value *call;        /* a body: the call that gets its result; NULL: @main's */
	uint32_t caller;          /* the call's frame */
} XCursor;

/* An if's own values and objects, on its device in its scope's form
 * (an image for a texture scope where the value can be one). */
static bool
if_result(Exec *x, const Value *v, uint32_t frame)
{
	RtDev *rd = rt_dev_of(x->rt, module_device(x->m, v->vd->dev));
	uint32_t nout = ntensors(v->type);
	const Type **tys = xcalloc(nout + 1, sizeof *tys);
	uint32_t k = 0;
	tensor_types(v->type, tys, &k);
	uint32_t first = (uint32_t)x->nslots;
	bool ok = true;
	for (uint32_t i = 0; i < nout && ok; i++) {
		int64_t wh[2];
		Sym scope = rt_form_scope(tys[i], v->vd->scope, wh);
		uint32_t d = new_val(x, tys[i], v->name, v->loc), o;
		push_slot(x, d);
		if ((ok = new_obj(x, rd, NULL, NULL, v->name, v->loc, tys[i], scope, NULL, &o)))
			VEC_PUSH(x->vals[d].res, x->vals[d].nres, x->vals[d].capres) = (XRes){rd, o};
	}
	free(tys);
	if (ok)
		ref_set(x, v, frame, first, nout);
	return ok;
}

/* The end of an if's arm: its yield copied into the if's objects. */
static bool
arm_yield(Exec *x, const InterpOpts *io, const XCursor *c)
{
	uint32_t first, n;
	if (!operand(x, io, c->blk->yield, c->frame, &first, &n))
		return false;
	const XRef *r = ref_of(x, c->ifv, c->frame);
	for (uint32_t i = 0; i < n && i < r->n; i++) {
		const XVal *d = &x->vals[x->slots[r->first + i]];
		fill(x, x->slots[first + i], d->res[0].dev, d->res[0].obj);
	}
	return true;
}

/* An if: its condition to the host, the branch, the then arm pushed. */
static bool
plan_if(Exec *x, const InterpOpts *io, const Value *v, uint32_t frame, XCursor *push)
{
	uint32_t first, n;
	if (!operand(x, io, v->args[0], frame, &first, &n) || !if_result(x, v, frame))
		return false;
	XVal *c = &x->vals[x->slots[first]];
	XStep *s;
	Tensor *cond = c->host;
	RtDev *wait = NULL;
	if (c->nres) {
		/* read back, waited for by the branch */
		cond = tensor_like_type(c->ty);
		ptrvec_push(&x->owned, cond);
		s = new_step(x, XS_READ, c->res[0].dev, false);
		s->a = c->res[0].obj;
		s->host = cond;
		s->bytes = c->bytes;
		use(x, s->a);
		wait = c->res[0].dev;
	}
	s = new_step(x, XS_BRANCH, wait, false);
	s->host = cond;
	*push = (XCursor){.next = v->u.arms[0].first, .blk = &v->u.arms[0], .frame = frame,
	                  .ifv = v, .arm = 0, .jump = (uint32_t)x->nsteps - 1, .undo = x->nundo};
	return true;
}

/* The end of a block: an arm's yield goes to its if (the else arm is
 * pushed after the then arm), a body's to its call. */
static bool
block_end(Exec *x, const InterpOpts *io, XCursor *st, size_t *n, uint32_t *res_first,
          uint32_t *res_n)
{
	XCursor *c = &st[*n - 1];
	if (c->ifv) {
		if (!arm_yield(x, io, c))
			return false;
		undo_to(x, c->undo);
		if (c->arm == 0) {
			XStep *j = new_step(x, XS_JUMP, NULL, false);
			(void)j;
			x->steps[c->jump].target = (uint32_t)x->nsteps;   /* the branch's else */
			c->jump = (uint32_t)x->nsteps - 1;
			c->arm = 1;
			c->blk = &c->ifv->u.arms[1];
			c->next = c->blk->first;
			return true;
		}
		x->steps[c->jump].target = (uint32_t)x->nsteps;       /* the jump over else */
		(*n)--;
		return true;
	}
	uint32_t first, k;
	if (!operand(x, io, c->blk->yield, c->frame, &first, &k))
		return false;
	if (c->call)
		ref_set(x, c->call, c->caller, first, k);
	*res_first = first;
	*res_n = k;
	(*n)--;
	return true;
}

/* A call: the callee's body in a new frame, its parameters bound to the
 * operands' values. */
static bool
plan_fcall(Exec *x, const InterpOpts *io, const Value *v, uint32_t frame, XCursor *push)
{
	const Func *f = v->u.callee;
	uint32_t callee = ++x->nframes;
	for (uint32_t i = 0; i < v->nargs && i < f->nparams; i++) {
		uint32_t first, n;
		if (!operand(x, io, v->args[i], frame, &first, &n))
			return false;
		ref_set(x, f->params[i], callee, first, n);
	}
	*push = (XCursor){.next = f->body.first, .blk = &f->body, .frame = callee, .call = v,
	                  .caller = frame};
	return true;
}

/* A view (reshape, squeeze, expand_dims, left by ir-lower): its
 * operand's buffers under its own type, no step; the objects' lifetimes
 * grow with the view's uses, as they are the same objects.  An operand
 * held only in images gets a buffer first (an image's rows split the
 * elements elsewhere). */
static bool
plan_view(Exec *x, const InterpOpts *io, const Value *v, uint32_t frame)
{
	uint32_t first, n;
	if (!operand(x, io, v->args[0], frame, &first, &n))
		return false;
	uint32_t si = x->slots[first];
	uint32_t d = new_val(x, v->type, v->name, v->loc);
	x->vals[d].host = x->vals[si].host;
	x->vals[d].konst = x->vals[si].konst;
	x->vals[d].keep = x->vals[si].keep;
	bool any = false;
	for (uint32_t i = 0; i < x->vals[si].nres; i++) {
		XRes r = x->vals[si].res[i];
		if (!x->objs[r.obj].o.image) {
			add_res(x, d, r.dev, r.obj);
			any = true;
		}
	}
	if (!any && x->vals[si].nres) {
		RtDev *rd = x->vals[si].res[0].dev;
		uint32_t o;
		if (!val_on(x, si, rd, v->name, v->loc, x->vals[si].ty, NULL, &o))
			return false;
		add_res(x, d, rd, o);
	}
	ref_set(x, v, frame, (uint32_t)x->nslots, 1);
	push_slot(x, d);
	return true;
}

/* One binding that is not an if or a call. */
static bool
plan_binding(Exec *x, const InterpOpts *io, const Value *v, uint32_t frame)
{
	uint32_t first, n;
	switch (v->form) {
	case B_CONST: {
		uint32_t d = new_val(x, v->type, v->name, v->loc);
		if (!(x->vals[d].host = interp_const_tensor(x->in, io, v)))
			return false;
		x->vals[d].konst = true;
		x->vals[d].keep = !const_written(x, v);
		x->vals[d].place = frame ? NULL : place_of(x, v, 0, 1);
		ref_set(x, v, frame, (uint32_t)x->nslots, 1);
		push_slot(x, d);
		return true;
	}
	case B_CALL_LOWERED:
		return plan_call(x, io, v, frame);
	case B_DEVICE_COPY:
		return plan_copy(x, io, v, frame);
	case B_ON_DEVICE:
		if (!operand(x, io, v->args[0], frame, &first, &n))
			return false;
		ref_set(x, v, frame, first, n);
		return true;
	case B_TUPLE: {
		/* its fields' values, copied into one range */
		uint32_t start = (uint32_t)x->nslots, total = 0;
		for (uint32_t i = 0; i < v->nargs; i++) {
			if (!operand(x, io, v->args[i], frame, &first, &n))
				return false;
			for (uint32_t j = 0; j < n; j++)
				push_slot(x, x->slots[first + j]);
			total += n;
		}
		ref_set(x, v, frame, start, total);
		return true;
	}
	case B_PROJ: {
		if (!operand(x, io, v->args[0], frame, &first, &n))
			return false;
		const Type *tt = v->args[0]->type;
		uint32_t off = 0;
		for (uint32_t i = 0; i < v->u.index && i < tt->n; i++)
			off += ntensors(tt->fields[i]);
		ref_set(x, v, frame, first + off, ntensors(v->type));
		return true;
	}
	case B_OP:
		if (value_is_view(v))
			return plan_view(x, io, v, frame);
		/* fall through */
	default:
		error_at(x->m->ctx, v->loc, "internal error: the executor cannot plan '%%%s'", v->name);
		return false;
	}
}

bool
exec_plan(Exec *x, const InterpOpts *io)
{
	Func *main = x->main;
	find_written(x);
	x->inputs = xcalloc(main->nparams + 1, sizeof *x->inputs);
	if (!interp_read_inputs(x->in, io, x->inputs))
		return false;
	for (uint32_t i = 0; i < main->nparams; i++) {
		const Value *p = main->params[i];
		uint32_t d = new_val(x, p->type, p->name, p->loc);
		x->vals[d].host = x->inputs[i];
		x->vals[d].place = place_of(x, p, 0, 1);
		ref_set(x, p, 0, (uint32_t)x->nslots, 1);
		push_slot(x, d);
	}
	XCursor *st = NULL;
	size_t n = 0, cap = 0;
	VEC_PUSH(st, n, cap) = (XCursor){.next = main->body.first, .blk = &main->body};
	uint32_t res_first = 0, res_n = 0;
	bool ok = true;
	while (ok && n) {
		XCursor *c = &st[n - 1];
		if (!c->next) {
			ok = block_end(x, io, st, &n, &res_first, &res_n);
			continue;
		}
		const Value *v = c->next;
		uint32_t frame = c->frame;
		c->next = v->next;
		XCursor push;
		if (v->form == B_IF) {
			if ((ok = plan_if(x, io, v, frame, &push)))
				VEC_PUSH(st, n, cap) = push;
		} else if (v->form == B_CALL) {
			if ((ok = plan_fcall(x, io, v, frame, &push)))
				VEC_PUSH(st, n, cap) = push;
		} else {
			ok = plan_binding(x, io, v, frame);
		}
	}
	free(st);
	if (ok)
		x->result = plan_result(x, main->body.yield->type, &res_first);
	return ok;
}
