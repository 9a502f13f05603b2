/* plan_devices.h: placing every value on a virtual device (ir-plan-devices). */
#ifndef PLAN_DEVICES_H
#define PLAN_DEVICES_H

#include <stdio.h>

#include "ir.h"

typedef struct {
	const char *default_dev;  /* --default=@dev: overrides the module's */
	FILE *stats;              /* --stats: where to print counts, or NULL */
	bool minimize_copies;     /* --minimize-copies: free values placed to
	                           * copy the fewest bytes */
} PlanOpts;

/* Solves the placement of every parameter, binding and function result,
 * removes on_device, inserts device_copy where a use's placement differs
 * from its value's, and fills open scopes of prim parameters from their
 * callers.  Reports errors through m->ctx and returns false on failure. */
bool plan_devices(Module *m, const PlanOpts *opts);

#endif
