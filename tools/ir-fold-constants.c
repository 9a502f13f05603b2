/* ir-fold-constants: compute at compile time every graph-level binding
 * whose operands are all constants (see ir-fold-constants(1) and
 * lib/rewrite/fold_constants.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "driver.h"
#include "rewrite/fold_constants.h"

enum { OPT_DATA_DIR = 1000, OPT_MAX_BYTES, OPT_INLINE_MAX, OPT_NO_WEIGHT_LAYOUTS, OPT_STATS,
       OPT_OUTSIDE };

static const struct option opts[] = {
	{"data-dir", required_argument, NULL, OPT_DATA_DIR},
	{"allow-outside-data", no_argument, NULL, OPT_OUTSIDE},
	{"max-bytes", required_argument, NULL, OPT_MAX_BYTES},
	{"inline-max", required_argument, NULL, OPT_INLINE_MAX},
	{"no-weight-layouts", no_argument, NULL, OPT_NO_WEIGHT_LAYOUTS},
	{"stats", no_argument, NULL, OPT_STATS},
	{0},
};

static int
on_opt(int code, const char *arg, void *st)
{
	FoldOpts *o = st;
	uint64_t n;
	switch (code) {
	case OPT_DATA_DIR:
		o->data_dir = arg;
		return 0;
	case OPT_OUTSIDE:
		o->any_data_path = true;
		return 0;
	case OPT_MAX_BYTES:
		if (driver_opt_bytes("ir-fold-constants", "--max-bytes", arg, &n))
			return 2;
		o->max_bytes = n;
		return 0;
	case OPT_INLINE_MAX:
		if (!driver_parse_count(arg, false, 0, UINT32_MAX, &n)) {
			fprintf(stderr, "ir-fold-constants: --inline-max takes a number of elements "
			        "from 0 to 4294967295, not '%s'\n", arg);
			return 2;
		}
		o->inline_max = (uint32_t)n;
		o->inline_max_set = true;
		return 0;
	case OPT_NO_WEIGHT_LAYOUTS:
		o->weight_layouts = false;
		return 0;
	case OPT_STATS:
		o->stats = stderr;
		return 0;
	}
	return 2;
}

/* The options, and the .npy files of every module, staged until the
 * output is written (Tool.commit). */
typedef struct {
	FoldOpts o;           /* first: on_opt takes the state as FoldOpts */
	OutGroup files;
} State;

static bool
run(Module *m, void *st)
{
	FoldOpts *o = st;
	o->files = &((State *)st)->files;
	/* the input file's folder is where relative constant files are,
	 * when no --data-dir says otherwise (file 1 is the input) */
	const char *input = m->ctx->nfiles > 1 ? src_name(m->ctx, 1) : NULL;
	o->input_path = input && input[0] != '<' ? input : NULL;
	return fold_constants(m, o);
}

/* The files of the folded constants replace the user's together, once
 * the module is written, or none does. */
static bool
commit(bool ok, void *st)
{
	State *s = st;
	if (!ok) {
		outgroup_discard(&s->files);
		return true;
	}
	char bad[4096];
	int e = outgroup_commit(&s->files, bad, sizeof bad);
	if (e)
		fprintf(stderr, "ir-fold-constants: cannot write '%s': %s\n", bad, strerror(e));
	return e == 0;
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-fold-constants",
		.summary = "Compute every graph-level binding whose operands are all constants",
		.extra_help =
			"      --data-dir=DIR    where relative constant files are read and folded\n"
			"                        ones written (default: the input file's folder,\n"
			"                        else the current folder)\n"
			"      --allow-outside-data\n"
			"                        read constant files named by absolute paths or\n"
			"                        through '..' (default: refused)\n"
			"      --max-bytes=BYTES fold only values of at most BYTES (K, M, G, T for\n"
			"                        KiB .. TiB; default 256M)\n"
			"      --inline-max=N    write results of at most N elements inline, larger\n"
			"                        ones to .npy files (default 64)\n"
			"      --no-weight-layouts\n"
			"                        keep conv2d's constant OIHW weights in OIHW\n"
			"      --stats           print what was folded to stderr\n",
		.opts = opts,
		.on_opt = on_opt,
		.run = run,
		.keeps_names = false,
		.commit = commit,
	};
	State s = {.o = {.weight_layouts = true}};
	return driver_main(&tool, argc, argv, &s);
}
