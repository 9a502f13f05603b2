/* exec_make.c: making what the plan decided, once, before the first run.
 *
 * Memory: buffers with a lifetime share whole buffers of their device
 * (make_buffers: largest first, each into a buffer whose other holders'
 * lifetimes it does not meet); images with a lifetime share an image of
 * their size and element type whose earlier holders are done (in step
 * order); fixed objects (a
 * constant's forms) get memory of their own, and a memory plan's places
 * were made by rt_plan_obj already.  Values on one device are ordered by
 * its in-order queue, so memory is rewritten only after every earlier
 * command that read it; a copy between devices reads on the source's
 * queue, so the same holds there.
 *
 * Then the "once" steps put the kept constants on their devices, and
 * each launch gets a kernel object of its own with its arguments set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_impl.h"

/* Whether object a is first used after object b (ties: made later). */
static bool
after(const Exec *x, uint32_t a, uint32_t b)
{
	uint32_t fa = x->objs[a].first, fb = x->objs[b].first;
	return fa != fb ? fa > fb : a > b;
}

/* An image of the plan: held until step busy. */
typedef struct {
	const XObj *holder;
	uint32_t busy;
} XImage;

/* ob takes holder's memory, which it never uses at the same time */
static void
share(XObj *ob, const XObj *holder)
{
	ob->o.mem = holder->o.mem;
	clRetainMemObject(ob->o.mem);
	ob->o.name = ob->name;
	ob->o.loc = ob->loc;
	ob->o.bytes = 0;      /* counted once, with the holder */
}

static bool
lifetime_buffer_obj(const XObj *ob)
{
	return !ob->fixed && !ob->o.mem && !ob->o.image && ob->bytes && ob->first != UINT32_MAX;
}

/* A buffer shared by objects whose lifetimes do not meet: the
 * lifetimes it holds, sorted and disjoint. */
typedef struct {
	XObj *holder;             /* its largest object, which made it */
	uint32_t (*span)[3];      /* first step, last step, object */
	size_t n, cap;
} XBuffer;

