/* runtime.c: running prims' kernels (see runtime.h); devices, programs
 * and memory objects are in rt_*.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	return rt_dev_of(rt, ocl_prim_device(rt->m, p));
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
	rt_live_init(rt);
	rt_const_init(rt);
	return rt;
}

void
oclrt_free(OclRt *rt)
{
	if (!rt)
		return;
	rt_bridge_free(rt);
	/* the run's memory objects before the contexts they belong to */
	rt_vals_release(rt);
	rt_consts_free(rt);
	rt_plan_free(rt);
	rt_live_free(rt);
	for (size_t i = 0; i < rt->nkc; i++)
		clReleaseKernel(rt->kc[i].kern);
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		RtDev *rd = &rt->devs[i];
		if (rd->prog && rd->cache_key)
			bincache_store(&rt->cache, rd->prog, rd->cl.id, rd->cache_key);
		free(rd->cache_key);
		if (rt->o.stats)
			rt_const_say(rd, rt->o.stats);
		rt_pool_free(rt, rd);
		if (rd->prog)
			clReleaseProgram(rd->prog);
		if (rd->q)
			clReleaseCommandQueue(rd->q);
		if (rd->ctx)
			clReleaseContext(rd->ctx);
	}
	bincache_close(&rt->cache);
	rt_prof_free(rt);
	free(rt->kc);
	free(rt->devs);
	free(rt);
}


cl_kernel
rt_kernel_new(OclRt *rt, RtDev *rd, const PStmt *k)
{
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
	rt->made_kernels++;
	return kern;
}

static KernCache *
kernel_of(OclRt *rt, RtDev *rd, const PStmt *k)
{
	for (size_t i = 0; i < rt->nkc; i++)
		if (rt->kc[i].k == k)
			return &rt->kc[i];
	cl_kernel kern = rt_kernel_new(rt, rd, k);
	if (!kern)
		return NULL;
	if (rt->nkc == rt->capkc) {
		rt->capkc = rt->capkc ? 2 * rt->capkc : 16;
		rt->kc = xrealloc(rt->kc, rt->capkc * sizeof *rt->kc);
	}
	rt->kc[rt->nkc] = (KernCache){k, kern, rt_kernel_flops(k)};
	return &rt->kc[rt->nkc++];
}

