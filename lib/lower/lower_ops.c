/* lower_ops.c: the loop-level meaning of each operator, for ir-lower.
 *
 * Each operator says how to compute one element of its result at an index
 * from its operands (lower_member), with the same semantics as its
 * reference kernel in lib/ref_*.c, which the tests compare it with:
 * relu and clip keep NaN, maximum and minimum propagate it, pooling skips
 * the padding, integer arithmetic wraps in the result's width.  The one
 * difference is rounding: accumulations (conv2d, dense, sums, averages,
 * softmax) run in the result's type instead of double, as on a device.
 * Integer averages add up in 64 bits (lower_average_kind), as the
 * reference does, so that only the quotient is wrapped.
 *
 * Operators are told apart by their OpId (ops.def).  Attributes are read
 * with the decoders the type rules and the reference kernels use
 * (ops/attrs.h), so all three read them alike; the verifier has already
 * checked them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "layout.h"
#include "lower_impl.h"
#include "ops/attrs.h"
#include "ops/ops.h"
#include "tensor/tensor.h"      /* elem_int_from_double */

bool
lower_is_elementwise_form(const OpDef *op)
{
	return op->id != O_SOFTMAX && op->id != O_LAYER_NORM && op->id != O_SPLIT;
}

bool
lower_has_reduction(const OpDef *op)
{
	switch (op->id) {
	case O_SUM: case O_MEAN: case O_MAX: case O_MIN: case O_ARGMAX: case O_ARGMIN:
	case O_MAX_POOL2D: case O_AVG_POOL2D: case O_GLOBAL_AVG_POOL2D: case O_CONV2D: case O_DENSE:
	case O_BATCH_MATMUL:
		return true;
	case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM:
	case O_MINIMUM: case O_POWER: case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG:
	case O_SQRT: case O_RSQRT: case O_SIGMOID: case O_TANH: case O_CLIP: case O_CAST:
	case O_ERF: case O_HARD_SIGMOID: case O_HARD_SWISH: case O_SIN: case O_COS:
	case O_ASIN: case O_ACOS: case O_ATAN:
	case O_BIAS_ADD: case O_SOFTMAX: case O_LAYER_NORM: case O_RESHAPE: case O_TRANSPOSE:
	case O_LAYOUT_TRANSFORM: case O_CONCATENATE: case O_SPLIT: case O_SQUEEZE:
	case O_EXPAND_DIMS: case O_STRIDED_SLICE: case O_PAD: case O_EQUAL: case O_NOT_EQUAL: case O_LESS: case O_LESS_EQUAL:
	case O_GREATER: case O_GREATER_EQUAL: case O_LOGICAL_AND: case O_LOGICAL_OR:
	case O_LOGICAL_XOR: case O_LOGICAL_NOT: case O_WHERE:
	case O__COUNT:
		break;
	}
	return false;
}

/* ------------------------------------------------------------- helpers */

static const Type *
type_of(const Value *v)
{
	return v->type;
}

/* A reading of v's attributes: verified, so errors go nowhere. */
static OpCx
attrs_of(const Value *v)
{
	OpCx c;
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	return c;
}

/* The `axis` of v (op_axis) normalized against rank r. */
static int64_t
axis_of(const Value *v, int64_t r)
{
	OpCx c = attrs_of(v);
	int64_t axis = op_axis(&c);
	return axis < 0 ? axis + r : axis;
}

static ElemKind
kind_of(const Value *v)
{
	return (ElemKind)v->type->dt.kind;
}

/* A literal operand as an expression of its type. */
static PExpr *
literal(GroupCx *c, const Value *a)
{
	ElemKind k = (ElemKind)a->type->dt.kind;
	if (k == ET_BOOL)
		return pe_bool(c->b, a->u.i != 0);
	if (a->flags & VF_LIT_FLOAT)
		return pe_float(c->b, a->u.f, k);
	if (elem_is_float(k))
		return pe_float(c->b, lit_int_double(a), k);
	return pe_int(c->b, a->u.i, k);   /* a u64 literal's bits, as pe_int takes them */
}

/* e repeated in each of `lanes` lanes (e itself for one lane). */
static PExpr *
splat(GroupCx *c, PExpr *e, uint32_t lanes)
{
	return pe_broadcast(c->b, (uint8_t)lanes, e);
}

/* A wide run (GroupCx.wide) of a packed operand ([N,C/4,H,W,4], or 1 on
 * any of its first four axes under broadcasting): the texels of channel
 * blocks idx[1] .. idx[1] + wide - 1 (idx[1] itself for a block axis of
 * 1) gathered into one vector through a private array. */
static PExpr *
wide_load(GroupCx *c, PVar *buf, PExpr *const *idx)
{
	PBuild *b = c->b;
	int64_t n = 4 * (int64_t)c->wide;
	PVar *tmp = pb_alloc(b, "wv", type_tensor(c->m, (DType){buf->type->dt.kind, 1}, 1, &n), c->local);
	for (uint32_t t = 0; t < c->wide; t++) {
		PExpr *ti[5] = {idx[0], idx[1], idx[2], idx[3], idx[4]};
		if (t && buf->type->dims[1] != 1)
			ti[1] = pe_add(b, idx[1], pe_i32(b, (int32_t)t));
		PExpr *li = pe_i32(b, 4 * (int32_t)t);
		pb_store(b, tmp, &li, 4, pe_load(b, buf, ti, 4));
	}
	PExpr *zero = pe_i32(b, 0);
	return pb_let(b, "v", pe_load(b, tmp, &zero, (uint32_t)n));
}

PExpr *
lower_operand(GroupCx *c, int k, uint32_t j, PExpr *const *idx, uint32_t lanes)
{
	Value *a = c->g->members[k]->args[j];
	if (a->kind == VK_LIT)
		return splat(c, literal(c, a), lanes);
	int i = lower_member_of(c->g, k, a);
	if (i < 0)
		i = lower_prologue_of(c->g, a);
	if (i >= 0)
		return lower_member(c, i, idx, lanes);
	GroupInput *in = lower_input(c, k, j, -1);
	if (k == 0 && a == c->g->scale)
		return lower_load_data(c, in->buf, idx, lanes);
	if (c->wide > 1 && lanes == 4 * c->wide)
		return wide_load(c, in->buf, idx);
	return pe_load(c->b, in->buf, idx, lanes);
}

/* The operand's index for a result index under numpy broadcasting: the
 * operand's axes align to the right; an axis of size 1 reads index 0. */
static void
broadcast_index(GroupCx *c, const Value *a, uint32_t r, PExpr *const *idx, PExpr **out)
{
	if (a->kind == VK_LIT)
		return;
	const Type *t = type_of(a);
	for (uint32_t d = 0; d < t->n; d++)
		out[d] = t->dims[d] == 1 ? pe_i32(c->b, 0) : idx[r - t->n + d];
}

/* Does operand a repeat one value along the result's last axis (its last
 * axis is 1, or it is a scalar)?  Then a lane run reads one element. */
static bool
flat_along_last(const Value *a)
{
	if (a->kind == VK_LIT)
		return true;
	const Type *t = type_of(a);
	return t->n == 0 || t->dims[t->n - 1] == 1;
}

/* Operand j of member k (rank r result) at idx under broadcasting. */
static PExpr *
broadcast_operand(GroupCx *c, int k, uint32_t j, PExpr *const *idx, uint32_t lanes)
{
	const Value *v = c->g->members[k];
	PExpr *in[LOWER_MAX_RANK];
	broadcast_index(c, v->args[j], type_of(v)->n, idx, in);
	if (lanes > 1 && flat_along_last(v->args[j])) {
		PExpr *x = lower_operand(c, k, j, in, 1);
		return x ? splat(c, x, lanes) : NULL;
	}
	return lower_operand(c, k, j, in, lanes);
}

/* An accumulator: `alloc %accN: T[L] @dev:local` for dt of L lanes, set
 * to init (a scalar, repeated in every lane). */
