/* runtime.c: OpenCL devices, programs and prim launches (see runtime.h). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ocl/ocl.h"
#include "ocl/runtime.h"
#include "ops/ops.h"
#include "ref/interp_prim.h"
#include "texture.h"
#include "walk.h"

typedef struct {
	cl_platform_id plat;
	cl_device_id id;
	cl_device_type type;
	char pname[256], dname[256];
} ClDev;

typedef struct {
	const Device *decl;
	ClDev cl;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	bool images;              /* CL_DEVICE_IMAGE_SUPPORT */
	size_t img_max[2];
	size_t max_wg;
} RtDev;

typedef struct {
	const PStmt *k;
	cl_kernel kern;
} KernCache;

struct OclRt {
	Module *m;
	OclRtOpts o;
	RtDev *devs;
	uint32_t ndevs;
	KernCache *kc;
	size_t nkc, capkc;
	bool said_fallback;
};

/* An OpenCL status in words. */
static const char *
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

#define CLERR(rt, loc, e, ...)                                                                 \
	error_at((rt)->m->ctx, (loc), __VA_ARGS__), \
	note_at((rt)->m->ctx, (Loc){0}, "OpenCL says: %s (status %d)", cl_words(e), (int)(e))

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

static char *
program_text(const Program *pg, size_t *len)
{
	size_t n = 0;
	for (const ProgLine *l = pg->first; l; l = l->next)
		n += l->n + 1;
	char *s = xmalloc(n + 1), *p = s;
	for (const ProgLine *l = pg->first; l; l = l->next) {
		memcpy(p, l->s, l->n);
		p += l->n;
		*p++ = '\n';
	}
	*p = 0;
	*len = n;
	return s;
}

