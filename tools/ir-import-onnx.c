/* ir-import-onnx: an ONNX model in, one module of the IR out (see
 * ir-import-onnx(1)).
 *
 * The importer (lib/onnx/) writes the module as text; this tool parses and
 * verifies that text with the library, as any tool reads its input, and
 * prints it canonically.  Nothing is written unless everything succeeded:
 * the .npy files of the constants and the module are all written to
 * temporaries, then the files renamed over their targets, then the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"
#include "onnx/onnx_import.h"
#include "outfile.h"

#define PROG "ir-import-onnx"
/* Constants of at most this many elements are written inline. */
#define INLINE_MAX 16
/* protobuf's own limit on a message */
#define INPUT_MAX ((size_t)1 << 31)

/* The model's bytes.  A regular file is mapped, not read: the importer
 * copies each weight out of the mapping and gives its pages back (see
 * OnnxOpts.mapped), so the weights are held once, not as the file, its
 * unpacked copy and the tensors; a pipe is read whole. */
static uint8_t *
model_bytes(const char *path, size_t *len, bool *mapped)
{
	*mapped = false;
	int fd = path ? open(path, O_RDONLY | O_NOCTTY) : -1;
	struct stat sb;
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
	    (uint64_t)sb.st_size <= INPUT_MAX) {
		void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			*len = (size_t)sb.st_size;
			*mapped = true;
			return p;
		}
	}
	if (fd >= 0)
		close(fd);
	/* (and what cannot be mapped: the messages of a read) */
	return (uint8_t *)driver_read_input(PROG, path, INPUT_MAX, len);
}

enum { OPT_DATA_DIR = 0x100, OPT_DEVICE, OPT_SHAPE, OPT_STATS };

static const struct option opts[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"output", required_argument, NULL, 'o'},
	{"data-dir", required_argument, NULL, OPT_DATA_DIR},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"shape", required_argument, NULL, OPT_SHAPE},
	{"stats", no_argument, NULL, OPT_STATS},
	{0},
};

static void
usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTION]... [FILE]\n"
	      "Import an ONNX model as a module of the irpipe IR.\n"
	      "Reads FILE, or standard input when FILE is - or absent, and writes the\n"
	      "module to standard output, its large constants as .npy files.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output=FILE     write to FILE, replaced only once the run succeeded\n"
	      "      --data-dir=DIR    where the .npy files go (default: the folder of -o,\n"
	      "                        else the current folder)\n"
	      "      --device=DECL     a declaration for the module: a device, such as\n"
	      "                        'gpu(0) {texture=true}' (named @gpu) or\n"
	      "                        '@g = gpu(0) {texture=true}', or 'host @cpu',\n"
	      "                        'default @gpu' (repeatable; default:\n"
	      "                        device @cpu = cpu(0))\n"
	      "      --shape=NAME=D,D,...\n"
	      "                        the shape of graph input NAME (repeatable), for\n"
	      "                        inputs with dynamic dimensions\n"
	      "      --stats           print the op types, their support, the inputs' and\n"
	      "                        outputs' IR names and the constants to stderr\n"
	      "  -h, --help            print this help and exit\n"
	      "  -V, --version         print the version and exit\n"
	      "\n"
	      "Exit status: 0 on success, 1 if the model was rejected, 2 on a usage error.\n"
	      "See " PROG "(1).\n", f);
}

static int
usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help'.\n");
	return 2;
}

static int
finish_stdout(void)
{
	bool bad = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;
	if (fclose(stdout) != 0 && !bad) {
		bad = true;
		err = errno;
	}
	if (!bad)
		return 0;
	fprintf(stderr, PROG ": write error: %s\n", strerror(err ? err : EIO));
	return 1;
}

/* NAME=D,D,... into s; false if malformed. */
static bool
parse_shape(const char *arg, OnnxShape *s)
{
	const char *eq = strrchr(arg, '=');
	if (!eq || eq == arg)
		return false;
	size_t n = (size_t)(eq - arg);
	char *name = xmalloc(n + 1);
	memcpy(name, arg, n);
	name[n] = 0;
	s->name = name;
	s->rank = 0;
	const char *p = eq + 1;
	if (!*p)
		return true;   /* a scalar */
	for (;;) {
		if (*p < '0' || *p > '9' || s->rank >= IR_MAX_RANK)
			return false;
		char *end;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (errno || v < 0 || v > ((long long)1 << 40))
			return false;
		s->dims[s->rank++] = v;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		p = end + 1;
	}
}

