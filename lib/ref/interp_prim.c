/* interp_prim.c: the loop-level interpreter (see interp_prim.h).
 *
 * Statements run on an explicit stack (a prim may nest ten thousand
 * deep); expressions recurse, their depth being capped by the parser.
 * Scalars (parameters, loop variables, lets) live in slots numbered once
 * per run through PVar.scratch; buffers (parameters and allocs) likewise
 * in a second table.  The numbering is a preorder walk, so the variables
 * defined inside one statement have consecutive slots: a work item's own
 * state, under a barrier, is one range of each table.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_prim.h"
#include "texture/texture.h"
#include "walk.h"

#define MAX_LANES 16

/* Saving every work item's state costs memory per item; a work group is
 * at most a few thousand items on real devices. */
#define MAX_WORK_ITEMS 65536

/* One lane of a value: the element type (the expression's .dt) says which
 * member holds it.  Integers are kept sign- or zero-extended from their
 * width, so comparisons and division need no further masking. */
typedef union {
	int64_t i;
	double f;
} Lane;

typedef struct {
	Lane l[MAX_LANES];
} Val;

/* A block being run: owner is the S_FOR, S_IF or S_KERNEL whose block it
 * is (NULL: the prim's body, or a barrier segment). */
typedef struct {
	const PStmt *owner;
	const PStmt *next;    /* next statement to run */
	int64_t cur, hi;      /* S_FOR: the iteration and the bound */
	Lane *var;            /* S_FOR: its variable's slot (else NULL) */
	ElemKind kind;        /* S_FOR: its variable's kind */
} Frame;

/* The tensors of one alloc statement, reused each time it runs: t[0] in
 * ordinary runs, t[item] per work item of a barrier run (memory private
 * to a work item), t[0] for the whole group where the scope is shared. */
typedef struct {
	PtrVec t;
	uint64_t poisoned;    /* shared: the barrier run that last poisoned t[0] */
} AllocCache;

typedef struct {
	Ctx *ctx;
	const Prim *p;
	Val *slot;            /* scalars */
	Tensor **buf;         /* buffers: the arguments, then the allocs */
	uint32_t nargbufs;
	AllocCache *cache;    /* per alloc: buf[nargbufs + i] comes from cache[i] */
	Frame *st;            /* the statement stack, shared by nested runs */
	size_t nst, capst;
	bool phased;          /* inside a barrier run */
	uint64_t phase_run;   /* counts barrier runs, for AllocCache.poisoned */
	size_t item;          /* the work item running, in a barrier run */
	MemBudget *mem;       /* the run's memory limit, for allocs; or NULL */
	uint64_t mem_taken;   /* what the allocs took from it */
	const PrimPlan *plan; /* NULL: every alloc its own */
	PtrVec views;         /* tensors whose data is the plan's */
	struct Code *code;    /* the scalar expressions, compiled (see below) */
	bool bad;             /* a compiled expression failed (and said so) */
} Run;

