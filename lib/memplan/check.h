/* check.h: the verifier's check of a memory plan (the places that
 * ir-plan-memory writes, or a module's author), on the buffers of
 * bufs.h. */
#ifndef MEMPLAN_CHECK_H
#define MEMPLAN_CHECK_H

#include <stdbool.h>

#include "ir.h"

/* Checks the places of m, if any: pools declared and reachable from the
 * buffer's device, offsets aligned, pools not overflowed, buffers alive
 * at one time apart, images shared only across disjoint lifetimes and
 * large enough, no place but for a buffer of @main.  False after
 * reporting errors. */
bool memplan_check(Module *m);

#endif
