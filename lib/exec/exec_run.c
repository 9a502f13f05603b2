/* exec_run.c: a run of the plan (exec.h): every step enqueued in order,
 * each on its device's in-order queue; the host waits only at the end
 * (oclrt_end_run), or after every command under --sync. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_impl.h"

static bool
launch(Exec *x, const XStep *s)
{
	OclRt *rt = x->rt;
	const Launch *l = s->k->u.kernel.launch;
	size_t g[3], lo[3];
	for (int i = 0; i < 3; i++) {
		g[i] = (size_t)l->global[i];
		lo[i] = (size_t)l->local[i];
	}
	cl_event ev = NULL;
	cl_int e = clEnqueueNDRangeKernel(s->dev->q, s->kern, 3, NULL, g, lo, 0, NULL,
	                                  rt->o.profile || rt->o.sync ? &ev : NULL);
	if (e != CL_SUCCESS) {
		CLERR(rt, l->loc, e, "cannot launch kernel @%s on @%s", s->k->u.kernel.name,
		      s->dev->decl->name);
		note_at(rt->m->ctx, s->call->loc, "in the call of @%s here", s->call->u.prim->name);
		return false;
	}
	bool ok = rt_done(rt, s->dev, ev, s->k->u.kernel.name, true, s->flops, 0, l->loc);
	if (ev)
		clReleaseEvent(ev);
	return ok;
}

/* Pieces of a copy through the host: each piece read back from the
 * source and written to the target as soon as it arrives (rt_bridge.c's
 * thread, through rt_write_after), so that the source's link to the host and the
 * target's carry the copy at the same time.  Buffers only (a piece of an
 * image is a region of rows; images are small next to what this is
 * for).  The size: large enough that a piece's commands and its turn
 * through the thread cost little beside its transfer at tens of GB/s. */
enum { XCOPY_PIECE = 8u << 20 };

static uint64_t
xcopy_piece(const XStep *s, const Obj *a, const Obj *b)
{
	if (!a->image && !b->image && s->bytes >= 2 * (uint64_t)XCOPY_PIECE)
		return XCOPY_PIECE;
	return s->bytes;
}

static uint32_t
xcopy_pieces(const XStep *s, const Obj *a, const Obj *b)
{
	uint64_t piece = xcopy_piece(s, a, b);
	return piece ? (uint32_t)((s->bytes + piece - 1) / piece) : 0;
}

static bool
xcopy_via_host(OclRt *rt, const XStep *s, const Obj *a, const Obj *b)
{
	uint64_t piece = xcopy_piece(s, a, b);
	for (uint64_t off = 0; off < s->bytes; off += piece) {
		uint64_t n = s->bytes - off < piece ? s->bytes - off : piece;
		Obj from = *a, to = *b;   /* the piece, as objects of their own */
		from.off += off;
		to.off += off;
		cl_event ev = NULL;
		if (!rt_read(rt, s->dev, &from, s->stage + off, n, &ev))
			return false;
		bool ok = rt_write_after(rt, s->dev2, &to, s->stage + off, n, s->dev, ev);
		if (ev)
			clReleaseEvent(ev);
		if (!ok)
			return false;
	}
	return true;
}

bool
exec_step(Exec *x, const XStep *s)
{
	OclRt *rt = x->rt;
	bool has_a = s->kind == XS_READ || s->kind == XS_COPY || s->kind == XS_XCOPY;
	bool has_b = s->kind == XS_WRITE || s->kind == XS_COPY || s->kind == XS_XCOPY;
	const Obj *a = has_a ? &x->objs[s->a].o : NULL;
	const Obj *b = has_b ? &x->objs[s->b].o : NULL;
	if (s->konst) {
		/* --stats: what becomes of the constants (rt_const.c's line) */
		RtConstStats *c = &s->dev->consts;
		if (s->kind == XS_WRITE) {
			c->uploads++;
			c->upload_bytes += s->bytes;
			c->unkept += !s->once;
		} else {
			c->made++;
		}
	}
	switch (s->kind) {
	case XS_LAUNCH:
		return launch(x, s);
	case XS_WRITE:
		return rt_write(rt, s->dev, b, s->host->data, s->bytes, 0, NULL, NULL);
	case XS_READ:
		return rt_read(rt, s->dev, a, s->host->data, s->bytes, NULL);
	case XS_COPY:
		return rt_copy_obj(rt, s->dev, a, b, s->bytes);
	case XS_XCOPY:
		if (!s->via_host) {  /* devices of one platform (exec_plan.c) */
			const XObj *to = &x->objs[s->b];
			return rt_copy_across(rt, s->dev, s->dev2, a, b, s->bytes,
			                      to->fixed || to->follows);
		}
		return xcopy_via_host(rt, s, a, b);
	case XS_HOST:
		if (s->bytes)
			memcpy(s->host2->data, s->host->data, s->bytes);
		return true;
	case XS_BRANCH:
	case XS_JUMP:
		return true;          /* exec_run goes on where they say */
	}
	return false;
}

/* Where an if's branch goes: the then arm (the next step) or target. */
static bool
branch(Exec *x, const XStep *s, size_t i, size_t *next)
{
	if (s->dev) {
		/* the condition's read back: its device's queue done */
		cl_int e = clFinish(s->dev->q);
		if (e != CL_SUCCESS) {
			CLERR(x->rt, s->dev->decl->loc, e, "a command on @%s ('%s') failed",
			      s->dev->decl->name, s->dev->cl.dname);
			return false;
		}
	}
	*next = tensor_get_int(s->host, 0) != 0 ? i + 1 : s->target;
	return true;
}

