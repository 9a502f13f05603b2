/* driver.c: the shared command line of the ir-* tools (see ir-parse(1)).
 *
 * Unix-filter discipline: a file argument or stdin in, the module on stdout
 * (or -o FILE, written to a temporary beside FILE and renamed over it), and
 * nothing at all on stdout unless the whole run succeeded, so a failing
 * stage never hands half a module to the next one in a pipe.
 *
 * --verify-diagnostics is in verify_diagnostics.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "diag.h"
#include "driver.h"
#include "outfile.h"
#include "verify_diagnostics.h"

/* The inputs we can index: line offsets are 32 bits. */
#define INPUT_MAX ((size_t)UINT32_MAX - 1)

enum {
	OPT_COLOR = 0x10000, OPT_LOCATIONS, OPT_NO_VERIFY, OPT_SPLIT, OPT_VERIFY_DIAGS,
	OPT_KEEP_GOING,
};

static const struct option common_opts[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"output", required_argument, NULL, 'o'},
	{"color", required_argument, NULL, OPT_COLOR},
	{"locations", no_argument, NULL, OPT_LOCATIONS},
	{"no-verify", no_argument, NULL, OPT_NO_VERIFY},
	{"split-input-file", no_argument, NULL, OPT_SPLIT},
	{"verify-diagnostics", no_argument, NULL, OPT_VERIFY_DIAGS},
	{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
};

enum { COLOR_AUTO, COLOR_NEVER, COLOR_ALWAYS };

typedef struct {
	const Tool *tool;
	void *st;
	const char *input;        /* path, or NULL for stdin */
	const char *output;       /* path, or NULL for stdout */
	int color;
	DriverOpts o;
} Args;

/* ------------------------------------------------------------ options */

/* The help of a tool with Tool.load: -o and its own options. */
static void
usage_load(const Tool *t, FILE *f)
{
	fputs(t->input_help ? t->input_help : "", f);
	fputs("\n"
	      "Options:\n"
	      "  -o, --output=FILE     write to FILE, replaced only once the run succeeded\n", f);
	if (t->extra_help)
		fputs(t->extra_help, f);
}

static void
usage(const Tool *t, FILE *f)
{
	const char *s = t->summary ? t->summary : "";
	fprintf(f, "Usage: %s [OPTION]... [FILE]\n", t->name);
	if (*s)
		fprintf(f, "%c%s.\n", toupper((unsigned char)*s), s + 1);
	if (t->load) {
		usage_load(t, f);
		goto end;
	}
	if (t->consume)
		fputs("Reads FILE, or standard input when FILE is - or absent.\n"
		      "\n"
		      "Options:\n", f);
	else
		fputs("Reads FILE, or standard input when FILE is - or absent, and writes the\n"
		      "module to standard output.\n"
		      "\n"
		      "Options:\n", f);
	if (t->extra_help)
		fputs(t->extra_help, f);
	if (!t->consume)
		fputs("  -o, --output=FILE     write to FILE, replaced only once the run succeeded\n"
		      "      --locations       print loc(...) on every line, so later tools report\n"
		      "                        positions in this input\n", f);
	fputs("      --color=WHEN      colour diagnostics: auto (default), always, never\n"
	      "      --no-verify       do not verify the result of the tool's pass\n", f);
	if (!t->consume || t->consume_parts)
		fputs("      --split-input-file\n"
		      "                        process the parts between '// -----' lines as\n"
		      "                        separate modules\n"
		      "      --keep-going      with --split-input-file, write the parts that\n"
		      "                        succeed when others fail\n", f);
	fputs("      --verify-diagnostics\n"
	      "                        check diagnostics against the expected-error,\n"
	      "                        expected-warning and expected-note comments\n", f);
end:
	fputs("  -h, --help            print this help and exit\n"
	      "  -V, --version         print the version and exit\n"
	      "\n", f);
	fprintf(f, "Exit status: 0 on success, 1 if the %s was rejected, 2 on a usage error.\n",
	        t->input_noun ? t->input_noun : "input");
	fprintf(f, "See %s(1).\n", t->name);
}

static int
usage_error(const Tool *t, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", t->name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", t->name);
	return 2;
}

/* Flushes and closes stdout; 0, or 1 after reporting a write error. */
static int
finish_stdout(const Tool *t)
{
	bool bad = fflush(stdout) != 0 || ferror(stdout);
	int err = errno;
	if (fclose(stdout) != 0 && !bad) {
		bad = true;
		err = errno;
	}
	if (!bad)
		return 0;
	fprintf(stderr, "%s: write error: %s\n", t->name, strerror(err ? err : EIO));
	return 1;
}

