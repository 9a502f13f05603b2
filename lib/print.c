/* print.c: the canonical printer.
 *
 * One declaration, header, binding or statement per line, never wrapped;
 * a type on every binding; attributes sorted; floats in the shortest form
 * that reads back to the same double.  Parsing the output and printing it
 * again gives the same bytes.  Blocks are walked with an explicit stack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "ops/ops.h"
#include "walk.h"

typedef struct {
	FILE *f;
	const Module *m;
	bool locs;
} Printer;

/* Two spaces a level, but no deeper than MAX_INDENT levels: printing must
 * stay linear in the size of the module even for ifs nested 10,000 deep. */
enum { MAX_INDENT = 32 };

static void
indent(Printer *pr, int n)
{
	static const char spaces[2 * MAX_INDENT + 1] =
		"                                                                ";
	fwrite(spaces, 1, 2 * (size_t)(n < MAX_INDENT ? n : MAX_INDENT), pr->f);
}

static void print_string(FILE *f, const char *s, size_t n);

static void
print_loc(Printer *pr, Loc l)
{
	if (!pr->locs || l.line == 0)
		return;
	const char *file = src_name(pr->m->ctx, l.file);
	fputs(" loc(", pr->f);
	print_string(pr->f, file ? file : "", file ? strlen(file) : 0);
	fprintf(pr->f, ":%u:%u)", (unsigned)l.line, (unsigned)l.col);
}

/* " in @pool[OFFSET], image2d(ID)[W, H]": node's places in a memory plan. */
static void
print_places(FILE *f, const Module *m, const void *node)
{
	const PlaceList *l = m->places ? module_places(m, node) : NULL;
	if (!l || !l->n)
		return;
	fputs(" in ", f);
	for (uint32_t i = 0; i < l->n; i++) {
		const Place *p = &l->p[i];
		if (i)
			fputs(", ", f);
		if (p->pool)
			fprintf(f, "@%s[%lld]", p->pool, (long long)p->offset);
		else
			fprintf(f, "image2d(%lld)[%lld, %lld]", (long long)p->offset,
			        (long long)p->image[0], (long long)p->image[1]);
	}
}

static void
end_line(Printer *pr, Loc l)
{
	print_loc(pr, l);
	fputc('\n', pr->f);
}

/* Shortest decimal that reads back as d (after round, if given), always
 * with a '.' or an exponent so it lexes as a float; plain notation (10.0,
 * 1500.0) for magnitudes from 1e-5 to below 1e16, where %g would switch
 * to 1e+01.  ir-run's results are printed by it too. */
void
ir_print_float(FILE *f, double d, double (*round)(double))
{
	if (isnan(d)) {
		fputs("nan", f);
		return;
	}
	if (isinf(d)) {
		fputs(d < 0 ? "-inf" : "inf", f);
		return;
	}
	char buf[64];
	int prec = 1;
	for (; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		double back = strtod(buf, NULL);
		if ((round ? round(back) : back) == d)
			break;
	}
	double mag = fabs(d);
	if (strchr(buf, 'e') && mag >= 1e-5 && mag < 1e16) {
		int exp10 = (int)floor(log10(mag));
		int decimals = prec - 1 - exp10;
		snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, d);
	}
	if (!strpbrk(buf, ".en"))
		strcat(buf, ".0");
	fputs(buf, f);
}

void
ir_print_double(FILE *f, double d)
{
	ir_print_float(f, d, NULL);
}

