/* dot.h: a module as a Graphviz DOT graph (see ir-dot(1)).
 *
 * One node per parameter, binding and result of every function, each
 * function a cluster and within it a cluster per device; device_copy
 * nodes stand out; with prims set, each prim a cluster of its kernels and
 * buffers; after ir-plan-memory, each planned value's places in its
 * label.  With summary set, each function folded as lib/dot_summary.c
 * says.  The output is a function of the module alone (no addresses, no
 * hash order), so it diffs like every tool's. */
#ifndef DOT_H
#define DOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"

typedef struct {
	bool prims;           /* --prims: draw each prim's kernels and buffers */
	uint64_t max_nodes;   /* nodes drawn at most (0: no limit); the rest folded into a note */
	bool summary;         /* --summary: chains one node, repeated blocks drawn once */
} DotOpts;

/* Writes m as DOT to out.  Uses the scratch fields of m's values and
 * prims' variables.  Returns false on a write error (errno set). */
bool dot_write(Module *m, const DotOpts *o, FILE *out);

#endif
