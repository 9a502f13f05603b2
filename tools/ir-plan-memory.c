/* ir-plan-memory: give every buffer of @main a pool and an offset, or an
 * image (see ir-plan-memory(1) and lib/memplan/plan_memory.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "memplan/plan_memory.h"

enum { OPT_ALGO = 1000, OPT_IO, OPT_STATS };

static const struct option opts[] = {
	{"algorithm", required_argument, NULL, OPT_ALGO},
	{"io", no_argument, NULL, OPT_IO},
	{"stats", no_argument, NULL, OPT_STATS},
	{0},
};

static int
on_opt(int code, const char *arg, void *st)
{
	MemPlanOpts *o = st;
	switch (code) {
	case OPT_ALGO:
		if (!mp_algo_parse(arg, &o->algo) || o->algo == MP_FIRST_FIT) {
			fprintf(stderr, "ir-plan-memory: --algorithm takes greedy_by_size, greedy_by_conflicts, "
			                "hill_climb or best, not '%s'\n", arg);
			return 2;
		}
		return 0;
	case OPT_IO:
		o->io = true;
		return 0;
	case OPT_STATS:
		o->stats = stderr;
		return 0;
	}
	return 2;
}

static bool
run(Module *m, void *st)
{
	return plan_memory(m, st);
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-plan-memory",
		.summary = "Give every buffer of @main a pool and an offset, or an image",
		.extra_help =
			"      --algorithm=A     greedy_by_size, greedy_by_conflicts, hill_climb or\n"
			"                        best (the default: all, and the smallest plan)\n"
			"      --io              plan @main's parameters and result too\n"
			"      --stats           print per-pool sizes and the algorithm to stderr\n",
		.opts = opts,
		.on_opt = on_opt,
		.run = run,
		.needs_main = true,
		.keeps_names = true,
	};
	MemPlanOpts o = {.algo = MP_BEST};
	return driver_main(&tool, argc, argv, &o);
}
