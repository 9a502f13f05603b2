/* maxflow.c: a minimum s-t cut (see maxflow.h).
 *
 * Goldberg and Tarjan's push-relabel, its first phase (a maximum preflow
 * is all a minimum cut needs), labels made exact again by a breadth-first
 * search from t once relabelling has scanned about as many arcs as the
 * network has.  What makes it faster than the linked-list FIFO version it
 * replaces (copy_cut.c's own, until issue 26's bench asked for speed) is
 * memory order, not the method:
 *   - each node's arcs lie contiguous (given twice: counted, then stored);
 *   - arcs to and from s and t are not stored: a node keeps tr, the
 *     residual capacity from s (tr > 0) or to t (tr < 0);
 *   - labels sit in an array of their own, the field every arc scan reads;
 *   - active nodes are taken in index order, sweep after sweep, instead of
 *     from a FIFO queue: the callers number nodes in program order and
 *     their arcs are short, so a sweep reads memory nearly in order;
 *   - the excess is first moved within windows of consecutive nodes that
 *     fit in cache, then within larger ones, and only what is left on the
 *     whole network (see preflow).
 * Tried and no faster on the bench's random DAG:
 *   - Boykov and Kolmogorov's search trees: a terminal's whole tree is
 *     orphaned when its one arc from s saturates, and the trees there are
 *     large;
 *   - augmenting paths (breadth first, skipping nodes known not to reach
 *     t) for what the windows leave: the paths left are long (150 to 300
 *     arcs, across 10k nodes), so each search reads about 50k arcs.
 *
 * Everything is iterative and in index order, so the cut depends only on
 * the arcs given (and, being the largest source side, not even on them
 * beyond the network they make). */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "plan/maxflow.h"

struct MfNode {
	int64_t tr;      /* residual from s (> 0) or to t (< 0) */
	uint64_t excess;
	uint32_t first;  /* its arcs: arc[first .. next node's first) */
	uint32_t cur;    /* the arc to try next */
};

struct MfArc {
	uint32_t head; /* the node it enters */
	uint32_t sis;  /* its reverse */
	uint64_t cap;  /* residual capacity */
};

void
mf_begin(MaxFlow *M, uint32_t nn, uint32_t s, uint32_t t)
{
	if (nn + 1 > M->capn) {
		M->capn = nn + 1 > 2 * M->capn ? nn + 1 : 2 * M->capn;
		M->node = xrealloc(M->node, M->capn * sizeof *M->node);
		M->pos = xrealloc(M->pos, M->capn * sizeof *M->pos);
		M->queue = xrealloc(M->queue, M->capn * sizeof *M->queue);
	}
	M->nn = nn, M->na = 0, M->s = s, M->t = t, M->filling = 0, M->flow = 0;
	memset(M->node, 0, (nn + 1) * sizeof *M->node);
}

/* Capacity c from s into v (src) or from v into t. */
static void
terminal_arc(MaxFlow *M, uint32_t v, uint64_t c, int src)
{
	MfNode *n = &M->node[v];
	/* what v already sends on (or gets) goes s -> v -> t at once */
	uint64_t other = src ? (n->tr < 0 ? (uint64_t)-n->tr : 0) : (n->tr > 0 ? (uint64_t)n->tr : 0);
	M->flow += c < other ? c : other;
	n->tr += src ? (int64_t)c : -(int64_t)c;
}

void
mf_arc(MaxFlow *M, uint32_t u, uint32_t v, uint64_t c, uint64_t rc)
{
	uint32_t s = M->s, t = M->t;
	if (u == v || (u == s && v == s) || (u == t && v == t))
		return;
	bool ut = u == s || u == t, vt = v == s || v == t;
	if (!M->filling) {
		if (!ut && !vt) {
			M->node[u].first++;
			M->node[v].first++;
		}
		return;
	}
	if (ut && vt) { /* s -> t, or t -> s (useless) */
		M->flow += u == s ? c : rc;
		return;
	}
	if (ut || vt) { /* arcs into s and out of t carry nothing */
		uint32_t x = ut ? v : u;
		uint64_t in = ut ? c : rc, out = ut ? rc : c; /* terminal -> x, x -> terminal */
		terminal_arc(M, x, (ut ? u : v) == s ? in : out, (ut ? u : v) == s);
		return;
	}
	uint32_t a = M->pos[u]++, b = M->pos[v]++;
	M->arc[a] = (MfArc){v, b, c};
	M->arc[b] = (MfArc){u, a, rc};
}

