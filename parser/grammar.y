/* grammar.y: the textual IR, one line at a time.
 *
 * The module is a flat list of lines.  Lines that open a block (a function
 * or prim header, `%r = if %c {`, `for ... {`) and lines that close one (`}`,
 * `} else {`) are ordinary lines: build.c keeps the stack of open blocks.
 * Nesting therefore never deepens Bison's stack, and a syntax error costs
 * one line (the `error NL` rule), so one run reports many errors.
 *
 * Actions only build: names, types and placements are checked by build.c
 * (scoping) and lib/verify.c (everything else).
 */
%require "3.8"
%define api.pure full
%define api.prefix {ir}
%define api.token.prefix {T_}
%define parse.error custom
%define parse.lac full
%locations
%param {Parser *p}
%expect 0

%code requires {
#include "parse.h"
#include "build.h"
#define IRLTYPE Loc
#define IRLTYPE_IS_DECLARED 1
/* A rule's location is where its first symbol starts. */
#define YYLLOC_DEFAULT(Cur, Rhs, N) \
	do { (Cur) = (N) ? YYRHSLOC(Rhs, 1) : YYRHSLOC(Rhs, 0); } while (0)
}

%code provides {
int irlex(IRSTYPE *lval, Loc *lloc, Parser *p);
void irerror(Loc *lloc, Parser *p, const char *msg);
int irparse(Parser *p);
}

%code {
#include <string.h>
}

%union {
	Slice sl;
	VDevTok vd;
	ProjTok pj;
	IntTok it;
	double f;
	StrTok str;
	uint32_t mark;
	int flags;
	const Type *ty;
	TypeOn tyon;
	Value *val;
	PVar *pv;
	PExpr *pe;
	PIndex *pidx;
	Attr *attr;
	AttrMap *am;
	const VDev *vdev;
	ForSpec fs;
	NumTok num;
}

%token END 0 "end of file"
%token NL "newline"
%token <sl> LOCAL "local name"
%token <sl> GLOBAL "global name"
%token <sl> IDENT "identifier"
%token <vd> VDEV "virtual device"
%token <pj> PROJ "projection"
%token <it> INT "integer"
%token <f> FLOAT "float"
%token <str> STRING "string"
%token <sl> CLINE "program line"
%token <sl> FN "'fn'" PRIM "'prim'" DEVICE "'device'" DEFAULT "'default'"
%token <sl> HOST "'host'" POOL "'pool'" RETURN "'return'" YIELD "'yield'"
%token <sl> IF "'if'" ELSE "'else'" CONST "'const'" ON "'on'"
%token <sl> ON_DEVICE "'on_device'" DEVICE_COPY "'device_copy'"
%token <sl> CALL_LOWERED "'call_lowered'" TRUE "'true'" FALSE "'false'"
%token <sl> LOC "'loc'" FOR "'for'" IN "'in'" LET "'let'" ALLOC "'alloc'"
%token <sl> KERNEL "'kernel'" BARRIER "'barrier'"
%token ARROW "'->'" DOTDOT "'..'" LE "'<='" GE "'>='" EQ "'=='" NE "'!='"
%token ANDAND "'&&'" OROR "'||'"

%left OROR
%left ANDAND
%left EQ NE
%left '<' '>' LE GE
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%type <mark> params params_opt pparams pparams_opt operands operands_opt
%type <mark> dims dims_opt types attr_entries attr_values attr_values_opt
%type <mark> nums nums_opt pexprs pexprs_opt pindices pindices_opt
%type <mark> largs largs_opt
%type <ty> type ptype
%type <tyon> tyon ret_opt
%type <val> param operand rhs literal
%type <pv> pparam
%type <pe> pexpr
%type <pidx> pindex
%type <attr> attr_value attr_entry
%type <am> attrs_opt attrs
%type <vdev> vdev on_opt
%type <flags> ondev_flags
%type <sl> word
%type <fs> for_kind
%type <num> num

%%

module
	: %empty
	| module line
	;

line
	: NL
	| item loc_opt NL           { b_end_line(p); }
	| error NL                  { b_recover(p); yyerrok; }
	;

loc_opt
	: %empty
	| LOC '(' STRING ':' INT ':' INT ')' { b_loc(p, $3, $5, @5, $7, @7); }
	;

