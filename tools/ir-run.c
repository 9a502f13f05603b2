/* ir-run: run @main of a module, with inputs and outputs as .npy files
 * (see ir-run(1)).  For now the reference interpreter (--interp) is the
 * one engine; OpenCL execution comes with ir-codegen-ocl. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"
#include "ref/interp.h"
#include "ref/npy.h"

enum { OPT_INTERP = 1000, OPT_INPUT, OPT_DATA_DIR };

static const struct option opts[] = {
	{"interp", no_argument, NULL, OPT_INTERP},
	{"input", required_argument, NULL, OPT_INPUT},
	{"data-dir", required_argument, NULL, OPT_DATA_DIR},
	{0},
};

typedef struct {
	bool interp;
	const char *data_dir;
	InterpInput *inputs;
	uint32_t ninputs;
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

/* ------------------------------------------------------------ output */

/* The shortest decimal that reads back to v in element kind k, with a '.'
 * or an exponent so it reads as a float. */
static void
print_float(FILE *f, ElemKind k, double v)
{
	if (isnan(v) || isinf(v) || k == ET_F64) {
		ir_print_double(f, v);
		return;
	}
	char buf[64];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		double back = strtod(buf, NULL);
		double rounded = k == ET_F16 ? f16_to_double(f16_from_double(back)) : (double)(float)back;
		if (rounded == v)
			break;
	}
	fputs(buf, f);
	if (!strpbrk(buf, ".en"))
		fputs(".0", f);
}

/* One line: "f32[2,2] [1.0, 2.0, 3.0, 4.0]", the form of a constant. */
static void
print_tensor(FILE *f, const Tensor *t)
{
	fprintf(f, "%s[", elem_name(t->kind));
	for (uint32_t i = 0; i < t->rank; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)t->dims[i]);
	fputs("] [", f);
	for (int64_t i = 0; i < t->numel; i++) {
		if (i)
			fputs(", ", f);
		if (elem_is_float(t->kind))
			print_float(f, t->kind, tensor_get(t, i));
		else if (t->kind == ET_BOOL)
			fputs(tensor_get_int(t, i) ? "true" : "false", f);
		else if (t->kind == ET_U64)
			fprintf(f, "%llu", (unsigned long long)tensor_get_int(t, i));
		else
			fprintf(f, "%lld", (long long)tensor_get_int(t, i));
	}
	fputs("]\n", f);
}

/* Tuples nest only as deep as their types, which the parser caps. */
static void
print_value(FILE *f, const RtVal *r, char *path, size_t len, size_t cap)
{
	if (r->type->kind == TY_TENSOR) {
		if (len)
			fprintf(f, "%.*s: ", (int)len, path);
		print_tensor(f, r->t);
		return;
	}
	for (uint32_t i = 0; i < r->n; i++) {
		int k = snprintf(path + len, cap - len, "%s%u", len ? "." : "", (unsigned)i);
		size_t nl = k > 0 && (size_t)k < cap - len ? len + (size_t)k : len;
		print_value(f, r->fields[i], path, nl, cap);
	}
}

/* A tuple's elements as DIR/0.npy, DIR/1.npy; a nested tuple's as
 * DIR/1.0.npy.  The directory is made if it does not exist. */
static bool
write_tuple(const RtVal *r, const char *dir, char *name, size_t len, size_t cap)
{
	if (r->type->kind == TY_TENSOR) {
		size_t dn = strlen(dir);
		char *path = xmalloc(dn + len + 6);
		sprintf(path, "%s/%.*s.npy", dir, (int)len, name);
		char err[512];
		bool ok = npy_write(path, r->t, err, sizeof err);
		if (!ok)
			fprintf(stderr, "ir-run: cannot write the output: %s\n", err);
		free(path);
		return ok;
	}
	for (uint32_t i = 0; i < r->n; i++) {
		int k = snprintf(name + len, cap - len, "%s%u", len ? "." : "", (unsigned)i);
		size_t nl = k > 0 && (size_t)k < cap - len ? len + (size_t)k : len;
		if (!write_tuple(r->fields[i], dir, name, nl, cap))
			return false;
	}
	return true;
}

static bool
write_result(const RtVal *r, const char *out)
{
	if (!out) {
		char path[1024];
		print_value(stdout, r, path, 0, sizeof path);
		return true;
	}
	struct stat sb;
	if (r->type->kind == TY_TENSOR) {
		if (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "ir-run: '%s' is a directory; @main returns one tensor, "
			        "written to a .npy file\n", out);
			return false;
		}
		char err[512];
		if (!npy_write(out, r->t, err, sizeof err)) {
			fprintf(stderr, "ir-run: cannot write the output: %s\n", err);
			return false;
		}
		return true;
	}
	if (stat(out, &sb) != 0) {
		if (mkdir(out, 0777) != 0) {
			fprintf(stderr, "ir-run: cannot make the directory '%s' for the outputs: %s\n",
			        out, strerror(errno));
			return false;
		}
	} else if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "ir-run: @main returns a tuple, written one file per element "
		        "to a directory; '%s' is not one\n", out);
		return false;
	}
	char name[1024];
	return write_tuple(r, out, name, 0, sizeof name);
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
	};
	const RtVal *r = interp_run_main(in, &io);
	bool ok = r && write_result(r, output);
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
			"  -o, --output=PATH     write the result to PATH (a .npy file; a folder\n"
			"                        of 0.npy, 1.npy, ... for a tuple); without it,\n"
			"                        print the result as text\n",
		.opts = opts,
		.on_opt = on_opt,
		.needs_main = true,
		.consume = consume,
	};
	RunOpts ro = {0};
	int rc = 0;
	/* Options are checked before the input is read: without --interp
	 * there is nothing to run on yet. */
	bool interp = false, info = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		size_t n = strlen(argv[i]);
		interp |= n >= 5 && strncmp(argv[i], "--interp", n) == 0; /* getopt's abbreviations */
		info |= strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
		        strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0;
	}
	if (!interp && !info) {
		fprintf(stderr, "ir-run: running on OpenCL devices needs ir-codegen-ocl, "
		        "not built yet; use --interp\nTry 'ir-run --help'.\n");
		return 2;
	}
	rc = driver_main(&tool, argc, argv, &ro);
	for (uint32_t i = 0; i < ro.ninputs; i++)
		free((char *)ro.inputs[i].name);
	free(ro.inputs);
	return rc;
}
