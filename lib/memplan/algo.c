/* algo.c: the planning algorithms of memplan.h.
 *
 * TVM's greedy algorithms (src/tir/usmp/algo/greedy.cc) place buffers one
 * by one in a sorted order, each right above the highest end of the
 * already placed buffers it conflicts with, in the first of its pools
 * where that fits.  In conflict mode that is a walk of the conflict
 * lists; in interval mode a segment tree per pool over the ticks answers
 * "highest end among placed buffers alive in [start, end]" in log time,
 * so the greedy algorithms are n log n whatever the overlap.
 *
 * Hill climbing and our first fit need explicit conflict lists; interval
 * mode builds them by a sweep and skips those two when the lists would be
 * too large (MAX_PAIRS), so `best` stays fast on any input. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "memplan/memplan.h"

enum { MAX_PAIRS = 20000000 };

static const char *const algo_names[MP__COUNT] = {
	"greedy_by_size", "greedy_by_conflicts", "hill_climb", "first_fit", "best",
};

const char *
mp_algo_name(MpAlgo a)
{
	return a < MP__COUNT ? algo_names[a] : "?";
}

bool
mp_algo_parse(const char *s, MpAlgo *out)
{
	for (int i = 0; i < MP__COUNT; i++)
		if (!strcmp(s, algo_names[i])) {
			*out = (MpAlgo)i;
			return true;
		}
	return false;
}

static int64_t
align_up(int64_t x, int64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

static bool
fits(const MpPool *pl, int64_t off, int64_t size)
{
	return pl->size < 0 || off + size <= pl->size;
}

/* ------------------------------------------------------------ segment tree */

/* Range "raise to at least v" and range max over ticks 0..n-1: mx[i] is
 * the max of node i's range, tag[i] a raise applied to all of it. */
typedef struct {
	uint32_t n;
	int64_t *mx, *tag;
} Seg;

static void
seg_init(Seg *s, uint32_t n)
{
	s->n = n ? n : 1;
	s->mx = xcalloc(4 * (size_t)s->n, sizeof *s->mx);
	s->tag = xcalloc(4 * (size_t)s->n, sizeof *s->tag);
}

static void
seg_free(Seg *s)
{
	free(s->mx);
	free(s->tag);
	s->mx = s->tag = NULL;
}

/* Recursion depth is log2 of the ticks: at most 33. */
static void
seg_raise(Seg *s, uint32_t i, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b, int64_t v)
{
	if (b < lo || hi < a)
		return;
	if (s->mx[i] < v)
		s->mx[i] = v;
	if (a <= lo && hi <= b) {
		if (s->tag[i] < v)
			s->tag[i] = v;
		return;
	}
	uint32_t mid = lo + (hi - lo) / 2;
	seg_raise(s, 2 * i, lo, mid, a, b, v);
	seg_raise(s, 2 * i + 1, mid + 1, hi, a, b, v);
}

static int64_t
seg_max(const Seg *s, uint32_t i, uint32_t lo, uint32_t hi, uint32_t a, uint32_t b)
{
	if (b < lo || hi < a)
		return 0;
	if (a <= lo && hi <= b)
		return s->mx[i];
	uint32_t mid = lo + (hi - lo) / 2;
	int64_t l = seg_max(s, 2 * i, lo, mid, a, b);
	int64_t r = seg_max(s, 2 * i + 1, mid + 1, hi, a, b);
	int64_t m = l > r ? l : r;
	return m > s->tag[i] ? m : s->tag[i];
}

/* ------------------------------------------------------------ orders */

typedef struct {
	const MpBuf *b;
	const uint32_t *nconf;   /* conflicts per buffer */
	bool by_conflicts;
} SortCtx;

static SortCtx sort_ctx;     /* qsort has no context argument in C11 */

/* TVM: size desc, then conflicts desc, then name desc (greedy_by_size);
 * conflicts desc, then size desc, then name desc (greedy_by_conflicts).
 * The index last makes the order total. */
