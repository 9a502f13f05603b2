/* driver.c: the shared command line of the ir-* tools.
 *
 * Unix-filter discipline: a file argument or stdin in, the module on stdout
 * (or -o FILE, written to a temporary and renamed), and nothing at all on
 * stdout unless the whole run succeeded, so a failing stage never hands
 * half a module to the next one in a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"

#ifndef IRPIPE_VERSION
#define IRPIPE_VERSION "0.1.0"
#endif

enum {
	OPT_COLOR = 256, OPT_LOCATIONS, OPT_NO_VERIFY, OPT_SPLIT, OPT_VERIFY_DIAG,
};

typedef struct {
	const Tool *tool;
	void *st;
	Ctx *ctx;
	const char *input;        /* path, or NULL for stdin */
	const char *output;       /* path, or NULL for stdout */
	int color;                /* -1 auto, 0 never, 1 always */
	bool split, verify_diag, no_verify;
	PrintOpts popts;
} Driver;

static void
usage(const Tool *t, FILE *f)
{
	fprintf(f,
		"Usage: %s [OPTION]... [FILE]\n"
		"%s.\n"
		"Reads FILE (or standard input, also as -) and writes the module to standard output.\n"
		"\n"
		"  -o, --output=FILE         write to FILE (atomically) instead of standard output\n"
		"      --locations           print loc(...) on every line, so later tools report\n"
		"                            positions in this input\n"
		"      --split-input-file    treat '// -----' lines as separating modules\n"
		"      --verify-diagnostics  check diagnostics against expected-error comments\n"
		"      --no-verify           do not verify the module before printing it\n"
		"      --color=WHEN          colour diagnostics: auto (default), always, never\n"
		"%s"
		"  -h, --help                print this help and exit\n"
		"  -V, --version             print the version and exit\n"
		"\n"
		"Exit status: 0 success, 1 the input was rejected, 2 usage error.\n",
		t->name, t->summary, t->extra_help ? t->extra_help : "");
}

static int
usage_error(const Tool *t, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", t->name);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", t->name);
	return 2;
}

/* Builds the long option table: ours, then the tool's. */
static struct option *
all_options(const Tool *t)
{
	static const struct option common[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"output", required_argument, NULL, 'o'},
		{"color", required_argument, NULL, OPT_COLOR},
		{"locations", no_argument, NULL, OPT_LOCATIONS},
		{"no-verify", no_argument, NULL, OPT_NO_VERIFY},
		{"split-input-file", no_argument, NULL, OPT_SPLIT},
		{"verify-diagnostics", no_argument, NULL, OPT_VERIFY_DIAG},
	};
	size_t nc = sizeof common / sizeof *common, nt = 0;
	while (t->opts && t->opts[nt].name)
		nt++;
	struct option *o = xcalloc(nc + nt + 1, sizeof *o);
	memcpy(o, common, sizeof common);
	if (nt)
		memcpy(o + nc, t->opts, nt * sizeof *o);
	return o;
}

static int
parse_args(Driver *d, int argc, char **argv)
{
	const Tool *t = d->tool;
	struct option *longopts = all_options(t);
	int rc = -1;
	opterr = 0;
	for (int c; rc < 0 && (c = getopt_long(argc, argv, ":hVo:", longopts, NULL)) != -1;) {
		switch (c) {
		case 'h':
			usage(t, stdout);
			rc = fflush(stdout) == 0 ? 0 : 1;
			break;
		case 'V':
			printf("%s (irpipe) %s\n", t->name, IRPIPE_VERSION);
			rc = fflush(stdout) == 0 ? 0 : 1;
			break;
		case 'o':
			d->output = strcmp(optarg, "-") == 0 ? NULL : optarg;
			break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") == 0)
				d->color = -1;
			else if (strcmp(optarg, "always") == 0)
				d->color = 1;
			else if (strcmp(optarg, "never") == 0)
				d->color = 0;
			else
				rc = usage_error(t, "--color takes auto, always or never, not '%s'", optarg);
			break;
		case OPT_LOCATIONS: d->popts.locations = true; break;
		case OPT_NO_VERIFY: d->no_verify = true; break;
		case OPT_SPLIT: d->split = true; break;
		case OPT_VERIFY_DIAG: d->verify_diag = true; break;
		case ':':
			rc = usage_error(t, "option '%s' needs an argument", argv[optind - 1]);
			break;
		case '?':
			if (optopt) {
				char s[3] = {'-', (char)optopt, 0};
				rc = usage_error(t, "unknown option '%s'", s);
			} else {
				rc = usage_error(t, "unknown option '%s'", argv[optind - 1]);
			}
			break;
		default:
			if (t->on_opt && t->on_opt(c, optarg, d->st) != 0) {
				fprintf(stderr, "Try '%s --help'.\n", t->name);
				rc = 2;
			}
		}
	}
	free(longopts);
	if (rc >= 0)
		return rc;
	if (optind < argc) {
		d->input = strcmp(argv[optind], "-") == 0 ? NULL : argv[optind];
		optind++;
	}
	if (optind < argc)
		return usage_error(t, "more than one input file ('%s')", argv[optind]);
	return -1;
}