static bool fail(Run *r, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
fail(Run *r, Loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	error_at(r->ctx, loc, "in @%s: %s", r->p->name, msg);
	return false;
}

/* ------------------------------------------------------------ numbering */

/* Numbers the scalars and allocs in preorder, so each statement's own
 * definitions are consecutive. */
static void
number_stmts(const PBlock *body, uint32_t *ns, uint32_t *nb)
{
	PrimWalk w;
	pwalk_start(&w, body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		if (s->kind == S_FOR)
			s->u.loop.var->scratch = (*ns)++;
		else if (s->kind == S_LET)
			s->u.let.var->scratch = (*ns)++;
		else if (s->kind == S_ALLOC)
			s->u.alloc.buf->scratch = (*nb)++;
	}
}

/* Widens [*lo, *hi) to hold v. */
static void
widen(uint32_t *lo, uint32_t *hi, uint32_t v)
{
	if (v < *lo)
		*lo = v;
	if (v + 1 > *hi)
		*hi = v + 1;
}

/* The scalar and buffer slots defined inside loop (its variable
 * included): [*s0, *s1) and [*b0, *b1). */
static void
slot_ranges(const PStmt *loop, uint32_t *s0, uint32_t *s1, uint32_t *b0, uint32_t *b1)
{
	*s0 = *s1 = (uint32_t)loop->u.loop.var->scratch;
	(*s1)++;
	*b0 = UINT32_MAX;
	*b1 = 0;
	PrimWalk w;
	pwalk_start(&w, &loop->u.loop.body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		if (s->kind == S_FOR)
			widen(s0, s1, (uint32_t)s->u.loop.var->scratch);
		else if (s->kind == S_LET)
			widen(s0, s1, (uint32_t)s->u.let.var->scratch);
		else if (s->kind == S_ALLOC)
			widen(b0, b1, (uint32_t)s->u.alloc.buf->scratch);
	}
	if (*b0 > *b1)
		*b0 = *b1 = 0;
}

/* ---------------------------------------------------------- arithmetic */

/* elem_is_float and elem_is_signed, inlined: they run for every lane. */
static inline bool
is_float(ElemKind k)
{
	return k == ET_F16 || k == ET_F32 || k == ET_F64;
}

static inline bool
is_unsigned(ElemKind k)
{
	return k == ET_BOOL || k == ET_U8 || k == ET_U16 || k == ET_U32 || k == ET_U64;
}

/* Every lane of every operation goes through these: inlined, always. */
#define HOT static inline __attribute__((always_inline))

/* v wrapped to the width of k, as a conversion to that type does. */
HOT int64_t
wrap(ElemKind k, int64_t v)
{
	uint64_t u = (uint64_t)v;
	switch (k) {
	case ET_BOOL: return v != 0;
	case ET_I8: return (int8_t)(uint8_t)(u & 0xff);
	case ET_I16: return (int16_t)(uint16_t)(u & 0xffff);
	case ET_I32: return (int32_t)(uint32_t)(u & 0xffffffffu);
	case ET_U8: return (int64_t)(u & 0xff);
	case ET_U16: return (int64_t)(u & 0xffff);
	case ET_U32: return (int64_t)(u & 0xffffffffu);
	default: return v;
	}
}

/* v rounded to float type k: f32 code gives f32 results. */
HOT double
round_to(ElemKind k, double v)
{
	if (k == ET_F32)
		return (double)(float)v;
	if (k == ET_F16)
		return f16_to_double(f16_from_double(v));
	return v;
}

/* An integer lane of kind k converted to float kind to, rounded once (an
 * i64 through double to f32 could round twice). */
static double
int_to_float(ElemKind k, int64_t v, ElemKind to)
{
	bool uns = is_unsigned(k);
	if (to == ET_F32)
		return uns ? (double)(float)(uint64_t)v : (double)(float)v;
	return round_to(to, uns ? (double)(uint64_t)v : (double)v);
}

/* An integer of kind k as a signed count for loop bounds and indices: a u64
 * beyond INT64_MAX saturates, being out of any bound anyway. */
static int64_t
as_count(ElemKind k, int64_t v)
{
	return k == ET_U64 && v < 0 ? INT64_MAX : v;
}

static double
intrinsic_f(IntrinId fn, double a, double b, double c)
{
	switch (fn) {
	case I_MIN: return isnan(a) ? a : isnan(b) ? b : a < b ? a : b;
	case I_MAX: return isnan(a) ? a : isnan(b) ? b : a > b ? a : b;
	case I_ABS: return fabs(a);
	case I_EXP: return exp(a);
	case I_LOG: return log(a);
	case I_SQRT: return sqrt(a);
	case I_RSQRT: return 1.0 / sqrt(a);
	case I_TANH: return tanh(a);
	case I_SIGMOID: return 1.0 / (1.0 + exp(-a));
	case I_ERF: return erf(a);
	case I_SIN: return sin(a);
	case I_COS: return cos(a);
	case I_ASIN: return asin(a);
	case I_ACOS: return acos(a);
	case I_ATAN: return atan(a);
	case I_FLOOR: return floor(a);
	case I_CEIL: return ceil(a);
	case I_POW: return pow(a, b);
	case I_FMA: return fma(a, b, c);
	case I_LANE: case I_ATOMIC_ADD: case I_MEM_FENCE: case I__COUNT:
		break;      /* eval handles these; the verifier the rest */
	}
	return NAN;
}

/* min, max and abs on integers (the verifier allows no others). */
static int64_t
intrinsic_i(IntrinId fn, int64_t a, int64_t b, bool uns)
{
	switch (fn) {
	case I_MIN: return (uns ? (uint64_t)a < (uint64_t)b : a < b) ? a : b;
	case I_MAX: return (uns ? (uint64_t)a > (uint64_t)b : a > b) ? a : b;
	case I_ABS: return uns || a >= 0 ? a : (int64_t)(0 - (uint64_t)a);
	default: return a;
	}
}

/* a op b on one lane, the operands being of kind k: false on an integer
 * division or modulo by zero (which the caller reports). */
HOT bool
bin_lane(PBinOp op, ElemKind k, Lane a, Lane b, Lane *out)
{
	bool fl = is_float(k), uns = is_unsigned(k);
	if (op >= OP_LT && op <= OP_OR) {
		double x = a.f, y = b.f;
		int64_t i = a.i, j = b.i;
		uint64_t ui = (uint64_t)i, uj = (uint64_t)j;
		bool v = false;
		switch (op) {
		case OP_LT: v = fl ? x < y : uns ? ui < uj : i < j; break;
		case OP_LE: v = fl ? x <= y : uns ? ui <= uj : i <= j; break;
		case OP_GT: v = fl ? x > y : uns ? ui > uj : i > j; break;
		case OP_GE: v = fl ? x >= y : uns ? ui >= uj : i >= j; break;
		case OP_EQ: v = fl ? x == y : i == j; break;
		case OP_NE: v = fl ? x != y : i != j; break;
		case OP_AND: v = i && j; break;
		case OP_OR: v = i || j; break;
		default: break;
		}
		out->i = v;
		return true;
	}
	if (fl) {
		double x = a.f, y = b.f, v = 0;
		switch (op) {
		case OP_ADD: v = x + y; break;
		case OP_SUB: v = x - y; break;
		case OP_MUL: v = x * y; break;
		case OP_DIV: v = x / y; break;
		default: break;
		}
		out->f = round_to(k, v);
		return true;
	}
	/* Integers: exact modulo 2^64 in unsigned arithmetic (no signed
	 * overflow), then wrapped to the type's width. */
	int64_t i = a.i, j = b.i;
	uint64_t ui = (uint64_t)i, uj = (uint64_t)j, v = 0;
	switch (op) {
	case OP_ADD: v = ui + uj; break;
	case OP_SUB: v = ui - uj; break;
	case OP_MUL: v = ui * uj; break;
	case OP_DIV:
	case OP_MOD:
		if (j == 0)
			return false;
		if (uns)
			v = op == OP_DIV ? ui / uj : ui % uj;
		else if (i == INT64_MIN && j == -1)
			v = op == OP_DIV ? ui : 0;   /* wraps, as smaller types do */
		else
			v = (uint64_t)(op == OP_DIV ? i / j : i % j);
		break;
	default: break;
	}
	out->i = wrap(k, (int64_t)v);
	return true;
}

static bool
division_by_zero(Run *r, const PExpr *e)
{
	return fail(r, e->loc, "integer %s by zero", e->op == OP_DIV ? "division" : "modulo");
}

/* -a or !a on one lane of kind k. */
static inline Lane
un_lane(PBinOp op, ElemKind k, Lane a)
{
	if (op == OP_NOT)
		a.i = !a.i;
	else if (is_float(k))
		a.f = -a.f;
	else
		a.i = wrap(k, (int64_t)(0 - (uint64_t)a.i));
	return a;
}

/* a, of element kind from, converted as tensor_set would store it into
 * an element of kind to. */
static inline Lane
convert_lane(ElemKind from, ElemKind to, Lane a)
{
	Lane v;
	if (is_float(to))
		v.f = is_float(from) ? round_to(to, a.f) : int_to_float(from, a.i, to);
	else if (is_float(from))
		v.i = elem_int_from_double(to, a.f);
	else
		v.i = wrap(to, a.i);
	return v;
}

/* Intrinsic fn (one with one to three operands, no lane, atomic or fence)
 * on one lane of kind k. */
static inline Lane
call_lane(IntrinId fn, ElemKind k, const Lane *v)
{
	Lane out;
	if (is_float(k))
		out.f = round_to(k, intrinsic_f(fn, v[0].f, v[1].f, v[2].f));
	else
		out.i = wrap(k, intrinsic_i(fn, v[0].i, v[1].i, is_unsigned(k)));
	return out;
}

/* Element i of t as a lane: tensor_get or tensor_get_int, with the
 * commonest kinds inline. */
static inline Lane
load_lane(const Tensor *t, int64_t i)
{
	Lane v;
	if (t->kind == ET_F32)
		v.f = ((const float *)t->data)[i];
	else if (t->kind == ET_I32)
		v.i = ((const int32_t *)t->data)[i];
	else if (is_float(t->kind))
		v.f = tensor_get(t, i);
	else
		v.i = tensor_get_int(t, i);
	return v;
}

/* Stores a lane into element i of t, as tensor_set or tensor_set_int. */
static inline void
store_lane(Tensor *t, int64_t i, Lane v)
{
	if (t->kind == ET_F32)
		((float *)t->data)[i] = (float)v.f;
	else if (t->kind == ET_I32)
		((uint32_t *)t->data)[i] = (uint32_t)(uint64_t)v.i;
	else if (is_float(t->kind))
		tensor_set(t, i, v.f);
	else
		tensor_set_int(t, i, v.i);
}

static bool eval(Run *r, const PExpr *e, Val *out);
static bool eval1(Run *r, const PExpr *e, Lane *out);

/* eval1 with a scalar variable, the commonest operand, read in place
 * rather than through a call. */
static inline bool
operand(Run *r, const PExpr *e, Lane *out)
{
	if (e->kind == E_VAR && e->dt.lanes <= 1) {
		*out = r->slot[e->u.var->scratch].l[0];
		return true;
	}
	return eval1(r, e, out);
}

/* An index out of bounds: i (raw, the lane read) of kind k on axis d. */
static bool __attribute__((noinline))
index_error(Run *r, const PVar *b, const PIndex *ix, uint32_t d, ElemKind k, int64_t raw,
            int64_t size, Loc loc)
{
	char at[48];
	if (k == ET_U64)
		snprintf(at, sizeof at, "%llu", (unsigned long long)raw);
	else
		snprintf(at, sizeof at, "%lld", (long long)as_count(k, raw));
	if (ix->lanes)
		return fail(r, loc, "lanes %s:%u are out of bounds for axis %u of '%%%s' (size %lld)",
		            at, (unsigned)ix->lanes, (unsigned)d, b->name, (long long)size);
	return fail(r, loc, "index %s is out of bounds for axis %u of '%%%s' (size %lld)", at,
	            (unsigned)d, b->name, (long long)size);
}

/* The element offset of an index into buffer b, bounds-checked, and the
 * number of consecutive elements it covers (a lane run on the last axis). */
static bool
offset(Run *r, const PVar *b, const PIndex *idx, uint32_t n, Loc loc, int64_t *off,
       uint32_t *lanes)
{
	const Tensor *t = r->buf[b->scratch];
	if (!t)   /* the scope rules make this impossible; do not crash on it */
		return fail(r, loc, "internal error: '%%%s' is used before its alloc ran", b->name);
	int64_t o = 0;
	*lanes = 1;
	for (uint32_t d = 0; d < n; d++) {
		Lane v;
		if (!operand(r, idx[d].e, &v))
			return false;
		ElemKind k = (ElemKind)idx[d].e->dt.kind;
		int64_t i = as_count(k, v.i), size = t->dims[d];
		uint32_t l = idx[d].lanes ? idx[d].lanes : 1;
		if (i < 0 || i > size - (int64_t)l)
			return index_error(r, b, &idx[d], d, k, v.i, size, loc);
		o = o * size + i;
		*lanes = l;
	}
	*off = o;
	return true;
}

/* The element offset of texel (x, y) of image b, bounds-checked: the
 * image is the N-d buffer itself, row-major order being the same
 * (texture.h). */
static bool
texel(Run *r, const PVar *b, const PExpr *xe, const PExpr *ye, Loc loc, int64_t *off)
{
	const Tensor *t = r->buf[b->scratch];
	if (!t)
		return fail(r, loc, "internal error: '%%%s' is used before its alloc ran", b->name);
	int64_t wh[2];
	char why[256];
	if (!texture_image(b->type, b->vd->scope, wh, why, sizeof why))
		return fail(r, loc, "'%%%s' is not an image: %s", b->name, why);
	Lane v[2];
	if (!eval1(r, xe, &v[0]) || !eval1(r, ye, &v[1]))
		return false;
	int64_t c[2];
	for (int i = 0; i < 2; i++) {
		ElemKind k = (ElemKind)(i ? ye : xe)->dt.kind;
		c[i] = as_count(k, v[i].i);
		if (c[i] < 0 || c[i] >= wh[i]) {
			char at[48];
			if (k == ET_U64)
				snprintf(at, sizeof at, "%llu", (unsigned long long)v[i].i);
			else
				snprintf(at, sizeof at, "%lld", (long long)c[i]);
			return fail(r, loc, "texel %s %s is out of bounds for '%%%s', an image %lld wide "
			            "and %lld high", i ? "y" : "x", at, b->name, (long long)wh[0],
			            (long long)wh[1]);
		}
	}
	*off = (c[1] * wh[0] + c[0]) * 4;
	return true;
}

/* A literal of kind k. */
static inline Lane
literal(const PExpr *e, ElemKind k)
{
	Lane v;
	if (e->kind == E_FLOAT)
		v.f = round_to(k, e->u.f);
	else if (e->kind == E_BOOL)
		v.i = e->u.i != 0;
	else if (is_float(k))
		v.f = int_to_float(e->op == E_INT_U64 ? ET_U64 : ET_I64, e->u.i, k);
	else
		v.i = wrap(k, e->u.i);
	return v;
}

/* Is fn an intrinsic that call_lane computes? */
static inline bool
lanewise_call(const PExpr *e)
{
	IntrinId fn = (IntrinId)e->op;
	return fn != I_LANE && fn != I_MEM_FENCE && fn != I_ATOMIC_ADD && fn < I__COUNT &&
	       e->n >= 1 && e->n <= 3;
}

/* Recursion: the parser caps expression depth at IR_MAX_EXPR_DEPTH.
 * Only the expression's lanes of out are written; most code is scalar
 * and goes through eval1 instead. */
static bool
eval(Run *r, const PExpr *e, Val *out)
{
	ElemKind k = (ElemKind)e->dt.kind;
	int lanes = e->dt.lanes ? e->dt.lanes : 1;
	switch (e->kind) {
	case E_INT:
	case E_FLOAT:
	case E_BOOL:
		out->l[0] = literal(e, k);
		return true;
	case E_VAR: {
		/* Most values are scalars: a plain copy beats memcpy's setup. */
		const Lane *v = r->slot[e->u.var->scratch].l;
		for (int l = 0; l < lanes; l++)
			out->l[l] = v[l];
		return true;
	}
	case E_LOAD: {
		int64_t off;
		uint32_t n;
		if (!offset(r, e->u.load.buf, e->u.load.idx, e->n, e->loc, &off, &n))
			return false;
		const Tensor *t = r->buf[e->u.load.buf->scratch];
		for (uint32_t l = 0; l < n; l++)
			out->l[l] = load_lane(t, off + l);
		return true;
	}
	case E_TEX_LOAD: {
		int64_t off;
		if (!texel(r, e->u.tex.buf, e->u.tex.x, e->u.tex.y, e->loc, &off))
			return false;
		const Tensor *t = r->buf[e->u.tex.buf->scratch];
		for (int l = 0; l < 4; l++)
			out->l[l] = load_lane(t, off + l);
		return true;
	}
	case E_BIN: {
		Val b;
		if (!eval(r, e->u.ops.a, out) || !eval(r, e->u.ops.b, &b))
			return false;
		ElemKind ka = (ElemKind)e->u.ops.a->dt.kind;
		for (int l = 0; l < e->dt.lanes; l++)
			if (!bin_lane((PBinOp)e->op, ka, out->l[l], b.l[l], &out->l[l]))
				return division_by_zero(r, e);
		return true;
	}
	case E_UN:
		if (!eval(r, e->u.ops.a, out))
			return false;
		for (int l = 0; l < lanes; l++)
			out->l[l] = un_lane((PBinOp)e->op, k, out->l[l]);
		return true;
	case E_SELECT: {
		/* Both values are evaluated, as OpenCL's select does: the
		 * lowering relies on it only where both are defined. */
		Val c, b;
		if (!eval(r, e->u.ops.a, &c) || !eval(r, e->u.ops.b, out) ||
		    !eval(r, e->u.ops.c, &b))
			return false;
		bool one = e->u.ops.a->dt.lanes <= 1;
		for (int l = 0; l < lanes; l++)
			if (!c.l[one ? 0 : l].i)
				out->l[l] = b.l[l];
		return true;
	}
	case E_CAST: {
		if (!eval(r, e->u.cast.a, out))
			return false;
		ElemKind from = (ElemKind)e->u.cast.a->dt.kind;
		for (int l = 0; l < lanes; l++)
			out->l[l] = convert_lane(from, k, out->l[l]);
		return true;
	}
	case E_BROADCAST:
		if (!eval1(r, e->u.cast.a, &out->l[0]))
			return false;
		for (int l = 1; l < lanes; l++)
			out->l[l] = out->l[0];
		return true;
	case E_CALL: {
		IntrinId fn = (IntrinId)e->op;
		if (fn == I_LANE) {
			/* the verifier checked a literal lane number; others here */
			Val v;
			Lane kv;
			const PExpr *ke = e->u.call.args[1];
			if (!eval(r, e->u.call.args[0], &v) || !eval1(r, ke, &kv))
				return false;
			int64_t k = as_count((ElemKind)ke->dt.kind, kv.i);
			int n = e->u.call.args[0]->dt.lanes;
			if (k < 0 || k >= n)
				return fail(r, e->loc, "lane %lld of a vector of %d lanes", (long long)k, n);
			out->l[0] = v.l[k];
			return true;
		}
		if (fn == I_MEM_FENCE) {
			/* work groups run one after another here, each item's
			 * stores seen at once: nothing to order */
			out->l[0].i = 0;
			return true;
		}
		if (fn == I_ATOMIC_ADD) {
			/* one item at a time: the add is indivisible already */
			const PExpr *el = e->u.call.args[0];
			int64_t off;
			uint32_t n;
			Lane v;
			if (!eval1(r, e->u.call.args[1], &v) ||
			    !offset(r, el->u.load.buf, el->u.load.idx, el->n, el->loc, &off, &n))
				return false;
			Tensor *t = r->buf[el->u.load.buf->scratch];
			out->l[0].i = tensor_get_int(t, off);
			tensor_set_int(t, off, wrap(ET_I32, out->l[0].i + v.i));
			return true;
		}
		if (!lanewise_call(e))
			return fail(r, e->loc, "unknown intrinsic '%s'", e->u.call.fn);
		Val v[3];
		for (uint32_t i = 0; i < e->n; i++)
			if (!eval(r, e->u.call.args[i], &v[i]))
				return false;
		for (int l = 0; l < lanes; l++) {
			Lane x[3] = {{0}, {0}, {0}};
			for (uint32_t i = 0; i < e->n; i++)
				x[i] = v[i].l[l];
			out->l[l] = call_lane(fn, k, x);
		}
		return true;
	}
	}
	return fail(r, e->loc, "internal error: unknown expression kind %d", e->kind);
}

/* Lane 0 of eval(e), out of line: the Val stays out of eval1's frame. */
static bool __attribute__((noinline))
eval_lane0(Run *r, const PExpr *e, Lane *out)
{
	Val v;
	if (!eval(r, e, &v))
		return false;
	*out = v.l[0];
	return true;
}

/* Lane 0 of eval(e), the fast path for scalar code (most of a prim):
 * one Lane moves instead of a Val of MAX_LANES, through the same
 * operations in the same order.  Vectors, textures and the intrinsics
 * that are not lane by lane go to eval. */
static bool
eval1(Run *r, const PExpr *e, Lane *out)
{
	ElemKind k = (ElemKind)e->dt.kind;
	if (e->dt.lanes <= 1) {
		switch (e->kind) {
		case E_INT:
		case E_FLOAT:
		case E_BOOL:
			*out = literal(e, k);
			return true;
		case E_VAR:
			*out = r->slot[e->u.var->scratch].l[0];
			return true;
		case E_LOAD: {
			int64_t off;
			uint32_t n;
			if (!offset(r, e->u.load.buf, e->u.load.idx, e->n, e->loc, &off, &n))
				return false;
			*out = load_lane(r->buf[e->u.load.buf->scratch], off);
			return true;
		}
		case E_BIN: {
			Lane b;
			if (!operand(r, e->u.ops.a, out) || !operand(r, e->u.ops.b, &b))
				return false;
			if (!bin_lane((PBinOp)e->op, (ElemKind)e->u.ops.a->dt.kind, *out, b, out))
				return division_by_zero(r, e);
			return true;
		}
		case E_UN:
			if (!eval1(r, e->u.ops.a, out))
				return false;
			*out = un_lane((PBinOp)e->op, k, *out);
			return true;
		case E_SELECT: {
			Lane c, b;
			if (!eval1(r, e->u.ops.a, &c) || !eval1(r, e->u.ops.b, out) ||
			    !eval1(r, e->u.ops.c, &b))
				return false;
			if (!c.i)
				*out = b;
			return true;
		}
		case E_CAST:
			if (!eval1(r, e->u.cast.a, out))
				return false;
			*out = convert_lane((ElemKind)e->u.cast.a->dt.kind, k, *out);
			return true;
		case E_CALL: {
			if (!lanewise_call(e))
				break;
			Lane x[3] = {{0}, {0}, {0}};
			for (uint32_t i = 0; i < e->n; i++)
				if (!eval1(r, e->u.call.args[i], &x[i]))
					return false;
			*out = call_lane((IntrinId)e->op, k, x);
			return true;
		}
		default:
			break;
		}
	}
	return eval_lane0(r, e, out);
}

/* ------------------------------------------------------ compiled code */

/* The scalar expressions of a prim compiled once per run into trees of
 * CExprs, each holding the function that computes it with the operation
 * and element kind fixed, its operands, and what eval1 would look up in
 * the PExpr on every evaluation (a literal's value, a variable's slot, a
 * load's buffer and indices).  The functions are eval1's cases with
 * those values bound (bin_lane and its kin, inlined), so every result
 * and diagnostic is eval1's; what they do not cover goes to eval1 itself.
 * The statements find their expressions' trees in a table keyed by the
 * PExpr (a store's by the PStmt). */
typedef struct CExpr CExpr;
typedef Lane (*CFn)(Run *r, const CExpr *c);

struct CExpr {
	CFn fn;
	const PExpr *e;          /* what it computes; NULL for a store */
	const CExpr *a, *b, *c;  /* operands */
	Lane lit;                /* a literal's value */
	const Lane *at;          /* a variable's slot or a literal's value: read
	                          * in place by ceval, without a call */
	/* a load or a store: the buffer, its slot and its compiled indices */
	const PVar *buf;
	uint32_t bslot;
	const PIndex *idx;
	struct CIndex *ix;
	uint32_t n;
	Loc loc;
};

/* An index of an access: its tree, element kind and lanes (1 unless a
 * lane run), each read once per evaluation. */
typedef struct CIndex {
	const CExpr *e;
	ElemKind k;
	uint32_t l;
} CIndex;

typedef struct Code {
	const void **key;        /* open addressing, mask + 1 entries */
	CExpr **val;
	size_t mask;
	PtrVec chunks, arrays;   /* what to free */
	CExpr *next;             /* the current chunk's free nodes */
	const Val *slot;         /* the run's scalars (Run.slot) */
	const CExpr **by_var;    /* by the slot s of a let's or loop's variable:
	                          * the let's value at 2s, the loop's bounds at
	                          * 2s and 2s + 1 (no table lookup) */
	size_t left;
} Code;

#define CODE_CHUNK 256

/* c's value.  The functions return their lane by value (no lane in
 * memory, which the sanitizers would guard on every call); one that fails
 * reports it and sets r->bad, which every caller checks after each
 * operand, so evaluation stops where eval1's would. */
HOT Lane
ceval(Run *r, const CExpr *c)
{
	return c->at ? *c->at : c->fn(r, c);
}

static bool __attribute__((noinline))
c_failed(Run *r)
{
	r->bad = true;
	return false;
}

static Lane
c_fallback(Run *r, const CExpr *c)
{
	Lane v = {0};
	if (!eval1(r, c->e, &v))
		c_failed(r);
	return v;
}

static Lane
c_leaf(Run *r, const CExpr *c)
{
	(void)r;
	return *c->at;
}

static bool __attribute__((noinline))
c_unbound(Run *r, const CExpr *c)
{
	fail(r, c->loc, "internal error: '%%%s' is used before its alloc ran", c->buf->name);
	return c_failed(r);
}

/* offset() of a compiled access (a scalar one: one lane) into t, the
 * buffer's tensor; -1 when it fails (r->bad). */
HOT int64_t
c_offset(Run *r, const CExpr *c, const Tensor *t)
{
	if (!t)
		return c_unbound(r, c) - 1;
	int64_t o = 0;
	const CIndex *ix = c->ix;
	for (uint32_t d = 0; d < c->n; d++) {
		Lane v = ceval(r, ix[d].e);
		if (r->bad)
			return -1;
		int64_t i = as_count(ix[d].k, v.i), size = t->dims[d];
		if (i < 0 || i > size - (int64_t)ix[d].l) {
			index_error(r, c->buf, &c->idx[d], d, ix[d].k, v.i, size, c->loc);
			return c_failed(r) - 1;
		}
		o = o * size + i;
	}
	return o;
}

static Lane
c_load(Run *r, const CExpr *c)
{
	const Tensor *t = r->buf[c->bslot];
	int64_t off = c_offset(r, c, t);
	if (off < 0)
		return (Lane){0};
	return load_lane(t, off);
}

/* a op b, with op and the operands' kind k */
HOT Lane
c_bin_lane(Run *r, const CExpr *c, PBinOp op, ElemKind k)
{
	Lane a = ceval(r, c->a);
	if (r->bad)
		return a;
	Lane b = ceval(r, c->b);
	if (r->bad)
		return b;
	Lane out = {0};
	if (!bin_lane(op, k, a, b, &out)) {
		division_by_zero(r, c->e);
		c_failed(r);
	}
	return out;
}

/* any operation on any kind */
static Lane
c_bin(Run *r, const CExpr *c)
{
	return c_bin_lane(r, c, (PBinOp)c->e->op, (ElemKind)c->e->u.ops.a->dt.kind);
}

/* the operation and the operands' kind fixed */
#define C_BIN(OP, K)                                      \
	static Lane                                       \
	c_##K##_##OP(Run *r, const CExpr *c)              \
	{                                                 \
		return c_bin_lane(r, c, OP, K);           \
	}
#define C_BIN_OPS(X, K)                                                    \
	X(OP_ADD, K) X(OP_SUB, K) X(OP_MUL, K) X(OP_DIV, K) X(OP_MOD, K)   \
	X(OP_LT, K) X(OP_LE, K) X(OP_GT, K) X(OP_GE, K) X(OP_EQ, K) X(OP_NE, K)
C_BIN_OPS(C_BIN, ET_F32)
C_BIN_OPS(C_BIN, ET_I32)
C_BIN_OPS(C_BIN, ET_I64)
#define C_BIN_ENTRY(OP, K) [OP] = c_##K##_##OP,
static const CFn c_bin_f32[OP_NE + 1] = {C_BIN_OPS(C_BIN_ENTRY, ET_F32)};
static const CFn c_bin_i32[OP_NE + 1] = {C_BIN_OPS(C_BIN_ENTRY, ET_I32)};
static const CFn c_bin_i64[OP_NE + 1] = {C_BIN_OPS(C_BIN_ENTRY, ET_I64)};

static Lane
c_un(Run *r, const CExpr *c)
{
	Lane a = ceval(r, c->a);
	if (r->bad)
		return a;
	return un_lane((PBinOp)c->e->op, (ElemKind)c->e->dt.kind, a);
}

static Lane
c_select(Run *r, const CExpr *c)
{
	Lane cond = ceval(r, c->a);
	if (r->bad)
		return cond;
	Lane a = ceval(r, c->b);
	if (r->bad)
		return a;
	Lane b = ceval(r, c->c);
	return cond.i ? a : b;
}

static Lane
c_cast(Run *r, const CExpr *c)
{
	Lane a = ceval(r, c->a);
	if (r->bad)
		return a;
	return convert_lane((ElemKind)c->e->u.cast.a->dt.kind, (ElemKind)c->e->dt.kind, a);
}

static Lane
c_call(Run *r, const CExpr *c)
{
	Lane x[3] = {{0}, {0}, {0}};
	const CExpr *arg[3] = {c->a, c->b, c->c};
	for (uint32_t i = 0; i < c->e->n; i++) {
		x[i] = ceval(r, arg[i]);
		if (r->bad)
			return x[i];
	}
	return call_lane((IntrinId)c->e->op, (ElemKind)c->e->dt.kind, x);
}

static CExpr *
code_node(Code *k)
{
	if (!k->left) {
		k->next = xcalloc(CODE_CHUNK, sizeof *k->next);
		ptrvec_push(&k->chunks, k->next);
		k->left = CODE_CHUNK;
	}
	k->left--;
	return k->next++;
}

static CExpr *compile(Code *k, const PExpr *e);

/* The access to buf at idx (n indices), compiled into c. */
static void
compile_access(Code *k, CExpr *c, const PVar *buf, const PIndex *idx, uint32_t n, Loc loc)
{
	c->buf = buf;
	c->bslot = (uint32_t)buf->scratch;
	c->idx = idx;
	c->n = n;
	c->loc = loc;
	c->ix = xcalloc(n + 1, sizeof *c->ix);
	ptrvec_push(&k->arrays, (void *)c->ix);
	for (uint32_t d = 0; d < n; d++)
		c->ix[d] = (CIndex){compile(k, idx[d].e), (ElemKind)idx[d].e->dt.kind,
		                    idx[d].lanes ? idx[d].lanes : 1};
}

/* e's tree (recursion: the parser caps expression depth). */
static CExpr *
compile(Code *k, const PExpr *e)
{
	CExpr *c = code_node(k);
	c->e = e;
	c->fn = c_fallback;
	if (e->dt.lanes > 1)
		return c;
	ElemKind kind = (ElemKind)e->dt.kind;
	switch (e->kind) {
	case E_INT:
	case E_FLOAT:
	case E_BOOL:
		c->fn = c_leaf;
		c->lit = literal(e, kind);
		c->at = &c->lit;
		break;
	case E_VAR:
		c->fn = c_leaf;
		c->at = &k->slot[e->u.var->scratch].l[0];
		break;
	case E_LOAD:
		c->fn = c_load;
		compile_access(k, c, e->u.load.buf, e->u.load.idx, e->n, e->loc);
		break;
	case E_BIN: {
		c->a = compile(k, e->u.ops.a);
		c->b = compile(k, e->u.ops.b);
		ElemKind ka = (ElemKind)e->u.ops.a->dt.kind;
		const CFn *fixed = ka == ET_F32 ? c_bin_f32 : ka == ET_I32 ? c_bin_i32 :
		                   ka == ET_I64 ? c_bin_i64 : NULL;
		c->fn = fixed && e->op <= OP_NE ? fixed[e->op] : c_bin;
		break;
	}
	case E_UN:
		c->a = compile(k, e->u.ops.a);
		c->fn = c_un;
		break;
	case E_SELECT:
		c->a = compile(k, e->u.ops.a);
		c->b = compile(k, e->u.ops.b);
		c->c = compile(k, e->u.ops.c);
		c->fn = c_select;
		break;
	case E_CAST:
		c->a = compile(k, e->u.cast.a);
		c->fn = c_cast;
		break;
	case E_CALL:
		if (!lanewise_call(e))
			break;
		c->a = compile(k, e->u.call.args[0]);
		c->b = e->n > 1 ? compile(k, e->u.call.args[1]) : NULL;
		c->c = e->n > 2 ? compile(k, e->u.call.args[2]) : NULL;
		c->fn = c_call;
		break;
	default:
		break;
	}
	return c;
}

static size_t
code_hash(const Code *k, const void *key)
{
	return (size_t)(((uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15u) >> 32) & k->mask;
}

static void
code_put(Code *k, const void *key, CExpr *c)
{
	size_t i = code_hash(k, key);
	while (k->key[i])
		i = (i + 1) & k->mask;
	k->key[i] = key;
	k->val[i] = c;
}

/* The tree compiled for key (a PExpr, or a store's PStmt), or NULL. */
HOT const CExpr *
code_of(const Run *r, const void *key)
{
	const Code *k = r->code;
	for (size_t i = code_hash(k, key); k->key[i]; i = (i + 1) & k->mask)
		if (k->key[i] == key)
			return k->val[i];
	return NULL;
}

/* A root expression, if scalar (else NULL). */
static CExpr *
code_root(Code *k, const PExpr *e)
{
	return e->dt.lanes <= 1 ? compile(k, e) : NULL;
}

/* Compiles the scalar expressions of the statements of body. */
static Code *
code_build(const PBlock *body, const Val *slot, uint32_t nslots)
{
	Code *k = xcalloc(1, sizeof *k);
	k->slot = slot;
	k->by_var = xcalloc(2 * (size_t)nslots + 1, sizeof *k->by_var);
	size_t n = 0;
	PrimWalk w;
	pwalk_start(&w, body);
	while (pwalk_next_stmt(&w))
		n++;
	for (k->mask = 15; k->mask < 4 * n; k->mask = 2 * k->mask + 1)
		;
	k->key = xcalloc(k->mask + 1, sizeof *k->key);
	k->val = xcalloc(k->mask + 1, sizeof *k->val);
	pwalk_start(&w, body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		switch (s->kind) {
		case S_FOR:
			k->by_var[2 * s->u.loop.var->scratch] = code_root(k, s->u.loop.lo);
			k->by_var[2 * s->u.loop.var->scratch + 1] = code_root(k, s->u.loop.hi);
			break;
		case S_IF:
			if (s->u.cond.cond->dt.lanes <= 1)
				code_put(k, s->u.cond.cond, compile(k, s->u.cond.cond));
			break;
		case S_LET:
			k->by_var[2 * s->u.let.var->scratch] = code_root(k, s->u.let.val);
			break;
		case S_STORE:
			if (s->u.store.val->dt.lanes <= 1) {
				CExpr *c = code_node(k);
				c->a = compile(k, s->u.store.val);
				compile_access(k, c, s->u.store.buf, s->u.store.idx, s->n, s->loc);
				code_put(k, s, c);
			}
			break;
		default:
			break;
		}
	}
	return k;
}

static void
code_free(Code *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->chunks.n; i++)
		free(k->chunks.v[i]);
	for (size_t i = 0; i < k->arrays.n; i++)
		free(k->arrays.v[i]);
	ptrvec_free(&k->chunks);
	ptrvec_free(&k->arrays);
	free(k->key);
	free(k->val);
	free(k->by_var);
	free(k);
}

/* eval1 of e, through c, its compiled tree (NULL: none). */
HOT bool
eval_code(Run *r, const CExpr *c, const PExpr *e, Lane *out)
{
	if (!c)
		return eval1(r, e, out);
	*out = ceval(r, c);
	return !r->bad;
}

/* ----------------------------------------------------------- statements */

/* A store of a vector (or of anything not compiled): through eval. */
static bool __attribute__((noinline))
store_val(Run *r, const PStmt *s)
{
	int64_t off;
	uint32_t n;
	Val v;
	if (!eval(r, s->u.store.val, &v) ||
	    !offset(r, s->u.store.buf, s->u.store.idx, s->n, s->loc, &off, &n))
		return false;
	Tensor *t = r->buf[s->u.store.buf->scratch];
	for (uint32_t l = 0; l < n; l++)
		store_lane(t, off + l, v.l[l]);
	return true;
}

static bool
store(Run *r, const PStmt *s)
{
	const CExpr *c = code_of(r, s);
	if (!c)
		return store_val(r, s);
	int64_t off;
	Lane v = ceval(r, c->a);
	Tensor *t = r->buf[c->bslot];
	if (r->bad || (off = c_offset(r, c, t)) < 0)
		return false;
	store_lane(t, off, v);
	return true;
}

static bool
tex_store(Run *r, const PStmt *s)
{
	int64_t off = 0;   /* set unless the offset fails; gcc cannot tell */
	Val v;
	if (!eval(r, s->u.tex.val, &v) || !texel(r, s->u.tex.buf, s->u.tex.x, s->u.tex.y, s->loc, &off))
		return false;
	Tensor *t = r->buf[s->u.tex.buf->scratch];
	for (int l = 0; l < 4; l++)
		store_lane(t, off + l, v.l[l]);
	return true;
}

static bool
is_shared(const PVar *b)
{
	return b->vd && b->vd->scope && strcmp(b->vd->scope, "shared") == 0;
}

/* Makes the alloc's buffer current.  Its tensor is reused from one run
 * of the statement to the next, poisoned each time: NaN for floats, 0x5a
 * bytes for integers, so code that reads before it writes shows.  Under
 * a barrier each work item has its own, except for shared memory, which
 * the group shares and which is poisoned once per barrier run. */
static bool
alloc(Run *r, const PStmt *s)
{
	const PVar *b = s->u.alloc.buf;
	AllocCache *c = &r->cache[b->scratch - r->nargbufs];
	bool shared = r->phased && is_shared(b);
	size_t at = r->phased && !shared ? r->item : 0;
	while (c->t.n <= at)
		ptrvec_push(&c->t, NULL);
	Tensor *t = c->t.v[at];
	if (!t) {
		const Type *ty = b->type;
		char tt[128], why[160];
		uint64_t bytes;
		if (ty->kind != TY_TENSOR || ty->dt.kind >= ET__COUNT ||
		    !tensor_bytes((ElemKind)ty->dt.kind, ty->n, ty->dims, &bytes))
			return fail(r, s->loc, "cannot allocate '%%%s'", b->name);
		if (!mem_take(r->mem, bytes, why, sizeof why))
			return fail(r, s->loc, "cannot allocate '%%%s', %s, %llu bytes: %s", b->name,
			            type_text(ty, tt, sizeof tt), (unsigned long long)bytes, why);
		t = tensor_like_type(ty);
		if (!t) {
			mem_give(r->mem, bytes);
			return fail(r, s->loc, "cannot allocate '%%%s'", b->name);
		}
		r->mem_taken += bytes;
		/* one planned place serves one buffer: not per work item; a
		 * zeroed buffer is never planned (ir-plan-memory leaves it) */
		bool zeroed = attr_true(&b->annots, ANNOT_ZEROED);
		void *planned = r->plan && !r->phased && !zeroed
		                ? r->plan->data_for(r->plan->st, b, bytes) : NULL;
		if (planned) {
			free(t->data);
			t->data = planned;
			ptrvec_push(&r->views, t);
		}
		c->t.v[at] = t;
	}
	r->buf[b->scratch] = t;
	if (shared) {
		if (c->poisoned == r->phase_run)
			return true;
		c->poisoned = r->phase_run;
	}
	/* a zeroed buffer is made zero (tensor_new's) for each call, which
	 * then must leave it so (zeroed_at_end) */
	if (!attr_true(&b->annots, ANNOT_ZEROED))
		tensor_poison(t);
	return true;
}

/* A zeroed alloc (ir(5)) holds zeros when the call begins, so the call
 * must leave it so: the OpenCL runtime keeps the buffer for the next
 * call.  The interpreter makes it afresh, and checks here instead. */
static bool
zeroed_at_end(Run *r, const Prim *p)
{
	for (const PStmt *s = p->body.first; s; s = s->next) {
		if (s->kind != S_ALLOC || !attr_true(&s->u.alloc.buf->annots, ANNOT_ZEROED))
			continue;
		const PVar *b = s->u.alloc.buf;
		const Tensor *t = r->buf[b->scratch];
		for (int64_t i = 0; t && i < t->numel; i++)
			if (is_float(t->kind) ? tensor_get(t, i) != 0 : tensor_get_int(t, i) != 0)
				return fail(r, s->loc, "'%%%s' is zeroed, but its element %lld is not zero when "
				            "the call ends: a zeroed buffer must be left all zeros", b->name,
				            (long long)i);
	}
	return true;
}

static bool
is_thread_loop(const PStmt *s)
{
	return s->kind == S_FOR && s->fkind == FK_THREAD &&
	       strncmp(s->u.loop.thread, "threadIdx", 9) == 0;
}

/* Does s hold a barrier, at any depth?  (An explicit stack of blocks:
 * nests may be deep.) */
static bool
holds_barrier(const PStmt *s)
{
	if (s->kind == S_BARRIER)
		return true;
	PtrVec st = {0};
	bool found = false;
	const PStmt *c = s;
	for (;;) {
		switch (c->kind) {
		case S_BARRIER:
			found = true;
			break;
		case S_FOR:
			ptrvec_push(&st, (void *)c->u.loop.body.first);
			break;
		case S_IF:
			ptrvec_push(&st, (void *)c->u.cond.arms[0].first);
			ptrvec_push(&st, (void *)c->u.cond.arms[1].first);
			break;
		case S_KERNEL:
			ptrvec_push(&st, (void *)c->u.kernel.body.first);
			break;
		default:
			break;
		}
		if (found)
			break;
		/* the next statement: c's successor in a block taken from the stack */
		c = NULL;
		while (!c && st.n)
			c = st.v[--st.n];
		if (!c)
			break;
		if (c->next)
			ptrvec_push(&st, (void *)c->next);
	}
	ptrvec_free(&st);
	return found;
}

/* The body that a barrier in the work items of loop would stand in: the
 * body of the innermost loop of the perfect nest of threadIdx loops that
 * begins at loop.  Returns it if it holds a barrier (at any depth), else
 * NULL. */
static const PBlock *
barrier_body(const PStmt *loop)
{
	const PBlock *b = &loop->u.loop.body;
	while (b->first && !b->first->next && is_thread_loop(b->first))
		b = &b->first->u.loop.body;
	for (const PStmt *s = b->first; s; s = s->next)
		if (holds_barrier(s))
			return b;
	return NULL;
}

static const char *
for_kind_name(int k)
{
	switch (k) {
	case FK_PARALLEL: return "parallel";
	case FK_VECTORIZED: return "vectorized";
	case FK_UNROLLED: return "unrolled";
	default: return "serial";
	}
}

/* A barrier the interpreter cannot place: say where it stands. */
static bool
barrier_error(Run *r, const PStmt *s, const PStmt *owner)
{
	if (owner && owner->kind == S_IF)
		return fail(r, s->loc, "barrier inside an 'if' is not supported by the interpreter "
		            "(only directly in the body of threadIdx loops)");
	if (owner && owner->kind == S_FOR && owner->fkind != FK_THREAD)
		return fail(r, s->loc, "barrier inside a %s loop is not supported by the interpreter "
		            "(only directly in the body of threadIdx loops)", for_kind_name(owner->fkind));
	if (owner && is_thread_loop(owner))
		return fail(r, s->loc, "barrier in a threadIdx loop nested inside the body of another "
		            "is not supported by the interpreter (nest threadIdx loops perfectly)");
	return fail(r, s->loc, "barrier outside any threadIdx loop is not supported by the "
	            "interpreter");
}

static void
push(Run *r, Frame f)
{
	VEC_PUSH(r->st, r->nst, r->capst) = f;
}

static ElemKind
loop_var_kind(const PStmt *loop)
{
	const PVar *var = loop->u.loop.var;
	return var->type ? (ElemKind)var->type->dt.kind : ET_I32;
}

static void
set_loop_var(Run *r, const PStmt *loop, int64_t v)
{
	r->slot[loop->u.loop.var->scratch].l[0].i = wrap(loop_var_kind(loop), v);
}

static bool loop_bounds(Run *r, const PStmt *s, int64_t *lo, int64_t *hi);
static bool run_work_group(Run *r, const PStmt *loop, const PBlock *body);

/* Runs the statements from first up to stop (NULL: the end of their
 * block), and all that nests in them.  The frames go on r's stack above
 * those of any run this one is nested in. */
static bool
exec(Run *r, const PStmt *first, const PStmt *stop)
{
	size_t base = r->nst;
	push(r, (Frame){NULL, first, 0, 0, NULL, ET_I32});
	bool ok = true;
	while (ok && r->nst > base) {
		Frame *f = &r->st[r->nst - 1];
		const PStmt *s = f->next;
		if (!s || s == stop) {
			/* stop only stands in the first block: the segment ends */
			if (s == NULL && f->var && ++f->cur < f->hi) {
				f->var->i = wrap(f->kind, f->cur);   /* set_loop_var's */
				f->next = f->owner->u.loop.body.first;
			} else {
				r->nst--;
			}
			continue;
		}
		f->next = s->next;
		const PStmt *owner = f->owner;
		Frame in = {s, NULL, 0, 0, NULL, ET_I32};
		switch (s->kind) {
		case S_FOR: {
			const PBlock *wg;
			if (is_thread_loop(s) && (wg = barrier_body(s))) {
				ok = run_work_group(r, s, wg);
				continue;
			}
			if (!(ok = loop_bounds(r, s, &in.cur, &in.hi)) || in.cur >= in.hi)
				continue;
			set_loop_var(r, s, in.cur);
			in.next = s->u.loop.body.first;
			in.var = &r->slot[s->u.loop.var->scratch].l[0];
			in.kind = loop_var_kind(s);
			break;
		}
		case S_IF: {
			Lane c;
			if (!(ok = eval_code(r, code_of(r, s->u.cond.cond), s->u.cond.cond, &c)))
				continue;
			in.next = s->u.cond.arms[c.i ? 0 : 1].first;
			break;
		}
		case S_KERNEL:
			in.next = s->u.kernel.body.first;
			break;
		case S_LET: {
			const PExpr *v = s->u.let.val;
			Val *to = &r->slot[s->u.let.var->scratch];
			ok = v->dt.lanes <= 1 ? eval_code(r, r->code->by_var[2 * s->u.let.var->scratch],
			                                  v, &to->l[0])
			                      : eval(r, v, to);
			continue;
		}
		case S_STORE:
			ok = store(r, s);
			continue;
		case S_ALLOC:
			ok = alloc(r, s);
			continue;
		case S_EVAL: {
			Lane v;
			ok = eval1(r, s->u.eval, &v);
			continue;
		}
		case S_TEX_STORE:
			ok = tex_store(r, s);
			continue;
		case S_BARRIER:
			ok = barrier_error(r, s, owner);
			continue;
		default:
			ok = fail(r, s->loc, "internal error: unknown statement kind %d", s->kind);
			continue;
		}
		if (in.next)
			push(r, in);
	}
	r->nst = base;
	return ok;
}

/* A loop's bounds, evaluated once at its entry. */
static bool
loop_bounds(Run *r, const PStmt *s, int64_t *lo, int64_t *hi)
{
	Lane a, b;
	const CExpr *const *c = &r->code->by_var[2 * s->u.loop.var->scratch];
	if (!eval_code(r, c[0], s->u.loop.lo, &a) || !eval_code(r, c[1], s->u.loop.hi, &b))
		return false;
	*lo = as_count((ElemKind)s->u.loop.lo->dt.kind, a.i);
	*hi = as_count((ElemKind)s->u.loop.hi->dt.kind, b.i);
	return true;
}

/* The work items of the nest of threadIdx loops from loop down to the one
 * whose body is body, one after the other in the order the loops would
 * run them: the values of the nest's variables, depth per item.  Inner
 * bounds are evaluated at each entry, as the loops would. */
static bool
work_items(Run *r, const PStmt *const *nest, size_t depth, int64_t **vals, size_t *nitems)
{
	int64_t *cur = xcalloc(depth, sizeof *cur), *hi = xcalloc(depth, sizeof *hi);
	size_t n = 0, cap = 0;
	int64_t *v = NULL;
	bool ok = true;
	size_t d = 0;
	bool enter = true;
	for (;;) {
		if (enter) {
			if (!(ok = loop_bounds(r, nest[d], &cur[d], &hi[d])))
				break;
		} else {
			cur[d]++;
		}
		if (cur[d] >= hi[d]) {
			/* this level is done: go on with the one around it */
			if (d == 0)
				break;
			d--;
			enter = false;
			continue;
		}
		set_loop_var(r, nest[d], cur[d]);
		if (d + 1 < depth) {
			d++;
			enter = true;
			continue;
		}
		if (n == MAX_WORK_ITEMS) {
			ok = fail(r, nest[0]->loc, "a work group of more than %d work items under a "
			          "barrier is too large for the interpreter", MAX_WORK_ITEMS);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, cap * depth * sizeof *v);
		}
		memcpy(&v[n * depth], cur, depth * sizeof *cur);
		n++;
		enter = false;
	}
	free(cur);
	free(hi);
	if (!ok) {
		free(v);
		return false;
	}
	*vals = v;
	*nitems = n;
	return true;
}