static bool
open_device(OclRt *rt, RtDev *rd, const Program *pg)
{
	Ctx *ctx = rt->m->ctx;
	cl_int e;
	cl_device_id id = rd->cl.id;
	rd->ctx = clCreateContext(NULL, 1, &id, NULL, NULL, &e);
	if (!rd->ctx) {
		CLERR(rt, rd->decl->loc, e, "cannot open the OpenCL device '%s' for @%s",
		      rd->cl.dname, rd->decl->name);
		return false;
	}
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
	size_t len;
	char *src = program_text(pg, &len);
	if (strstr(src, "cl_khr_fp16")) {
		char ext[8192] = "";
		clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
		if (!strstr(ext, "cl_khr_fp16")) {
			error_at(ctx, pg->loc, "the program of @%s computes in f16, but the OpenCL device "
			         "'%s' has no fp16 (cl_khr_fp16)", rd->decl->name, rd->cl.dname);
			free(src);
			return false;
		}
	}
	const char *srcs[1] = {src};
	rd->prog = clCreateProgramWithSource(rd->ctx, 1, srcs, &len, &e);
	free(src);
	if (!rd->prog) {
		CLERR(rt, pg->loc, e, "cannot load the program of @%s", rd->decl->name);
		return false;
	}
	e = clBuildProgram(rd->prog, 1, &id, "", NULL, NULL);
	if (e != CL_SUCCESS) {
		size_t n = 0;
		clGetProgramBuildInfo(rd->prog, id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
		char *log = xcalloc(n + 1, 1);
		clGetProgramBuildInfo(rd->prog, id, CL_PROGRAM_BUILD_LOG, n, log, NULL);
		error_at(ctx, pg->loc, "the program of @%s does not build on '%s' of '%s'; the build "
		         "log:\n%s", rd->decl->name, rd->cl.dname, rd->cl.pname, log);
		free(log);
		return false;
	}
	return true;
}

/* ------------------------------------------------------- generated code */

/* Every operator lowered and every kernel launched: else a located error
 * that says which tool to run. */
static bool
check_generated(Module *m)
{
	bool ok = ocl_require_lowered(m, "ir-lower, ir-flatten-texture and ir-codegen-ocl "
	                              "first (or use --interp)");
	for (Prim *p = m->prims; p; p = p->next) {
		for (const PStmt *s = p->body.first; s; s = s->next) {
			if (s->kind == S_ALLOC)
				continue;
			if (s->kind != S_KERNEL) {
				error_at(m->ctx, s->loc, "prim @%s has code outside kernels; OpenCL runs "
				         "kernels only: run ir-codegen-ocl (or use --interp)", p->name);
				ok = false;
				break;
			}
			if (!s->u.kernel.launch) {
				error_at(m->ctx, s->loc, "kernel @%s has no launch: run ir-codegen-ocl first "
				         "(or use --interp)", s->u.kernel.name);
				ok = false;
				break;
			}
		}
	}
	return ok;
}

/* The device a prim runs on: codegen's rule (the device of its first
 * placed buffer, else the default). */
static RtDev *
prim_dev(OclRt *rt, const Prim *p)
{
	const Device *d = ocl_prim_device(rt->m, p);
	for (uint32_t i = 0; i < rt->ndevs; i++)
		if (rt->devs[i].decl == d)
			return &rt->devs[i];
	return NULL;
}

OclRt *
oclrt_new(Module *m, const OclRtOpts *o)
{
	if (!check_generated(m))
		return NULL;
	OclRt *rt = xcalloc(1, sizeof *rt);
	rt->m = m;
	rt->o = *o;
	for (uint32_t i = 0; i < o->nbinds; i++)
		if (!module_device(m, sym_intern_cstr(m, o->binds[i].dev))) {
			error_at(m->ctx, (Loc){0}, "--device @%s: the module declares no device @%s",
			         o->binds[i].dev, o->binds[i].dev);
			oclrt_free(rt);
			return NULL;
		}
	if (m->prims && !m->programs) {
		error_at(m->ctx, m->prims->loc, "the module has no OpenCL programs: run ir-codegen-ocl "
		         "first (or use --interp)");
		oclrt_free(rt);
		return NULL;
	}
	uint32_t npg = 0;
	for (const Program *pg = m->programs; pg; pg = pg->next)
		npg++;
	if (!npg)
		return rt;
	uint32_t nall;
	ClDev *all = all_devices(&nall);
	if (!nall) {
		error_at(m->ctx, m->programs->loc, "no OpenCL platform or device here (is an ICD such "
		         "as POCL installed, under /etc/OpenCL/vendors?)");
		oclrt_free(rt);
		return NULL;
	}
	rt->devs = xcalloc(npg, sizeof *rt->devs);
	bool ok = true;
	for (const Program *pg = m->programs; pg && ok; pg = pg->next) {
		RtDev *rd = &rt->devs[rt->ndevs++];
		rd->decl = module_device(m, pg->dev);
		ok = rd->decl && pick_device(rt, rd->decl, all, nall, &rd->cl) &&
		     open_device(rt, rd, pg);
	}
	free(all);
	if (!ok) {
		oclrt_free(rt);
		return NULL;
	}
	return rt;
}

void
oclrt_free(OclRt *rt)
{
	if (!rt)
		return;
	for (size_t i = 0; i < rt->nkc; i++)
		clReleaseKernel(rt->kc[i].kern);
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		RtDev *rd = &rt->devs[i];
		if (rd->prog)
			clReleaseProgram(rd->prog);
		if (rd->q)
			clReleaseCommandQueue(rd->q);
		if (rd->ctx)
			clReleaseContext(rd->ctx);
	}
	free(rt->kc);
	free(rt->devs);
	free(rt);
}

/* -------------------------------------------------------------- calls */

/* A memory object of a prim being run: a parameter or a prim-level
 * alloc. */
typedef struct {
	const PVar *v;
	cl_mem mem;
	bool image;
	size_t wh[2];
} Obj;