static PVar *
accumulator(GroupCx *c, DType dt, PExpr *init)
{
	int64_t n = dt.lanes;
	PVar *acc = pb_alloc(c->b, "acc", type_tensor(c->m, (DType){dt.kind, 1}, 1, &n), c->local);
	PExpr *zero = pe_i32(c->b, 0);
	pb_store(c->b, acc, &zero, dt.lanes, splat(c, init, dt.lanes));
	return acc;
}

static uint32_t
acc_lanes(const PVar *acc)
{
	return (uint32_t)acc->type->dims[0];
}

static PExpr *
acc_get(GroupCx *c, PVar *acc)
{
	PExpr *zero = pe_i32(c->b, 0);
	return pe_load(c->b, acc, &zero, acc_lanes(acc));
}

static void
acc_put(GroupCx *c, PVar *acc, PExpr *v)
{
	PExpr *zero = pe_i32(c->b, 0);
	pb_store(c->b, acc, &zero, acc_lanes(acc), v);
}

/* for %rN in 0..n { ... }: opens the body and returns the variable. */
static PExpr *
reduce_loop(GroupCx *c, int64_t n)
{
	PVar *r = pb_scalar(c->b, "r", (DType){ET_I32, 1});
	pb_for(c->b, r, pe_i32(c->b, 0), pe_i32(c->b, n), FK_SERIAL, NULL);
	return pe_var(c->b, r);
}

/* ---------------------------------------------------------- layouts */

/* The logical index (letters, e.g. "NCHW") of physical index idx of a
 * tensor laid out as l. */
static void
logical_index(GroupCx *c, const Layout *l, PExpr *const *idx, const char *letters, PExpr **out)
{
	for (int i = 0; letters[i]; i++) {
		PExpr *outer = NULL, *inner = NULL;
		for (int d = 0; d < l->rank; d++) {
			if (l->axes[d] == letters[i])
				outer = idx[d];
			else if (l->axes[d] == letters[i] + ('a' - 'A'))
				inner = idx[d];
		}
		out[i] = inner ? pe_add(c->b, pe_mul(c->b, outer, pe_i32(c->b, l->factor)), inner) : outer;
	}
}

/* The physical index in l of the logical index lg (letters). */
static void
physical_index(GroupCx *c, const Layout *l, PExpr *const *lg, const char *letters, PExpr **out)
{
	for (int d = 0; d < l->rank; d++) {
		char ax = l->axes[d];
		bool lower = ax >= 'a' && ax <= 'z';
		char up = lower ? (char)(ax - ('a' - 'A')) : ax;
		const char *p = strchr(letters, up);
		PExpr *v = lg[p - letters];
		bool split = false;
		for (int e = 0; e < l->rank; e++)
			split |= l->axes[e] == up + ('a' - 'A');
		if (lower)
			out[d] = pe_mod(c->b, v, pe_i32(c->b, l->factor));
		else if (split)
			out[d] = pe_div(c->b, v, pe_i32(c->b, l->factor));
		else
			out[d] = v;
	}
}

/* --------------------------------------------------------- elementwise */

/* Integer power as the reference computes it: square and multiply,
 * wrapping in the type, one exponent bit a step for as many steps as the
 * type has bits (exact, and bounded for any exponent).  A negative
 * exponent gives 1 / x: 1 for 1, -1 for -1 (1 for -1 and an even
 * exponent), 0 for the rest, and for 0 the interpreter's "integer
 * division by zero", as the reference fails. */
static PExpr *
int_power(GroupCx *c, PExpr *x, PExpr *y, ElemKind k)
{
	PBuild *b = c->b;
	DType dt = {k, 1};
	bool sig = elem_is_signed(k);
	x = pb_let(b, "a", x);
	y = pb_let(b, "e", y);
	PExpr *zero = pe_int(b, 0, k), *one = pe_int(b, 1, k), *two = pe_int(b, 2, k);
	PVar *acc = accumulator(c, dt, one);
	PVar *base = accumulator(c, dt, x);
	PVar *e = accumulator(c, dt, sig ? pe_select(b, pe_bin(b, OP_LT, y, zero), zero, y) : y);
	PVar *r = pb_scalar(b, "r", (DType){ET_I32, 1});
	pb_for(b, r, pe_i32(b, 0), pe_i32(b, elem_bits(k)), FK_SERIAL, NULL);
	pb_if(b, pe_bin(b, OP_NE, pe_mod(b, acc_get(c, e), two), zero));
	acc_put(c, acc, pe_mul(b, acc_get(c, acc), acc_get(c, base)));
	pb_close(b);
	acc_put(c, base, pe_mul(b, acc_get(c, base), acc_get(c, base)));
	acc_put(c, e, pe_div(b, acc_get(c, e), two));
	pb_close(b);
	if (sig) {
		pb_if(b, pe_bin(b, OP_LT, y, zero));
		PExpr *odd = pe_bin(b, OP_NE, pe_mod(b, y, two), zero);
		PExpr *not_m1 = pe_bin(b, OP_NE, x, pe_int(b, -1, k));
		acc_put(c, acc, pe_select(b, pe_bin(b, OP_OR, odd, not_m1), pe_div(b, one, x), one));
		pb_close(b);
	}
	return acc_get(c, acc);
}

/* x to the power of a literal exponent e, as multiplications where that
 * gives the reference's value: pow() in OpenCL C is a library call tens
 * of times slower than a multiply (LayerNorm's power(x, 2) ran 21 ms per
 * call on POCL, fused with its mean), and an integer power's square
 * and multiply loop runs a step per bit of the type.  For floats: 0 is
 * 1 (NaN too), 1 is x, 2, 3 and 4 products (pow with an integer
 * exponent is defined for a negative base; x * x * x is within an ulp or
 * two of the correctly rounded cube, as OpenCL's pow is within 16), -1
 * is 1 / x (the signed infinities of pow(+-0, -1) too), and 0.5 is
 * sqrt, but +0 for -0 (sqrt(-0) is -0) and +inf for -inf (sqrt gives
 * NaN).  Exponents -2 to -4 keep pow: 1 / (x * x) overflows to 0 where
 * pow's result is a denormal.  For integers, exponents 0 to 4 (products
 * wrap in the type as the reference's do).  NULL: e is another exponent. */
static PExpr *
power_by_literal(GroupCx *c, PExpr *x, const Value *e, ElemKind k)
{
	PBuild *b = c->b;
	double d = (e->flags & VF_LIT_FLOAT) ? e->u.f : lit_int_double(e);
	bool fl = elem_is_float(k);
	if (d != 0 && d != 1 && d != 2 && d != 3 && d != 4 && !(fl && (d == -1 || d == 0.5)))
		return NULL;
	if (d == 0)
		return pe_broadcast(b, x->dt.lanes, fl ? pe_float(b, 1, k) : pe_int(b, 1, k));
	if (d == 1)
		return x;
	if (d == -1)
		return pe_div(b, pe_like(b, x, 1), x);
	x = pb_let(b, "a", x);
	if (d == 0.5) {
		/* Below 0 only -inf has x * 0.5 == x (the rest is NaN either
		 * way); -0 is not below 0, and -0 + 0 is +0. */
		PExpr *neg = pe_select(b, pe_bin(b, OP_EQ, pe_mul(b, x, pe_like(b, x, 0.5)), x),
		                       pe_neg(b, x), pe_call1(b, I_SQRT, x));
		return pe_select(b, pe_bin(b, OP_LT, x, pe_like(b, x, 0)), neg,
		                 pe_add(b, pe_call1(b, I_SQRT, x), pe_like(b, x, 0)));
	}
	PExpr *sq = pe_mul(b, x, x);
	if (d == 2)
		return sq;
	if (d == 3)
		return pe_mul(b, sq, x);
	sq = pb_let(b, "a", sq);
	return pe_mul(b, sq, sq);
}

