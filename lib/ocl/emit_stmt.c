/* emit_stmt.c: loop-level statements as OpenCL C, one C line per
 * statement, nested blocks walked with an explicit stack.
 *
 * `unrolled` loops get `#pragma unroll` (POCL's LLVM unrolls them fully;
 * see bench/), `vectorized` and nested `parallel` loops stay loops for
 * POCL's vectorizer, `local` allocs are private arrays.  The launch-bound
 * loops were peeled off by kernel.c and are not seen here.  The walk keeps
 * its own stack rather than walk.h's PrimWalk: with --unroll=full it
 * visits an unrolled loop's body once per iteration.
 */
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl_impl.h"

/* Writes the hoisted declarations, then line (and clears both). */
static void
flush(Gen *g, Str *line)
{
	if (g->pre.n)
		str_putn(g->out, g->pre.s, g->pre.n);
	g->pre.n = 0;
	ocl_indent(g, g->out);
	str_putn(g->out, line->s, line->n);
	str_puts(g->out, "\n");
	line->n = 0;
}

static void
stmt_store(Gen *g, Str *l, PStmt *s)
{
	PVar *buf = s->u.store.buf;
	uint32_t lanes = s->n ? s->u.store.idx[s->n - 1].lanes : 0;
	Str name = {0}, lin = {0}, val = {0};
	ocl_local_name(&name, buf->name);
	ocl_linear_index(g, &lin, buf, s->u.store.idx, s->n);
	ocl_expr(g, &val, s->u.store.val);
	char ty[16];
	if (buf->scratch & OV_VECARR) {
		int64_t part = lanes > 1 ? ocl_row_part(buf, s->u.store.idx, s->n) : -1;
		if (part >= 0)
			str_printf(l, "vstore%u(%s, %lld, (%s *)&%s[%s]);", lanes, val.s, (long long)part,
			           ocl_buf_type(buf, ty), name.s, lin.s);
		else if (lanes > 1)
			str_printf(l, "%s[%s] = %s;", name.s, lin.s, val.s);
		else
			str_printf(l, "((%s *)%s)[%s] = %s;", ocl_buf_type(buf, ty), name.s, lin.s, val.s);
	} else if (ocl_half_mem(buf)) {
		if (lanes > 1)
			str_printf(l, "vstore_half%u(%s, 0, %s + %s);", lanes, val.s, name.s, lin.s);
		else
			str_printf(l, "vstore_half(%s, 0, %s + %s);", val.s, name.s, lin.s);
	} else if (lanes > 1) {
		str_printf(l, "vstore%u(%s, 0, %s + %s);", lanes, val.s, name.s, lin.s);
	} else if (buf->type->dt.kind == ET_BOOL) {
		str_printf(l, "%s[%s] = (uchar)(%s);", name.s, lin.s, val.s);
	} else {
		str_printf(l, "%s[%s] = %s;", name.s, lin.s, val.s);
	}
	str_free(&name);
	str_free(&lin);
	str_free(&val);
}

static void
stmt_alloc(Gen *g, Str *l, PStmt *s)
{
	PVar *buf = s->u.alloc.buf;
	const char *scope = buf->vd ? buf->vd->scope : NULL;
	char ty[16];
	if (scope && strcmp(scope, "shared") == 0)
		return;   /* declared at the top of the kernel (kernel.c) */
	if (!scope || strcmp(scope, "local") != 0) {
		OCL_ERR(g, s->loc, "alloc '%%%s' in %s memory inside a kernel: only local (private) "
		        "and shared allocs belong in a kernel; put it at the top of the prim",
		        buf->name, scope ? scope : "global");
		return;
	}
	if (buf->scratch & OV_VECARR) {
		int64_t d = buf->type->dims[buf->type->n - 1];
		str_printf(l, "%s%lld ", ocl_buf_type(buf, ty), (long long)d);
		ocl_local_name(l, buf->name);
		str_printf(l, "[%lld];", (long long)(type_numel(buf->type) / d));
		return;
	}
	str_printf(l, "%s ", ocl_buf_type(buf, ty));
	ocl_local_name(l, buf->name);
	str_printf(l, "[%lld];", (long long)type_numel(buf->type));
}

