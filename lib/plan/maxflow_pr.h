/* maxflow_pr.h: the parts of maxflow.c that read or write arcs, once for
 * each width of capacity (maxflow.c includes it three times): ARC, the
 * arc type, with residual capacities of type CAP, and PR(name), the name
 * of the functions for that width; ARC_SMALL defined, arcs of 8 bytes
 * whose reverse is found through its head's first arc.  Arcs are read
 * and written through A_CAP, A_SUB, A_ADD and A_REV.  See maxflow.c. */

#ifndef ARC_SMALL
typedef struct {
	uint32_t head; /* the node it enters */
	uint32_t sis;  /* its reverse */
	CAP cap;       /* residual capacity */
} ARC;
#define A_CAP(A, a) ((A)[a].cap)
#define A_SUB(A, a, b) ((A)[a].cap -= (b))
#define A_ADD(A, a, b) ((A)[a].cap += (b))
#define A_REV(A, F, a) ((A)[a].sis)
#else
/* residual capacity in the high 24 bits; in the low 8, where the
 * reverse lies among its head's arcs */
typedef struct {
	uint32_t head;
	uint32_t cr;
} ARC;
#define A_CAP(A, a) ((A)[a].cr >> 8)
#define A_SUB(A, a, b) ((A)[a].cr -= (uint32_t)(b) << 8)
#define A_ADD(A, a, b) ((A)[a].cr += (uint32_t)(b) << 8)
#define A_REV(A, F, a) ((F)[(A)[a].head] + ((A)[a].cr & 255))
#endif

/* Exact labels in play: the distance to t over residual arcs between
 * nodes in play (breadth first backwards from the nodes that feed t), nn
 * where t is out of reach. */
static void
PR(global_relabel)(Pre *P)
{
	MaxFlow *M = P->M;
	int64_t *tr = M->tr;
	uint32_t *F = M->first, *C = M->cur;
	const ARC *A = M->arc;
	/* in locals: the stores below would make the compiler read fields
	 * of P and M again on every arc */
	uint32_t nn = M->nn, *d = P->d, *q = M->queue, *count = P->count, qh = 0, qt = 0;
	uint32_t lo = P->lo, span = P->hi - P->lo;
	memset(count, 0, (span + 2) * sizeof *count);
	for (uint32_t i = lo; i < P->hi; i++) {
		d[i] = nn;
		C[i] = F[i];
		if (tr[i] < 0) {
			d[i] = 1;
			q[qt++] = i;
		}
	}
	count[1] = qt;
	while (qh < qt) {
		uint32_t v = q[qh++], dv = d[v] + 1, end = F[v + 1], added = 0;
		for (uint32_t a = F[v]; a < end; a++) {
			uint32_t u = A[a].head;
			if (u - lo >= span) /* out of play (one comparison) */
				continue;
			/* not reached and u -> v has room: taken without a branch
			 * (q[qt] is overwritten when not; the queue has a place
			 * more than the nodes), where a branch would be
			 * mispredicted on about half the arcs */
			uint32_t take = (d[u] == nn) & (A_CAP(A, A_REV(A, F, a)) != 0);
			d[u] = take ? dv : d[u];
			q[qt] = u;
			qt += take;
			added += take;
		}
		count[dv] += added;
	}
}

/* Pushes node i's excess along admissible arcs in play (to a node one
 * label lower), relabelling it when none is left, until it has none or
 * cannot reach t. */