static PExpr *
binary(GroupCx *c, OpId code, PExpr *x, PExpr *y, ElemKind k)
{
	PBuild *b = c->b;
	switch (code) {
	case O_ADD: return pe_add(b, x, y);
	case O_SUBTRACT: return pe_sub(b, x, y);
	case O_MULTIPLY: return pe_mul(b, x, y);
	case O_DIVIDE: return pe_div(b, x, y);
	case O_MAXIMUM: return pe_call2(b, I_MAX, x, y);
	case O_MINIMUM: return pe_call2(b, I_MIN, x, y);
	case O_POWER:
		if (elem_is_float(k))
			return pe_call2(b, I_POW, x, y);
		return int_power(c, x, y, k);
	default:                /* lower_member calls it for these only */
		return x;
	}
}

/* A comparison or a logical operator of two operands: a bool. */
static PExpr *
compare(GroupCx *c, OpId code, PExpr *x, PExpr *y)
{
	static const PBinOp ops[O__COUNT] = {
		[O_EQUAL] = OP_EQ, [O_NOT_EQUAL] = OP_NE, [O_LESS] = OP_LT, [O_LESS_EQUAL] = OP_LE,
		[O_GREATER] = OP_GT, [O_GREATER_EQUAL] = OP_GE, [O_LOGICAL_AND] = OP_AND,
		[O_LOGICAL_OR] = OP_OR, [O_LOGICAL_XOR] = OP_NE,   /* on bools: xor */
	};
	return pe_bin(c->b, ops[code], x, y);
}

static PExpr *
unary(GroupCx *c, OpId code, PExpr *x, ElemKind k)
{
	PBuild *b = c->b;
	switch (code) {
	case O_NEGATIVE: return pe_neg(b, x);
	case O_RELU:
		if (!elem_is_signed(k))
			return x;
		/* x < 0 ? 0 : x keeps NaN, as the reference does. */
		return pe_select(b, pe_bin(b, OP_LT, x, pe_like(b, x, 0)), pe_like(b, x, 0), x);
	case O_EXP: return pe_call1(b, I_EXP, x);
	case O_LOG: return pe_call1(b, I_LOG, x);
	case O_SQRT: return pe_call1(b, I_SQRT, x);
	case O_RSQRT: return pe_call1(b, I_RSQRT, x);
	case O_SIGMOID: return pe_call1(b, I_SIGMOID, x);
	case O_TANH: return pe_call1(b, I_TANH, x);
	case O_ERF: return pe_call1(b, I_ERF, x);
	case O_SIN: return pe_call1(b, I_SIN, x);
	case O_COS: return pe_call1(b, I_COS, x);
	case O_ASIN: return pe_call1(b, I_ASIN, x);
	case O_ACOS: return pe_call1(b, I_ACOS, x);
	case O_ATAN: return pe_call1(b, I_ATAN, x);
	default:                /* lower_member calls it for these only */
		return x;
	}
}

static uint32_t
bias_axis(const Value *v)
{
	return (uint32_t)axis_of(v, type_of(v)->n);
}

static PExpr *
clip(GroupCx *c, const Value *v, PExpr *x)
{
	PBuild *b = c->b;
	ElemKind k = kind_of(v);
	OpCx ac = attrs_of(v);
	double dl, dh;
	clip_attrs(&ac, &dl, &dh);
	PExpr *el, *eh;
	if (elem_is_float(k)) {
		el = pe_float(b, dl, k);
		eh = pe_float(b, dh, k);
	} else {
		el = pe_int(b, elem_int_from_double(k, dl), k);
		eh = pe_int(b, elem_int_from_double(k, dh), k);
	}
	el = splat(c, el, x->dt.lanes);
	eh = splat(c, eh, x->dt.lanes);
	/* Comparisons, not min/max: NaN stays NaN. */
	PExpr *upper = pe_select(b, pe_bin(b, OP_GT, x, eh), eh, x);
	return pe_select(b, pe_bin(b, OP_LT, x, el), el, upper);
}

/* hard_sigmoid: max(0, min(1, alpha x + beta)); hard_swish: x times that
 * with ONNX's HardSwish constants (1/6, 1/2).  x is a variable (a let). */
static PExpr *
hard_sigmoid(GroupCx *c, const Value *v, PExpr *x)
{
	PBuild *b = c->b;
	ElemKind k = kind_of(v);
	double alpha = 1.0 / 6, beta = 0.5;
	if (v->u.op->op->id == O_HARD_SIGMOID) {
		OpCx ac = attrs_of(v);
		hard_sigmoid_attrs(&ac, &alpha, &beta);
	}
	uint32_t n = x->dt.lanes;
	PExpr *h = pe_add(b, pe_mul(b, x, splat(c, pe_float(b, alpha, k), n)),
	                  splat(c, pe_float(b, beta, k), n));
	h = pb_let(b, "v", h);
	PExpr *zero = splat(c, pe_float(b, 0, k), n), *one = splat(c, pe_float(b, 1, k), n);
	/* Comparisons, not min/max: NaN stays NaN, as in clip. */
	h = pe_select(b, pe_bin(b, OP_LT, h, zero), zero, pe_select(b, pe_bin(b, OP_GT, h, one), one, h));
	if (v->u.op->op->id == O_HARD_SWISH)
		h = pe_mul(b, x, h);
	return h;
}

/* ------------------------------------------------------------ injective */

/* reshape, squeeze, expand_dims: the same elements in C order. */
static PExpr *
reshape(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	const Type *ot = type_of(v), *it = type_of(v->args[0]);
	PBuild *b = c->b;
	/* If the shapes agree once axes of size 1 are dropped, axes map one
	 * to one: no division needed. */
	PExpr *in[LOWER_MAX_RANK];
	uint32_t i = 0, o = 0;
	bool simple = true;
	for (;;) {
		while (i < it->n && it->dims[i] == 1)
			in[i++] = pe_i32(b, 0);
		while (o < ot->n && ot->dims[o] == 1)
			o++;
		if (i == it->n || o == ot->n)
			break;
		if (it->dims[i] != ot->dims[o]) {
			simple = false;
			break;
		}
		in[i++] = idx[o++];
	}
	if (simple && i == it->n && o == ot->n)
		return lower_operand(c, k, 0, in, 1);
	PExpr *flat = pe_i32(b, 0);
	for (uint32_t d = 0; d < ot->n; d++)
		flat = pe_add(b, pe_mul(b, flat, pe_i32(b, ot->dims[d])), idx[d]);
	flat = pb_let(b, "f", flat);
	int64_t stride = 1;
	for (uint32_t d = it->n; d-- > 0;) {
		PExpr *q = stride == 1 ? flat : pe_div(b, flat, pe_i32(b, stride));
		in[d] = d == 0 ? q : pe_mod(b, q, pe_i32(b, it->dims[d]));
		stride *= it->dims[d];
	}
	return lower_operand(c, k, 0, in, 1);
}

static PExpr *
transpose(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	int64_t axes[LOWER_MAX_RANK];
	lower_transpose_axes(v, axes);
	PExpr *in[LOWER_MAX_RANK];
	for (uint32_t d = 0; d < type_of(v)->n; d++)
		in[axes[d]] = idx[d];
	return lower_operand(c, k, 0, in, 1);
}

static PExpr *
layout_transform(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	OpCx ac = attrs_of(v);
	const Layout *src, *dst;
	transform_attrs(&ac, &src, &dst);
	char letters[8];
	layout_logical_axes(dst, letters);
	PExpr *lg[8], *in[8];
	logical_index(c, dst, idx, letters, lg);
	for (int i = 0; letters[i]; i++)
		lg[i] = pb_let(c->b, "l", lg[i]);
	physical_index(c, src, lg, letters, in);
	return lower_operand(c, k, 0, in, 1);
}

/* The tuple's fields are inputs; each output index reads the one field
 * whose range along the axis holds it. */
