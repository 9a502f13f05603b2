/* rt_limits.c: the module checked against its devices' limits before
 * anything launches, so that a model that cannot run fails at once, with
 * every problem named, instead of after running part of @main (or never,
 * for a prim behind an `if` not taken this time).  Every prim of a device
 * with a program is checked, called or not:
 *   - each launch's work-group size against CL_DEVICE_MAX_WORK_GROUP_SIZE,
 *     and each local size against CL_DEVICE_MAX_WORK_ITEM_SIZES;
 *   - each texture parameter and alloc against the device's image support
 *     and CL_DEVICE_IMAGE2D_MAX_WIDTH / _HEIGHT (rt_image_size);
 *   - each buffer parameter and alloc against CL_DEVICE_MAX_MEM_ALLOC_SIZE.
 * f16 arithmetic without cl_khr_fp16 is refused when the program is built
 * (rt_program.c).  The checks at allocation and launch stay: they are
 * what runs when this one is wrong.
 */
#include <stdio.h>

#include "ocl/ocl.h"
#include "ocl/rt_impl.h"
#include "texture/texture.h"

static RtDev *
dev_of(OclRt *rt, const Prim *p)
{
	const Device *d = ocl_prim_device(rt->m, p);
	for (uint32_t i = 0; i < rt->ndevs; i++)
		if (rt->devs[i].decl == d)
			return &rt->devs[i];
	return NULL;
}

static bool
check_launch(OclRt *rt, RtDev *rd, const PStmt *k, const size_t items[3])
{
	const Launch *l = k->u.kernel.launch;
	Ctx *ctx = rt->m->ctx;
	uint64_t wg = 1;
	for (int i = 0; i < 3; i++)
		wg *= l->local[i] > 0 ? (uint64_t)l->local[i] : 1;
	if (wg > rd->max_wg) {
		error_at(ctx, l->loc, "kernel @%s has work groups of %llu items (%lld x %lld x %lld); "
		         "'%s' of @%s takes at most %zu", k->u.kernel.name, (unsigned long long)wg,
		         (long long)l->local[0], (long long)l->local[1], (long long)l->local[2],
		         rd->cl.dname, rd->decl->name, rd->max_wg);
		return false;
	}
	for (int i = 0; i < 3; i++)
		if (items[i] && l->local[i] > 0 && (uint64_t)l->local[i] > items[i]) {
			error_at(ctx, l->loc, "kernel @%s has a local size of %lld in dimension %d; '%s' "
			         "of @%s takes at most %zu there", k->u.kernel.name,
			         (long long)l->local[i], i, rd->cl.dname, rd->decl->name, items[i]);
			return false;
		}
	return true;
}

static bool
check_var(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, cl_ulong max_alloc)
{
	if (v->kind != PV_BUFFER)
		return true;
	if (v->vd && v->vd->scope && is_texture_scope(v->vd->scope)) {
		int64_t wh[2];
		return rt_image_size(rt, rd, v, img, wh);
	}
	uint64_t bytes = (uint64_t)type_numel(v->type) * elem_size((ElemKind)v->type->dt.kind);
	if (max_alloc && bytes > max_alloc) {
		char t[128];
		error_at(rt->m->ctx, v->loc, "'%%%s' (%s) is %llu bytes, more than one buffer of '%s' "
		         "of @%s can hold (%llu bytes)", v->name, type_text(v->type, t, sizeof t),
		         (unsigned long long)bytes, rd->cl.dname, rd->decl->name,
		         (unsigned long long)max_alloc);
		return false;
	}
	return true;
}

bool
rt_check_limits(OclRt *rt)
{
	bool ok = true;
	for (const Prim *p = rt->m->prims; p; p = p->next) {
		RtDev *rd = dev_of(rt, p);
		if (!rd)
			continue;           /* reported when it is called */
		size_t items[3] = {0, 0, 0};
		cl_ulong max_alloc = 0;
		if (clGetDeviceInfo(rd->cl.id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items,
		                    NULL) != CL_SUCCESS)
			items[0] = items[1] = items[2] = 0;
		if (clGetDeviceInfo(rd->cl.id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc,
		                    &max_alloc, NULL) != CL_SUCCESS)
			max_alloc = 0;
		for (uint32_t i = 0; i < p->nparams; i++)
			ok &= check_var(rt, rd, p->params[i], NULL, max_alloc);
		for (const PStmt *s = p->body.first; s; s = s->next) {
			if (s->kind == S_ALLOC)
				ok &= check_var(rt, rd, s->u.alloc.buf, s->u.alloc.image, max_alloc);
			else if (s->kind == S_KERNEL && s->u.kernel.launch)
				ok &= check_launch(rt, rd, s, items);
		}
	}
	return ok;
}