static bool
color_wanted(int setting)
{
	if (setting >= 0)
		return setting == 1;
	const char *nc = getenv("NO_COLOR");
	const char *term = getenv("TERM");
	return isatty(STDERR_FILENO) && !(nc && *nc) && !(term && strcmp(term, "dumb") == 0);
}

/* The whole input, NUL-terminated (the lexer does not rely on it). */
static char *
read_all(FILE *in, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	struct stat sb;
	if (fstat(fileno(in), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
		cap = (size_t)sb.st_size + 1;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		size_t got = fread(buf + n, 1, cap - n - 1, in);
		if (got == 0)
			break;
		n += got;
	}
	if (ferror(in)) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* ------------------------------------------------- --split-input-file */

typedef struct {
	size_t begin, end;
} Chunk;

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
	Chunk *c = xmalloc(sizeof *c);
	size_t cap = 1;
	*n = 0;
	size_t begin = 0;
	for (size_t i = 0; split && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		if (is_separator(text + i, text + e)) {
			if (*n == cap)
				c = xrealloc(c, (cap *= 2) * sizeof *c);
			c[(*n)++] = (Chunk){begin, i};
			begin = nl ? e + 1 : len;
		}
		i = nl ? e + 1 : len;
	}
	if (*n == cap)
		c = xrealloc(c, (cap + 1) * sizeof *c);
	c[(*n)++] = (Chunk){begin, len};
	return c;
}

/* --------------------------------------------- --verify-diagnostics */

typedef struct {
	Severity sev;
	uint32_t line;        /* the line it is about */
	Loc at;               /* the comment, for reporting */
	const char *msg;
	size_t len;
	bool matched;
} Expect;

static const char *
find_mem(const char *s, const char *e, const char *needle)
{
	size_t n = strlen(needle);
	for (; s + n <= e; s++)
		if (memcmp(s, needle, n) == 0)
			return s;
	return NULL;
}

/* Reads `// expected-error[@+N|@-N] {{text}}` comments of a chunk. */
static Expect *
read_expects(Ctx *ctx, uint16_t file, const char *text, Chunk ch, size_t *n, bool *ok)
{
	static const struct { const char *word; Severity sev; } kinds[] = {
		{"expected-error", SEV_ERROR}, {"expected-warning", SEV_WARNING},
		{"expected-note", SEV_NOTE},
	};
	Expect *ex = NULL;
	size_t cap = 0;
	*n = 0;
	uint32_t line = 1;
	for (size_t i = 0; i < ch.begin; i++)
		line += text[i] == '\n';
	for (size_t i = ch.begin; i < ch.end; line++) {
		const char *s = text + i, *end = text + ch.end;
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		i = (size_t)(e - text) + 1;
		const char *cm = find_mem(s, e, "//");
		for (size_t k = 0; cm && k < sizeof kinds / sizeof *kinds; k++) {
			const char *w = find_mem(cm, e, kinds[k].word);
			if (!w)
				continue;
			Loc at = {line, (uint16_t)(w - s + 1), file};
			const char *p = w + strlen(kinds[k].word);
			int64_t target = line;
			if (p < e && *p == '@') {
				char *q;
				long off = strtol(p + 1, &q, 10);
				if (q == p + 1 || (p[1] != '+' && p[1] != '-')) {
					error_at(ctx, at, "expected @+N or @-N after '%s'", kinds[k].word);
					*ok = false;
					break;
				}
				target += off;
				p = q;
			}
			const char *open = find_mem(p, e, "{{"), *close = open ? find_mem(open, e, "}}") : NULL;
			if (!close) {
				error_at(ctx, at, "expected {{message}} after '%s'", kinds[k].word);
				*ok = false;
				break;
			}
			if (*n == cap)
				ex = xrealloc(ex, (cap = cap ? 2 * cap : 8) * sizeof *ex);
			ex[(*n)++] = (Expect){kinds[k].sev, (uint32_t)(target > 0 ? target : 0), at, open + 2,
			                      (size_t)(close - open - 2), false};
			break;
		}
	}
	return ex;
}

static bool
contains(const char *hay, const char *needle, size_t n)
{
	if (n == 0)
		return true;
	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return true;
	return false;
}

/* Every diagnostic produced must be expected, and every one expected
 * must be produced; mismatches are reported as errors. */
static bool
check_expects(Ctx *ctx, uint16_t file, const char *text, Chunk ch)
{
	static const char *words[] = {"error", "warning", "note"};
	bool ok = true;
	size_t nex;
	size_t ncap = ctx->ncaptured;
	ctx->capture = false;
	ctx->nerrors = 0;
	Expect *ex = read_expects(ctx, file, text, ch, &nex, &ok);
	for (size_t i = 0; i < ncap; i++) {
		CapturedDiag *d = &ctx->captured[i];
		bool found = false;
		for (size_t k = 0; k < nex && !found; k++) {
			Expect *e = &ex[k];
			if (!e->matched && e->sev == d->sev && d->loc.file == file && e->line == d->loc.line &&
			    contains(d->msg, e->msg, e->len))
				e->matched = found = true;
		}
		if (!found) {
			error_at(ctx, d->loc, "unexpected %s: %s", words[d->sev], d->msg);
			ok = false;
		}
	}
	for (size_t k = 0; k < nex; k++)
		if (!ex[k].matched) {
			error_at(ctx, ex[k].at, "expected %s \"%.*s\" was not produced", words[ex[k].sev],
			         (int)ex[k].len, ex[k].msg);
			ok = false;
		}
	free(ex);
	for (size_t i = 0; i < ncap; i++)
		free(ctx->captured[i].msg);
	ctx->ncaptured = 0;
	return ok;
}

/* ------------------------------------------------------------- output */

/* -o FILE: a temporary beside FILE, renamed over it once complete. */
static FILE *
open_output(Driver *d, char **tmp)
{
	*tmp = NULL;
	if (!d->output)
		return stdout;
	size_t n = strlen(d->output);
	*tmp = xmalloc(n + 16);
	snprintf(*tmp, n + 16, "%s.tmpXXXXXX", d->output);
	int fd = mkstemp(*tmp);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", d->tool->name, d->output, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(*tmp);
	}
	return f;
}

