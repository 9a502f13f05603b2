/* ir-dot: a module as a Graphviz DOT graph of its placements, copies and
 * kernels (see ir-dot(1) and lib/dot/dot.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dot/dot.h"
#include "driver.h"

enum { OPT_PRIMS = 1000, OPT_MAX_NODES, OPT_SUMMARY };

static const struct option opts[] = {
	{"prims", no_argument, NULL, OPT_PRIMS},
	{"max-nodes", required_argument, NULL, OPT_MAX_NODES},
	{"summary", no_argument, NULL, OPT_SUMMARY},
	{0},
};

static int
on_opt(int code, const char *arg, void *st)
{
	DotOpts *o = st;
	switch (code) {
	case OPT_PRIMS:
	case OPT_SUMMARY:
		if (code == OPT_PRIMS)
			o->prims = true;
		else
			o->summary = true;
		if (o->prims && o->summary) {
			fprintf(stderr, "ir-dot: --summary draws no prims: give --prims or --summary\n");
			return 2;
		}
		return 0;
	case OPT_MAX_NODES: {
		uint64_t n;
		if (!driver_parse_count(arg, false, 0, UINT32_MAX - 1, &n)) {
			fprintf(stderr, "ir-dot: --max-nodes takes a number of nodes (0: no limit), not '%s'\n", arg);
			return 2;
		}
		o->max_nodes = n;
		return 0;
	}
	}
	return 2;
}

/* A write error stays in f's error state, for driver_write and
 * driver_main to report. */
static bool
put_dot(Module *m, FILE *f, void *st)
{
	dot_write(m, st, f);
	return true;
}

static bool
write_dot(Module *m, const DriverOpts *o, FILE *out, void *st)
{
	(void)out; /* the standard output: driver_write's, without -o */
	return driver_write("ir-dot", m, o->output, put_dot, st);
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-dot",
		.summary = "Write a module as a Graphviz DOT graph of its placements, copies and kernels",
		.extra_help =
			"      --prims           also draw each prim's kernels and buffers\n"
			"      --summary         one node per chain of operators, repeated blocks\n"
			"                        drawn once, constants left out\n"
			"      --max-nodes=N     draw at most N nodes (default 2000, 0: no limit),\n"
			"                        the rest folded into a note\n"
			"  -o, --output=FILE     write to FILE, replaced only once the run succeeded\n",
		.opts = opts,
		.on_opt = on_opt,
		.consume = write_dot,
	};
	DotOpts o = {.max_nodes = 2000};
	return driver_main(&tool, argc, argv, &o);
}