item
	: DEVICE GLOBAL '=' IDENT '(' INT ')' attrs_opt
	                            { b_device(p, $2, @2, $4, @4, $6, @6, $8, @1); }
	| DEFAULT GLOBAL            { b_default(p, $2, @2, @1); }
	| HOST GLOBAL               { b_host(p, $2, @2, @1); }
	| POOL GLOBAL attrs_opt     { b_pool(p, $2, @2, $3, @1); }
	| FN GLOBAL '(' params_opt ')' ret_opt '{'
	                            { b_fn(p, $2, @2, $4, $6, @1); }
	| PRIM GLOBAL '(' pparams_opt ')' '{'
	                            { b_prim(p, $2, @2, $4, NULL, @1); }
	| PRIM GLOBAL '(' pparams_opt ')' '{' attr_entries '}' '{'
	                            { b_prim(p, $2, @2, $4, b_attrmap(p, $7), @1); }
	| LOCAL tyon '=' rhs places_opt
	                            { b_binding(p, $1, @1, $2, $4); }
	| RETURN operand            { b_return(p, $2, @1); }
	| YIELD operand             { b_yield(p, $2, @1); }
	| '}'                       { b_close(p, @1); }
	| '}' ELSE '{'              { b_else(p, @1); }
	| FOR LOCAL IN pexpr DOTDOT pexpr for_kind '{'
	                            { b_for(p, $2, @2, $4, $6, $7, @1); }
	| IF pexpr '{'              { b_pif(p, $2, @1); }
	| LET LOCAL '=' pexpr       { b_let(p, $2, @2, NULL, $4, @1); }
	| LET LOCAL ':' ptype '=' pexpr
	                            { b_let(p, $2, @2, $4, $6, @1); }
	| LOCAL '[' pindices_opt ']' '=' pexpr
	                            { b_store(p, $1, @1, $3, $6); }
	| ALLOC LOCAL ':' type vdev attrs_opt place_opt
	                            { b_alloc(p, $2, @2, $4, $5, NULL, 0, $6, @1); }
	| ALLOC LOCAL ':' type vdev IDENT '[' dims ']' attrs_opt place_opt
	                            { b_alloc(p, $2, @2, $4, $5, &$6, $8, $10, @1); }
	| IDENT '(' pexprs_opt ')'  { b_eval(p, $1, @1, $3); }
	| BARRIER                   { b_barrier(p, @1); }
	| KERNEL GLOBAL '{'         { b_kernel(p, $2, @2, @1, NULL); }
	| KERNEL GLOBAL IDENT '(' IDENT '=' '[' dims ']' ',' IDENT '=' '[' dims ']' ','
	  IDENT '=' '[' largs_opt ']' ')' '{'
	                            { b_kernel(p, $2, @2, @1,
	                                       b_launch(p, $3, @3, $5, @5, $8, $11, @11, $14,
	                                                $17, @17, $20)); }
	| IDENT GLOBAL '{'          { b_program(p, $1, @1, $2, @2); }
	| CLINE                     { b_cline(p, $1, @1); }
	;

/* The arguments of a kernel launch: buffers of the prim. */
largs_opt
	: %empty                    { $$ = scratch_mark(p); }
	| largs
	;

largs
	: LOCAL                     { $$ = scratch_mark(p); b_launch_arg(p, $1, @1); }
	| largs ',' LOCAL           { $$ = $1; b_launch_arg(p, $3, @3); }
	;

/* ------------------------------------------------------------ graph level */

params_opt
	: %empty                    { $$ = scratch_mark(p); }
	| params
	;

params
	: param                     { $$ = scratch_mark(p); scratch_push(p, $1); }
	| params ',' param          { $$ = $1; scratch_push(p, $3); }
	;

param
	: LOCAL ':' type on_opt place_opt loc_opt
	                            { $$ = b_param(p, $1, @1, $3, @3, $4); }
	;

/* A memory plan's places (ir-plan-memory): `in @pool[OFFSET]`, or for an
 * image `in image2d(ID)[W, H]`; a binding has one per buffer, a parameter
 * or an alloc one (a list there would clash with the parameters' commas). */
places_opt
	: %empty
	| IN places
	;

places
	: place
	| places ',' place
	;

place_opt
	: %empty
	| IN place
	;

place
	: GLOBAL '[' INT ']'        { b_place(p, $1, @1, $3, @3); }
	| IDENT '(' INT ')' '[' INT ',' INT ']'
	                            { b_place_image(p, $1, @1, $3, @3, $6, @6, $8, @8); }
	;

ret_opt
	: %empty                    { $$ = (TypeOn){0}; }
	| ARROW type on_opt         { $$ = (TypeOn){$2, $3, @2, @3}; }
	;

tyon
	: on_opt                    { $$ = (TypeOn){NULL, $1, @1, @1}; }
	| ':' type on_opt           { $$ = (TypeOn){$2, $3, @2, @3}; }
	;