static PExpr *
concatenate(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes)
{
	const Value *v = c->g->members[k];
	const Type *ot = type_of(v), *tt = type_of(v->args[0]);
	int64_t axis = axis_of(v, ot->n);
	PVar *tmp = accumulator(c, (DType){ot->dt.kind, (uint8_t)lanes}, pe_float(c->b, 0, kind_of(v)));
	int64_t off = 0;
	for (uint32_t f = 0; f < tt->n; f++) {
		int64_t size = tt->fields[f]->dims[axis];
		if (size == 0)
			continue;
		pb_if(c->b, lower_in_range(c->b, idx[axis], off, off + size));
		PExpr *in[LOWER_MAX_RANK];
		for (uint32_t d = 0; d < ot->n; d++)
			in[d] = d == (uint32_t)axis ? pe_sub(c->b, idx[d], pe_i32(c->b, off)) : idx[d];
		acc_put(c, tmp, pe_load(c->b, lower_input(c, k, 0, (int)f)->buf, in, lanes));
		pb_close(c->b);
		off += size;
	}
	return acc_get(c, tmp);
}

/* Element (begin + i * step) of each axis. */
static PExpr *
strided_slice(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	const Type *it = type_of(v->args[0]);
	OpCx ac = attrs_of(v);
	SliceAttrs a;
	slice_attrs(&ac, it->n, it->dims, &a);
	PExpr *in[LOWER_MAX_RANK];
	for (uint32_t d = 0; d < it->n; d++) {
		in[d] = a.step[d] == 1 ? idx[d] : pe_mul(c->b, idx[d], pe_i32(c->b, a.step[d]));
		if (a.begin[d])
			in[d] = pe_add(c->b, in[d], pe_i32(c->b, a.begin[d]));
	}
	return lower_operand(c, k, 0, in, 1);
}

/* The constant: the operand is read only inside it (its value where an
 * index falls outside, as concatenate reads one field); edge clamps the
 * index into the axis; reflect mirrors it about the first and the last
 * element (the pads are shorter than the axis). */
static PExpr *
pad(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	const Type *it = type_of(v->args[0]);
	OpCx ac = attrs_of(v);
	PadAttrs a;
	pad_attrs(&ac, it->n, it->dims, &a);
	PBuild *b = c->b;
	ElemKind kk = kind_of(v);
	PExpr *in[LOWER_MAX_RANK], *inside = NULL;
	for (uint32_t d = 0; d < it->n; d++) {
		int64_t n = it->dims[d];
		in[d] = idx[d];
		if (!a.before[d] && !a.after[d])
			continue;
		PExpr *j = a.before[d] ? pb_let(b, "j", pe_sub(b, idx[d], pe_i32(b, a.before[d]))) : idx[d];
		switch (a.mode) {
		case PAD_CONSTANT: {
			PExpr *t = lower_in_range(b, j, 0, n);
			inside = inside ? pe_bin(b, OP_AND, inside, t) : t;
			break;
		}
		case PAD_EDGE:
			j = pe_call2(b, I_MAX, j, pe_i32(b, 0));
			j = pe_call2(b, I_MIN, j, pe_i32(b, n - 1));
			break;
		case PAD_REFLECT:
			j = pe_select(b, pe_bin(b, OP_LT, j, pe_i32(b, 0)), pe_neg(b, j), j);
			j = pb_let(b, "j", j);
			j = pe_select(b, pe_bin(b, OP_GE, j, pe_i32(b, n)),
			              pe_sub(b, pe_i32(b, 2 * (n - 1)), j), j);
			break;
		}
		in[d] = j;
	}
	if (!inside)
		return lower_operand(c, k, 0, in, 1);
	PExpr *value = kk == ET_BOOL ? pe_bool(b, a.value != 0)
	             : elem_is_float(kk) ? pe_float(b, a.value, kk)
	             : pe_int(b, elem_int_from_double(kk, a.value), kk);
	PVar *tmp = accumulator(c, (DType){kk, 1}, value);
	pb_if(b, inside);
	PExpr *x = lower_operand(c, k, 0, in, 1);
	if (!x)
		return NULL;
	acc_put(c, tmp, x);
	pb_close(b);
	return acc_get(c, tmp);
}

/* ---------------------------------------------------------- reductions */

void
lower_reduce_attrs(const Value *v, ReduceAttrs *a)
{
	OpCx c = attrs_of(v);
	reduce_attrs(&c, type_of(v->args[0])->n, a);
}

static bool
reduced_axis(const Value *v, uint32_t d)
{
	ReduceAttrs a;
	lower_reduce_attrs(v, &a);
	return a.red[d];
}

ElemKind
lower_average_kind(ElemKind k)
{
	if (elem_is_float(k))
		return k;
	return elem_is_signed(k) ? ET_I64 : ET_U64;
}

/* The largest value of kind k: +inf, or the integer maximum (u64's as
 * its bits, which pe_int takes). */
static PExpr *
highest(PBuild *b, ElemKind k)
{
	if (elem_is_float(k))
		return pe_float(b, INFINITY, k);
	int64_t lo, bits;
	uint64_t hi;
	elem_int_range(k, &lo, &hi);
	memcpy(&bits, &hi, sizeof bits);
	return pe_int(b, bits, k);
}

/* The sum, mean, max or min (code) of member k's operand over the axes
 * red marks, each a loop of its own; in[] holds the index of the other
 * axes and gets the loop variables.  Accumulates in the result's type (an
 * integer mean: in 64 bits), with lanes; max and min start from the
 * lowest and the highest value and keep NaN, as the reference does. */
static PExpr *
reduce_over(GroupCx *c, int k, const bool *red, PExpr **in, OpId code, uint32_t lanes)
{
	const Value *v = c->g->members[k];
	const Type *it = type_of(v->args[0]);
	bool mean = code == O_MEAN, ext = code == O_MAX || code == O_MIN;
	ElemKind kk = kind_of(v), ak = mean ? lower_average_kind(kk) : kk;
	PExpr *init = code == O_MAX ? pe_lowest(c->b, kk) : code == O_MIN ? highest(c->b, kk)
	            : pe_float(c->b, 0, ak);
	PVar *acc = accumulator(c, (DType){ak, (uint8_t)lanes}, init);
	int opened = 0;
	int64_t count = 1;
	for (uint32_t d = 0; d < it->n; d++) {
		if (!red[d])
			continue;
		count *= it->dims[d];
		in[d] = it->dims[d] == 1 ? pe_i32(c->b, 0) : (opened++, reduce_loop(c, it->dims[d]));
	}
	PExpr *x = lower_operand(c, k, 0, in, lanes);
	if (!x)
		return NULL;
	x = pe_cast(c->b, (DType){ak, (uint8_t)lanes}, x);
	if (ext) {
		/* Comparisons, not the max and min intrinsics (OpenCL's fmax
		 * drops NaN): x wins if it is NaN (x != x) or beyond the
		 * accumulator, and once the accumulator is NaN nothing is. */
		x = pb_let(c->b, "x", x);
		PExpr *a = pb_let(c->b, "a", acc_get(c, acc));
		PExpr *beyond = pe_bin(c->b, code == O_MAX ? OP_GT : OP_LT, x, a);
		if (elem_is_float(ak))
			beyond = pe_bin(c->b, OP_OR, pe_bin(c->b, OP_NE, x, x), beyond);
		acc_put(c, acc, pe_select(c->b, beyond, x, a));
	} else
		acc_put(c, acc, pe_add(c->b, acc_get(c, acc), x));
	while (opened--)
		pb_close(c->b);
	PExpr *r = acc_get(c, acc);
	if (mean)
		r = pe_div(c->b, r, splat(c, pe_float(c->b, (double)count, ak), lanes));
	return pe_cast(c->b, (DType){kk, (uint8_t)lanes}, r);
}