static cl_kernel
kernel_of(OclRt *rt, RtDev *rd, const PStmt *k)
{
	for (size_t i = 0; i < rt->nkc; i++)
		if (rt->kc[i].k == k)
			return rt->kc[i].kern;
	char name[512];
	size_t j = 0;
	for (const char *s = k->u.kernel.name; *s && j < sizeof name - 1; s++)
		name[j++] = *s == '.' ? '_' : *s;
	name[j] = 0;
	cl_int e;
	cl_kernel kern = clCreateKernel(rd->prog, name, &e);
	if (!kern) {
		CLERR(rt, k->loc, e, "cannot make the kernel @%s on @%s", k->u.kernel.name,
		      rd->decl->name);
		return NULL;
	}
	if (rt->nkc == rt->capkc) {
		rt->capkc = rt->capkc ? 2 * rt->capkc : 16;
		rt->kc = xrealloc(rt->kc, rt->capkc * sizeof *rt->kc);
	}
	rt->kc[rt->nkc++] = (KernCache){k, kern};
	return kern;
}

/* A buffer or image for v (image2d[W,H] of an alloc in img, else the
 * flattening's), holding src's data when src is not NULL. */
static bool
make_obj(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, const Tensor *src, Obj *ob)
{
	Ctx *ctx = rt->m->ctx;
	cl_int e = CL_SUCCESS;
	ob->v = v;
	const Type *ty = v->type;
	ElemKind ek = (ElemKind)ty->dt.kind;
	uint64_t bytes = (uint64_t)type_numel(ty) * elem_size(ek);
	ob->image = v->vd && v->vd->scope && is_texture_scope(v->vd->scope);
	if (ob->image) {
		int64_t wh[2];
		char why[160];
		if (img && img[0] > 0) {
			wh[0] = img[0];
			wh[1] = img[1];
		} else if (!texture_image(ty, v->vd->scope, wh, why, sizeof why)) {
			error_at(ctx, v->loc, "'%%%s' cannot be an image: %s", v->name, why);
			return false;
		}
		if (!rd->images) {
			error_at(ctx, v->loc, "'%%%s' is in %s, but the OpenCL device '%s' of @%s has no "
			         "images", v->name, v->vd->scope, rd->cl.dname, rd->decl->name);
			return false;
		}
		if ((size_t)wh[0] > rd->img_max[0] || (size_t)wh[1] > rd->img_max[1]) {
			error_at(ctx, v->loc, "the image of '%%%s' is %lld x %lld texels, too large for "
			         "'%s' of @%s (at most %zu x %zu)", v->name, (long long)wh[0],
			         (long long)wh[1], rd->cl.dname, rd->decl->name, rd->img_max[0],
			         rd->img_max[1]);
			return false;
		}
		ob->wh[0] = (size_t)wh[0];
		ob->wh[1] = (size_t)wh[1];
		cl_image_format f = {CL_RGBA, ek == ET_F16 ? CL_HALF_FLOAT : CL_FLOAT};
		cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = ob->wh[0],
		                   .image_height = ob->wh[1]};
		ob->mem = clCreateImage(rd->ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &e);
		if (ob->mem && src) {
			size_t org[3] = {0, 0, 0}, reg[3] = {ob->wh[0], ob->wh[1], 1};
			e = clEnqueueWriteImage(rd->q, ob->mem, CL_FALSE, org, reg, 0, 0, src->data, 0,
			                        NULL, NULL);
		}
	} else {
		ob->mem = clCreateBuffer(rd->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &e);
		if (ob->mem && src && bytes)
			e = clEnqueueWriteBuffer(rd->q, ob->mem, CL_FALSE, 0, bytes, src->data, 0, NULL,
			                         NULL);
	}
	if (!ob->mem || e != CL_SUCCESS) {
		char t[128];
		CLERR(rt, v->loc, e, "cannot hold '%%%s' (%s, %llu bytes) on @%s ('%s')", v->name,
		      type_text(ty, t, sizeof t), (unsigned long long)bytes, rd->decl->name,
		      rd->cl.dname);
		return false;
	}
	return true;
}