static void
PR(discharge)(Pre *P, uint32_t i)
{
	MaxFlow *M = P->M;
	int64_t *tr = M->tr;
	uint64_t *ex = M->excess;
	uint32_t *F = M->first, *C = M->cur;
	ARC *A = M->arc;
	uint32_t nn = M->nn, *d = P->d;
	uint64_t *act = P->act;
	while (ex[i] && d[i] < nn) {
		if (tr[i] < 0 && d[i] == 1) { /* to t */
			uint64_t b = ex[i] < (uint64_t)-tr[i] ? ex[i] : (uint64_t)-tr[i];
			ex[i] -= b;
			tr[i] += (int64_t)b;
			M->flow += b;
			continue;
		}
		uint32_t a = C[i], end = F[i + 1];
		for (; a < end; a++) {
			uint32_t v = A[a].head;
			P->work++;
			if (!A_CAP(A, a) || !IN_PLAY(P, v) || d[v] + 1 != d[i])
				continue;
			CAP b = ex[i] < A_CAP(A, a) ? (CAP)ex[i] : A_CAP(A, a);
			A_SUB(A, a, b);
			A_ADD(A, A_REV(A, F, a), b);
			ex[v] += b;
			ex[i] -= b;
			if (!ACTIVE(v) && d[v] < nn) {
				SET_ACTIVE(v);
				P->nact++;
			}
			if (!ex[i])
				break;
		}
		C[i] = a;
		if (!ex[i])
			break;
		uint32_t h = tr[i] < 0 ? 1 : nn; /* relabel */
		for (uint32_t b = F[i]; b < end; b++)
			if (A_CAP(A, b) && IN_PLAY(P, A[b].head) && d[A[b].head] + 1 < h)
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
		C[i] = F[i];
		if ((P->work += 8) >= P->every) {
			P->work = 0;
			PR(global_relabel)(P);
		}
	}
}

/* A maximum preflow of the network between nodes lo .. hi - 1 (arcs
 * leaving it ignored), from the preflow there is: in the end no node in
 * play with excess can reach t there.  Nodes are taken in index order,
 * sweep after sweep; one made active behind the sweep waits for the
 * next. */
static void
PR(preflow_range)(Pre *P, uint32_t lo, uint32_t hi)
{
	MaxFlow *M = P->M;
	uint64_t *ex = M->excess;
	const uint32_t *F = M->first;
	uint64_t *act = P->act;
	P->lo = lo, P->hi = hi, P->work = 0;
	P->every = (uint64_t)(F[hi] - F[lo]) + (hi - lo);
	PR(global_relabel)(P);
	for (uint32_t i = lo; i < hi; i++)
		if (ex[i] && P->d[i] < M->nn) {
			SET_ACTIVE(i);
			P->nact++;
		}
	while (P->nact)
		for (uint32_t w = lo / 64; w <= (hi - 1) / 64; w++)
			while (act[w]) {
				uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(act[w]);
				act[w] &= act[w] - 1;
				P->nact--;
				PR(discharge)(P, i);
			}
}

/* The windows, then the whole network (see preflow). */
static void
PR(windows)(Pre *P)
{
	uint32_t nn = P->M->nn, win = P->M->window ? P->M->window : WINDOW;
	for (int level = 0; level < 2 && win < nn; level++, win *= WINDOW_GROWTH)
		for (uint32_t lo = 0; lo + win / 2 < nn; lo += win / 2)
			PR(preflow_range)(P, lo, lo + win < nn ? lo + win : nn);
	PR(preflow_range)(P, 0, nn);
}

/* t's side: what reaches t over residual arcs, searched backwards. */
static void
PR(side)(MaxFlow *M, uint8_t *side)
{
	int64_t *tr = M->tr;
	const uint32_t *F = M->first;
	ARC *A = M->arc;
	uint32_t nn = M->nn;
	uint32_t qh = 0, qt = 0;
	memset(side, 1, nn);
	for (uint32_t i = 0; i < nn; i++)
		if (tr[i] < 0 || i == M->t) {
			side[i] = 0;
			M->queue[qt++] = i;
		}
	side[M->s] = 1;
	while (qh < qt) {
		uint32_t v = M->queue[qh++];
		for (uint32_t a = F[v]; a < F[v + 1]; a++) {
			/* without a branch, as in global_relabel */
			uint32_t u = A[a].head, take = side[u] & (A_CAP(A, A_REV(A, F, a)) != 0);
			side[u] &= (uint8_t)!take;
			M->queue[qt] = u;
			qt += take;
		}
	}
}

/* Stores arc a (u -> v) and its reverse b. */
static void
PR(store)(MaxFlow *M, uint32_t a, uint32_t b, uint32_t u, uint32_t v, CAP c, CAP rc)
{
	ARC *A = M->arc;
#ifndef ARC_SMALL
	A[a] = (ARC){v, b, c};
	A[b] = (ARC){u, a, rc};
#else
	const uint32_t *F = M->first;
	A[a] = (ARC){v, (uint32_t)c << 8 | (b - F[v])};
	A[b] = (ARC){u, (uint32_t)rc << 8 | (a - F[u])};
#endif
}

#undef A_CAP
#undef A_SUB
#undef A_ADD
#undef A_REV
