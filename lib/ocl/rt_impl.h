/* rt_impl.h: what the files of the OpenCL runtime share (runtime.h says
 * what it does).  runtime.c runs calls; rt_device.c maps declared devices
 * to OpenCL devices and opens them; rt_program.c builds their programs;
 * rt_object.c makes the buffers and images values and workspaces live in;
 * rt_value.c keeps where each value of the run is (host, devices, forms);
 * rt_copy.c moves data between them; rt_const.c keeps constants' objects
 * for every run; rt_profile.c times and counts.
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

/* --stats: what became of the constants on a device (rt_const.c). */
typedef struct {
	uint64_t uploads, upload_bytes;   /* objects filled from the host */
	uint64_t made;                    /* objects copied from another on the device */
	uint64_t kept;                    /* of them, kept for later evaluations */
	uint64_t unkept;                  /* not kept: a prim stores into the constant */
	uint64_t reused;                  /* kept objects taken by a later evaluation */
} RtConstStats;

typedef struct {
	const Device *decl;
	ClDev cl;
	cl_context ctx;
	cl_command_queue q;       /* in order: what one device does is ordered */
	cl_program prog;
	bool images;              /* CL_DEVICE_IMAGE_SUPPORT */
	size_t img_max[2];
	size_t max_wg;
	char *cache_key;          /* a binary cache miss, stored when the run ends */
	struct RtPools *pools;    /* workspace pools (rt_pool.c), NULL until used */
	uint32_t base_align;      /* CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes */
	double busy_ms;           /* --profile: summed command times */
	uint64_t live, peak;      /* bytes of objects not in a plan's memory */
	uint64_t made;            /* memory objects made on it (--stats) */
	RtConstStats consts;
} RtDev;

typedef struct {
	const PStmt *k;
	cl_kernel kern;
	double flops;             /* per launch; < 0: not known */
} KernCache;

/* A memory plan's pool buffer or shared image on a device (rt_plan.c). */
typedef struct {
	Sym pool;                 /* NULL: an image */
	int64_t id;               /* an image's id */
	RtDev *dev;
	cl_mem mem;
	uint64_t size;            /* bytes */
	uint64_t used;            /* a pool: the end of the furthest buffer in it */
	uint32_t unaligned;       /* a pool: buffers at offsets the device cannot take */
	ElemKind kind;            /* an image's element type */
} PlanMem;

/* rt_live.c: the values of @main to free after the call user. */
typedef struct {
	const Value *user;
	const Value **vals;
	uint32_t n, cap;
} RtFree;

/* --profile: one row of the table, a kernel or a copy kind on a device. */
typedef struct {
	const char *name;
	const RtDev *dev;
	bool kernel;
	uint64_t calls;
	double ms;
	double flops, bytes;      /* summed; flops < 0: not known */
} ProfRow;

/* --profile: a command whose times are read when the run ends. */
typedef struct {
	cl_event ev;
	RtDev *dev;
	const char *name;
	bool kernel;
	double flops;
	uint64_t bytes;
} ProfEv;

struct OclRt {
	Module *m;
	OclRtOpts o;
	RtDev *devs;
	uint32_t ndevs;
	KernCache *kc;
	size_t nkc, capkc;
	bool said_fallback;
	BinCache cache;           /* program binaries across runs */
	/* the values of the run under way (rt_value.c) */
	Map vals;                 /* DevVal by Tensor pointer */
	PtrVec allvals;
	Map frees;                /* RtFree by user (rt_live.c) */
	/* --profile */
	ProfEv *pev;
	size_t npev, cappev;
	ProfRow *rows;
	size_t nrows, caprows;
	uint32_t runs;            /* since the profile was reset */
	uint32_t nrun;            /* in all */
	double wall_ms, run_t0;
	/* a memory plan's pools and images, kept for every run */
	PlanMem *plan;
	size_t nplan, capplan;
	/* constants' objects, kept for every run (rt_const.c) */
	Map consts;               /* RtConst by Value */
	Map written;              /* the prim parameters a kernel stores into */
	/* --stats: memory objects and kernels made so far, and at the start
	 * of the run under way */
	uint64_t made_kernels, run_objs0, run_kernels0;
	/* --profile: host time, summed over runs (ms) */
	double plan_ms, enqueue_ms, wait_ms;
	bool planned;             /* the executor (lib/exec/) planned @main */
	uint64_t checked_calls, checked_elems;   /* --check: compared and equal */
	struct RtProgress *progress;              /* a step under way (rt_progress.c) */
	struct RtBridge *bridge;  /* rt_bridge.c's thread, once a copy needed it */
};

