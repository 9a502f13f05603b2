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
 * @main runs as the executor's plan (lib/exec/), made of this runtime's
 * devices, programs, objects and copies.  What the executor cannot plan
 * runs through the reference interpreter's walk (interp.h's
 * InterpDevices: oclrt_walk below), with values where prims made them: each
 * call_lowered takes its operands where they are (uploading only what is
 * on the host: @main's inputs and constants, straight into images for
 * texture scopes), launches its kernels and leaves its results on its
 * device, in buffers for global scopes and 2-d RGBA images (the
 * flattening's width and height) for texture scopes.  device_copy moves
 * data on the device (buffer <-> image) or between devices through host
 * memory; only an if's condition, a scalar argument and @main's result
 * are read back.  Commands are enqueued without blocking, in order on
 * each device's queue; a copy between contexts waits through a user
 * event that a thread of ours completes, so the host never blocks on it (--sync: every command
 * finishes before the next).
 *
 * Files: runtime.c runs calls; rt_device.c maps and opens devices;
 * rt_program.c builds programs; rt_object.c makes buffers, images and
 * workspaces (rt_workspace: the one place a prim's workspace comes
 * from); rt_value.c keeps where values are; rt_copy.c moves data;
 * rt_const.c keeps constants on the devices across runs; rt_profile.c
 * times (--profile); rt_impl.h is what they share.
 */
#ifndef OCL_RUNTIME_H
#define OCL_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "ref/interp.h"
#include "tensor/tensor.h"

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
	bool sync;            /* finish every command before the next */
	bool profile;         /* time every command (oclrt_profile_print) */
	/* say each step that may take seconds (a build, the first run) at
	 * once, wherever stderr goes (else only on a terminal, after 1 s) */
	bool progress;
	/* --host-copies: a context for each declared device, so copies
	 * between devices all go through host memory (the baseline);
	 * --peer-copies: one context for a platform's devices, copies between
	 * them copy commands (by default only declared devices on one OpenCL
	 * device share a context: rt_device.c) */
	bool host_copies, peer_copies;
} OclRtOpts;

typedef struct OclRt OclRt;

/* Checks that the module has generated code (located errors saying to
 * run ir-lower or ir-codegen-ocl), maps its devices and builds their
 * programs.  NULL after reporting, in words, through m->ctx. */
OclRt *oclrt_new(Module *m, const OclRtOpts *o);
void oclrt_free(OclRt *rt);

/* The interpreter's walk on these devices (interp.h's InterpDevices; its
 * dev_ud is the OclRt), where the executor (lib/exec/) cannot plan @main:
 * prims run here and leave their results on their devices, copies
 * happen here, values come to the host only where the walk reads them,
 * a memory plan's places are followed, and constants stay on the devices
 * for every run (oclrt_walk_no_keep: none is kept, the baseline). */
extern const InterpDevices oclrt_walk, oclrt_walk_no_keep;

/* --check: how many calls were compared and found equal, one line on f. */
void oclrt_check_say(const OclRt *rt, FILE *f);

/* The first run: a word on stderr if it takes over a second (drivers
 * compile kernels at their first launch), as rt_progress.c says. */
void oclrt_first_run_begin(OclRt *rt);
void oclrt_first_run_end(OclRt *rt);

/* Marks the start of a run of @main (for --profile's wall time). */
void oclrt_begin_run(OclRt *rt);
/* Ends a run: waits for every queue, collects the profile and frees the
 * run's memory objects.  False after reporting a command that failed. */
bool oclrt_end_run(OclRt *rt);
/* --profile: the table (rt_profile.c says what it holds) on f; reset
 * forgets what was timed so far (a warm-up run). */
void oclrt_profile_print(OclRt *rt, FILE *f);
void oclrt_profile_reset(OclRt *rt);

#endif
