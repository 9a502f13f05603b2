/* copy_cut.c: fewest bytes copied between labels (see copy_cut.h).
 *
 * Free nodes linked by groups form components; fixed nodes separate them,
 * so each component is a problem of its own, with the labels of the fixed
 * nodes its groups touch (L).  A labelling that uses a label outside L
 * never copies less (map that label to any of L: no group gains a label),
 * so:
 *   |L| = 1   every free node takes it (no copy at all);
 *   |L| = 2   a minimum s-t cut (push-relabel's preflow), exact: a group of one other
 *             node is an edge of capacity w, a larger one Lawler's
 *             hyperedge (two extra nodes joined by w, infinite arcs from
 *             and to its nodes), so it is paid once when cut;
 *   |L| > 2   enumeration when the component is small, else the isolation
 *             heuristic (a cut of each label against the others; within
 *             2 - 2/|L| of the optimum for plain edges) and then local
 *             search, moving one node at a time while that copies less.
 * A component keeps start's labels unless the solution copies strictly
 * less, so what the caller had is changed only where bytes are saved.
 *
 * Everything is iterative (explicit stacks and queues) and visits nodes
 * and groups in index order: the result depends only on the input. */
#include <stdlib.h>
#include <string.h>

#include "plan/copy_cut.h"
#include "ir.h"
#include "plan/maxflow.h"

#define NONE UINT32_MAX
#define ENUM_WORK 2000000u     /* labellings x group members, at most */
#define SEARCH_PASSES 16

/* ---------------------------------------------------------- the solver */

typedef struct {
	const CopyGraph *g;
	int32_t *lab;          /* the labelling being built: fixed, start, tried */
	uint32_t *stamp, tick; /* per label: seen in the group being costed */
	uint32_t *loc;         /* per node: its index in the component, or NONE */
	uint32_t *mark, mtag, capmark; /* per network node: the group it was seen in */
	MaxFlow net;
	uint8_t *side;         /* per network node: 1 on the source's side of the cut */
	uint32_t *nid, *gaux;  /* per free node, per group of the component: its network
	                        * node, its first Lawler node */
	uint32_t *gn, capgn, *gnstart; /* per group of the component: its distinct
	                        * network nodes (group_nodes) */
	/* the component: its free nodes and groups, ascending; its labels */
	uint32_t *cn, ncn, *cg, ncg;
	int32_t *labels;
	uint32_t nl;
	/* local search: groups incident to each node of the component */
	uint32_t *istart, *inc;
} Solver;

static uint64_t
group_cost(Solver *S, uint32_t g)
{
	const CopyGraph *G = S->g;
	uint64_t c = 0;
	if (++S->tick == 0) {
		memset(S->stamp, 0, G->nlabels * sizeof *S->stamp);
		S->tick = 1;
	}
	int32_t own = S->lab[G->org[g]];
	for (uint32_t k = G->gstart[g]; k < G->gstart[g + 1]; k++) {
		int32_t l = S->lab[G->mem[k]];
		if (l != own && S->stamp[l] != S->tick) {
			S->stamp[l] = S->tick;
			c += G->w[g];
		}
	}
	return c;
}

static uint64_t
comp_cost(Solver *S)
{
	uint64_t c = 0;
	for (uint32_t i = 0; i < S->ncg; i++)
		c += group_cost(S, S->cg[i]);
	return c;
}

static uint32_t
next_tag(Solver *S)
{
	if (++S->mtag == 0) {
		memset(S->mark, 0, S->capmark * sizeof *S->mark);
		S->mtag = 1;
	}
	return S->mtag;
}

/* The network node of node x: label a's fixed nodes are one terminal
 * (0, the source, when a_src, else 1, the sink), the component's other
 * fixed nodes the other, a free node its own (nid). */
static uint32_t
net_node(Solver *S, uint32_t x, int32_t a, bool a_src)
{
	int32_t f = S->g->fixed[x];
	if (f >= 0)
		return (f == a) == a_src ? 0 : 1;
	return S->nid[S->loc[x]];
}

/* Each group's distinct network nodes, in the order its nodes come (org
 * last), into S->gn from S->gnstart[i] for the component's group i: the
 * arcs are made from these twice (counted, then stored), so each node is
 * looked up once.  A group is small (its readers), so a node is compared
 * with those already kept; a large one is marked instead. */
