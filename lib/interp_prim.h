/* interp_prim.h: the loop-level interpreter (prims, as call_lowered runs
 * them), part of the reference interpreter of ir-run --interp.
 *
 * Semantics, chosen to be those of the OpenCL C the prims become:
 *   - integers wrap in their type's width after every operation; / and %
 *     truncate toward zero; division by zero is an error;
 *   - floats are computed in double and rounded to their type after every
 *     operation (f16: to nearest even), so f32 code gives f32 results;
 *   - min and max propagate NaN; cast converts as tensor_set does;
 *   - every load and store is bounds-checked (an error naming the buffer,
 *     the axis and the index), and fresh allocations hold NaN (floats) or
 *     0x5a bytes, so code that reads before it writes shows;
 *   - loops of every kind run in order; a barrier runs the work items of
 *     its thread-bound loops phase by phase (each item up to the barrier,
 *     then each item on), which is what a barrier promises.
 */
#ifndef INTERP_PRIM_H
#define INTERP_PRIM_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "tensor.h"

/* Runs prim p once on args: args[i] binds p->params[i], a tensor of
 * exactly its type for a buffer (read and written in place), a rank-0
 * tensor for a scalar.  False after reporting an error through ctx. */
bool prim_exec(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs);

#endif