/* Ours, then the tool's. */
static struct option *
all_options(const Tool *t)
{
	/* a tool with load takes the first three: help, version, output */
	size_t nc = t->load ? 3 : sizeof common_opts / sizeof *common_opts, nt = 0;
	while (t->opts && t->opts[nt].name)
		nt++;
	struct option *o = xcalloc(nc + nt + 1, sizeof *o);
	memcpy(o, common_opts, nc * sizeof *o);
	if (nt)
		memcpy(o + nc, t->opts, nt * sizeof *o);
	return o;
}

/* The message for a long option getopt_long rejected, from its text. */
static int
bad_long_option(const Tool *t, const struct option *lo, const char *arg, bool missing)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	char shown[64];
	snprintf(shown, sizeof shown, "--%.*s", (int)(n < 40 ? n : 40), name);
	const struct option *hit = NULL;
	int prefixes = 0;
	for (const struct option *o = lo; o->name; o++) {
		if (strncmp(o->name, name, n) != 0)
			continue;
		if (!o->name[n]) {
			hit = o;
			prefixes = 1;
			break;
		}
		hit = o;
		prefixes++;
	}
	if (prefixes > 1)
		return usage_error(t, "option '%s' is ambiguous", shown);
	if (!hit)
		return usage_error(t, "unknown option '%s'", shown);
	snprintf(shown, sizeof shown, "--%s", hit->name);
	if (missing || (hit->has_arg == required_argument && !eq))
		return usage_error(t, "option '%s' requires an argument", shown);
	if (hit->has_arg == no_argument && eq)
		return usage_error(t, "option '%s' takes no argument", shown);
	return usage_error(t, "unknown option '%s'", shown);
}

/* -1 to go on, else the exit status. */
static int
parse_args(Args *a, int argc, char **argv)
{
	const Tool *t = a->tool;
	struct option *lo = all_options(t);
	int rc = -1;
	opterr = 0;
	optind = 1;
	for (int c; rc < 0 && (c = getopt_long(argc, argv, ":hVo:", lo, NULL)) != -1;) {
		/* The argument getopt_long just read: a long option, or a
		 * cluster of short ones. */
		const char *prev = argv[optind - 1];
		bool is_long = strncmp(prev, "--", 2) == 0 && prev[2];
		switch (c) {
		case 'h':
			usage(t, stdout);
			rc = finish_stdout(t);
			break;
		case 'V':
			printf("%s (irpipe) %s\n", t->name, IRPIPE_VERSION);
			rc = finish_stdout(t);
			break;
		case 'o':
			if (!*optarg)
				rc = usage_error(t, "empty file name for '%s'", "-o");
			a->output = strcmp(optarg, "-") == 0 ? NULL : optarg;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") == 0)
				a->color = COLOR_AUTO;
			else if (strcmp(optarg, "always") == 0)
				a->color = COLOR_ALWAYS;
			else if (strcmp(optarg, "never") == 0)
				a->color = COLOR_NEVER;
			else
				rc = usage_error(t, "--color takes auto, always or never, not '%s'", optarg);
			break;
		case OPT_LOCATIONS: a->o.print.locations = true; break;
		case OPT_NO_VERIFY: a->o.no_verify = true; break;
		case OPT_SPLIT: a->o.split = true; break;
		case OPT_VERIFY_DIAGS: a->o.verify_diags = true; break;
		case OPT_KEEP_GOING: a->o.keep_going = true; break;
		case ':':
			if (is_long) {
				rc = bad_long_option(t, lo, prev, true);
			} else {
				char s[3] = {'-', (char)optopt, 0};
				rc = usage_error(t, "option '%s' requires an argument", s);
			}
			break;
		case '?':
			/* A bad short option in a cluster may leave prev at the
			 * argument before it: optopt tells (tool codes are >= 256). */
			if (optopt > 0 && optopt < 256 && !strchr("hVo", optopt))
				is_long = false;
			if (is_long) {
				rc = bad_long_option(t, lo, prev, false);
			} else {
				char s[3] = {'-', (char)optopt, 0};
				rc = usage_error(t, isprint(optopt) ? "unknown option '%s'" : "unknown option", s);
			}
			break;
		default:
			if (!t->on_opt) {
				rc = usage_error(t, "unknown option '%s'", prev);
			} else if (t->on_opt(c, optarg, a->st) != 0) {
				fprintf(stderr, "Try '%s --help'.\n", t->name);
				rc = 2;
			}
		}
	}
	free(lo);
	if (rc >= 0)
		return rc;
	if (t->check_opts && t->check_opts(a->st) != 0) {
		fprintf(stderr, "Try '%s --help'.\n", t->name);
		return 2;
	}
	if (a->o.keep_going && !a->o.split)
		return usage_error(t, "%s", "--keep-going goes with --split-input-file");
	if (t->consume && !t->consume_parts && a->o.split)
		return usage_error(t, "%s", "--split-input-file does not apply: this tool runs one module");
	if (optind < argc) {
		a->input = strcmp(argv[optind], "-") == 0 ? NULL : argv[optind];
		optind++;
	}
	if (optind < argc)
		return usage_error(t, "more than one input file: '%s'", argv[optind]);
	return -1;
}

