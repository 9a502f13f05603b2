/* rt_device.c: mapping declared devices to OpenCL devices, opening them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"

/* An OpenCL status in words. */
const char *
cl_words(cl_int e)
{
	switch (e) {
	case CL_OUT_OF_RESOURCES: return "the device is out of resources";
	case CL_OUT_OF_HOST_MEMORY: return "the host is out of memory";
	case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "the device is out of memory";
	case CL_INVALID_BUFFER_SIZE: return "the buffer is larger than the device allows";
	case CL_INVALID_IMAGE_SIZE: return "the image is too large for the device";
	case CL_IMAGE_FORMAT_NOT_SUPPORTED: return "the device has no such image format";
	case CL_INVALID_WORK_GROUP_SIZE: return "the device does not take this work-group size";
	case CL_INVALID_WORK_ITEM_SIZE: return "a local size is larger than the device allows";
	case CL_INVALID_KERNEL_ARGS: return "a kernel argument is not set";
	case CL_INVALID_KERNEL_NAME: return "the program has no such kernel";
	case CL_BUILD_PROGRAM_FAILURE: return "the program does not build";
	case CL_DEVICE_NOT_FOUND: return "no such device";
	case CL_INVALID_ARG_SIZE: return "a kernel argument has the wrong size";
	case CL_INVALID_MEM_OBJECT: return "a kernel argument is not the memory object it expects";
	}
	return "an OpenCL error";
}

/* ------------------------------------------------------------ devices */

static int
cmp_plat(const void *a, const void *b)
{
	const ClDev *x = a, *y = b;
	int c = strcmp(x->pname, y->pname);
	return c ? c : (x->plat < y->plat ? -1 : x->plat > y->plat);
}

/* Every device of every platform, platforms in name order, devices in the
 * platform's order.  *n 0 when there is no platform. */
static ClDev *
all_devices(uint32_t *n)
{
	*n = 0;
	cl_uint np = 0;
	if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0)
		return NULL;
	cl_platform_id *pids = xcalloc(np, sizeof *pids);
	clGetPlatformIDs(np, pids, NULL);
	ClDev *plats = xcalloc(np, sizeof *plats);
	for (cl_uint i = 0; i < np; i++) {
		plats[i].plat = pids[i];
		clGetPlatformInfo(pids[i], CL_PLATFORM_NAME, sizeof plats[i].pname - 1, plats[i].pname,
		                  NULL);
	}
	free(pids);
	/* qsort is not stable, but ties are broken by the id: the order of
	 * two platforms of one name does not matter to selection by name */
	qsort(plats, np, sizeof *plats, cmp_plat);
	ClDev *out = NULL;
	uint32_t cnt = 0;
	for (cl_uint i = 0; i < np; i++) {
		cl_uint nd = 0;
		if (clGetDeviceIDs(plats[i].plat, CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || !nd)
			continue;
		cl_device_id *d = xcalloc(nd, sizeof *d);
		clGetDeviceIDs(plats[i].plat, CL_DEVICE_TYPE_ALL, nd, d, NULL);
		out = xrealloc(out, (cnt + nd) * sizeof *out);
		for (cl_uint j = 0; j < nd; j++) {
			ClDev *c = &out[cnt++];
			*c = plats[i];
			c->id = d[j];
			clGetDeviceInfo(d[j], CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL);
			clGetDeviceInfo(d[j], CL_DEVICE_NAME, sizeof c->dname - 1, c->dname, NULL);
		}
		free(d);
	}
	free(plats);
	*n = cnt;
	return out;
}

static const char *
type_word(cl_device_type t)
{
	return t & CL_DEVICE_TYPE_GPU ? "gpu" : t & CL_DEVICE_TYPE_ACCELERATOR ? "accel"
	     : t & CL_DEVICE_TYPE_CPU ? "cpu" : "other";
}

static void
list_devices(OclRt *rt, const ClDev *all, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		note_at(rt->m->ctx, (Loc){0}, "there is the %s device '%s' of the platform '%s'",
		        type_word(all[i].type), all[i].dname, all[i].pname);
}

/* The OpenCL device of declared device d, into *out; false after
 * reporting. */
static bool
pick_device(OclRt *rt, const Device *d, const ClDev *all, uint32_t n, ClDev *out)
{
	Ctx *ctx = rt->m->ctx;
	const OclBind *b = NULL;
	for (uint32_t i = 0; i < rt->o.nbinds; i++)
		if (strcmp(rt->o.binds[i].dev, d->name) == 0)
			b = &rt->o.binds[i];
	if (b) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++)
			if (strstr(all[i].pname, b->name) || strstr(all[i].dname, b->name)) {
				if (k++ == b->index) {
					*out = all[i];
					return true;
				}
			}
		error_at(ctx, d->loc, "--device @%s=%s:%u: %s OpenCL device's platform or device name "
		         "contains '%s'", d->name, b->name, (unsigned)b->index,
		         k ? "too few; no further" : "no", b->name);
		list_devices(rt, all, n);
		return false;
	}
	cl_device_type want = d->kind == DK_GPU ? CL_DEVICE_TYPE_GPU
	                    : d->kind == DK_ACCEL ? CL_DEVICE_TYPE_ACCELERATOR : CL_DEVICE_TYPE_CPU;
	int64_t k = 0, have = 0;
	for (uint32_t i = 0; i < n; i++)
		if (all[i].type & want) {
			have++;
			if (k++ == d->index) {
				*out = all[i];
				return true;
			}
		}
	if (d->kind == DK_GPU && have == 0) {
		/* every machine runs every model: POCL's CPU device stands in */
		const ClDev *cpu = NULL;
		for (uint32_t i = 0; i < n && !cpu; i++)
			if ((all[i].type & CL_DEVICE_TYPE_CPU) &&
			    strstr(all[i].pname, "Portable Computing Language"))
				cpu = &all[i];
		for (uint32_t i = 0; i < n && !cpu; i++)
			if (all[i].type & CL_DEVICE_TYPE_CPU)
				cpu = &all[i];
		if (cpu) {
			if (!rt->said_fallback)
				fprintf(stderr, "ir-run: no OpenCL GPU here; @%s runs on the CPU device '%s' "
				        "of '%s'\n", d->name, cpu->dname, cpu->pname);
			rt->said_fallback = true;
			*out = *cpu;
			return true;
		}
	}
	error_at(ctx, d->loc, "device @%s is %s(%lld), but there %s %lld OpenCL %s device%s",
	         d->name, type_word(want), (long long)d->index, have == 1 ? "is" : "are",
	         (long long)have, type_word(want), have == 1 ? "" : "s");
	list_devices(rt, all, n);
	return false;
}