static void
group_nodes(Solver *S, int32_t a, bool a_src)
{
	const CopyGraph *G = S->g;
	uint32_t nm = 0;
	for (uint32_t i = 0; i < S->ncg; i++) {
		uint32_t g = S->cg[i], k0 = G->gstart[g], k1 = G->gstart[g + 1];
		if (nm + (k1 - k0) + 1 > S->capgn) {
			S->capgn = vec_cap(S->capgn, nm + (k1 - k0) + 1, sizeof *S->gn);
			S->gn = xrealloc(S->gn, S->capgn * sizeof *S->gn);
		}
		S->gnstart[i] = nm;
		uint32_t *d = S->gn + nm, nd = 0, tag = k1 - k0 > 8 ? next_tag(S) : 0;
		for (uint32_t k = k0; k <= k1; k++) {
			uint32_t u = net_node(S, k == k1 ? G->org[g] : G->mem[k], a, a_src);
			bool seen = false;
			if (tag) {
				seen = S->mark[u] == tag;
				S->mark[u] = tag;
			} else {
				for (uint32_t j = 0; j < nd && !seen; j++)
					seen = d[j] == u;
			}
			if (!seen)
				d[nd++] = u;
		}
		nm += nd;
	}
	S->gnstart[S->ncg] = nm;
}

/* Group i's arcs (see cut_label) from its distinct network nodes d[0..k);
 * aux its Lawler nodes' first. */
static void
group_arcs(MaxFlow *N, const uint32_t *d, uint32_t k, uint64_t w, uint32_t aux)
{
	if (k == 2) {
		mf_arc(N, d[0], d[1], 2 * w, 2 * w);
		return;
	}
	if (k == 3) { /* any cut splits one from two: two arcs of w */
		mf_arc(N, d[0], d[1], w, w);
		mf_arc(N, d[0], d[2], w, w);
		mf_arc(N, d[1], d[2], w, w);
		return;
	}
	if (k < 4)
		return;
	bool has_s = false, has_t = false;
	for (uint32_t j = 0; j < k; j++)
		has_s |= d[j] == 0, has_t |= d[j] == 1;
	if (has_s && has_t) { /* cut whatever the rest does */
		mf_arc(N, 0, 1, 2 * w, 0);
		return;
	}
	/* Lawler: e1 -> e2 of 2w, every node -> e1 and e2 -> every node
	 * infinite; a terminal among the nodes stands for e1 (s) or e2 (t) */
	uint32_t e1 = has_s ? 0 : aux, e2 = has_t ? 1 : aux + 1;
	mf_arc(N, e1, e2, 2 * w, 0);
	for (uint32_t j = 0; j < k; j++) {
		if (d[j] <= 1)
			continue;
		if (!has_s)
			mf_arc(N, d[j], e1, MF_INF, 0);
		if (!has_t)
			mf_arc(N, e2, d[j], MF_INF, 0);
	}
}

/* A minimum cut of label a's fixed nodes against the component's other
 * fixed nodes, a's side the largest such side when a_src, else the
 * smallest; leaves S->side (1: the source's side) and returns the bytes.
 * The network: node 0 the source, 1 the sink, then the component's free
 * nodes in order, each group's two Lawler nodes before its own node's
 * (where it has three readers or more): arcs are short, which the
 * cut's memory order needs (maxflow.c).  Capacities are doubled so that a
 * group of three distinct nodes is a triangle of w each (any cut of it
 * cuts two sides) with no extra node; a group of two is one edge, a
 * larger one Lawler's hyperedge, paid once when cut.  Every way of
 * writing a group costs the same on every labelling, so the largest
 * source side is the same whichever is used. */
static uint64_t
cut_label(Solver *S, int32_t a, bool a_src)
{
	const CopyGraph *G = S->g;
	MaxFlow *N = &S->net;
	uint32_t nn = 2, j = 0;
	for (uint32_t i = 0; i <= S->ncn; i++) {
		for (; j < S->ncg && (i == S->ncn || G->org[S->cg[j]] <= S->cn[i]); j++) {
			S->gaux[j] = nn;
			if (G->gstart[S->cg[j] + 1] - G->gstart[S->cg[j]] > 2)
				nn += 2;
		}
		if (i < S->ncn)
			S->nid[i] = nn++;
	}
	if (nn > S->capmark) { /* per network node, tags from S->mtag */
		S->capmark = nn > 2 * S->capmark ? nn : 2 * S->capmark;
		/* zeroed, not cleared: only groups of more than 8 nodes mark,
		 * so most of it is never touched */
		free(S->mark);
		S->mark = xcalloc(S->capmark, sizeof *S->mark);
		S->side = xrealloc(S->side, S->capmark);
		S->mtag = 0;
	}
	group_nodes(S, a, a_src);
	mf_begin(N, nn, 0, 1);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			mf_fill(N);
		for (uint32_t i = 0; i < S->ncg; i++)
			group_arcs(N, S->gn + S->gnstart[i], S->gnstart[i + 1] - S->gnstart[i],
			           G->w[S->cg[i]], S->gaux[i]);
	}
	return mf_cut(N, S->side) / 2;
}

