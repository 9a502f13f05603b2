/* emit_expr.c: loop-level expressions as OpenCL C.
 *
 * An expression is walked in postorder with an explicit stack (the rule
 * for every walk over user-controlled depth), each node's C text built
 * from its operands' and parenthesized only where C's precedence needs it.
 * Texel reads are hoisted into a `const float4` before the statement and
 * reused for the same texel later in scope (TVM's SSA texel reuse), so a
 * float4 is never assigned to a scalar: one channel is `.sK`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl_impl.h"
#include "tensor/tensor.h"
#include "walk.h"

/* C precedence levels: higher binds tighter. */
enum { P_COND = 3, P_OR = 4, P_AND = 5, P_EQ = 9, P_REL = 10, P_ADD = 12, P_MUL = 13,
       P_UNARY = 14, P_PRIMARY = 16 };

typedef struct {
	char *s;
	int prec;
} Text;

static int
binop_prec(int op)
{
	switch (op) {
	case OP_ADD: case OP_SUB: return P_ADD;
	case OP_MUL: case OP_DIV: case OP_MOD: return P_MUL;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: return P_REL;
	case OP_EQ: case OP_NE: return P_EQ;
	case OP_AND: return P_AND;
	default: return P_OR;
	}
}

static const char *
binop_text(int op)
{
	static const char *const t[] = {
		[OP_ADD] = " + ", [OP_SUB] = " - ", [OP_MUL] = " * ", [OP_DIV] = " / ",
		[OP_MOD] = " % ", [OP_LT] = " < ", [OP_LE] = " <= ", [OP_GT] = " > ",
		[OP_GE] = " >= ", [OP_EQ] = " == ", [OP_NE] = " != ", [OP_AND] = " && ",
		[OP_OR] = " || ",
	};
	return t[op];
}

/* Appends t, in parentheses when it binds looser than min. */
static void
put(Str *b, const Text *t, int min)
{
	if (t->prec < min) {
		str_puts(b, "(");
		str_puts(b, t->s);
		str_puts(b, ")");
	} else {
		str_puts(b, t->s);
	}
}

static void
int_literal(Str *b, DType dt, int64_t v, bool u64, int *prec)
{
	*prec = v < 0 ? P_UNARY : P_PRIMARY;
	switch (dt.kind) {
	case ET_I64:
		if (v == INT64_MIN)
			str_puts(b, "(-9223372036854775807L - 1L)"), *prec = P_PRIMARY;
		else
			str_printf(b, "%lldL", (long long)v);
		return;
	case ET_U64:
		str_printf(b, "%lluUL", (unsigned long long)v);
		return;
	case ET_U32:
		str_printf(b, "%lluU", (unsigned long long)(uint32_t)v);
		return;
	case ET_I32:
		if (v == INT32_MIN)
			str_puts(b, "(-2147483647 - 1)"), *prec = P_PRIMARY;
		else
			str_printf(b, "%lld", (long long)v);
		return;
	case ET_BOOL:
		str_puts(b, v ? "true" : "false");
		*prec = P_PRIMARY;
		return;
	default: {
		char t[16];
		if (u64)   /* above INT64_MAX, in a float type: v holds its bits */
			str_printf(b, "(%s)%lluUL", ocl_ctype((DType){dt.kind, 1}, t), (unsigned long long)v);
		else
			str_printf(b, "(%s)%lld", ocl_ctype((DType){dt.kind, 1}, t), (long long)v);
		*prec = P_UNARY;
		return;
	}
	}
}

static void
float_literal(Str *b, DType dt, double v, int *prec)
{
	*prec = P_PRIMARY;
	if (isnan(v)) {
		str_puts(b, "NAN");
		return;
	}
	if (isinf(v)) {
		str_puts(b, v < 0 ? "(-INFINITY)" : "INFINITY");
		return;
	}
	char buf[40];
	bool f64 = dt.kind == ET_F64;
	snprintf(buf, sizeof buf, f64 ? "%.17g" : "%.9g", v);
	/* the shortest text that reads back to the same value */
	for (int p = 1; p < (f64 ? 17 : 9); p++) {
		char t[40];
		snprintf(t, sizeof t, "%.*g", p, v);
		if (f64 ? strtod(t, NULL) == v : strtof(t, NULL) == (float)v) {
			memcpy(buf, t, sizeof t);
			break;
		}
	}
	if (!strpbrk(buf, ".eni"))
		strcat(buf, ".0");
	str_puts(b, buf);
	if (!f64)
		str_puts(b, "f");
	if (v < 0 || (v == 0 && signbit(v)))
		*prec = P_UNARY;
}