/* The name a bare device ("gpu(0) {texture=true}") gets: its kind, and
 * its index when that is not 0 (@gpu, @gpu1); NULL when text does not
 * start with a device kind and '('. */
static const char *
bare_device_name(const char *text, char *buf, size_t size)
{
	static const char *const kinds[] = {"cpu", "gpu", "accel"};
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		size_t n = strlen(kinds[k]);
		if (strncmp(text, kinds[k], n) != 0 || text[n] != '(')
			continue;
		const char *d = text + n + 1;
		size_t nd = strspn(d, "0123456789");
		if (nd == 0 || nd > 9 || d[nd] != ')' || d[0] == '0')
			nd = 0; /* index 0, or not a plain one: the parser says */
		snprintf(buf, size, "%s%.*s", kinds[k], (int)nd, d);
		return buf;
	}
	return NULL;
}

/* The --device texts, one line each, parsed together as the file
 * "--device", so a mistake is reported at its line: the Nth --device.  A
 * text is a declaration as in a module ("device @gpu = gpu(0)", "host
 * @cpu", "default @gpu", "pool ..."), or a device's without the keyword
 * ("@gpu = gpu(0) {texture=true}"), or a bare device ("gpu(0)
 * {texture=true}"), which is named after its kind (@gpu; @gpu1 for
 * gpu(1)). */
static bool
check_devices(char **dev, bool *owned, size_t n)
{
	if (!n)
		return true;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		owned[i] = true;
		char name[32];
		const char *bare = bare_device_name(dev[i], name, sizeof name);
		if (dev[i][0] == '@' || bare) {
			size_t l = strlen(dev[i]) + sizeof name + 16;
			char *s = xmalloc(l);
			if (bare)
				snprintf(s, l, "device @%s = %s", bare, dev[i]);
			else
				snprintf(s, l, "device %s", dev[i]);
			dev[i] = s;
		} else {
			dev[i] = strcpy(xmalloc(strlen(dev[i]) + 1), dev[i]);
		}
		if (strpbrk(dev[i], "\n\r")) {
			fprintf(stderr, PROG ": --device '%s' holds more than one line\n", dev[i]);
			return false;
		}
		total += strlen(dev[i]) + 1;
	}
	char *text = xmalloc(total + 1), *p = text;
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s\n", dev[i]);
	Ctx *ctx = ctx_new(PROG);
	uint16_t f = src_add(ctx, "--device", text, total);
	Module *m = ir_parse(ctx, f, 0, total);
	bool ok = m != NULL;
	if (m && (m->funcs || m->prims || m->programs)) {
		fprintf(stderr, PROG ": --device takes declarations, not functions, prims or "
		        "programs\n");
		ok = false;
	}
	if (!ok)
		fprintf(stderr, PROG ": note: --device takes one declaration, such as "
		        "'gpu(0) {texture=true}' (a device named @gpu), '@gpu = gpu(0) "
		        "{texture=true}', 'host @cpu' or 'default @gpu'\n");
	module_free(m);
	ctx_free(ctx);
	return ok;
}