/* A work group whose work items meet at barriers: the nest of threadIdx
 * loops from loop down to the one whose body is body.  Each segment of
 * the body between barriers runs for every work item before the next
 * segment starts, which is what a barrier promises; each item keeps its
 * own scalars and private allocs from one segment to the next. */
static bool
run_work_group(Run *r, const PStmt *loop, const PBlock *body)
{
	/* The items of an enclosing thread loop would each run this group
	 * apart, and a barrier must hold them all. */
	bool nested = r->phased;
	for (size_t i = 0; i < r->nst && !nested; i++)
		nested = r->st[i].owner && is_thread_loop(r->st[i].owner);
	if (nested) {
		const PStmt *b = body->first;
		while (b->kind != S_BARRIER)
			b = b->next;
		return fail(r, b->loc, "barrier in a threadIdx loop nested inside the body of "
		            "another is not supported by the interpreter (nest threadIdx loops "
		            "perfectly)");
	}
	PtrVec nest = {0};
	for (const PStmt *s = loop;; s = s->u.loop.body.first) {
		ptrvec_push(&nest, (void *)s);
		if (&s->u.loop.body == body)
			break;
	}
	size_t depth = nest.n, items;
	int64_t *vals;
	if (!work_items(r, (const PStmt *const *)nest.v, depth, &vals, &items)) {
		ptrvec_free(&nest);
		return false;
	}
	/* Each item's state is the slots the nest defines. */
	uint32_t s0, s1, b0, b1;
	slot_ranges(loop, &s0, &s1, &b0, &b1);
	size_t ns = s1 - s0, nb = b1 - b0;
	Val *slots = xcalloc(items * ns + 1, sizeof *slots);
	Tensor **bufs = xcalloc(items * nb + 1, sizeof *bufs);
	for (size_t t = 0; t < items; t++) {
		for (size_t d = 0; d < depth; d++)
			set_loop_var(r, nest.v[d], vals[t * depth + d]);
		memcpy(&slots[t * ns], &r->slot[s0], ns * sizeof *slots);
	}
	r->phased = true;
	r->phase_run++;
	bool ok = true;
	/* The blocks that hold barriers, run for the whole group at once:
	 * the body, and the loops in it (of any depth) that hold barriers,
	 * whose bounds must then be the same for every work item.  Between
	 * two barriers, each item runs the statements in between. */
	typedef struct { const PStmt *loop, *next; int64_t cur, hi; } GFrame;
	GFrame *gs = NULL;
	size_t ngs = 0, capgs = 0;
	VEC_PUSH(gs, ngs, capgs) = (GFrame){NULL, body->first, 0, 0};
	while (ok && ngs) {
		GFrame *f = &gs[ngs - 1];
		const PStmt *seg = f->next;
		if (!seg) {
			if (f->loop && ++f->cur < f->hi) {
				const PVar *var = f->loop->u.loop.var;
				int64_t v = wrap(var->type ? (ElemKind)var->type->dt.kind : ET_I32, f->cur);
				for (size_t t = 0; t < items; t++)
					slots[t * ns + (var->scratch - s0)].l[0].i = v;
				f->next = f->loop->u.loop.body.first;
			} else {
				ngs--;
			}
			continue;
		}
		if (seg->kind == S_BARRIER) {
			f->next = seg->next;
			continue;
		}
		if (holds_barrier(seg)) {
			f->next = seg->next;
			if (seg->kind != S_FOR || seg->fkind == FK_THREAD) {
				const PStmt *b = seg->kind == S_IF || seg->kind == S_FOR ? seg : NULL;
				ok = barrier_error(r, seg, b);
				break;
			}
			int64_t lo = 0, hi = 0;
			for (size_t t = 0; ok && t < items; t++) {
				int64_t l, h;
				memcpy(&r->slot[s0], &slots[t * ns], ns * sizeof *slots);
				if (!(ok = loop_bounds(r, seg, &l, &h)))
					break;
				if (t == 0)
					lo = l, hi = h;
				else if (l != lo || h != hi)
					ok = fail(r, seg->loc, "a loop that holds a barrier runs %lld..%lld in one "
					          "work item and %lld..%lld in another: a barrier must be met by every "
					          "work item of the group", (long long)lo, (long long)hi,
					          (long long)l, (long long)h);
			}
			if (ok && lo < hi) {
				const PVar *var = seg->u.loop.var;
				ElemKind k = var->type ? (ElemKind)var->type->dt.kind : ET_I32;
				lo = wrap(k, lo);
				for (size_t t = 0; t < items; t++)
					slots[t * ns + (var->scratch - s0)].l[0].i = lo;
				VEC_PUSH(gs, ngs, capgs) = (GFrame){seg, seg->u.loop.body.first, lo, hi};
			}
			continue;
		}
		const PStmt *end = seg;
		while (end && !holds_barrier(end))
			end = end->next;
		f->next = end;
		for (size_t t = 0; ok && t < items; t++) {
			memcpy(&r->slot[s0], &slots[t * ns], ns * sizeof *slots);
			memcpy(&r->buf[b0], &bufs[t * nb], nb * sizeof *bufs);
			r->item = t;
			ok = exec(r, seg, end);
			memcpy(&slots[t * ns], &r->slot[s0], ns * sizeof *slots);
			memcpy(&bufs[t * nb], &r->buf[b0], nb * sizeof *bufs);
		}
	}
	free(gs);
	r->phased = false;
	r->item = 0;
	free(slots);
	free(bufs);
	free(vals);
	ptrvec_free(&nest);
	return ok;
}

