/* ocl.h: OpenCL C code generation for loop-level prims (ir-codegen-ocl).
 *
 * ocl_codegen attaches to every kernel of every prim its launch (global
 * and local sizes from the bound loops, arguments in order) and adds one
 * `program @dev` per device holding the OpenCL C of its kernels, one
 * source line per IR line (ir(5)).  The loop level stays as it was, so the
 * interpreter still runs the module.  Running it again regenerates the
 * same bytes.
 */
#ifndef OCL_H
#define OCL_H

#include <stdbool.h>
#include <stdio.h>

#include "ir.h"

typedef struct {
	/* unrolled loops written out iteration by iteration instead of
	 * `#pragma unroll` (POCL runs both alike: bench/) */
	bool full_unroll;
} OclOpts;

/* Reports located errors (a module not lowered or not flattened, a
 * kernel the mapping cannot express) and returns false.  o may be NULL. */
bool ocl_codegen(Module *m, const OclOpts *o);

/* Writes the OpenCL C of the programs as one translation unit: every
 * device's (dev NULL) or only @dev's.  False (after reporting) when @dev
 * has no program. */
bool ocl_emit_cl(Module *m, const char *dev, FILE *out);

/* What code generation and the runtime share.  ocl_require_lowered
 * reports every operator binding left at the graph level, each as a
 * located error ending "run <todo>", and returns false if there was one.
 * ocl_prim_device is the device a prim runs on: that of its first placed
 * buffer parameter or alloc, else the module's default. */
bool ocl_require_lowered(Module *m, const char *todo);
const Device *ocl_prim_device(Module *m, const Prim *p);

#endif