/* Whether declared devices a and b share a context: when both are the
 * same OpenCL device (POCL's cpu standing for a cpu and a gpu, say), so a
 * value moves between them by a copy command on that device's memory
 * (rt_copy_across), and with --peer-copies when both are of one
 * platform.  Not by default across a platform's devices: NVIDIA's OpenCL
 * keeps a buffer of a context of two GPUs on one of them and migrates it
 * through the host inside the enqueue call (on two H200s, 256 MiB from
 * one GPU to the other: 1298 ms a run in one context, 108 ms through
 * host memory; bench/h100.md).  --host-copies: a context each. */
static bool
same_context(const OclRt *rt, const RtDev *a, const RtDev *b)
{
	if (rt->o.host_copies)
		return a == b;
	return a->cl.id == b->cl.id || (rt->o.peer_copies && a->cl.plat == b->cl.plat);
}

/* rd's context: one already open that rd shares, else a new one for
 * every device that will share it. */
static bool
open_context(OclRt *rt, RtDev *rd)
{
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		RtDev *o = &rt->devs[i];
		if (o != rd && o->ctx && same_context(rt, o, rd)) {
			rd->ctx = o->ctx;
			clRetainContext(rd->ctx);
			return true;
		}
	}
	cl_device_id *ids = xcalloc(rt->ndevs, sizeof *ids);
	cl_uint n = 0;
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		bool seen = false;
		for (cl_uint j = 0; j < n; j++)
			seen |= ids[j] == rt->devs[i].cl.id;
		if (!seen && same_context(rt, &rt->devs[i], rd))
			ids[n++] = rt->devs[i].cl.id;
	}
	cl_int e;
	rd->ctx = clCreateContext(NULL, n, ids, NULL, NULL, &e);
	free(ids);
	if (!rd->ctx) {
		CLERR(rt, rd->decl->loc, e, "cannot open the OpenCL device '%s' for @%s",
		      rd->cl.dname, rd->decl->name);
		return false;
	}
	return true;
}

static bool
open_device(OclRt *rt, RtDev *rd, const Program *pg)
{
	cl_int e;
	cl_device_id id = rd->cl.id;
	if (!open_context(rt, rd))
		return false;
	rd->q = clCreateCommandQueue(rd->ctx, id, CL_QUEUE_PROFILING_ENABLE, &e);
	if (!rd->q) {
		CLERR(rt, rd->decl->loc, e, "cannot make a queue on '%s' for @%s", rd->cl.dname,
		      rd->decl->name);
		return false;
	}
	cl_bool img = CL_FALSE;
	clGetDeviceInfo(id, CL_DEVICE_IMAGE_SUPPORT, sizeof img, &img, NULL);
	rd->images = img;
	clGetDeviceInfo(id, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t), &rd->img_max[0], NULL);
	clGetDeviceInfo(id, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t), &rd->img_max[1], NULL);
	clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t), &rd->max_wg, NULL);
	cl_uint bits = 0;
	clGetDeviceInfo(id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
	rd->base_align = bits >= 8 ? bits / 8 : 1;
	return rt_build_program(rt, rd, pg);
}

/* Maps every program's device to an OpenCL device and opens it. */
bool
rt_map_devices(OclRt *rt, Module *m)
{
	uint32_t npg = 0;
	for (const Program *pg = m->programs; pg; pg = pg->next)
		npg++;
	uint32_t nall;
	ClDev *all = all_devices(&nall);
	if (!nall) {
		error_at(m->ctx, m->programs->loc, "no OpenCL platform or device here (is an ICD such "
		         "as POCL installed, under /etc/OpenCL/vendors?)");
		return false;
	}
	rt->devs = xcalloc(npg, sizeof *rt->devs);
	bool ok = true;
	/* every device picked first: a platform's context holds them all */
	for (const Program *pg = m->programs; pg && ok; pg = pg->next) {
		RtDev *rd = &rt->devs[rt->ndevs++];
		rd->decl = module_device(m, pg->dev);
		ok = rd->decl && pick_device(rt, rd->decl, all, nall, &rd->cl);
	}
	uint32_t i = 0;
	for (const Program *pg = m->programs; pg && ok; pg = pg->next)
		ok = open_device(rt, &rt->devs[i++], pg);
	free(all);
	return ok;
}

RtDev *
rt_dev_of(OclRt *rt, const Device *d)
{
	for (uint32_t i = 0; i < rt->ndevs; i++)
		if (rt->devs[i].decl == d)
			return &rt->devs[i];
	return NULL;
}