static void
set_comp(Solver *S, const int32_t *src)
{
	for (uint32_t i = 0; i < S->ncn; i++)
		S->lab[S->cn[i]] = src[i];
}

static void
get_comp(Solver *S, int32_t *dst)
{
	for (uint32_t i = 0; i < S->ncn; i++)
		dst[i] = S->lab[S->cn[i]];
}

/* Every labelling of the component's free nodes with its labels; best in
 * dst.  Returns false when there are too many to try. */
static bool
enumerate(Solver *S, int32_t *dst, uint32_t *digit)
{
	uint64_t count = 1, size = 1;
	for (uint32_t i = 0; i < S->ncg; i++)
		size += S->g->gstart[S->cg[i] + 1] - S->g->gstart[S->cg[i]] + 1;
	for (uint32_t i = 0; i < S->ncn; i++)
		if ((count *= S->nl) * size > ENUM_WORK)
			return false;
	uint64_t best = UINT64_MAX;
	memset(digit, 0, S->ncn * sizeof *digit);
	for (;;) {
		for (uint32_t i = 0; i < S->ncn; i++)
			S->lab[S->cn[i]] = S->labels[digit[i]];
		uint64_t c = comp_cost(S);
		if (c < best) {
			best = c;
			get_comp(S, dst);
		}
		uint32_t i = 0;
		while (i < S->ncn && ++digit[i] == S->nl)
			digit[i++] = 0;
		if (i == S->ncn)
			return true;
	}
}

/* Moves single nodes to the label that copies least while one does. */
static void
local_search(Solver *S)
{
	const CopyGraph *G = S->g;
	/* incident groups per node of the component (org or reader) */
	memset(S->istart, 0, (S->ncn + 1) * sizeof *S->istart);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < S->ncg; i++) {
			uint32_t g = S->cg[i];
			for (uint32_t k = G->gstart[g]; k <= G->gstart[g + 1]; k++) {
				uint32_t x = k == G->gstart[g + 1] ? G->org[g] : G->mem[k];
				if (G->fixed[x] >= 0)
					continue;
				if (pass == 0)
					S->istart[S->loc[x] + 1]++;
				else
					S->inc[S->istart[S->loc[x]]++] = g;
			}
		}
		if (pass == 0) {
			for (uint32_t i = 0; i < S->ncn; i++)
				S->istart[i + 1] += S->istart[i];
			S->inc = xrealloc(S->inc, (S->istart[S->ncn] + 1) * sizeof *S->inc);
		} else {
			for (uint32_t i = S->ncn; i > 0; i--)
				S->istart[i] = S->istart[i - 1];
			S->istart[0] = 0;
		}
	}
	for (int pass = 0; pass < SEARCH_PASSES; pass++) {
		bool moved = false;
		for (uint32_t i = 0; i < S->ncn; i++) {
			uint32_t x = S->cn[i];
			int32_t cur = S->lab[x], best = cur;
			uint64_t bestc = 0;
			for (uint32_t k = S->istart[i]; k < S->istart[i + 1]; k++)
				bestc += group_cost(S, S->inc[k]);
			for (uint32_t l = 0; l < S->nl; l++) {
				if (S->labels[l] == cur)
					continue;
				S->lab[x] = S->labels[l];
				uint64_t c = 0;
				for (uint32_t k = S->istart[i]; k < S->istart[i + 1]; k++)
					c += group_cost(S, S->inc[k]);
				if (c < bestc) {
					bestc = c;
					best = S->labels[l];
				}
			}
			S->lab[x] = best;
			moved |= best != cur;
		}
		if (!moved)
			break;
	}
}

/* Solves the current component into S->lab (its free nodes); true when the
 * method was exact. */