void
mf_fill(MaxFlow *M)
{
	uint32_t sum = 0;
	for (uint32_t i = 0; i <= M->nn; i++) {
		uint32_t d = M->node[i].first;
		M->node[i].first = sum;
		M->pos[i] = sum;
		sum += d;
	}
	if (sum > M->capa) {
		M->capa = sum > 2 * M->capa ? sum : 2 * M->capa;
		M->arc = xrealloc(M->arc, M->capa * sizeof *M->arc);
	}
	M->na = sum;
	M->filling = 1;
}

/* ---------------------------------------------------------- the preflow */
#define ACTIVE(i) (act[(i) >> 6] >> ((i) & 63) & 1)
#define SET_ACTIVE(i) (act[(i) >> 6] |= (uint64_t)1 << ((i) & 63))

/* The first windows' nodes (their arcs and nodes about fit a core's L2
 * cache), and how many times more the second's span (about L3's); tuned
 * on the bench's 1M DAG (bench/minimize.sh). */
#define WINDOW 2048
#define WINDOW_GROWTH 16

typedef struct {
	MaxFlow *M;
	uint32_t *d;          /* labels */
	uint64_t *act;        /* active nodes, a bit each */
	uint64_t nact;        /* how many */
	uint32_t lo, hi;      /* the nodes in play: lo .. hi - 1 */
	uint64_t work, every; /* relabelling done since the last exact labels */
	uint32_t *count;      /* nodes in play of each label below nn */
} Pre;

#define IN_PLAY(P, v) ((v) >= (P)->lo && (v) < (P)->hi)

/* Exact labels in play: the distance to t over residual arcs between
 * nodes in play (breadth first backwards from the nodes that feed t), nn
 * where t is out of reach. */
static void
global_relabel(Pre *P)
{
	MaxFlow *M = P->M;
	MfNode *n = M->node;
	MfArc *A = M->arc;
	uint32_t nn = M->nn, *d = P->d, *q = M->queue, qh = 0, qt = 0;
	for (uint32_t i = P->lo; i < P->hi; i++) {
		d[i] = nn;
		n[i].cur = n[i].first;
		if (n[i].tr < 0) {
			d[i] = 1;
			q[qt++] = i;
		}
	}
	while (qh < qt) {
		uint32_t v = q[qh++];
		for (uint32_t a = n[v].first; a < n[v + 1].first; a++) {
			uint32_t u = A[a].head;
			if (IN_PLAY(P, u) && d[u] == nn && A[A[a].sis].cap) {
				d[u] = d[v] + 1;
				q[qt++] = u;
			}
		}
	}
	memset(P->count, 0, (P->hi - P->lo + 2) * sizeof *P->count);
	for (uint32_t k = 0; k < qt; k++)
		P->count[d[q[k]]]++;
}

/* Pushes node i's excess along admissible arcs in play (to a node one
 * label lower), relabelling it when none is left, until it has none or
 * cannot reach t. */
static void
discharge(Pre *P, uint32_t i)
{
	MaxFlow *M = P->M;
	MfNode *n = M->node;
	MfArc *A = M->arc;
	uint32_t nn = M->nn, *d = P->d;
	uint64_t *act = P->act;
	while (n[i].excess && d[i] < nn) {
		if (n[i].tr < 0 && d[i] == 1) { /* to t */
			uint64_t b = n[i].excess < (uint64_t)-n[i].tr ? n[i].excess : (uint64_t)-n[i].tr;
			n[i].excess -= b;
			n[i].tr += (int64_t)b;
			M->flow += b;
			continue;
		}
		uint32_t a = n[i].cur, end = n[i + 1].first;
		for (; a < end; a++) {
			uint32_t v = A[a].head;
			P->work++;
			if (!A[a].cap || !IN_PLAY(P, v) || d[v] + 1 != d[i])
				continue;
			uint64_t b = n[i].excess < A[a].cap ? n[i].excess : A[a].cap;
			A[a].cap -= b;
			A[A[a].sis].cap += b;
			n[v].excess += b;
			n[i].excess -= b;
			if (!ACTIVE(v) && d[v] < nn) {
				SET_ACTIVE(v);
				P->nact++;
			}
			if (!n[i].excess)
				break;
		}
		n[i].cur = a;
		if (!n[i].excess)
			break;
		uint32_t h = n[i].tr < 0 ? 1 : nn; /* relabel */
		for (uint32_t b = n[i].first; b < end; b++)
			if (A[b].cap && IN_PLAY(P, A[b].head) && d[A[b].head] + 1 < h)
				h = d[A[b].head] + 1;
		/* a label is at most the distance to t, less than the nodes in
		 * play where t is in reach */
		if (h > P->hi - P->lo)
			h = nn;
		/* the gap heuristic: no node left with i's label leaves those
		 * above it (i too) no way down to t */
		uint32_t g = d[i];
		if (!--P->count[g] && g > 1) {
			for (uint32_t k = P->lo; k < P->hi; k++)
				if (d[k] > g && d[k] < nn) {
					P->count[d[k]]--;
					d[k] = nn;
				}
			h = nn;
		}
		if (h < nn)
			P->count[h]++;
		d[i] = h;
		n[i].cur = n[i].first;
		if ((P->work += 8) >= P->every) {
			P->work = 0;
			global_relabel(P);
		}
	}
}

