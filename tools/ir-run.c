/* ir-run: run @main of a module, with inputs and outputs as .npy files
 * (see ir-run(1)): on OpenCL devices (planned once by lib/exec/, else
 * walked with lib/ocl/runtime.c's hooks), or on the reference
 * interpreter with --interp. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "driver.h"
#include "exec/exec.h"
#include "ocl/runtime.h"
#include "ref/interp.h"
#include "tensor/result.h"

enum { OPT_INTERP = 1000, OPT_INPUT, OPT_DATA_DIR, OPT_MAX_MEMORY, OPT_DEVICE, OPT_CHECK,
       OPT_REPEAT, OPT_NO_CACHE, OPT_STATS, OPT_SYNC, OPT_PROFILE, OPT_NO_KEEP,
       OPT_OUTSIDE, OPT_PROGRESS, OPT_HOST_COPIES, OPT_PEER_COPIES };

static const struct option opts[] = {
	{"interp", no_argument, NULL, OPT_INTERP},
	{"input", required_argument, NULL, OPT_INPUT},
	{"data-dir", required_argument, NULL, OPT_DATA_DIR},
	{"allow-outside-data", no_argument, NULL, OPT_OUTSIDE},
	{"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"check", no_argument, NULL, OPT_CHECK},
	{"repeat", required_argument, NULL, OPT_REPEAT},
	{"no-cache", no_argument, NULL, OPT_NO_CACHE},
	{"stats", no_argument, NULL, OPT_STATS},
	{"sync", no_argument, NULL, OPT_SYNC},
	{"profile", no_argument, NULL, OPT_PROFILE},
	{"no-keep-constants", no_argument, NULL, OPT_NO_KEEP},
	{"progress", no_argument, NULL, OPT_PROGRESS},
	{"host-copies", no_argument, NULL, OPT_HOST_COPIES},
	{"peer-copies", no_argument, NULL, OPT_PEER_COPIES},
	{0},
};

typedef struct {
	bool interp;
	const char *data_dir;
	bool any_data_path;      /* --allow-outside-data */
	InterpInput *inputs;
	uint32_t ninputs, capinputs;
	uint64_t max_memory;     /* 0: the machine's */
	OclBind *binds;          /* --device */
	uint32_t nbinds;
	bool check, sync, profile;
	uint32_t repeat;         /* --repeat N; 0: once */
	bool no_cache, stats;
	bool no_keep;            /* --no-keep-constants */
	bool progress;           /* --progress */
	bool host_copies;        /* --host-copies */
	bool peer_copies;        /* --peer-copies */
} RunOpts;

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
	case OPT_OUTSIDE:
		ro->any_data_path = true;
		return 0;
	case OPT_MAX_MEMORY:
		return driver_opt_bytes("ir-run", "--max-memory", arg, &ro->max_memory);
	case OPT_CHECK:
		ro->check = true;
		return 0;
	case OPT_NO_CACHE:
		ro->no_cache = true;
		return 0;
	case OPT_STATS:
		ro->stats = true;
		return 0;
	case OPT_SYNC:
		ro->sync = true;
		return 0;
	case OPT_PROFILE:
		ro->profile = true;
		return 0;
	case OPT_NO_KEEP:
		ro->no_keep = true;
		return 0;
	case OPT_PROGRESS:
		ro->progress = true;
		return 0;
	case OPT_HOST_COPIES:
		ro->host_copies = true;
		return 0;
	case OPT_PEER_COPIES:
		ro->peer_copies = true;
		return 0;
	case OPT_REPEAT: {
		uint64_t n;
		if (!driver_parse_count(arg, false, 1, 1000000, &n)) {
			fprintf(stderr, "ir-run: --repeat takes a number of runs from 1 to 1000000, "
			        "not '%s'\n", arg);
			return 2;
		}
		ro->repeat = (uint32_t)n;
		return 0;
	}
	case OPT_DEVICE: {
		/* @DEV=NAME[:N] */
		const char *eq = strchr(arg, '=');
		const char *dev = arg[0] == '@' ? arg + 1 : arg;
		if (!eq || eq == dev || !eq[1] || eq[1] == ':') {
			fprintf(stderr, "ir-run: --device takes @DEV=NAME[:N], not '%s'\n", arg);
			return 2;
		}
		uint32_t index = 0;
		const char *colon = strrchr(eq + 1, ':');
		size_t nlen = strlen(eq + 1);
		if (colon) {
			uint64_t n;
			if (!driver_parse_count(colon + 1, false, 0, UINT32_MAX, &n)) {
				fprintf(stderr, "ir-run: --device takes @DEV=NAME[:N] with N a device number, "
				        "not '%s'\n", arg);
				return 2;
			}
			index = (uint32_t)n;
			nlen = (size_t)(colon - (eq + 1));
		}
		ro->binds = xrealloc(ro->binds, (ro->nbinds + 1) * sizeof *ro->binds);
		char *d = xmalloc((size_t)(eq - dev) + 1), *nm = xmalloc(nlen + 1);
		memcpy(d, dev, (size_t)(eq - dev));
		d[eq - dev] = 0;
		memcpy(nm, eq + 1, nlen);
		nm[nlen] = 0;
		ro->binds[ro->nbinds++] = (OclBind){d, nm, index};
		return 0;
	}
	case OPT_INPUT: {
		const char *eq = strchr(arg, '=');
		const char *name = arg[0] == '%' ? arg + 1 : arg;
		if (!eq || eq == name || !eq[1]) {
			fprintf(stderr, "ir-run: --input takes NAME=FILE.npy, not '%s'\n", arg);
			return 2;
		}
		size_t n = (size_t)(eq - arg);
		char *nm = xmalloc(n + 1);
		memcpy(nm, arg, n);
		nm[n] = 0;
		VEC_PUSH(ro->inputs, ro->ninputs, ro->capinputs) = (InterpInput){nm, eq + 1, NULL};
		return 0;
	}
	}
	return 2;
}

