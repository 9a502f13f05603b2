/* runtime.h: running the kernels of ir-codegen-ocl on OpenCL devices
 * (ir-run without --interp).
 *
 * Each declared device that has a `program` maps to one OpenCL device:
 * kind cpu, gpu, accel to the device type, and its index N among the
 * devices of that type over every platform, platforms in the order of
 * their names (never their enumeration index, which drivers reorder).
 * A binding `@dev=NAME[:N]` picks instead the Nth device whose platform
 * or device name contains NAME.  A gpu with no GPU present runs on the
 * CPU device of POCL (else the first CPU device), said once on stderr.
 * Each device gets one context, one in-order queue, and its program,
 * built once before anything runs (the build log in the error).
 *
 * The graph level runs on the host through the reference interpreter's
 * walk (interp.h's run_prim hook): each call_lowered uploads its operands
 * into buffers (global scopes) or 2-d RGBA images (texture scopes, the
 * flattening's width and height), allocates the prim's workspaces,
 * launches its kernels in order with their launch geometry and reads the
 * results back.  device_copy, tuples and ifs are the interpreter's.
 *
 * Files: runtime.c runs calls; rt_device.c maps and opens devices;
 * rt_program.c builds programs; rt_object.c makes buffers, images and
 * workspaces (rt_workspace: the one place a prim's workspace comes
 * from); rt_impl.h is what they share.
 */
#ifndef OCL_RUNTIME_H
#define OCL_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "ref/tensor.h"

/* --device @dev=NAME[:N] */
typedef struct {
	const char *dev;      /* without '@' */
	const char *name;     /* substring of the platform or device name */
	uint32_t index;
} OclBind;

typedef struct {
	const OclBind *binds;
	uint32_t nbinds;
	/* each call_lowered is also run by the loop-level interpreter on the
	 * same operands and the results compared (ir-run --check) */
	bool check;
	/* --no-cache: neither read nor write the program binary cache */
	bool no_cache;
	/* --stats: cache hits and misses, pool reuse, to this stream */
	FILE *stats;
} OclRtOpts;

typedef struct OclRt OclRt;

/* Checks that the module has generated code (located errors saying to
 * run ir-lower or ir-codegen-ocl), maps its devices and builds their
 * programs.  NULL after reporting, in words, through m->ctx. */
OclRt *oclrt_new(Module *m, const OclRtOpts *o);
void oclrt_free(OclRt *rt);

/* interp.h's run_prim hook; ud is the OclRt. */
bool oclrt_run_prim(void *ud, const Value *call, const Prim *p, Tensor *const *args,
                    uint32_t nargs, uint32_t nin);

#endif
