/* memplan.h: static memory planning of buffers into pools, at the level
 * of buffers alone (no IR): TVM USMP's BufferInfo / PoolAllocation.
 *
 * A buffer has a size, an alignment, candidate pools in order of
 * preference, and either a lifetime (interval mode: ticks start..end,
 * inclusive; two buffers conflict when their lifetimes meet) or an
 * explicit list of conflicting buffers (conflict mode, as TVM's tests
 * write them, used as written: a list need not be symmetric).  Planning
 * gives each buffer a pool and a byte offset such that conflicting
 * buffers in one pool never overlap and no pool exceeds its size.
 *
 * Everything is deterministic: ties are broken as TVM does (by name,
 * descending) and hill climbing uses its own PRNG with a fixed seed. */
#ifndef MEMPLAN_H
#define MEMPLAN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	const char *name;       /* TVM's name_hint: breaks ties, names errors */
	int64_t size;           /* bytes, >= 0 */
	int64_t align;          /* a power of two; 1 = none */
	uint32_t start, end;    /* interval mode: lifetime, start <= end */
	const uint32_t *conf;   /* conflict mode: the conflicting buffers */
	uint32_t nconf;
	const uint32_t *pools;  /* candidate pools, best first (at least one) */
	uint32_t npools;
	/* results */
	uint32_t pool;
	int64_t offset;
} MpBuf;

typedef struct {
	const char *name;
	int64_t size;           /* bytes; -1: unbounded */
} MpPool;

typedef enum {
	MP_GREEDY_BY_SIZE,      /* TVM's greedy_by_size */
	MP_GREEDY_BY_CONFLICTS, /* TVM's greedy_by_conflicts */
	MP_HILL_CLIMB,          /* TVM's idea: permute the greedy order */
	MP_FIRST_FIT,           /* ours: by size, into the lowest gap that fits */
	MP_BEST,                /* all of the above, the smallest total */
	MP__COUNT
} MpAlgo;

typedef struct {
	MpBuf *buf;
	uint32_t nbuf;
	const MpPool *pool;
	uint32_t npool;
	bool intervals;         /* lifetimes, else conflict lists */
} MpProblem;

/* Plans p with algorithm a.  Returns true with every buffer's pool and
 * offset set and *chosen the algorithm whose plan was kept (a itself but
 * for MP_BEST); false when some buffer fits none of its pools, *fail
 * being that buffer (under MP_BEST, as greedy_by_size found it). */
bool mp_plan(MpProblem *p, MpAlgo a, MpAlgo *chosen, uint32_t *fail);

/* The bytes pool k needs under the current plan: the highest end. */
int64_t mp_pool_used(const MpProblem *p, uint32_t k);
/* The most bytes of pool k's buffers alive at one time (interval mode;
 * a lower bound on any plan), *tick where it is first reached. */
int64_t mp_pool_peak(const MpProblem *p, uint32_t k, uint32_t *tick);

const char *mp_algo_name(MpAlgo a);
/* "greedy_by_size" etc.; false if s names none. */
bool mp_algo_parse(const char *s, MpAlgo *out);

#endif
