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
#include "tensor/tensor.h"
#include "tensor/value.h"   /* RtVal */

/* The one interface between the walk and devices that run its prims
 * (ir-run on OpenCL, runtime.h's oclrt_walk).  Every function takes the
 * InterpOpts' dev_ud and reports through the module's ctx.
 *
 * run_prim runs each call_lowered instead of the loop-level interpreter:
 * args are the prim's tensors (operands flattened, then nin.. the fresh
 * results), whose data may stay where run_prim keeps them (on a device),
 * so fresh result tensors are not poisoned and memory plans are left to
 * it (no host arenas).  to_host makes t's data valid before the walk
 * reads it (an if's condition, an operator's operands, @main's result).
 * device_copy fills the fresh dst for the device_copy v of src.  placed
 * says that tensor t of @main is buffer i of the n that node's places
 * give in a memory plan (a binding, a parameter, a constant).
 * Constants may stay on the devices across runs of one process:
 * const_held(v) says the devices still hold constant v's data, so its
 * fresh tensor is made without reading its file or literal (zeros:
 * to_host fills it before anything reads it); const_made(v, t) says t
 * is v's tensor this time.  Both NULL: every evaluation reads it. */
typedef struct {
	bool (*run_prim)(void *ud, const Value *call, const Prim *p, Tensor *const *args,
	                 uint32_t nargs, uint32_t nin);
	bool (*to_host)(void *ud, Tensor *t);
	bool (*device_copy)(void *ud, const Value *v, Tensor *src, Tensor *dst);
	void (*placed)(void *ud, const void *node, uint32_t i, uint32_t n, Tensor *t);
	bool (*const_held)(void *ud, const Value *v);
	void (*const_made)(void *ud, const Value *v, Tensor *t);
} InterpDevices;

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
	/* ir-run on OpenCL, where its executor cannot plan @main: the
	 * devices the walk hands its prims and copies to (NULL: none, every
	 * value is on the host), and their state. */
	const InterpDevices *dev;
	void *dev_ud;
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

/* For the executor (lib/exec/), which runs @main without the walk:
 * read_inputs fills per_param (one tensor per parameter of @main) from
 * o's inputs, const_tensor reads constant (or literal operand) v; both
 * check and report as interp_run_main does, and the tensors are the
 * interpreter's until interp_free.  False / NULL after reporting. */
bool interp_read_inputs(Interp *in, const InterpOpts *o, Tensor **per_param);
Tensor *interp_const_tensor(Interp *in, const InterpOpts *o, const Value *v);

/* The error for a path that is not inside, at the constant's binding. */
#define INTERP_OUTSIDE_MSG "the constant '%%%s' names '%s', outside the data folder (an " \
	"absolute path or a '..'); --allow-outside-data lets it be read"

#endif
