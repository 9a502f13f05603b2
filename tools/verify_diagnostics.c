/* verify_diagnostics.c: --verify-diagnostics of every ir-* tool (MLIR's
 * -verify-diagnostics; see ir-parse(1)).
 *
 * Diagnostics are captured instead of printed and compared with the
 * expected-error, expected-warning and expected-note comments of the
 * input (their syntax is at line_expects); a mismatch is reported as an
 * error and the exit status is 1, a full match exits 0.  What is printed
 * on stdout then (driver.c): as without the option, the module of every
 * chunk that produced one (including chunks with expected warnings and
 * notes only), and nothing for a chunk that failed as its comments
 * expected; under --split-input-file the chunks stay joined by "// -----"
 * lines, so output chunk N is still input chunk N.  So a test can check
 * both the errors of its bad chunks and the output of its good ones.  On a
 * mismatch nothing is printed.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "verify_diagnostics.h"

#define LINE_UNKNOWN UINT32_MAX  /* @unknown: a diagnostic with no position */

typedef struct {
	Severity sev;
	uint32_t line;            /* the line it is about, or LINE_UNKNOWN */
	uint32_t col;             /* its column, or 0: any */
	Loc at;                   /* of the comment, for reporting */
	const char *msg;
	size_t len;
	bool matched;
} Expect;

static const char *
find_mem(const char *s, const char *e, const char *needle)
{
	size_t n = strlen(needle);
	for (; s + n <= e; s++) {
		s = memchr(s, needle[0], (size_t)(e - s));
		if (!s || s + n > e)
			return NULL;
		if (memcmp(s, needle, n) == 0)
			return s;
	}
	return NULL;
}

static uint16_t
col_of(const char *p, const char *bol)
{
	size_t c = (size_t)(p - bol) + 1;
	return (uint16_t)(c > UINT16_MAX ? UINT16_MAX : c);
}

static void
push_expect(Expect **ex, size_t *n, size_t *cap, Expect e)
{
	if (*n == *cap)
		*ex = xrealloc(*ex, (*cap = *cap ? 2 * *cap : 8) * sizeof **ex);
	(*ex)[(*n)++] = e;
}

/* Reads the directives of one line of a comment (from "//" to e):
 *   expected-error {{text}}          about this line
 *   expected-error@+N {{text}}       N lines below (@-N: above)
 *   expected-error@unknown {{text}}  a diagnostic with no position
 *   expected-error:C {{text}}        at column C of this line; also
 *   expected-error@+N:C {{text}}     after @+N or @-N
 * and the same for expected-warning and expected-note; blanks may come
 * before '@', ':' and '{{'.  The column pins a diagnostic's place as its
 * file:line:col does, so an error test fails when either moves.  A
 * malformed directive is an error; false then. */
static bool
line_expects(Ctx *ctx, Loc here, const char *bol, const char *cm, const char *e,
             uint32_t nlines, Expect **ex, size_t *n, size_t *cap)
{
	static const struct { const char *word; Severity sev; } kinds[] = {
		{"error", SEV_ERROR}, {"warning", SEV_WARNING}, {"note", SEV_NOTE},
	};
	bool ok = true;
	for (const char *p = cm; (p = find_mem(p, e, "expected-")) != NULL;) {
		const char *w = p + 9;
		p = w;
		size_t k = 0, wl = 0;
		for (; k < sizeof kinds / sizeof *kinds; k++) {
			wl = strlen(kinds[k].word);
			if ((size_t)(e - w) >= wl && memcmp(w, kinds[k].word, wl) == 0 &&
			    (w + wl == e || !(isalnum((unsigned char)w[wl]) || w[wl] == '-' || w[wl] == '_')))
				break;
		}
		if (k == sizeof kinds / sizeof *kinds)
			continue; /* expected-remark and the like: not ours */
		Loc at = {here.line, col_of(w - 9, bol), here.file};
		const char *q = w + wl;
		int64_t target = here.line;
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (q < e && *q == '@') {
			q++;
			if ((size_t)(e - q) >= 7 && memcmp(q, "unknown", 7) == 0) {
				target = -1;
				q += 7;
			} else if (q < e && (*q == '+' || *q == '-') && q + 1 < e &&
			           isdigit((unsigned char)q[1])) {
				int sign = *q++ == '-' ? -1 : 1;
				int64_t off = 0;
				while (q < e && isdigit((unsigned char)*q)) {
					if (off < 100000000)
						off = off * 10 + (*q - '0');
					q++;
				}
				target += sign * off;
				if (target < 1 || target > nlines) {
					error_at(ctx, at, "expected-%s@%c%lld is line %lld, outside the file",
					         kinds[k].word, sign < 0 ? '-' : '+', (long long)off,
					         (long long)target);
					ok = false;
					continue;
				}
			} else {
				error_at(ctx, at, "expected @+N, @-N or @unknown after 'expected-%s'",
				         kinds[k].word);
				ok = false;
				continue;
			}
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
		}
		uint32_t col = 0;
		if (q < e && *q == ':') {
			q++;
			while (q < e && isdigit((unsigned char)*q)) {
				if (col < 100000)
					col = col * 10 + (uint32_t)(*q - '0');
				q++;
			}
			if (col == 0 || target < 0) {
				error_at(ctx, at, target < 0 ? "'@unknown' has no column, in 'expected-%s'"
				                             : "expected a column from 1 after ':' in 'expected-%s'",
				         kinds[k].word);
				ok = false;
				continue;
			}
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
		}
		if ((size_t)(e - q) < 2 || q[0] != '{' || q[1] != '{') {
			error_at(ctx, at, "expected '{{' after 'expected-%s'", kinds[k].word);
			ok = false;
			continue;
		}
		const char *close = find_mem(q + 2, e, "}}");
		if (!close) {
			error_at(ctx, at, "expected '}}' to end the message of 'expected-%s'",
			         kinds[k].word);
			ok = false;
			break;
		}
		push_expect(ex, n, cap, (Expect){kinds[k].sev,
		            target < 0 ? LINE_UNKNOWN : (uint32_t)target, col, at, q + 2,
		            (size_t)(close - q - 2), false});
		p = close + 2;
	}
	return ok;
}