static PExpr *
reduce(GroupCx *c, int k, PExpr *const *idx, OpId code, uint32_t lanes)
{
	const Value *v = c->g->members[k];
	const Type *it = type_of(v->args[0]);
	ReduceAttrs a;
	lower_reduce_attrs(v, &a);
	bool keep = a.keepdims, *red = a.red;
	PExpr *in[LOWER_MAX_RANK];
	for (uint32_t d = 0, o = 0; d < it->n; d++) {
		if (!red[d])
			in[d] = idx[o];
		if (!red[d] || keep)
			o++;
	}
	return reduce_over(c, k, red, in, code, lanes);
}

/* argmax, argmin: the extreme so far and its index among the reduced
 * axes (C order), replaced as the reference replaces them: NaN wins,
 * equals keep the first (or, select_last_index, the last). */
static PExpr *
argreduce(GroupCx *c, int k, PExpr *const *idx, OpId code)
{
	const Value *v = c->g->members[k];
	const Type *it = type_of(v->args[0]);
	ReduceAttrs a;
	lower_reduce_attrs(v, &a);
	OpCx ac = attrs_of(v);
	bool last = arg_last_index(&ac), ismax = code == O_ARGMAX;
	ElemKind xk = (ElemKind)it->dt.kind;
	PBuild *b = c->b;
	PExpr *in[LOWER_MAX_RANK];
	for (uint32_t d = 0, o = 0; d < it->n; d++) {
		if (!a.red[d])
			in[d] = idx[o];
		if (!a.red[d] || a.keepdims)
			o++;
	}
	PVar *best = accumulator(c, (DType){xk, 1}, ismax ? pe_lowest(b, xk) : highest(b, xk));
	PVar *at = accumulator(c, (DType){ET_I32, 1}, pe_i32(b, 0));
	int opened = 0;
	PExpr *flat = pe_i32(b, 0);
	for (uint32_t d = 0; d < it->n; d++) {
		if (!a.red[d])
			continue;
		PExpr *r = it->dims[d] == 1 ? pe_i32(b, 0) : (opened++, reduce_loop(c, it->dims[d]));
		in[d] = r;
		flat = pe_add(b, pe_mul(b, flat, pe_i32(b, it->dims[d])), r);
	}
	PExpr *x = lower_operand(c, k, 0, in, 1);
	if (!x)
		return NULL;
	x = pb_let(b, "x", x);
	PExpr *m = pb_let(b, "m", acc_get(c, best));
	PBinOp beyond = ismax ? (last ? OP_GE : OP_GT) : (last ? OP_LE : OP_LT);
	PExpr *take = pe_bin(b, beyond, x, m);
	if (elem_is_float(xk)) {
		PExpr *xnan = pe_bin(b, OP_NE, x, x);
		take = last ? pe_bin(b, OP_OR, xnan, take)
		     : pe_bin(b, OP_OR, pe_bin(b, OP_AND, xnan, pe_bin(b, OP_EQ, m, m)), take);
	}
	/* The first element is taken whatever it is (-inf among -infs). */
	PExpr *first = pe_bin(b, OP_EQ, flat, pe_i32(b, 0));
	take = pb_let(b, "t", pe_bin(b, OP_OR, first, take));
	acc_put(c, best, pe_select(b, take, x, m));
	acc_put(c, at, pe_select(b, take, flat, acc_get(c, at)));
	while (opened--)
		pb_close(b);
	return acc_get(c, at);
}

static PExpr *
pool2d(GroupCx *c, int k, PExpr *const *idx, OpId code, uint32_t lanes)
{
	const Value *v = c->g->members[k];
	PoolAttrs pa;
	lower_pool_attrs(v, &pa);
	const int64_t *ps = pa.ps, *st = pa.st, *dil = pa.dil, *pad = pa.pad;
	bool cip = code == O_AVG_POOL2D && pa.count_include_pad;
	const Layout *l = pa.l;
	const Type *it = type_of(v->args[0]);
	int64_t H = layout_dim(l, it->dims, 'H'), W = layout_dim(l, it->dims, 'W');
	int hax = (int)(strchr(l->axes, 'H') - l->axes), wax = (int)(strchr(l->axes, 'W') - l->axes);
	ElemKind kk = kind_of(v);
	PBuild *b = c->b;
	bool isavg = code == O_AVG_POOL2D;
	ElemKind ak = isavg ? lower_average_kind(kk) : kk;
	PVar *acc = accumulator(c, (DType){ak, (uint8_t)lanes}, isavg ? pe_float(b, 0, ak) : pe_lowest(b, kk));
	PVar *cnt = isavg ? accumulator(c, (DType){ET_I32, 1}, pe_i32(b, 0)) : NULL;
	int depth = pb_depth(b);
	PExpr *ky = reduce_loop(c, ps[0]);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, idx[hax], pe_i32(b, st[0])),
	                                              pe_i32(b, pad[0])),
	                                  pe_mul(b, ky, pe_i32(b, dil[0]))));
	PExpr *kx = reduce_loop(c, ps[1]);
	PExpr *ix = pb_let(b, "x", pe_add(b, pe_sub(b, pe_mul(b, idx[wax], pe_i32(b, st[1])),
	                                              pe_i32(b, pad[1])),
	                                  pe_mul(b, kx, pe_i32(b, dil[1]))));
	if (cip) {
		pb_if(b, lower_inside(b, iy, ix, -pad[0], H + pad[2], -pad[1], W + pad[3]));
		acc_put(c, cnt, pe_add(b, acc_get(c, cnt), pe_i32(b, 1)));
		pb_close(b);
	}
	pb_if(b, lower_inside(b, iy, ix, 0, H, 0, W));
	PExpr *in[LOWER_MAX_RANK];
	for (int d = 0; d < l->rank; d++)
		in[d] = d == hax ? iy : d == wax ? ix : idx[d];
	PExpr *x = lower_operand(c, k, 0, in, lanes);
	if (!x)
		return NULL;
	if (isavg) {
		x = pe_cast(b, (DType){ak, (uint8_t)lanes}, x);
		acc_put(c, acc, pe_add(b, acc_get(c, acc), x));
		if (!cip)
			acc_put(c, cnt, pe_add(b, acc_get(c, cnt), pe_i32(b, 1)));
	} else {
		acc_put(c, acc, pe_call2(b, I_MAX, acc_get(c, acc), x));
	}
	pb_close_to(b, depth);  /* if, kx, ky */
	if (!isavg)
		return acc_get(c, acc);
	/* No element in the window gives 0; max(n, 1) keeps the division
	 * defined where select evaluates both sides. */
	PExpr *n = pb_let(b, "n", acc_get(c, cnt));
	PExpr *div = pe_div(b, acc_get(c, acc),
	                    splat(c, pe_cast(b, (DType){ak, 1}, pe_call2(b, I_MAX, n, pe_i32(b, 1))), lanes));
	div = pe_cast(b, (DType){kk, (uint8_t)lanes}, div);
	return pe_select(b, pe_bin(b, OP_EQ, n, pe_i32(b, 0)), splat(c, pe_float(b, 0, kk), lanes), div);
}

static PExpr *
global_avg_pool2d(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes)
{
	PoolAttrs pa;
	lower_pool_attrs(c->g->members[k], &pa);
	const Layout *l = pa.l;
	bool red[LOWER_MAX_RANK];
	PExpr *in[LOWER_MAX_RANK];
	for (int d = 0; d < l->rank; d++) {
		red[d] = l->axes[d] == 'H' || l->axes[d] == 'W';
		in[d] = idx[d];
	}
	return reduce_over(c, k, red, in, O_MEAN, lanes);
}

/* acc += cast(x) * cast(w), in the result's type. */
static void
mac(GroupCx *c, PVar *acc, PExpr *x, PExpr *w, ElemKind kk)
{
	uint32_t lanes = acc_lanes(acc);
	x = splat(c, pe_cast(c->b, (DType){kk, x->dt.lanes}, x), lanes);
	w = splat(c, pe_cast(c->b, (DType){kk, w->dt.lanes}, w), lanes);
	acc_put(c, acc, pe_add(c->b, acc_get(c, acc), pe_mul(c->b, x, w)));
}

