/* rt_copy.c: the commands that move data: host -> buffer or image,
 * buffer or image -> host, and between a device's buffers and images.
 * An image of a texture scope holds the elements in memory order (rows
 * of RGBA texels, ir-flatten-texture's convention), so a buffer and an
 * image of one value copy into each other as they are, with no
 * reordering kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"

bool
rt_done(OclRt *rt, RtDev *rd, cl_event ev, const char *name, bool kernel, double flops,
        uint64_t bytes, Loc loc)
{
	if (rt->o.profile && ev) {
		clRetainEvent(ev);
		VEC_PUSH(rt->pev, rt->npev, rt->cappev) =
			(ProfEv){ev, rd, name, kernel, flops, bytes};
	}
	if (rt->o.sync && ev) {
		cl_int e = clWaitForEvents(1, &ev);
		if (e != CL_SUCCESS) {
			CLERR(rt, loc, e, "%s%s failed on @%s ('%s')", kernel ? "kernel @" : "", name,
			      rd->decl->name, rd->cl.dname);
			return false;
		}
	}
	return true;
}

/* The event a command gives back: only when --profile or --sync wants
 * it, or the caller (ev); else none, which costs the host nothing. */
static cl_event *
want_event(const OclRt *rt, cl_event *e1, const cl_event *ev)
{
	return rt->o.profile || rt->o.sync || ev ? e1 : NULL;
}

static void
release_event(cl_event e1)
{
	if (e1)
		clReleaseEvent(e1);
}

/* A buffer's memory object for a copy: a planned buffer's pool (at
 * o->off), else its own. */
#define BUF(o) ((o)->parent ? (o)->parent : (o)->mem)

static void
region(const Obj *o, size_t org[3], size_t reg[3])
{
	org[0] = org[1] = org[2] = 0;
	reg[0] = o->wh[0];
	reg[1] = o->wh[1];
	reg[2] = 1;
}

bool
rt_write(OclRt *rt, RtDev *rd, const Obj *dst, const void *src, uint64_t bytes, cl_uint nwait,
         const cl_event *wait, cl_event *ev)
{
	cl_event e1 = NULL;
	cl_int e;
	const char *name = dst->image ? "copy host->image" : "copy host->buffer";
	if (ev)
		*ev = NULL;
	if (!bytes)
		return true;
	if (dst->image) {
		size_t org[3], reg[3];
		region(dst, org, reg);
		e = clEnqueueWriteImage(rd->q, dst->mem, CL_FALSE, org, reg, 0, 0, src, nwait,
		                        nwait ? wait : NULL, want_event(rt, &e1, ev));
	} else {
		e = clEnqueueWriteBuffer(rd->q, BUF(dst), CL_FALSE, dst->off, bytes, src, nwait,
		                         nwait ? wait : NULL, want_event(rt, &e1, ev));
	}
	if (e != CL_SUCCESS) {
		CLERR(rt, dst->loc, e, "cannot copy '%%%s' (%llu bytes) to @%s ('%s')", dst->name,
		      (unsigned long long)bytes, rd->decl->name, rd->cl.dname);
		return false;
	}
	bool ok = rt_done(rt, rd, e1, name, false, -1, bytes, dst->loc);
	if (ev)
		*ev = e1;
	else
		release_event(e1);
	return ok;
}

bool
rt_read(OclRt *rt, RtDev *rd, const Obj *src, void *dst, uint64_t bytes, cl_event *ev)
{
	cl_event e1 = NULL;
	cl_int e;
	const char *name = src->image ? "copy image->host" : "copy buffer->host";
	if (ev)
		*ev = NULL;
	if (!bytes)
		return true;
	if (src->image) {
		size_t org[3], reg[3];
		region(src, org, reg);
		e = clEnqueueReadImage(rd->q, src->mem, CL_FALSE, org, reg, 0, 0, dst, 0, NULL,
		                       want_event(rt, &e1, ev));
	} else {
		e = clEnqueueReadBuffer(rd->q, BUF(src), CL_FALSE, src->off, bytes, dst, 0, NULL,
		                        want_event(rt, &e1, ev));
	}
	if (e != CL_SUCCESS) {
		CLERR(rt, src->loc, e, "cannot read '%%%s' (%llu bytes) back from @%s ('%s')",
		      src->name, (unsigned long long)bytes, rd->decl->name, rd->cl.dname);
		return false;
	}
	/* whoever reads the host data waits for it; the queue must start it */
	clFlush(rd->q);
	bool ok = rt_done(rt, rd, e1, name, false, -1, bytes, src->loc);
	if (ev)
		*ev = e1;
	else
		release_event(e1);
	return ok;
}

