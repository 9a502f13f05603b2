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
 *   - labels sit in an array of their own, the field every arc scan reads,
 *     and so do a node's other fields (tr, excess, first arc, next arc to
 *     try): the breadth-first searches read only first arcs, 4 bytes a
 *     node where a record of them all was 24 (0.07 s of the whole
 *     tool's 2.2 on the bench's 1M DAG, issue 26);
 *   - active nodes are taken in index order, sweep after sweep, instead of
 *     from a FIFO queue: the callers number nodes in program order and
 *     their arcs are short, so a sweep reads memory nearly in order;
 *   - the excess is first moved within windows of consecutive nodes that
 *     fit in cache, then within larger ones, and only what is left on the
 *     whole network (see preflow);
 *   - capacities are 32-bit where they allow it (see add_finite): arcs of
 *     12 bytes, not 16 (the code that reads arcs is in maxflow_pr.h, for
 *     each width);
 *   - and counted in units of their greatest common divisor, 24-bit,
 *     where that allows it: arcs of 8 bytes, the reverse arc named by
 *     its place among its head's arcs (8 bits) beside the capacity, not
 *     by a word of its own (see small_cap).  Copy sizes share large
 *     factors (the bench's are all 64 bytes), so the sums of most
 *     networks fit; the flow is 8% faster than with 12-byte arcs
 *     (session 10: 0.68 s against 0.74 on the bench's 1M DAG), storing
 *     the arcs 0.03 s, and 29 MB fewer to fault in;
 *   - the breadth-first searches (global_relabel, side) take a node
 *     without a branch: whether a node is reached and its arc back has
 *     room was mispredicted on about half the arcs read (session 11: the
 *     whole tool 2.07 -> 1.92 CPU-s on the bench's 1M DAG).
 * Tried and no faster on the bench's random DAG:
 *   - Boykov and Kolmogorov's search trees: a terminal's whole tree is
 *     orphaned when its one arc from s saturates, and the trees there are
 *     large.  Also tried for what the first windows leave (4,930 nodes
 *     with excess, 4,063 with room to t, 5% of the flow): each root's
 *     excess runs out after about one augmentation and orphans its
 *     subtree, most of which is freed and grown again (2,359
 *     augmentations, 77M arcs and parents read, 1.6 s, against 0.42 s
 *     for the larger windows and the whole);
 *   - Hochbaum's pseudoflow (lowest label, FIFO buckets), from s's arcs
 *     or from what the first windows leave, with labels 0/1 or exact
 *     distances to a deficit to start: a strong tree that cannot reach a
 *     weak node climbs one label per visit and scans its arcs again
 *     (58M arc scans, 1.6M root visits, still short of the flow at 77M
 *     steps and 0.8 to 2.0 s); it would need global relabelling;
 *   - the highest label first (buckets) in the larger windows and the
 *     whole: 2.35 s against 2.07 for the whole tool;
 *   - augmenting paths (breadth first, skipping nodes known not to reach
 *     t) for what the windows leave: the paths left are long (150 to 300
 *     arcs, across 10k nodes), so each search reads about 50k arcs; after
 *     the first windows, 1.57M of the 1.60M nodes are reachable from
 *     excess and 1.56M reach t, so no part of the network drops out.
 * Measured and tried in session 9 (issue 26's planning time; CPU s on the
 * bench's 1M DAG, 2 shared cores at load 1.5 to 4.5; --minimize-copies
 * 2.2, ir-parse 0.85, plain planning 1.16):
 *   - where it goes: parsing 0.71, the groups (plan_devices.c) 0.07,
 *     components and their costs 0.09, the network 0.15 (stored twice),
 *     this file 0.75: the first windows 0.30, the larger 0.32, the whole
 *     0.07 and side 0.06, exact labelling (global_relabel) about 60% of
 *     it; both plans, their copies counted and printing the rest.  So the
 *     goal (2x parsing, 1.70) leaves 0.54 over plain planning for the
 *     groups, the network and the cut together, and the cut alone is 0.7;
 *   - shrinking the network first: nodes with one or two distinct
 *     neighbours are 1% (1,450 and 14,934 of 1.6M; most have 4 to 6),
 *     too few to pay for a pass (32,854 have none: Lawler nodes that a
 *     terminal among the group's nodes stands for, touched only when
 *     labels are reset).  The Lawler pairs (0.62M nodes) are
 *     needed: one reader is already an edge and two a triangle, and a
 *     hyperedge of four nodes has no exact form with one extra node (by
 *     symmetry its arcs would need negative capacities);
 *   - the first windows leave 4,930 nodes with excess, 4,849 of which
 *     reach t: real flow on long paths (2.6M discharges in the larger
 *     windows), so those cannot be skipped;
 *   - a bit in each arc's head saying whether its reverse has room, so
 *     that the searches need not read the reverse: slower (0.84 s for
 *     this file against 0.72); the reads that stall are of the node's own
 *     arcs, and pushes write a second word;
 *   - arcs as three arrays (head, reverse, capacity), not 12-byte
 *     records: no faster (the node fields as arrays were, see above);
 *   - sweeps alternating forwards and backwards: 2.28 s against 2.11;
 *     a FIFO queue in the larger windows and the whole: the same (0.68 s
 *     for this file);
 *   - windows of 1,024 or 4,096 nodes, growth 8 or 32, three levels, no
 *     overlap or a quarter's, relabelling half or twice as often (in
 *     either level): slower or within noise; labels 1 and 2 (t's
 *     neighbours, the rest) instead of exact ones to start the first
 *     windows: 0.38 s for them against 0.30;
 *   - glibc's huge pages for malloc (GLIBC_TUNABLES hugetlb): sys time
 *     0.3 to 0.6-0.95 s; keeping freed memory (mmap threshold): 23k of
 *     135k page faults fewer, no CPU time measurably.
 * Measured and tried in session 10 (CPU s on the bench's 1M DAG, load 1
 * to 3; --minimize-copies 2.06 with 8-byte arcs, ir-parse 0.80):
 *   - where it goes: this file 0.68 (the first windows 0.29, the larger
 *     0.31, the whole 0.045, side 0.04); the network 0.13 (copy_cut.c's
 *     group_nodes 0.02, mf_begin 0.017, counting 0.026, storing 0.07,
 *     mostly first touches of memory: inlining mf_arc (LTO) changed
 *     nothing); copy_cut.c's components 0.04, labels and costs 0.035;
 *     plan_devices.c's groups 0.07, the two plans 0.055, counting their
 *     copies 0.057, the rest of planning 0.08, verifying its output 0.1;
 *     parsing and printing 0.8.  Without any of the work around the flow
 *     (0.45) the goal would still be missed: the flow alone is 0.85 of
 *     parsing;
 *   - the larger windows: the first leave about 234k of excess (in the
 *     doubled bytes of copy_cut.c's capacities), of which about 17.6k
 *     (0.5% of the flow) reaches t; the rest (216,576 at 3,049 nodes in
 *     the end) is pushed up and down until the labels say it cannot,
 *     presumably most of their 2.6M discharges;
 *   - so augmenting whole paths there instead (depth first along
 *     admissible arcs, relabelling a dead end and stepping back, no
 *     excess left on the way): 1.70 s for this file against 0.74; in the
 *     whole network only: no change;
 *   - a breadth-first search stopped once every node with excess has its
 *     label (the rest one above the last level, still a valid labelling):
 *     first windows 0.29 against 0.30, the larger 0.33 against 0.32;
 *   - prefetching (the reverse arc's capacity one or two arcs ahead, the
 *     next queued node's arcs) in global_relabel: within noise;
 *   - arcs of 16 bytes holding their pair's total capacity, so that the
 *     searches read no reverse arc: 0.75 against 0.70 (12-byte arcs);
 *     memory traffic costs more than the reverse's latency, hence the
 *     8-byte arcs;
 *   - no larger windows (the whole after the first): 1.20 to 1.25 s;
 *     growth 4: 0.90; with 8-byte arcs, first windows of 3,072 or 4,096
 *     nodes, growth 12 or 24: the whole tool 2.07 to 2.36 against 2.03;
 *   - madvise(MADV_HUGEPAGE) on an 86 MB array: 0 to 0.15 s of sys time
 *     (compaction) against 0.03 with 4 kB pages;
 *   - tr and excess of 32 bits (as 8-byte arcs would allow, tried as a
 *     hack that breaks wider networks): the whole tool 2.03 against
 *     2.05, within 1%, not worth node arrays of two widths.
 * Measured and tried in session 11 (the whole tool 2.02 -> 1.79 CPU-s
 * on the bench's 1M DAG, ir-parse 0.75-0.80):
 *   - against the codes a user of max-flow would reach for, on this very
 *     network (dumped as DIMACS, the reference codes of the survey
 *     github.com/patmjen/maxflow_algorithms built in /tmp with g++ -O3
 *     -march=native, never in the tree; CPU s to solve, building
 *     excluded, the same flow 54,723 past the 437 the terminals cancel):
 *     this file 0.53, Hochbaum's pseudoflow (highest label, FIFO) 2.35,
 *     Excesses IBFS (Goldberg, Hed, Kaplan et al.) 2.50, Boykov and
 *     Kolmogorov 2.94, Cherkassky and Goldberg's hi_pr (cut only) 19.3.
 *     The windows, the memory order and the 8-byte arcs are what make
 *     the difference; no known method is a drop-in several times faster;
 *   - why Excesses IBFS loses, measured again interleaved with this file
 *     (same harness and dump, load 3; 2.52-2.56 s against 0.63-0.67 for
 *     mf_cut on the dump's arc order, about 0.52 s in the tool):
 *     57,411 augmentations (paths up to 575 arcs), 4.0M tree growths
 *     reading 20.7M arcs, but 25.7M orphans (each node orphaned about 16
 *     times: unit terminal arcs saturate after one augmentation) whose
 *     adoption reads 210M arcs; adoption is about two thirds of its
 *     time.  This file reads 99M arcs in all (global labelling 56M,
 *     pushes 24M, 2.89M relabels 15M, side 4M), mostly within windows
 *     in cache, so a reimplementation of IBFS with these 8-byte arcs
 *     would still read 2.3 times as many arcs, over the whole network;
 *     it would also need a search from t at the end, its free nodes not
 *     being the largest source side (892,303 nodes against 856,892).
 *     Memory over the harness's own: this file 84 MB, IBFS 243 (24-byte
 *     arcs, 72-byte nodes), pseudoflow 227, Boykov-Kolmogorov 210.  The
 *     fork github.com/PolarNick239/IBFS caps nodes at 4 arcs (up to 256
 *     here) with float capacities, so cannot take this network;
 *   - what the network is: 1,602,566 nodes, 8,087,500 arcs (both ways),
 *     capacities of one or two units; s supplies 58,107 units, t takes
 *     57,981, the maximum flow is 55,160, and the largest source side
 *     holds 856,893 nodes (runs of values pulled to one device).  The
 *     first windows find 52,597 (3,040 exact labellings, 2.69M
 *     discharges, 1.41M relabels); the larger windows the last 2,562
 *     (201 labellings, 2.60M discharges, 1.48M relabels: per window of
 *     32k nodes about 100 units of excess at 80 nodes, of which 35 reach
 *     t).  Time: first windows 0.215 s, larger 0.25, whole 0.038, side
 *     0.028 (with the branch-free searches above);
 *   - a forward search from each relabelled node for a region cut off
 *     from t (to label it dead at once, a local gap heuristic): 2.9M
 *     searches found about 100 such regions; the relabelled nodes can
 *     still reach t, so the relabels are distances growing, not excess
 *     trapped;
 *   - sweeps pushing the excess the first windows leave greedily towards
 *     higher (then lower) node numbers: no flow gained (a group's Lawler
 *     nodes come before its nodes, so flow runs against the numbering);
 *   - a backward pass of windows after the first (2,048 or 8,192 nodes):
 *     53,317 or 54,764 units found before the larger windows, but those
 *     and the whole then cost as much or more (the excess left is mostly
 *     excess that never reaches t, whose labels must still climb);
 *   - with the stranded excess removed by an oracle (the final cut) the
 *     larger windows were only 0.1 s cheaper: they cost as much in
 *     labelling 32k-node windows as in moving excess;
 *   - window sizes again after the branch-free searches (first 1,024 to
 *     4,096 nodes, growth 4 to 32, two to four levels): 0.55 to 0.68 s
 *     for the flow, none below the 2,048 x 16 it has; global labelling
 *     twice or half as often: no better;
 *   - a bit in each 8-byte arc telling whether its reverse has room (kept
 *     up by pushes, which write both words anyway), so that the searches
 *     read no reverse arc: 1.90 against 1.90 once the searches were
 *     branch-free (the reverse's load no longer stalls them).
 *   - orientation matters, and what there is is the fast one: sweeps
 *     taking nodes in descending order 2.0-2.2 s for the whole tool
 *     against 1.65-1.7; the other device as the source 2.6 against 1.65;
 *     a group's Lawler nodes after its own node instead of before: the
 *     same; first windows overlapping by three quarters (step a quarter)
 *     2.4 against 1.9, larger windows by three quarters 1.92 against
 *     1.88.
 *
 * Everything is iterative and in index order, so the cut depends only on
 * the arcs given (and, being the largest source side, not even on them
 * beyond the network they make). */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "plan/maxflow.h"

void
mf_begin(MaxFlow *M, uint32_t nn, uint32_t s, uint32_t t)
{
	if (nn + 1 > M->capn) {
		M->capn = nn + 1 > 2 * M->capn ? nn + 1 : 2 * M->capn;
		M->tr = xrealloc(M->tr, M->capn * sizeof *M->tr);
		M->excess = xrealloc(M->excess, M->capn * sizeof *M->excess);
		M->first = xrealloc(M->first, M->capn * sizeof *M->first);
		M->cur = xrealloc(M->cur, M->capn * sizeof *M->cur);
		M->pos = xrealloc(M->pos, M->capn * sizeof *M->pos);
		M->queue = xrealloc(M->queue, M->capn * sizeof *M->queue);
	}
	M->nn = nn, M->na = 0, M->s = s, M->t = t, M->filling = 0, M->flow = 0, M->finite = 0;
	M->gcd = 0, M->small = 0;
	memset(M->tr, 0, (nn + 1) * sizeof *M->tr);
	memset(M->excess, 0, (nn + 1) * sizeof *M->excess);
	memset(M->first, 0, (nn + 1) * sizeof *M->first);
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


#define ARC Arc64
#define CAP uint64_t
#define PR(name) name##_64
#include "plan/maxflow_pr.h"
#undef ARC
#undef CAP
#undef PR

#define ARC Arc32
#define CAP uint32_t
#define PR(name) name##_32
#include "plan/maxflow_pr.h"
#undef ARC
#undef CAP
#undef PR

#define ARC_SMALL
#define ARC Arc8
#define CAP uint32_t
#define PR(name) name##_8
#include "plan/maxflow_pr.h"
#undef ARC_SMALL
#undef ARC
#undef CAP
#undef PR

/* ------------------------------------------------------------ the network */
/* Capacity c from s into v (src) or from v into t. */
static void
terminal_arc(MaxFlow *M, uint32_t v, uint64_t c, int src)
{
	int64_t *tr = &M->tr[v];
	/* what v already sends on (or gets) goes s -> v -> t at once */
	uint64_t other = src ? (*tr < 0 ? (uint64_t)-*tr : 0) : (*tr > 0 ? (uint64_t)*tr : 0);
	M->flow += c < other ? c : other;
	*tr += src ? (int64_t)c : -(int64_t)c;
}

/* Capacities below MF_INF (and above 0), added up while counting (up to
 * MF_INF), and their greatest common divisor.  Below NARROW_SUM, arcs of
 * 32-bit capacities (a third less memory to read) have
 * room for every residual capacity, with MF_INF made NARROW_INF.  That is
 * another network with the same minimum cuts: each costs less than
 * NARROW_SUM, and any cut of an infinite arc NARROW_INF or more.
 * (Residual capacities stay below 2 NARROW_INF, and the flows are the
 * same up to where they would not.) */
#define NARROW_SUM ((uint64_t)1 << 30)
#define NARROW_INF ((uint32_t)1 << 30)

/* Below SMALL_SUM in units of the divisor, with no node of more than
 * SMALL_DEGREE arcs, arcs of 8 bytes (maxflow_pr.h's ARC_SMALL): 24 bits
 * of capacity in those units, MF_INF made SMALL_INF, and 8 bits for the
 * place of the reverse arc among its head's arcs.  The same argument as
 * for NARROW_SUM (residual capacities below 2 SMALL_INF = 2^23), and
 * dividing every capacity by a common factor divides every cut's
 * capacity by it, so the minimum cuts are the same. */
#define SMALL_SUM ((uint64_t)1 << 22)
#define SMALL_INF ((uint32_t)1 << 22)
#define SMALL_DEGREE 256

static void
add_finite(MaxFlow *M, uint64_t c)
{
	if (c >= MF_INF || !c)
		return;
	M->finite = c >= MF_INF - M->finite ? MF_INF : M->finite + c;
	uint64_t g = M->gcd;
	if (g && !(g & (g - 1)) && !(c & (g - 1)))
		return; /* the usual case: a power of two dividing c */
	while (c) {
		uint64_t r = g % c;
		g = c;
		c = r;
	}
	M->gcd = g;
}

/* A capacity in units of the divisor (a shift where it is a power of
 * two, as byte counts' divisors mostly are). */
static uint32_t
small_cap(const MaxFlow *M, uint64_t c)
{
	if (c >= MF_INF)
		return SMALL_INF;
	return (uint32_t)(M->shift >= 0 ? c >> M->shift : c / M->gcd);
}

void
mf_arc(MaxFlow *M, uint32_t u, uint32_t v, uint64_t c, uint64_t rc)
{
	uint32_t s = M->s, t = M->t;
	if (u == v || (u == s && v == s) || (u == t && v == t))
		return;
	bool ut = u == s || u == t, vt = v == s || v == t;
	if (!M->filling) {
		add_finite(M, c);
		add_finite(M, rc);
		if (!ut && !vt) {
			M->first[u]++;
			M->first[v]++;
		}
		return;
	}
	if (M->small) {
		c = small_cap(M, c);
		rc = small_cap(M, rc);
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
	if (M->small)
		store_8(M, a, b, u, v, (uint32_t)c, (uint32_t)rc);
	else if (M->narrow)
		store_32(M, a, b, u, v, c >= MF_INF ? NARROW_INF : (uint32_t)c,
		         rc >= MF_INF ? NARROW_INF : (uint32_t)rc);
	else
		store_64(M, a, b, u, v, c, rc);
}

void
mf_fill(MaxFlow *M)
{
	uint32_t sum = 0, maxd = 0;
	for (uint32_t i = 0; i <= M->nn; i++) {
		uint32_t d = M->first[i];
		M->first[i] = sum;
		M->pos[i] = sum;
		sum += d;
		maxd = d > maxd ? d : maxd;
	}
	M->narrow = M->finite < NARROW_SUM;
	uint64_t g = M->gcd ? M->gcd : 1;
	M->small = maxd <= SMALL_DEGREE && M->finite / g < SMALL_SUM;
	M->shift = -1;
	if (!(g & (g - 1)))
		M->shift = __builtin_ctzll(g);
	M->gcd = g;
	size_t bytes = (size_t)sum * (M->small ? sizeof(Arc8) : M->narrow ? sizeof(Arc32) : sizeof(Arc64));
	if (bytes > M->arcbytes) {
		M->arcbytes = bytes > 2 * M->arcbytes ? bytes : 2 * M->arcbytes;
		M->arc = xrealloc(M->arc, M->arcbytes);
	}
	M->na = sum;
	M->filling = 1;
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
	int64_t *tr = M->tr;
	uint32_t nn = M->nn, nw = (nn + 63) / 64;
	Pre P = {.M = M, .d = M->pos /* free after filling */};
	P.act = xcalloc(nw ? nw : 1, sizeof *P.act);
	P.count = xmalloc((nn + 2) * sizeof *P.count);
	for (uint32_t i = 0; i < nn; i++)
		if (tr[i] > 0) { /* s's arcs saturated */
			M->excess[i] = (uint64_t)tr[i];
			tr[i] = 0;
		}
	if (M->small)
		windows_8(&P);
	else if (M->narrow)
		windows_32(&P);
	else
		windows_64(&P);
	free(P.act);
	free(P.count);
}

uint64_t
mf_cut(MaxFlow *M, uint8_t *side)
{
	preflow(M);
	if (M->small) {
		side_8(M, side);
		return M->flow * M->gcd;
	}
	if (M->narrow)
		side_32(M, side);
	else
		side_64(M, side);
	return M->flow;
}

void
mf_free(MaxFlow *M)
{
	free(M->tr);
	free(M->excess);
	free(M->first);
	free(M->cur);
	free(M->arc);
	free(M->pos);
	free(M->queue);
	memset(M, 0, sizeof *M);
}
