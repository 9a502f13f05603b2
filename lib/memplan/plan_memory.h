/* plan_memory.h: ir-plan-memory's pass (see ir-plan-memory(1)): give every
 * buffer of @main a pool and an offset, or an image, written as places
 * (ir.h, PlaceList).  The verifier checks such a plan
 * (lib/memplan/check.h). */
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

#endif