static int
cmp_order(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const MpBuf *a = &sort_ctx.b[i], *b = &sort_ctx.b[j];
	int64_t sa = a->size, sb = b->size;
	int64_t ca = sort_ctx.nconf[i], cb = sort_ctx.nconf[j];
	int64_t k1a = sort_ctx.by_conflicts ? ca : sa, k1b = sort_ctx.by_conflicts ? cb : sb;
	int64_t k2a = sort_ctx.by_conflicts ? sa : ca, k2b = sort_ctx.by_conflicts ? sb : cb;
	if (k1a != k1b)
		return k1a > k1b ? -1 : 1;
	if (k2a != k2b)
		return k2a > k2b ? -1 : 1;
	int c = strcmp(a->name ? a->name : "", b->name ? b->name : "");
	if (c)
		return -c;
	return i < j ? -1 : i > j;
}

static int
cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* Buffers alive somewhere in [s, e] besides one: n - 1 less those that end
 * before s and those that start after e. */
static void
count_interval_conflicts(const MpProblem *p, uint32_t *nconf)
{
	uint32_t n = p->nbuf;
	uint32_t *st = xmalloc((n + 1) * sizeof *st), *en = xmalloc((n + 1) * sizeof *en);
	for (uint32_t i = 0; i < n; i++) {
		st[i] = p->buf[i].start;
		en[i] = p->buf[i].end;
	}
	qsort(st, n, sizeof *st, cmp_u32);
	qsort(en, n, sizeof *en, cmp_u32);
	for (uint32_t i = 0; i < n; i++) {
		/* ends < start */
		uint32_t lo = 0, hi = n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (en[mid] < p->buf[i].start)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t before = lo;
		/* starts > end */
		lo = 0, hi = n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (st[mid] <= p->buf[i].end)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t after = n - lo;
		nconf[i] = n - 1 - before - after;
	}
	free(st);
	free(en);
}

/* ------------------------------------------------------------ conflicts */

/* Explicit conflict lists: p's own in conflict mode, else built by a sweep
 * over lifetimes (symmetric).  NULL when they would exceed MAX_PAIRS. */
typedef struct {
	uint32_t *off;   /* n + 1 */
	uint32_t *to;
} Adj;

static const MpBuf *sweep_buf;

static int
cmp_by_start(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	uint32_t a = sweep_buf[i].start, b = sweep_buf[j].start;
	if (a != b)
		return a < b ? -1 : 1;
	return i < j ? -1 : i > j;
}

static bool
adj_build(const MpProblem *p, const uint32_t *nconf, Adj *g)
{
	uint32_t n = p->nbuf;
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		total += p->intervals ? nconf[i] : p->buf[i].nconf;
	if (total > MAX_PAIRS)
		return false;
	g->off = xcalloc((size_t)n + 1, sizeof *g->off);
	g->to = xmalloc((total + 1) * sizeof *g->to);
	if (!p->intervals) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < n; i++) {
			g->off[i] = k;
			for (uint32_t c = 0; c < p->buf[i].nconf; c++)
				g->to[k++] = p->buf[i].conf[c];
		}
		g->off[n] = k;
		return true;
	}
	/* Each buffer's slots, counted exactly by nconf; fill from pairs of
	 * overlapping intervals found in start order. */
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		g->off[i] = k;
		k += nconf[i];
	}
	g->off[n] = k;
	uint32_t *fill = xcalloc((size_t)n + 1, sizeof *fill);
	uint32_t *ord = xmalloc(((size_t)n + 1) * sizeof *ord);
	for (uint32_t i = 0; i < n; i++)
		ord[i] = i;
	sweep_buf = p->buf;
	qsort(ord, n, sizeof *ord, cmp_by_start);
	/* active: buffers started, not yet ended, compacted lazily */
	uint32_t *act = xmalloc(((size_t)n + 1) * sizeof *act), na = 0;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t i = ord[r];
		uint32_t w = 0;
		for (uint32_t a = 0; a < na; a++) {
			uint32_t j = act[a];
			if (p->buf[j].end < p->buf[i].start)
				continue;
			act[w++] = j;
			g->to[g->off[i] + fill[i]++] = j;
			g->to[g->off[j] + fill[j]++] = i;
		}
		na = w;
		act[na++] = i;
	}
	free(act);
	free(ord);
	free(fill);
	return true;
}