/* Where [a, b] would go in buf's spans; SIZE_MAX when it meets one. */
static size_t
span_slot(const XBuffer *buf, uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = buf->n;
	while (lo < hi) {     /* the first span that ends at or after a */
		size_t mid = lo + (hi - lo) / 2;
		if (buf->span[mid][1] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < buf->n && buf->span[lo][0] <= b ? SIZE_MAX : lo;
}

static void
span_insert(XBuffer *buf, size_t at, uint32_t a, uint32_t b, uint32_t obj)
{
	if (buf->n == buf->cap) {
		buf->cap = buf->cap ? 2 * buf->cap : 4;
		buf->span = xrealloc(buf->span, buf->cap * sizeof *buf->span);
	}
	memmove(&buf->span[at + 1], &buf->span[at], (buf->n - at) * sizeof *buf->span);
	buf->span[at][0] = a;
	buf->span[at][1] = b;
	buf->span[at][2] = obj;
	buf->n++;
}

typedef struct {
	uint64_t bytes;
	uint32_t first, obj;
} BySize;

/* larger first; ties: first used first, then made first */
static int
cmp_size(const void *pa, const void *pb)
{
	const BySize *a = pa, *b = pb;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return (a->obj > b->obj) - (a->obj < b->obj);
}

/* Buffers with a lifetime share whole buffers, largest first: each
 * takes the smallest buffer of its device made so far (all are at least
 * as large) whose objects' lifetimes it does not meet, else makes one
 * of its size (TFLite's "greedy by size" for shared objects).  Whole
 * buffers, not sub-buffers of one pool: with sub-buffer arguments,
 * NVIDIA's OpenCL spent about 15 us more host time a launch (densenet121
 * on an H200: 6.3-7.2 ms a run with 290 sub-buffers, 2.35 ms with
 * shared buffers; bench/h100.md). */
static bool
make_buffers(Exec *x)
{
	uint32_t n = 0;
	BySize *ord = xcalloc(x->nobjs + 1, sizeof *ord);
	for (size_t i = 0; i < x->nobjs; i++) {
		const XObj *ob = &x->objs[i];
		if (lifetime_buffer_obj(ob))
			ord[n++] = (BySize){ob->bytes, ob->first, (uint32_t)i};
	}
	qsort(ord, n, sizeof *ord, cmp_size);
	XBuffer *bufs = NULL;
	size_t nb = 0, capb = 0;
	bool ok = true;
	for (uint32_t i = 0; i < n && ok; i++) {
		XObj *ob = &x->objs[ord[i].obj];
		XBuffer *fit = NULL;
		size_t at = 0;
		for (size_t j = nb; j-- > 0 && !fit;) {
			if (bufs[j].holder->dev != ob->dev)
				continue;
			at = span_slot(&bufs[j], ob->first, ob->last);
			if (at != SIZE_MAX)
				fit = &bufs[j];
		}
		if (fit) {
			share(ob, fit->holder);
			span_insert(fit, at, ob->first, ob->last, ord[i].obj);
			continue;
		}
		ok = rt_obj_new(x->rt, ob->dev, ob->name, ob->loc, ob->ty, ob->scope, NULL, &ob->o);
		if (ok) {
			x->buffer_bytes += ob->o.bytes;
			x->buffers++;
			XBuffer *nbuf = &VEC_PUSH(bufs, nb, capb);
			*nbuf = (XBuffer){ob, NULL, 0, 0};
			span_insert(nbuf, 0, ob->first, ob->last, ord[i].obj);
		}
	}
	/* a value after the first in its buffer follows another one there */
	for (size_t j = 0; j < nb; j++) {
		for (size_t k = 1; k < bufs[j].n; k++)
			x->objs[bufs[j].span[k][2]].follows = true;
		free(bufs[j].span);
	}
	free(bufs);
	free(ord);
	return ok;
}

/* Images with a lifetime, in the order they are first used: each takes
 * a free image of its device, size and element type, else a new one. */
static bool
make_images(Exec *x)
{
	uint32_t *ord = xcalloc(x->nobjs + 1, sizeof *ord);
	uint32_t n = 0;
	for (size_t i = 0; i < x->nobjs; i++) {
		const XObj *ob = &x->objs[i];
		if (!ob->fixed && !ob->o.mem && ob->o.image && ob->first != UINT32_MAX)
			ord[n++] = (uint32_t)i;
	}
	/* insertion by first step (objects come nearly in that order) */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && after(x, ord[j - 1], ord[j]); j--) {
			uint32_t t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
	XImage *im = NULL;
	size_t nim = 0, capim = 0;
	bool ok = true;
	for (uint32_t i = 0; i < n && ok; i++) {
		XObj *ob = &x->objs[ord[i]];
		XImage *free_one = NULL;
		for (size_t j = 0; j < nim && !free_one; j++) {
			const XObj *h = im[j].holder;
			if (h->dev == ob->dev && im[j].busy < ob->first && h->o.wh[0] == ob->o.wh[0] &&
			    h->o.wh[1] == ob->o.wh[1] && h->ty->dt.kind == ob->ty->dt.kind)
				free_one = &im[j];
		}
		if (free_one) {
			share(ob, free_one->holder);
			ob->follows = true;
			free_one->busy = ob->last;
			continue;
		}
		ok = rt_obj_new(x->rt, ob->dev, ob->name, ob->loc, ob->ty, ob->scope,
		                ob->img[0] ? ob->img : NULL, &ob->o);
		if (ok) {
			x->image_bytes += ob->o.bytes;
			x->images++;
			VEC_PUSH(im, nim, capim) = (XImage){ob, ob->last};
		}
	}
	free(im);
	free(ord);
	return ok;
}

static bool
make_kernel(Exec *x, XStep *s)
{
	OclRt *rt = x->rt;
	RtDev *rd = s->dev;
	const Launch *l = s->k->u.kernel.launch;
	size_t wg = (size_t)l->local[0] * (size_t)l->local[1] * (size_t)l->local[2];
	if (wg > rd->max_wg) {
		error_at(rt->m->ctx, l->loc, "kernel @%s has work groups of %zu items; '%s' of @%s "
		         "takes at most %zu", s->k->u.kernel.name, wg, rd->cl.dname, rd->decl->name,
		         rd->max_wg);
		return false;
	}
	if (!(s->kern = rt_kernel_new(rt, rd, s->k)))
		return false;
	x->kernels++;
	s->flops = rt_kernel_flops(s->k);
	for (uint32_t i = 0; i < s->nargs; i++) {
		const XArg *a = &s->args[i];
		if (a->obj == UINT32_MAX) {
			if (!rt_set_scalar(rt, s->kern, i, l->args[i], a->scalar, s->k))
				return false;
			continue;
		}
		cl_int e = clSetKernelArg(s->kern, i, sizeof(cl_mem), &x->objs[a->obj].o.mem);
		if (e != CL_SUCCESS) {
			CLERR(rt, s->k->loc, e, "cannot pass '%%%s' to kernel @%s", l->args[i]->name,
			      s->k->u.kernel.name);
			return false;
		}
	}
	return true;
}

bool
exec_make(Exec *x)
{
	OclRt *rt = x->rt;
	if (!make_buffers(x))
		return false;
	if (!make_images(x))
		return false;
	/* the rest: kept constants' forms, empty buffers */
	for (size_t i = 0; i < x->nobjs; i++) {
		XObj *ob = &x->objs[i];
		if (!ob->o.mem && (ob->fixed || ob->first != UINT32_MAX) &&
		    !rt_obj_new(rt, ob->dev, ob->name, ob->loc, ob->ty, ob->scope,
		                ob->img[0] ? ob->img : NULL, &ob->o))
			return false;
	}
	for (size_t i = 0; i < x->nobjs; i++)
		x->objs[i].dev->consts.kept += x->objs[i].fixed && x->objs[i].konst;
	for (size_t i = 0; i < x->nsteps; i++) {
		XStep *s = &x->steps[i];
		if (s->via_host && !(s->stage = rt_pinned_new(s->dev, s->bytes, &s->stage_mem)))
			s->stage = xmalloc(s->bytes ? s->bytes : 1);
	}
	for (size_t i = 0; i < x->nsteps; i++)
		if (x->steps[i].once && !exec_step(x, &x->steps[i]))
			return false;
	for (size_t i = 0; i < x->nsteps; i++)
		if (x->steps[i].kind == XS_LAUNCH && !make_kernel(x, &x->steps[i]))
			return false;
	return true;
}

void
exec_unmake(Exec *x)
{
	for (size_t i = 0; i < x->nsteps; i++) {
		XStep *s = &x->steps[i];
		if (s->kern)
			clReleaseKernel(s->kern);
		if (s->stage_mem)
			rt_pinned_free(s->dev, s->stage_mem, s->stage);
		else
			free(s->stage);
	}
	/* last made, first released: NVIDIA's OpenCL on the H100
	 * crashed releasing sub-buffers (a memory plan's places) in the order
	 * they were made, not in the reverse order */
	for (size_t i = x->nobjs; i-- > 0;)
		rt_obj_release(x->rt, x->objs[i].dev, &x->objs[i].o);
}