on_opt
	: %empty                    { $$ = NULL; }
	| ON vdev                   { $$ = $2; }
	;

vdev
	: GLOBAL                    { $$ = b_vdev(p, $1, (Slice){0}, @1); }
	| VDEV                      { $$ = b_vdev(p, $1.dev, $1.scope, @1); }
	;

type
	: IDENT '[' dims_opt ']'    { $$ = b_tensor_type(p, $1, @1, $3); }
	| '(' ')'                   { $$ = b_tuple_type(p, scratch_mark(p), @1); }
	| '(' types ')'             { $$ = b_tuple_type(p, $2, @1); }
	| '(' types ',' ')'         { $$ = b_tuple_type(p, $2, @1); }
	;

types
	: type                      { $$ = scratch_mark(p); scratch_push(p, (void *)$1); }
	| types ',' type            { $$ = $1; scratch_push(p, (void *)$3); }
	;

dims_opt
	: %empty                    { $$ = scratch_mark(p); }
	| dims
	;

dims
	: INT                       { $$ = scratch_mark(p); b_push_dim(p, $1, @1); }
	| dims ',' INT              { $$ = $1; b_push_dim(p, $3, @3); }
	;

rhs
	: IDENT '(' operands_opt ')' attrs_opt
	                            { $$ = b_op(p, $1, @1, $3, $5); }
	| GLOBAL '(' operands_opt ')'
	                            { $$ = b_call(p, $1, @1, $3, B_CALL); }
	| CALL_LOWERED GLOBAL '(' operands_opt ')'
	                            { $$ = b_call(p, $2, @1, $4, B_CALL_LOWERED); }
	| ON_DEVICE '(' operand ',' vdev ondev_flags ')'
	                            { $$ = b_on_device(p, $3, $5, $6, @1); }
	| DEVICE_COPY '(' operand ',' vdev ARROW vdev ')'
	                            { $$ = b_device_copy(p, $3, $5, $7, @1); }
	| '(' ')'                   { $$ = b_tuple(p, scratch_mark(p), @1); }
	| '(' operands ')'          { $$ = b_tuple(p, $2, @1); }
	| '(' operands ',' ')'      { $$ = b_tuple(p, $2, @1); }
	| PROJ                      { $$ = b_proj(p, $1, @1); }
	| CONST type '[' nums_opt ']'
	                            { $$ = b_const(p, $2, @2, $4, @1); }
	| CONST type num            { $$ = b_const_scalar(p, $2, @2, $3, @1); }
	| CONST type IDENT '=' STRING
	                            { $$ = b_const_file(p, $2, @2, $3, @3, $5, @1); }
	| IF operand '{'            { $$ = b_if(p, $2, @1); }
	;

ondev_flags
	: %empty                    { $$ = VF_BODY; }
	| ondev_flags ',' IDENT '=' TRUE
	                            { $$ = b_ondev_flag(p, $1, $3, @3, true); }
	| ondev_flags ',' IDENT '=' FALSE
	                            { $$ = b_ondev_flag(p, $1, $3, @3, false); }
	;

operands_opt
	: %empty                    { $$ = scratch_mark(p); }
	| operands
	;

operands
	: operand                   { $$ = scratch_mark(p); scratch_push(p, $1); }
	| operands ',' operand      { $$ = $1; scratch_push(p, $3); }
	;

operand
	: LOCAL                     { $$ = b_use(p, $1, @1); }
	| literal
	;

literal
	: INT                       { $$ = b_lit_int(p, $1, false, @1); }
	| '-' INT                   { $$ = b_lit_int(p, $2, true, @1); }
	| FLOAT                     { $$ = b_lit_float(p, $1, @1); }
	| '-' FLOAT                 { $$ = b_lit_float(p, -$2, @1); }
	| TRUE                      { $$ = b_lit_bool(p, true, @1); }
	| FALSE                     { $$ = b_lit_bool(p, false, @1); }
	;

nums_opt
	: %empty                    { $$ = b_nums_mark(p); }
	| nums
	;

nums
	: num                       { $$ = b_nums_mark(p); b_push_num(p, $1); }
	| nums ',' num              { $$ = $1; b_push_num(p, $3); }
	;