/* The directives in the comments of one chunk. */
static Expect *
read_expects(Ctx *ctx, uint16_t file, size_t begin, size_t end_off, uint32_t first_line,
             size_t *n, bool *ok)
{
	const SrcFile *sf = &ctx->files[file];
	const char *text = sf->text, *end = text + end_off;
	uint32_t nlines = 1;
	for (const char *p = text, *e = text + sf->len; (p = memchr(p, '\n', (size_t)(e - p))); p++)
		nlines++;
	Expect *ex = NULL;
	size_t cap = 0;
	*n = 0;
	uint32_t line = first_line;
	for (const char *s = text + begin; s < end; line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		const char *cm = find_mem(s, e, "//");
		if (cm && !line_expects(ctx, (Loc){line, 1, file}, s, cm, e, nlines, &ex, n, &cap))
			*ok = false;
		s = nl ? nl + 1 : end;
	}
	return ex;
}

/* Whether the message contains the n bytes at needle. */
static bool
contains(const char *hay, const char *needle, size_t n)
{
	size_t hl = strlen(hay);
	if (n == 0)
		return true;
	for (size_t i = 0; i + n <= hl; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0)
			return true;
	return false;
}

bool
verify_diagnostics(Ctx *ctx, uint16_t file, size_t begin, size_t end, uint32_t first_line)
{
	bool ok = true;
	size_t nex, ncap = ctx->ncaptured;
	ctx->capture = false;
	ctx->nerrors = 0;
	Expect *ex = read_expects(ctx, file, begin, end, first_line, &nex, &ok);
	for (size_t i = 0; i < ncap; i++) {
		CapturedDiag *d = &ctx->captured[i];
		uint32_t line = d->loc.line && d->loc.file ? d->loc.line : LINE_UNKNOWN;
		bool here = d->loc.file == file || line == LINE_UNKNOWN;
		bool found = false;
		for (size_t k = 0; here && k < nex && !found; k++) {
			Expect *e = &ex[k];
			if (!e->matched && e->sev == d->sev && e->line == line &&
			    (!e->col || e->col == d->loc.col) && contains(d->msg, e->msg, e->len))
				e->matched = found = true;
		}
		if (!found) {
			error_at(ctx, d->loc, "unexpected %s: %s", severity_name(d->sev), d->msg);
			ok = false;
		}
	}
	for (size_t k = 0; k < nex; k++) {
		if (ex[k].matched)
			continue;
		char where[32] = "";
		if (ex[k].col)
			snprintf(where, sizeof where, " at column %u", (unsigned)ex[k].col);
		error_at(ctx, ex[k].at, "expected %s \"%.*s\"%s was not produced",
		         severity_name(ex[k].sev), (int)(ex[k].len < 1000 ? ex[k].len : 1000), ex[k].msg,
		         where);
		ok = false;
	}
	free(ex);
	ctx_clear_captured(ctx);
	return ok;
}