/* auto: stderr is a terminal, TERM is set and not "dumb", and NO_COLOR is
 * unset or empty (https://no-color.org).  --color=always wins over both. */
static bool
want_color(int setting)
{
	if (setting != COLOR_AUTO)
		return setting == COLOR_ALWAYS;
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	return isatty(STDERR_FILENO) && !(nc && *nc) && term && *term && strcmp(term, "dumb") != 0;
}

/* ------------------------------------------------- the tools' numbers */

bool
driver_parse_count(const char *s, bool units, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
			return false;
	if (p == s)
		return false;
	static const char suffixes[] = "KMGT";
	if (*p) {
		const char *u = units ? strchr(suffixes, *p) : NULL;
		if (!u || p[1])
			return false;
		for (const char *k = suffixes; k <= u; k++)
			if (__builtin_mul_overflow(v, 1024, &v))
				return false;
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int
driver_opt_bytes(const char *tool, const char *opt, const char *arg, uint64_t *out)
{
	if (driver_parse_count(arg, true, 1, UINT64_MAX, out))
		return 0;
	fprintf(stderr, "%s: %s takes a number of bytes above 0, with K, M, G or T for KiB, "
	        "MiB, GiB or TiB, not '%s'\n", tool, opt, arg);
	return 2;
}

/* -------------------------------------------------------------- input */

/* The whole of fd, NUL-terminated (the lexer does not rely on it, the
 * line table does not either); NULL with errno set on a read error, EFBIG
 * when it holds more than max bytes. */
static char *
read_all(int fd, size_t max, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0 &&
	    (uintmax_t)sb.st_size < max)
		cap = (size_t)sb.st_size + 1; /* +1: EOF is seen without a realloc */
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			buf = xrealloc(buf, cap *= 2);
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;
			free(buf);
			errno = err;
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

char *
driver_read_input(const char *prog, const char *path, size_t max, size_t *len)
{
	int fd = path ? open(path, O_RDONLY | O_NOCTTY) : STDIN_FILENO;
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
		return NULL;
	}
	char *text = read_all(fd, max, len);
	int err = errno;
	if (path)
		close(fd);
	if (!text) {
		const char *name = path ? path : "<stdin>";
		if (err == EFBIG)
			fprintf(stderr, "%s: '%s' is too large (%zu %s at most)\n", prog, name,
			        max >= (1u << 30) ? (max + (1u << 30) - 1) >> 30 : max,
			        max >= (1u << 30) ? "GiB" : "bytes");
		else
			fprintf(stderr, "%s: cannot read '%s': %s\n", prog, name, strerror(err));
	}
	return text;
}

/* ------------------------------------------------- --split-input-file */

typedef struct {
	size_t begin, end;
	uint32_t line;            /* of begin, in the whole file */
} Chunk;

/* "// -----" alone on a line, trailing blanks allowed. */
static bool
is_separator(const char *s, const char *e)
{
	if (e - s < 8 || memcmp(s, "// -----", 8) != 0)
		return false;
	for (s += 8; s < e; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return false;
	return true;
}

static Chunk *
split_chunks(const char *text, size_t len, bool split, size_t *n)
{
	size_t cap = 0;
	Chunk *c = NULL;
	*n = 0;
	size_t begin = 0;
	uint32_t line = 1, begin_line = 1;
	for (size_t i = 0; split && i < len; line++) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		size_t next = nl ? e + 1 : len;
		if (is_separator(text + i, text + e)) {
			VEC_PUSH(c, *n, cap) = (Chunk){begin, i, begin_line};
			begin = next;
			begin_line = line + 1;
		}
		i = next;
	}
	VEC_PUSH(c, *n, cap) = (Chunk){begin, len, begin_line};
	return c;
}

/* ----------------------------------------------------------- processing */

static bool
has_main(const Module *m)
{
	for (const Func *f = m->funcs; f; f = f->next)
		if (strcmp(f->name, "main") == 0)
			return true;
	return false;
}

/* Parses, runs and verifies one module; NULL after errors. */
static Module *
process(const Tool *t, const DriverOpts *o, Ctx *ctx, uint16_t file, Chunk ch, void *st)
{
	int before = ctx->nerrors;
	const char *step = "parsing";
	Module *m;
	if (t->load) {
		/* it reports its own errors (an ONNX model's have no line) */
		if (!(m = t->load(ctx, o->input, o->output, st)))
			return NULL;
	} else {
		m = ir_parse(ctx, file, ch.begin, ch.end);
	}
	bool ok = m != NULL;
	if (ok && t->needs_main && !has_main(m)) {
		error_at(ctx, (Loc){0}, "no function @main");
		ok = false;
	}
	if (ok && t->run) {
		step = t->name;
		ok = t->run(m, st);
		/* The parser verified the input; what the pass made is checked
		 * here (ir-parse has no pass, so nothing to check again). */
		if (ok && !o->no_verify) {
			step = "verification";
			ok = verify_module(m, !t->keeps_names);
		}
	}
	if (!ok) {
		if (ctx->nerrors == before)
			error_at(ctx, (Loc){0}, "internal error: %s failed without a diagnostic", step);
		module_free(m);
		return NULL;
	}
	return m;
}

bool
driver_process(const Tool *t, const DriverOpts *o, Ctx *ctx, uint16_t file, FILE *out, void *st)
{
	const SrcFile *sf = &ctx->files[file];
	size_t n;
	Chunk *ch = split_chunks(sf->text, sf->len, o->split, &n);
	if (o->verify_diags) {
		size_t len;
		src_line(ctx, file, 1, &len); /* builds the line table verify_diagnostics uses */
	}
	bool ok = true;
	for (size_t i = 0; i < n; i++) {
		/* Each chunk has its own error limit. */
		ctx->nerrors = 0;
		ctx->capture = o->verify_diags;
		ctx_clear_captured(ctx);
		Module *m = process(t, o, ctx, file, ch[i], st);
		bool good = m != NULL;
		if (i && !(t->consume && o->output))
			fputs("// -----\n", out);
		if (good && t->consume) {
			DriverOpts po = *o;
			po.part = o->split ? (int)i : -1;
			good = t->consume(m, &po, out, st);
		}
		if (o->verify_diags)
			good = verify_diagnostics(ctx, file, ch[i].begin, ch[i].end, ch[i].line);
		else if (!good && ((t->consume && o->split) || o->keep_going))
			fprintf(stderr, "%s: %s:%u: part %zu of %zu, from this line, failed\n", t->name,
			        ctx->files[file].name, (unsigned)ch[i].line, i + 1, n);
		if (good && m && !t->consume) {
			if (t->print)
				good = t->print(m, out, st);
			else
				ir_print(m, out, &o->print);
		}
		module_free(m);
		ok &= good;
	}
	ctx->capture = false;
	free(ch);
	return ok;
}

/* ------------------------------------------------------------- output */

typedef struct {
	const char *path;         /* as given; NULL: stdout */
	OutFile file;             /* -o's, unless path is NULL */
	FILE *dest;               /* stdout or file.f */
	FILE *f;                  /* where modules are printed: dest or mem */
	FILE *mem;                /* --split-input-file: all chunks first */
	char *buf;
	size_t len;
} Output;

/* -o FILE: as outfile.h says, replaced once complete. */
static bool
out_open(Output *out, const Tool *t, const char *path, bool buffered)
{
	memset(out, 0, sizeof *out);
	out->path = path;
	out->dest = stdout;
	if (path) {
		int err = outfile_open(&out->file, path);
		if (err) {
			fprintf(stderr, "%s: cannot %s '%s': %s\n", t->name,
			        out->file.direct ? "open" : "create", path, strerror(err));
			return false;
		}
		out->dest = out->file.f;
	}
	out->f = out->dest;
	if (buffered) {
		out->mem = open_memstream(&out->buf, &out->len);
		if (!out->mem) {
			perror(t->name);
			exit(1);
		}
		out->f = out->mem;
	}
	return true;
}

/* Writes the buffered output if ok, closes, commits (or discards) what the
 * tool staged (Tool.commit), renames the temporary over the target if ok,
 * removes it if not.  False after reporting a write error or a failed
 * commit. */
static bool
out_close(Output *out, const Tool *t, bool ok, void *st)
{
	if (out->mem && fclose(out->mem) != 0) {
		perror(t->name);
		exit(1);
	}
	if (!out->path) {
		bool committed = !t->commit || t->commit(ok, st);
		if (out->mem && ok && committed && out->len)
			fwrite(out->buf, 1, out->len, out->dest);
		if (out->mem)
			free(out->buf);
		if (!committed)
			return false;
		return ok ? finish_stdout(t) == 0 : true;
	}
	if (out->mem) {
		if (ok && out->len)
			fwrite(out->buf, 1, out->len, out->dest);
		free(out->buf);
	}
	if (!ok) {
		if (t->commit)
			t->commit(false, st);
		outfile_discard(&out->file);
		return true;
	}
	int err = outfile_finish(&out->file);
	if (err && t->commit)
		t->commit(false, st);
	else if (t->commit && !t->commit(true, st)) {
		outfile_discard(&out->file);
		return false;
	}
	if (!err)
		err = outfile_commit(&out->file);
	if (err) {
		fprintf(stderr, "%s: write error: '%s': %s\n", t->name, out->path, strerror(err));
		outfile_discard(&out->file);
		return false;
	}
	return true;
}

bool
driver_write(const char *prog, Module *m, const char *path,
             bool (*write)(Module *m, FILE *f, void *st), void *st)
{
	if (!path)
		return write(m, stdout, st);
	const Tool t = {.name = prog};
	Output out;
	if (!out_open(&out, &t, path, false))
		return false;
	bool ok = write(m, out.f, st);
	return out_close(&out, &t, ok, NULL) && ok;
}

/* --------------------------------------------------------------- main */

/* Memory a pass frees stays with the process for the next one instead
 * of going back to the system: a tool runs once over one module, and its
 * passes free and allocate large arrays in turn (the planner's groups,
 * components, network and simulations), each page given back faulting
 * in again, zeroed, when the next array takes it.  Arrays of 32 MB or
 * more are still mapped on their own.  On the bench's 1M-binding DAG:
 * ir-plan-devices --minimize-copies 127k -> 106k page faults and about
 * 3% of its CPU time, ir-parse 50.7k -> 46.7k and its time within
 * noise; peak memory 2-7% higher. */
static void
keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT32_MAX);
#endif
}

