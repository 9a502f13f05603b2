/* memplan_test: TVM's USMP algorithm tests (tests/python/unittest/
 * test_tir_usmp_algo.py) on the buffer-level API, plus interval mode. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir.h"
#include "memplan/memplan.h"

static const uint32_t pool0[] = {0};

static MpBuf
buf(const char *name, int64_t size)
{
	return (MpBuf){.name = name, .size = size, .align = 1, .pools = pool0, .npools = 1};
}

static void
set_conf(MpBuf *b, const uint32_t *c, uint32_t n)
{
	b->conf = c;
	b->nconf = n;
}

static const MpAlgo algos[] = {MP_GREEDY_BY_SIZE, MP_GREEDY_BY_CONFLICTS, MP_HILL_CLIMB,
                               MP_FIRST_FIT, MP_BEST};

/* Three 10-byte buffers that all conflict: offsets 20, 10, 0 by name. */
static void
test_name_based_ordering(void)
{
	static const uint32_t ca[] = {1, 2}, cb[] = {0, 2}, cc[] = {0, 1};
	MpPool pool = {"global_workspace", -1};
	for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
		for (int rep = 0; rep < 10; rep++) {
			MpBuf b[3] = {buf("bi_a", 10), buf("bi_b", 10), buf("bi_c", 10)};
			set_conf(&b[0], ca, 2);
			set_conf(&b[1], cb, 2);
			set_conf(&b[2], cc, 2);
			MpProblem p = {b, 3, &pool, 1, false};
			CHECK(mp_plan(&p, algos[a], NULL, NULL), "%s plans", mp_algo_name(algos[a]));
			CHECK(b[0].offset == 20 && b[1].offset == 10 && b[2].offset == 0,
			      "%s: offsets %lld %lld %lld", mp_algo_name(algos[a]),
			      (long long)b[0].offset, (long long)b[1].offset, (long long)b[2].offset);
		}
}

/* The same in a pool of 10 bytes: no room. */
static void
test_no_pool_error(void)
{
	static const uint32_t ca[] = {1, 2}, cb[] = {0, 2}, cc[] = {0, 1};
	MpPool pool = {"tiny", 10};
	for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
		MpBuf b[3] = {buf("bi_a", 10), buf("bi_b", 10), buf("bi_c", 10)};
		set_conf(&b[0], ca, 2);
		set_conf(&b[1], cb, 2);
		set_conf(&b[2], cc, 2);
		MpProblem p = {b, 3, &pool, 1, false};
		uint32_t fail = 99;
		CHECK(!mp_plan(&p, algos[a], NULL, &fail), "%s: a 10-byte pool fits 30 bytes",
		      mp_algo_name(algos[a]));
		CHECK(fail < 3, "%s: the failing buffer is named", mp_algo_name(algos[a]));
	}
}

static int64_t
planned(MpAlgo a, MpBuf *b, uint32_t n, bool symmetric)
{
	MpPool pool = {"global_workspace", -1};
	MpProblem p = {b, n, &pool, 1, false};
	if (!mp_plan(&p, a, NULL, NULL))
		return -1;
	/* conflicting buffers never overlap (when both lists say so) */
	for (uint32_t i = 0; i < n && symmetric; i++)
		for (uint32_t c = 0; c < b[i].nconf; c++) {
			const MpBuf *x = &b[i], *y = &b[b[i].conf[c]];
			if (x != y)
				CHECK(x->offset + x->size <= y->offset || y->offset + y->size <= x->offset,
				      "%s: %s and %s overlap", mp_algo_name(a), x->name, y->name);
		}
	return mp_pool_used(&p, 0);
}

/* a10 b20 c100 d40 e50 f50 in a chain: 140 bytes for every algorithm. */
static void
test_linear(void)
{
	static const uint32_t ca[] = {1}, cb[] = {0, 2}, cc[] = {1, 3}, cd[] = {2, 4},
	                      ce[] = {3, 5}, cf[] = {4};
	for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
		MpBuf b[6] = {buf("bi_a", 10), buf("bi_b", 20), buf("bi_c", 100),
		              buf("bi_d", 40), buf("bi_e", 50), buf("bi_f", 50)};
		set_conf(&b[0], ca, 1);
		set_conf(&b[1], cb, 2);
		set_conf(&b[2], cc, 2);
		set_conf(&b[3], cd, 2);
		set_conf(&b[4], ce, 2);
		set_conf(&b[5], cf, 1);
		int64_t got = planned(algos[a], b, 6, true);
		CHECK(got == 140, "linear, %s: %lld bytes, not 140", mp_algo_name(algos[a]),
		      (long long)got);
	}
}

