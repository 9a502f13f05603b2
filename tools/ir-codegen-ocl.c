/* ir-codegen-ocl: OpenCL C for every prim, kept beside the loop level, or
 * with --emit=cl the bare OpenCL C (see ir-codegen-ocl(1), lib/ocl/). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "ocl/ocl.h"

enum { OPT_EMIT = 1000, OPT_UNROLL };

typedef struct {
	OclOpts ocl;
	bool emit;
	const char *dev;      /* --emit=cl=@dev: that device only */
} Opts;

static const struct option opts[] = {
	{"emit", required_argument, NULL, OPT_EMIT},
	{"unroll", required_argument, NULL, OPT_UNROLL},
	{0},
};

static bool put_cl(Module *m, FILE *f, void *st);

static Tool tool;

static int
on_opt(int code, const char *arg, void *st)
{
	Opts *o = st;
	if (code == OPT_UNROLL) {
		if (strcmp(arg, "pragma") == 0 || strcmp(arg, "full") == 0) {
			o->ocl.full_unroll = arg[0] == 'f';
			return 0;
		}
		fprintf(stderr, "ir-codegen-ocl: --unroll takes pragma or full, not '%s'\n", arg);
		return 2;
	}
	if (code != OPT_EMIT)
		return 2;
	if (strcmp(arg, "cl") == 0) {
		o->dev = NULL;
	} else if (strncmp(arg, "cl=@", 4) == 0 && arg[4]) {
		o->dev = arg + 4;
	} else {
		fprintf(stderr, "ir-codegen-ocl: --emit takes cl or cl=@DEVICE, not '%s'\n", arg);
		return 2;
	}
	o->emit = true;
	/* the OpenCL C replaces the module as the output (one part of
	 * --split-input-file's output a module) */
	tool.print = put_cl;
	return 0;
}

static bool
run(Module *m, void *st)
{
	Opts *o = st;
	return ocl_codegen(m, &o->ocl);
}

static bool
put_cl(Module *m, FILE *f, void *st)
{
	const Opts *o = st;
	return ocl_emit_cl(m, o->dev, f);
}

int
main(int argc, char **argv)
{
	tool = (Tool){
		.name = "ir-codegen-ocl",
		.summary = "Generate OpenCL C for every prim, kept beside the loop level",
		.extra_help =
			"      --emit=cl         write only the OpenCL C of every device, as one\n"
			"                        translation unit\n"
			"      --emit=cl=@DEV    write only the OpenCL C of device @DEV\n"
			"      --unroll=HOW      unrolled loops: pragma (#pragma unroll, the\n"
			"                        default) or full (written out)\n",
		.opts = opts,
		.on_opt = on_opt,
		.run = run,
	};
	Opts o = {0};
	return driver_main(&tool, argc, argv, &o);
}
