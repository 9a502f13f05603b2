/* dot_draw.h: what lib/dot.c (the full view) and lib/dot_summary.c
 * (--summary) share: the writer's state, escaping, the nodes of
 * parameters, bindings and results, and the clusters of devices.  Private
 * to ir-dot's library code; see dot.h. */
#ifndef DOT_DRAW_H
#define DOT_DRAW_H

#include "dot/dot.h"

typedef struct {
	Module *m;
	const DotOpts *o;
	FILE *f;
	uint32_t next;        /* next node number */
	uint64_t folded;      /* nodes not drawn for --max-nodes */
	Sym *devs;            /* m's devices, in order */
	uint32_t ndevs;
	/* Per prim, sorted by p: its kernels' names; under --prims, its
	 * cluster's number and the node its calls' edges point at (+1, 0:
	 * none drawn). */
	struct PrimKernels { const Prim *p; char *names; uint32_t cluster, anchor; } *pk;
	size_t npk;
} Dot;

/* s (n bytes) in a quoted DOT string: printable ASCII passes, a quote or
 * backslash is escaped, any other byte is shown as \xNN. */
void dot_esc_n(FILE *f, const char *s, size_t n);
void dot_esc(FILE *f, const char *s);   /* NULL: "?" */
void dot_vdev(FILE *f, const VDev *vd); /* @dev:scope */
void dot_type(FILE *f, const Type *t);  /* NULL: "?" */

/* The cluster of a placement: 0 none, 1 + the device's index; a
 * device_copy is in none, between the clusters it joins. */
uint32_t dot_group_of(const Dot *d, const VDev *vd);
uint32_t dot_value_group(const Dot *d, const Value *v);

/* A node number (+1) for the next node, or 0 once --max-nodes is spent. */
uint32_t dot_take(Dot *d);

/* Starts node id's label (the caller writes it, and closes it with its
 * attributes). */
void dot_node_start(Dot *d, uint32_t id);

/* Nodes (id: the number dot_take gave) and edges (none where an end is 0). */
void dot_param_node(Dot *d, const Value *p, uint32_t i, uint32_t id);
void dot_result_node(Dot *d, const Func *fn, uint32_t id);
void dot_bind_node(Dot *d, const Value *v, uint32_t id);
void dot_edge(Dot *d, uint32_t from, uint32_t to, const char *label);

/* Opens the cluster of device group g (>= 1) in function fi's cluster;
 * the caller closes it. */
void dot_device_cluster(Dot *d, uint32_t fi, uint32_t g);

/* --summary: function fi drawn folded (lib/dot_summary.c). */
void dot_summary_func(Dot *d, const Func *fn, uint32_t fi);

#endif