int
driver_main(const Tool *t, int argc, char **argv, void *st)
{
	keep_freed_memory();
	Args a = {.tool = t, .st = st, .color = COLOR_AUTO};
	int rc = parse_args(&a, argc, argv);
	if (rc >= 0)
		return rc;
	size_t len = 0;
	char *text = NULL;
	if (!t->load && !(text = driver_read_input(t->name, a.input, INPUT_MAX, &len)))
		return 1;
	const char *name = a.input ? a.input : "<stdin>";
	Ctx *ctx = ctx_new(t->name);
	ctx->color = want_color(a.color);
	/* (a tool with load reads its input itself: file 0, no text) */
	uint16_t file = t->load ? 0 : src_add(ctx, name, text, len);
	a.o.input = a.input;
	a.o.output = a.output;
	if (t->consume) {
		/* The tool writes its own output; the parts' text is held until
		 * every part succeeded. */
		Output out = {.f = stdout};
		if (a.o.split && !a.output && !out_open(&out, t, NULL, true))
			return 1;
		bool ok = driver_process(t, &a.o, ctx, file, out.f, st);
		if (out.mem) {
			if (fclose(out.mem) != 0) {
				perror(t->name);
				exit(1);
			}
			if ((ok || a.o.keep_going) && out.len)
				fwrite(out.buf, 1, out.len, stdout);
			free(out.buf);
		}
		ctx_free(ctx);
		if (ok && !a.output)
			ok = finish_stdout(t) == 0;
		return ok ? 0 : 1;
	}
	Output out;
	/* without -o, the files a tool staged are committed before the module
	 * goes out, so that a failed commit leaves stdout empty */
	bool ok = out_open(&out, t, a.output, a.o.split || (t->commit && !a.output));
	if (ok) {
		ok = driver_process(t, &a.o, ctx, file, out.f, st);
		/* --keep-going: the parts that succeeded are written all the same */
		ok = out_close(&out, t, ok || a.o.keep_going, st) && ok;
	}
	ctx_free(ctx);
	return ok ? 0 : 1;
}
