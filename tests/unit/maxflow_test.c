/* maxflow_test: lib/plan/maxflow.c's cut against a plain reference on
 * random small networks: the same maximum flow, and the same side (the
 * nodes that cannot reach t in the residual network of a maximum flow,
 * the largest source side of all minimum cuts).  The reference is
 * Edmonds and Karp's augmenting paths on a capacity matrix, slow and
 * simple.  Networks of several shapes: dense, sparse, banded (as
 * copy_cut.c numbers them), with arcs to and from the terminals, s -> t
 * arcs, parallel arcs, huge capacities (64-bit arcs), small ones (32-bit
 * arcs), infinite ones (MF_INF), ties (many minimum cuts), capacities
 * sharing a factor (8-byte arcs, in units of their gcd: a power of two
 * or not), sums past 8-byte arcs' (32-bit arcs), a node of more arcs
 * than 8-byte arcs can name (back to 12-byte ones); each
 * solved with the default window (the whole network, at these sizes)
 * and again with windows as small as 2 nodes, so that the larger
 * windows and the whole finish from whatever preflow the small ones
 * leave. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "plan/maxflow.h"

#include "check.h"

enum { MAXN = 40 };

static uint64_t rng = 88172645463325252ull;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

typedef struct {
	uint32_t u, v;
	uint64_t c, rc;
} Arc;

/* Parallel arcs of MF_INF stay MF_INF (infinite), not overflow. */
static uint64_t
add_cap(uint64_t a, uint64_t b)
{
	return a >= MF_INF || b >= MF_INF ? MF_INF : a + b;
}

/* The reference: capacities summed into a matrix, shortest augmenting
 * paths until none, then what reaches t backwards. */
static uint64_t
ref_cut(uint32_t nn, uint32_t s, uint32_t t, const Arc *arcs, uint32_t na, uint8_t *side)
{
	static uint64_t cap[MAXN][MAXN];
	memset(cap, 0, sizeof cap);
	for (uint32_t i = 0; i < na; i++)
		if (arcs[i].u != arcs[i].v) {
			cap[arcs[i].u][arcs[i].v] = add_cap(cap[arcs[i].u][arcs[i].v], arcs[i].c);
			cap[arcs[i].v][arcs[i].u] = add_cap(cap[arcs[i].v][arcs[i].u], arcs[i].rc);
		}
	uint64_t flow = 0;
	uint32_t q[MAXN], par[MAXN];
	for (;;) {
		uint8_t seen[MAXN] = {0};
		uint32_t qh = 0, qt = 0;
		q[qt++] = s, seen[s] = 1;
		while (qh < qt && !seen[t]) {
			uint32_t x = q[qh++];
			for (uint32_t y = 0; y < nn; y++)
				if (!seen[y] && cap[x][y]) {
					seen[y] = 1, par[y] = x;
					q[qt++] = y;
				}
		}
		if (!seen[t])
			break;
		uint64_t b = UINT64_MAX;
		for (uint32_t y = t; y != s; y = par[y])
			if (cap[par[y]][y] < b)
				b = cap[par[y]][y];
		for (uint32_t y = t; y != s; y = par[y]) {
			cap[par[y]][y] -= b;
			cap[y][par[y]] += b;
		}
		flow += b;
	}
	/* the side: what cannot reach t */
	uint32_t qh = 0, qt = 0;
	memset(side, 1, nn);
	side[t] = 0, q[qt++] = t;
	while (qh < qt) {
		uint32_t y = q[qh++];
		for (uint32_t x = 0; x < nn; x++)
			if (side[x] && cap[x][y]) {
				side[x] = 0;
				q[qt++] = x;
			}
	}
	return flow;
}

static uint64_t
random_cap(int shape)
{
	switch (shape) {
	case 3: return ((uint64_t)1 << 50) + rnd(1000); /* huge: sums stay in range */
	case 4: return 2 * (1 + rnd(2));        /* few values: many ties */
	case 6: return 64 * (1 + rnd(8));       /* a power of two divides all */
	case 7: return 12 * (1 + rnd(9));       /* so does 12 */
	case 8: return 1 + rnd(1u << 22);       /* sums of 2^22 or more */
	default: return rnd(4) ? 1 + rnd(100) : 0;
	}
}

