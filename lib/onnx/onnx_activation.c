/* onnx_activation.c: ONNX's elementwise operators that the IR has no
 * operator of, imported as compositions of its elementwise ones (where,
 * comparisons, exp, arithmetic with scalars), so no new IR operator is
 * needed: LeakyRelu, PRelu, ThresholdedRelu, Shrink, Elu, Selu, Celu,
 * Softplus, Softsign, Sinh, Cosh, Asinh, Acosh, Atanh, Tan (sin / cos),
 * Sign, IsInf, IsNaN; and Mean of n inputs.  Each folds when its input
 * is known at import (the parts fold). */
#include <math.h>
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

/* The parts of a composition, named after the node's output. */
typedef struct {
	Imp *im;
	const char *h;
	ElemKind k;      /* the input's element type, of the scalars */
} Cx;

static Val *
num(Cx *c, double v)
{
	return onnx_scalar(c->im, c->k, v);
}

static Val *
bin(Cx *c, BinOp op, Val *a, Val *b)
{
	return a && b ? onnx_op_binary(c->im, op, a, b, c->h) : NULL;
}

static Val *
un(Cx *c, UnOp op, Val *a)
{
	return onnx_op_unary(c->im, op, a, c->h);
}

static Val *
sel(Cx *c, Val *cond, Val *a, Val *b)
{
	return cond && a && b ? onnx_op_where(c->im, cond, a, b, c->h) : NULL;
}

/* exp(x / scale) * alpha - alpha: the negative side of Elu, Selu, Celu */
static Val *
exp_minus_one(Cx *c, Val *x, double scale, double alpha)
{
	Val *e = un(c, UN_EXP, scale == 1 ? x : bin(c, BIN_DIV, x, num(c, scale)));
	return bin(c, BIN_MUL, bin(c, BIN_SUB, e, num(c, 1)), num(c, alpha));
}

/* x * 0 is 0, or NaN where x is NaN (or infinite): the neutral value of a
 * branch that must keep NaN a NaN */
static Val *
zero_of(Cx *c, Val *x)
{
	return bin(c, BIN_MUL, x, num(c, 0));
}

static Val *
activation(Cx *c, const Onnx__NodeProto *n, Val *x, Val *slope)
{
	const char *t = n->op_type;
	if (!strcmp(t, "LeakyRelu") || !strcmp(t, "PRelu")) {
		/* x < 0 ? x * alpha : x */
		Val *s = slope ? slope : num(c, onnx_attr_float(n, "alpha", 0.01));
		return sel(c, bin(c, BIN_LT, x, num(c, 0)), bin(c, BIN_MUL, x, s), x);
	}
	if (!strcmp(t, "ThresholdedRelu")) {
		double alpha = onnx_attr_float(n, "alpha", 1);
		return sel(c, bin(c, BIN_GT, x, num(c, alpha)), x, zero_of(c, x));
	}
	if (!strcmp(t, "Shrink")) {
		/* x < -lambd ? x + bias : x > lambd ? x - bias : 0 */
		double l = onnx_attr_float(n, "lambd", 0.5), b = onnx_attr_float(n, "bias", 0);
		Val *hi = sel(c, bin(c, BIN_GT, x, num(c, l)), bin(c, BIN_SUB, x, num(c, b)),
		              zero_of(c, x));
		return sel(c, bin(c, BIN_LT, x, num(c, -l)), bin(c, BIN_ADD, x, num(c, b)), hi);
	}
	if (!strcmp(t, "Elu")) {
		double alpha = onnx_attr_float(n, "alpha", 1);
		return sel(c, bin(c, BIN_LT, x, num(c, 0)), exp_minus_one(c, x, 1, alpha), x);
	}
	if (!strcmp(t, "Selu")) {
		double alpha = onnx_attr_float(n, "alpha", 1.67326319217681884765625);
		double gamma = onnx_attr_float(n, "gamma", 1.05070102710723876953125);
		Val *y = sel(c, bin(c, BIN_GT, x, num(c, 0)), x, exp_minus_one(c, x, 1, alpha));
		return bin(c, BIN_MUL, y, num(c, gamma));
	}
	if (!strcmp(t, "Celu")) {
		/* max(0, x) + min(0, alpha (exp(x / alpha) - 1)) */
		double alpha = onnx_attr_float(n, "alpha", 1);
		if (alpha == 0)
			return onnx_fail(c->im, "alpha 0");
		Val *neg = bin(c, BIN_MIN, exp_minus_one(c, x, alpha, alpha), num(c, 0));
		return bin(c, BIN_ADD, bin(c, BIN_MAX, x, num(c, 0)), neg);
	}
	if (!strcmp(t, "Softplus")) {
		/* log(1 + exp(x)) as relu(x) + log(1 + exp(-|x|)), which does not
		 * overflow */
		Val *e = un(c, UN_EXP, un(c, UN_NEG, un(c, UN_ABS, x)));
		return bin(c, BIN_ADD, un(c, UN_RELU, x), un(c, UN_LOG, bin(c, BIN_ADD, e, num(c, 1))));
	}
	if (!strcmp(t, "Softsign"))
		return bin(c, BIN_DIV, x, bin(c, BIN_ADD, un(c, UN_ABS, x), num(c, 1)));
	if (!strcmp(t, "Asinh")) {
		/* sign(x) log(|x| + sqrt(x^2 + 1)): on |x|, so that a negative x
		 * does not cancel */
		Val *a = un(c, UN_ABS, x);
		Val *r = un(c, UN_SQRT, bin(c, BIN_ADD, bin(c, BIN_MUL, a, a), num(c, 1)));
		Val *l = un(c, UN_LOG, bin(c, BIN_ADD, a, r));
		return sel(c, bin(c, BIN_LT, x, num(c, 0)), un(c, UN_NEG, l), l);
	}
	if (!strcmp(t, "Acosh")) {
		/* log(x + sqrt(x^2 - 1)); NaN below 1 */
		Val *r = un(c, UN_SQRT, bin(c, BIN_SUB, bin(c, BIN_MUL, x, x), num(c, 1)));
		return un(c, UN_LOG, bin(c, BIN_ADD, x, r));
	}
	if (!strcmp(t, "Atanh")) {
		/* log((1 + x) / (1 - x)) / 2 */
		Val *q = bin(c, BIN_DIV, bin(c, BIN_ADD, num(c, 1), x), bin(c, BIN_SUB, num(c, 1), x));
		return bin(c, BIN_MUL, un(c, UN_LOG, q), num(c, 0.5));
	}
	if (!strcmp(t, "Tan"))
		return bin(c, BIN_DIV, un(c, UN_SIN, x), un(c, UN_COS, x));
	if (!strcmp(t, "Sinh") || !strcmp(t, "Cosh")) {
		Val *p = un(c, UN_EXP, x), *m = un(c, UN_EXP, un(c, UN_NEG, x));
		Val *s = bin(c, t[0] == 'S' ? BIN_SUB : BIN_ADD, p, m);
		return bin(c, BIN_MUL, s, num(c, 0.5));
	}
	if (!strcmp(t, "Sign")) {
		/* -1, 1, or x * 0 (0, and NaN stays NaN) */
		Val *pos = sel(c, bin(c, BIN_GT, x, num(c, 0)), num(c, 1), zero_of(c, x));
		return sel(c, bin(c, BIN_LT, x, num(c, 0)), num(c, -1), pos);
	}
	if (!strcmp(t, "IsNaN"))
		return un(c, UN_NOT, bin(c, BIN_EQ, x, x));
	/* IsInf: x - x is NaN (inf - inf) where x is not (x == x), on the
	 * sides asked */
	bool pos = onnx_attr_int(n, "detect_positive", 1) != 0;
	bool neg = onnx_attr_int(n, "detect_negative", 1) != 0;
	Val *d = bin(c, BIN_SUB, x, x);
	Val *inf = bin(c, BIN_AND, un(c, UN_NOT, bin(c, BIN_EQ, d, d)), bin(c, BIN_EQ, x, x));
	if (pos && neg)
		return inf;
	if (!pos && !neg)
		return bin(c, BIN_LT, x, x);   /* all false */
	return bin(c, BIN_AND, inf, bin(c, pos ? BIN_GT : BIN_LT, x, num(c, 0)));
}

