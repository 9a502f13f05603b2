/* interp_prim.h: the loop-level interpreter (prims, as call_lowered runs
 * them), part of the reference interpreter of ir-run --interp.
 *
 * Semantics, chosen to be those of the OpenCL C the prims become:
 *   - integers wrap in their type's width after every operation; / and %
 *     truncate toward zero; division by zero is an error;
 *   - floats are computed in double and rounded to their type after every
 *     operation (f16: to nearest even), so f32 code gives f32 results;
 *   - min and max propagate NaN; cast converts as tensor_set does;
 *     select evaluates both of its values;
 *   - every load and store is bounds-checked (an error naming the buffer,
 *     the axis and the index), and fresh allocations hold NaN (floats) or
 *     0x5a bytes (tensor_poison), so code that reads before it writes
 *     shows; the interpreter poisons call_lowered's result buffers alike;
 *   - loops of every kind run in order, each once from LO to HI-1, with
 *     LO and HI evaluated at its entry;
 *   - a barrier directly in the body of a threadIdx loop, or of the
 *     innermost of a perfect nest of them, runs the nest's work items
 *     phase by phase: every item up to the barrier, then every item on,
 *     each keeping its own scalars and its own allocs (shared-scope
 *     allocs excepted, which the group shares), which is what a barrier
 *     promises.  A barrier anywhere else (in an if, in a serial loop of
 *     the body, outside threadIdx loops) is an error, as are textures.
 */
#ifndef INTERP_PRIM_H
#define INTERP_PRIM_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "tensor/tensor.h"

/* Runs prim p once.  args[i] binds p->params[i]: for a buffer parameter a
 * tensor of exactly its type (element kind and shape), read and written
 * in place; for a scalar parameter a rank-0 tensor holding its value.
 * Returns false after reporting an error through ctx, at the statement or
 * expression at fault ("in @k: index 7 is out of bounds for axis 1 of
 * '%A' (size 4)").  Allocs take their bytes from mem (NULL: no limit)
 * while p runs; one that does not fit is an error.  p's PVar.scratch
 * fields are overwritten. */
bool prim_exec(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs, MemBudget *mem);

/* Where a memory plan put an alloc: data_for(st, buf, bytes) returns the
 * bytes planned for the alloc buf (inside a pool's arena), or NULL for an
 * alloc of its own (ir-plan-memory(1)). */
typedef struct {
	void *(*data_for)(void *st, const PVar *buf, uint64_t bytes);
	void *st;
} PrimPlan;

/* prim_exec with the allocs a plan placed at their places, so that a plan
 * that overlaps buffers alive at once shows in the results. */
bool prim_exec_planned(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs,
                       MemBudget *mem, const PrimPlan *plan);

#endif