static void
adj_free(Adj *g)
{
	free(g->off);
	free(g->to);
}

/* ------------------------------------------------------------ placement */

typedef struct {
	MpProblem *p;
	const Adj *g;            /* NULL: interval mode through segment trees */
	Seg *seg;                /* per pool, interval mode */
	uint32_t nticks;
	bool *placed;
} Placer;

/* TVM's rule: above the highest end of the placed conflicts, in the first
 * candidate pool where that fits.  False if none fits. */
static bool
place_greedy(Placer *pl, uint32_t i)
{
	MpProblem *p = pl->p;
	MpBuf *b = &p->buf[i];
	for (uint32_t c = 0; c < b->npools; c++) {
		uint32_t k = b->pools[c];
		const MpPool *pool = &p->pool[k];
		if (!fits(pool, 0, b->size))
			continue;
		int64_t off = 0;
		if (pl->g) {
			for (uint32_t e = pl->g->off[i]; e < pl->g->off[i + 1]; e++) {
				uint32_t j = pl->g->to[e];
				if (!pl->placed[j] || p->buf[j].pool != k)
					continue;
				int64_t end = align_up(p->buf[j].offset + p->buf[j].size, p->buf[j].align);
				if (end > off)
					off = end;
			}
		} else {
			if (!pl->seg[k].mx)
				seg_init(&pl->seg[k], pl->nticks);
			off = seg_max(&pl->seg[k], 1, 0, pl->seg[k].n - 1, b->start, b->end);
		}
		off = align_up(off, b->align);
		if (!fits(pool, off, b->size))
			continue;
		b->pool = k;
		b->offset = off;
		pl->placed[i] = true;
		if (!pl->g)
			seg_raise(&pl->seg[k], 1, 0, pl->seg[k].n - 1, b->start, b->end,
			          align_up(off + b->size, b->align));
		return true;
	}
	return false;
}

typedef struct {
	int64_t off, end;
} Span;

static int
cmp_span(const void *x, const void *y)
{
	const Span *a = x, *b = y;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* Ours: the lowest offset where the buffer fits between its placed
 * conflicts, in the first candidate pool where there is one. */
static bool
place_first_fit(Placer *pl, uint32_t i, Span **tmp, size_t *cap)
{
	MpProblem *p = pl->p;
	MpBuf *b = &p->buf[i];
	for (uint32_t c = 0; c < b->npools; c++) {
		uint32_t k = b->pools[c];
		const MpPool *pool = &p->pool[k];
		size_t n = 0;
		for (uint32_t e = pl->g->off[i]; e < pl->g->off[i + 1]; e++) {
			uint32_t j = pl->g->to[e];
			if (!pl->placed[j] || p->buf[j].pool != k)
				continue;
			VEC_PUSH(*tmp, n, *cap) = (Span){p->buf[j].offset, p->buf[j].offset + p->buf[j].size};
		}
		if (n)
			qsort(*tmp, n, sizeof **tmp, cmp_span);
		int64_t off = 0;
		for (size_t s = 0; s < n; s++) {
			if (align_up(off, b->align) + b->size <= (*tmp)[s].off)
				break;
			if ((*tmp)[s].end > off)
				off = (*tmp)[s].end;
		}
		off = align_up(off, b->align);
		if (!fits(pool, off, b->size))
			continue;
		b->pool = k;
		b->offset = off;
		pl->placed[i] = true;
		return true;
	}
	return false;
}

static int64_t
total_used(const MpProblem *p)
{
	int64_t t = 0;
	for (uint32_t k = 0; k < p->npool; k++)
		t += mp_pool_used(p, k);
	return t;
}

/* Places in order; returns false with *fail at the first that fits
 * nowhere. */
static bool
run_order(MpProblem *p, const Adj *g, const uint32_t *order, bool first_fit, uint32_t *fail)
{
	Placer pl = {p, g, NULL, 0, xcalloc((size_t)p->nbuf + 1, sizeof(bool))};
	if (!g) {
		pl.seg = xcalloc((size_t)p->npool + 1, sizeof *pl.seg);
		for (uint32_t i = 0; i < p->nbuf; i++)
			if (p->buf[i].end + 1 > pl.nticks)
				pl.nticks = p->buf[i].end + 1;
	}
	Span *tmp = NULL;
	size_t cap = 0;
	bool ok = true;
	for (uint32_t r = 0; r < p->nbuf && ok; r++) {
		uint32_t i = order[r];
		ok = first_fit ? place_first_fit(&pl, i, &tmp, &cap) : place_greedy(&pl, i);
		if (!ok && fail)
			*fail = i;
	}
	free(tmp);
	if (pl.seg) {
		for (uint32_t k = 0; k < p->npool; k++)
			seg_free(&pl.seg[k]);
		free(pl.seg);
	}
	free(pl.placed);
	return ok;
}

/* ------------------------------------------------------------ hill climb */

/* xorshift64*: the same numbers on every machine. */
static uint64_t
rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 2685821657736338717ull;
}

