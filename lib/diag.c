/* diag.c: source files and diagnostics in the clang/MLIR layout:
 *
 *   m.ir:4:3: error: conflicting placements for '%x': @cpu and @gpu
 *     %0 = on_device(%x, @gpu)
 *     ^
 *   m.ir:3:10: note: @cpu is required here
 *
 * Colour only when asked (the driver decides from --color, NO_COLOR and
 * whether stderr is a terminal).  Nothing here writes to stdout.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

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
	for (size_t i = 0; i < c->ncaptured; i++)
		free(c->captured[i].msg);
	free(c->captured);
	free(c);
}

static uint16_t
new_file(Ctx *c, const char *name, size_t n)
{
	if (c->nfiles == UINT16_MAX)
		return 0; /* positions in yet more files are simply not shown */
	if (c->nfiles == c->capfiles) {
		c->capfiles = c->capfiles * 2 > UINT16_MAX ? UINT16_MAX : c->capfiles * 2;
		c->files = xrealloc(c->files, c->capfiles * sizeof *c->files);
	}
	SrcFile *f = &c->files[c->nfiles];
	memset(f, 0, sizeof *f);
	f->name = xmalloc(n + 1);
	memcpy(f->name, name, n);
	f->name[n] = 0;
	return c->nfiles++;
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

uint16_t
src_by_name(Ctx *c, const char *name, size_t n)
{
	for (uint16_t i = 1; i < c->nfiles; i++)
		if (strlen(c->files[i].name) == n && memcmp(c->files[i].name, name, n) == 0)
			return i;
	return new_file(c, name, n);
}

const char *
src_name(const Ctx *c, uint16_t file)
{
	return file && file < c->nfiles ? c->files[file].name : NULL;
}

/* A file named only by loc(...) is read when a line of it is quoted. */
static void
load(SrcFile *f)
{
	if (f->tried)
		return;
	f->tried = true;
	FILE *in = fopen(f->name, "rb");
	if (!in)
		return;
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (size_t got; (got = fread(buf + n, 1, cap - n, in)) > 0;) {
		n += got;
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(in);
	f->text = buf;
	f->len = n;
}

const char *
src_line(Ctx *c, uint16_t file, uint32_t line, size_t *len)
{
	if (!file || file >= c->nfiles || line == 0)
		return NULL;
	SrcFile *f = &c->files[file];
	load(f);
	if (!f->text)
		return NULL;
	if (!f->line_off) {
		uint32_t n = 1;
		for (size_t i = 0; i < f->len; i++)
			n += f->text[i] == '\n';
		f->line_off = xmalloc((size_t)n * sizeof *f->line_off);
		f->line_off[0] = 0;
		uint32_t k = 1;
		for (size_t i = 0; i < f->len; i++)
			if (f->text[i] == '\n')
				f->line_off[k++] = (uint32_t)(i + 1);
		f->nlines = n;
	}
	if (line > f->nlines)
		return NULL;
	const char *s = f->text + f->line_off[line - 1];
	const char *e = memchr(s, '\n', f->len - (size_t)(s - f->text));
	*len = e ? (size_t)(e - s) : f->len - (size_t)(s - f->text);
	return s;
}

static void
capture(Ctx *c, Severity sev, Loc loc, const char *fmt, va_list ap)
{
	if (c->ncaptured == c->capcaptured) {
		c->capcaptured = c->capcaptured ? 2 * c->capcaptured : 16;
		c->captured = xrealloc(c->captured, c->capcaptured * sizeof *c->captured);
	}
	char buf[1024];
	vsnprintf(buf, sizeof buf, fmt, ap);
	CapturedDiag *d = &c->captured[c->ncaptured++];
	d->sev = sev;
	d->loc = loc;
	d->msg = xmalloc(strlen(buf) + 1);
	strcpy(d->msg, buf);
}

/* The source line as it is (tabs kept, so the caret lines up), control
 * bytes shown as '?', then a caret under the column. */
static void
quote(Ctx *c, Loc loc, const char *green, const char *reset)
{
	size_t len;
	const char *s = src_line(c, loc.file, loc.line, &len);
	if (!s)
		return;
	if (len > 4096)
		len = 4096;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		fputc(ch == '\t' || ch >= 0x20 ? ch : '?', c->err);
	}
	fputc('\n', c->err);
	for (size_t i = 0; i + 1 < loc.col && i < len; i++)
		fputc(s[i] == '\t' ? '\t' : ' ', c->err);
	fprintf(c->err, "%s^%s\n", green, reset);
}

void
vdiag(Ctx *c, Severity sev, Loc loc, const char *fmt, va_list ap)
{
	/* Notes belong to the error before them: dropped with it. */
	if (sev == SEV_ERROR)
		c->nerrors++;
	bool over = c->max_errors > 0 && c->nerrors > c->max_errors;
	if (c->capture) {
		capture(c, sev, loc, fmt, ap);
		return;
	}
	if (over) {
		if (sev == SEV_ERROR && c->nerrors == c->max_errors + 1)
			fprintf(c->err, "%s: error: too many errors emitted, stopping now\n", c->prog);
		return;
	}
	static const char *words[] = {"error", "warning", "note"};
	static const char *colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
	const char *bold = c->color ? "\033[1m" : "";
	const char *col = c->color ? colors[sev] : "";
	const char *reset = c->color ? "\033[0m" : "";
	const char *name = src_name(c, loc.file);
	if (loc.line && name)
		fprintf(c->err, "%s%s:%u:%u: ", bold, name, (unsigned)loc.line, (unsigned)loc.col);
	else
		fprintf(c->err, "%s%s: ", bold, c->prog);
	fprintf(c->err, "%s%s:%s%s ", col, words[sev], reset, bold);
	vfprintf(c->err, fmt, ap);
	fprintf(c->err, "%s\n", reset);
	if (loc.line && name)
		quote(c, loc, c->color ? "\033[1;32m" : "", reset);
}

void
diag(Ctx *c, Severity sev, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag(c, sev, loc, fmt, ap);
	va_end(ap);
}