void
lower_matmul_transposes(const Value *v, bool *ta, bool *tb)
{
	OpCx c = attrs_of(v);
	MatmulAttrs a;
	matmul_attrs(&c, &a);
	*ta = a.ta;
	*tb = a.tb;
}

int64_t
lower_dense_pack(const Value *v)
{
	if (v->u.op->op->id != O_DENSE)
		return 0;
	OpCx c = attrs_of(v);
	MatmulAttrs a;
	matmul_attrs(&c, &a);
	return a.pack;
}

void
lower_conv_attrs(const Value *v, ConvAttrs *a)
{
	OpCx c = attrs_of(v);
	conv2d_attrs(&c, a);
}

void
lower_pool_attrs(const Value *v, PoolAttrs *a)
{
	OpCx c = attrs_of(v);
	pool2d_attrs(&c, a);
}

/* With lanes > 1 (the packed NCHWc/OIHWo case, see lower_chain_lanes_ok), the
 * lanes are output channels: the weight is read as a lane run and the
 * input element is repeated in every lane. */
static PExpr *
conv2d(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes)
{
	const Value *v = c->g->members[k];
	ConvAttrs ca;
	lower_conv_attrs(v, &ca);
	const int64_t *st = ca.st, *dil = ca.dil, *pad = ca.pad, groups = ca.groups;
	const Layout *dl = ca.dl, *kl = ca.kl, *ol = ca.ol;
	const Type *xt = type_of(v->args[0]), *wt = type_of(v->args[1]);
	int64_t H = layout_dim(dl, xt->dims, 'H'), W = layout_dim(dl, xt->dims, 'W');
	int64_t O = layout_dim(kl, wt->dims, 'O'), I = layout_dim(kl, wt->dims, 'I');
	int64_t KH = layout_dim(kl, wt->dims, 'H'), KW = layout_dim(kl, wt->dims, 'W');
	PBuild *b = c->b;
	PExpr *o4[4];
	logical_index(c, ol, idx, "NCHW", o4);
	/* With lanes, oc is a multiple of them: left unbound, the weight's
	 * oc / 4 and oc % 4 fold away. */
	PExpr *n = o4[0], *oc = lanes > 1 ? o4[1] : pb_let(b, "oc", o4[1]), *oy = o4[2], *ox = o4[3];
	ElemKind kk = kind_of(v);
	PVar *acc = accumulator(c, (DType){kk, (uint8_t)lanes}, pe_float(b, 0, kk));
	PExpr *gbase = groups == 1 ? pe_i32(b, 0)
	             : pb_let(b, "g", pe_mul(b, pe_div(b, oc, pe_i32(b, O / groups)), pe_i32(b, I)));
	int depth = pb_depth(b);
	PExpr *ic = reduce_loop(c, I);
	PExpr *ky = reduce_loop(c, KH);
	PExpr *iy = pb_let(b, "y", pe_add(b, pe_sub(b, pe_mul(b, oy, pe_i32(b, st[0])), pe_i32(b, pad[0])),
	                                  pe_mul(b, ky, pe_i32(b, dil[0]))));
	PExpr *kx = reduce_loop(c, KW);
	PExpr *ix = pb_let(b, "x", pe_add(b, pe_sub(b, pe_mul(b, ox, pe_i32(b, st[1])), pe_i32(b, pad[1])),
	                                  pe_mul(b, kx, pe_i32(b, dil[1]))));
	bool padded = pad[0] || pad[1] || pad[2] || pad[3];
	if (padded)
		pb_if(b, lower_inside(b, iy, ix, 0, H, 0, W));
	PExpr *xl[4] = {n, pe_add(b, gbase, ic), iy, ix}, *wl[4] = {oc, ic, ky, kx};
	PExpr *xi[8], *wi[8];
	physical_index(c, dl, xl, "NCHW", xi);
	physical_index(c, kl, wl, "OIHW", wi);
	PExpr *x = lower_operand(c, k, 0, xi, 1), *w = x ? lower_operand(c, k, 1, wi, lanes) : NULL;
	if (!w)
		return NULL;
	mac(c, acc, x, w, kk);
	pb_close_to(b, depth);  /* if padded, kx, ky, ic */
	return acc_get(c, acc);
}

static PExpr *
dense(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	const Type *xt = type_of(v->args[0]);
	uint32_t r = xt->n;
	int64_t K = xt->dims[r - 1];
	ElemKind kk = kind_of(v);
	PVar *acc = accumulator(c, (DType){kk, 1}, pe_float(c->b, 0, kk));
	PExpr *kv = reduce_loop(c, K);
	/* weight_layout "NC<P>n": unit n at [n / P, k, n % P] */
	int64_t P = lower_dense_pack(v);
	PExpr *wi[3] = {idx[r - 1], kv, NULL};
	if (P) {
		wi[0] = pe_div(c->b, idx[r - 1], pe_i32(c->b, P));
		wi[2] = pe_mod(c->b, idx[r - 1], pe_i32(c->b, P));
	}
	PExpr *xi[LOWER_MAX_RANK];
	for (uint32_t d = 0; d + 1 < r; d++)
		xi[d] = idx[d];
	xi[r - 1] = kv;
	PExpr *x = lower_operand(c, k, 0, xi, 1), *w = x ? lower_operand(c, k, 1, wi, 1) : NULL;
	if (!w)
		return NULL;
	mac(c, acc, x, w, kk);
	pb_close(c->b);
	return acc_get(c, acc);
}

static PExpr *
batch_matmul(GroupCx *c, int k, PExpr *const *idx)
{
	const Value *v = c->g->members[k];
	bool ta, tb;
	lower_matmul_transposes(v, &ta, &tb);
	const Type *xt = type_of(v->args[0]), *yt = type_of(v->args[1]);
	int64_t K = xt->dims[ta ? 1 : 2];
	ElemKind kk = kind_of(v);
	PBuild *b = c->b;
	PVar *acc = accumulator(c, (DType){kk, 1}, pe_float(b, 0, kk));
	PExpr *kv = reduce_loop(c, K);
	PExpr *bx = xt->dims[0] == 1 ? pe_i32(b, 0) : idx[0];
	PExpr *by = yt->dims[0] == 1 ? pe_i32(b, 0) : idx[0];
	PExpr *xi[3] = {bx, ta ? kv : idx[1], ta ? idx[1] : kv};
	PExpr *yi[3] = {by, tb ? idx[2] : kv, tb ? kv : idx[2]};
	PExpr *x = lower_operand(c, k, 0, xi, 1), *y = x ? lower_operand(c, k, 1, yi, 1) : NULL;
	if (!y)
		return NULL;
	mac(c, acc, x, y, kk);
	pb_close(b);
	return acc_get(c, acc);
}

/* -------------------------------------------------------------- member */

/* Are a and b the same index expression (one node, or equal integers)? */
static bool
same_index(const PExpr *a, const PExpr *b)
{
	int64_t x, y;
	return a == b || (pe_is_int(a, &x) && pe_is_int(b, &y) && x == y);
}

/* Member k's value computed before at idx and lanes, in a block still
 * open (so its let is in scope), or NULL. */
static PExpr *
memo_find(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes)
{
	const PBuild *b = c->b;
	int d = c->memo[k].depth;
	if (!c->memo[k].val || c->memo[k].lanes != lanes || c->memo[k].master != c->master ||
	    d >= b->n || b->blk[d] != c->memo[k].blk)
		return NULL;
	for (uint32_t i = 0; i < type_of(c->g->members[k])->n; i++)
		if (!same_index(c->memo[k].idx[i], idx[i]))
			return NULL;
	return c->memo[k].val;
}

static PExpr *
member_value(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes);

