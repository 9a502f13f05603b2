/* onnx_arith.c: ONNX's integer and rounding arithmetic that the IR has no
 * operator of, imported as compositions of its elementwise ones: Floor,
 * Ceil and Round (through a cast to i64 where the value has a fraction),
 * Mod (both forms), BitShift (a multiply or divide by a power of 2).
 * Each folds when its inputs are known at import (the parts fold). */
#include <math.h>
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

static Val *
num(Imp *im, Val *like, double v)
{
	return onnx_scalar(im, like->kind, v);
}

/* The smallest magnitude from which every value of a float kind is an
 * integer (2^mantissa bits). */
static double
integral_from(ElemKind k)
{
	return k == ET_F16 ? 1024 : k == ET_F32 ? 8388608 : 4503599627370496.0;
}

/* trunc(x) of a float x: a cast to i64 and back where |x| has a fraction
 * (below integral_from), x itself elsewhere (large values, inf, NaN). */
static Val *
trunc_f(Imp *im, Val *x, const char *h)
{
	Val *i = onnx_op_cast(im, x, ET_I64, h);
	Val *t = onnx_op_cast(im, i, x->kind, h);
	Val *small = onnx_op_binary(im, BIN_LT, onnx_op_unary(im, UN_ABS, x, h), num(im, x, integral_from(x->kind)),
	                 h);
	return onnx_op_where(im, small, t, x, h);
}

/* floor (dir -1) or ceil (dir 1) of a float: trunc, moved by one where it
 * passed x the other way. */
static Val *
floor_ceil(Imp *im, Val *x, int dir, const char *h)
{
	Val *t = trunc_f(im, x, h);
	Val *past = onnx_op_binary(im, dir < 0 ? BIN_GT : BIN_LT, t, x, h);
	return onnx_op_where(im, past, onnx_op_binary(im, BIN_ADD, t, num(im, x, dir), h), t, h);
}

Val *
onnx_op_rounding(Imp *im, UnOp op, Val *x, const char *h)
{
	if (!elem_is_float(x->kind))
		return x;     /* an integer is its own floor, ceil and round */
	if (op != UN_ROUND)
		return floor_ceil(im, x, op == UN_FLOOR ? -1 : 1, h);
	/* Round: to the nearest integer, halves to the even one */
	Val *f = floor_ceil(im, x, -1, h);
	Val *d = onnx_op_binary(im, BIN_SUB, x, f, h), *f1 = onnx_op_binary(im, BIN_ADD, f, num(im, x, 1), h);
	Val *half = floor_ceil(im, onnx_op_binary(im, BIN_MUL, f, num(im, x, 0.5), h), -1, h);
	Val *even = onnx_op_binary(im, BIN_EQ, onnx_op_binary(im, BIN_MUL, half, num(im, x, 2), h), f, h);
	Val *tie = onnx_op_where(im, even, f, f1, h);
	Val *lo = onnx_op_where(im, onnx_op_binary(im, BIN_LT, d, num(im, x, 0.5), h), f, tie, h);
	return onnx_op_where(im, onnx_op_binary(im, BIN_GT, d, num(im, x, 0.5), h), f1, lo, h);
}

/* Mod: fmod=1 is C's fmod (the sign of the dividend), a - b trunc(a / b);
 * fmod=0 (integers only) takes the sign of the divisor: the remainder plus
 * b where the two signs differ. */
MAP_FN(onnx_map_mod)
{
	(void)nin, (void)nout;
	Val *a = in[0], *b = in[1];
	const char *h = onnx_out_hint(im, 0);
	bool fm = onnx_attr_int(n, "fmod", 0) != 0;
	if (a->kind != b->kind || a->kind == ET_BOOL)
		return onnx_fail(im, "operands of element types %s and %s", elem_name(a->kind),
		                 elem_name(b->kind)), false;
	bool fl = elem_is_float(a->kind);
	if (fl && !fm)
		return onnx_fail(im, "a floating-point Mod needs fmod=1"), false;
	if (a->k && b->k && !(fm && !fl))
		return (out[0] = onnx_op_binary(im, BIN_MOD, a, b, h)) != NULL;
	Val *q = onnx_op_binary(im, BIN_DIV, a, b, h);
	if (fl)
		q = q ? trunc_f(im, q, h) : NULL;
	Val *r = onnx_op_binary(im, BIN_SUB, a, onnx_op_binary(im, BIN_MUL, b, q, h), h);
	if (fm || !elem_is_signed(a->kind))
		return (out[0] = r) != NULL;
	Val *z = num(im, a, 0);
	Val *differ = onnx_op_binary(im, BIN_XOR, onnx_op_binary(im, BIN_LT, r, z, h), onnx_op_binary(im, BIN_LT, b, z, h), h);
	Val *fix = onnx_op_binary(im, BIN_AND, differ, onnx_op_unary(im, UN_NOT, onnx_op_binary(im, BIN_EQ, r, z, h), h), h);
	return (out[0] = onnx_op_where(im, fix, onnx_op_binary(im, BIN_ADD, r, b, h), r, h)) != NULL;
}

/* BitShift of unsigned integers: x times or divided by 2^y (the IR's
 * power on integers wraps as a shift does); a right shift by the width or
 * more is 0. */
MAP_FN(onnx_map_bitshift)
{
	(void)nin, (void)nout;
	Val *x = in[0], *y = in[1];
	const char *h = onnx_out_hint(im, 0);
	char dir[16];
	onnx_attr_str(n, "direction", "", dir, sizeof dir);
	bool left = !strcmp(dir, "LEFT");
	if (!left && strcmp(dir, "RIGHT"))
		return onnx_fail(im, "direction '%s' is not LEFT or RIGHT", dir), false;
	if (x->kind != y->kind || elem_is_float(x->kind) || elem_is_signed(x->kind) ||
	    x->kind == ET_BOOL)
		return onnx_fail(im, "needs unsigned integers of one type, not %s and %s",
		                 elem_name(x->kind), elem_name(y->kind)), false;
	Val *p = onnx_op_binary(im, BIN_POW, num(im, x, 2), y, h);
	if (left)
		return (out[0] = onnx_op_binary(im, BIN_MUL, x, p, h)) != NULL;
	Val *one = num(im, x, 1);
	Val *q = onnx_op_binary(im, BIN_DIV, x, onnx_op_binary(im, BIN_MAX, p, one, h), h);
	double bits = (double)elem_bits(x->kind);
	return (out[0] = onnx_op_where(im, onnx_op_binary(im, BIN_LT, y, num(im, x, bits), h), q, num(im, x, 0), h)) != NULL;
}
