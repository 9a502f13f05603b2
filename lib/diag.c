/* diag.c: source files and diagnostics in the clang/MLIR layout:
 *
 *   m.ir:4:3: error: conflicting placements for '%x': @cpu and @gpu
 *     %0 = on_device(%x, @gpu)
 *     ^
 *   m.ir:3:10: note: @cpu is required here
 *
 * No line-number gutter, so the first line is what grep and editors parse.
 * Colour only when asked (the driver decides from --color, NO_COLOR and
 * whether stderr is a terminal).  Nothing here writes to stdout.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"

/* Lines longer than this are quoted as a window around the column. */
enum { QUOTE_MAX = 400, QUOTE_BEFORE = 200 };

/* A file named by loc(...) larger than this is not read to quote it. */
#define LOAD_MAX ((off_t)1 << 30)

Ctx *
ctx_new(const char *prog)
{
	Ctx *c = xcalloc(1, sizeof *c);
	c->prog = prog;
	c->err = stderr;
	c->max_errors = 20;
	c->capfiles = 4;
	c->files = xcalloc(c->capfiles, sizeof *c->files);
	c->nfiles = 1; /* files[0]: "no file" */
	return c;
}

void
ctx_clear_captured(Ctx *c)
{
	for (size_t i = 0; i < c->ncaptured; i++)
		free(c->captured[i].msg);
	c->ncaptured = 0;
}

void
ctx_free(Ctx *c)
{
	if (!c)
		return;
	for (uint16_t i = 1; i < c->nfiles; i++) {
		free(c->files[i].name);
		free(c->files[i].text);
		free(c->files[i].line_off);
	}
	free(c->files);
	ctx_clear_captured(c);
	free(c->captured);
	map_free(&c->ftab);
	free(c);
}

/* ------------------------------------------------------ source registry */


static uint16_t
new_file(Ctx *c, const char *name, size_t n)
{
	if (c->nfiles == UINT16_MAX)
		return 0; /* positions in yet more files are simply not shown */
	if (c->nfiles == c->capfiles) {
		c->capfiles = c->capfiles > UINT16_MAX / 2 ? UINT16_MAX : c->capfiles * 2;
		c->files = xrealloc(c->files, c->capfiles * sizeof *c->files);
	}
	SrcFile *f = &c->files[c->nfiles];
	memset(f, 0, sizeof *f);
	f->name = xmalloc(n + 1);
	memcpy(f->name, name, n);
	f->name[n] = 0;
	uint16_t i = c->nfiles++;
	map_add(&c->ftab, map_hash(name, n), (void *)(uintptr_t)i);
	return i;
}

uint16_t
src_add(Ctx *c, const char *name, char *text, size_t len)
{
	uint16_t i = new_file(c, name, strlen(name));
	if (!i) {
		free(text);
		return 0;
	}
	c->files[i].text = text;
	c->files[i].len = len;
	c->files[i].tried = true;
	return i;
}

/* A loc("<stdin>":...) written by the tool before us in a pipe is about
 * its standard input, not ours: such names never match a source we hold
 * and are never read from disk. */
static bool
pseudo_name(const char *s, size_t n)
{
	return n > 0 && s[0] == '<';
}

uint16_t
src_by_name(Ctx *c, const char *name, size_t n)
{
	/* A name cannot hold a NUL; what follows one is not part of it. */
	const char *nul = memchr(name, 0, n);
	if (nul)
		n = (size_t)(nul - name);
	bool pseudo = pseudo_name(name, n);
	MapProbe it;
	for (void *e = map_first(&c->ftab, map_hash(name, n), &it); e; e = map_next(&it)) {
		uint16_t i = (uint16_t)(uintptr_t)e;
		SrcFile *f = &c->files[i];
		if ((f->by_name || !pseudo) && strncmp(f->name, name, n) == 0 && !f->name[n])
			return i;
	}
	uint16_t i = new_file(c, name, n);
	if (i) {
		c->files[i].by_name = true;
		c->files[i].tried = pseudo;
	}
	return i;
}

const char *
src_name(const Ctx *c, uint16_t file)
{
	return file && file < c->nfiles ? c->files[file].name : NULL;
}

/* A file named only by loc(...) is read when a line of it is first quoted:
 * a regular file of sane size, or nothing (never a FIFO or a device). */
static void
load(SrcFile *f)
{
	if (f->tried)
		return;
	f->tried = true;
	int fd = open(f->name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > LOAD_MAX) {
		close(fd);
		return;
	}
	size_t cap = (size_t)sb.st_size, n = 0;
	char *buf = xmalloc(cap + 1);
	while (n < cap) {
		ssize_t got = read(fd, buf + n, cap - n);
		if (got <= 0)
			break; /* an error or a file that shrank: quote what we have */
		n += (size_t)got;
	}
	close(fd);
	buf[n] = 0;
	f->text = buf;
	f->len = n;
}

/* Reads the file if need be and builds its line table; false if it has
 * no text we can index. */
