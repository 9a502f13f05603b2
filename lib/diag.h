/* diag.h: source files and diagnostics.
 *
 * A Ctx is the one piece of state a tool carries: the source files it has
 * read (so a diagnostic can quote the line) and how diagnostics are shown.
 * Nothing in lib/ keeps global mutable state; everything goes through a Ctx.
 */
#ifndef DIAG_H
#define DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"

typedef struct {
	char *name;          /* as given: "m.ir", "<stdin>" */
	char *text;          /* NULL until read (files named only by loc(...)) */
	size_t len;
	bool tried;          /* we tried to read text already */
	uint32_t *line_off;  /* byte offset of each line start, built lazily */
	uint32_t nlines;
	bool by_name;        /* registered by src_by_name, not src_add */
} SrcFile;

typedef enum { SEV_ERROR, SEV_WARNING, SEV_NOTE } Severity;

/* One diagnostic as captured under --verify-diagnostics. */
typedef struct {
	Severity sev;
	Loc loc;
	char *msg;
} CapturedDiag;

struct Ctx {
	const char *prog;        /* "ir-parse", for messages with no location */
	SrcFile *files;          /* files[0] is unused: Loc.file 0 means none */
	uint16_t nfiles, capfiles;
	FILE *err;               /* stderr */
	bool color;
	int nerrors;             /* errors reported so far */
	int max_errors;          /* stop printing after this many (20) */
	bool capture;            /* --verify-diagnostics: collect, do not print */
	CapturedDiag *captured;
	size_t ncaptured, capcaptured;
	/* private to diag.c: file indices (as pointers, never 0) hashed by
	 * name, for src_by_name; indices, as files moves when it grows */
	Map ftab;
};

Ctx *ctx_new(const char *prog);
void ctx_free(Ctx *c);

/* Registers a source whose text we hold; takes ownership of text (malloc'd).
 * Returns its file index (>= 1). */
uint16_t src_add(Ctx *c, const char *name, char *text, size_t len);
/* Finds or registers a file known only by name (from loc("name":l:c)); its
 * text is read from disk on demand to quote lines.  A name starting with
 * '<' ("<stdin>": an earlier tool's input) never matches a source added
 * with src_add and is never read. */
uint16_t src_by_name(Ctx *c, const char *name, size_t n);
const char *src_name(const Ctx *c, uint16_t file);
/* The text of line `line` (1-based) of file, without its newline, or NULL. */
const char *src_line(Ctx *c, uint16_t file, uint32_t line, size_t *len);

/* The 1-based line holding byte `off` of file (off == len: the last line),
 * by binary search in the line table: O(log lines), so a parser starting
 * at a --split-input-file chunk need not count the lines before it.
 * 0 if the file has no text. */
uint32_t src_line_at(Ctx *c, uint16_t file, size_t off);

/* Reports a diagnostic at loc (loc.line 0: no position, prints prog:).
 * Errors are counted; past max_errors one "too many errors emitted" is
 * printed and the rest are dropped. */
void diag(Ctx *c, Severity sev, Loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void vdiag(Ctx *c, Severity sev, Loc loc, const char *fmt, va_list ap);

/* "error", "warning", "note". */
const char *severity_name(Severity sev);
/* Forgets the captured diagnostics (freeing their messages). */
void ctx_clear_captured(Ctx *c);

#define error_at(c, loc, ...) diag((c), SEV_ERROR, (loc), __VA_ARGS__)
#define note_at(c, loc, ...) diag((c), SEV_NOTE, (loc), __VA_ARGS__)
#define warning_at(c, loc, ...) diag((c), SEV_WARNING, (loc), __VA_ARGS__)

#endif