/* From the greedy_by_size order, swap a buffer that ends at the top of its
 * pool with a random earlier-placed conflict of it (or, lacking one, any
 * random buffer), re-place, keep the order when the total does not grow.
 * Strictly smaller totals are recorded as the best plan. */
static bool
hill_climb(MpProblem *p, const Adj *g, uint32_t *order, uint32_t *fail)
{
	uint32_t n = p->nbuf;
	if (!run_order(p, g, order, false, fail))
		return false;
	int64_t best = total_used(p);
	if (n < 2)
		return true;
	uint64_t work = (uint64_t)g->off[n] + n;
	uint64_t attempts = 500;
	if (attempts * work > 50000000ull)
		attempts = 50000000ull / work;
	uint32_t *pos = xmalloc((size_t)n * sizeof *pos);
	uint32_t *cur = xmalloc((size_t)n * sizeof *cur);
	memcpy(cur, order, (size_t)n * sizeof *cur);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (uint64_t t = 0; t < attempts; t++) {
		for (uint32_t r = 0; r < n; r++)
			pos[cur[r]] = r;
		/* the buffer with the highest end, ties to the later placed */
		uint32_t top = cur[0];
		int64_t top_end = -1;
		for (uint32_t r = 0; r < n; r++) {
			const MpBuf *b = &p->buf[cur[r]];
			if (b->offset + b->size >= top_end) {
				top_end = b->offset + b->size;
				top = cur[r];
			}
		}
		uint32_t deg = g->off[top + 1] - g->off[top];
		uint32_t other = deg ? g->to[g->off[top] + rng_next(&seed) % deg]
		                     : (uint32_t)(rng_next(&seed) % n);
		uint32_t a = pos[top], b = pos[other];
		if (a == b)
			b = (uint32_t)(rng_next(&seed) % n);
		if (a == b)
			continue;
		uint32_t x = cur[a];
		cur[a] = cur[b];
		cur[b] = x;
		int64_t tot = -1;
		if (run_order(p, g, cur, false, NULL))
			tot = total_used(p);
		if (tot >= 0 && tot < best) {
			best = tot;
			memcpy(order, cur, (size_t)n * sizeof *cur);
		} else {
			x = cur[a];
			cur[a] = cur[b];
			cur[b] = x;
		}
	}
	free(pos);
	free(cur);
	return run_order(p, g, order, false, fail);
}

/* ------------------------------------------------------------ driver */

typedef struct {
	uint32_t pool;
	int64_t offset;
} Slot;

static bool
plan_one(MpProblem *p, MpAlgo a, const uint32_t *nconf, const Adj *g, uint32_t *fail)
{
	uint32_t n = p->nbuf;
	uint32_t *order = xmalloc(((size_t)n + 1) * sizeof *order);
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_ctx = (SortCtx){p->buf, nconf, a == MP_GREEDY_BY_CONFLICTS};
	qsort(order, n, sizeof *order, cmp_order);
	bool ok;
	if (a == MP_HILL_CLIMB)
		ok = hill_climb(p, g, order, fail);
	else if (a == MP_FIRST_FIT)
		ok = run_order(p, g, order, true, fail);
	else
		ok = run_order(p, p->intervals ? NULL : g, order, false, fail);
	free(order);
	return ok;
}