static bool
index_lines(SrcFile *f)
{
	load(f);
	if (!f->text || f->len > UINT32_MAX)
		return false;
	if (!f->line_off) {
		uint32_t n = 1;
		for (const char *p = f->text, *e = f->text + f->len;
		     (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
			n++;
		f->line_off = xmalloc((size_t)n * sizeof *f->line_off);
		f->line_off[0] = 0;
		uint32_t k = 1;
		for (const char *p = f->text, *e = f->text + f->len;
		     (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
			f->line_off[k++] = (uint32_t)(p - f->text + 1);
		f->nlines = n;
	}
	return true;
}

const char *
src_line(Ctx *c, uint16_t file, uint32_t line, size_t *len)
{
	if (!file || file >= c->nfiles || line == 0)
		return NULL;
	SrcFile *f = &c->files[file];
	if (!index_lines(f) || line > f->nlines)
		return NULL;
	const char *s = f->text + f->line_off[line - 1];
	const char *e = line < f->nlines ? f->text + f->line_off[line] - 1 : f->text + f->len;
	*len = (size_t)(e - s);
	return s;
}

uint32_t
src_line_at(Ctx *c, uint16_t file, size_t off)
{
	if (!file || file >= c->nfiles)
		return 0;
	SrcFile *f = &c->files[file];
	if (!index_lines(f))
		return 0;
	/* the last line starting at or before off */
	uint32_t lo = 0, hi = f->nlines; /* line_off[lo] <= off < line_off[hi] */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->line_off[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo + 1;
}

/* ------------------------------------------------------------ reporting */

const char *
severity_name(Severity sev)
{
	static const char *const words[] = {"error", "warning", "note"};
	return (unsigned)sev < 3 ? words[sev] : "error";
}

static char *
format(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		n = 0;
	char *s = xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

static void
capture(Ctx *c, Severity sev, Loc loc, const char *fmt, va_list ap)
{
	CapturedDiag *d = &VEC_PUSH(c->captured, c->ncaptured, c->capcaptured);
	d->sev = sev;
	d->loc = loc;
	d->msg = format(fmt, ap);
}

static bool
utf8_cont(unsigned char ch)
{
	return (ch & 0xc0) == 0x80;
}

/* The source line as it is (tabs kept, so the caret lines up; other
 * control bytes shown as '?'), then a caret under the column.  The caret
 * line copies the tabs of the prefix and counts a UTF-8 sequence as one
 * column.  A long line is cut to a window around the column, marked
 * with "...". */
static void
quote(Ctx *c, Loc loc, const char *green, const char *reset)
{
	size_t len;
	const char *s = src_line(c, loc.file, loc.line, &len);
	if (!s)
		return;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	size_t col = loc.col ? (size_t)loc.col - 1 : 0; /* bytes before the caret */
	if (col > len)
		col = len;
	size_t from = 0, to = len;
	if (len > QUOTE_MAX) {
		from = col > QUOTE_BEFORE ? col - QUOTE_BEFORE : 0;
		while (from > 0 && utf8_cont((unsigned char)s[from]))
			from--;
		to = from + QUOTE_MAX < len ? from + QUOTE_MAX : len;
		while (to < len && utf8_cont((unsigned char)s[to]))
			to++;
	}
	FILE *f = c->err;
	if (from > 0)
		fputs("...", f);
	for (size_t i = from; i < to; i++) {
		unsigned char ch = (unsigned char)s[i];
		fputc(ch == '\t' || (ch >= 0x20 && ch != 0x7f) ? ch : '?', f);
	}
	if (to < len)
		fputs("...", f);
	fputc('\n', f);
	if (from > 0)
		fputs("   ", f);
	for (size_t i = from; i < col && i < to; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\t')
			fputc('\t', f);
		else if (!utf8_cont(ch))
			fputc(' ', f);
	}
	fprintf(f, "%s^%s\n", green, reset);
}

void
vdiag(Ctx *c, Severity sev, Loc loc, const char *fmt, va_list ap)
{
	/* Notes and warnings after the limit go with the errors dropped. */
	if (sev == SEV_ERROR)
		c->nerrors++;
	if (c->capture) {
		capture(c, sev, loc, fmt, ap);
		return;
	}
	FILE *f = c->err;
	bool color = c->color;
	const char *bold = color ? "\033[1m" : "";
	const char *reset = color ? "\033[0m" : "";
	if (c->max_errors > 0 && c->nerrors > c->max_errors) {
		if (sev == SEV_ERROR && c->nerrors == c->max_errors + 1)
			fprintf(f, "%s%s: %serror: %stoo many errors emitted, stopping now%s\n", bold,
			        c->prog, color ? "\033[1;31m" : "", reset, reset);
		return;
	}
	/* clang's colours: bold position and message, red errors, magenta
	 * warnings, notes in cyan (clang's bold black is invisible on dark
	 * terminals; gcc uses cyan too), a green caret. */
	static const char *const colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
	const char *scol = color ? colors[(unsigned)sev < 3 ? sev : 0] : "";
	const char *name = loc.line ? src_name(c, loc.file) : NULL;
	if (name)
		fprintf(f, "%s%s:%u:%u: ", bold, name, (unsigned)loc.line, (unsigned)loc.col);
	else
		fprintf(f, "%s%s: ", bold, c->prog);
	fprintf(f, "%s%s: %s%s", scol, severity_name(sev), reset, sev == SEV_NOTE ? "" : bold);
	vfprintf(f, fmt, ap);
	fprintf(f, "%s\n", reset);
	if (name)
		quote(c, loc, color ? "\033[1;32m" : "", reset);
}

void
diag(Ctx *c, Severity sev, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag(c, sev, loc, fmt, ap);
	va_end(ap);
}