static const char hexlane[] = "0123456789abcdef";

/* A temporary holding t of type dt, declared in g->pre. */
static char *
hoist(Gen *g, DType dt, const char *t)
{
	char ty[16];
	Str name = {0};
	str_printf(&name, "irp_t%d", g->ntemps++);
	ocl_indent(g, &g->pre);
	str_printf(&g->pre, "const %s %s = %s;\n", ocl_ctype(dt, ty), name.s, t);
	return name.s;
}

static char *
texel_read(Gen *g, PExpr *e, const Text *x, const Text *y)
{
	Str key = {0};
	ocl_local_name(&key, e->u.tex.buf->name);
	str_printf(&key, ", irp_sampler, (int2)(%s, %s)", x->s, y->s);
	for (size_t i = g->ntexels; i-- > 0;)
		if (strcmp(g->texels[i].key, key.s) == 0) {
			str_free(&key);
			char *s = xmalloc(strlen(g->texels[i].name) + 1);
			strcpy(s, g->texels[i].name);
			return s;
		}
	Str call = {0};
	str_printf(&call, "read_imagef(%s)", key.s);
	char *name;
	if (e == g->let_root) {
		/* `let %w = texture2d_load(...)` reads into %w itself */
		name = xmalloc(strlen(g->let_name) + 1);
		strcpy(name, g->let_name);
		Texel *t = &VEC_PUSH(g->texels, g->ntexels, g->captexels);
		t->key = key.s;
		t->name = name;
		t->depth = g->depth;
		g->reads_images = true;
		return call.s;
	}
	name = hoist(g, (DType){ET_F32, 4}, call.s);
	str_free(&call);
	g->reads_images = true;
	Texel *t = &VEC_PUSH(g->texels, g->ntexels, g->captexels);
	t->key = key.s;
	t->name = xmalloc(strlen(name) + 1);
	strcpy(t->name, name);
	t->depth = g->depth;
	return name;
}

/* The linear index from the operands' texts, over the first n axes of
 * buf (n < rank: the index of a row of the axes after them). */
static void
linear_from(Str *b, const PVar *buf, Text *ix, uint32_t n)
{
	const Type *t = buf->type;
	int64_t stride = 1;
	int64_t strides[IR_MAX_RANK];
	if (n == 0) {
		str_puts(b, "0");
		return;
	}
	for (uint32_t d = n; d-- > 0;) {
		strides[d] = stride;
		stride *= t->dims[d];
	}
	bool any = false;
	for (uint32_t d = 0; d < n; d++) {
		if (strcmp(ix[d].s, "0") == 0 || t->dims[d] == 1)
			continue;
		if (any)
			str_puts(b, " + ");
		if (strides[d] == 1) {
			put(b, &ix[d], any ? P_ADD + 1 : P_ADD);
		} else {
			put(b, &ix[d], P_MUL);
			str_printf(b, " * %lld", (long long)strides[d]);
		}
		any = true;
	}
	if (!any)
		str_puts(b, "0");
}

/* Whether e is f16 arithmetic whose float result needs rounding to f16:
 * f16 is computed as float (ocl_impl.h), and the interpreter rounds every
 * f16 result, so an operation, an intrinsic that can leave f16's grid and
 * a conversion to f16 are rounded (irp_f16); loads, literals (rounded
 * when generated), negation, select, min, max, abs, floor and ceil of f16
 * operands are f16 values already, and a conversion from f16 to f32 is
 * exact. */
