/* ir-import-onnx: an ONNX model in, one module of the IR out (see
 * ir-import-onnx(1)).
 *
 * The shared command line (tools/driver.c) with a Tool.load of its own:
 * the input is a model, not IR text.  The importer (lib/onnx/) builds the
 * module and verifies it; the driver prints it canonically.
 * Nothing is written unless everything succeeded: the .npy files of the
 * constants are staged (written to temporaries) by load and committed by
 * the driver (Tool.commit) just before the module.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "tensor/data_path.h"

#define PROG "ir-import-onnx"
/* Constants of at most this many elements are written inline. */
#define INLINE_MAX 16
/* protobuf's own limit on a message */
#define INPUT_MAX ((size_t)1 << 31)

/* The options, and the .npy files staged until the module is written. */
typedef struct {
	const char *data_dir;
	char **devices;           /* --device, as given; made declarations by
	                           * check_devices (then malloc'd) */
	size_t ndevices;
	bool devices_owned;
	OnnxShape *shapes;        /* --shape (names malloc'd) */
	size_t nshapes;
	bool stats;
	OnnxModule *om;           /* the import: it outlives its module */
	OutGroup data;
} State;

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

/* ------------------------------------------------------------ options */

enum { OPT_DATA_DIR = 0x100, OPT_DEVICE, OPT_SHAPE, OPT_STATS };

static const struct option opts[] = {
	{"data-dir", required_argument, NULL, OPT_DATA_DIR},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"shape", required_argument, NULL, OPT_SHAPE},
	{"stats", no_argument, NULL, OPT_STATS},
	{0},
};

static const char extra_help[] =
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
	"                        outputs' IR names and the constants to stderr\n";

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

static int
on_opt(int code, const char *arg, void *st)
{
	State *s = st;
	switch (code) {
	case OPT_DATA_DIR:
		if (!*arg) {
			fprintf(stderr, PROG ": empty folder name for '--data-dir'\n");
			return 2;
		}
		s->data_dir = arg;
		return 0;
	case OPT_DEVICE:
		s->devices = xrealloc(s->devices, (s->ndevices + 1) * sizeof *s->devices);
		s->devices[s->ndevices++] = (char *)arg;
		return 0;
	case OPT_SHAPE: {
		s->shapes = xrealloc(s->shapes, (s->nshapes + 1) * sizeof *s->shapes);
		OnnxShape *sh = &s->shapes[s->nshapes++];
		*sh = (OnnxShape){0};
		if (!parse_shape(arg, sh)) {
			fprintf(stderr, PROG ": --shape takes NAME=D,D,... (sizes from 0), not '%s'\n",
			        arg);
			return 2;
		}
		for (size_t i = 0; i + 1 < s->nshapes; i++)
			if (strcmp(s->shapes[i].name, sh->name) == 0) {
				fprintf(stderr, PROG ": --shape gives '%s' twice\n", sh->name);
				return 2;
			}
		return 0;
	}
	case OPT_STATS:
		s->stats = true;
		return 0;
	}
	return 2;
}

/* ------------------------------------------------------------ --device */

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
 * gpu(1)).  Every text is replaced by a malloc'd declaration. */
static bool
check_devices(char **dev, size_t n)
{
	if (!n)
		return true;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
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
	}
	for (size_t i = 0; i < n; i++) {
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

/* ------------------------------------------------------------ the import */

/* The data goes to --data-dir, else to the folder of -o. */
static bool
stage_data(State *s, const OnnxModule *om, const char *output)
{
	char msg[512];
	char *beside = s->data_dir ? NULL : data_path_folder(output);
	bool ok = onnx_stage_data(om, s->data_dir ? s->data_dir : beside, &s->data, msg, sizeof msg);
	free(beside);
	if (!ok)
		fprintf(stderr, PROG ": cannot write %s\n", msg);
	return ok;
}

/* Tool.load: the model imported, its module built and verified, its
 * .npy files staged. */
static Module *
load(Ctx *ctx, const char *input, const char *output, void *st)
{
	(void)ctx;  /* the module has the importer's, its messages the model's name */
	State *s = st;
	s->devices_owned = true;
	if (!check_devices(s->devices, s->ndevices))
		return NULL;
	const char *name = input ? input : "<stdin>";
	size_t len = 0;
	bool mapped;
	uint8_t *buf = model_bytes(input, &len, &mapped);
	if (!buf)
		return NULL;
	/* external data files are named relative to the model's folder */
	char *dir = input ? data_path_folder(input) : NULL;
	OnnxOpts o = {
		.path = name, .dir = dir ? dir : input ? "." : NULL, .devices = (const char *const *)s->devices, .ndevices = s->ndevices,
		.shapes = s->shapes, .nshapes = s->nshapes, .stats = s->stats ? stderr : NULL,
		.inline_max = INLINE_MAX, .mapped = mapped,
	};
	s->om = onnx_import(buf, len, &o);
	free(dir);
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
	if (!s->om || !stage_data(s, s->om, output))
		return NULL;
	return onnx_module_take(s->om);
}

/* Tool.commit: the data, just before the module that names it. */
static bool
commit(bool ok, void *st)
{
	State *s = st;
	char msg[512];
	int e;
	if (ok && (e = outgroup_commit(&s->data, msg, sizeof msg))) {
		fprintf(stderr, PROG ": cannot write '%s': %s\n", msg, strerror(e));
		ok = false;
	}
	if (!ok)
		outgroup_discard(&s->data);  /* (what was committed already is kept) */
	return ok;
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = PROG,
		.summary = "import an ONNX model as a module of the irpipe IR",
		.input_help = "Reads FILE, or standard input when FILE is - or absent, and writes the\n"
		              "module to standard output, its large constants as .npy files.\n",
		.input_noun = "model",
		.extra_help = extra_help,
		.opts = opts,
		.on_opt = on_opt,
		.load = load,
		.commit = commit,
	};
	State s = {0};
	int rc = driver_main(&tool, argc, argv, &s);
	onnx_module_free(s.om);
	for (size_t i = 0; i < s.nshapes; i++)
		free((char *)s.shapes[i].name);
	for (size_t i = 0; s.devices_owned && i < s.ndevices; i++)
		free(s.devices[i]);
	free(s.shapes);
	free(s.devices);
	return rc;
}