static bool
read_back(OclRt *rt, RtDev *rd, const Obj *ob, Tensor *t)
{
	cl_int e;
	uint64_t bytes = (uint64_t)t->numel * elem_size(t->kind);
	if (!bytes)
		return true;
	if (ob->image) {
		size_t org[3] = {0, 0, 0}, reg[3] = {ob->wh[0], ob->wh[1], 1};
		e = clEnqueueReadImage(rd->q, ob->mem, CL_TRUE, org, reg, 0, 0, t->data, 0, NULL, NULL);
	} else {
		e = clEnqueueReadBuffer(rd->q, ob->mem, CL_TRUE, 0, bytes, t->data, 0, NULL, NULL);
	}
	if (e != CL_SUCCESS) {
		CLERR(rt, ob->v->loc, e, "cannot read '%%%s' back from @%s", ob->v->name,
		      rd->decl->name);
		return false;
	}
	return true;
}

/* Sets argument i of kern to PVar a: its memory object, or a scalar
 * parameter's value from its rank-0 tensor. */
static bool
set_arg(OclRt *rt, cl_kernel kern, cl_uint i, const PVar *a, const Obj *objs, uint32_t nobj,
        const Prim *p, Tensor *const *args, const PStmt *k)
{
	cl_int e = CL_INVALID_VALUE;
	if (a->kind == PV_SCALAR) {
		for (uint32_t j = 0; j < p->nparams; j++)
			if (p->params[j] == a) {
				const Tensor *t = args[j];
				union { float f; double d; int8_t i8; int16_t i16; int32_t i32; int64_t i64;
				        uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } u;
				size_t sz = elem_size(t->kind);
				if (t->kind == ET_F16) {     /* computed as float (ocl_impl.h) */
					u.f = (float)tensor_get(t, 0);
					sz = sizeof u.f;
				} else {
					memcpy(&u, t->data, sz);
				}
				e = clSetKernelArg(kern, i, sz, &u);
			}
	} else {
		for (uint32_t j = 0; j < nobj; j++)
			if (objs[j].v == a)
				e = clSetKernelArg(kern, i, sizeof(cl_mem), &objs[j].mem);
	}
	if (e != CL_SUCCESS) {
		CLERR(rt, k->loc, e, "cannot pass '%%%s' to kernel @%s", a->name, k->u.kernel.name);
		return false;
	}
	return true;
}

static bool
launch(OclRt *rt, RtDev *rd, const PStmt *k, const Obj *objs, uint32_t nobj, const Prim *p,
       Tensor *const *args)
{
	const Launch *l = k->u.kernel.launch;
	cl_kernel kern = kernel_of(rt, rd, k);
	if (!kern)
		return false;
	for (uint32_t i = 0; i < l->nargs; i++)
		if (!set_arg(rt, kern, i, l->args[i], objs, nobj, p, args, k))
			return false;
	size_t g[3], lo[3], wg = 1;
	for (int i = 0; i < 3; i++) {
		g[i] = (size_t)l->global[i];
		lo[i] = (size_t)l->local[i];
		wg *= lo[i];
	}
	if (wg > rd->max_wg) {
		error_at(rt->m->ctx, l->loc, "kernel @%s has work groups of %zu items; '%s' of @%s "
		         "takes at most %zu", k->u.kernel.name, wg, rd->cl.dname, rd->decl->name,
		         rd->max_wg);
		return false;
	}
	cl_int e = clEnqueueNDRangeKernel(rd->q, kern, 3, NULL, g, lo, 0, NULL, NULL);
	if (e != CL_SUCCESS) {
		CLERR(rt, l->loc, e, "cannot launch kernel @%s on @%s", k->u.kernel.name,
		      rd->decl->name);
		return false;
	}
	return true;
}

/* Compares OpenCL's results with the interpreter's: floats within
 * 1e-4 relative plus 1e-5 absolute (OpenCL's exp, log and fused
 * multiply-adds differ from the interpreter's double-then-round in the
 * last bits), NaN equal to NaN; integers exactly. */