static bool
rounds_to_f16(const PExpr *e)
{
	if (e->dt.kind != ET_F16)
		return false;
	switch (e->kind) {
	case E_BIN:
		return e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL || e->op == OP_DIV ||
		       e->op == OP_MOD;
	case E_CAST:
		return e->u.cast.a->dt.kind != ET_F16 && e->u.cast.a->dt.kind != ET_BOOL;
	case E_CALL:
		switch ((IntrinId)e->op) {
		case I_LANE: case I_MIN: case I_MAX: case I_ABS: case I_FLOOR: case I_CEIL:
			return false;
		default:
			return true;
		}
	default:
		return false;
	}
}

/* The helpers rounding float to f16 (to nearest, ties to even) and back,
 * through a half in private memory, since a half value needs cl_khr_fp16:
 * one for each vector width the program uses. */
void
ocl_f16_helpers(const Gen *g, Str *b)
{
	if (!g->f16_round)
		return;
	str_puts(b, "// f16 is computed in float: irp_f16 rounds a result to f16, as the interpreter "
	         "does\n");
	for (unsigned n = 1; n <= 16; n++) {
		if (!(g->f16_round & (1u << n)))
			continue;
		if (n == 1)
			str_puts(b, "float irp_f16(float x) {\n  ushort h;\n"
			         "  vstore_half_rte(x, 0, (half *)&h);\n"
			         "  return vload_half(0, (const half *)&h);\n}\n");
		else
			str_printf(b, "float%u irp_f16x%u(float%u x) {\n  ushort h[%u];\n"
			           "  vstore_half%u_rte(x, 0, (half *)h);\n"
			           "  return vload_half%u(0, (const half *)h);\n}\n", n, n, n, n, n, n);
	}
	str_puts(b, "\n");
}

/* erf of float (and of f16, computed in float) as a rational function:
 * POCL's erf is a branchy scalar routine that no loop vectorizes, and in
 * GELU (a matrix product's epilogue) it took as long as the product
 * (vit_b_16's first MLP layer on 1 thread: 23 ms, 12 of them erf).  The
 * approximation is Eigen's (generic_fast_erf_float; XLA's too): x in
 * [-4, 4] (erf is +-1 in float beyond), x p(x^2) / q(x^2), within 8 ulp
 * of erf over the floats (OpenCL allows erf 16); NaN stays NaN.  One
 * helper per vector width the program uses; double keeps the built-in. */
void
ocl_erf_helpers(const Gen *g, Str *b)
{
	static const char *const num[] = {
		"-2.72614225801306e-10f", "2.77068142495902e-08f", "-2.10102402082508e-06f",
		"-5.69250639462346e-05f", "-7.34990630326855e-04f", "-2.95459980854025e-03f",
		"-1.60960333262415e-02f"};
	static const char *const den[] = {
		"-1.45660718464996e-05f", "-2.13374055278905e-04f", "-1.68282697438203e-03f",
		"-7.37332916720468e-03f", "-1.42647390514189e-02f"};
	if (!g->erf_lanes)
		return;
	str_puts(b, "// erf of float: Eigen's rational approximation (8 ulp), which vectorizes\n");
	for (unsigned n = 1; n <= 16; n++) {
		if (!(g->erf_lanes & (1u << n)))
			continue;
		char t[16];
		snprintf(t, sizeof t, n == 1 ? "float" : "float%u", n);
		if (n == 1)
			str_printf(b, "float irp_erf(float a) {\n");
		else
			str_printf(b, "%s irp_erfx%u(%s a) {\n", t, n, t);
		str_printf(b, "  const %s x = fmin(fmax(a, -4.0f), 4.0f), x2 = x * x;\n", t);
		str_printf(b, "  %s p = (%s)(%s), q = (%s)(%s);\n", t, t, num[0], t, den[0]);
		for (size_t i = 1; i < sizeof num / sizeof *num; i++)
			str_printf(b, "  p = fma(x2, p, (%s)(%s));\n", t, num[i]);
		for (size_t i = 1; i < sizeof den / sizeof *den; i++)
			str_printf(b, "  q = fma(x2, q, (%s)(%s));\n", t, den[i]);
		str_puts(b, "  return select(x * p / q, a, isnan(a));\n}\n");
	}
	str_puts(b, "\n");
}