static bool
solve_comp(Solver *S, int32_t deflabel, int32_t *tmp, int32_t *tmp2, uint32_t *digit)
{
	if (S->nl == 1) {
		for (uint32_t i = 0; i < S->ncn; i++)
			S->lab[S->cn[i]] = S->labels[0];
		return true;
	}
	if (S->nl == 2) {
		/* ties go to the default: its side the largest */
		int32_t a = S->labels[S->labels[1] == deflabel], b = S->labels[S->labels[1] != deflabel];
		cut_label(S, a, true);
		for (uint32_t i = 0; i < S->ncn; i++)
			S->lab[S->cn[i]] = S->side[S->nid[i]] ? a : b;
		return true;
	}
	if (enumerate(S, tmp, digit)) {
		set_comp(S, tmp);
		return true;
	}
	/* isolation: each label's cut against the others; a free node on one
	 * label's side (smallest cuts) takes it; the rest take the label whose
	 * cut is dearest (the cut left out) */
	uint64_t dearest = 0;
	int32_t rest = S->labels[0];
	for (uint32_t i = 0; i < S->ncn; i++)
		tmp[i] = -1;
	for (uint32_t l = 0; l < S->nl; l++) {
		uint64_t c = cut_label(S, S->labels[l], false);
		if (c > dearest) {
			dearest = c;
			rest = S->labels[l];
		}
		for (uint32_t i = 0; i < S->ncn; i++)
			if (tmp[i] < 0 && !S->side[S->nid[i]])
				tmp[i] = S->labels[l];
	}
	for (uint32_t i = 0; i < S->ncn; i++)
		if (tmp[i] < 0)
			tmp[i] = rest;
	/* local search from the better of it and start (in lab now) */
	uint64_t cs = comp_cost(S);
	get_comp(S, tmp2);
	set_comp(S, tmp);
	if (comp_cost(S) > cs)
		set_comp(S, tmp2);
	local_search(S);
	return false;
}

static uint32_t
uf_find(uint32_t *up, uint32_t x)
{
	uint32_t r = x;
	while (up[r] != r)
		r = up[r];
	while (up[x] != r) {
		uint32_t n = up[x];
		up[x] = r;
		x = n;
	}
	return r;
}