MAP_FN(onnx_map_activation)
{
	(void)nout;
	Val *x = in[0];
	const char *t = n->op_type;
	bool any = !strcmp(t, "Sign") || !strcmp(t, "LeakyRelu") || !strcmp(t, "PRelu") ||
	           !strcmp(t, "ThresholdedRelu") || !strcmp(t, "Shrink");
	if (x->kind == ET_BOOL || (!any && !elem_is_float(x->kind)))
		return onnx_fail(im, "needs a %s input, not %s", any ? "number" : "floating-point",
		                 elem_name(x->kind)), false;
	Val *slope = NULL;
	if (!strcmp(t, "PRelu")) {
		if (nin < 2 || !in[1])
			return onnx_fail(im, "needs its slope"), false;
		slope = in[1];
		/* opset 6's slope broadcasts as opset 6's binary operators' B */
		if (im->opset < 7 && slope->rank < x->rank) {
			int64_t d[MAX_RANK];
			uint32_t r = x->rank - 1;
			if (slope->rank > r)
				return onnx_fail(im, "its slope does not broadcast"), false;
			for (uint32_t i = 0; i < r; i++)
				d[i] = i < slope->rank ? slope->dims[i] : 1;
			if (!(slope = onnx_op_reshape(im, slope, r, d, "slope")))
				return false;
		}
	}
	Cx c = {im, onnx_out_hint(im, 0), x->kind};
	return (out[0] = activation(&c, n, x, slope)) != NULL;
}

/* Mean of n inputs: their sum divided by n. */
MAP_FN(onnx_map_mean)
{
	(void)n, (void)nout;
	Cx c = {im, onnx_out_hint(im, 0), in[0]->kind};
	if (!elem_is_float(c.k))
		return onnx_fail(im, "needs floating-point inputs, not %s", elem_name(c.k)), false;
	Val *acc = in[0];
	for (size_t i = 1; i < nin && acc; i++) {
		if (!in[i])
			return onnx_fail(im, "input %zu is missing", i), false;
		acc = bin(&c, BIN_ADD, acc, in[i]);
	}
	if (nin > 1)
		acc = bin(&c, BIN_DIV, acc, num(&c, (double)nin));
	return (out[0] = acc) != NULL;
}
