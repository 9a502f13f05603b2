/* ir-run: run @main of a module, with inputs and outputs as .npy files
 * (see ir-run(1)).  For now the reference interpreter (--interp) is the
 * one engine; OpenCL execution comes with ir-codegen-ocl. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "ref/interp.h"
#include "ref/result.h"

enum { OPT_INTERP = 1000, OPT_INPUT, OPT_DATA_DIR, OPT_MAX_MEMORY };

static const struct option opts[] = {
	{"interp", no_argument, NULL, OPT_INTERP},
	{"input", required_argument, NULL, OPT_INPUT},
	{"data-dir", required_argument, NULL, OPT_DATA_DIR},
	{"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
	{0},
};

typedef struct {
	bool interp;
	const char *data_dir;
	InterpInput *inputs;
	uint32_t ninputs;
	uint64_t max_memory;     /* 0: the machine's */
} RunOpts;

/* BYTES, or BYTES with a suffix K, M, G or T (powers of 1024), above 0;
 * false if s is not one. */
static bool
parse_bytes(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return false;
	if (p == s)
		return false;
	static const char units[] = "KMGT";
	if (*p) {
		const char *u = strchr(units, *p);
		if (!u || p[1])
			return false;
		for (const char *k = units; k <= u; k++)
			if (__builtin_mul_overflow(v, 1024, &v))
				return false;
	}
	*out = v;
	return v > 0;
}

static int
on_opt(int code, const char *arg, void *st)
{
	RunOpts *ro = st;
	switch (code) {
	case OPT_INTERP:
		ro->interp = true;
		return 0;
	case OPT_DATA_DIR:
		ro->data_dir = arg;
		return 0;
	case OPT_MAX_MEMORY:
		if (!parse_bytes(arg, &ro->max_memory)) {
			fprintf(stderr, "ir-run: --max-memory takes a number of bytes above 0, with K, M, "
			        "G or T for KiB, MiB, GiB or TiB, not '%s'\n", arg);
			return 2;
		}
		return 0;
	case OPT_INPUT: {
		const char *eq = strchr(arg, '=');
		const char *name = arg[0] == '%' ? arg + 1 : arg;
		if (!eq || eq == name || !eq[1]) {
			fprintf(stderr, "ir-run: --input takes NAME=FILE.npy, not '%s'\n", arg);
			return 2;
		}
		ro->inputs = xrealloc(ro->inputs, (ro->ninputs + 1) * sizeof *ro->inputs);
		size_t n = (size_t)(eq - arg);
		char *nm = xmalloc(n + 1);
		memcpy(nm, arg, n);
		nm[n] = 0;
		ro->inputs[ro->ninputs++] = (InterpInput){nm, eq + 1, NULL};
		return 0;
	}
	}
	return 2;
}

/* Without --interp there is nothing to run on yet: a usage error, before
 * the input is read. */
static int
check_opts(void *st)
{
	const RunOpts *ro = st;
	if (ro->interp)
		return 0;
	fprintf(stderr, "ir-run: running on OpenCL devices needs ir-codegen-ocl, not built yet; "
	        "use --interp\n");
	return 2;
}

static bool
consume(Module *m, const char *input, const char *output, void *st)
{
	RunOpts *ro = st;
	Interp *in = interp_new(m);
	InterpOpts io = {
		.data_dir = ro->data_dir,
		.input_path = input,
		.inputs = ro->inputs,
		.ninputs = ro->ninputs,
		.max_memory = ro->max_memory,
	};
	const RtVal *r = interp_run_main(in, &io);
	bool ok = r != NULL;
	if (ok && output) {
		char err[1024];
		ok = result_write(r, output, err, sizeof err);
		if (!ok)
			fprintf(stderr, "ir-run: %s\n", err);
	} else if (ok) {
		result_print(stdout, r);
	}
	interp_free(in);
	return ok;
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-run",
		.summary = "Run @main with inputs and outputs as .npy files",
		.extra_help =
			"      --interp          run on the reference interpreter (required for now)\n"
			"      --input=NAME=FILE bind @main's parameter %NAME to the .npy FILE\n"
			"      --data-dir=DIR    where relative constant files are (default: the\n"
			"                        input file's folder, else the current folder)\n"
			"      --max-memory=BYTES\n"
			"                        hold at most BYTES of tensors (K, M, G, T for\n"
			"                        KiB .. TiB; default: the machine's memory)\n"
			"  -o, --output=PATH     write the result to PATH (a .npy file; a folder\n"
			"                        of 0.npy, 1.npy, ... for a tuple); without it,\n"
			"                        print the result as text\n",
		.opts = opts,
		.on_opt = on_opt,
		.check_opts = check_opts,
		.needs_main = true,
		.consume = consume,
	};
	RunOpts ro = {0};
	int rc = driver_main(&tool, argc, argv, &ro);
	for (uint32_t i = 0; i < ro.ninputs; i++)
		free((char *)ro.inputs[i].name);
	free(ro.inputs);
	return rc;
}