static bool
close_output(Driver *d, FILE *f, char *tmp, bool ok)
{
	bool failed = ferror(f) != 0;
	if (f == stdout) {
		failed |= fflush(stdout) != 0;
	} else {
		failed |= fclose(f) != 0;
		if (ok && !failed && rename(tmp, d->output) != 0)
			failed = true;
		if (!ok || failed)
			unlink(tmp);
		free(tmp);
	}
	if (ok && failed)
		fprintf(stderr, "%s: write error: %s\n", d->tool->name, strerror(errno));
	return !failed;
}

/* Parses, runs and verifies one module; false after errors. */
static Module *
process(Driver *d, uint16_t file, Chunk ch)
{
	Module *m = ir_parse(d->ctx, file, ch.begin, ch.end);
	if (!m)
		return NULL;
	/* ir_parse has verified what it read; verify again only what a pass
	 * has changed. */
	bool ok = !d->tool->run || d->tool->run(m, d->st);
	if (ok && d->tool->run && !d->no_verify)
		ok = ir_verify(m);
	if (!ok) {
		module_free(m);
		return NULL;
	}
	return m;
}

int
driver_main(const Tool *t, int argc, char **argv, void *st)
{
	Driver d = {.tool = t, .st = st, .color = -1};
	int rc = parse_args(&d, argc, argv);
	if (rc >= 0)
		return rc;
	FILE *in = d.input ? fopen(d.input, "rb") : stdin;
	if (!in) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", t->name, d.input, strerror(errno));
		return 1;
	}
	size_t len;
	char *text = read_all(in, &len);
	int read_errno = errno;
	if (in != stdin)
		fclose(in);
	if (!text) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", t->name, d.input ? d.input : "<stdin>",
		        strerror(read_errno));
		return 1;
	}
	d.ctx = ctx_new(t->name);
	d.ctx->color = color_wanted(d.color);
	uint16_t file = src_add(d.ctx, d.input ? d.input : "<stdin>", text, len);

	size_t nchunks;
	Chunk *chunks = split_chunks(text, len, d.split, &nchunks);
	bool ok = true;
	if (d.verify_diag) {
		/* The verdict is the exit status; nothing is printed. */
		for (size_t i = 0; i < nchunks; i++) {
			d.ctx->capture = true;
			d.ctx->nerrors = 0;
			module_free(process(&d, file, chunks[i]));
			ok &= check_expects(d.ctx, file, text, chunks[i]);
		}
	} else if (nchunks == 1) {
		/* One module: printed straight to the output once it is good. */
		Module *m = process(&d, file, chunks[0]);
		ok = m != NULL;
		char *tmp;
		FILE *out = ok ? open_output(&d, &tmp) : NULL;
		if (out) {
			ir_print(m, out, &d.popts);
			ok = close_output(&d, out, tmp, true);
		} else {
			ok = false;
		}
		module_free(m);
	} else {
		/* Several: held in memory until every one has succeeded. */
		char *buf = NULL;
		size_t blen = 0;
		FILE *mem = open_memstream(&buf, &blen);
		for (size_t i = 0; i < nchunks; i++) {
			Module *m = process(&d, file, chunks[i]);
			if (!m) {
				ok = false;
				continue;
			}
			if (i)
				fputs("// -----\n", mem);
			ir_print(m, mem, &d.popts);
			module_free(m);
		}
		fclose(mem);
		char *tmp;
		FILE *out = ok ? open_output(&d, &tmp) : NULL;
		if (out) {
			fwrite(buf, 1, blen, out);
			ok = close_output(&d, out, tmp, true);
		} else {
			ok = false;
		}
		free(buf);
	}
	free(chunks);
	ctx_free(d.ctx);
	return ok ? 0 : 1;
}