void
copy_cut_solve(const CopyGraph *g, const int32_t *start, int32_t deflabel, int32_t *out, CopyCutStats *st)
{
	uint32_t n = g->n;
	memset(st, 0, sizeof *st);
	/* components of free nodes: union over each group's free nodes */
	uint32_t *up = xmalloc((n ? n : 1) * sizeof *up);
	for (uint32_t i = 0; i < n; i++)
		up[i] = i;
	uint32_t *gcomp = xmalloc((g->ng ? g->ng : 1) * sizeof *gcomp);
	for (uint32_t i = 0; i < g->ng; i++) {
		uint32_t first = g->fixed[g->org[i]] < 0 ? g->org[i] : NONE;
		for (uint32_t k = g->gstart[i]; k < g->gstart[i + 1]; k++) {
			uint32_t x = g->mem[k];
			if (g->fixed[x] >= 0)
				continue;
			if (first == NONE) {
				first = x;
				continue;
			}
			/* the smaller root stays, so that trees stay shallow (groups
			 * mostly join later nodes to earlier ones): 26 -> 19 ms on
			 * the bench's 1M DAG */
			uint32_t rx = uf_find(up, x), rf = uf_find(up, first);
			if (rx < rf)
				up[rf] = rx;
			else
				up[rx] = rf;
		}
		gcomp[i] = first;
	}
	/* bucket free nodes and groups by component, components in order of
	 * their first node */
	uint32_t *cid = xmalloc((n ? n : 1) * sizeof *cid);
	uint32_t nc = 0;
	for (uint32_t i = 0; i < n; i++)
		cid[i] = NONE;
	for (uint32_t i = 0; i < n; i++)
		if (g->fixed[i] < 0) {
			uint32_t r = uf_find(up, i);
			if (cid[r] == NONE)
				cid[r] = nc++;
			up[i] = r;
		}
	uint32_t *nstart = xcalloc(nc + 2, sizeof *nstart), *gstart = xcalloc(nc + 2, sizeof *gstart);
	for (uint32_t i = 0; i < n; i++)
		if (g->fixed[i] < 0)
			nstart[cid[up[i]] + 2]++;
	for (uint32_t i = 0; i < g->ng; i++)
		if (gcomp[i] != NONE)
			gstart[cid[up[gcomp[i]]] + 2]++;
	for (uint32_t c = 0; c < nc; c++) {
		nstart[c + 2] += nstart[c + 1];
		gstart[c + 2] += gstart[c + 1];
	}
	uint32_t *nodes = xmalloc((nstart[nc + 1] + 1) * sizeof *nodes);
	uint32_t *groups = xmalloc((gstart[nc + 1] + 1) * sizeof *groups);
	for (uint32_t i = 0; i < n; i++)
		if (g->fixed[i] < 0)
			nodes[nstart[cid[up[i]] + 1]++] = i;
	for (uint32_t i = 0; i < g->ng; i++)
		if (gcomp[i] != NONE)
			groups[gstart[cid[up[gcomp[i]]] + 1]++] = i;

	Solver S = {.g = g};
	S.lab = xmalloc((n ? n : 1) * sizeof *S.lab);
	for (uint32_t i = 0; i < n; i++)
		S.lab[i] = g->fixed[i] >= 0 ? g->fixed[i] : start[i];
	S.stamp = xcalloc(g->nlabels ? g->nlabels : 1, sizeof *S.stamp);
	S.loc = up; /* reused: components no longer need it */
	S.labels = xmalloc((g->nlabels ? g->nlabels : 1) * sizeof *S.labels);
	uint32_t maxn = 1, maxg = 1;
	for (uint32_t c = 0; c < nc; c++) {
		if (nstart[c + 1] - nstart[c] > maxn)
			maxn = nstart[c + 1] - nstart[c];
		if (gstart[c + 1] - gstart[c] > maxg)
			maxg = gstart[c + 1] - gstart[c];
	}
	S.nid = xmalloc(maxn * sizeof *S.nid);
	S.gaux = xmalloc(maxg * sizeof *S.gaux);
	S.gnstart = xmalloc((maxg + 1) * sizeof *S.gnstart);
	int32_t *tmp = xmalloc(maxn * sizeof *tmp), *tmp2 = xmalloc(maxn * sizeof *tmp2),
		*keep = xmalloc(maxn * sizeof *keep);
	uint32_t *digit = xmalloc(maxn * sizeof *digit);
	S.istart = xmalloc((maxn + 1) * sizeof *S.istart);
	uint8_t *seen = xcalloc(g->nlabels ? g->nlabels : 1, 1);

	for (uint32_t i = 0; i < n; i++)
		out[i] = g->fixed[i] >= 0 ? g->fixed[i] : -1;
	for (uint32_t c = 0; c < nc; c++) {
		S.cn = nodes + nstart[c];
		S.ncn = nstart[c + 1] - nstart[c];
		S.cg = groups + gstart[c];
		S.ncg = gstart[c + 1] - gstart[c];
		for (uint32_t i = 0; i < S.ncn; i++)
			S.loc[S.cn[i]] = i;
		/* the labels of the fixed nodes its groups touch, ascending */
		memset(seen, 0, g->nlabels);
		for (uint32_t i = 0; i < S.ncg; i++) {
			uint32_t gi = S.cg[i];
			for (uint32_t k = g->gstart[gi]; k <= g->gstart[gi + 1]; k++) {
				uint32_t x = k == g->gstart[gi + 1] ? g->org[gi] : g->mem[k];
				if (g->fixed[x] >= 0)
					seen[g->fixed[x]] = 1;
			}
		}
		S.nl = 0;
		for (uint32_t l = 0; l < g->nlabels; l++)
			if (seen[l])
				S.labels[S.nl++] = (int32_t)l;
		if (!S.nl)
			continue; /* nothing pulls it anywhere: the caller's defaults */
		st->components++;
		uint64_t before = comp_cost(&S);
		get_comp(&S, keep);
		if (solve_comp(&S, deflabel, tmp, tmp2, digit))
			st->exact++;
		if (comp_cost(&S) < before)
			st->improved++;
		else
			set_comp(&S, keep);
		for (uint32_t i = 0; i < S.ncn; i++)
			out[S.cn[i]] = S.lab[S.cn[i]];
	}

	free(S.lab);
	free(S.stamp);
	free(S.labels);
	free(S.mark);
	free(S.inc);
	free(S.istart);
	mf_free(&S.net);
	free(S.side);
	free(S.nid), free(S.gaux), free(S.gn), free(S.gnstart);
	free(tmp), free(tmp2), free(keep), free(digit), free(seen);
	free(up), free(gcomp), free(cid), free(nstart), free(gstart), free(nodes), free(groups);
}