/* A maximum preflow of the network between nodes lo .. hi - 1 (arcs
 * leaving it ignored), from the preflow there is: in the end no node in
 * play with excess can reach t there.  Nodes are taken in index order,
 * sweep after sweep; one made active behind the sweep waits for the
 * next. */
static void
preflow_range(Pre *P, uint32_t lo, uint32_t hi)
{
	MaxFlow *M = P->M;
	MfNode *n = M->node;
	uint64_t *act = P->act;
	P->lo = lo, P->hi = hi, P->work = 0;
	P->every = (uint64_t)(n[hi].first - n[lo].first) + (hi - lo);
	global_relabel(P);
	for (uint32_t i = lo; i < hi; i++)
		if (n[i].excess && P->d[i] < M->nn) {
			SET_ACTIVE(i);
			P->nact++;
		}
	while (P->nact)
		for (uint32_t w = lo / 64; w <= (hi - 1) / 64; w++)
			while (act[w]) {
				uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(act[w]);
				act[w] &= act[w] - 1;
				P->nact--;
				discharge(P, i);
			}
}

/* A maximum preflow: what cannot reach t after it is the source side of
 * the cut.  s's arcs saturated, the excess is moved within windows of
 * nodes, each overlapping the last by half, before the whole network is
 * solved from the preflow they leave (any preflow will do).  The callers
 * number nodes in program order and their arcs are short, so most excess
 * finds t, or that it cannot, near where it starts: in a window whose
 * arcs fit in cache, where the whole network's would be read from memory
 * (on the bench's 1M DAG, 99.5% of the flow within the first windows,
 * and the rest with one exact labelling of the whole instead of four).
 * Excess that a window left because it cannot reach t there is what the
 * larger windows, and the whole network, take on. */
static void
preflow(MaxFlow *M)
{
	MfNode *n = M->node;
	uint32_t nn = M->nn, nw = (nn + 63) / 64;
	Pre P = {.M = M, .d = M->pos /* free after filling */};
	P.act = xcalloc(nw ? nw : 1, sizeof *P.act);
	P.count = xmalloc((nn + 2) * sizeof *P.count);
	for (uint32_t i = 0; i < nn; i++)
		if (n[i].tr > 0) { /* s's arcs saturated */
			n[i].excess = (uint64_t)n[i].tr;
			n[i].tr = 0;
		}
	uint32_t win = M->window ? M->window : WINDOW;
	for (int level = 0; level < 2 && win < nn; level++, win *= WINDOW_GROWTH)
		for (uint32_t lo = 0; lo + win / 2 < nn; lo += win / 2)
			preflow_range(&P, lo, lo + win < nn ? lo + win : nn);
	preflow_range(&P, 0, nn);
	free(P.act);
	free(P.count);
}

uint64_t
mf_cut(MaxFlow *M, uint8_t *side)
{
	MfNode *n = M->node;
	MfArc *A = M->arc;
	uint32_t nn = M->nn;
	preflow(M);
	/* t's side: what reaches t over residual arcs, searched backwards */
	uint32_t qh = 0, qt = 0;
	memset(side, 1, nn);
	for (uint32_t i = 0; i < nn; i++)
		if (n[i].tr < 0 || i == M->t) {
			side[i] = 0;
			M->queue[qt++] = i;
		}
	side[M->s] = 1;
	while (qh < qt) {
		uint32_t v = M->queue[qh++];
		for (uint32_t a = n[v].first; a < n[v + 1].first; a++)
			if (A[A[a].sis].cap && side[A[a].head]) {
				side[A[a].head] = 0;
				M->queue[qt++] = A[a].head;
			}
	}
	return M->flow;
}

void
mf_free(MaxFlow *M)
{
	free(M->node);
	free(M->arc);
	free(M->pos);
	free(M->queue);
	memset(M, 0, sizeof *M);
}