/* A memory object of a prim being run: a parameter or a prim-level
 * alloc. */
typedef struct {
	const PVar *v;            /* the parameter or alloc (NULL: a copy's) */
	const char *name;         /* for errors: '%name' at loc */
	Loc loc;
	cl_mem mem;
	bool image;
	bool planned;             /* in a plan's pool or image */
	/* a planned buffer: the pool's buffer and the offset in it, which
	 * copies use instead of the sub-buffer (POCL's copies between a
	 * sub-buffer and an image crash) */
	cl_mem parent;
	size_t off;
	size_t wh[2];
	uint64_t bytes;           /* counted in its device's live bytes */
} Obj;

/* An OpenCL status in words. */
const char *cl_words(cl_int e);

#define CLERR(rt, loc, e, ...)                                                                 \
	error_at((rt)->m->ctx, (loc), __VA_ARGS__), \
	note_at((rt)->m->ctx, (Loc){0}, "OpenCL says: %s (status %d)", cl_words(e), (int)(e))

/* rt_device.c: the OpenCL device of declared device d (by --device
 * binding, else kind and index), and its context, queue and limits. */
bool rt_map_devices(OclRt *rt, Module *m);
/* The opened device of declared device d; NULL when d has no program
 * (its values live on the host). */
RtDev *rt_dev_of(OclRt *rt, const Device *d);

/* The walk's InterpDevices (runtime.h's oclrt_walk): oclrt_run_prim in
 * runtime.c, the rest in rt_value.c. */
bool oclrt_run_prim(void *ud, const Value *call, const Prim *p, Tensor *const *args,
                    uint32_t nargs, uint32_t nin);
bool oclrt_to_host(void *ud, Tensor *t);
bool oclrt_device_copy(void *ud, const Value *v, Tensor *src, Tensor *dst);
void oclrt_placed(void *ud, const void *node, uint32_t i, uint32_t n, Tensor *t);
bool oclrt_const_held(void *ud, const Value *v);
void oclrt_const_made(void *ud, const Value *v, Tensor *t);

/* runtime.c: a kernel object for kernel k of rd's program (counted in
 * made_kernels); NULL after reporting.  rt_set_scalar passes scalar
 * parameter a's value, rank-0 tensor t, as argument i. */
cl_kernel rt_kernel_new(OclRt *rt, RtDev *rd, const PStmt *k);
/* The monotonic clock, in ms (--profile's host times). */
double rt_now_ms(void);
bool rt_set_scalar(OclRt *rt, cl_kernel kern, cl_uint i, const PVar *a, const Tensor *t,
                   const PStmt *k);

/* rt_progress.c: around a step that may take seconds (a build, the first
 * run): its line (printf-style, "..." added) on stderr once it has taken
 * a second, where stderr is a terminal, or at once with --progress; the
 * end says how long it took if the line was said.  One step at a time. */