/* rt_copy_obj after the nwait events of wait; *out, when out is not NULL,
 * the event of the copy's last command (NULL when nothing was enqueued). */
static bool
copy_obj(OclRt *rt, RtDev *rd, const Obj *src, const Obj *dst, uint64_t bytes, cl_uint nwait,
         const cl_event *wait, cl_event *out)
{
	static const char *names[2][2] = {
		{"copy buffer->buffer", "copy buffer->image"},
		{"copy image->buffer", "copy image->image"},
	};
	cl_event e1 = NULL;
	cl_int e;
	if (out)
		*out = NULL;
	if (!bytes)
		return true;
	/* the same memory (a plan put both there): nothing to move */
	if (!src->image && !dst->image && BUF(src) == BUF(dst) && src->off == dst->off)
		return true;
	if (src->image && dst->image && src->mem == dst->mem && src->wh[0] == dst->wh[0] &&
	    src->wh[1] == dst->wh[1])
		return true;
	/* images of other widths (scopes that flatten alike but split rows
	 * elsewhere), or ranges of one pool that overlap: through a buffer of
	 * their own, in memory order */
	bool overlap = !src->image && !dst->image && BUF(src) == BUF(dst) &&
	               src->off < dst->off + bytes && dst->off < src->off + bytes;
	if (overlap || (src->image && dst->image && (src->mem == dst->mem ||
	                                             src->wh[0] != dst->wh[0] ||
	                                             src->wh[1] != dst->wh[1]))) {
		Obj tmp = {.name = dst->name, .loc = dst->loc};
		tmp.mem = clCreateBuffer(rd->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
		rd->made++;
		if (!tmp.mem) {
			CLERR(rt, dst->loc, e, "cannot hold a copy of '%%%s' (%llu bytes) on @%s",
			      dst->name, (unsigned long long)bytes, rd->decl->name);
			return false;
		}
		/* both on rd's in-order queue: the second follows the first */
		bool ok = copy_obj(rt, rd, src, &tmp, bytes, nwait, wait, NULL) &&
		          copy_obj(rt, rd, &tmp, dst, bytes, 0, NULL, out);
		clReleaseMemObject(tmp.mem);
		return ok;
	}
	const cl_event *w = nwait ? wait : NULL;
	cl_event *ev = want_event(rt, &e1, out);
	size_t org[3], reg[3];
	if (src->image && dst->image) {
		region(src, org, reg);
		e = clEnqueueCopyImage(rd->q, src->mem, dst->mem, org, org, reg, nwait, w, ev);
	} else if (src->image) {
		region(src, org, reg);
		e = clEnqueueCopyImageToBuffer(rd->q, src->mem, BUF(dst), org, reg, dst->off, nwait, w,
		                               ev);
	} else if (dst->image) {
		region(dst, org, reg);
		e = clEnqueueCopyBufferToImage(rd->q, BUF(src), dst->mem, src->off, org, reg, nwait, w,
		                               ev);
	} else {
		e = clEnqueueCopyBuffer(rd->q, BUF(src), BUF(dst), src->off, dst->off, bytes, nwait, w,
		                        ev);
	}
	if (e != CL_SUCCESS) {
		CLERR(rt, dst->loc, e, "cannot copy '%%%s' (%llu bytes) from %s to %s on @%s ('%s')",
		      dst->name, (unsigned long long)bytes, src->image ? "an image" : "a buffer",
		      dst->image ? "an image" : "a buffer", rd->decl->name, rd->cl.dname);
		return false;
	}
	bool ok = rt_done(rt, rd, e1, names[src->image][dst->image], false, -1, bytes, dst->loc);
	if (out)
		*out = e1;
	else
		release_event(e1);
	return ok;
}

bool
rt_copy_obj(OclRt *rt, RtDev *rd, const Obj *src, const Obj *dst, uint64_t bytes)
{
	return copy_obj(rt, rd, src, dst, bytes, 0, NULL, NULL);
}

/* A copy between devices of one context (rt_device.c gives a platform's
 * devices one): a command on from's queue, so that it follows what made
 * src there and precedes whatever later reuses src's memory, and to's
 * queue waits for it.  Where dst's memory held an earlier value
 * (after_target), the copy also waits for everything enqueued on to's
 * queue so far, which may still read it; into memory of its own it waits
 * for nothing there, so that neither device idles for the other's
 * unrelated work.  Neither host memory nor the host's attention. */
bool
rt_copy_across(OclRt *rt, RtDev *from, RtDev *to, const Obj *src, const Obj *dst,
               uint64_t bytes, bool after_target)
{
	cl_event before = NULL, done = NULL;
	if (after_target) {
		cl_int e = clEnqueueMarkerWithWaitList(to->q, 0, NULL, &before);
		if (e != CL_SUCCESS) {
			CLERR(rt, dst->loc, e, "cannot order a copy of '%%%s' to @%s", dst->name,
			      to->decl->name);
			return false;
		}
		clFlush(to->q);
	}
	bool ok = copy_obj(rt, from, src, dst, bytes, before ? 1 : 0, before ? &before : NULL,
	                   &done);
	if (before)
		clReleaseEvent(before);
	if (ok && done) {
		cl_int e = clEnqueueBarrierWithWaitList(to->q, 1, &done, NULL);
		if (e != CL_SUCCESS) {
			CLERR(rt, dst->loc, e, "cannot order a copy of '%%%s' to @%s", dst->name,
			      to->decl->name);
			ok = false;
		}
		clFlush(from->q);
	}
	if (done)
		clReleaseEvent(done);
	return ok;
}

bool
rt_write_after(OclRt *rt, RtDev *rd, const Obj *dst, const void *src, uint64_t bytes,
               RtDev *from, cl_event ready)
{
	if (!ready || from == rd)
		return rt_write(rt, rd, dst, src, bytes, ready ? 1 : 0, &ready, NULL);
	cl_int e;
	cl_event user = clCreateUserEvent(rd->ctx, &e);
	if (!user) {
		CLERR(rt, dst->loc, e, "cannot order a copy of '%%%s' to @%s", dst->name,
		      rd->decl->name);
		return false;
	}
	if (!rt_bridge_after(rt, ready, user)) {
		clSetUserEventStatus(user, CL_COMPLETE);
		clReleaseEvent(user);
		e = clWaitForEvents(1, &ready);
		if (e != CL_SUCCESS) {
			CLERR(rt, dst->loc, e, "a command on @%s ('%s') failed", from->decl->name,
			      from->cl.dname);
			return false;
		}
		return rt_write(rt, rd, dst, src, bytes, 0, NULL, NULL);
	}
	bool ok = rt_write(rt, rd, dst, src, bytes, 1, &user, NULL);
	clReleaseEvent(user);
	return ok;
}

void *
rt_pinned_new(RtDev *rd, uint64_t bytes, cl_mem *mem)
{
	cl_int e;
	*mem = NULL;
	if (!bytes)
		return NULL;
	cl_mem m = clCreateBuffer(rd->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
	                          &e);
	if (!m)
		return NULL;
	void *p = clEnqueueMapBuffer(rd->q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
	                             NULL, NULL, &e);
	if (!p) {
		clReleaseMemObject(m);
		return NULL;
	}
	*mem = m;
	return p;
}

void
rt_pinned_free(RtDev *rd, cl_mem mem, void *p)
{
	clEnqueueUnmapMemObject(rd->q, mem, p, 0, NULL, NULL);
	clFinish(rd->q);
	clReleaseMemObject(mem);
}