/* Options that belong to one engine: a usage error, before the input is
 * read. */
static int
check_opts(void *st)
{
	const RunOpts *ro = st;
	if (ro->interp && (ro->nbinds || ro->check || ro->no_cache || ro->stats || ro->sync ||
	                   ro->profile || ro->no_keep || ro->progress || ro->host_copies ||
	                   ro->peer_copies)) {
		fprintf(stderr, "ir-run: --%s runs on OpenCL devices; leave out --interp\n",
		        ro->check ? "check" : ro->nbinds ? "device" : ro->no_cache ? "no-cache"
		        : ro->stats ? "stats" : ro->sync ? "sync" : ro->profile ? "profile"
		        : ro->progress ? "progress" : ro->host_copies ? "host-copies"
		        : ro->peer_copies ? "peer-copies" : "no-keep-constants");
		return 2;
	}
	if (ro->host_copies && ro->peer_copies) {
		fprintf(stderr, "ir-run: --host-copies and --peer-copies contradict each other; "
		        "give one\n");
		return 2;
	}
	return 0;
}

/* CPU time of the whole process, every thread (POCL's workers too), in
 * ms: unlike the wall clock, it hardly moves when other processes share
 * the cores, so --repeat's per-run figure can be compared on a loaded
 * machine. */
static double
cpu_ms(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Where -o puts the result of part `part` of --split-input-file: in the
 * folder `dir` (made if missing), N.npy for a tensor, N/ for a tuple;
 * NULL after reporting. */
static char *
part_path(const char *dir, int part, const RtVal *r)
{
	struct stat sb;
	if (stat(dir, &sb) != 0) {
		if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "ir-run: cannot make the directory '%s' for the parts' results: "
			        "%s\n", dir, strerror(errno));
			return NULL;
		}
	} else if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "ir-run: with --split-input-file, -o names a directory for the "
		        "parts' results; '%s' is not one\n", dir);
		return NULL;
	}
	const char *ext = r->type->kind == TY_TENSOR ? ".npy" : "";
	size_t n = strlen(dir) + 16;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%d%s", dir, part, ext);
	return p;
}

