/* lower.h: ir-lower, graph-level operators to loop-level prims.
 *
 * Operators are grouped as TVM's FuseOps does (lower.c), each group
 * becomes one prim with a schedule for its device (lower.c, and the
 * register tiles of lower_tile.c) and the loop nests of its operators
 * (lower_ops.c), and the group's last binding becomes a call_lowered of
 * it, keeping its name.
 */
#ifndef LOWER_H
#define LOWER_H

#include <stdbool.h>
#include <stdio.h>

#include "ir.h"

typedef struct {
	bool no_fuse;        /* --no-fuse: one prim per operator */
	bool no_texture;     /* --no-texture: buffers even on texture devices */
	bool no_tile;        /* --no-tile: one element per work item everywhere */
	bool split_k_kernel; /* --split-k-kernel: a split k's slices added by a kernel of
	                      * their own, not by each tile's last work group */
	FILE *stats;         /* --stats: where to report, or NULL */
} LowerOpts;

/* Lowers every operator call of every function.  False after reporting
 * errors through m->ctx. */
bool lower_module(Module *m, const LowerOpts *o);

#endif
