/* alter_layout.h: NCHW operators into the packed NCHW4c / OIHW4o forms
 * that lowering puts in texture memory (ir-alter-layout). */
#ifndef ALTER_LAYOUT_H
#define ALTER_LAYOUT_H

#include <stdio.h>

#include "ir.h"

typedef enum {
	ALTER_AUTO,     /* pack on devices with texture=true, and cpus with depthwise convolutions */
	ALTER_NCHW4C,   /* pack on every device */
	ALTER_NONE,     /* change nothing */
} AlterMode;

typedef struct {
	AlterMode mode;
	FILE *stats;    /* --stats: one line per operator looked at, or NULL */
} AlterOpts;

/* Rewrites every function of m: conv2d, pooling, global pooling, bias_add,
 * elementwise operators and spatial reductions placed on a packing device
 * (as ir-plan-devices would place them from the annotations written) take
 * and make NCHW4c data and OIHW4o weights, with layout_transform only where
 * a packed region meets the rest.  Reports errors (those planning reports)
 * through m->ctx and returns false on failure. */
bool alter_layout(Module *m, const AlterOpts *o);

#endif