enum { SHAPES = 10 };

/* A random network of one of SHAPES shapes. */
static uint32_t
random_net(int shape, uint32_t *nn, uint32_t *s, uint32_t *t, Arc *arcs)
{
	uint32_t n = 2 + rnd(MAXN - 1), na = 0, m;
	*nn = n;
	*s = rnd(n);
	do
		*t = rnd(n);
	while (*t == *s);
	switch (shape) {
	case 0: m = n * n / 2; break;  /* dense */
	case 1: m = n; break;          /* sparse */
	case 9: m = 300; break;        /* a hub of 300 arcs (below) */
	default: m = 3 * n; break;
	}
	for (uint32_t i = 0; i < m; i++) {
		Arc a;
		a.u = rnd(n);
		a.v = shape == 2 ? (a.u + 1 + rnd(4)) % n : rnd(n); /* banded */
		if (shape == 9 && a.u == a.v)
			a.v = (a.u + 1) % n;
		if (shape == 9 && a.u != 0 && a.v != 0)
			a.u = 0; /* (n = 2 leaves s and t only: arcs between them) */
		a.c = random_cap(shape);
		a.rc = rnd(3) ? 0 : random_cap(shape);
		/* infinite arcs (Lawler's, in copy_cut.c) away from s and t,
		 * so that some cut crosses none */
		if ((shape == 3 || shape == 5 || shape == 6 || shape == 7) && a.u != *s && a.u != *t && a.v != *s && a.v != *t && !rnd(3))
			a.c = MF_INF, a.rc = rnd(4) ? 0 : MF_INF;
		arcs[na++] = a;
	}
	/* terminals' arcs, often: one per node that has one */
	for (uint32_t v = 0; v < n; v++)
		if (!rnd(3))
			arcs[na++] = (Arc){rnd(2) ? *s : v, rnd(2) ? v : *t, random_cap(shape), 0};
	return na;
}

/* networks solved with each kind of arc: 8 bytes with a gcd that is a
 * power of two, with one that is not, 12 bytes, 16 bytes */
static int kinds[4];

static void
solve(uint32_t nn, uint32_t s, uint32_t t, const Arc *arcs, uint32_t na, uint32_t window, uint64_t *flow,
      uint8_t *side)
{
	MaxFlow M = {0};
	mf_begin(&M, nn, s, t);
	M.window = window;
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			mf_fill(&M);
		for (uint32_t i = 0; i < na; i++)
			mf_arc(&M, arcs[i].u, arcs[i].v, arcs[i].c, arcs[i].rc);
	}
	*flow = mf_cut(&M, side);
	kinds[M.small ? (M.shift >= 0 ? 0 : 1) : M.narrow ? 2 : 3]++;
	mf_free(&M);
}

int
main(void)
{
	static Arc arcs[MAXN * MAXN];
	uint8_t want[MAXN], got[MAXN];
	for (int round = 0; round < 8000; round++) {
		int shape = round % SHAPES;
		uint32_t nn, s, t, na = random_net(shape, &nn, &s, &t, arcs);
		uint64_t ref = ref_cut(nn, s, t, arcs, na, want);
		/* 0: the default window (the whole network here); then small ones */
		uint32_t windows[] = {0, 2, 3, 8, 17};
		for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
			uint64_t flow;
			solve(nn, s, t, arcs, na, windows[w], &flow, got);
			CHECK(flow == ref, "round %d (shape %d, %u nodes, window %u): flow %llu, want %llu", round,
			      shape, nn, windows[w], (unsigned long long)flow, (unsigned long long)ref);
			CHECK(!memcmp(got, want, nn), "round %d (shape %d, %u nodes, window %u): side differs", round,
			      shape, nn, windows[w]);
		}
	}
	for (int k = 0; k < 4; k++)
		CHECK(kinds[k] > 100, "arcs of kind %d solved only %d networks", k, kinds[k]);
	printf("maxflow_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