/* A load: an element or a vector of a buffer, or of an array of rows. */
static void
load_text(Str *b, PExpr *e, Text *c, int *prec)
{
	char ty[16];
	PVar *buf = e->u.load.buf;
	uint32_t lanes = e->n ? e->u.load.idx[e->n - 1].lanes : 0;
	Str name = {0}, lin = {0};
	ocl_local_name(&name, buf->name);
	linear_from(&lin, buf, c, lanes > 1 && (buf->scratch & OV_VECARR) ? e->n - 1 : e->n);
	if (buf->scratch & OV_VECARR) {
		/* an array of rows: a whole row, a part of one, or one
		 * element through a pointer to the elements */
		int64_t part = lanes > 1 ? ocl_row_part(buf, e->u.load.idx, e->n) : -1;
		if (part >= 0)
			str_printf(b, "vload%u(%lld, (%s *)&%s[%s])", lanes, (long long)part,
			           ocl_buf_type(buf, ty), name.s, lin.s);
		else if (lanes > 1)
			str_printf(b, "%s[%s]", name.s, lin.s);
		else
			str_printf(b, "((%s *)%s)[%s]", ocl_buf_type(buf, ty), name.s, lin.s);
	} else if (ocl_half_mem(buf)) {
		if (lanes > 1)
			str_printf(b, "vload_half%u(0, %s + %s)", lanes, name.s, lin.s);
		else
			str_printf(b, "vload_half(0, %s + %s)", name.s, lin.s);
	} else if (lanes > 1) {
		str_printf(b, "vload%u(0, %s + %s)", lanes, name.s, lin.s);
	} else if (buf->type->dt.kind == ET_BOOL) {
		str_printf(b, "(bool)%s[%s]", name.s, lin.s);
		*prec = P_UNARY;
	} else {
		str_printf(b, "%s[%s]", name.s, lin.s);
	}
	str_free(&name);
	str_free(&lin);
}

/* A binary operation; a float remainder is fmod. */
static void
bin_text(Str *b, PExpr *e, Text *c, int *prec)
{
	int p = binop_prec(e->op);
	bool fl = elem_is_float((ElemKind)e->u.ops.a->dt.kind);
	if (e->op == OP_MOD && fl) {
		str_puts(b, "fmod(");
		put(b, &c[0], 0);
		str_puts(b, ", ");
		put(b, &c[1], 0);
		str_puts(b, ")");
		return;
	}
	put(b, &c[0], p);
	str_puts(b, binop_text(e->op));
	put(b, &c[1], p + 1);
	*prec = p;
}

/* A conversion, as the interpreter converts. */
static void
cast_text(Str *b, PExpr *e, Text *c, int *prec)
{
	char ty[16];
	DType from = e->u.cast.a->dt, to = e->dt;
	bool same = from.kind == to.kind ||
	            ((from.kind == ET_F16 || from.kind == ET_F32) &&
	             (to.kind == ET_F16 || to.kind == ET_F32));
	if (same) {
		str_puts(b, c[0].s);
		*prec = c[0].prec;
	} else if (to.kind == ET_BOOL) {
		put(b, &c[0], P_EQ + 1);
		str_puts(b, " != 0");
		*prec = P_EQ;
	} else if (from.kind == ET_BOOL && to.lanes > 1) {
		/* OpenCL has no C casts between vector types, and a bool
		 * vector is 0/1 lanes from memory (uchar) but 0/-1 from a
		 * comparison: the absolute value as int is 0/1 in both */
		str_printf(b, "convert_%s(abs(convert_int%u(%s)))", ocl_ctype(to, ty),
		           (unsigned)to.lanes, c[0].s);
	} else if (from.kind == ET_BOOL) {
		str_printf(b, "(%s)", ocl_ctype(to, ty));
		put(b, &c[0], P_UNARY);
		*prec = P_UNARY;
	} else if (elem_is_float(from.kind) && !elem_is_float(to.kind)) {
		/* float to integer truncates and saturates (NaN gives 0), as
		 * the interpreter does; without _sat OpenCL leaves values out
		 * of range undefined (POCL wraps -1.5 to u64 0xff...) */
		str_printf(b, "convert_%s_sat(%s)", ocl_ctype(to, ty), c[0].s);
	} else {
		str_printf(b, "convert_%s(%s)", ocl_ctype(to, ty), c[0].s);
	}
}