PExpr *
lower_member(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes)
{
	if (k == 0 && c->master)
		return c->master;
	if (c->given && k == c->given_k)
		return c->given;
	if (!(c->g->reread >> k & 1))
		return member_value(c, k, idx, lanes);
	PExpr *e = memo_find(c, k, idx, lanes);
	if (e)
		return e;
	if (!(e = member_value(c, k, idx, lanes)))
		return NULL;
	c->memo[k].val = e;
	c->memo[k].master = c->master;
	c->memo[k].depth = c->b->n - 1;
	c->memo[k].blk = c->b->blk[c->b->n - 1];
	c->memo[k].lanes = lanes;
	memcpy(c->memo[k].idx, idx, type_of(c->g->members[k])->n * sizeof *idx);
	return e;
}

/* Member k's value at idx, computed afresh. */
static PExpr *
member_value(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes)
{
	Value *v = c->g->members[k];
	OpId code = v->u.op->op->id;
	uint32_t r = type_of(v)->n;
	ElemKind kk = kind_of(v);
	PExpr *res = NULL;
	switch (code) {
	case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM: case O_MINIMUM: case O_POWER: {
		PExpr *x = broadcast_operand(c, k, 0, idx, lanes);
		PExpr *y = x ? broadcast_operand(c, k, 1, idx, lanes) : NULL;
		if (!y)
			return NULL;
		const Value *e = v->args[1];
		if (code == O_POWER && e->kind == VK_LIT && (res = power_by_literal(c, x, e, kk)))
			break;
		res = binary(c, code, x, y, kk);
		break;
	}
	case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG: case O_SQRT: case O_RSQRT:
	case O_SIGMOID: case O_TANH: case O_ERF: case O_SIN: case O_COS: case O_ASIN: case O_ACOS:
	case O_ATAN: {
		PExpr *x = lower_operand(c, k, 0, idx, lanes);
		if (!x)
			return NULL;
		res = unary(c, code, x, kk);
		break;
	}
	case O_HARD_SIGMOID: case O_HARD_SWISH: {
		PExpr *x = lower_operand(c, k, 0, idx, lanes);
		if (!x)
			return NULL;
		res = hard_sigmoid(c, v, pb_let(c->b, "v", x));
		break;
	}
	case O_EQUAL: case O_NOT_EQUAL: case O_LESS: case O_LESS_EQUAL: case O_GREATER:
	case O_GREATER_EQUAL: case O_LOGICAL_AND: case O_LOGICAL_OR: case O_LOGICAL_XOR: {
		/* one lane: lower_chain_lanes_ok refuses bool vectors */
		PExpr *x = broadcast_operand(c, k, 0, idx, 1);
		PExpr *y = x ? broadcast_operand(c, k, 1, idx, 1) : NULL;
		if (!y)
			return NULL;
		res = compare(c, code, x, y);
		break;
	}
	case O_LOGICAL_NOT: {
		PExpr *x = lower_operand(c, k, 0, idx, 1);
		if (!x)
			return NULL;
		res = pe_not(c->b, x);
		break;
	}
	case O_WHERE: {
		PExpr *w = broadcast_operand(c, k, 0, idx, 1);
		PExpr *x = w ? broadcast_operand(c, k, 1, idx, 1) : NULL;
		PExpr *y = x ? broadcast_operand(c, k, 2, idx, 1) : NULL;
		if (!y)
			return NULL;
		res = pe_select(c->b, w, x, y);
		break;
	}
	case O_CAST: {
		PExpr *x = lower_operand(c, k, 0, idx, lanes);
		if (!x)
			return NULL;
		res = pe_cast(c->b, (DType){kk, (uint8_t)lanes}, x);
		break;
	}
	case O_CLIP: {
		PExpr *x = lower_operand(c, k, 0, idx, lanes);
		if (!x)
			return NULL;
		res = clip(c, v, pb_let(c->b, "v", x));
		break;
	}
	case O_BIAS_ADD: {
		uint32_t axis = bias_axis(v);
		PExpr *x = lower_operand(c, k, 0, idx, lanes);
		PExpr *y = NULL;
		if (x && axis + 1 == r)
			y = lower_operand(c, k, 1, &idx[axis], lanes);
		else if (x && (y = lower_operand(c, k, 1, &idx[axis], 1)))
			y = splat(c, y, lanes);
		if (!y)
			return NULL;
		res = pe_add(c->b, x, y);
		break;
	}
	case O_RESHAPE: case O_SQUEEZE: case O_EXPAND_DIMS: res = reshape(c, k, idx); break;
	case O_TRANSPOSE: res = transpose(c, k, idx); break;
	case O_LAYOUT_TRANSFORM: res = layout_transform(c, k, idx); break;
	case O_CONCATENATE: res = concatenate(c, k, idx, lanes); break;
	case O_STRIDED_SLICE: res = strided_slice(c, k, idx); break;
	case O_PAD: res = pad(c, k, idx); break;
	case O_SUM: case O_MEAN: case O_MAX: case O_MIN: res = reduce(c, k, idx, code, lanes); break;
	case O_ARGMAX: case O_ARGMIN: res = argreduce(c, k, idx, code); break;
	case O_MAX_POOL2D: case O_AVG_POOL2D: res = pool2d(c, k, idx, code, lanes); break;
	case O_GLOBAL_AVG_POOL2D: res = global_avg_pool2d(c, k, idx, lanes); break;
	case O_CONV2D: res = conv2d(c, k, idx, lanes); break;
	case O_DENSE: res = dense(c, k, idx); break;
	case O_BATCH_MATMUL: res = batch_matmul(c, k, idx); break;
	case O_SOFTMAX: case O_LAYER_NORM: case O_SPLIT: case O__COUNT:     /* lowered whole */
		error_at(c->m->ctx, v->loc, "internal error: %s cannot be lowered as part of a group",
		         v->u.op->op->name);
		return NULL;
	}
	if (!res)
		return NULL;
	/* A value of its own line: later members read a variable. */
	return pb_let(c->b, "v", res);
}

/* ---------------------------------------------------------------- lanes */

/* Is the last physical axis of layout l the inner part of a split axis
 * ('c' of NCHW4c), with `lanes` as its factor? */
static bool
inner_last(const Layout *l, char axis, uint32_t lanes)
{
	return l->rank > 0 && l->axes[l->rank - 1] == axis && l->factor == (int64_t)lanes;
}

/* Members k down to lo (lower_chain_lanes_ok: to the master; in
 * lower_impl.h) computing `lanes` consecutive elements as one vector.
 * Elementwise and broadcast members can; reductions and pooling when
 * that axis is not reduced (a packed channel axis); conv2d when the
 * lanes are the inner output channels of a packed NCHWc/OIHWo pair
 * within one group.  Index shuffles (reshape, transpose,
 * layout_transform, concatenate, strided_slice, nn.pad) and the integer
 * power loop cannot.  Members below `stop` are not asked. */
