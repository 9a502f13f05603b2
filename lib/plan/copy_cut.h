/* copy_cut.h: choosing labels (devices) for free nodes so that the bytes
 * copied between labels are fewest (ir-plan-devices --minimize-copies).
 *
 * A problem is a set of nodes, some fixed to a label, the others free, and
 * groups: a value of w bytes living on node org and read on the nodes
 * mem[gstart[g]..gstart[g+1]).  Its cost under a labelling is w for each
 * label among its readers other than its own (a value is copied once per
 * destination, however many readers there).  With two labels that is a
 * hyperedge cut and a minimum s-t cut solves it exactly. */
#ifndef COPY_CUT_H
#define COPY_CUT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	uint32_t n;             /* nodes */
	uint32_t nlabels;
	const int32_t *fixed;   /* n: a node's label, or -1 when free */
	uint32_t ng;            /* groups */
	const uint32_t *org;    /* ng: the node the value lives on */
	const uint64_t *w;      /* ng: its bytes */
	const uint32_t *gstart; /* ng + 1: its readers in mem */
	const uint32_t *mem;    /* distinct nodes other than org */
} CopyGraph;

typedef struct {
	uint32_t components;    /* components of free nodes between labels */
	uint32_t improved;      /* of those, the ones moved off start */
	uint32_t exact;         /* solved exactly (cut or enumeration) */
} CopyCutStats;

/* Labels every free node: a component of free nodes (linked by groups)
 * that touches fixed nodes is solved, and out gets the solution where it
 * copies strictly fewer bytes than start (a labelling of every node, the
 * plan to improve on), else start's labels; a component touching no fixed
 * node gets -1.  Ties between cuts prefer deflabel.  Deterministic. */
void copy_cut_solve(const CopyGraph *g, const int32_t *start, int32_t deflabel, int32_t *out,
                    CopyCutStats *st);

#endif
