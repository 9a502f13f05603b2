/* interp.h: the reference interpreter for a whole module (ir-run --interp).
 *
 * Runs @main as the graph level says: operators through the reference
 * kernels of lib/ref_*.c, lowered prims (call_lowered) through the
 * loop-level interpreter of lib/interp_prim.c, function calls, ifs,
 * tuples and constants.  Placement (on_device, device_copy, `on`) does not
 * change a value, so it is ignored: the interpreter is the meaning that
 * every placement and every lowering must preserve.
 *
 * It numbers each function's values in Value.scratch (a field of its
 * own: placements stay as they were).
 */
#ifndef INTERP_H
#define INTERP_H

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"
#include "tensor.h"

/* A runtime value: a tensor, or a tuple of values. */
typedef struct RtVal RtVal;
struct RtVal {
	const Type *type;
	Tensor *t;            /* TY_TENSOR */
	uint32_t n;           /* TY_TUPLE: fields */
	RtVal **fields;
};

/* An input named on the command line: --input NAME=PATH. */
typedef struct {
	const char *name;     /* a parameter of @main, without the '%' */
	const char *path;     /* its .npy file */
	const Tensor *tensor; /* or, for tests and benchmarks, the tensor itself (copied) */
} InterpInput;

typedef struct {
	const char *data_dir;     /* --data-dir: where relative constant files are; NULL */
	const char *input_path;   /* the module's file (its folder is the next place); NULL: stdin */
	bool any_data_path;       /* --allow-outside-data: file= may be absolute or hold '..' */
	const InterpInput *inputs;
	uint32_t ninputs;
	uint32_t max_call_depth;  /* nested graph-level calls; 0: 10000 */
	/* Bytes of tensor data the run may hold at once (--max-memory); a
	 * tensor that would pass it is refused before it is allocated.  0:
	 * mem_default_limit(), UINT64_MAX: no limit. */
	uint64_t max_memory;
	/* A hook for ir-run on OpenCL: when set, each call_lowered runs
	 * through it instead of the loop-level interpreter.  args are the
	 * prim's tensors (operands flattened, then nin.. the fresh results),
	 * filled in place; false after reporting through the module's ctx. */
	bool (*run_prim)(void *ud, const Value *call, const Prim *p, Tensor *const *args,
	                 uint32_t nargs, uint32_t nin);
	void *run_prim_ud;
	/* With run_prim, a prim's results may stay where run_prim keeps them
	 * (on a device), so its fresh result tensors are not poisoned and
	 * memory plans are left to it (no host arenas).  to_host(ud, t) then
	 * makes t's data valid before the interpreter reads it (an if's
	 * condition, an operator's operands, @main's result), and
	 * device_copy(ud, v, src, dst) fills the fresh dst for the
	 * device_copy v of the tensor src.  Both take run_prim_ud; false after
	 * reporting.  NULL: the data is always on the host. */
	bool (*to_host)(void *ud, Tensor *t);
	bool (*device_copy)(void *ud, const Value *v, Tensor *src, Tensor *dst);
	/* With run_prim, a memory plan's places are told instead: tensor t
	 * of @main is buffer i of the n that node's places give (a binding,
	 * a parameter, a constant); NULL: no plan is followed. */
	void (*placed)(void *ud, const void *node, uint32_t i, uint32_t n, Tensor *t);
	/* With run_prim, constants may stay on the devices across runs of
	 * one process (ir-run --repeat).  const_held(ud, v): the runtime
	 * still holds constant v's data from an earlier evaluation, so its
	 * fresh tensor is made without reading its file or its literal
	 * (zeros: to_host fills it before anything reads it).  const_made(ud,
	 * v, t): t is v's tensor this time, filled or not as const_held
	 * said.  Both take run_prim_ud; NULL: every evaluation reads it. */
	bool (*const_held)(void *ud, const Value *v);
	void (*const_made)(void *ud, const Value *v, Tensor *t);
} InterpOpts;

typedef struct Interp Interp;

Interp *interp_new(Module *m);
/* Frees the interpreter and every value it made, results included. */
void interp_free(Interp *in);

/* Runs @main with the inputs of o.  Returns its result, owned by the
 * interpreter, or NULL after reporting errors through m->ctx: a missing,
 * unknown or mismatched input (naming the parameter), an unreadable
 * constant file, a tensor over the memory limit (naming it and its size),
 * an error of a reference kernel or of a prim.  Fresh result buffers are
 * poisoned (tensor_poison) before a kernel or prim fills them, so an
 * element it forgets shows. */
const RtVal *interp_run_main(Interp *in, const InterpOpts *o);

/* The path of a constant file as DESIGN.md resolves it: absolute paths as
 * they are; else under data_dir if given, else beside input_path if given,
 * else the current folder.  Malloc'd. */
char *interp_resolve_path(const char *path, const char *data_dir, const char *input_path);
/* Whether a constant's file= path stays inside the data folder: relative,
 * with no '..' component (ir(5): others are refused unless the user
 * allows them with --allow-outside-data). */
bool interp_path_inside(const char *path);
/* The error for a path that is not inside, at the constant's binding. */
#define INTERP_OUTSIDE_MSG "the constant '%%%s' names '%s', outside the data folder (an " \
	"absolute path or a '..'); --allow-outside-data lets it be read"

#endif