/* ------------------------------------------------------------------ run */

static bool
bind_args(Run *r, Tensor *const *args)
{
	const Prim *p = r->p;
	for (uint32_t i = 0; i < p->nparams; i++) {
		const PVar *v = p->params[i];
		const Tensor *t = args[i];
		char want[160], got[160];
		type_text(v->type, want, sizeof want);
		if (!t) {
			error_at(r->ctx, p->loc, "prim @%s: argument %u ('%%%s') is missing, expected %s",
			         p->name, (unsigned)i + 1, v->name, want);
			return false;
		}
		if (!tensor_fits(t, v->type)) {
			error_at(r->ctx, p->loc, "prim @%s: argument %u ('%%%s') is %s, expected %s",
			         p->name, (unsigned)i + 1, v->name, tensor_type_text(t, got, sizeof got), want);
			return false;
		}
		if (v->kind == PV_BUFFER)
			r->buf[v->scratch] = args[i];
		else if (is_float(t->kind))
			r->slot[v->scratch].l[0].f = tensor_get(t, 0);
		else
			r->slot[v->scratch].l[0].i = tensor_get_int(t, 0);
	}
	return true;
}

bool
prim_exec(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs, MemBudget *mem)
{
	return prim_exec_planned(ctx, p, args, nargs, mem, NULL);
}

