/* exec_make.c: making what the plan decided, once, before the first run.
 *
 * Memory: the buffers with a lifetime on a device are packed into one
 * pool buffer of that device by lib/memplan (first_fit: largest first,
 * each into the lowest gap its lifetime leaves; offsets at multiples of
 * CL_DEVICE_MEM_BASE_ADDR_ALIGN), each a sub-buffer of it;
 * images with a lifetime share an image of their size and element type
 * whose earlier holders are done (in step order); fixed objects (a
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
#include "memplan/memplan.h"

static bool
lifetime_buffer(const XObj *ob, const RtDev *rd)
{
	return ob->dev == rd && !ob->fixed && !ob->o.mem && !ob->o.image && ob->bytes &&
	       ob->first != UINT32_MAX;
}

/* The buffers with a lifetime on device i, in one pool. */
static bool
make_pool(Exec *x, uint32_t di)
{
	OclRt *rt = x->rt;
	RtDev *rd = &rt->devs[di];
	uint32_t n = 0;
	for (size_t i = 0; i < x->nobjs; i++)
		n += lifetime_buffer(&x->objs[i], rd);
	if (!n)
		return true;
	static const uint32_t pool0 = 0;
	MpBuf *b = xcalloc(n, sizeof *b);
	uint32_t *which = xcalloc(n, sizeof *which);
	uint32_t k = 0;
	for (size_t i = 0; i < x->nobjs; i++) {
		const XObj *ob = &x->objs[i];
		if (!lifetime_buffer(ob, rd))
			continue;
		b[k] = (MpBuf){.name = ob->name, .size = (int64_t)ob->bytes,
		               .align = rd->base_align ? rd->base_align : 1, .start = ob->first,
		               .end = ob->last, .pools = &pool0, .npools = 1};
		which[k++] = (uint32_t)i;
	}
	MpPool pool = {"executor", -1};
	MpProblem p = {.buf = b, .nbuf = n, .pool = &pool, .npool = 1, .intervals = true};
	MpAlgo chosen;
	uint32_t fail;
	bool ok = mp_plan(&p, MP_FIRST_FIT, &chosen, &fail);
	uint64_t used = ok ? (uint64_t)mp_pool_used(&p, 0) : 0;
	cl_int e = CL_SUCCESS;
	cl_mem mem = ok ? clCreateBuffer(rd->ctx, CL_MEM_READ_WRITE, used, NULL, &e) : NULL;
	rd->made++;
	if (!mem) {
		if (ok)
			CLERR(rt, rd->decl->loc, e, "cannot allocate the executor's pool of %llu bytes "
			      "on @%s ('%s')", (unsigned long long)used, rd->decl->name, rd->cl.dname);
		else
			error_at(rt->m->ctx, x->objs[which[fail]].loc, "internal error: the executor "
			         "could not place '%%%s'", x->objs[which[fail]].name);
		free(b);
		free(which);
		return false;
	}
	x->pools[di] = mem;
	x->pool_bytes[di] = used;
	/* counted with the device's other memory (--profile's peak) */
	rd->live += used;
	if (rd->live > rd->peak)
		rd->peak = rd->live;
	for (uint32_t j = 0; j < n && ok; j++) {
		XObj *ob = &x->objs[which[j]];
		cl_buffer_region r = {(size_t)b[j].offset, (size_t)ob->bytes};
		ob->o.mem = clCreateSubBuffer(mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r,
		                              &e);
		rd->made++;
		if (!ob->o.mem) {
			CLERR(rt, ob->loc, e, "cannot place '%%%s' at offset %llu of the executor's pool "
			      "on @%s", ob->name, (unsigned long long)b[j].offset, rd->decl->name);
			ok = false;
			break;
		}
		ob->o.name = ob->name;
		ob->o.loc = ob->loc;
		ob->o.parent = mem;
		ob->o.off = (size_t)b[j].offset;
	}
	free(b);
	free(which);
	return ok;
}

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
			ob->o.mem = free_one->holder->o.mem;
			clRetainMemObject(ob->o.mem);
			ob->o.name = ob->name;
			ob->o.loc = ob->loc;
			ob->o.bytes = 0;
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
	x->pools = xcalloc(rt->ndevs + 1, sizeof *x->pools);
	x->pool_bytes = xcalloc(rt->ndevs + 1, sizeof *x->pool_bytes);
	for (uint32_t i = 0; i < rt->ndevs; i++)
		if (!make_pool(x, i))
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
	for (size_t i = 0; i < x->nsteps; i++)
		if (x->steps[i].kern)
			clReleaseKernel(x->steps[i].kern);
	/* last made, first released: NVIDIA's OpenCL on the H100
	 * crashed releasing a pool's sub-buffers in the order they were made,
	 * not in the reverse order */
	for (size_t i = x->nobjs; i-- > 0;)
		rt_obj_release(x->rt, x->objs[i].dev, &x->objs[i].o);
	for (uint32_t i = 0; x->pools && i < x->rt->ndevs; i++)
		if (x->pools[i]) {
			x->rt->devs[i].live -= x->pool_bytes[i];
			clReleaseMemObject(x->pools[i]);
		}
}