/* An intrinsic: lane() as a component or through a pointer, sigmoid
 * spelled out, erf of float by irp_erf (ocl_erf_helpers), the rest by
 * their OpenCL names. */
static void
call_text(Gen *g, Str *b, PExpr *e, Text *c, int *prec)
{
	char ty[16];
	IntrinId fn = (IntrinId)e->op;
	bool fl = elem_is_float((ElemKind)e->dt.kind);
	if (fn == I_LANE) {
		PExpr *k = e->u.call.args[1];
		if (k->kind == E_INT && k->u.i >= 0 && k->u.i < 16) {
			put(b, &c[0], P_PRIMARY);
			str_printf(b, ".s%c", hexlane[k->u.i]);
		} else {
			/* a lane chosen at run time: through a pointer to a
			 * named vector (a temporary unless it is one) */
			int k0 = e->u.call.args[0]->kind;
			char *t = k0 == E_VAR || k0 == E_TEX_LOAD ? NULL
			          : hoist(g, e->u.call.args[0]->dt, c[0].s);
			str_printf(b, "((const %s *)&%s)[%s]", ocl_ctype(e->dt, ty), t ? t : c[0].s,
			           c[1].s);
			free(t);
		}
		return;
	}
	if (fn == I_ATOMIC_ADD) {
		/* the element's text is buf[i] (a scalar i32 of a global buffer) */
		str_printf(b, "atomic_add(&%s, %s)", c[0].s, c[1].s);
		return;
	}
	if (fn == I_SIGMOID) {
		const char *one = e->dt.kind == ET_F64 ? "1.0" : "1.0f";
		str_printf(b, "%s / (%s + exp(-", one, one);
		put(b, &c[0], P_UNARY);
		str_puts(b, "))");
		*prec = P_MUL;
		return;
	}
	if (fn == I_ERF && e->dt.kind != ET_F64) {
		unsigned n = e->dt.lanes > 1 ? e->dt.lanes : 1;
		if (n > 1)
			str_printf(b, "irp_erfx%u(%s)", n, c[0].s);
		else
			str_printf(b, "irp_erf(%s)", c[0].s);
		g->erf_lanes |= 1u << n;
		return;
	}
	const char *name = fn < I__COUNT ? intrin_def(fn)->opencl : NULL;
	if (!fl) {
		name = fn == I_MIN ? "min" : fn == I_MAX ? "max" : fn == I_ABS ? "abs" : NULL;
	}
	if (!name) {
		OCL_ERR(g, e->loc, "'%s' has no OpenCL C spelling for %s", e->u.call.fn,
		        ocl_ctype(e->dt, ty));
		name = "irp_unsupported";
	}
	if (fn == I_ABS && !fl)   /* abs of a signed integer is unsigned */
		str_printf(b, "convert_%s(", ocl_ctype(e->dt, ty));
	str_printf(b, "%s(", name);
	for (uint32_t i = 0; i < e->n && i < 3; i++) {
		if (i)
			str_puts(b, ", ");
		str_puts(b, c[i].s);
	}
	str_puts(b, fn == I_ABS && !fl ? "))" : ")");
}

/* e's text from its operands' texts c (in order), rounded to f16 where
 * the interpreter rounds. */
