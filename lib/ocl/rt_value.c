/* rt_value.c: where each tensor of the run is, and getting it where a
 * prim or a device_copy wants it.
 *
 * The interpreter's tensors are the values; the runtime files each one
 * it has seen under its pointer.  A tensor it has not seen is host data
 * (an input, a constant, a literal).  A value never changes once made
 * (every binding is a fresh tensor), so every copy of it stays valid: a
 * value may be held at once on the host, and on devices as a buffer, an
 * image or both; each is made the first time something wants it there
 * and kept until the run ends (a constant's until ir-run ends: rt_const.c,
 * which later evaluations of the constant take them from).
 *
 * Ordering: each device has one in-order queue, and every command that
 * writes or reads a device's copy goes to that queue, so a device orders
 * its own work.  Between devices (different contexts, whose events do not
 * mix) the data goes through the tensor's host memory: a read on the
 * source queue, and a write on the target queue that waits for a user
 * event of the target's context, completed by rt_bridge.c's thread once
 * the read is done; the host thread never blocks on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"
#include "texture/texture.h"

typedef struct {
	Obj o;
	RtDev *dev;
} Res;

typedef struct {
	Tensor *t;
	bool host;            /* t->data holds it (once host_ready completes) */
	cl_event host_ready;  /* a read into t->data under way; NULL: none */
	RtDev *host_dev;      /* host_ready's device */
	const Place *place;   /* where a memory plan puts it; NULL: nowhere */
	RtConst *kc;          /* a constant's, or sharing a constant's object */
	bool own;             /* it is the constant: its new objects are kept */
	Res *res;
	uint32_t nres, capres;
} DevVal;

static DevVal *
lookup(OclRt *rt, Tensor *t, bool make)
{
	MapProbe it;
	uint32_t h = map_hash_ptr(t);
	for (DevVal *d = map_first(&rt->vals, h, &it); d; d = map_next(&it))
		if (d->t == t)
			return d;
	if (!make)
		return NULL;
	DevVal *d = xcalloc(1, sizeof *d);
	d->t = t;
	d->host = true;
	map_add(&rt->vals, h, d);
	ptrvec_push(&rt->allvals, d);
	return d;
}

static uint64_t
bytes_of(const Tensor *t)
{
	return (uint64_t)t->numel * elem_size(t->kind);
}

static bool
waited(OclRt *rt, RtDev *rd, cl_event ev, Loc loc)
{
	cl_int e = clWaitForEvents(1, &ev);
	if (e != CL_SUCCESS) {
		CLERR(rt, loc, e, "a command on @%s ('%s') failed", rd->decl->name, rd->cl.dname);
		return false;
	}
	return true;
}

/* Brings d's data to the host memory of its tensor, without waiting:
 * afterwards d->host is true and d->host_ready what to wait for. */
static bool
start_host(OclRt *rt, DevVal *d)
{
	if (d->host)
		return true;
	if (!d->nres) {
		error_at(rt->m->ctx, (Loc){0}, "internal error: a value of the run was freed before "
		         "its last use");
		return false;
	}
	Res *r = &d->res[0];
	cl_event ev = NULL;
	if (!rt_read(rt, r->dev, &r->o, d->t->data, bytes_of(d->t), &ev))
		return false;
	d->host = true;
	d->host_ready = ev;
	d->host_dev = r->dev;
	return true;
}

/* Fills the fresh object o on rd with d's value, from wherever d is. */
static bool
fill(OclRt *rt, RtDev *rd, DevVal *d, const Obj *o)
{
	uint64_t bytes = bytes_of(d->t);
	for (uint32_t i = 0; i < d->nres; i++)
		if (d->res[i].dev == rd)
			return rt_copy_obj(rt, rd, &d->res[i].o, o, bytes);
	/* another device of rd's platform: a copy command between them */
	for (uint32_t i = 0; i < d->nres; i++)
		if (d->res[i].dev->ctx == rd->ctx)
			return rt_copy_across(rt, d->res[i].dev, rd, &d->res[i].o, o, bytes, true);
	if (!start_host(rt, d))
		return false;
	return rt_write_after(rt, rd, o, d->t->data, bytes, d->host_dev, d->host_ready);
}

/* A fresh object for d on rd, in the form of scope: at the plan's place
 * when the plan applies there, else one of its own. */
