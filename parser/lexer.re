/* lexer.re: tokens of the textual IR (re2c 3.0).
 *
 * The whole input is in memory, so there is no refilling: YYLIMIT marks the
 * end, which also lets a NUL byte inside the text be reported as an error
 * instead of ending the input.  Newlines are tokens (the grammar is line
 * oriented) except inside ( ) and [ ], where a long list may wrap.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "grammar.h"

/* Deeper bracket nesting than this on one line is rejected, so types and
 * attribute lists stay shallow enough for the recursive printers. */
enum { MAX_NEST = 256 };

Loc
parser_loc(Parser *p, const char *at)
{
	size_t col = (size_t)(at - p->bol) + 1;
	return (Loc){p->line, (uint32_t)(col > UINT32_MAX ? UINT32_MAX : col), p->file};
}

/* Decodes a string token whose escapes the lexer has already checked. */
static void
unescape(Parser *p, const char *s, const char *e, StrTok *out)
{
	char *buf = arena_alloc(p->m->arena, (size_t)(e - s) + 1);
	size_t n = 0;
	for (const char *c = s; c < e; c++) {
		if (*c != '\\') {
			buf[n++] = *c;
			continue;
		}
		c++;
		switch (*c) {
		case 'n': buf[n++] = '\n'; break;
		case 't': buf[n++] = '\t'; break;
		case 'r': buf[n++] = '\r'; break;
		case '0': buf[n++] = '\0'; break;
		case '\\': buf[n++] = '\\'; break;
		case '"': buf[n++] = '"'; break;
		case 'x': {
			int v = 0;
			for (int k = 0; k < 2; k++) {
				char h = *++c;
				v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
			}
			buf[n++] = (char)v;
			break;
		}
		default: /* the token's pattern admits no other escape */
			buf[n++] = *c;
		}
	}
	buf[n] = 0;
	out->s = buf;
	out->n = (uint32_t)n;
}

static Slice
slice(const char *s, const char *e)
{
	return (Slice){s, (uint32_t)(e - s)};
}

