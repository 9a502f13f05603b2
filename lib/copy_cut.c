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

#include "copy_cut.h"
#include "ir.h"

#define NONE UINT32_MAX
#define INF (UINT64_MAX / 4)
#define ENUM_WORK 2000000u     /* labellings x group members, at most */
#define SEARCH_PASSES 16

/* ---------------------------------------------------------- the network */

typedef struct {
	uint32_t nn, na, capn, capa;
	uint32_t *head, *it, *to, *nxt, *queue, *path;
	int32_t *level;
	uint64_t *cap;
	uint8_t *side;         /* 1: on the source's side of the cut */
} Net;

static void
net_reset(Net *N, uint32_t nn)
{
	if (nn > N->capn) {
		N->capn = nn > 2 * N->capn ? nn : 2 * N->capn;
		N->head = xrealloc(N->head, N->capn * sizeof *N->head);
		N->it = xrealloc(N->it, N->capn * sizeof *N->it);
		N->queue = xrealloc(N->queue, N->capn * sizeof *N->queue);
		N->path = xrealloc(N->path, N->capn * sizeof *N->path);
		N->level = xrealloc(N->level, N->capn * sizeof *N->level);
		N->side = xrealloc(N->side, N->capn * sizeof *N->side);
	}
	N->nn = nn;
	N->na = 0;
	for (uint32_t i = 0; i < nn; i++)
		N->head[i] = NONE;
}

/* An arc u->v of capacity c and its reverse of capacity rc (arc ^ 1). */
static void
net_arc(Net *N, uint32_t u, uint32_t v, uint64_t c, uint64_t rc)
{
	if (N->na + 2 > N->capa) {
		N->capa = N->capa ? 2 * N->capa : 1024;
		N->to = xrealloc(N->to, N->capa * sizeof *N->to);
		N->nxt = xrealloc(N->nxt, N->capa * sizeof *N->nxt);
		N->cap = xrealloc(N->cap, N->capa * sizeof *N->cap);
	}
	uint32_t e = N->na;
	N->to[e] = v, N->cap[e] = c, N->nxt[e] = N->head[u], N->head[u] = e;
	N->to[e + 1] = u, N->cap[e + 1] = rc, N->nxt[e + 1] = N->head[v], N->head[v] = e + 1;
	N->na += 2;
}

/* Heights: the distance to t in the residual network (a breadth-first
 * search backwards from t), nn where t cannot be reached. */
static void
net_heights(Net *N, uint32_t s, uint32_t t)
{
	uint32_t qh = 0, qt = 0;
	for (uint32_t i = 0; i < N->nn; i++)
		N->level[i] = (int32_t)N->nn;
	N->level[t] = 0;
	N->queue[qt++] = t;
	while (qh < qt) {
		uint32_t v = N->queue[qh++];
		for (uint32_t e = N->head[v]; e != NONE; e = N->nxt[e]) {
			uint32_t u = N->to[e];
			if (N->cap[e ^ 1] && N->level[u] == (int32_t)N->nn && u != s) {
				N->level[u] = N->level[v] + 1;
				N->queue[qt++] = u;
			}
		}
	}
	N->level[s] = (int32_t)N->nn;
	memcpy(N->it, N->head, N->nn * sizeof *N->it);
}

/* The first phase of Goldberg and Tarjan's push-relabel (FIFO, heights
 * recomputed exactly once relabelling has scanned about as many arcs as
 * the network has): a maximum preflow, which is all a minimum cut needs.
 * Active nodes queue in path, excess in excess. */