static Text
node(Gen *g, PExpr *e, Text *c)
{
	Str b = {0};
	char ty[16];
	int prec = P_PRIMARY;
	switch (e->kind) {
	case E_INT:
		if (e->dt.kind == ET_F16)   /* rounded here, as the interpreter does */
			float_literal(&b, e->dt, f16_to_double(f16_from_double(
			              e->op == E_INT_U64 ? (double)(uint64_t)e->u.i : (double)e->u.i)),
			              &prec);
		else
			int_literal(&b, e->dt, e->u.i, e->op == E_INT_U64, &prec);
		break;
	case E_FLOAT:
		float_literal(&b, e->dt, e->dt.kind == ET_F16 ? f16_to_double(f16_from_double(e->u.f))
		                                              : e->u.f, &prec);
		break;
	case E_BOOL:
		str_puts(&b, e->u.i ? "true" : "false");
		break;
	case E_VAR:
		ocl_local_name(&b, e->u.var->name);
		break;
	case E_LOAD:
		load_text(&b, e, c, &prec);
		break;
	case E_TEX_LOAD: {
		char *t = texel_read(g, e, &c[0], &c[1]);
		str_puts(&b, t);
		free(t);
		break;
	}
	case E_BIN:
		bin_text(&b, e, c, &prec);
		break;
	case E_UN:
		str_puts(&b, e->op == OP_NEG ? "-" : "!");
		put(&b, &c[0], P_UNARY);
		prec = P_UNARY;
		break;
	case E_SELECT:
		put(&b, &c[0], P_OR);
		str_puts(&b, " ? ");
		put(&b, &c[1], P_OR);
		str_puts(&b, " : ");
		put(&b, &c[2], P_COND);
		prec = P_COND;
		break;
	case E_CAST:
		cast_text(&b, e, c, &prec);
		break;
	case E_BROADCAST:
		str_printf(&b, "(%s)(%s)", ocl_ctype(e->dt, ty), c[0].s);
		prec = P_UNARY;
		break;
	case E_CALL:
		call_text(g, &b, e, c, &prec);
		break;
	}
	if (e->dt.kind == ET_F64)
		g->uses_f64 = true;
	if (!b.s)
		str_puts(&b, "");
	if (rounds_to_f16(e)) {
		unsigned n = e->dt.lanes > 1 ? e->dt.lanes : 1;
		Str r = {0};
		if (n > 1)
			str_printf(&r, "irp_f16x%u(%s)", n, b.s);
		else
			str_printf(&r, "irp_f16(%s)", b.s);
		g->f16_round |= 1u << n;
		str_free(&b);
		return (Text){r.s, P_PRIMARY};
	}
	return (Text){b.s, prec};
}

static Text
expr_text(Gen *g, PExpr *root)
{
	PtrVec st = {0}, post = {0};
	ptrvec_push(&st, root);
	while (st.n) {
		PExpr *e = st.v[--st.n];
		ptrvec_push(&post, e);
		for (uint32_t i = 0, n = pexpr_noperands(e); i < n; i++)
			ptrvec_push(&st, pexpr_operand(e, i));
	}
	Text *vals = NULL;
	size_t nv = 0, cap = 0;
	for (size_t i = post.n; i-- > 0;) {
		PExpr *e = post.v[i];
		uint32_t n = pexpr_noperands(e);
		/* a leaf's operands are none: not vals + 0 while vals is NULL
		 * (undefined: clang's sanitizer stops there, make fuzz) */
		Text t = node(g, e, n ? vals + nv - n : NULL);
		for (uint32_t k = 0; k < n; k++)
			free(vals[nv - n + k].s);
		nv -= n;
		VEC_PUSH(vals, nv, cap) = t;
	}
	Text r = vals[0];
	free(vals);
	ptrvec_free(&st);
	ptrvec_free(&post);
	return r;
}

void
ocl_expr(Gen *g, Str *out, PExpr *e)
{
	Text t = expr_text(g, e);
	str_puts(out, t.s);
	free(t.s);
}

int64_t
ocl_row_part(const PVar *buf, const PIndex *idx, uint32_t n)
{
	const PIndex *last = &idx[n - 1];
	int64_t d = buf->type->dims[n - 1], l = last->lanes;
	if (l < 2 || l >= d || d % l || last->e->kind != E_INT || last->e->u.i < 0 || last->e->u.i % l ||
	    last->e->u.i + l > d)
		return -1;
	return last->e->u.i / l;
}

void
ocl_linear_index(Gen *g, Str *b, const PVar *buf, const PIndex *idx, uint32_t n)
{
	Text ix[IR_MAX_RANK];
	for (uint32_t d = 0; d < n; d++)
		ix[d] = expr_text(g, idx[d].e);
	bool rows = n && idx[n - 1].lanes > 1 && (buf->scratch & OV_VECARR);
	linear_from(b, buf, ix, rows ? n - 1 : n);
	for (uint32_t d = 0; d < n; d++)
		free(ix[d].s);
}
