/* interp_prim_impl.h: what the loop-level interpreter's files share
 * (interp_prim.c runs a prim's statements, interp_code.c compiles its
 * scalar expressions): a run's state, the value of one lane, and the
 * arithmetic on lanes that both the tree walk and the compiled code
 * call, so that they compute alike to the bit.  Private to lib/ref.
 */
#ifndef INTERP_PRIM_IMPL_H
#define INTERP_PRIM_IMPL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "interp_prim.h"

#define MAX_LANES 16

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
	struct Code *code;    /* the scalar expressions, compiled (interp_code.c) */
	bool bad;             /* a compiled expression failed (and said so) */
} Run;


typedef struct CExpr CExpr;
typedef struct Code Code;

/* Reports an error "in @prim: ..." at loc; returns false. */
bool prim_fail(Run *r, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

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
static inline double
int_to_float(ElemKind k, int64_t v, ElemKind to)
{
	bool uns = is_unsigned(k);
	if (to == ET_F32)
		return uns ? (double)(float)(uint64_t)v : (double)(float)v;
	return round_to(to, uns ? (double)(uint64_t)v : (double)v);
}

/* An integer of kind k as a signed count for loop bounds and indices: a u64
 * beyond INT64_MAX saturates, being out of any bound anyway. */
static inline int64_t
as_count(ElemKind k, int64_t v)
{
	return k == ET_U64 && v < 0 ? INT64_MAX : v;
}

static inline double
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
static inline int64_t
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
call_lane3(IntrinId fn, ElemKind k, Lane a, Lane b, Lane c)
{
	Lane out;
	if (is_float(k))
		out.f = round_to(k, intrinsic_f(fn, a.f, b.f, c.f));
	else
		out.i = wrap(k, intrinsic_i(fn, a.i, b.i, is_unsigned(k)));
	return out;
}

static inline Lane
call_lane(IntrinId fn, ElemKind k, const Lane *v)
{
	return call_lane3(fn, k, v[0], v[1], v[2]);
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

/* The tree walk's lane 0 of e (interp_prim.c): what compiled code hands
 * over for what it does not cover. */
bool prim_eval1(Run *r, const PExpr *e, Lane *out);
/* The errors of an index out of bounds and of an integer division by
 * zero, as the tree walk reports them. */
bool prim_index_error(Run *r, const PVar *b, const PIndex *ix, uint32_t d, ElemKind k,
                      int64_t raw, int64_t size, Loc loc);
bool prim_division_by_zero(Run *r, const PExpr *e);

/* interp_code.c: the scalar expressions of body compiled, slot being the
 * run's scalars (nslots of them); freed by prim_code_free. */
Code *prim_code_build(const PBlock *body, const Val *slot, uint32_t nslots);
void prim_code_free(Code *k);
/* A scalar if's condition, let's value, or loop's bounds, evaluated
 * through their compiled trees (as prim_eval1 would). */
bool prim_code_if(Run *r, const PStmt *s, Lane *out);
bool prim_code_let(Run *r, const PStmt *s, Lane *out);
bool prim_code_bounds(Run *r, const PStmt *s, Lane *lo, Lane *hi);
/* A scalar store through its compiled tree; -1 when s has none (a
 * vector), else whether it succeeded. */
int prim_code_store(Run *r, const PStmt *s);
/* Runs the loop from lo to hi (its variable of kind kind) if its body
 * is a leaf of scalar lets, stores and ifs of them: -1 when it is not,
 * else whether every iteration succeeded (as exec would run it). */
int prim_code_leaf(Run *r, const PStmt *loop, int64_t lo, int64_t hi, ElemKind kind);

#endif