static bool
obj_for(OclRt *rt, RtDev *rd, DevVal *d, const char *name, Loc loc, const Type *ty, Sym scope,
        Obj *o)
{
	bool planned = false;
	if (!rt_plan_obj(rt, rd, d->place, name, loc, ty, scope, NULL, o, &planned))
		return false;
	return planned || rt_obj_new(rt, rd, name, loc, ty, scope, NULL, o);
}

static Res *
add_res(DevVal *d, RtDev *rd, const Obj *o)
{
	Res *r = &VEC_PUSH(d->res, d->nres, d->capres);
	r->o = *o;
	r->dev = rd;
	return r;
}

/* The index + 1 in rt->plan of the pool that place pl puts a buffer in
 * on rd; 0: none yet. */
static size_t
plan_pool(const OclRt *rt, const RtDev *rd, const Place *pl)
{
	for (size_t i = 0; pl && pl->pool && i < rt->nplan; i++)
		if (rt->plan[i].dev == rd && rt->plan[i].pool == pl->pool)
			return i + 1;
	return 0;
}

/* d's object on rd in the form of scope (an image for a texture scope,
 * else a buffer): the one made already, else a fresh one filled from
 * wherever d is, and kept for later runs when d is a constant. */
static const Obj *
val_in(OclRt *rt, RtDev *rd, DevVal *d, const char *name, Loc loc, const Type *ty, Sym scope,
       const PVar *v)
{
	bool img = scope && is_texture_scope(scope);
	int64_t wh[2] = {0, 0};
	char why[160];
	if (img && !texture_image(ty, scope, wh, why, sizeof why))
		wh[0] = wh[1] = 0;        /* rt_obj_new says why */
	/* an image of another scope's width will not do: its rows split the
	 * elements elsewhere */
	bool here = false;
	for (uint32_t i = 0; i < d->nres; i++) {
		if (d->res[i].dev != rd)
			continue;
		here = true;
		if (d->res[i].o.image == img &&
		    (!img || ((int64_t)d->res[i].o.wh[0] == wh[0] &&
		              (int64_t)d->res[i].o.wh[1] == wh[1])))
			return &d->res[i].o;
	}
	size_t pool = plan_pool(rt, rd, d->place);
	uint32_t unaligned0 = pool ? rt->plan[pool - 1].unaligned : 0;
	Obj o = {.v = v};
	if (!obj_for(rt, rd, d, name, loc, ty, scope, &o))
		return NULL;
	if (!fill(rt, rd, d, &o)) {
		rt_obj_release(rt, rd, &o);
		return NULL;
	}
	Res *r = add_res(d, rd, &o);
	if (d->own) {
		/* a buffer the plan put in a pool but the device took in memory
		 * of its own: counted again in each run that takes it */
		pool = plan_pool(rt, rd, d->place);
		uint32_t unaligned = pool && rt->plan[pool - 1].unaligned > unaligned0
		                   ? (uint32_t)pool : 0;
		if (rt_const_keep(rt, d->kc, rd, &r->o, !here, unaligned))
			r->o.bytes = 0;   /* counted with the kept one */
	}
	return &r->o;
}

const Obj *
rt_val_on(OclRt *rt, RtDev *rd, Tensor *t, const PVar *v)
{
	DevVal *d = lookup(rt, t, true);
	/* a prim that stores into a constant's object: the run under way
	 * sees it changed, as the interpreter does; later runs start from
	 * the constant again */
	if (d->kc && rt_prim_writes(rt, v))
		rt_const_forget(rt, d->kc);
	return val_in(rt, rd, d, v->name, v->loc, v->type, v->vd ? v->vd->scope : NULL, v);
}

bool
oclrt_const_held(void *ud, const Value *v)
{
	return rt_const_count(rt_const_of(ud, v, false)) > 0;
}

void
oclrt_const_made(void *ud, const Value *v, Tensor *t)
{
	OclRt *rt = ud;
	DevVal *d = lookup(rt, t, true);
	d->kc = rt_const_of(rt, v, true);
	d->own = true;
	uint32_t n = rt_const_count(d->kc);
	/* its objects from earlier evaluations; t's data is not read */
	for (uint32_t i = 0; i < n; i++) {
		RtDev *rd;
		const Obj *o = rt_const_obj(rt, d->kc, i, &rd);
		clRetainMemObject(o->mem);
		add_res(d, rd, o)->o.bytes = 0;
		d->host = false;
	}
}