int
main(int argc, char **argv)
{
	const char *output = NULL, *data_dir = NULL, *input = NULL;
	char **devices = xcalloc((size_t)argc + 1, sizeof *devices);
	bool *owned = xcalloc((size_t)argc + 1, sizeof *owned);
	OnnxShape *shapes = xcalloc((size_t)argc + 1, sizeof *shapes);
	size_t ndev = 0, nshape = 0;
	bool stats = false;
	int rc = -1;
	opterr = 0;
	for (int c; rc < 0 && (c = getopt_long(argc, argv, ":hVo:", opts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			usage(stdout);
			rc = finish_stdout();
			break;
		case 'V':
			printf(PROG " (irpipe) %s\n", IRPIPE_VERSION);
			rc = finish_stdout();
			break;
		case 'o':
			if (!*optarg)
				rc = usage_error("empty file name for '%s'", "-o");
			output = strcmp(optarg, "-") == 0 ? NULL : optarg;
			break;
		case OPT_DATA_DIR:
			if (!*optarg)
				rc = usage_error("empty folder name for '%s'", "--data-dir");
			data_dir = optarg;
			break;
		case OPT_DEVICE:
			devices[ndev++] = optarg;
			break;
		case OPT_SHAPE:
			if (!parse_shape(optarg, &shapes[nshape++]))
				rc = usage_error("--shape takes NAME=D,D,... (sizes from 0), not '%s'",
				                 optarg);
			for (size_t i = 0; rc < 0 && i + 1 < nshape; i++)
				if (strcmp(shapes[i].name, shapes[nshape - 1].name) == 0)
					rc = usage_error("--shape gives '%s' twice", shapes[i].name);
			break;
		case OPT_STATS:
			stats = true;
			break;
		case ':':
			rc = usage_error("option '%s' requires an argument", argv[optind - 1]);
			break;
		default:
			rc = usage_error("unknown option '%s'", argv[optind - 1]);
			break;
		}
	}
	if (rc < 0 && optind < argc) {
		input = strcmp(argv[optind], "-") == 0 ? NULL : argv[optind];
		if (++optind < argc)
			rc = usage_error("more than one input file: '%s'", argv[optind]);
	}
	if (rc < 0 && !check_devices(devices, owned, ndev))
		rc = 1;
	if (rc >= 0)
		goto done;

	const char *name = input ? input : "<stdin>";
	size_t len = 0;
	bool mapped;
	uint8_t *buf = model_bytes(input, &len, &mapped);
	if (!buf) {
		rc = 1;
		goto done;
	}
	OnnxOpts o = {
		.path = name, .devices = (const char *const *)devices, .ndevices = ndev,
		.shapes = shapes, .nshapes = nshape, .stats = stats ? stderr : NULL,
		.inline_max = INLINE_MAX, .mapped = mapped,
	};
	OnnxModule *om = onnx_import(buf, len, &o);
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	if (!om) {
		rc = 1;
		goto done;
	}

	/* the module back through the parser and verifier */
	size_t tl;
	const char *text = onnx_module_text(om, &tl);
	Ctx *ctx = ctx_new(PROG);
	uint16_t f = src_add(ctx, "<ir-import-onnx>", memcpy(xmalloc(tl + 1), text, tl + 1), tl);
	Module *m = ir_parse(ctx, f, 0, tl);
	rc = 1;
	if (!m) {
		fprintf(stderr, "%s: error: internal: the module made of it does not verify\n", name);
	} else {
		/* the data first, then the module that names it */
		char *mod;
		size_t ml;
		FILE *mf = open_memstream(&mod, &ml);
		if (!mf)
			die_oom();
		PrintOpts po = {.locations = false};
		ir_print(m, mf, &po);
		if (fclose(mf) != 0)
			die_oom();
		char dir[4096], msg[512];
		if (!data_dir && output && strrchr(output, '/')) {
			size_t dl = (size_t)(strrchr(output, '/') - output);
			snprintf(dir, sizeof dir, "%.*s", (int)(dl ? dl : 1), output);
			data_dir = dir;
		}
		/* every file staged, then the data committed, then the module:
		 * a failure before the commits changes none of the user's files */
		OutFile of = {0};
		OutGroup data = {0};
		int e = output ? outfile_open(&of, output) : 0;
		if (e) {
			fprintf(stderr, PROG ": cannot %s '%s': %s\n", of.direct ? "open" : "create",
			        output, strerror(e));
		} else if (!onnx_stage_data(om, data_dir, &data, msg, sizeof msg)) {
			fprintf(stderr, PROG ": cannot write %s\n", msg);
		} else if (output && (fwrite(mod, 1, ml, of.f), (e = outfile_finish(&of)))) {
			fprintf(stderr, PROG ": write error: '%s': %s\n", output, strerror(e));
		} else if ((e = outgroup_commit(&data, msg, sizeof msg))) {
			fprintf(stderr, PROG ": cannot write '%s': %s\n", msg, strerror(e));
		} else if (output && (e = outfile_commit(&of))) {
			fprintf(stderr, PROG ": write error: '%s': %s\n", output, strerror(e));
		} else {
			rc = 0;
			if (!output) {
				fwrite(mod, 1, ml, stdout);
				rc = finish_stdout();
			}
		}
		if (rc) {
			/* (what was committed already is freed, nothing else) */
			outgroup_discard(&data);
			if (output)
				outfile_discard(&of);
		}
		free(mod);
	}
	module_free(m);
	ctx_free(ctx);
	onnx_module_free(om);
done:
	for (size_t i = 0; i < nshape; i++)
		free((char *)shapes[i].name);
	for (size_t i = 0; i < ndev; i++)
		if (owned[i])
			free(devices[i]);
	free(owned);
	free(shapes);
	free(devices);
	return rc;
}
