/* plan_memory.h: ir-plan-memory's pass (see ir-plan-memory(1)): give every
 * buffer of @main a pool and an offset, or an image, written as places
 * (ir.h, PlaceList); and the verifier's check of such a plan. */
#ifndef PLAN_MEMORY_H
#define PLAN_MEMORY_H

#include <stdbool.h>
#include <stdio.h>

#include "ir.h"
#include "memplan/memplan.h"

typedef struct {
	MpAlgo algo;          /* MP_BEST by default (0 is greedy_by_size: set it) */
	bool io;              /* plan @main's parameters and result too */
	FILE *stats;          /* non-NULL: per-pool statistics there */
} MemPlanOpts;

/* Plans m; false after reporting errors (nothing is changed then). */
bool plan_memory(Module *m, const MemPlanOpts *o);

/* Checks the places of m, if any: pools declared and reachable from the
 * buffer's device, offsets aligned, pools not overflowed, buffers alive
 * at one time apart, images shared only across disjoint lifetimes and
 * large enough.  False after reporting errors. */
bool plan_memory_check(Module *m);

#endif