static bool
consume(Module *m, const DriverOpts *o, FILE *out, void *st)
{
	RunOpts *ro = st;
	const char *input = o->input, *output = o->output;
	OclRt *rt = NULL;
	if (!ro->interp) {
		OclRtOpts oo = {.binds = ro->binds, .nbinds = ro->nbinds, .check = ro->check,
		                 .no_cache = ro->no_cache, .stats = ro->stats ? stderr : NULL,
		                 .sync = ro->sync, .profile = ro->profile, .progress = ro->progress,
		                 .host_copies = ro->host_copies, .peer_copies = ro->peer_copies};
		if (!(rt = oclrt_new(m, &oo)))
			return false;
	}
	InterpOpts io = {
		.data_dir = ro->data_dir,
		.any_data_path = ro->any_data_path,
		.input_path = input,
		.inputs = ro->inputs,
		.ninputs = ro->ninputs,
		.max_memory = ro->max_memory,
		/* constants kept on the devices for every run, unless told */
		.dev = !rt ? NULL : ro->no_keep ? &oclrt_walk_no_keep : &oclrt_walk,
		.dev_ud = rt,
	};
	/* OpenCL: @main planned once and run as a list of commands where the
	 * executor can plan it; else (ifs, calls, --check, ...) through the
	 * interpreter's walk with the runtime's hooks */
	Exec *x = NULL;
	const char *why = NULL;
	if (rt && ro->check)
		why = "--check compares every call with the interpreter";
	else if (rt && ro->no_keep)
		why = "--no-keep-constants";
	if (rt && !why && exec_plannable(rt, m, &why)) {
		if (!(x = exec_new(rt, m, &io))) {
			oclrt_free(rt);
			return false;
		}
		if (ro->stats)
			exec_stats(x, stderr);
	} else if (rt && ro->stats) {
		fprintf(stderr, "ir-run: @main runs through the interpreter's walk: %s\n", why);
	}
	/* --repeat: one warm-up run, then N timed ones; each a whole run of
	 * @main, results read back included, and inputs read (through the
	 * interpreter's walk) or uploaded (the executor reads them once) */
	uint32_t runs = ro->repeat ? ro->repeat + 1 : 1;
	double *ms = xcalloc(runs, sizeof *ms);
	double cpu0 = 0;
	Interp *in = NULL;
	const RtVal *r = NULL;
	for (uint32_t k = 0; k < runs; k++) {
		double t0 = now_ms();
		if (rt && k == 0)
			oclrt_first_run_begin(rt);
		if (rt)
			oclrt_begin_run(rt);
		if (x) {
			r = exec_run(x);
		} else {
			interp_free(in);
			in = interp_new(m);
			r = interp_run_main(in, &io);
		}
		/* every command finished, the run's device memory freed */
		if (rt && !oclrt_end_run(rt))
			r = NULL;
		if (rt && k == 0)
			oclrt_first_run_end(rt);
		/* the profile leaves the warm-up out */
		if (rt && ro->repeat && k == 0)
			oclrt_profile_reset(rt);
		if (k == 0)
			cpu0 = cpu_ms();
		ms[k] = now_ms() - t0;
		if (!r)
			break;
	}
	bool ok = r != NULL;
	if (ok && ro->repeat) {
		qsort(ms + 1, ro->repeat, sizeof *ms, cmp_double);
		double med = ro->repeat % 2 ? ms[1 + ro->repeat / 2]
		           : (ms[ro->repeat / 2] + ms[1 + ro->repeat / 2]) / 2;
		fprintf(stderr, "ir-run: %u runs, median %.3f ms, min %.3f ms, cpu %.3f ms a run\n",
		        (unsigned)ro->repeat, med, ms[1], (cpu_ms() - cpu0) / ro->repeat);
	}
	free(ms);
	if (ok && rt && ro->check)
		oclrt_check_say(rt, stderr);
	if (ok && rt && ro->profile)
		oclrt_profile_print(rt, stderr);
	char *path = ok && output && o->part >= 0 ? part_path(output, o->part, r) : NULL;
	if (ok && output && o->part >= 0 && !path)
		ok = false;
	if (ok && output) {
		char err[1024];
		ok = result_write(r, path ? path : output, err, sizeof err);
		if (!ok)
			fprintf(stderr, "ir-run: %s\n", err);
	} else if (ok) {
		result_print(out, r);
	}
	free(path);
	interp_free(in);
	exec_free(x);
	oclrt_free(rt);
	return ok;
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-run",
		.summary = "Run @main with inputs and outputs as .npy files",
		.extra_help =
			"      --interp          run on the reference interpreter, not OpenCL\n"
			"      --device=@DEV=NAME[:N]\n"
			"                        run @DEV on the Nth OpenCL device whose platform\n"
			"                        or device name contains NAME\n"
			"      --check           compare every call_lowered with the interpreter\n"
			"      --sync            finish every OpenCL command before the next\n"
			"      --profile         print a table of kernel and copy times on stderr\n"
			"      --repeat=N        run @main N more times; print the median and min\n"
			"      --no-cache        neither read nor write the program binary cache\n"
			"      --no-keep-constants\n"
			"                        read and upload every constant in every run\n"
			"      --stats           print cache hits and workspace reuse to stderr\n"
			"      --host-copies     copy between devices through host memory, even\n"
			"                        between two that are one OpenCL device\n"
			"      --peer-copies     one context for a platform's devices: copy\n"
			"                        between them by copy commands\n"
			"      --progress        say each slow step (a program's build, the first\n"
			"                        run) at once; else only on a terminal, after 1 s\n"
			"      --input=NAME=FILE bind @main's parameter %NAME to the .npy FILE\n"
			"      --data-dir=DIR    where relative constant files are (default: the\n"
			"                        input file's folder, else the current folder)\n"
			"      --allow-outside-data\n"
			"                        read constant files named by absolute paths or\n"
			"                        through '..' (default: refused)\n"
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
		.consume_parts = true,
	};
	RunOpts ro = {0};
	int rc = driver_main(&tool, argc, argv, &ro);
	for (uint32_t i = 0; i < ro.ninputs; i++)
		free((char *)ro.inputs[i].name);
	for (uint32_t i = 0; i < ro.nbinds; i++) {
		free((char *)ro.binds[i].dev);
		free((char *)ro.binds[i].name);
	}
	free(ro.binds);
	free(ro.inputs);
	return rc;
}