num
	: INT                       { $$ = (NumTok){NK_INT, $1, 0, @1}; }
	| '-' INT                   { $$ = (NumTok){NK_NEGINT, $2, 0, @1}; }
	| FLOAT                     { $$ = (NumTok){NK_FLOAT, {0, false, {NULL, 0}}, $1, @1}; }
	| '-' FLOAT                 { $$ = (NumTok){NK_FLOAT, {0, false, {NULL, 0}}, -$2, @1}; }
	| TRUE                      { $$ = (NumTok){NK_BOOL, {1, false, {NULL, 0}}, 0, @1}; }
	| FALSE                     { $$ = (NumTok){NK_BOOL, {0, false, {NULL, 0}}, 0, @1}; }
	;

/* ------------------------------------------------------------- attributes */

attrs_opt
	: %empty                    { $$ = NULL; }
	| attrs
	;

attrs
	: '{' '}'                   { $$ = b_attrmap(p, scratch_mark(p)); }
	| '{' attr_entries '}'      { $$ = b_attrmap(p, $2); }
	;

attr_entries
	: attr_entry                { $$ = scratch_mark(p); scratch_push(p, $1); }
	| attr_entries ',' attr_entry
	                            { $$ = $1; scratch_push(p, $3); }
	;

/* An entry is kept as an Attr whose loc is the key's; b_attrmap splits it. */
attr_entry
	: word '=' attr_value       { $$ = b_attr_entry(p, $1, @1, $3); }
	;

word
	: IDENT | FN | PRIM | DEVICE | DEFAULT | HOST | POOL | RETURN | YIELD
	| IF | ELSE | CONST | ON | ON_DEVICE | DEVICE_COPY | CALL_LOWERED
	| FOR | IN | LET | ALLOC | KERNEL | BARRIER
	;

attr_value
	: INT                       { $$ = b_attr_int(p, $1, false, @1); }
	| '-' INT                   { $$ = b_attr_int(p, $2, true, @1); }
	| FLOAT                     { $$ = b_attr_float(p, $1, @1); }
	| '-' FLOAT                 { $$ = b_attr_float(p, -$2, @1); }
	| STRING                    { $$ = b_attr_str(p, $1, @1); }
	| TRUE                      { $$ = b_attr_bool(p, true, @1); }
	| FALSE                     { $$ = b_attr_bool(p, false, @1); }
	| GLOBAL                    { $$ = b_attr_sym(p, $1, @1); }
	| '[' attr_values_opt ']'   { $$ = b_attr_list(p, $2, @1); }
	;

attr_values_opt
	: %empty                    { $$ = scratch_mark(p); }
	| attr_values
	;

attr_values
	: attr_value                { $$ = scratch_mark(p); scratch_push(p, $1); }
	| attr_values ',' attr_value
	                            { $$ = $1; scratch_push(p, $3); }
	;

/* ------------------------------------------------------------- loop level */

pparams_opt
	: %empty                    { $$ = scratch_mark(p); }
	| pparams
	;

pparams
	: pparam                    { $$ = scratch_mark(p); scratch_push(p, $1); }
	| pparams ',' pparam        { $$ = $1; scratch_push(p, $3); }
	;

pparam
	: LOCAL ':' IDENT loc_opt   { $$ = b_pparam_scalar(p, $1, @1, $3, @3); }
	| LOCAL ':' type vdev loc_opt
	                            { $$ = b_pparam_buffer(p, $1, @1, $3, @3, $4); }
	;

ptype
	: IDENT                     { $$ = b_scalar_type(p, $1, @1); }
	;

for_kind
	: %empty                    { $$ = (ForSpec){FK_SERIAL, {0}, {0}}; }
	| IDENT                     { $$ = b_for_kind(p, $1, @1, (Slice){0}); }
	| IDENT '(' IDENT ')'       { $$ = b_for_kind(p, $1, @1, $3); }
	;

