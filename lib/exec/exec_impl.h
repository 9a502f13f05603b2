/* exec_impl.h: what the executor's files share (exec.h says what it
 * does). */
#ifndef EXEC_IMPL_H
#define EXEC_IMPL_H

#include "exec/exec.h"
#include "map.h"
#include "ocl/rt_impl.h"

/* A memory object of the plan.  Objects of one device whose lifetimes
 * (first..last step) do not meet share memory; a fixed one is made when
 * it is planned and kept (a constant's form, a memory plan's place). */
typedef struct {
	RtDev *dev;
	const char *name;         /* for errors: '%name' at loc */
	Loc loc;
	const Type *ty;
	Sym scope;                /* a texture scope: an image */
	int64_t img[2];           /* an alloc's own image size; 0: the flattening's */
	uint64_t bytes;           /* of a buffer */
	uint32_t first, last;     /* the steps that use it */
	bool fixed;
	bool konst;               /* a constant's form (counted in --stats' constants line) */
	/* its memory holds another value earlier in each run (made by
	 * exec_make): a copy into it from another device's queue must wait
	 * for the target's earlier commands */
	bool follows;
	Obj o;                    /* made */
} XObj;

/* Where a tensor value is held: an object on a device. */
typedef struct {
	RtDev *dev;
	uint32_t obj;
} XRes;

/* A tensor value of the run. */
typedef struct {
	const Type *ty;
	const char *name;
	Loc loc;
	uint64_t bytes;
	Tensor *host;             /* an input's, a constant's or a literal's data; NULL: none */
	bool konst;               /* a constant's or a literal's */
	bool keep;                /* a constant no prim writes: its objects are fixed */
	const Place *place;       /* where a memory plan puts it */
	XRes *res;
	uint32_t nres, capres;
} XVal;

typedef enum {
	XS_LAUNCH,                /* a kernel */
	XS_WRITE,                 /* host -> obj b */
	XS_READ,                  /* obj a -> host */
	XS_COPY,                  /* obj a -> obj b on one device */
	XS_XCOPY,                 /* obj a -> obj b of another device: a copy command within a
	                           * platform, else (via_host) through host staging */
	XS_HOST,                  /* host -> host (a result that is an input or a constant) */
	XS_BRANCH,                /* an if: on a false condition (host; read on dev), to target */
	XS_JUMP,                  /* to target (past an else arm) */
} XStepKind;

/* A launch's argument: an object, or a scalar's rank-0 tensor. */
typedef struct {
	uint32_t obj;
	const Tensor *scalar;
} XArg;

typedef struct {
	XStepKind kind;
	bool once;                /* run while the plan is made, not in every run */
	bool konst;               /* it moves a constant (--stats' constants line) */
	RtDev *dev;               /* its queue (XCOPY: the source's) */
	RtDev *dev2;              /* XCOPY: the target */
	uint32_t a, b;            /* objects */
	Tensor *host, *host2;     /* WRITE: from; READ: into; HOST: from, into */
	/* XCOPY through the host: staging memory (exec_make: pinned where
	 * the source's platform gives it, stage_mem its buffer, else
	 * malloc'd); via_host says the copy takes that path */
	bool via_host;
	unsigned char *stage;
	cl_mem stage_mem;
	uint64_t bytes;
	uint32_t target;          /* BRANCH, JUMP: the step to go on at */
	const PStmt *k;           /* LAUNCH, of the call_lowered call */
	const Value *call;
	XArg *args;
	uint32_t nargs;
	cl_kernel kern;
	double flops;
} XStep;

struct Exec {
	OclRt *rt;
	Module *m;
	Interp *in;               /* holds the inputs' and constants' tensors */
	Func *main;
	Tensor **inputs;          /* by parameter of @main */
	Map refs;                 /* XRef by Value and frame (exec_plan.c) */
	uint32_t nframes;         /* calls inlined so far */
	Map written;              /* constants some prim stores into */
	uint32_t *undo;           /* values given a form, in order (an if's arm forgets them) */
	size_t nundo, capundo;
	uint32_t *slots;          /* XRef ranges: value indices */
	size_t nslots, capslots;
	XVal *vals;
	size_t nvals, capvals;
	XObj *objs;
	size_t nobjs, capobjs;
	XStep *steps;
	size_t nsteps, capsteps;
	PtrVec owned;             /* tensors of the plan (results, if conditions) */
	RtVal *result;
	PtrVec rtvals;            /* the result's RtVal nodes */
	uint32_t kernels;         /* made */
	uint64_t buffer_bytes;    /* of the buffers made for objects with a lifetime */
	uint32_t buffers;         /* how many */
	uint64_t image_bytes;     /* of the images made for objects with a lifetime */
	uint32_t images;          /* how many */
	uint32_t runs;
};

/* exec_run.c: enqueues step s; false after reporting. */
bool exec_step(Exec *x, const XStep *s);

/* exec_plan.c: the steps and objects; false after reporting. */
bool exec_plan(Exec *x, const InterpOpts *io);
/* exec_make.c: the memory, the constants' data and the kernels. */
bool exec_make(Exec *x);
void exec_unmake(Exec *x);

#endif