static void
net_preflow(Net *N, uint32_t s, uint32_t t, uint64_t *excess)
{
	uint32_t nn = N->nn, qh = 0, qt = 0, ring = nn; /* path as a ring of nn */
	uint64_t work = 0, every = (uint64_t)N->na + nn;
	memset(excess, 0, nn * sizeof *excess);
	memset(N->side, 0, nn); /* 1: queued */
	net_heights(N, s, t);
	for (uint32_t e = N->head[s]; e != NONE; e = N->nxt[e]) {
		uint32_t v = N->to[e];
		uint64_t c = N->cap[e];
		if (!c)
			continue;
		N->cap[e] = 0;
		N->cap[e ^ 1] += c;
		excess[v] += c;
		if (v != t && v != s && !N->side[v]) {
			N->side[v] = 1;
			N->path[qt++ % ring] = v;
		}
	}
	while (qh != qt) {
		uint32_t u = N->path[qh++ % ring];
		N->side[u] = 0;
		while (excess[u] && N->level[u] < (int32_t)nn) {
			uint32_t e = N->it[u];
			if (e == NONE) { /* relabel */
				int32_t h = (int32_t)nn;
				for (uint32_t f = N->head[u]; f != NONE; f = N->nxt[f])
					if (N->cap[f] && N->level[N->to[f]] + 1 < h)
						h = N->level[N->to[f]] + 1;
				N->level[u] = h;
				N->it[u] = N->head[u];
				if ((work += 8) >= every) {
					work = 0;
					net_heights(N, s, t);
				}
				continue;
			}
			uint32_t v = N->to[e];
			work++;
			if (N->cap[e] && N->level[u] == N->level[v] + 1) {
				uint64_t d = excess[u] < N->cap[e] ? excess[u] : N->cap[e];
				N->cap[e] -= d;
				N->cap[e ^ 1] += d;
				excess[u] -= d;
				excess[v] += d;
				if (v != t && v != s && !N->side[v] && N->level[v] < (int32_t)nn) {
					N->side[v] = 1;
					N->path[qt++ % ring] = v;
				}
				if (N->cap[e])
					continue;
			}
			N->it[u] = N->nxt[e];
		}
	}
}

/* A minimum cut from s to t: side[i] = 1 on the source's side, which is
 * the largest such side (what cannot reach t once the preflow is made).
 * Returns the cut's capacity. */
static uint64_t
net_cut(Net *N, uint32_t s, uint32_t t, uint64_t **excess, uint32_t *capex)
{
	if (N->nn > *capex) {
		*capex = N->capn;
		*excess = xrealloc(*excess, *capex * sizeof **excess);
	}
	net_preflow(N, s, t, *excess);
	uint64_t f = (*excess)[t];
	uint32_t qh = 0, qt = 0;
	memset(N->side, 1, N->nn);
	N->side[t] = 0;
	N->queue[qt++] = t;
	while (qh < qt) {
		uint32_t v = N->queue[qh++];
		for (uint32_t e = N->head[v]; e != NONE; e = N->nxt[e])
			if (N->cap[e ^ 1] && N->side[N->to[e]]) {
				N->side[N->to[e]] = 0;
				N->queue[qt++] = N->to[e];
			}
	}
	return f;
}

/* ---------------------------------------------------------- the solver */

