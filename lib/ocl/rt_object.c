/* rt_object.c: buffers and images for values and workspaces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"
#include "texture.h"

bool
rt_image_size(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, int64_t wh[2])
{
	Ctx *ctx = rt->m->ctx;
	char why[160];
	if (img && img[0] > 0) {
		wh[0] = img[0];
		wh[1] = img[1];
	} else if (!texture_image(v->type, v->vd->scope, wh, why, sizeof why)) {
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
	return true;
}

/* A buffer or image for v (image2d[W,H] of an alloc in img, else the
 * flattening's), holding src's data when src is not NULL. */
bool
rt_make_obj(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, const Tensor *src, Obj *ob)
{
	cl_int e = CL_SUCCESS;
	ob->v = v;
	const Type *ty = v->type;
	ElemKind ek = (ElemKind)ty->dt.kind;
	uint64_t bytes = (uint64_t)type_numel(ty) * elem_size(ek);
	ob->image = v->vd && v->vd->scope && is_texture_scope(v->vd->scope);
	if (ob->image) {
		int64_t wh[2];
		if (!rt_image_size(rt, rd, v, img, wh))
			return false;
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

bool
rt_read_back(OclRt *rt, RtDev *rd, const Obj *ob, Tensor *t)
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