/* Emits one statement; returns the block it opens, if any. */
static PBlock *
stmt(Gen *g, Str *l, PStmt *s)
{
	char ty[16];
	switch (s->kind) {
	case S_FOR: {
		PVar *v = s->u.loop.var;
		if (g->full_unroll && s->fkind == FK_UNROLLED && s->u.loop.lo->kind == E_INT &&
		    s->u.loop.hi->kind == E_INT && s->u.loop.hi->u.i > s->u.loop.lo->u.i) {
			/* fully unrolled: one block per iteration (ocl_block) */
			str_printf(l, "{ const %s ", ocl_ctype(v->type->dt, ty));
			ocl_local_name(l, v->name);
			str_printf(l, " = %lld;", (long long)s->u.loop.lo->u.i);
			flush(g, l);
			return &s->u.loop.body;
		}
		if (s->fkind == FK_UNROLLED) {
			str_puts(l, "#pragma unroll");
			flush(g, l);
		}
		Str lo = {0}, hi = {0}, name = {0};
		ocl_expr(g, &lo, s->u.loop.lo);
		ocl_expr(g, &hi, s->u.loop.hi);
		ocl_local_name(&name, v->name);
		str_printf(l, "for (%s %s = %s; %s < %s; %s++) {", ocl_ctype(v->type->dt, ty), name.s,
		           lo.s, name.s, hi.s, name.s);
		str_free(&lo);
		str_free(&hi);
		str_free(&name);
		flush(g, l);
		return &s->u.loop.body;
	}
	case S_IF:
		str_puts(l, "if (");
		ocl_expr(g, l, s->u.cond.cond);
		str_puts(l, ") {");
		flush(g, l);
		return &s->u.cond.arms[0];
	case S_LET: {
		Str name = {0};
		ocl_local_name(&name, s->u.let.var->name);
		str_printf(l, "const %s %s = ", ocl_ctype(s->u.let.var->type->dt, ty), name.s);
		g->let_root = s->u.let.val;
		g->let_name = name.s;
		ocl_expr(g, l, s->u.let.val);
		g->let_root = NULL;
		str_puts(l, ";");
		str_free(&name);
		break;
	}
	case S_STORE:
		stmt_store(g, l, s);
		break;
	case S_ALLOC:
		stmt_alloc(g, l, s);
		if (!l->n)
			return NULL;
		break;
	case S_TEX_STORE:
		str_puts(l, "write_imagef(");
		ocl_local_name(l, s->u.tex.buf->name);
		str_puts(l, ", (int2)(");
		ocl_expr(g, l, s->u.tex.x);
		str_puts(l, ", ");
		ocl_expr(g, l, s->u.tex.y);
		str_puts(l, "), ");
		ocl_expr(g, l, s->u.tex.val);
		str_puts(l, ");");
		break;
	case S_BARRIER:
		str_puts(l, "barrier(CLK_LOCAL_MEM_FENCE);");
		break;
	case S_EVAL:
		if (s->u.eval->kind == E_CALL && s->u.eval->op == I_MEM_FENCE) {
			str_puts(l, "mem_fence(CLK_GLOBAL_MEM_FENCE);");
			break;
		}
		str_puts(l, "(void)(");
		ocl_expr(g, l, s->u.eval);
		str_puts(l, ");");
		break;
	case S_KERNEL:
		OCL_ERR(g, s->loc, "a kernel inside a kernel");
		return NULL;
	}
	flush(g, l);
	return NULL;
}

typedef struct {
	PStmt *next;
	PStmt *owner;     /* the if whose arm this is, or the loop unrolled */
	int arm;
	int64_t k;        /* a fully unrolled loop: the iteration */
} Frame;

static bool
unrolled(const Gen *g, const PStmt *s)
{
	return g->full_unroll && s->kind == S_FOR && s->fkind == FK_UNROLLED &&
	       s->u.loop.lo->kind == E_INT && s->u.loop.hi->kind == E_INT &&
	       s->u.loop.hi->u.i > s->u.loop.lo->u.i;
}

/* Forgets the texels read in the block that ends. */
static void
end_scope(Gen *g)
{
	while (g->ntexels && g->texels[g->ntexels - 1].depth >= g->depth) {
		Texel *t = &g->texels[--g->ntexels];
		free(t->key);
		free(t->name);
	}
}

void
ocl_block(Gen *g, PBlock *b)
{
	Str l = {0};
	Frame *st = NULL;
	size_t n = 0, cap = 0;
	int base = g->depth;
	VEC_PUSH(st, n, cap) = (Frame){b->first, NULL, 0, 0};
	while (n) {
		Frame *fr = &st[n - 1];
		if (fr->next) {
			PStmt *s = fr->next;
			fr->next = s->next;
			PBlock *inner = stmt(g, &l, s);
			if (inner) {
				g->depth++;
				PStmt *owner = s->kind == S_IF || unrolled(g, s) ? s : NULL;
				/* an if has no loop bounds (u is its condition) */
				int64_t lo = owner && owner->kind == S_FOR ? owner->u.loop.lo->u.i : 0;
				VEC_PUSH(st, n, cap) = (Frame){inner->first, owner, 0, lo};
			}
			continue;
		}
		Frame done = *fr;
		n--;
		if (n == 0)
			break;
		end_scope(g);
		g->depth--;
		ocl_indent(g, g->out);
		if (done.owner && done.owner->kind == S_FOR) {
			if (done.k + 1 < done.owner->u.loop.hi->u.i) {
				PVar *v = done.owner->u.loop.var;
				char ty[16];
				str_printf(g->out, "} { const %s ", ocl_ctype(v->type->dt, ty));
				ocl_local_name(g->out, v->name);
				str_printf(g->out, " = %lld;\n", (long long)done.k + 1);
				g->depth++;
				VEC_PUSH(st, n, cap) = (Frame){done.owner->u.loop.body.first, done.owner, 0,
				                                done.k + 1};
			} else {
				str_puts(g->out, "}\n");
			}
		} else if (done.owner && done.arm == 0 && done.owner->u.cond.has_else) {
			str_puts(g->out, "} else {\n");
			g->depth++;
			VEC_PUSH(st, n, cap) = (Frame){done.owner->u.cond.arms[1].first, done.owner, 1, 0};
		} else {
			str_puts(g->out, "}\n");
		}
	}
	end_scope(g);
	g->depth = base;
	free(st);
	str_free(&l);
}
