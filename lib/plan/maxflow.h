/* maxflow.h: a minimum s-t cut of a network (push-relabel's preflow, in
 * an array layout), for copy_cut.c.
 *
 * The network is given twice, arc for arc in the same order: once to
 * count each node's arcs, once to store them, so that its arcs lie
 * contiguous (one array, each node's run in order) without a list to sort:
 *
 *     mf_begin(M, nn);        counting
 *     ...mf_arc(M, u, v, c, rc)...
 *     mf_fill(M);             storing
 *     ...the same mf_arc calls...
 *     flow = mf_cut(M, s, t, side);
 *
 * The answer does not depend on the method: side is the largest source
 * side of all minimum cuts (the nodes that cannot reach t in the residual
 * network of a maximum flow), which is unique. */
#ifndef MAXFLOW_H
#define MAXFLOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint32_t nn, na, capn;
	uint32_t s, t;
	int filling;
	/* per node, each an array of its own (maxflow.c): */
	int64_t *tr;      /* residual from s (> 0) or to t (< 0) */
	uint64_t *excess;
	uint32_t *first;  /* its arcs: arc[first[i] .. first[i + 1]) */
	uint32_t *cur;    /* the arc to try next */
	void *arc;       /* Arc32 or Arc64 (maxflow_pr.h) */
	size_t arcbytes;
	uint64_t finite; /* capacities below MF_INF added up (maxflow.c) */
	int narrow;      /* arcs of 32-bit capacities */
	int small;       /* arcs of 8 bytes, capacities in units of gcd */
	uint64_t gcd;    /* of the finite capacities */
	int shift;       /* log2 of gcd, or -1 */
	uint32_t *pos;   /* per node: the next arc to store; then its label */
	uint32_t *queue; /* breadth-first searches */
	uint64_t flow;   /* s -> t arcs and what both terminals feed one node */
	uint32_t window; /* nodes a window of the first pushes spans; 0: the
	                  * default (tests set it small) */
} MaxFlow;

/* A capacity of MF_INF or more is infinite.  The callers' networks have a
 * cut that crosses no such arc, so no minimum cut does. */
#define MF_INF (UINT64_MAX / 4)

/* Starts counting a network of nn nodes; s and t are given to mf_cut,
 * but arcs touching them are known by these. */
void mf_begin(MaxFlow *M, uint32_t nn, uint32_t s, uint32_t t);
/* An arc u -> v of capacity c and v -> u of capacity rc. */
void mf_arc(MaxFlow *M, uint32_t u, uint32_t v, uint64_t c, uint64_t rc);
/* Ends counting; the same arcs again are stored. */
void mf_fill(MaxFlow *M);
/* The maximum flow's value; side[i] = 1 for i on the largest source
 * side of a minimum cut, 0 elsewhere (side has nn bytes). */
uint64_t mf_cut(MaxFlow *M, uint8_t *side);
void mf_free(MaxFlow *M);

#endif
