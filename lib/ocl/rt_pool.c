/* rt_pool.c: the workspaces of prims (their `alloc`s) from pools per
 * device, one of images (texture allocs, kept apart by channel type) and
 * one of buffers, reused across calls and runs by wspool.c's best fit.
 *
 * Reuse is safe because every command of a device goes to its one
 * in-order queue: a later call's kernels run after the earlier call's
 * last use of the object.  A reused object may be larger than the alloc
 * (an image wider or taller, a buffer longer): kernels index only the
 * alloc's extent.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ocl/rt_impl.h"
#include "ocl/wspool.h"
#include "texture/texture.h"

/* TVM's per-axis ratio for images (#11543), its 1-d window for buffers */
enum { IMAGE_RATIO = 5, BUFFER_RATIO = 16, BUFFER_KIND = 0 };

/* A zeroed alloc's buffer (ir(5)): its own, kept from call to call. */
typedef struct {
	const PVar *v;
	cl_mem mem;
} Zeroed;

struct RtPools {
	WsPool tex, buf;
	Zeroed *zeroed;
	size_t nzeroed, capzeroed;
	RtDev *rd;
	cl_int err;               /* the last allocation's failure */
};

static void *
pool_alloc(void *ud, int kind, uint64_t w, uint64_t h)
{
	struct RtPools *ps = ud;
	cl_int e = CL_SUCCESS;
	cl_mem m;
	if (kind == BUFFER_KIND) {
		m = clCreateBuffer(ps->rd->ctx, CL_MEM_READ_WRITE, (size_t)w, NULL, &e);
	} else {
		cl_image_format f = {CL_RGBA, (cl_channel_type)kind};
		cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = (size_t)w,
		                   .image_height = (size_t)h};
		m = clCreateImage(ps->rd->ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &e);
	}
	ps->rd->made++;
	if (!m)
		ps->err = e;
	return m;
}

static void
pool_release(void *ud, void *obj)
{
	(void)ud;
	clReleaseMemObject(obj);
}

/* The buffer of zeroed alloc v, made and filled with zeros the first
 * time (the prim leaves it zero at every call's end). */
static cl_mem
zeroed_buffer(struct RtPools *ps, const PVar *v, uint64_t bytes)
{
	for (size_t i = 0; i < ps->nzeroed; i++)
		if (ps->zeroed[i].v == v)
			return ps->zeroed[i].mem;
	void *zero = xcalloc(bytes ? bytes : 1, 1);
	cl_int e = CL_SUCCESS;
	cl_mem m = clCreateBuffer(ps->rd->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
	                          (size_t)(bytes ? bytes : 1), zero, &e);
	free(zero);
	if (!m) {
		ps->err = e;
		return NULL;
	}
	ps->rd->made++;
	VEC_PUSH(ps->zeroed, ps->nzeroed, ps->capzeroed) = (Zeroed){v, m};
	return m;
}

static bool
is_zeroed(const PVar *v)
{
	return v && attr_true(&v->annots, ANNOT_ZEROED);
}

bool
rt_pool_workspace(OclRt *rt, RtDev *rd, const PStmt *s, Obj *ob)
{
	const PVar *v = s->u.alloc.buf;
	const Type *ty = v->type;
	ElemKind ek = (ElemKind)ty->dt.kind;
	uint64_t bytes = (uint64_t)type_numel(ty) * elem_size(ek);
	struct RtPools *ps = rd->pools;
	if (!ps) {
		ps = rd->pools = xcalloc(1, sizeof *ps);
		ps->rd = rd;
		wspool_init(&ps->tex, pool_alloc, pool_release, ps, IMAGE_RATIO);
		wspool_init(&ps->buf, pool_alloc, pool_release, ps, BUFFER_RATIO);
	}
	ps->err = CL_SUCCESS;
	ob->v = v;
	ob->image = v->vd && v->vd->scope && is_texture_scope(v->vd->scope);
	if (ob->image) {
		int64_t wh[2];
		if (!rt_image_size(rt, rd, v, s->u.alloc.image, wh))
			return false;
		int kind = ek == ET_F16 ? CL_HALF_FLOAT : CL_FLOAT;
		uint64_t gw, gh;
		ob->mem = wspool_get(&ps->tex, kind, (uint64_t)wh[0], (uint64_t)wh[1],
		                     4 * (ek == ET_F16 ? 2 : 4), &gw, &gh);
		ob->wh[0] = (size_t)gw;
		ob->wh[1] = (size_t)gh;
	} else if (is_zeroed(v)) {
		ob->mem = zeroed_buffer(ps, v, bytes);
	} else {
		ob->mem = wspool_get(&ps->buf, BUFFER_KIND, bytes ? bytes : 1, 1, 1, NULL, NULL);
	}
	if (!ob->mem) {
		char t[128];
		CLERR(rt, v->loc, ps->err, "cannot hold the workspace '%%%s' (%s, %llu bytes) on @%s "
		      "('%s')", v->name, type_text(ty, t, sizeof t), (unsigned long long)bytes,
		      rd->decl->name, rd->cl.dname);
		return false;
	}
	return true;
}

void
rt_pool_release(RtDev *rd, Obj *ob)
{
	if (is_zeroed(ob->v)) {
		ob->mem = NULL;     /* kept for the next call (rt_pool_free releases it) */
		return;
	}
	if (ob->mem && !(rd->pools && wspool_put(ob->image ? &rd->pools->tex : &rd->pools->buf,
	                                         ob->mem)))
		clReleaseMemObject(ob->mem);
	ob->mem = NULL;
}

static void
say_pool(FILE *f, const RtDev *rd, const char *what, const WsPool *p)
{
	fprintf(f, "ir-run: @%s: %s workspace pool: %llu requests, %llu reused, %llu new, "
	        "%llu grown; %zu held, %.3f MiB (peak %.3f MiB)\n", rd->decl->name, what,
	        (unsigned long long)p->requests, (unsigned long long)p->reused,
	        (unsigned long long)p->made, (unsigned long long)p->grown, p->n,
	        (double)p->held / 1048576.0, (double)p->peak / 1048576.0);
}

void
rt_pool_say(const RtDev *rd, FILE *f)
{
	if (rd->pools) {
		say_pool(f, rd, "image", &rd->pools->tex);
		say_pool(f, rd, "buffer", &rd->pools->buf);
	}
}

void
rt_pool_free(OclRt *rt, RtDev *rd)
{
	struct RtPools *ps = rd->pools;
	if (!ps)
		return;
	if (rt->o.stats)
		rt_pool_say(rd, rt->o.stats);
	wspool_clear(&ps->tex);
	wspool_clear(&ps->buf);
	for (size_t i = 0; i < ps->nzeroed; i++)
		clReleaseMemObject(ps->zeroed[i].mem);
	free(ps->zeroed);
	free(ps);
	rd->pools = NULL;
}