static bool
chain_lanes_ok(GroupCx *c, int k, int stop, uint32_t lanes)
{
	for (; k >= stop && lanes > 1; k--) {
		const Value *v = c->g->members[k];
		const Value *pred = k > 0 ? c->g->members[k - 1] : NULL;
		OpId code = v->u.op->op->id;
		switch (code) {
		case O_POWER:
			if (!elem_is_float(kind_of(v)))
				return false;
			/* fall through */
		case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM: case O_MINIMUM:
			if (pred && flat_along_last(pred))
				lanes = 1;
			break;
		case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG: case O_SQRT: case O_RSQRT:
		case O_SIGMOID: case O_TANH: case O_CAST: case O_CLIP: case O_ERF: case O_SIN: case O_COS:
		case O_ASIN: case O_ACOS: case O_ATAN:
		case O_HARD_SIGMOID: case O_HARD_SWISH:
			break;
		case O_BIAS_ADD:
			if (pred && v->args[0] != pred && bias_axis(v) + 1 != type_of(v)->n)
				lanes = 1;
			break;
		case O_SUM: case O_MEAN: case O_MAX: case O_MIN: {
			const Type *it = type_of(v->args[0]);
			if (it->n == 0 || reduced_axis(v, it->n - 1))
				return false;
			break;
		}
		case O_MAX_POOL2D: case O_AVG_POOL2D: case O_GLOBAL_AVG_POOL2D:
		{
			PoolAttrs pa;
			lower_pool_attrs(v, &pa);
			if (!inner_last(pa.l, 'c', lanes))
				return false;
		}
			break;
		case O_CONV2D: {
			ConvAttrs ca;
			lower_conv_attrs(v, &ca);
			int64_t O = layout_dim(ca.kl, type_of(v->args[1])->dims, 'O');
			if (!inner_last(ca.ol, 'c', lanes) || !inner_last(ca.kl, 'o', lanes) ||
			    (O / ca.groups) % (int64_t)lanes != 0)
				return false;
			/* conv2d is a group's master: nothing below it. */
			return true;
		}
		case O_CONCATENATE:
			/* along another axis than the last, each run of lanes
			 * lies in one operand */
			if (axis_of(v, type_of(v)->n) + 1 == (int64_t)type_of(v)->n)
				return false;
			break;
		case O_RESHAPE: case O_SQUEEZE: case O_EXPAND_DIMS: case O_TRANSPOSE:
		case O_LAYOUT_TRANSFORM: case O_DENSE: case O_BATCH_MATMUL:
		case O_ARGMAX: case O_ARGMIN:
		case O_SOFTMAX: case O_LAYER_NORM: case O_SPLIT: case O_STRIDED_SLICE: case O_PAD: case O_EQUAL: case O_NOT_EQUAL: case O_LESS: case O_LESS_EQUAL:
		case O_GREATER: case O_GREATER_EQUAL: case O_LOGICAL_AND: case O_LOGICAL_OR:
		case O_LOGICAL_XOR: case O_LOGICAL_NOT: case O_WHERE:
		case O__COUNT:
			return false;
		}
	}
	return true;
}

bool
lower_chain_lanes_ok(GroupCx *c, int k, uint32_t lanes)
{
	return chain_lanes_ok(c, k, 0, lanes);
}

bool
lower_packed_result(const GroupCx *c)
{
	const Type *t = type_of(c->g->members[c->g->n - 1]);
	return t->kind == TY_TENSOR && t->n == 5 && t->dims[4] == 4 && t->dt.kind != ET_BOOL;
}

bool
lower_consumers_lanes_ok(GroupCx *c, uint32_t lanes)
{
	return chain_lanes_ok(c, c->g->n - 1, 1, lanes);
}

/* May outside operand a of a wide run be read by wide_load (packed and
 * broadcast along the result's axes) or as one element repeated
 * (a literal, or one element of any rank)? */
static bool
wide_operand_ok(const Value *a, const Type *rt)
{
	if (a->kind == VK_LIT)
		return true;
	const Type *t = type_of(a);
	if (t->kind != TY_TENSOR || t->dt.kind != rt->dt.kind)
		return false;
	if (type_numel(t) == 1)
		return true;
	if (t->n != 5 || t->dims[4] != 4)
		return false;
	for (uint32_t d = 0; d < 4; d++)
		if (t->dims[d] != 1 && t->dims[d] != rt->dims[d])
			return false;
	return true;
}

bool
lower_consumers_wide_ok(GroupCx *c)
{
	/* (with no consumer each texel is stored straight from the tile) */
	if (c->g->n < 2 || !lower_packed_result(c) || !elem_is_float(kind_of(c->g->members[0])) ||
	    !lower_consumers_lanes_ok(c, 4))
		return false;
	const Type *rt = type_of(c->g->members[0]);
	for (int k = 1; k < c->g->n; k++) {
		const Value *v = c->g->members[k];
		const Type *t = type_of(v);
		if (t->kind != TY_TENSOR || t->dt.kind != rt->dt.kind || t->n != 5)
			return false;
		for (uint32_t d = 0; d < 5; d++)
			if (t->dims[d] != rt->dims[d])
				return false;
		switch (v->u.op->op->id) {
		case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM:
		case O_MINIMUM: case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG: case O_SQRT:
		case O_RSQRT: case O_SIGMOID: case O_TANH: case O_CLIP: case O_HARD_SIGMOID:
		case O_HARD_SWISH:
			break;
		default:
			return false;
		}
		for (uint32_t j = 0; j < v->nargs; j++)
			if (lower_member_of(c->g, k, v->args[j]) < 0 && !wide_operand_ok(v->args[j], rt))
				return false;
	}
	return true;
}

uint32_t
lower_group_lanes(GroupCx *c)
{
	return lower_packed_result(c) && chain_lanes_ok(c, c->g->n - 1, 0, 4) ? 4 : 1;
}

uint32_t
lower_consumer_lanes(GroupCx *c)
{
	return lower_packed_result(c) && chain_lanes_ok(c, c->g->n - 1, 1, 4) ? 4 : 1;
}

/* ---------------------------------------------------- whole operators */

int64_t
lower_softmax_axis(const Value *v)
{
	return axis_of(v, type_of(v)->n);
}

/* softmax along axis: per position of the other axes, the maximum, the
 * sum of exp(x - max), then exp(x - max) / sum. */
bool
lower_softmax(GroupCx *c)
{
	Value *v = c->g->members[0];
	const Type *t = type_of(v);
	uint32_t r = t->n;
	int64_t axis = axis_of(v, r);
	int64_t dims[LOWER_MAX_RANK];
	memcpy(dims, t->dims, r * sizeof *dims);
	int64_t n = dims[axis];
	dims[axis] = 1;
	PExpr *idx[LOWER_MAX_RANK];
	PBuild *b = c->b;
	int depth = pb_depth(b);
	lower_open_nest(c, dims, r, idx, false);
	ElemKind kk = kind_of(v);
	PVar *in = lower_input(c, 0, 0, -1)->buf;
	PVar *mx = accumulator(c, (DType){kk, 1}, pe_lowest(b, kk));
	idx[axis] = reduce_loop(c, n);
	acc_put(c, mx, pe_call2(b, I_MAX, acc_get(c, mx), pe_load(b, in, idx, 1)));
	pb_close(b);
	PExpr *m = pb_let(b, "m", acc_get(c, mx));
	PVar *sum = accumulator(c, (DType){kk, 1}, pe_float(b, 0, kk));
	idx[axis] = reduce_loop(c, n);
	acc_put(c, sum, pe_add(b, acc_get(c, sum), pe_call1(b, I_EXP, pe_sub(b, pe_load(b, in, idx, 1), m))));
	pb_close(b);
	PExpr *s = pb_let(b, "s", acc_get(c, sum));
	idx[axis] = reduce_loop(c, n);
	pb_store(b, c->out[0], idx, 1, pe_div(b, pe_call1(b, I_EXP, pe_sub(b, pe_load(b, in, idx, 1), m)), s));
	pb_close(b);
	pb_close_to(b, depth);
	return true;
}

/* split: each piece is its own loop nest reading the input at an offset. */
bool
lower_split(GroupCx *c)
{
	Value *v = c->g->members[0];
	const Type *t = type_of(v), *it = type_of(v->args[0]);
	int64_t axis = axis_of(v, it->n);
	PVar *in = lower_input(c, 0, 0, -1)->buf;
	int64_t off = 0;
	for (uint32_t f = 0; f < t->n; f++) {
		const Type *ft = t->fields[f];
		PExpr *idx[LOWER_MAX_RANK], *src[LOWER_MAX_RANK];
		int depth = pb_depth(c->b);
		lower_open_nest(c, ft->dims, ft->n, idx, true);
		for (uint32_t d = 0; d < ft->n; d++)
			src[d] = d == (uint32_t)axis ? pe_add(c->b, idx[d], pe_i32(c->b, off)) : idx[d];
		pb_store(c->b, c->out[f], idx, 1, pe_load(c->b, in, src, 1));
		pb_close_to(c->b, depth);
		off += ft->dims[axis];
	}
	return true;
}