static int
lex_raw(IRSTYPE *lval, Loc *lloc, Parser *p)
{
	const char *YYMARKER = NULL;
	const char *t1, *t2;
	/*!stags:re2c format = 'const char *@@ = NULL;\n'; */
	for (;;) {
		p->tok = p->cur;
		*lloc = parser_loc(p, p->tok);
		/*!re2c
		re2c:flags:input = custom;
		re2c:yyfill:enable = 0;
		re2c:eof = 0;
		re2c:flags:tags = 1;
		re2c:api:style = free-form;
		re2c:define:YYCTYPE = "unsigned char";
		re2c:define:YYPEEK = "(p->cur < p->lim ? (unsigned char)*p->cur : 0)";
		re2c:define:YYSKIP = "++p->cur;";
		re2c:define:YYBACKUP = "YYMARKER = p->cur;";
		re2c:define:YYRESTORE = "p->cur = YYMARKER;";
		re2c:define:YYLESSTHAN = "p->lim - p->cur < @@";
		re2c:define:YYSTAGP = "@@ = p->cur;";
		re2c:define:YYSTAGN = "@@ = NULL;";
		re2c:define:YYSHIFTSTAG = "@@ += @@{shift};";

		name  = [A-Za-z0-9_]+;
		gname = [A-Za-z0-9_.]+;
		sc    = [A-Za-z0-9_.:]+;
		scope = sc ("-" sc)*;
		digit = [0-9];
		exp   = [eE] [+-]? digit+;

		$ {
			if (p->nl_pending) {
				p->nl_pending = false;
				return T_NL;
			}
			return T_END;
		}
		[ \t\r]+ { continue; }
		"//" [^\n\x00]* { continue; }
		"\n" {
			p->line++;
			p->bol = p->cur;
			/* A list may wrap after a comma or an opening bracket; any
			 * other newline ends the line, so one unclosed bracket cannot
			 * swallow the rest of the file. */
			if (p->nest > 0 && (p->last_tok == ',' || p->last_tok == '(' ||
			                    p->last_tok == '['))
				continue;
			p->nest = 0;
			p->nl_pending = false;
			return T_NL;
		}

		"fn" { lval->sl = slice(p->tok, p->cur); return T_FN; }
		"prim" { lval->sl = slice(p->tok, p->cur); return T_PRIM; }
		"device" { lval->sl = slice(p->tok, p->cur); return T_DEVICE; }
		"default" { lval->sl = slice(p->tok, p->cur); return T_DEFAULT; }
		"host" { lval->sl = slice(p->tok, p->cur); return T_HOST; }
		"pool" { lval->sl = slice(p->tok, p->cur); return T_POOL; }
		"return" { lval->sl = slice(p->tok, p->cur); return T_RETURN; }
		"yield" { lval->sl = slice(p->tok, p->cur); return T_YIELD; }
		"if" { lval->sl = slice(p->tok, p->cur); return T_IF; }
		"else" { lval->sl = slice(p->tok, p->cur); return T_ELSE; }
		"const" { lval->sl = slice(p->tok, p->cur); return T_CONST; }
		"on" { lval->sl = slice(p->tok, p->cur); return T_ON; }
		"on_device" { lval->sl = slice(p->tok, p->cur); return T_ON_DEVICE; }
		"device_copy" { lval->sl = slice(p->tok, p->cur); return T_DEVICE_COPY; }
		"call_lowered" { lval->sl = slice(p->tok, p->cur); return T_CALL_LOWERED; }
		"true" { lval->sl = slice(p->tok, p->cur); return T_TRUE; }
		"false" { lval->sl = slice(p->tok, p->cur); return T_FALSE; }
		"loc" { lval->sl = slice(p->tok, p->cur); return T_LOC; }
		"for" { lval->sl = slice(p->tok, p->cur); return T_FOR; }
		"in" { lval->sl = slice(p->tok, p->cur); return T_IN; }
		"let" { lval->sl = slice(p->tok, p->cur); return T_LET; }
		"alloc" { lval->sl = slice(p->tok, p->cur); return T_ALLOC; }
		"kernel" { lval->sl = slice(p->tok, p->cur); return T_KERNEL; }
		"barrier" { lval->sl = slice(p->tok, p->cur); return T_BARRIER; }

		"inf" | "nan" {
			lval->f = p->tok[0] == 'i' ? INFINITY : NAN;
			return T_FLOAT;
		}
		[A-Za-z_] gname? {
			lval->sl = slice(p->tok, p->cur);
			return T_IDENT;
		}
		"%" @t1 name "." @t2 digit+ {
			lval->pj.name = slice(t1, t2 - 1);
			/* saturates: an index this large names no field anyway */
			uint64_t v = 0;
			for (const char *c = t2; c < p->cur && v <= 0xffffffffu; c++)
				v = v * 10 + (uint64_t)(*c - '0');
			lval->pj.index = (uint32_t)(v > 0xffffffffu ? 0xffffffffu : v);
			return T_PROJ;
		}
		"%" name {
			lval->sl = slice(p->tok + 1, p->cur);
			return T_LOCAL;
		}
		"@" @t1 gname ":" @t2 scope {
			lval->vd.dev = slice(t1, t2 - 1);
			lval->vd.scope = slice(t2, p->cur);
			return T_VDEV;
		}
		"@" gname {
			lval->sl = slice(p->tok + 1, p->cur);
			return T_GLOBAL;
		}
		digit+ {
			uint64_t v = 0;
			bool over = false;
			for (const char *c = p->tok; c < p->cur; c++) {
				unsigned d = (unsigned)(*c - '0');
				if (v > (UINT64_MAX - d) / 10)
					over = true;
				else
					v = v * 10 + d;
			}
			lval->it = (IntTok){v, over, slice(p->tok, p->cur)};
			return T_INT;
		}
		digit+ "." digit+ exp? | digit+ exp {
			char tmp[64];
			size_t n = (size_t)(p->cur - p->tok);
			if (n >= sizeof tmp) {
				char *big = xmalloc(n + 1);
				memcpy(big, p->tok, n);
				big[n] = 0;
				lval->f = strtod(big, NULL);
				free(big);
			} else {
				memcpy(tmp, p->tok, n);
				tmp[n] = 0;
				lval->f = strtod(tmp, NULL);
			}
			return T_FLOAT;
		}
		"\"" ([^"\\\n\x00] | "\\" [ntr0\\"] | "\\x" [0-9a-fA-F]{2})* "\"" {
			unescape(p, p->tok + 1, p->cur - 1, &lval->str);
			return T_STRING;
		}
		"\"" {
			parser_error(p, *lloc, "unterminated string or bad escape in string");
			/* skip to the end of the line: the newline is still a token */
			while (p->cur < p->lim && *p->cur != '\n')
				p->cur++;
			continue;
		}
		/* A line of OpenCL C in a program block: the rest of the line is
		 * the text, after one space (`|` alone is an empty line; anything else
		 * after it is a syntax error at that token). */
		"|" { lval->sl = slice(p->cur, p->cur); return T_CLINE; }
		"| " [^\n\x00]* {
			lval->sl = slice(p->tok + 2, p->cur);
			return T_CLINE;
		}
		"->" { return T_ARROW; }
		".." { return T_DOTDOT; }
		"<=" { return T_LE; }
		">=" { return T_GE; }
		"==" { return T_EQ; }
		"!=" { return T_NE; }
		"&&" { return T_ANDAND; }
		"||" { return T_OROR; }
		"(" | "[" {
			if (++p->nest > MAX_NEST) {
				parser_error(p, *lloc, "brackets nested deeper than %d", MAX_NEST);
				p->nest = 0;
			}
			return (unsigned char)p->tok[0];
		}
		")" | "]" {
			if (p->nest > 0)
				p->nest--;
			return (unsigned char)p->tok[0];
		}
		[{},=:<>+\-*/%!] { return (unsigned char)p->tok[0]; }
		* {
			unsigned char c = (unsigned char)p->tok[0];
			if (c == 0)
				parser_error(p, *lloc, "unexpected NUL byte");
			else if (c >= 0x20 && c < 0x7f)
				parser_error(p, *lloc, "unexpected character '%c'", c);
			else
				parser_error(p, *lloc, "unexpected byte 0x%02x", c);
			continue;
		}
		*/
	}
}

/* Remembers the first and last token of each line, which error recovery
 * uses to keep the block structure in step (see b_recover). */
int
irlex(IRSTYPE *lval, Loc *lloc, Parser *p)
{
	bool first = p->last_tok == T_NL || p->last_tok == 0;
	if (first)
		p->line_err_mark = p->ctx->nerrors;
	bool second = !first && p->tok_in_line == 1;
	int t = lex_raw(lval, lloc, p);
	if (t == T_NL || t == T_END) {
		p->line_last_tok = p->last_tok;
		p->tok_in_line = 0;
	} else {
		if (first) {
			p->first_tok = t;
			p->first_local = t == T_LOCAL ? lval->sl : (Slice){0};
			p->first_local_loc = *lloc;
			p->second_global = (Slice){0};
		} else if (second && t == T_GLOBAL) {
			p->second_global = lval->sl;
			p->second_global_loc = *lloc;
		}
		p->tok_in_line++;
	}
	p->last_tok = t;
	return t;
}