static bool
compare(OclRt *rt, const Value *call, const Prim *p, uint32_t r, const Tensor *got,
        const Tensor *want)
{
	bool fl = elem_is_float(got->kind);
	for (int64_t i = 0; i < got->numel; i++) {
		double a = fl ? tensor_get(got, i) : (double)tensor_get_int(got, i);
		double b = fl ? tensor_get(want, i) : (double)tensor_get_int(want, i);
		bool same = fl ? (isnan(a) && isnan(b)) || fabs(a - b) <= 1e-5 + 1e-4 * fabs(b)
		               : tensor_get_int(got, i) == tensor_get_int(want, i);
		if (!same) {
			error_at(rt->m->ctx, call->loc, "--check: @%s differs from the interpreter: result "
			         "%u element %lld is %.9g on OpenCL, %.9g in the interpreter (off by %.3g)",
			         p->name, (unsigned)r, (long long)i, a, b, fabs(a - b));
			return false;
		}
	}
	return true;
}

static bool
check_call(OclRt *rt, const Value *call, const Prim *p, Tensor *const *args, uint32_t nargs,
           uint32_t nin)
{
	Tensor **ref = xcalloc(nargs, sizeof *ref);
	for (uint32_t i = 0; i < nargs; i++) {
		ref[i] = tensor_copy(args[i]);
		if (i >= nin)
			tensor_poison(ref[i]);
	}
	bool ok = prim_exec(rt->m->ctx, p, ref, nargs, NULL);
	for (uint32_t i = nin; i < nargs && ok; i++)
		ok = compare(rt, call, p, i - nin, args[i], ref[i]);
	for (uint32_t i = 0; i < nargs; i++)
		tensor_free(ref[i]);
	free(ref);
	return ok;
}

bool
oclrt_run_prim(void *ud, const Value *call, const Prim *p, Tensor *const *args, uint32_t nargs,
               uint32_t nin)
{
	OclRt *rt = ud;
	RtDev *rd = prim_dev(rt, p);
	if (!rd) {
		error_at(rt->m->ctx, call->loc, "@%s has no OpenCL program for its device: run "
		         "ir-codegen-ocl (or use --interp)", p->name);
		return false;
	}
	uint32_t nalloc = 0;
	for (const PStmt *s = p->body.first; s; s = s->next)
		nalloc += s->kind == S_ALLOC;
	Obj *objs = xcalloc(p->nparams + nalloc + 1, sizeof *objs);
	uint32_t nobj = 0;
	bool ok = true;
	for (uint32_t i = 0; i < p->nparams && ok; i++)
		if (p->params[i]->kind == PV_BUFFER)
			ok = make_obj(rt, rd, p->params[i], NULL, i < nin ? args[i] : NULL, &objs[nobj++]);
	/* workspaces: one per call, freed when it ends */
	for (const PStmt *s = p->body.first; s && ok; s = s->next)
		if (s->kind == S_ALLOC)
			ok = make_obj(rt, rd, s->u.alloc.buf, s->u.alloc.image, NULL, &objs[nobj++]);
	for (const PStmt *s = p->body.first; s && ok; s = s->next)
		if (s->kind == S_KERNEL)
			ok = launch(rt, rd, s, objs, nobj, p, args);
	for (uint32_t i = nin, j = 0; i < p->nparams && ok; i++) {
		while (j < nobj && objs[j].v != p->params[i])
			j++;
		if (j < nobj)
			ok = read_back(rt, rd, &objs[j], args[i]);
	}
	if (ok) {
		cl_int e = clFinish(rd->q);
		if (e != CL_SUCCESS) {
			CLERR(rt, call->loc, e, "@%s failed on @%s", p->name, rd->decl->name);
			ok = false;
		}
	} else {
		clFinish(rd->q);
	}
	for (uint32_t i = 0; i < nobj; i++)
		if (objs[i].mem)
			clReleaseMemObject(objs[i].mem);
	free(objs);
	if (ok && rt->o.check)
		ok = check_call(rt, call, p, args, nargs, nin);
	if (!ok)
		note_at(rt->m->ctx, call->loc, "in the call of @%s here", p->name);
	return ok;
}
