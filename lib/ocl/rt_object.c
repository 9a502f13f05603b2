/* rt_object.c: buffers and images for values and workspaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"
#include "texture/texture.h"

/* The image of a buffer of type ty in scope (img, else the flattening's),
 * checked against rd: images supported, within its image2d maximum. */
bool
rt_image_wh(OclRt *rt, RtDev *rd, const char *name, Loc loc, const Type *ty, Sym scope,
         const int64_t *img, int64_t wh[2])
{
	Ctx *ctx = rt->m->ctx;
	char why[160];
	if (img && img[0] > 0) {
		wh[0] = img[0];
		wh[1] = img[1];
	} else if (!texture_image(ty, scope, wh, why, sizeof why)) {
		error_at(ctx, loc, "'%%%s' cannot be an image: %s", name, why);
		return false;
	}
	if (!rd->images) {
		error_at(ctx, loc, "'%%%s' is in %s, but the OpenCL device '%s' of @%s has no "
		         "images", name, scope, rd->cl.dname, rd->decl->name);
		return false;
	}
	if ((size_t)wh[0] > rd->img_max[0] || (size_t)wh[1] > rd->img_max[1]) {
		error_at(ctx, loc, "the image of '%%%s' is %lld x %lld texels, too large for "
		         "'%s' of @%s (at most %zu x %zu)", name, (long long)wh[0],
		         (long long)wh[1], rd->cl.dname, rd->decl->name, rd->img_max[0],
		         rd->img_max[1]);
		return false;
	}
	return true;
}

bool
rt_image_size(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, int64_t wh[2])
{
	return rt_image_wh(rt, rd, v->name, v->loc, v->type, v->vd ? v->vd->scope : NULL, img, wh);
}

Sym
rt_form_scope(const Type *ty, Sym scope, int64_t wh[2])
{
	ElemKind ek = (ElemKind)ty->dt.kind;
	char why[160];
	bool img = scope && is_texture_scope(scope) && (ek == ET_F32 || ek == ET_F16) &&
	           texture_image(ty, scope, wh, why, sizeof why);
	return img ? scope : NULL;
}

Sym
rt_copy_scope(const Value *v, int64_t wh[2])
{
	return rt_form_scope(v->type, v->u.copy->dst->scope, wh);
}

bool
rt_obj_new(OclRt *rt, RtDev *rd, const char *name, Loc loc, const Type *ty, Sym scope,
           const int64_t *img, Obj *ob)
{
	cl_int e = CL_SUCCESS;
	ElemKind ek = (ElemKind)ty->dt.kind;
	uint64_t bytes = (uint64_t)type_numel(ty) * elem_size(ek);
	ob->mem = NULL;
	ob->planned = false;
	ob->parent = NULL;
	ob->off = 0;
	ob->bytes = 0;
	ob->name = name;
	ob->loc = loc;
	ob->image = scope && is_texture_scope(scope);
	if (ob->image) {
		int64_t wh[2];
		if (!rt_image_wh(rt, rd, name, loc, ty, scope, img, wh))
			return false;
		ob->wh[0] = (size_t)wh[0];
		ob->wh[1] = (size_t)wh[1];
		cl_image_format f = {CL_RGBA, ek == ET_F16 ? CL_HALF_FLOAT : CL_FLOAT};
		cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = ob->wh[0],
		                   .image_height = ob->wh[1]};
		ob->mem = clCreateImage(rd->ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &e);
		bytes = (uint64_t)ob->wh[0] * ob->wh[1] * 4 * elem_size(ek);
	} else {
		ob->wh[0] = ob->wh[1] = 0;
		ob->mem = clCreateBuffer(rd->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &e);
	}
	rd->made++;
	if (!ob->mem || e != CL_SUCCESS) {
		char t[128];
		CLERR(rt, loc, e, "cannot hold '%%%s' (%s, %llu bytes) on @%s ('%s')", name,
		      type_text(ty, t, sizeof t), (unsigned long long)bytes, rd->decl->name,
		      rd->cl.dname);
		return false;
	}
	ob->bytes = bytes;
	rd->live += bytes;
	if (rd->live > rd->peak)
		rd->peak = rd->live;
	return true;
}

void
rt_obj_release(OclRt *rt, RtDev *rd, Obj *ob)
{
	(void)rt;
	if (!ob->mem)
		return;
	rd->live -= ob->bytes;
	clReleaseMemObject(ob->mem);
	ob->mem = NULL;
}

/* From the device's workspace pools (rt_pool.c), given back when the
 * call ends. */
bool
rt_workspace(OclRt *rt, RtDev *rd, const PStmt *s, Obj *ob)
{
	return rt_pool_workspace(rt, rd, s, ob);
}

void
rt_release_workspace(OclRt *rt, RtDev *rd, Obj *ob)
{
	(void)rt;
	rt_pool_release(rd, ob);
}