bool
mp_plan(MpProblem *p, MpAlgo a, MpAlgo *chosen, uint32_t *fail)
{
	uint32_t n = p->nbuf;
	uint32_t *nconf = xcalloc((size_t)n + 1, sizeof *nconf);
	if (p->intervals)
		count_interval_conflicts(p, nconf);
	else
		for (uint32_t i = 0; i < n; i++)
			nconf[i] = p->buf[i].nconf;
	Adj g = {0};
	bool have_g = (a != MP_GREEDY_BY_SIZE && a != MP_GREEDY_BY_CONFLICTS) || !p->intervals
	              ? adj_build(p, nconf, &g) : false;
	bool ok;
	if (chosen)
		*chosen = a;
	if (a != MP_BEST) {
		if (!have_g && (a == MP_HILL_CLIMB || a == MP_FIRST_FIT))
			a = MP_GREEDY_BY_SIZE;   /* too many conflicts to list */
		if (chosen)
			*chosen = a;
		ok = plan_one(p, a, nconf, have_g ? &g : NULL, fail);
	} else {
		Slot *keep = xmalloc(((size_t)n + 1) * sizeof *keep);
		int64_t best = -1;
		ok = false;
		for (int k = 0; k < MP_BEST; k++) {
			if (!have_g && (k == MP_HILL_CLIMB || k == MP_FIRST_FIT))
				continue;
			uint32_t f = 0;
			if (!plan_one(p, (MpAlgo)k, nconf, have_g ? &g : NULL, &f)) {
				if (k == MP_GREEDY_BY_SIZE && fail)
					*fail = f;
				continue;
			}
			int64_t t = total_used(p);
			if (best < 0 || t < best) {
				best = t;
				ok = true;
				if (chosen)
					*chosen = (MpAlgo)k;
				for (uint32_t i = 0; i < n; i++)
					keep[i] = (Slot){p->buf[i].pool, p->buf[i].offset};
			}
		}
		if (ok)
			for (uint32_t i = 0; i < n; i++) {
				p->buf[i].pool = keep[i].pool;
				p->buf[i].offset = keep[i].offset;
			}
		free(keep);
	}
	if (have_g)
		adj_free(&g);
	free(nconf);
	return ok;
}

int64_t
mp_pool_used(const MpProblem *p, uint32_t k)
{
	int64_t m = 0;
	for (uint32_t i = 0; i < p->nbuf; i++)
		if (p->buf[i].pool == k && p->buf[i].offset + p->buf[i].size > m)
			m = p->buf[i].offset + p->buf[i].size;
	return m;
}

typedef struct {
	uint32_t tick;
	int64_t delta;
} Event;

static int
cmp_event(const void *x, const void *y)
{
	const Event *a = x, *b = y;
	if (a->tick != b->tick)
		return a->tick < b->tick ? -1 : 1;
	/* an end at t closes a lifetime that stopped at t - 1: before starts */
	return (a->delta >= 0) - (b->delta >= 0);
}

int64_t
mp_pool_peak(const MpProblem *p, uint32_t k, uint32_t *tick)
{
	Event *ev = NULL;
	size_t n = 0, cap = 0;
	for (uint32_t i = 0; i < p->nbuf; i++) {
		if (p->buf[i].pool != k)
			continue;
		VEC_PUSH(ev, n, cap) = (Event){p->buf[i].start, p->buf[i].size};
		VEC_PUSH(ev, n, cap) = (Event){p->buf[i].end + 1, -p->buf[i].size};
	}
	if (n)
		qsort(ev, n, sizeof *ev, cmp_event);
	int64_t cur = 0, peak = 0;
	uint32_t at = 0;
	for (size_t e = 0; e < n; e++) {
		cur += ev[e].delta;
		if (cur > peak) {
			peak = cur;
			at = ev[e].tick;
		}
	}
	free(ev);
	if (tick)
		*tick = at;
	return peak;
}
