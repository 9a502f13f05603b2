/* rt_impl.h: what the files of the OpenCL runtime share (runtime.h says
 * what it does).  runtime.c runs calls; rt_device.c maps declared devices
 * to OpenCL devices and opens them; rt_program.c builds their programs;
 * rt_object.c makes the buffers and images values and workspaces live in.
 */
#ifndef OCL_RT_IMPL_H
#define OCL_RT_IMPL_H

#include <CL/cl.h>

#include "diag.h"
#include "ocl/bincache.h"
#include "ocl/runtime.h"

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
	char *cache_key;          /* a binary cache miss, stored when the run ends */
	struct RtPools *pools;    /* workspace pools (rt_pool.c), NULL until used */
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
	BinCache cache;           /* program binaries across runs */
};

/* A memory object of a prim being run: a parameter or a prim-level
 * alloc. */
typedef struct {
	const PVar *v;
	cl_mem mem;
	bool image;
	size_t wh[2];
} Obj;

/* An OpenCL status in words. */
const char *cl_words(cl_int e);

#define CLERR(rt, loc, e, ...)                                                                 \
	error_at((rt)->m->ctx, (loc), __VA_ARGS__), \
	note_at((rt)->m->ctx, (Loc){0}, "OpenCL says: %s (status %d)", cl_words(e), (int)(e))


/* rt_device.c: the OpenCL device of declared device d (by --device
 * binding, else kind and index), and its context, queue and limits. */
bool rt_map_devices(OclRt *rt, Module *m);

/* rt_program.c: builds the program pg for rd (the build log in the
 * error); false after reporting. */
bool rt_build_program(OclRt *rt, RtDev *rd, const Program *pg);

/* rt_object.c: a buffer or image for v (image2d[W,H] of an alloc in img,
 * else the flattening's), holding src's data when src is not NULL. */
bool rt_make_obj(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, const Tensor *src,
                 Obj *ob);
/* The workspace of the alloc statement s of a prim, live for one call. */
bool rt_workspace(OclRt *rt, RtDev *rd, const PStmt *s, Obj *ob);
void rt_release_workspace(OclRt *rt, RtDev *rd, Obj *ob);
/* The image size of v (img, else the flattening's), checked against rd:
 * images supported, within its image2d maximum; false after reporting. */
bool rt_image_size(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, int64_t wh[2]);
/* rt_limits.c: every prim checked against its device's limits (work
 * groups, images, buffer sizes), every problem reported; false if any. */
bool rt_check_limits(OclRt *rt);
/* rt_pool.c: workspaces from rd's pools, given back by rt_pool_release;
 * rt_pool_free releases them all (saying the pools' statistics with
 * --stats). */
bool rt_pool_workspace(OclRt *rt, RtDev *rd, const PStmt *s, Obj *ob);
void rt_pool_release(RtDev *rd, Obj *ob);
void rt_pool_free(OclRt *rt, RtDev *rd);
/* Reads ob back into t, blocking. */
bool rt_read_back(OclRt *rt, RtDev *rd, const Obj *ob, Tensor *t);

#endif
