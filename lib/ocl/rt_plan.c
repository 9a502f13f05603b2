/* rt_plan.c: a memory plan (ir-plan-memory(1)) on the devices.
 *
 * Each pool a planned buffer uses on a device is one OpenCL buffer there,
 * allocated the first time and kept for every run; the planned buffer is
 * a sub-buffer of it at its offset (clCreateSubBuffer), so buffers whose
 * lifetimes do not meet share memory as the plan says.  A sub-buffer's
 * origin must be a multiple of the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN:
 * an offset that is not is an error that says what alignment to declare.
 * Each planned image id is one image per device, of the plan's size, kept
 * and shared by every value planned in it (a value uses its own width and
 * height of it).  A pool whose devices do not include the device, or an
 * image of another element type, leaves the buffer to an allocation of
 * its own.  Values on one device are ordered by its in-order queue, so a
 * region is rewritten only after every earlier command that read it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"
#include "texture/texture.h"

/* Whether pool pl serves device d: no `devices` serves every device. */
static bool
serves(const Pool *pl, const Device *d)
{
	const Attr *a = attr_get(&pl->attrs, "devices");
	if (!a || a->kind != AT_LIST)
		return true;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->u.list[i].kind == AT_SYM && a->u.list[i].u.sym == d->name)
			return true;
	return false;
}

static PlanMem *
plan_mem(OclRt *rt, RtDev *rd, Sym pool, int64_t id)
{
	for (size_t i = 0; i < rt->nplan; i++) {
		PlanMem *p = &rt->plan[i];
		if (p->dev == rd && p->pool == pool && (pool || p->id == id))
			return p;
	}
	return NULL;
}

bool
rt_plan_obj(OclRt *rt, RtDev *rd, const Place *pl, const char *name, Loc loc, const Type *ty,
            Sym scope, const int64_t *img_wh, Obj *ob, bool *planned)
{
	*planned = false;
	if (!pl)
		return true;
	bool img = scope && is_texture_scope(scope);
	ElemKind ek = (ElemKind)ty->dt.kind;
	uint64_t bytes = (uint64_t)type_numel(ty) * elem_size(ek);
	cl_int e = CL_SUCCESS;
	if (img != !pl->pool || !bytes)
		return true;
	PlanMem *pm = plan_mem(rt, rd, pl->pool, pl->offset);
	if (!img) {
		const Pool *pool = module_pool(rt->m, pl->pool);
		const Attr *sz = pool ? attr_get(&pool->attrs, "size") : NULL;
		if (!pool || !serves(pool, rd->decl) || !sz || sz->kind != AT_INT || sz->u.i <= 0)
			return true;
		if (!pm) {
			cl_mem mem = clCreateBuffer(rd->ctx, CL_MEM_READ_WRITE, (size_t)sz->u.i, NULL, &e);
			rd->made++;
			if (!mem) {
				CLERR(rt, pool->loc, e, "cannot allocate pool @%s (%lld bytes) on @%s ('%s')",
				      pool->name, (long long)sz->u.i, rd->decl->name, rd->cl.dname);
				return false;
			}
			pm = &VEC_PUSH(rt->plan, rt->nplan, rt->capplan);
			*pm = (PlanMem){.pool = pool->name, .dev = rd, .mem = mem,
			                .size = (uint64_t)sz->u.i};
		}
		uint64_t off = (uint64_t)pl->offset;
		if (off > pm->size || bytes > pm->size - off) {
			error_at(rt->m->ctx, pl->loc, "'%%%s' (%llu bytes) at offset %llu does not fit in "
			         "pool @%s of %llu bytes", name, (unsigned long long)bytes,
			         (unsigned long long)off, pm->pool, (unsigned long long)pm->size);
			return false;
		}
		if (off % rd->base_align && !attr_get(&pool->attrs, "alignment")) {
			/* a pool with the default alignment (ir-plan-memory's own
			 * pools among them): the buffer gets memory of its own */
			pm->unaligned++;
			return true;
		}
		if (off % rd->base_align) {
			error_at(rt->m->ctx, pl->loc, "'%%%s' is planned at offset %llu of pool @%s, but "
			         "'%s' of @%s puts a buffer only at multiples of %u bytes "
			         "(CL_DEVICE_MEM_BASE_ADDR_ALIGN): declare the pool with alignment=%u",
			         name, (unsigned long long)off, pm->pool, rd->cl.dname, rd->decl->name,
			         (unsigned)rd->base_align, (unsigned)rd->base_align);
			return false;
		}
		if (off + bytes > pm->used)
			pm->used = off + bytes;
		cl_buffer_region r = {(size_t)off, (size_t)bytes};
		ob->mem = clCreateSubBuffer(pm->mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
		                            &r, &e);
		rd->made++;
		if (!ob->mem) {
			CLERR(rt, pl->loc, e, "cannot place '%%%s' at offset %llu of pool @%s on @%s", name,
			      (unsigned long long)off, pm->pool, rd->decl->name);
			return false;
		}
		ob->image = false;
		ob->wh[0] = ob->wh[1] = 0;
		ob->parent = pm->mem;
		ob->off = (size_t)off;
	} else {
		int64_t wh[2];
		char why[160];
		if (img_wh && img_wh[0] > 0) {
			wh[0] = img_wh[0];
			wh[1] = img_wh[1];
		} else if (!texture_image(ty, scope, wh, why, sizeof why)) {
			return true;
		}
		if (wh[0] > pl->image[0] || wh[1] > pl->image[1])
			return true;
		if (pm && pm->kind != ek)
			return true;
		if (!pm) {
			if (!rd->images || (size_t)pl->image[0] > rd->img_max[0] ||
			    (size_t)pl->image[1] > rd->img_max[1])
				return true;
			cl_image_format f = {CL_RGBA, ek == ET_F16 ? CL_HALF_FLOAT : CL_FLOAT};
			cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D,
			                   .image_width = (size_t)pl->image[0],
			                   .image_height = (size_t)pl->image[1]};
			cl_mem mem = clCreateImage(rd->ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &e);
			rd->made++;
			if (!mem) {
				CLERR(rt, pl->loc, e, "cannot allocate planned image %lld (%lld x %lld) on @%s",
				      (long long)pl->offset, (long long)pl->image[0], (long long)pl->image[1],
				      rd->decl->name);
				return false;
			}
			pm = &VEC_PUSH(rt->plan, rt->nplan, rt->capplan);
			*pm = (PlanMem){.id = pl->offset, .dev = rd, .mem = mem, .kind = ek,
			                .size = (uint64_t)pl->image[0] * (uint64_t)pl->image[1] * 4 *
			                        elem_size(ek)};
		}
		clRetainMemObject(pm->mem);
		ob->mem = pm->mem;
		ob->image = true;
		ob->wh[0] = (size_t)wh[0];
		ob->wh[1] = (size_t)wh[1];
	}
	ob->name = name;
	ob->loc = loc;
	ob->bytes = 0;            /* counted in its pool or image */
	ob->planned = true;
	*planned = true;
	return true;
}

void
rt_plan_free(OclRt *rt)
{
	for (size_t i = 0; i < rt->nplan; i++)
		clReleaseMemObject(rt->plan[i].mem);
	free(rt->plan);
}