pexpr
	: INT                       { $$ = b_e_int(p, $1, @1); }
	| FLOAT                     { $$ = b_e_float(p, $1, @1); }
	| TRUE                      { $$ = b_e_bool(p, true, @1); }
	| FALSE                     { $$ = b_e_bool(p, false, @1); }
	| LOCAL                     { $$ = b_e_var(p, $1, @1); }
	| LOCAL '[' pindices_opt ']'
	                            { $$ = b_e_load(p, $1, @1, $3); }
	| IDENT '(' pexprs_opt ')'  { $$ = b_e_call(p, $1, @1, $3); }
	| IDENT '<' IDENT '>' '(' pexpr ')'
	                            { $$ = b_e_cast(p, $1, @1, $3, @3, $6); }
	| '(' pexpr ')'             { $$ = $2; }
	| '-' pexpr %prec UNARY     { $$ = b_e_un(p, OP_NEG, $2, @1); }
	| '!' pexpr %prec UNARY     { $$ = b_e_un(p, OP_NOT, $2, @1); }
	| pexpr '+' pexpr           { $$ = b_e_bin(p, OP_ADD, $1, $3, @2); }
	| pexpr '-' pexpr           { $$ = b_e_bin(p, OP_SUB, $1, $3, @2); }
	| pexpr '*' pexpr           { $$ = b_e_bin(p, OP_MUL, $1, $3, @2); }
	| pexpr '/' pexpr           { $$ = b_e_bin(p, OP_DIV, $1, $3, @2); }
	| pexpr '%' pexpr           { $$ = b_e_bin(p, OP_MOD, $1, $3, @2); }
	| pexpr '<' pexpr           { $$ = b_e_bin(p, OP_LT, $1, $3, @2); }
	| pexpr LE pexpr            { $$ = b_e_bin(p, OP_LE, $1, $3, @2); }
	| pexpr '>' pexpr           { $$ = b_e_bin(p, OP_GT, $1, $3, @2); }
	| pexpr GE pexpr            { $$ = b_e_bin(p, OP_GE, $1, $3, @2); }
	| pexpr EQ pexpr            { $$ = b_e_bin(p, OP_EQ, $1, $3, @2); }
	| pexpr NE pexpr            { $$ = b_e_bin(p, OP_NE, $1, $3, @2); }
	| pexpr ANDAND pexpr        { $$ = b_e_bin(p, OP_AND, $1, $3, @2); }
	| pexpr OROR pexpr          { $$ = b_e_bin(p, OP_OR, $1, $3, @2); }
	;

pexprs_opt
	: %empty                    { $$ = scratch_mark(p); }
	| pexprs
	;

pexprs
	: pexpr                     { $$ = scratch_mark(p); scratch_push(p, $1); }
	| pexprs ',' pexpr          { $$ = $1; scratch_push(p, $3); }
	;

/* `%b[]`: the one element of a rank-0 buffer. */
pindices_opt
	: %empty                    { $$ = scratch_mark(p); }
	| pindices
	;

pindices
	: pindex                    { $$ = scratch_mark(p); scratch_push(p, $1); }
	| pindices ',' pindex       { $$ = $1; scratch_push(p, $3); }
	;

pindex
	: pexpr                     { $$ = b_index(p, $1, (IntTok){0, false, {NULL, 0}}, @1); }
	| pexpr ':' INT             { $$ = b_index(p, $1, $3, @3); }
	;

%%

/* "unexpected X, expected A, B or C": Bison's words, clang's order. */
static int
yyreport_syntax_error(const yypcontext_t *ctx, Parser *p)
{
	enum { NEXP = 6 };
	yysymbol_kind_t exp[NEXP];
	int n = yypcontext_expected_tokens(ctx, exp, NEXP);
	yysymbol_kind_t got = yypcontext_token(ctx);
	char buf[512];
	size_t len = 0;
	len += (size_t)snprintf(buf + len, sizeof buf - len, "unexpected %s", yysymbol_name(got));
	if (got == YYSYMBOL_IDENT || got == YYSYMBOL_LOCAL || got == YYSYMBOL_GLOBAL ||
	    got == YYSYMBOL_INT || got == YYSYMBOL_FLOAT) {
		int tl = (int)(p->cur - p->tok);
		if (tl > 40)
			tl = 40;
		len += (size_t)snprintf(buf + len, sizeof buf - len, " '%.*s'", tl, p->tok);
	}
	if (n > 0) {
		len += (size_t)snprintf(buf + len, sizeof buf - len, ", expected ");
		for (int i = 0; i < n && len < sizeof buf; i++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
			                        i == 0 ? "" : i == n - 1 ? " or " : ", ",
			                        yysymbol_name(exp[i]));
	}
	parser_error(p, *yypcontext_location(ctx), "%s", buf);
	return 0;
}

/* Only "memory exhausted" reaches here (syntax errors go above), and
 * only a run of unary operators fills Bison's stack (YYMAXDEPTH): the
 * lexer stops brackets at MAX_NEST and binary operators reduce as they
 * go.  Such a run is an expression deeper than the limit build.c checks
 * when it reduces, which the run is never reduced to; say that, at the
 * operator where the stack ran out.  irparse then returns 2. */
void
irerror(Loc *lloc, Parser *p, const char *msg)
{
	if (strcmp(msg, "memory exhausted") == 0)
		parser_error(p, *lloc, "expression nested deeper than %d", IR_MAX_EXPR_DEPTH);
	else
		parser_error(p, *lloc, "%s", msg);
}