typedef struct RtProgress RtProgress;
void rt_progress_begin(OclRt *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rt_progress_end(OclRt *rt);

/* rt_program.c: builds the program pg for rd (the build log in the
 * error); false after reporting. */
bool rt_build_program(OclRt *rt, RtDev *rd, const Program *pg);

/* rt_object.c: a buffer, or for a scope that is a texture an image
 * (image2d[W,H] of an alloc in img, else the flattening's), for a value
 * of type ty called name (errors at loc); no data in it yet. */
bool rt_obj_new(OclRt *rt, RtDev *rd, const char *name, Loc loc, const Type *ty, Sym scope,
                const int64_t *img, Obj *ob);
/* The scope of the form device_copy v makes: a value in a texture scope
 * is an image (its size in wh) when it can be one (rank 3 or more, 4
 * channels, f32 or f16), else a buffer (NULL), as ir-plan-memory and the
 * flattening take it. */
Sym rt_copy_scope(const Value *v, int64_t wh[2]);
/* The same for a value of type ty placed in scope. */
Sym rt_form_scope(const Type *ty, Sym scope, int64_t wh[2]);
/* Releases an object of rt_obj_new (or a planned one). */
void rt_obj_release(OclRt *rt, RtDev *rd, Obj *ob);
/* The workspace of the alloc statement s of a prim, live for one call;
 * the one place workspaces come from (a pool may stand behind it). */
bool rt_workspace(OclRt *rt, RtDev *rd, const PStmt *s, Obj *ob);
/* Gives it back once the call's commands are enqueued (OpenCL keeps the
 * memory until they are done). */
void rt_release_workspace(OclRt *rt, RtDev *rd, Obj *ob);
/* The image size of v (img, else the flattening's), checked against rd:
 * images supported, within its image2d maximum; false after reporting. */
bool rt_image_size(OclRt *rt, RtDev *rd, const PVar *v, const int64_t *img, int64_t wh[2]);
/* The same for a value called name (errors at loc) of type ty in scope. */
bool rt_image_wh(OclRt *rt, RtDev *rd, const char *name, Loc loc, const Type *ty, Sym scope,
                 const int64_t *img, int64_t wh[2]);
/* rt_limits.c: every prim checked against its device's limits (work
 * groups, images, buffer sizes), every problem reported; false if any. */
bool rt_check_limits(OclRt *rt);
/* rt_pool.c: workspaces from rd's pools, given back by rt_pool_release;
 * rt_pool_free releases them all (saying the pools' statistics with
 * --stats). */
bool rt_pool_workspace(OclRt *rt, RtDev *rd, const PStmt *s, Obj *ob);
void rt_pool_release(RtDev *rd, Obj *ob);
void rt_pool_free(OclRt *rt, RtDev *rd);
/* The statistics of rd's pools, since the first run, two lines on f
 * (nothing before rd's first workspace): for --stats and --profile. */
void rt_pool_say(const RtDev *rd, FILE *f);

/* rt_plan.c: the object of a buffer that place pl puts in a pool (a
 * sub-buffer at its offset) or a planned image, when the plan applies on
 * rd (*planned true); else *planned false and nothing made.  img as
 * rt_obj_new's.  False after reporting (an offset the device cannot take,
 * a pool it cannot allocate). */
bool rt_plan_obj(OclRt *rt, RtDev *rd, const Place *pl, const char *name, Loc loc,
                 const Type *ty, Sym scope, const int64_t *img, Obj *ob, bool *planned);
void rt_plan_free(OclRt *rt);

/* rt_copy.c: commands that move data, each enqueued without blocking
 * after the nwait events (of rd's context) in wait, its event into *ev
 * (NULL: not wanted), timed for --profile and finished at once under
 * --sync.  bytes are the value's; an image holds exactly them (the
 * flattening keeps memory order, rows of 4-lane texels). */
bool rt_write(OclRt *rt, RtDev *rd, const Obj *dst, const void *src, uint64_t bytes,
              cl_uint nwait, const cl_event *wait, cl_event *ev);
bool rt_read(OclRt *rt, RtDev *rd, const Obj *src, void *dst, uint64_t bytes, cl_event *ev);
bool rt_copy_obj(OclRt *rt, RtDev *rd, const Obj *src, const Obj *dst, uint64_t bytes);
bool rt_copy_across(OclRt *rt, RtDev *from, RtDev *to, const Obj *src, const Obj *dst,
                    uint64_t bytes, bool after_target);
/* Writes src to dst on rd once event ready of device from (another
 * context, whose events rd's queue cannot wait for) completes: through a
 * user event of rd's, completed by rt_bridge.c's thread, so the host
 * never blocks (if no thread can be made, it waits). */
bool rt_write_after(OclRt *rt, RtDev *rd, const Obj *dst, const void *src, uint64_t bytes,
                    RtDev *from, cl_event ready);
/* Host memory that rd moves data to and from at full speed (pinned: a
 * buffer of rd's context in host memory, mapped for good), its buffer
 * in *mem; NULL when the platform will not (the caller uses malloc'd
 * memory, which NVIDIA's OpenCL copies through a staging buffer of its
 * own at a fraction of the speed). */
void *rt_pinned_new(RtDev *rd, uint64_t bytes, cl_mem *mem);
void rt_pinned_free(RtDev *rd, cl_mem mem, void *p);
/* rt_bridge.c: user event user (another context's) completed once
 * event ready is, by a thread of ours; false when no thread could be
 * made.  rt_bridge_free stops the thread (before the contexts go). */
typedef struct RtBridge RtBridge;
bool rt_bridge_after(OclRt *rt, cl_event ready, cl_event user);
void rt_bridge_free(OclRt *rt);
/* What an OpenCL command did: under --profile kept for the table, under
 * --sync waited for; false (after reporting what, at loc) when it
 * failed.  ev is the caller's still. */
bool rt_done(OclRt *rt, RtDev *rd, cl_event ev, const char *name, bool kernel, double flops,
             uint64_t bytes, Loc loc);

/* rt_value.c: the memory object holding tensor t for prim parameter v
 * on rd, in v's form (image for a texture scope, else buffer): the one
 * made already, else copied there from where t is (another form on rd,
 * the host, another device through the host).  NULL after reporting. */
const Obj *rt_val_on(OclRt *rt, RtDev *rd, Tensor *t, const PVar *v);
/* A fresh object for result t of a prim, for parameter v, on rd. */
const Obj *rt_val_new(OclRt *rt, RtDev *rd, Tensor *t, const PVar *v);
/* Frees every value's objects (the queues finished first). */
void rt_vals_release(OclRt *rt);
/* Gives back t's device memory now: t is dead (OpenCL keeps the memory
 * until the commands enqueued on it are done). */
void rt_val_drop(OclRt *rt, Tensor *t);

/* rt_live.c: which values of @main die at which call (once, from the
 * text); rt_live_after frees those that die at user, whose operands'
 * tensors are args (tuples flattened). */
void rt_live_init(OclRt *rt);
void rt_live_after(OclRt *rt, const Value *user, Tensor *const *args);
void rt_live_free(OclRt *rt);


/* rt_const.c: the objects of constant v, kept across runs (make: an
 * empty entry if none).  rt_const_count: how many a new evaluation takes
 * (rt_const_obj each, counted as taken); rt_const_keep adds a reference
 * to o, filled from the host (uploaded) or from another object on rd,
 * unaligned as KeptObj says (false: not kept, o's bytes stay the
 * caller's; true: they are counted here); rt_const_forget releases them for good (a
 * prim stores into the constant).  rt_prim_writes: whether a kernel
 * stores into v (rt_const_init finds them once). */
typedef struct RtConst RtConst;
void rt_const_init(OclRt *rt);
bool rt_prim_writes(const OclRt *rt, const PVar *v);
RtConst *rt_const_of(OclRt *rt, const Value *v, bool make);
uint32_t rt_const_count(const RtConst *c);
const Obj *rt_const_obj(OclRt *rt, RtConst *c, uint32_t i, RtDev **rd);
bool rt_const_keep(OclRt *rt, RtConst *c, RtDev *rd, const Obj *o, bool uploaded,
                   uint32_t unaligned);
void rt_const_forget(OclRt *rt, RtConst *c);
/* The constants line of rd for --stats and --profile (nothing if none
 * went there); rt_consts_free releases every kept object. */
void rt_const_say(const RtDev *rd, FILE *f);
void rt_consts_free(OclRt *rt);

/* rt_profile.c */
double rt_kernel_flops(const PStmt *k);
/* Reads the times of the commands of the run (the queues finished),
 * adds them to the table and releases their events. */
void rt_prof_collect(OclRt *rt);
void rt_prof_free(OclRt *rt);

#endif