/* The fan-out graph, conflict lists as TVM writes them (not symmetric). */
static void
test_fanout(void)
{
	static const uint32_t ca[] = {1, 2}, cb[] = {0, 2, 4}, cc[] = {4, 0, 1, 3},
	                      cd[] = {1, 5, 2, 4}, ce[] = {2, 5, 1, 3}, cf[] = {3, 4, 5},
	                      cg[] = {5};
	static const struct {
		MpAlgo a;
		int64_t want;
	} cases[] = {
		{MP_GREEDY_BY_SIZE, 190}, {MP_GREEDY_BY_CONFLICTS, 320}, {MP_HILL_CLIMB, 190},
		{MP_BEST, 190},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		MpBuf b[7] = {buf("bi_a", 10), buf("bi_b", 20), buf("bi_c", 100), buf("bi_d", 40),
		              buf("bi_e", 50), buf("bi_f", 60), buf("bi_g", 70)};
		set_conf(&b[0], ca, 2);
		set_conf(&b[1], cb, 3);
		set_conf(&b[2], cc, 4);
		set_conf(&b[3], cd, 4);
		set_conf(&b[4], ce, 4);
		set_conf(&b[5], cf, 3);
		set_conf(&b[6], cg, 1);
		int64_t got = planned(cases[k].a, b, 7, false);
		CHECK(got == cases[k].want, "fanout, %s: %lld bytes, not %lld",
		      mp_algo_name(cases[k].a), (long long)got, (long long)cases[k].want);
	}
}

/* Candidate pools: a buffer goes to the first that holds it, and a
 * bounded pool sends the overflow on. */
static void
test_pool_preference(void)
{
	static const uint32_t both[] = {0, 1}, ca[] = {1}, cb[] = {0};
	MpPool pools[2] = {{"fast", 64}, {"slow", -1}};
	MpBuf b[2] = {buf("a", 60), buf("b", 60)};
	b[0].pools = b[1].pools = both;
	b[0].npools = b[1].npools = 2;
	set_conf(&b[0], ca, 1);
	set_conf(&b[1], cb, 1);
	MpProblem p = {b, 2, pools, 2, false};
	CHECK(mp_plan(&p, MP_GREEDY_BY_SIZE, NULL, NULL), "plans");
	/* b first (name descending), into fast; a conflicts and goes slow */
	CHECK(b[1].pool == 0 && b[1].offset == 0, "b in fast at 0: %u %lld", b[1].pool,
	      (long long)b[1].offset);
	CHECK(b[0].pool == 1 && b[0].offset == 0, "a in slow at 0: %u %lld", b[0].pool,
	      (long long)b[0].offset);
}

/* Interval mode: alignment, reuse across disjoint lifetimes, the peak. */
static void
test_intervals(void)
{
	MpPool pool = {"ws", -1};
	MpBuf b[4] = {buf("x", 10), buf("y", 20), buf("z", 10), buf("w", 30)};
	uint32_t life[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 3}};
	for (int i = 0; i < 4; i++) {
		b[i].start = life[i][0];
		b[i].end = life[i][1];
		b[i].align = 16;
	}
	MpProblem p = {b, 4, &pool, 1, true};
	for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
		CHECK(mp_plan(&p, algos[a], NULL, NULL), "plans");
		for (int i = 0; i < 4; i++) {
			CHECK(b[i].offset % 16 == 0, "%s: %s aligned", mp_algo_name(algos[a]), b[i].name);
			for (int j = 0; j < i; j++)
				if (!(b[i].end < b[j].start || b[j].end < b[i].start))
					CHECK(b[i].offset + b[i].size <= b[j].offset ||
					      b[j].offset + b[j].size <= b[i].offset,
					      "%s: %s and %s overlap", mp_algo_name(algos[a]), b[i].name, b[j].name);
		}
	}
	uint32_t tick;
	CHECK(mp_pool_peak(&p, 0, &tick) == 40 && tick == 3, "peak %lld at %u",
	      (long long)mp_pool_peak(&p, 0, NULL), tick);
}

/* A long chain in interval mode: greedy stays fast and near the bound. */
static void
test_many(void)
{
	enum { N = 20000 };
	MpBuf *b = xcalloc(N, sizeof *b);
	MpPool pool = {"ws", -1};
	for (uint32_t i = 0; i < N; i++) {
		b[i] = buf("t", 16 * (1 + (i * 7919u) % 13));
		b[i].start = i;
		b[i].end = i + 1 + (i % 3);
	}
	MpProblem p = {b, N, &pool, 1, true};
	MpAlgo chosen;
	CHECK(mp_plan(&p, MP_BEST, &chosen, NULL), "plans");
	int64_t used = mp_pool_used(&p, 0), peak = mp_pool_peak(&p, 0, NULL);
	CHECK(used >= peak && used <= 2 * peak, "used %lld, peak %lld", (long long)used,
	      (long long)peak);
	free(b);
}

int
main(void)
{
	MpAlgo a;
	CHECK(mp_algo_parse("hill_climb", &a) && a == MP_HILL_CLIMB, "parse");
	CHECK(!mp_algo_parse("random", &a), "parse refuses");
	test_name_based_ordering();
	test_no_pool_error();
	test_linear();
	test_fanout();
	test_pool_preference();
	test_intervals();
	test_many();
	printf("memplan_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