bool
prim_exec_planned(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs, MemBudget *mem,
                  const PrimPlan *plan)
{
	if (nargs != p->nparams) {
		error_at(ctx, p->loc, "prim @%s takes %u argument%s, %u given", p->name,
		         (unsigned)p->nparams, p->nparams == 1 ? "" : "s", (unsigned)nargs);
		return false;
	}
	Run r = {.ctx = ctx, .p = p, .mem = mem, .plan = plan};
	uint32_t ns = 0, nb = 0;
	for (uint32_t i = 0; i < p->nparams; i++)
		p->params[i]->scratch = p->params[i]->kind == PV_BUFFER ? nb++ : ns++;
	r.nargbufs = nb;
	number_stmts(&p->body, &ns, &nb);
	r.slot = xcalloc(ns + 1, sizeof *r.slot);
	r.buf = xcalloc(nb + 1, sizeof *r.buf);
	r.cache = xcalloc(nb - r.nargbufs + 1, sizeof *r.cache);
	r.code = code_build(&p->body, r.slot, ns);
	bool ok = bind_args(&r, args) && exec(&r, p->body.first, NULL) && zeroed_at_end(&r, p);
	for (size_t i = 0; i < r.views.n; i++)
		((Tensor *)r.views.v[i])->data = NULL;   /* the plan's, not ours */
	ptrvec_free(&r.views);
	for (uint32_t i = 0; i < nb - r.nargbufs; i++) {
		for (size_t j = 0; j < r.cache[i].t.n; j++)
			tensor_free(r.cache[i].t.v[j]);
		ptrvec_free(&r.cache[i].t);
	}
	mem_give(mem, r.mem_taken);
	code_free(r.code);
	free(r.cache);
	free(r.st);
	free(r.slot);
	free(r.buf);
	return ok;
}