static void
print_string(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case 0: fputs("\\0", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\x%02x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

/* Attribute lists nest only as deep as the lexer's bracket limit. */
static void
print_attr(FILE *f, const Attr *a)
{
	switch (a->kind) {
	case AT_INT: fprintf(f, "%lld", (long long)a->u.i); break;
	case AT_FLOAT: ir_print_double(f, a->u.f); break;
	case AT_STR: print_string(f, a->u.s, a->n); break;
	case AT_BOOL: fputs(a->u.i ? "true" : "false", f); break;
	case AT_SYM: fprintf(f, "@%s", a->u.sym); break;
	case AT_LIST:
		fputc('[', f);
		for (uint32_t i = 0; i < a->n; i++) {
			if (i)
				fputs(", ", f);
			print_attr(f, &a->u.list[i]);
		}
		fputc(']', f);
		break;
	}
}

static void
print_attrs(FILE *f, const AttrMap *m)
{
	if (!m || m->n == 0)
		return;
	fputs(" {", f);
	for (uint32_t i = 0; i < m->n; i++) {
		fprintf(f, i ? ", %s=" : "%s=", m->e[i].key);
		print_attr(f, &m->e[i].val);
	}
	fputc('}', f);
}

static void
print_vdev(FILE *f, const VDev *vd)
{
	/* Once per binding once planned: no printf. */
	putc('@', f);
	fputs(vd->dev ? vd->dev : "(null)", f);
	if (vd->scope) {
		putc(':', f);
		fputs(vd->scope, f);
	}
}

/* ----------------------------------------------------------- graph level */

/* A type and, if placed, " on @dev:scope": a parameter's, a binding's
 * (no type before inference) or a function's result. */
static void
print_type_on(FILE *f, const Type *ty, const VDev *vd)
{
	if (ty)
		type_print(f, ty);
	if (vd) {
		fputs(" on ", f);
		print_vdev(f, vd);
	}
}

static void
print_operand(FILE *f, const Value *v)
{
	if (!v) {
		fputs("%<null>", f);
		return;
	}
	if (v->kind != VK_LIT) {
		putc('%', f);
		fputs(v->name, f);
		return;
	}
	if (v->flags & VF_LIT_BOOL)
		fputs(v->u.i ? "true" : "false", f);
	else if (v->flags & VF_LIT_FLOAT)
		ir_print_double(f, v->u.f);
	else if (v->flags & VF_LIT_U64)
		fprintf(f, "%llu", (unsigned long long)v->u.i);
	else
		fprintf(f, "%lld", (long long)v->u.i);
}

static void
print_args(FILE *f, const Value *v)
{
	fputc('(', f);
	for (uint32_t i = 0; i < v->nargs; i++) {
		if (i)
			fputs(", ", f);
		print_operand(f, v->args[i]);
	}
	fputc(')', f);
}

static void
print_const(FILE *f, const Value *v)
{
	const ConstData *cd = v->u.cdata;
	fputs("const ", f);
	type_print(f, v->type);
	if (v->flags & VF_CONST_FILE) {
		fputs(" file=", f);
		print_string(f, cd->path, strlen(cd->path));
		return;
	}
	bool fl = elem_is_float(v->type->dt.kind);
	bool bo = v->type->dt.kind == ET_BOOL;
	bool list = v->type->n != 0;
	fputs(list ? " [" : " ", f);
	for (uint32_t i = 0; i < cd->count; i++) {
		if (i)
			fputs(", ", f);
		if (fl)
			ir_print_double(f, cd->u.f[i]);
		else if (bo)
			fputs(cd->u.i[i] ? "true" : "false", f);
		else if (v->type->dt.kind == ET_U64)
			fprintf(f, "%llu", (unsigned long long)(uint64_t)cd->u.i[i]);
		else
			fprintf(f, "%lld", (long long)cd->u.i[i]);
	}
	if (list)
		fputc(']', f);
}

static void
print_rhs(FILE *f, const Value *v)
{
	switch (v->form) {
	case B_OP:
		fputs(v->u.op->op ? v->u.op->op->name : "<unknown-op>", f);
		print_args(f, v);
		print_attrs(f, v->u.op->attrs);
		break;
	case B_CALL:
		fprintf(f, "@%s", v->u.callee->name);
		print_args(f, v);
		break;
	case B_CALL_LOWERED:
		fprintf(f, "call_lowered @%s", v->u.prim->name);
		print_args(f, v);
		break;
	case B_ON_DEVICE:
		fputs("on_device(", f);
		print_operand(f, v->args[0]);
		fputs(", ", f);
		print_vdev(f, v->u.target);
		if (!(v->flags & VF_BODY))
			fputs(", constrain_body=false", f);
		if (v->flags & VF_RESULT)
			fputs(", constrain_result=true", f);
		fputc(')', f);
		break;
	case B_DEVICE_COPY:
		fputs("device_copy(", f);
		print_operand(f, v->args[0]);
		fputs(", ", f);
		print_vdev(f, v->u.copy->src);
		fputs(" -> ", f);
		print_vdev(f, v->u.copy->dst);
		fputc(')', f);
		break;
	case B_TUPLE: /* one field prints as "(%a,)", as TVM does */
		print_args(f, v);
		break;
	case B_PROJ:
		print_operand(f, v->args[0]);
		fprintf(f, ".%u", (unsigned)v->u.index);
		break;
	case B_CONST:
		print_const(f, v);
		break;
	case B_IF:
		fputs("if ", f);
		print_operand(f, v->args[0]);
		fputs(" {", f);
		break;
	}
}

static void
print_binding(Printer *pr, const Value *v, int depth)
{
	FILE *f = pr->f;
	indent(pr, depth);
	putc('%', f);
	fputs(v->name, f);
	if (v->type)
		fputs(": ", f);
	print_type_on(f, v->type, v->vd);
	fputs(" = ", f);
	if (v->form == B_TUPLE && v->nargs == 1) {
		fputc('(', f);
		print_operand(f, v->args[0]);
		fputs(",)", f);
	} else {
		print_rhs(f, v);
	}
	print_places(f, pr->m, v);
	end_line(pr, v->loc);
}

static void
print_func(Printer *pr, const Func *fn)
{
	FILE *f = pr->f;
	fprintf(f, "fn @%s(", fn->name);
	for (uint32_t i = 0; i < fn->nparams; i++) {
		const Value *p = fn->params[i];
		fprintf(f, i ? ", %%%s: " : "%%%s: ", p->name);
		print_type_on(f, p->type, p->vd);
		print_places(f, pr->m, p);
		print_loc(pr, p->loc);
	}
	fputc(')', f);
	if (fn->ret_type) {
		fputs(" -> ", f);
		print_type_on(f, fn->ret_type, fn->ret_vd);
	}
	fputs(" {", f);
	end_line(pr, fn->loc);

	FuncWalk w;
	WalkStep s;
	fwalk_start(&w, fn);
	while (fwalk_next(&w, &s)) {
		if (s.ev == W_BIND) {
			print_binding(pr, s.v, s.depth);
			continue;
		}
		indent(pr, s.depth);
		fputs(s.ev == W_ARM_END ? "yield " : "return ", f);
		print_operand(f, s.blk->yield);
		end_line(pr, s.blk->yloc);
		if (s.ev == W_ARM_END) {
			indent(pr, s.depth - 1);
			fputs(s.arm == 0 ? "} else {\n" : "}\n", f);
		}
	}
	fputs("}\n", f);
}

/* ------------------------------------------------------------ loop level */

static int
prec(const PExpr *e)
{
	if (e->kind == E_UN)
		return 7;
	if (e->kind != E_BIN)
		return 8;
	switch (e->op) {
	case OP_OR: return 1;
	case OP_AND: return 2;
	case OP_EQ: case OP_NE: return 3;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: return 4;
	case OP_ADD: case OP_SUB: return 5;
	default: return 6;
	}
}

static const char *
binop_str(int op)
{
	static const char *s[] = {
		[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_MOD] = "%",
		[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_EQ] = "==",
		[OP_NE] = "!=", [OP_AND] = "&&", [OP_OR] = "||", [OP_NEG] = "-", [OP_NOT] = "!",
	};
	return s[op];
}

static void print_expr(FILE *f, const PExpr *e);

static void
print_sub(FILE *f, const PExpr *e, bool parens)
{
	if (parens)
		fputc('(', f);
	print_expr(f, e);
	if (parens)
		fputc(')', f);
}

static void
print_index(FILE *f, const PIndex *ix, uint32_t n)
{
	fputc('[', f);
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		print_expr(f, ix[i].e);
		if (ix[i].lanes)
			fprintf(f, ":%u", (unsigned)ix[i].lanes);
	}
	fputc(']', f);
}

/* "fn(%image, x, y" of a texel's load or store; the caller ends it. */
static void
print_texel(FILE *f, const char *fn, const PVar *img, const PExpr *x, const PExpr *y)
{
	fprintf(f, "%s(%%%s, ", fn, img->name);
	print_expr(f, x);
	fputs(", ", f);
	print_expr(f, y);
}

/* Recursion is bounded: the parser caps expression depth. */
static void
print_expr(FILE *f, const PExpr *e)
{
	char buf[16];
	switch (e->kind) {
	case E_INT:
		if (e->op == E_INT_U64)
			fprintf(f, "%llu", (unsigned long long)e->u.i);
		else
			fprintf(f, "%lld", (long long)e->u.i);
		break;
	case E_FLOAT: ir_print_double(f, e->u.f); break;
	case E_BOOL: fputs(e->u.i ? "true" : "false", f); break;
	case E_VAR: fprintf(f, "%%%s", e->u.var->name); break;
	case E_LOAD:
		fprintf(f, "%%%s", e->u.load.buf->name);
		print_index(f, e->u.load.idx, e->n);
		break;
	case E_TEX_LOAD:
		print_texel(f, "texture2d_load", e->u.tex.buf, e->u.tex.x, e->u.tex.y);
		fputc(')', f);
		break;
	case E_UN:
		fputs(binop_str(e->op), f);
		/* -(0), not -0: "-0" would read back as the literal 0 */
		print_sub(f, e->u.ops.a, prec(e->u.ops.a) < 7 || e->u.ops.a->kind == E_INT ||
		                         e->u.ops.a->kind == E_FLOAT || e->u.ops.a->kind == E_UN);
		break;
	case E_BIN: {
		int p = prec(e);
		print_sub(f, e->u.ops.a, prec(e->u.ops.a) < p);
		fprintf(f, " %s ", binop_str(e->op));
		print_sub(f, e->u.ops.b, prec(e->u.ops.b) <= p);
		break;
	}
	case E_SELECT:
		fputs("select(", f);
		print_expr(f, e->u.ops.a);
		fputs(", ", f);
		print_expr(f, e->u.ops.b);
		fputs(", ", f);
		print_expr(f, e->u.ops.c);
		fputc(')', f);
		break;
	case E_CAST:
	case E_BROADCAST:
		dtype_str(e->u.cast.to, buf);
		fprintf(f, "%s<%s>(", e->kind == E_CAST ? "cast" : "broadcast", buf);
		print_expr(f, e->u.cast.a);
		fputc(')', f);
		break;
	case E_CALL:
		fprintf(f, "%s(", e->u.call.fn);
		for (uint32_t i = 0; i < e->n; i++) {
			if (i)
				fputs(", ", f);
			print_expr(f, e->u.call.args[i]);
		}
		fputc(')', f);
		break;
	}
}

static void
print_buffer_decl(FILE *f, const PVar *v)
{
	fprintf(f, "%%%s: ", v->name);
	if (v->kind == PV_SCALAR) {
		char buf[16];
		dtype_str(v->type->dt, buf);
		fputs(buf, f);
		return;
	}
	type_print(f, v->type);
	fputc(' ', f);
	print_vdev(f, v->vd);
}

static const char *
for_kind_name(int k)
{
	static const char *s[] = {"", " parallel", " vectorized", " unrolled", ""};
	return s[k];
}

/* Prints one statement; returns the block it opens, or NULL. */
static void
print_sizes(FILE *f, const int64_t *v)
{
	fprintf(f, "[%lld, %lld, %lld]", (long long)v[0], (long long)v[1], (long long)v[2]);
}

static void
print_launch(FILE *f, const Launch *l)
{
	fputs(" launch(global=", f);
	print_sizes(f, l->global);
	fputs(", local=", f);
	print_sizes(f, l->local);
	fputs(", args=[", f);
	for (uint32_t i = 0; i < l->nargs; i++)
		fprintf(f, "%s%%%s", i ? ", " : "", l->args[i]->name);
	fputs("])", f);
}

static const PBlock *
print_stmt(Printer *pr, const PStmt *s, int depth)
{
	FILE *f = pr->f;
	indent(pr, depth);
	switch (s->kind) {
	case S_FOR:
		fprintf(f, "for %%%s in ", s->u.loop.var->name);
		print_expr(f, s->u.loop.lo);
		fputs("..", f);
		print_expr(f, s->u.loop.hi);
		fputs(for_kind_name(s->fkind), f);
		if (s->fkind == FK_THREAD)
			fprintf(f, " bind(%s)", s->u.loop.thread);
		fputs(" {", f);
		end_line(pr, s->loc);
		return &s->u.loop.body;
	case S_IF:
		fputs("if ", f);
		print_expr(f, s->u.cond.cond);
		fputs(" {", f);
		end_line(pr, s->loc);
		return &s->u.cond.arms[0];
	case S_LET:
		fprintf(f, "let %%%s", s->u.let.var->name);
		if (s->u.let.var->type) {
			char buf[16];
			dtype_str(s->u.let.var->type->dt, buf);
			fprintf(f, ": %s", buf);
		}
		fputs(" = ", f);
		print_expr(f, s->u.let.val);
		break;
	case S_STORE:
		fprintf(f, "%%%s", s->u.store.buf->name);
		print_index(f, s->u.store.idx, s->n);
		fputs(" = ", f);
		print_expr(f, s->u.store.val);
		break;
	case S_ALLOC:
		fputs("alloc ", f);
		print_buffer_decl(f, s->u.alloc.buf);
		if (s->u.alloc.image[0])
			fprintf(f, " image2d[%lld, %lld]", (long long)s->u.alloc.image[0],
			        (long long)s->u.alloc.image[1]);
		print_attrs(f, &s->u.alloc.buf->annots);
		print_places(f, pr->m, s->u.alloc.buf);
		break;
	case S_TEX_STORE:
		print_texel(f, "texture2d_store", s->u.tex.buf, s->u.tex.x, s->u.tex.y);
		fputs(", ", f);
		print_expr(f, s->u.tex.val);
		fputc(')', f);
		break;
	case S_BARRIER:
		fputs("barrier", f);
		break;
	case S_KERNEL:
		fprintf(f, "kernel @%s", s->u.kernel.name);
		if (s->u.kernel.launch)
			print_launch(f, s->u.kernel.launch);
		fputs(" {", f);
		end_line(pr, s->loc);
		return &s->u.kernel.body;
	case S_EVAL:
		print_expr(f, s->u.eval);
		break;
	}
	end_line(pr, s->loc);
	return NULL;
}

/* A program block: every line as `| text` (`|` alone when empty), so the
 * OpenCL C reads and diffs line by line. */
static void
print_program(Printer *pr, const Program *pg)
{
	FILE *f = pr->f;
	fprintf(f, "program @%s {\n", pg->dev);
	for (const ProgLine *l = pg->first; l; l = l->next) {
		fputc('|', f);
		if (l->n) {
			fputc(' ', f);
			fwrite(l->s, 1, l->n, f);
		}
		fputc('\n', f);
	}
	fputs("}\n", f);
}

static void
print_prim(Printer *pr, const Prim *p)
{
	FILE *f = pr->f;
	fprintf(f, "prim @%s(", p->name);
	for (uint32_t i = 0; i < p->nparams; i++) {
		if (i)
			fputs(", ", f);
		print_buffer_decl(f, p->params[i]);
		print_loc(pr, p->params[i]->loc);
	}
	fputc(')', f);
	print_attrs(f, &p->attrs);
	fputs(" {", f);
	end_line(pr, p->loc);

	PrimWalk w;
	PWalkStep s;
	pwalk_start(&w, &p->body);
	while (pwalk_next(&w, &s)) {
		if (s.ev == PW_STMT) {
			print_stmt(pr, s.s, s.depth);
		} else if (s.s) {
			indent(pr, s.depth - 1);
			fputs(s.s->kind == S_IF && s.arm == 0 && s.s->u.cond.has_else ? "} else {\n" : "}\n",
			      f);
		}
	}
	fputs("}\n", f);
}

/* ---------------------------------------------------------------- module */

void
ir_print(const Module *m, FILE *f, const PrintOpts *opts)
{
	Printer pr = {f, m, (opts && opts->locations) || m->has_locs};
	bool any = false;
	for (const Device *d = m->devices; d; d = d->next) {
		static const char *kinds[] = {"cpu", "gpu", "accel"};
		fprintf(f, "device @%s = %s(%lld)", d->name, kinds[d->kind], (long long)d->index);
		print_attrs(f, &d->attrs);
		end_line(&pr, d->loc);
		any = true;
	}
	if (m->default_dev) {
		fprintf(f, "default @%s", m->default_dev);
		end_line(&pr, m->default_loc);
		any = true;
	}
	if (m->host_dev) {
		fprintf(f, "host @%s", m->host_dev);
		end_line(&pr, m->host_loc);
		any = true;
	}
	for (const Pool *p = m->pools; p; p = p->next) {
		fprintf(f, "pool @%s", p->name);
		print_attrs(f, &p->attrs);
		end_line(&pr, p->loc);
		any = true;
	}
	for (const Prim *p = m->prims; p; p = p->next) {
		if (any)
			fputc('\n', f);
		print_prim(&pr, p);
		any = true;
	}
	for (const Program *pg = m->programs; pg; pg = pg->next) {
		if (any)
			fputc('\n', f);
		print_program(&pr, pg);
		any = true;
	}
	for (const Func *fn = m->funcs; fn; fn = fn->next) {
		if (any)
			fputc('\n', f);
		print_func(&pr, fn);
		any = true;
	}
}
