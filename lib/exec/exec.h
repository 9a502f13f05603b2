/* exec.h: ir-run's executor: @main compiled once into a plan of OpenCL
 * commands, then run as that list (ir-run without --interp).
 *
 * Planning walks @main once, as a run would, but enqueues nothing: it
 * decides where every tensor value lives (a device, a buffer or an image
 * of the form its user wants, the host only for @main's inputs,
 * constants and results), which commands make it (a kernel launch, a copy
 * between forms on a device, a copy between devices through host memory,
 * an upload of an input, a read of a result), and when each memory object
 * is last used.  Then it makes everything once: the memory (a memory
 * plan's places where ir-plan-memory gave them, else whole buffers and
 * images shared by values whose lifetimes do not meet), the constants on their
 * devices in every form they are used in, and a kernel object per launch
 * with its arguments set.  A run writes the inputs, enqueues the steps
 * (without events unless --profile or --sync wants them; two devices
 * meet through one user event per copy between them) and reads the
 * results: nothing is allocated, looked up or released.
 *
 * Calls of functions are inlined (each call site has values of its own);
 * an if is a branch on its condition, read back in the run, with both
 * arms in the list.  What it does not plan (exec_plannable says why)
 * runs through the reference interpreter's walk on the runtime's devices
 * (runtime.h's oclrt_walk): recursion, a plan of more than 2^20 bindings
 * once inlined, a scalar prim argument that is not a constant where it
 * is passed, a copy or an if's result on a device without a program,
 * --check and --no-keep-constants.
 *
 * Files: exec_check.c says whether @main can be planned, exec_plan.c
 * decides the plan, exec_make.c makes its memory and kernels, exec_run.c
 * runs it and prints its statistics.
 */
#ifndef EXEC_H
#define EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include "ocl/runtime.h"
#include "ref/interp.h"

typedef struct Exec Exec;

/* Whether @main of m can be planned for rt's devices; else why (a
 * static string). */
bool exec_plannable(OclRt *rt, Module *m, const char **why);

/* Plans @main of m for the devices of rt: reads the inputs of io once
 * (the interpreter's checks) and the constants, makes the memory
 * objects and kernels, uploads the constants.  NULL after reporting
 * through m->ctx. */
Exec *exec_new(OclRt *rt, Module *m, const InterpOpts *io);
/* One run: writes the inputs, enqueues every step, waits for the
 * devices.  The result, owned by x (valid until the next run), or NULL
 * after reporting (nothing of the result is valid then). */
const RtVal *exec_run(Exec *x);
/* --stats: the plan's size and what the last run made (two lines). */
void exec_stats(const Exec *x, FILE *f);
void exec_free(Exec *x);

#endif