Exec *
exec_new(OclRt *rt, Module *m, const InterpOpts *io)
{
	double t0 = rt_now_ms();
	Exec *x = xcalloc(1, sizeof *x);
	x->rt = rt;
	x->m = m;
	x->in = interp_new(m);
	x->main = module_func(m, sym_intern_cstr(m, "main"));
	if (!x->main || !exec_plan(x, io) || !exec_make(x)) {
		exec_free(x);
		return NULL;
	}
	rt->plan_ms = rt_now_ms() - t0;
	rt->planned = true;
	return x;
}

const RtVal *
exec_run(Exec *x)
{
	double t0 = rt_now_ms();
	/* the kept constants are taken by every run after the first */
	for (uint32_t i = 0; x->runs && i < x->rt->ndevs; i++)
		x->rt->devs[i].consts.reused += x->rt->devs[i].consts.kept;
	for (size_t i = 0; i < x->nsteps;) {
		const XStep *s = &x->steps[i];
		size_t next = i + 1;
		if (s->kind == XS_BRANCH && !branch(x, s, i, &next))
			return NULL;
		if (s->kind == XS_JUMP)
			next = s->target;
		if (!s->once && !exec_step(x, s))
			return NULL;
		i = next;
	}
	for (uint32_t i = 0; i < x->rt->ndevs; i++)
		clFlush(x->rt->devs[i].q);
	x->rt->enqueue_ms += rt_now_ms() - t0;
	x->runs++;
	return x->result;
}

void
exec_stats(const Exec *x, FILE *f)
{
	uint32_t n[XS_JUMP + 1] = {0}, once = 0, fixed = 0, images = 0, buffers = 0;
	for (size_t i = 0; i < x->nsteps; i++) {
		if (x->steps[i].once)
			once++;
		else
			n[x->steps[i].kind]++;
	}
	for (size_t i = 0; i < x->nobjs; i++) {
		const XObj *ob = &x->objs[i];
		fixed += ob->fixed;
		images += !ob->fixed && ob->o.image;
		buffers += !ob->fixed && !ob->o.image && ob->first != UINT32_MAX && ob->bytes;
	}
	fprintf(f, "ir-run: plan of @main: %zu steps per run (%u launches, %u copies on a device, "
	        "%u between devices, %u uploads, %u reads back, %u ifs), %u made once\n",
	        x->nsteps - once - n[XS_JUMP], n[XS_LAUNCH], n[XS_COPY], n[XS_XCOPY], n[XS_WRITE],
	        n[XS_READ] + n[XS_HOST], n[XS_BRANCH], once);
	uint32_t across = 0, waiting = 0;
	for (size_t i = 0; i < x->nsteps; i++) {
		const XStep *s = &x->steps[i];
		if (s->kind == XS_XCOPY && !s->via_host && !s->once) {
			across++;
			waiting += x->objs[s->b].fixed || x->objs[s->b].follows;
		}
	}
	if (across)
		fprintf(f, "ir-run: copies between devices of one context: %u, %u of them after the "
		        "target's earlier commands (into memory that held an earlier value)\n", across,
		        waiting);
	uint32_t via = 0, pieces = 0, pinned = 0;
	for (size_t i = 0; i < x->nsteps; i++) {
		const XStep *s = &x->steps[i];
		if (s->kind == XS_XCOPY && s->via_host && !s->once) {
			via++;
			pieces += xcopy_pieces(s, &x->objs[s->a].o, &x->objs[s->b].o);
			pinned += s->stage_mem != NULL;
		}
	}
	if (via)
		fprintf(f, "ir-run: copies between devices through host memory: %u in %u pieces, %u of "
		        "them staged in pinned host memory\n", via, pieces, pinned);
	fprintf(f, "ir-run: plan memory: %zu objects: %u buffers in %u of %llu bytes, %u images "
	        "in %u of %llu bytes, %u kept (constants, memory-plan places); %u kernels\n",
	        x->nobjs, buffers, x->buffers, (unsigned long long)x->buffer_bytes, images, x->images,
	        (unsigned long long)x->image_bytes, fixed, x->kernels);
}

void
exec_free(Exec *x)
{
	if (!x)
		return;
	/* nothing may still run on what is released */
	for (uint32_t i = 0; i < x->rt->ndevs; i++)
		clFinish(x->rt->devs[i].q);
	exec_unmake(x);
	for (size_t i = 0; i < x->nsteps; i++)
		free(x->steps[i].args);
	for (size_t i = 0; i < x->nvals; i++)
		free(x->vals[i].res);
	for (uint32_t i = 0; i < x->refs.cap; i++)
		free(x->refs.slot[i]);
	map_free(&x->refs);
	map_free(&x->written);
	free(x->undo);
	for (size_t i = 0; i < x->owned.n; i++)
		tensor_free(x->owned.v[i]);
	ptrvec_free(&x->owned);
	for (size_t i = 0; i < x->rtvals.n; i++) {
		RtVal *r = x->rtvals.v[i];
		free(r->fields);
		free(r);
	}
	ptrvec_free(&x->rtvals);
	free(x->steps);
	free(x->objs);
	free(x->vals);
	free(x->slots);
	free(x->inputs);
	interp_free(x->in);
	free(x);
}