typedef struct {
	const CopyGraph *g;
	int32_t *lab;          /* the labelling being built: fixed, start, tried */
	uint32_t *stamp, tick; /* per label: seen in the group being costed */
	uint32_t *loc;         /* per node: its index in the component, or NONE */
	uint32_t *mark, mtag, capmark; /* per network node: the group it was seen in */
	Net net;
	uint64_t *excess;
	uint32_t capex;
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
 * fixed nodes the other, a free node 2 + its index. */
static uint32_t
net_node(Solver *S, uint32_t x, int32_t a, bool a_src)
{
	int32_t f = S->g->fixed[x];
	if (f >= 0)
		return (f == a) == a_src ? 0 : 1;
	return 2 + S->loc[x];
}

/* A minimum cut of label a's fixed nodes against the component's other
 * fixed nodes, a's side the largest such side when a_src, else the
 * smallest; leaves N->side (1: the source's side) and returns the bytes. */
static uint64_t
cut_label(Solver *S, int32_t a, bool a_src)
{
	const CopyGraph *G = S->g;
	Net *N = &S->net;
	uint32_t nn = 2 + S->ncn;
	for (uint32_t i = 0; i < S->ncg; i++)
		if (G->gstart[S->cg[i] + 1] - G->gstart[S->cg[i]] > 1)
			nn += 2;
	net_reset(N, nn);
	if (N->capn > S->capmark) { /* per network node, tags from S->mtag */
		S->capmark = N->capn;
		S->mark = xrealloc(S->mark, S->capmark * sizeof *S->mark);
		memset(S->mark, 0, S->capmark * sizeof *S->mark);
		S->mtag = 0;
	}
	uint32_t aux = 2 + S->ncn;
	for (uint32_t i = 0; i < S->ncg; i++) {
		uint32_t g = S->cg[i];
		uint32_t k0 = G->gstart[g], k1 = G->gstart[g + 1];
		/* the distinct network nodes of the group: how many, the first two */
		uint32_t d[2], distinct = 0, tag = next_tag(S);
		for (uint32_t k = k0; k <= k1; k++) {
			uint32_t u = net_node(S, k == k1 ? G->org[g] : G->mem[k], a, a_src);
			if (S->mark[u] != tag) {
				S->mark[u] = tag;
				if (distinct < 2)
					d[distinct] = u;
				distinct++;
			}
		}
		if (distinct == 2) {
			net_arc(N, d[0], d[1], G->w[g], G->w[g]);
		} else if (distinct > 2) {
			uint32_t e1 = aux++, e2 = aux++;
			net_arc(N, e1, e2, G->w[g], 0);
			tag = next_tag(S);
			for (uint32_t k = k0; k <= k1; k++) {
				uint32_t u = net_node(S, k == k1 ? G->org[g] : G->mem[k], a, a_src);
				if (S->mark[u] != tag) {
					S->mark[u] = tag;
					net_arc(N, u, e1, INF, 0);
					net_arc(N, e2, u, INF, 0);
				}
			}
		}
	}
	return net_cut(N, 0, 1, &S->excess, &S->capex);
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
			S->lab[S->cn[i]] = S->net.side[2 + i] ? a : b;
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
			if (tmp[i] < 0 && !S->net.side[2 + i])
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

uint64_t
copy_cut_cost(const CopyGraph *g, const int32_t *lab)
{
	Solver S = {.g = g, .lab = (int32_t *)lab};
	S.stamp = xcalloc(g->nlabels ? g->nlabels : 1, sizeof *S.stamp);
	uint64_t c = 0;
	for (uint32_t i = 0; i < g->ng; i++)
		c += group_cost(&S, i);
	free(S.stamp);
	return c;
}

void
copy_cut_solve(const CopyGraph *g, const int32_t *start, int32_t deflabel, int32_t *out, CopyCutStats *st)
{
	uint32_t n = g->n;
	memset(st, 0, sizeof *st);
	st->before = copy_cut_cost(g, start);
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
			if (first == NONE)
				first = x;
			else
				up[uf_find(up, x)] = uf_find(up, first);
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
	uint32_t maxn = 1;
	for (uint32_t c = 0; c < nc; c++)
		if (nstart[c + 1] - nstart[c] > maxn)
			maxn = nstart[c + 1] - nstart[c];
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
	st->after = copy_cut_cost(g, S.lab);

	free(S.lab);
	free(S.stamp);
	free(S.labels);
	free(S.mark);
	free(S.inc);
	free(S.istart);
	free(S.net.head), free(S.net.it), free(S.net.to), free(S.net.nxt);
	free(S.net.queue), free(S.net.path), free(S.net.level), free(S.net.cap), free(S.net.side);
	free(S.excess);
	free(tmp), free(tmp2), free(keep), free(digit), free(seen);
	free(up), free(gcomp), free(cid), free(nstart), free(gstart), free(nodes), free(groups);
}