const Obj *
rt_val_new(OclRt *rt, RtDev *rd, Tensor *t, const PVar *v)
{
	DevVal *d = lookup(rt, t, true);
	d->host = false;
	Obj o = {.v = v};
	if (!obj_for(rt, rd, d, v->name, v->loc, v->type, v->vd ? v->vd->scope : NULL, &o))
		return NULL;
	return &add_res(d, rd, &o)->o;
}

bool
oclrt_to_host(void *ud, Tensor *t)
{
	OclRt *rt = ud;
	DevVal *d = lookup(rt, t, false);
	if (!d)
		return true;
	if (!start_host(rt, d))
		return false;
	if (d->host_ready) {
		bool ok = waited(rt, d->host_dev, d->host_ready, (Loc){0});
		clReleaseEvent(d->host_ready);
		d->host_ready = NULL;
		return ok;
	}
	return true;
}

bool
oclrt_device_copy(void *ud, const Value *v, Tensor *src, Tensor *dst)
{
	OclRt *rt = ud;
	const VDev *to = v->u.copy->dst;
	RtDev *rd = rt_dev_of(rt, module_device(rt->m, to->dev));
	if (!rd) {
		/* a device without a program holds its values on the host */
		if (!oclrt_to_host(rt, src))
			return false;
		if (bytes_of(src))
			memcpy(dst->data, src->data, bytes_of(src));
		rt_live_after(rt, v, &src);
		return true;
	}
	DevVal *s = lookup(rt, src, true);
	int64_t wh[2];
	Sym scope = rt_copy_scope(v, wh);
	bool img = scope != NULL;
	/* a constant goes to the device once, in the copy's form, and is
	 * copied or shared from there in every run */
	if (s->own && !val_in(rt, rd, s, v->name, v->loc, v->type, scope, NULL))
		return false;
	DevVal *d = lookup(rt, dst, true);
	d->host = false;
	const PlaceList *pl = rt->m->places ? module_places(rt->m, v) : NULL;
	d->place = pl && pl->n == 1 ? &pl->p[0] : NULL;
	for (uint32_t i = 0; i < s->nres && !d->place; i++)
		if (s->res[i].dev == rd && s->res[i].o.image == img && !s->res[i].o.planned &&
		    (!img || ((int64_t)s->res[i].o.wh[0] == wh[0] &&
		              (int64_t)s->res[i].o.wh[1] == wh[1]))) {
			/* the same device and form: values never change, so share
			 * it (not when the plan gives the copy a place, nor when it
			 * gave the source one: the source's memory may be reused
			 * while the copy lives, as @main's unplanned result) */
			clRetainMemObject(s->res[i].o.mem);
			add_res(d, rd, &s->res[i].o)->o.bytes = 0;
			d->kc = s->kc;    /* a prim that writes it writes the constant */
			rt_live_after(rt, v, &src);
			return true;
		}
	Obj o = {0};
	if (!obj_for(rt, rd, d, v->name, v->loc, v->type, scope, &o))
		return false;
	if (!fill(rt, rd, s, &o)) {
		rt_obj_release(rt, rd, &o);
		return false;
	}
	add_res(d, rd, &o);
	rt_live_after(rt, v, &src);
	return true;
}

void
oclrt_placed(void *ud, const void *node, uint32_t i, uint32_t n, Tensor *t)
{
	OclRt *rt = ud;
	const PlaceList *l = module_places(rt->m, node);
	if (l && l->n == n && i < n)
		lookup(rt, t, true)->place = &l->p[i];
}

void
rt_val_drop(OclRt *rt, Tensor *t)
{
	DevVal *d = lookup(rt, t, false);
	if (!d)
		return;
	for (uint32_t j = 0; j < d->nres; j++)
		rt_obj_release(rt, d->res[j].dev, &d->res[j].o);
	d->nres = 0;
}

void
rt_vals_release(OclRt *rt)
{
	for (size_t i = 0; i < rt->allvals.n; i++) {
		DevVal *d = rt->allvals.v[i];
		for (uint32_t j = 0; j < d->nres; j++)
			rt_obj_release(rt, d->res[j].dev, &d->res[j].o);
		if (d->host_ready)
			clReleaseEvent(d->host_ready);
		free(d->res);
		free(d);
	}
	ptrvec_free(&rt->allvals);
	map_free(&rt->vals);
	memset(&rt->vals, 0, sizeof rt->vals);
}
