/* parse.h: state shared by the lexer (lexer.re), the grammar (grammar.y)
 * and the builder (build.c) that turns grammar actions into a Module.
 *
 * The grammar is line-oriented and flat: a function header, a binding, an
 * `if` opener, `} else {` and `}` are each one line, and the builder keeps
 * its own stack of open blocks.  So nesting never grows Bison's stack or the
 * C stack, and ten thousand nested ifs cost what ten thousand lines cost.
 */
#ifndef PARSE_H
#define PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"

/* A slice of the source text. */
typedef struct {
	const char *s;
	uint32_t n;
} Slice;

/* Values of tokens and of the small grammar nonterminals. */
typedef struct { Slice dev, scope; } VDevTok;
typedef struct { Slice name; uint32_t index; } ProjTok;
/* An integer as written: its magnitude (saturated digits when it overflows
 * 64 bits) and its digits, for messages and for a float constant. */
typedef struct { uint64_t mag; bool overflow; Slice text; } IntTok;
typedef struct { const char *s; uint32_t n; } StrTok;

/* A scratch stack the grammar pushes list elements on; a list's semantic
 * value is the stack height where it started (its mark). */
typedef struct {
	void **v;
	uint32_t n, cap;
} Scratch;

typedef struct Cx Cx;        /* an open block, private to build.c */
typedef struct NameTab NameTab;

typedef struct Parser {
	Ctx *ctx;
	Module *m;
	uint16_t file;
	/* lexer */
	const char *cur, *lim, *tok, *bol;
	uint32_t line;
	int nest;               /* open ( and [: newlines inside are blanks */
	bool nl_pending;        /* emit a final newline before end of input */
	int last_tok;           /* the token returned last */
	int first_tok;          /* first token of the current line */
	int line_last_tok;      /* last token before the newline just read */
	int tok_in_line;        /* tokens read on this line so far */
	/* builder */
	Scratch scratch;
	struct NumTok *nums;     /* numbers of the constant being read */
	uint32_t nnums, capnums;
	Cx *cx;                 /* stack of open blocks (array) */
	uint32_t ncx, capcx;
	NameTab *names;         /* locals of the open function or prim */
	PtrVec defs;            /* names defined, in order, for scoping */
	PtrVec dead;            /* names gone out of scope (VF_DEAD, PVar.dead) */
	int nerrors_at_start;
	/* Error recovery: the errors before this line, and before the open
	 * function or prim's header; the errors since then that are the
	 * lines' own (a binding that is poisoned, VF_ERROR, not the whole
	 * definition); the first token of the line if it is a local name, and
	 * the second if it is a global one (what a line with a syntax error
	 * meant to define, see b_recover). */
	int line_err_mark, def_err_mark, def_line_errors;
	Slice first_local, second_global;
	Loc first_local_loc, second_global_loc;
	Loc *line_loc;          /* the node of this line a trailing loc() sets */
	Loc pending_loc;        /* loc(...) written at the end of this line */
	bool has_pending_loc;
	Place *places;          /* places read on this line, not yet taken */
	uint32_t nplaces, capplaces;
} Parser;

/* Lexer entry used by Bison (signature fixed by grammar.y). */
Loc parser_loc(Parser *p, const char *at);
void parser_error(Parser *p, Loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Scratch lists. */
uint32_t scratch_mark(Parser *p);
void scratch_push(Parser *p, void *x);
uint32_t scratch_count(Parser *p, uint32_t mark);
void **scratch_items(Parser *p, uint32_t mark);
void scratch_pop(Parser *p, uint32_t mark);

#endif
