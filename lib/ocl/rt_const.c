/* rt_const.c: a module's constants kept on the devices for every run of
 * one ir-run process (--repeat), so weights are uploaded once.
 *
 * A constant is one binding (its Value): every evaluation of it, in any
 * run, is the same immutable data.  Each memory object made for it (a
 * buffer or an image on a device, uploaded from the host or copied from
 * another of its objects on the device) is kept here, with a reference of
 * its own, until ir-run ends; a later evaluation takes them all (rt_value.c),
 * so the interpreter need not even read its file again.
 *
 * Only what never changes may be shared across runs.  Nothing in ir(5)
 * forbids a prim to store into an operand, so the parameters that some
 * kernel stores into are found once: a constant (or a copy sharing its
 * object) passed to one is forgotten here, its objects left to the run
 * under way, and never kept again: every later run reads it and uploads it
 * afresh, as the interpreter reads it afresh.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ocl/rt_impl.h"
#include "walk.h"

typedef struct {
	RtDev *dev;
	Obj o;                    /* its bytes counted in dev's live bytes until the end */
	uint32_t unaligned;       /* a planned buffer's pool that counted it, index + 1 */
} KeptObj;

struct RtConst {
	const Value *v;
	bool written;             /* a prim stores into it: never kept */
	KeptObj *objs;
	uint32_t n, cap;
};

void
rt_const_init(OclRt *rt)
{
	/* the buffer and image parameters some kernel stores into */
	for (Prim *p = rt->m->prims; p; p = p->next) {
		PrimWalk w;
		pwalk_start(&w, &p->body);
		for (PStmt *s; (s = pwalk_next_stmt(&w));) {
			PVar *b = s->kind == S_STORE ? s->u.store.buf
			        : s->kind == S_TEX_STORE ? s->u.tex.buf : NULL;
			if (b && !rt_prim_writes(rt, b))
				map_add(&rt->written, map_hash_ptr(b), b);
		}
	}
}

bool
rt_prim_writes(const OclRt *rt, const PVar *v)
{
	MapProbe it;
	for (const PVar *e = map_first(&rt->written, map_hash_ptr(v), &it); e; e = map_next(&it))
		if (e == v)
			return true;
	return false;
}

RtConst *
rt_const_of(OclRt *rt, const Value *v, bool make)
{
	MapProbe it;
	uint32_t h = map_hash_ptr(v);
	for (RtConst *c = map_first(&rt->consts, h, &it); c; c = map_next(&it))
		if (c->v == v)
			return c;
	if (!make)
		return NULL;
	RtConst *c = xcalloc(1, sizeof *c);
	c->v = v;
	map_add(&rt->consts, h, c);
	return c;
}

uint32_t
rt_const_count(const RtConst *c)
{
	return c && !c->written ? c->n : 0;
}

const Obj *
rt_const_obj(OclRt *rt, RtConst *c, uint32_t i, RtDev **rd)
{
	KeptObj *k = &c->objs[i];
	/* a buffer in memory of its own where the plan put it: counted in
	 * every run that uses it, as when it was made */
	if (k->unaligned)
		rt->plan[k->unaligned - 1].unaligned++;
	k->dev->consts.reused++;
	*rd = k->dev;
	return &k->o;
}

bool
rt_const_keep(OclRt *rt, RtConst *c, RtDev *rd, const Obj *o, bool uploaded,
              uint32_t unaligned)
{
	(void)rt;
	if (uploaded) {
		rd->consts.uploads++;
		rd->consts.upload_bytes += (uint64_t)type_numel(c->v->type) *
		                           elem_size((ElemKind)c->v->type->dt.kind);
	} else {
		rd->consts.made++;
	}
	if (c->written) {
		rd->consts.unkept++;
		return false;
	}
	clRetainMemObject(o->mem);
	VEC_PUSH(c->objs, c->n, c->cap) = (KeptObj){rd, *o, unaligned};
	rd->consts.kept++;
	return true;
}

static void
release_objs(OclRt *rt, RtConst *c)
{
	for (uint32_t i = 0; i < c->n; i++)
		rt_obj_release(rt, c->objs[i].dev, &c->objs[i].o);
	free(c->objs);
	c->objs = NULL;
	c->n = c->cap = 0;
}

void
rt_const_forget(OclRt *rt, RtConst *c)
{
	if (!c || c->written)
		return;
	for (uint32_t i = 0; i < c->n; i++) {
		c->objs[i].dev->consts.kept--;
		c->objs[i].dev->consts.unkept++;
	}
	release_objs(rt, c);
	c->written = true;
}

void
rt_const_say(const RtDev *rd, FILE *f)
{
	const RtConstStats *s = &rd->consts;
	if (!s->uploads && !s->made)
		return;
	fprintf(f, "ir-run: @%s: constants: %llu uploaded (%.3f MiB), %llu made on the device, "
	        "%llu kept; taken from earlier evaluations %llu times", rd->decl->name,
	        (unsigned long long)s->uploads, (double)s->upload_bytes / 1048576.0,
	        (unsigned long long)s->made, (unsigned long long)s->kept,
	        (unsigned long long)s->reused);
	if (s->unkept)
		fprintf(f, "; %llu not kept: a prim stores into them", (unsigned long long)s->unkept);
	fputc('\n', f);
}

void
rt_consts_free(OclRt *rt)
{
	for (uint32_t i = 0; i < rt->consts.cap; i++) {
		RtConst *c = rt->consts.slot[i];
		if (c) {
			release_objs(rt, c);
			free(c);
		}
	}
	map_free(&rt->consts);
	map_free(&rt->written);
}
