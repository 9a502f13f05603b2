/* runtime.c: running prims' kernels (see runtime.h); devices, programs
 * and memory objects are in rt_*.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl.h"
#include "ocl/rt_impl.h"
#include "ref/interp_prim.h"

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
	bincache_open(&rt->cache, o->no_cache);
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
	if (!m->programs)
		return rt;
	if (!rt_map_devices(rt, m) || !rt_check_limits(rt)) {
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
		if (rd->prog && rd->cache_key)
			bincache_store(&rt->cache, rd->prog, rd->cache_key);
		free(rd->cache_key);
		rt_pool_free(rt, rd);
		if (rd->prog)
			clReleaseProgram(rd->prog);
		if (rd->q)
			clReleaseCommandQueue(rd->q);
		if (rd->ctx)
			clReleaseContext(rd->ctx);
	}
	bincache_close(&rt->cache);
	free(rt->kc);
	free(rt->devs);
	free(rt);
}


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
			ok = rt_make_obj(rt, rd, p->params[i], NULL, i < nin ? args[i] : NULL, &objs[nobj++]);
	uint32_t nparobj = nobj;
	/* workspaces: live for the call */
	for (const PStmt *s = p->body.first; s && ok; s = s->next)
		if (s->kind == S_ALLOC)
			ok = rt_workspace(rt, rd, s, &objs[nobj++]);
	for (const PStmt *s = p->body.first; s && ok; s = s->next)
		if (s->kind == S_KERNEL)
			ok = launch(rt, rd, s, objs, nobj, p, args);
	for (uint32_t i = nin, j = 0; i < p->nparams && ok; i++) {
		while (j < nobj && objs[j].v != p->params[i])
			j++;
		if (j < nobj)
			ok = rt_read_back(rt, rd, &objs[j], args[i]);
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
	for (uint32_t i = 0; i < nobj; i++) {
		if (i >= nparobj)
			rt_release_workspace(rt, rd, &objs[i]);
		else if (objs[i].mem)
			clReleaseMemObject(objs[i].mem);
	}
	free(objs);
	if (ok && rt->o.check)
		ok = check_call(rt, call, p, args, nargs, nin);
	if (!ok)
		note_at(rt->m->ctx, call->loc, "in the call of @%s here", p->name);
	return ok;
}