bool
rt_set_scalar(OclRt *rt, cl_kernel kern, cl_uint i, const PVar *a, const Tensor *t,
              const PStmt *k)
{
	union { float f; double d; int8_t i8; int16_t i16; int32_t i32; int64_t i64;
	        uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } u;
	size_t sz = elem_size(t->kind);
	if (t->kind == ET_F16) {     /* computed as float (ocl_impl.h) */
		u.f = (float)tensor_get(t, 0);
		sz = sizeof u.f;
	} else {
		memcpy(&u, t->data, sz);
	}
	cl_int e = clSetKernelArg(kern, i, sz, &u);
	if (e != CL_SUCCESS) {
		CLERR(rt, k->loc, e, "cannot pass '%%%s' to kernel @%s", a->name, k->u.kernel.name);
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
			if (p->params[j] == a)
				return rt_set_scalar(rt, kern, i, a, args[j], k);
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
	KernCache *kc = kernel_of(rt, rd, k);
	if (!kc)
		return false;
	cl_kernel kern = kc->kern;
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
	cl_event ev = NULL;
	cl_int e = clEnqueueNDRangeKernel(rd->q, kern, 3, NULL, g, lo, 0, NULL, &ev);
	if (e != CL_SUCCESS) {
		CLERR(rt, l->loc, e, "cannot launch kernel @%s on @%s", k->u.kernel.name,
		      rd->decl->name);
		return false;
	}
	bool ok = rt_done(rt, rd, ev, k->u.kernel.name, true, kc->flops, 0, l->loc);
	clReleaseEvent(ev);
	return ok;
}

/* Compares OpenCL's results with the interpreter's: floats within
 * 1e-4 relative plus 1e-5 absolute (OpenCL's exp, log and fused
 * multiply-adds differ from the interpreter's double-then-round in the
 * last bits), f16 within 1e-2 relative plus 1e-3 absolute (both round
 * to f16 after every operation, but exp or a multiply-add rounded from
 * OpenCL's float may land an f16 ulp from the interpreter's, and sums
 * carry that on), NaN equal to NaN, an infinity to itself; integers
 * exactly. */
static bool
compare(OclRt *rt, const Value *call, const Prim *p, uint32_t r, const Tensor *got,
        const Tensor *want)
{
	bool fl = elem_is_float(got->kind);
	double rel = got->kind == ET_F16 ? 1e-2 : 1e-4, abs_ = got->kind == ET_F16 ? 1e-3 : 1e-5;
	for (int64_t i = 0; i < got->numel; i++) {
		double a = fl ? tensor_get(got, i) : (double)tensor_get_int(got, i);
		double b = fl ? tensor_get(want, i) : (double)tensor_get_int(want, i);
		bool same = fl ? a == b || (isnan(a) && isnan(b)) || fabs(a - b) <= abs_ + rel * fabs(b)
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
	for (uint32_t i = 0; i < nargs; i++)
		if (!oclrt_to_host(rt, args[i]))
			return false;
	Tensor **ref = xcalloc(nargs, sizeof *ref);
	for (uint32_t i = 0; i < nargs; i++) {
		ref[i] = tensor_copy(args[i]);
		if (i >= nin)
			tensor_poison(ref[i]);
	}
	bool ok = prim_exec(rt->m->ctx, p, ref, nargs, NULL);
	for (uint32_t i = nin; i < nargs && ok; i++) {
		ok = compare(rt, call, p, i - nin, args[i], ref[i]);
		rt->checked_elems += ok ? (uint64_t)args[i]->numel : 0;
	}
	rt->checked_calls += ok;
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
	/* operands where they are (copied here if they are not), results on
	 * this device; scalars are read on the host */
	for (uint32_t i = 0; i < p->nparams && ok; i++) {
		const PVar *v = p->params[i];
		if (v->kind != PV_BUFFER) {
			ok = oclrt_to_host(rt, args[i]);
			continue;
		}
		const Obj *o = i < nin ? rt_val_on(rt, rd, args[i], v) : rt_val_new(rt, rd, args[i], v);
		if (!o) {
			ok = false;
			break;
		}
		objs[nobj] = *o;
		objs[nobj++].v = v;
	}
	uint32_t nparobj = nobj;
	/* workspaces: live for the call, where a memory plan puts them */
	for (const PStmt *s = p->body.first; s && ok; s = s->next) {
		if (s->kind != S_ALLOC)
			continue;
		const PVar *b = s->u.alloc.buf;
		const PlaceList *pl = rt->m->places ? module_places(rt->m, b) : NULL;
		bool planned = false;
		ok = rt_plan_obj(rt, rd, pl && pl->n == 1 ? &pl->p[0] : NULL, b->name, b->loc, b->type,
		                 b->vd ? b->vd->scope : NULL, s->u.alloc.image, &objs[nobj], &planned);
		objs[nobj].v = b;
		if (ok && !planned)
			ok = rt_workspace(rt, rd, s, &objs[nobj]);
		nobj++;
	}
	for (const PStmt *s = p->body.first; s && ok; s = s->next)
		if (s->kind == S_KERNEL)
			ok = launch(rt, rd, s, objs, nobj, p, args);
	for (uint32_t i = nparobj; i < nobj; i++) {
		if (objs[i].planned)
			rt_obj_release(rt, rd, &objs[i]);
		else
			rt_release_workspace(rt, rd, &objs[i]);
	}
	free(objs);
	if (ok && rt->o.check)
		ok = check_call(rt, call, p, args, nargs, nin);
	if (ok)
		rt_live_after(rt, call, args);
	if (!ok)
		note_at(rt->m->ctx, call->loc, "in the call of @%s here", p->name);
	return ok;
}

void
oclrt_first_run_begin(OclRt *rt)
{
	rt_progress_begin(rt, "ir-run: the first run of @main (OpenCL compiles each kernel at its "
	                  "first launch; a later ir-run takes them from the caches)");
}

void
oclrt_first_run_end(OclRt *rt)
{
	rt_progress_end(rt);
}

void
oclrt_check_say(const OclRt *rt, FILE *f)
{
	fprintf(f, "ir-run: --check: %llu call%s of prims equal the interpreter's (%llu result "
	        "elements compared)\n", (unsigned long long)rt->checked_calls,
	        rt->checked_calls == 1 ? "" : "s", (unsigned long long)rt->checked_elems);
}

const InterpDevices oclrt_walk = {
	oclrt_run_prim, oclrt_to_host, oclrt_device_copy, oclrt_placed,
	oclrt_const_held, oclrt_const_made,
};
const InterpDevices oclrt_walk_no_keep = {
	oclrt_run_prim, oclrt_to_host, oclrt_device_copy, oclrt_placed, NULL, NULL,
};

double
rt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void
oclrt_begin_run(OclRt *rt)
{
	rt->run_t0 = rt_now_ms();
	/* the walk places the plan's buffers again in every run (the
	 * executor once, before its first) */
	for (size_t i = 0; i < rt->nplan && !rt->planned; i++)
		rt->plan[i].unaligned = 0;
	rt->run_objs0 = 0;
	for (uint32_t i = 0; i < rt->ndevs; i++)
		rt->run_objs0 += rt->devs[i].made;
	rt->run_kernels0 = rt->made_kernels;
}

bool
oclrt_end_run(OclRt *rt)
{
	bool ok = true;
	double t0 = rt_now_ms();
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		RtDev *rd = &rt->devs[i];
		cl_int e = clFinish(rd->q);
		if (e != CL_SUCCESS && ok) {
			CLERR(rt, rd->decl->loc, e, "a command on @%s ('%s') failed", rd->decl->name,
			      rd->cl.dname);
			ok = false;
		}
	}
	double t1 = rt_now_ms();
	rt->wait_ms += t1 - t0;
	rt->wall_ms += t1 - rt->run_t0;
	rt->runs++;
	rt->nrun++;
	rt_prof_collect(rt);
	rt_vals_release(rt);
	/* --stats: what the run made (the first two runs, and any later one
	 * that made something) */
	uint64_t objs = 0;
	for (uint32_t i = 0; i < rt->ndevs; i++)
		objs += rt->devs[i].made;
	objs -= rt->run_objs0;
	uint64_t kerns = rt->made_kernels - rt->run_kernels0;
	if (rt->o.stats && (rt->nrun <= 2 || objs || kerns))
		fprintf(rt->o.stats, "ir-run: run %u made %llu memory objects and %llu kernels\n",
		        (unsigned)rt->nrun, (unsigned long long)objs, (unsigned long long)kerns);
	return ok;
}
