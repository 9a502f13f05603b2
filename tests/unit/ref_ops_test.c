/* ref_ops_test: the reference kernels (lib/ref_*.c) and the tensor and
 * half-precision helpers (lib/tensor/tensor.c).
 *
 * Part 1 calls ref_eval directly on small hand-computed cases for every
 * operator.  Part 2 parses modules with the real parser and registry and
 * evaluates their bindings in order with the inferred result types and
 * the parsed attributes, so the kernels are checked to agree with the
 * type rules (and layouts are checked against each other: NCHW4c against
 * NCHW through layout_transform).  Exit 0 when every check passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "ops/ops.h"
#include "ref/ref_ops.h"
#include "tensor/tensor.h"

#include "check.h"
#include "test_attrs.h"

/* cast's attributes for a result of kind k (its dtype names k). */
static const Attrs *
cast_to(ElemKind k)
{
	static Attrs a[ET__COUNT];
	if (!a[k].m.n)
		a_str(&a[k], "dtype", elem_name(k));
	return &a[k];
}

#define INTS(...) (sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}

/* ------------------------------------------------------------- tensors */

/* A tensor of kind k, shape dims, elements vals (NULL: 0, 1, 2, ...). */
static Tensor *
mk(ElemKind k, uint32_t rank, const int64_t *dims, const double *vals)
{
	Tensor *t = tensor_new(k, rank, dims);
	for (int64_t i = 0; i < t->numel; i++)
		tensor_set(t, i, vals ? vals[i] : (double)i);
	return t;
}

/* A rank-0 shape, where SHAPE() would need an empty initializer. */
#define SHAPE0 0u, (int64_t *)NULL
#define SHAPE(...) (uint32_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (int64_t[]){__VA_ARGS__}
#define SCALAR 0, (const int64_t *)NULL
#define VALS(...) (double[]){__VA_ARGS__}

static Tensor *
scalar(ElemKind k, double v)
{
	return mk(k, 0, NULL, &v);
}

/* Runs op with one output of kind k and shape (rank, dims); the output, or
 * NULL after printing the error (when want_err is NULL) or checking that
 * the error holds want_err. */
static Tensor *
run_op(int line, const char *op, const Attrs *a, Tensor **args, uint32_t nargs, ElemKind k,
       uint32_t rank, const int64_t *dims, const char *want_err)
{
	const OpDef *d = op_lookup(op, strlen(op));
	Type t = {.kind = TY_TENSOR, .dt = {(uint8_t)k, 1}, .n = rank, .dims = dims};
	Tensor *out = tensor_like_type(&t);
	char err[512] = "";
	bool ok = d && out && ref_eval(d, a ? &a->m : NULL, args, nargs, &t, &out, 1, err, sizeof err);
	if (want_err) {
		checks++;
		if (ok || !strstr(err, want_err)) {
			failures++;
			printf("FAIL %s:%d: %s: expected an error with \"%s\", got %s\n", __FILE__, line,
			       op, want_err, ok ? "success" : err);
		}
		tensor_free(out);
		return NULL;
	}
	checks++;
	if (!ok) {
		failures++;
		printf("FAIL %s:%d: %s: %s\n", __FILE__, line, op, d ? err : "no such operator");
		tensor_free(out);
		return NULL;
	}
	return out;
}

#define RUN(op, a, args, k, shape) \
	run_op(__LINE__, op, a, args, (uint32_t)(sizeof args / sizeof args[0]), k, shape, NULL)
#define RUN_ERR(op, a, args, k, shape, msg) \
	run_op(__LINE__, op, a, args, (uint32_t)(sizeof args / sizeof args[0]), k, shape, msg)

/* t holds want[] (within tol, NaN matching NaN); frees t. */
static void
expect_at(int line, const char *what, Tensor *t, const double *want, int64_t n, double tol)
{
	if (!t)
		return;     /* reported by run_op */
	checks++;
	bool ok = t->numel == n;
	int64_t bad = -1;
	for (int64_t i = 0; ok && i < n; i++) {
		double g = tensor_get(t, i), w = want[i];
		bool same = (isnan(g) && isnan(w)) || g == w || fabs(g - w) <= tol;
		if (!same) {
			ok = false;
			bad = i;
		}
	}
	if (!ok) {
		failures++;
		if (bad >= 0)
			printf("FAIL %s:%d: %s: element %lld is %.17g, expected %.17g\n", __FILE__, line,
			       what, (long long)bad, tensor_get(t, bad), want[bad]);
		else
			printf("FAIL %s:%d: %s: %lld elements, expected %lld\n", __FILE__, line, what,
			       (long long)t->numel, (long long)n);
	}
	tensor_free(t);
}

#define EXPECT(what, t, tol, ...)                                                    \
	expect_at(__LINE__, what, t, (double[]){__VA_ARGS__},                        \
	          (int64_t)(sizeof((double[]){__VA_ARGS__}) / sizeof(double)), tol)

static void
free_all(Tensor **ts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tensor_free(ts[i]);
}

/* ------------------------------------------------------- tensor, half */

static void
test_half(void)
{
	/* Every half survives half -> float -> half; NaNs stay NaNs. */
	int bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		float f = f16_to_float((uint16_t)h);
		uint16_t back = f16_from_float(f);
		bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
		if (nan ? !isnan(f) || (back & 0x7c00) != 0x7c00 || !(back & 0x3ff) : back != h)
			bad++;
		if (f16_to_double((uint16_t)h) != (double)f && !nan)
			bad++;
	}
	CHECK(bad == 0, "half round trip fails for %d values", bad);
	/* Halfway between neighbours rounds to the even one; a hair off
	 * either way rounds to the nearer one. */
	bad = 0;
	for (uint32_t h = 0; h < 0x7bff; h++) {
		double lo = f16_to_double((uint16_t)h), hi = f16_to_double((uint16_t)(h + 1));
		double mid = (lo + hi) / 2;
		uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
		if (f16_from_double(mid) != even || f16_from_double(-mid) != (even | 0x8000) ||
		    f16_from_double(nextafter(mid, 0)) != h ||
		    f16_from_double(nextafter(mid, INFINITY)) != h + 1)
			bad++;
	}
	CHECK(bad == 0, "half rounding of midpoints fails for %d values", bad);
	CHECK(f16_from_double(65504.0) == 0x7bff, "65504");
	CHECK(f16_from_double(65519.99) == 0x7bff, "65519.99 rounds down");
	CHECK(f16_from_double(65520.0) == 0x7c00, "65520 overflows");
	CHECK(f16_from_double(-1e300) == 0xfc00, "-1e300 is -inf");
	CHECK(f16_from_float(INFINITY) == 0x7c00, "inf");
	CHECK(f16_from_double(0x1p-24) == 0x0001, "smallest subnormal");
	CHECK(f16_from_double(0x1p-25) == 0x0000, "2^-25 ties to 0");
	CHECK(f16_from_double(0x1.8p-25) == 0x0001, "1.5*2^-25 rounds up");
	CHECK(f16_from_double(-0x1p-26) == 0x8000, "tiny negative is -0");
	CHECK(f16_from_double(0x1.ffcp-15) == 0x0400, "just below 2^-14 rounds to the normal");
	CHECK(f16_from_double(-0.0) == 0x8000, "-0");
	CHECK(f16_from_double(1.0 / 3) == 0x3555, "1/3");
	CHECK(f16_from_float(NAN) != 0 && (f16_from_float(NAN) & 0x7c00) == 0x7c00 &&
	      (f16_from_float(NAN) & 0x200), "NaN is a quiet NaN");
	CHECK(f16_to_float(0x3c00) == 1.0f && f16_to_float(0xc000) == -2.0f &&
	      f16_to_float(0x0001) == 0x1p-24f && f16_to_float(0x7c00) == INFINITY &&
	      isnan(f16_to_float(0x7e00)), "half to float");
	/* Double rounding avoided: 1 + 2^-11 + 2^-40 is above the tie in
	 * double but would tie in a float round first only if it lost bits. */
	CHECK(f16_from_double(1.0 + 0x1p-11 + 0x1p-40) == 0x3c01, "just above a tie");
}

static void
test_tensor(void)
{
	int64_t d[2] = {2, 3};
	Tensor *t = tensor_new(ET_I8, 2, d);
	CHECK(t && t->numel == 6 && t->data && tensor_get(t, 5) == 0, "tensor_new zeroes");
	tensor_set(t, 0, 300.0);
	tensor_set(t, 1, -300.0);
	tensor_set(t, 2, -7.9);
	tensor_set(t, 3, NAN);
	tensor_set_int(t, 4, 200);  /* wraps */
	CHECK(tensor_get(t, 0) == 127 && tensor_get(t, 1) == -128 && tensor_get(t, 2) == -7 &&
	      tensor_get(t, 3) == 0 && tensor_get(t, 4) == -56, "i8 conversions");
	tensor_free(t);
	t = tensor_new(ET_U64, 1, d);
	tensor_set(t, 0, 1e30);
	tensor_set(t, 1, -5.0);
	CHECK(tensor_get_int(t, 0) == -1 && tensor_get_int(t, 1) == 0, "u64 saturation");
	tensor_free(t);
	t = tensor_new(ET_I64, 1, d);
	tensor_set_int(t, 0, INT64_MAX);
	tensor_set(t, 1, 1e19);
	CHECK(tensor_get_int(t, 0) == INT64_MAX && tensor_get_int(t, 1) == INT64_MAX, "i64 exact");
	tensor_free(t);
	t = tensor_new(ET_BOOL, 1, d);
	tensor_set(t, 0, 0.25);
	tensor_set(t, 1, NAN);
	CHECK(((uint8_t *)t->data)[0] == 1 && ((uint8_t *)t->data)[1] == 1, "bool is x != 0");
	tensor_free(t);
	int64_t z[2] = {0, 5};
	t = tensor_new(ET_F32, 2, z);
	CHECK(t && t->numel == 0 && !t->data, "empty tensor has no data");
	tensor_free(t);
	t = tensor_new(ET_F16, SHAPE0);
	CHECK(t && t->numel == 1 && t->rank == 0, "rank 0");
	tensor_set(t, 0, 1.0 + 0x1p-11);    /* tie: to even */
	CHECK(tensor_get(t, 0) == 1.0, "f16 tensor_set rounds to even");
	tensor_free(t);
	int64_t neg = -1, big[2] = {INT64_MAX, 2};
	CHECK(!tensor_new(ET_F32, 1, &neg) && !tensor_new(ET_F32, 2, big) &&
	      !tensor_new(ET_F32, 65, d), "bad shapes are refused");
	int64_t td[3] = {1, 2, 3};
	Type ty = {.kind = TY_TENSOR, .dt = {ET_U16, 1}, .n = 3, .dims = td};
	t = tensor_like_type(&ty);
	CHECK(t && t->kind == ET_U16 && t->rank == 3 && t->numel == 6, "tensor_like_type");
	tensor_free(t);
	ty.dt.lanes = 4;
	CHECK(!tensor_like_type(&ty), "vector types are refused");
	CHECK(elem_size(ET_BOOL) == 1 && elem_size(ET_F16) == 2 && elem_size(ET_U64) == 8,
	      "elem_size");
}

/* ------------------------------------------------ elementwise, binary */

static void
test_binary(void)
{
	/* [[1,2,3]] + [[10],[20]]: both broadcast. */
	Tensor *a[2] = {mk(ET_F32, SHAPE(1, 3), VALS(1, 2, 3)), mk(ET_F32, SHAPE(2, 1), VALS(10, 20))};
	EXPECT("add broadcast", RUN("add", NULL, a, ET_F32, SHAPE(2, 3)), 0, 11, 12, 13, 21, 22, 23);
	free_all(a, 2);
	/* [2,1,3] op [4,1]: rank extension on the left. */
	Tensor *b[2] = {mk(ET_F64, SHAPE(2, 1, 3), NULL), mk(ET_F64, SHAPE(4, 1), VALS(0, 10, 20, 30))};
	Tensor *o = RUN("subtract", NULL, b, ET_F64, SHAPE(2, 4, 3));
	if (o) {
		bool ok = true;
		for (int n = 0; n < 2; n++)
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 3; j++)
					ok = ok && tensor_get(o, (n * 4 + i) * 3 + j) == (n * 3 + j) - 10.0 * i;
		CHECK(ok, "subtract [2,1,3] - [4,1]");
		tensor_free(o);
	}
	free_all(b, 2);
	/* A rank-0 literal. */
	Tensor *c[2] = {mk(ET_F32, SHAPE(3), VALS(1, -2, 0.5)), scalar(ET_F32, 2)};
	EXPECT("multiply by scalar", RUN("multiply", NULL, c, ET_F32, SHAPE(3)), 0, 2, -4, 1);
	EXPECT("divide by scalar", RUN("divide", NULL, c, ET_F32, SHAPE(3)), 0, 0.5, -1, 0.25);
	EXPECT("power", RUN("power", NULL, c, ET_F32, SHAPE(3)), 0, 1, 4, 0.25);
	free_all(c, 2);
	Tensor *sc[2] = {scalar(ET_F32, 2), mk(ET_F32, SHAPE(3), VALS(1, -2, 0.5))};
	EXPECT("scalar first", RUN("divide", NULL, sc, ET_F32, SHAPE(3)), 0, 2, -1, 4);
	free_all(sc, 2);
	Tensor *d[2] = {mk(ET_F32, SHAPE(4), VALS(1, -1, 0, NAN)), mk(ET_F32, SHAPE(4), VALS(0, 0, 0, 1))};
	EXPECT("float divide by zero", RUN("divide", NULL, d, ET_F32, SHAPE(4)), 0, INFINITY,
	       -INFINITY, NAN, NAN);
	EXPECT("maximum", RUN("maximum", NULL, d, ET_F32, SHAPE(4)), 0, 1, 0, 0, NAN);
	EXPECT("minimum", RUN("minimum", NULL, d, ET_F32, SHAPE(4)), 0, 0, -1, 0, NAN);
	free_all(d, 2);
	/* f16: computed in double, rounded once: 1 + 2^-11 is a tie -> 1. */
	Tensor *h[2] = {mk(ET_F16, SHAPE(2), VALS(1, 1)), mk(ET_F16, SHAPE(2), VALS(0x1p-11, 0x1.8p-11))};
	EXPECT("f16 add rounds to even", RUN("add", NULL, h, ET_F16, SHAPE(2)), 0, 1, 1 + 0x1p-10);
	free_all(h, 2);

	/* Integers: exact, C division, wrap-around. */
	Tensor *i[2] = {mk(ET_I32, SHAPE(4), VALS(7, -7, 7, -7)), mk(ET_I32, SHAPE(4), VALS(2, 2, -2, -2))};
	EXPECT("i32 divide truncates", RUN("divide", NULL, i, ET_I32, SHAPE(4)), 0, 3, -3, -3, 3);
	EXPECT("i32 power", RUN("power", NULL, i, ET_I32, SHAPE(4)), 0, 49, 49, 0, 0);
	EXPECT("i32 maximum", RUN("maximum", NULL, i, ET_I32, SHAPE(4)), 0, 7, 2, 7, -2);
	free_all(i, 2);
	Tensor *z[2] = {mk(ET_I32, SHAPE(3), VALS(1, 2, 3)), mk(ET_I32, SHAPE(3), VALS(1, 0, 1))};
	RUN_ERR("divide", NULL, z, ET_I32, SHAPE(3), "integer division by zero (element 1");
	free_all(z, 2);
	Tensor *zu[2] = {mk(ET_U8, SHAPE(1), VALS(1)), scalar(ET_U8, 0)};
	RUN_ERR("divide", NULL, zu, ET_U8, SHAPE(1), "integer division by zero");
	free_all(zu, 2);
	Tensor *m[2] = {mk(ET_I32, SHAPE(2), VALS(-2147483648.0, 5)), scalar(ET_I32, -1)};
	EXPECT("INT_MIN / -1 wraps", RUN("divide", NULL, m, ET_I32, SHAPE(2)), 0, -2147483648.0, -5);
	free_all(m, 2);
	Tensor *m64[2] = {tensor_new(ET_I64, SHAPE(1)), scalar(ET_I64, -1)};
	tensor_set_int(m64[0], 0, INT64_MIN);
	o = RUN("divide", NULL, m64, ET_I64, SHAPE(1));
	CHECK(o && tensor_get_int(o, 0) == INT64_MIN, "INT64_MIN / -1 wraps");
	tensor_free(o);
	free_all(m64, 2);
	Tensor *w[2] = {mk(ET_I8, SHAPE(2), VALS(100, -100)), mk(ET_I8, SHAPE(2), VALS(100, 100))};
	EXPECT("i8 add wraps", RUN("add", NULL, w, ET_I8, SHAPE(2)), 0, -56, 0);
	EXPECT("i8 multiply wraps", RUN("multiply", NULL, w, ET_I8, SHAPE(2)), 0, 16, -16);
	free_all(w, 2);
	Tensor *u[2] = {mk(ET_U8, SHAPE(2), VALS(1, 200)), mk(ET_U8, SHAPE(2), VALS(2, 100))};
	EXPECT("u8 subtract wraps", RUN("subtract", NULL, u, ET_U8, SHAPE(2)), 0, 255, 100);
	EXPECT("u8 maximum", RUN("maximum", NULL, u, ET_U8, SHAPE(2)), 0, 2, 200);
	free_all(u, 2);
	Tensor *big[2] = {tensor_new(ET_I64, SHAPE(1)), scalar(ET_I64, 1)};
	tensor_set_int(big[0], 0, ((int64_t)1 << 62) + 1);
	o = RUN("add", NULL, big, ET_I64, SHAPE(1));
	CHECK(o && tensor_get_int(o, 0) == ((int64_t)1 << 62) + 2, "i64 add is exact beyond 2^53");
	tensor_free(o);
	free_all(big, 2);
	Tensor *ub[2] = {tensor_new(ET_U64, SHAPE(2)), tensor_new(ET_U64, SHAPE(2))};
	tensor_set_int(ub[0], 0, -1);   /* 2^64 - 1 */
	tensor_set_int(ub[1], 0, 2);
	tensor_set_int(ub[0], 1, 5);
	tensor_set_int(ub[1], 1, -2);   /* 2^64 - 2 */
	o = RUN("divide", NULL, ub, ET_U64, SHAPE(2));
	CHECK(o && tensor_get_int(o, 0) == INT64_MAX && tensor_get_int(o, 1) == 0,
	      "u64 divide is unsigned");
	tensor_free(o);
	o = RUN("maximum", NULL, ub, ET_U64, SHAPE(2));
	CHECK(o && tensor_get_int(o, 0) == -1 && tensor_get_int(o, 1) == -2, "u64 maximum is unsigned");
	tensor_free(o);
	free_all(ub, 2);
	Tensor *p[2] = {mk(ET_I32, SHAPE(5), VALS(2, 3, -1, -1, 1)), mk(ET_I32, SHAPE(5), VALS(10, -1, -3, -4, -5))};
	EXPECT("integer powers", RUN("power", NULL, p, ET_I32, SHAPE(5)), 0, 1024, 0, -1, 1, 1);
	free_all(p, 2);
	Tensor *p0[2] = {scalar(ET_I32, 0), scalar(ET_I32, -1)};
	RUN_ERR("power", NULL, p0, ET_I32, SCALAR, "negative power");
	free_all(p0, 2);
	Tensor *p8[2] = {scalar(ET_I8, -2), scalar(ET_I8, 7)};
	EXPECT("i8 power", RUN("power", NULL, p8, ET_I8, SCALAR), 0, -128);
	free_all(p8, 2);

	/* Mismatches are errors, not crashes. */
	Tensor *bad[2] = {mk(ET_F32, SHAPE(2, 3), NULL), mk(ET_F32, SHAPE(2), NULL)};
	RUN_ERR("add", NULL, bad, ET_F32, SHAPE(2, 3), "do not broadcast");
	free_all(bad, 2);
	Tensor *mix[2] = {mk(ET_F32, SHAPE(2), NULL), mk(ET_F16, SHAPE(2), NULL)};
	RUN_ERR("add", NULL, mix, ET_F32, SHAPE(2), "element types differ");
	free_all(mix, 2);
	Tensor *ok2[2] = {mk(ET_F32, SHAPE(2), NULL), mk(ET_F32, SHAPE(2), NULL)};
	RUN_ERR("add", NULL, ok2, ET_F32, SHAPE(3), "output tensor has shape [3]");
	free_all(ok2, 2);
}

static void
test_unary(void)
{
	Tensor *x[1] = {mk(ET_F64, SHAPE(4), VALS(-1.5, 0, 0.25, 4))};
	EXPECT("negative", RUN("negative", NULL, x, ET_F64, SHAPE(4)), 0, 1.5, 0, -0.25, -4);
	EXPECT("relu", RUN("nn.relu", NULL, x, ET_F64, SHAPE(4)), 0, 0, 0, 0.25, 4);
	EXPECT("exp", RUN("exp", NULL, x, ET_F64, SHAPE(4)), 0, exp(-1.5), 1, exp(0.25), exp(4));
	EXPECT("log", RUN("log", NULL, x, ET_F64, SHAPE(4)), 0, NAN, -INFINITY, log(0.25), log(4));
	EXPECT("sqrt", RUN("sqrt", NULL, x, ET_F64, SHAPE(4)), 0, NAN, 0, 0.5, 2);
	EXPECT("rsqrt", RUN("rsqrt", NULL, x, ET_F64, SHAPE(4)), 0, NAN, INFINITY, 2, 0.5);
	EXPECT("sigmoid", RUN("sigmoid", NULL, x, ET_F64, SHAPE(4)), 1e-15, 1 / (1 + exp(1.5)), 0.5,
	       1 / (1 + exp(-0.25)), 1 / (1 + exp(-4.0)));
	EXPECT("tanh", RUN("tanh", NULL, x, ET_F64, SHAPE(4)), 0, tanh(-1.5), 0, tanh(0.25), tanh(4));
	EXPECT("erf", RUN("erf", NULL, x, ET_F64, SHAPE(4)), 1e-15, erf(-1.5), 0, erf(0.25), erf(4));
	EXPECT("sin", RUN("sin", NULL, x, ET_F64, SHAPE(4)), 0, sin(-1.5), 0, sin(0.25), sin(4));
	EXPECT("cos", RUN("cos", NULL, x, ET_F64, SHAPE(4)), 0, cos(-1.5), 1, cos(0.25), cos(4));
	EXPECT("atan", RUN("atan", NULL, x, ET_F64, SHAPE(4)), 0, atan(-1.5), 0, atan(0.25), atan(4));
	EXPECT("asin", RUN("asin", NULL, x, ET_F64, SHAPE(4)), 0, NAN, 0, asin(0.25), NAN);
	EXPECT("acos", RUN("acos", NULL, x, ET_F64, SHAPE(4)), 0, NAN, acos(0.0), acos(0.25), NAN);
	/* ONNX's defaults 0.2 and 0.5: -1.5 -> 0.2, 4 -> 1.3 clipped to 1 */
	EXPECT("hard_sigmoid", RUN("hard_sigmoid", NULL, x, ET_F64, SHAPE(4)), 1e-15, 0.2, 0.5,
	       0.55, 1);
	/* x (x/6 + 1/2) between -3 and 3, 0 below, x above */
	EXPECT("hard_swish", RUN("hard_swish", NULL, x, ET_F64, SHAPE(4)), 1e-15, -1.5 * 0.25, 0,
	       0.25 * (0.25 / 6 + 0.5), 4);
	free_all(x, 1);
	Attrs hs = {0};
	a_num(&hs, "alpha", 0.5);
	a_int(&hs, "beta", 1);
	Tensor *hx[1] = {mk(ET_F32, SHAPE(4), VALS(-3, -1, 0.5, NAN))};
	EXPECT("hard_sigmoid alpha, beta; NaN stays", RUN("hard_sigmoid", &hs, hx, ET_F32, SHAPE(4)),
	       0, 0, 0.5, 1, NAN);
	EXPECT("hard_swish NaN stays", RUN("hard_swish", NULL, hx, ET_F32, SHAPE(4)), 0, 0, -1 / 3.0f,
	       0.5f * (0.5f / 6 + 0.5f), NAN);
	Attrs hb = {0};
	a_num(&hb, "alpha", INFINITY);
	RUN_ERR("hard_sigmoid", &hb, hx, ET_F32, SHAPE(4), "'alpha' of hard_sigmoid must be a finite");
	free_all(hx, 1);
	Tensor *big[1] = {mk(ET_F32, SHAPE(2), VALS(-1000, 1000))};
	EXPECT("sigmoid saturates", RUN("sigmoid", NULL, big, ET_F32, SHAPE(2)), 0, 0, 1);
	free_all(big, 1);
	Tensor *h[1] = {mk(ET_F16, SHAPE(1), VALS(2))};
	EXPECT("f16 sqrt", RUN("sqrt", NULL, h, ET_F16, SHAPE(1)), 0,
	       f16_to_double(f16_from_double(sqrt(2.0))));
	free_all(h, 1);
	Tensor *i[1] = {mk(ET_I8, SHAPE(3), VALS(-128, -3, 5))};
	EXPECT("i8 negative wraps", RUN("negative", NULL, i, ET_I8, SHAPE(3)), 0, -128, 3, -5);
	EXPECT("i8 relu", RUN("nn.relu", NULL, i, ET_I8, SHAPE(3)), 0, 0, 0, 5);
	RUN_ERR("exp", NULL, i, ET_I8, SHAPE(3), "floating-point");
	RUN_ERR("erf", NULL, i, ET_I8, SHAPE(3), "floating-point");
	RUN_ERR("sin", NULL, i, ET_I8, SHAPE(3), "floating-point");
	RUN_ERR("cos", NULL, i, ET_I8, SHAPE(3), "floating-point");
	RUN_ERR("atan", NULL, i, ET_I8, SHAPE(3), "floating-point");
	RUN_ERR("hard_swish", NULL, i, ET_I8, SHAPE(3), "floating-point");
	free_all(i, 1);
	Tensor *u[1] = {mk(ET_U8, SHAPE(2), VALS(0, 3))};
	EXPECT("u8 negative wraps", RUN("negative", NULL, u, ET_U8, SHAPE(2)), 0, 0, 253);
	free_all(u, 1);

	Attrs a = {0};
	a_num(&a, "a_min", 0.0);
	a_num(&a, "a_max", 6.0);
	Tensor *c[1] = {mk(ET_F32, SHAPE(4), VALS(-2, 0.5, 7, NAN))};
	EXPECT("clip", RUN("clip", &a, c, ET_F32, SHAPE(4)), 0, 0, 0.5, 6, NAN);
	free_all(c, 1);
	Attrs ai = {0};
	a_num(&ai, "a_min", -1.5);
	a_num(&ai, "a_max", 2.9);
	Tensor *ci[1] = {mk(ET_I32, SHAPE(4), VALS(-5, 1, 3, -1))};
	EXPECT("clip ints (bounds truncated)", RUN("clip", &ai, ci, ET_I32, SHAPE(4)), 0, -1, 1, 2, -1);
	free_all(ci, 1);
	Tensor *cu[1] = {mk(ET_U8, SHAPE(3), VALS(0, 2, 255))};
	EXPECT("clip u8 (negative bound saturates)", RUN("clip", &ai, cu, ET_U8, SHAPE(3)), 0, 0, 2, 2);
	Attrs am = {0};
	a_int(&am, "a_min", 1);
	RUN_ERR("clip", &am, cu, ET_U8, SHAPE(3), "missing attribute 'a_max'");
	/* The type rule's decoder (clip_attrs): its words. */
	Attrs ar = {0};
	a_num(&ar, "a_min", 6.0);
	a_num(&ar, "a_max", 0.0);
	RUN_ERR("clip", &ar, cu, ET_U8, SHAPE(3),
	        "clip: 'a_min' of clip (6) must not be greater than 'a_max' (0)");
	free_all(cu, 1);

	/* cast converts as C does; out of range saturates; NaN -> 0. */
	Tensor *f[1] = {mk(ET_F32, SHAPE(5), VALS(-1.7, 2.9, 1e10, -1e10, NAN))};
	EXPECT("cast f32 -> i32", RUN("cast", cast_to(ET_I32), f, ET_I32, SHAPE(5)), 0, -1, 2, 2147483647.0,
	       -2147483648.0, 0);
	EXPECT("cast f32 -> u8", RUN("cast", cast_to(ET_U8), f, ET_U8, SHAPE(5)), 0, 0, 2, 255, 0, 0);
	EXPECT("cast f32 -> bool", RUN("cast", cast_to(ET_BOOL), f, ET_BOOL, SHAPE(5)), 0, 1, 1, 1, 1, 1);
	EXPECT("cast f32 -> f16", RUN("cast", cast_to(ET_F16), f, ET_F16, SHAPE(5)), 0, -1.7001953125,
	       2.900390625, INFINITY, -INFINITY, NAN);
	free_all(f, 1);
	Tensor *ii[1] = {mk(ET_I32, SHAPE(4), VALS(300, -1, 2049, 0))};
	EXPECT("cast i32 -> i8 keeps the low bits", RUN("cast", cast_to(ET_I8), ii, ET_I8, SHAPE(4)), 0, 44, -1, 1, 0);
	EXPECT("cast i32 -> u16", RUN("cast", cast_to(ET_U16), ii, ET_U16, SHAPE(4)), 0, 300, 65535, 2049, 0);
	EXPECT("cast i32 -> f16 ties to even", RUN("cast", cast_to(ET_F16), ii, ET_F16, SHAPE(4)), 0, 300, -1, 2048, 0);
	EXPECT("cast i32 -> bool", RUN("cast", cast_to(ET_BOOL), ii, ET_BOOL, SHAPE(4)), 0, 1, 1, 1, 0);
	free_all(ii, 1);
	Tensor *uu[1] = {tensor_new(ET_U64, SHAPE(1))};
	tensor_set_int(uu[0], 0, -1);
	EXPECT("cast u64 max -> f32", RUN("cast", cast_to(ET_F32), uu, ET_F32, SHAPE(1)), 0, 18446744073709551616.0);
	free_all(uu, 1);
	Tensor *ll[1] = {tensor_new(ET_I64, SHAPE(1))};
	tensor_set_int(ll[0], 0, ((int64_t)1 << 60) + 1);
	Tensor *o = RUN("cast", cast_to(ET_U64), ll, ET_U64, SHAPE(1));
	CHECK(o && tensor_get_int(o, 0) == ((int64_t)1 << 60) + 1, "cast i64 -> u64 exact");
	tensor_free(o);
	free_all(ll, 1);
	Tensor *bb[1] = {mk(ET_BOOL, SHAPE(2), VALS(1, 0))};
	EXPECT("cast bool -> f32", RUN("cast", cast_to(ET_F32), bb, ET_F32, SHAPE(2)), 0, 1, 0);
	free_all(bb, 1);
}

static void
test_bias_softmax(void)
{
	Tensor *a[2] = {mk(ET_F32, SHAPE(1, 2, 2), NULL), mk(ET_F32, SHAPE(2), VALS(10, 20))};
	EXPECT("bias_add axis 1 (default)", RUN("nn.bias_add", NULL, a, ET_F32, SHAPE(1, 2, 2)), 0,
	       10, 11, 22, 23);
	Attrs ax = {0};
	a_int(&ax, "axis", -1);
	EXPECT("bias_add axis -1", RUN("nn.bias_add", &ax, a, ET_F32, SHAPE(1, 2, 2)), 0, 10, 21, 12, 23);
	free_all(a, 2);
	Tensor *bad[2] = {mk(ET_F32, SHAPE(1, 2, 2), NULL), mk(ET_F32, SHAPE(3), NULL)};
	RUN_ERR("nn.bias_add", NULL, bad, ET_F32, SHAPE(1, 2, 2), "bias has type f32[3]");
	free_all(bad, 2);

	double e1 = exp(-2.0), e2 = exp(-1.0), s = e1 + e2 + 1;
	Tensor *x[1] = {mk(ET_F64, SHAPE(2, 3), VALS(1, 2, 3, 1000, 1001, 1002))};
	EXPECT("softmax, stable for large inputs", RUN("nn.softmax", NULL, x, ET_F64, SHAPE(2, 3)),
	       1e-15, e1 / s, e2 / s, 1 / s, e1 / s, e2 / s, 1 / s);
	Attrs a0 = {0};
	a_int(&a0, "axis", 0);
	Tensor *o = RUN("nn.softmax", &a0, x, ET_F64, SHAPE(2, 3));
	if (o) {
		for (int j = 0; j < 3; j++)
			CHECK(fabs(tensor_get(o, j) + tensor_get(o, 3 + j) - 1) < 1e-15 &&
			      tensor_get(o, j) < 1e-300, "softmax axis 0, column %d", j);
		tensor_free(o);
	}
	free_all(x, 1);
	/* Rows of a random 3-d f32 tensor sum to 1 on every axis. */
	Tensor *r[1] = {mk(ET_F32, SHAPE(3, 4, 5), NULL)};
	for (int64_t i = 0; i < r[0]->numel; i++)
		tensor_set(r[0], i, sin((double)i * 12.9898) * 20);
	for (int axis = 0; axis < 3; axis++) {
		Attrs aa = {0};
		a_int(&aa, "axis", axis);
		o = RUN("nn.softmax", &aa, r, ET_F32, SHAPE(3, 4, 5));
		if (!o)
			continue;
		int64_t dims[3] = {3, 4, 5}, st[3] = {20, 5, 1};
		double worst = 0;
		for (int64_t i = 0; i < 60; i++) {
			int64_t idx_axis = (i / st[axis]) % dims[axis];
			if (idx_axis != 0)
				continue;
			double sum = 0;
			for (int64_t j = 0; j < dims[axis]; j++)
				sum += tensor_get(o, i + j * st[axis]);
			worst = fmax(worst, fabs(sum - 1));
		}
		CHECK(worst < 1e-6, "softmax axis %d: a row sums to 1 %+g", axis, worst);
		tensor_free(o);
	}
	RUN_ERR("nn.softmax", NULL, (Tensor *[]){NULL}, ET_F32, SHAPE(3, 4, 5), "operand 1 is missing");
	free_all(r, 1);
	Tensor *ix[1] = {mk(ET_I32, SHAPE(3), NULL)};
	RUN_ERR("nn.softmax", NULL, ix, ET_I32, SHAPE(3), "floating-point");
	free_all(ix, 1);
}

/* ---------------------------------------------------------- reductions */

static void
test_reduce(void)
{
	Tensor *x[1] = {mk(ET_F32, SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6))};
	EXPECT("sum all", RUN("sum", NULL, x, ET_F32, SCALAR), 0, 21);
	Attrs a1 = {0};
	a_ints(&a1, "axis", INTS(1));
	EXPECT("sum axis 1", RUN("sum", &a1, x, ET_F32, SHAPE(2)), 0, 6, 15);
	EXPECT("mean axis 1", RUN("mean", &a1, x, ET_F32, SHAPE(2)), 0, 2, 5);
	Attrs ak = {0};
	a_ints(&ak, "axis", INTS(-1));
	a_bool(&ak, "keepdims", true);
	EXPECT("sum keepdims", RUN("sum", &ak, x, ET_F32, SHAPE(2, 1)), 0, 6, 15);
	Attrs ae = {0};
	a_ints(&ae, "axis", INTS(1));
	a_bool(&ae, "exclude", true);
	EXPECT("sum exclude", RUN("sum", &ae, x, ET_F32, SHAPE(3)), 0, 5, 7, 9);
	EXPECT("mean exclude", RUN("mean", &ae, x, ET_F32, SHAPE(3)), 0, 2.5, 3.5, 4.5);
	Attrs ex = {0};
	a_bool(&ex, "exclude", true);   /* no axis list: every axis, as TVM */
	a_int(&ex, "keepdims", 1);
	EXPECT("mean exclude without axes", RUN("mean", &ex, x, ET_F32, SHAPE(1, 1)), 0, 3.5);
	Attrs e0 = {0};
	a_ints(&e0, "axis", SHAPE0);   /* axis=[]: nothing reduced */
	EXPECT("sum axis []", RUN("sum", &e0, x, ET_F32, SHAPE(2, 3)), 0, 1, 2, 3, 4, 5, 6);
	Attrs dup = {0};
	a_ints(&dup, "axis", INTS(1, -1));
	RUN_ERR("sum", &dup, x, ET_F32, SHAPE(2), "twice");
	free_all(x, 1);
	Tensor *x3[1] = {mk(ET_F64, SHAPE(2, 3, 4), NULL)};
	Attrs a02 = {0};
	a_ints(&a02, "axis", INTS(0, 2));
	/* sum over n, k of n*12 + j*4 + k = 2*(0+1+2+3) + 4*12 + 8*4*j */
	EXPECT("sum axes 0, 2", RUN("sum", &a02, x3, ET_F64, SHAPE(3)), 0, 60, 92, 124);
	free_all(x3, 1);
	Tensor *i[1] = {mk(ET_I32, SHAPE(2, 2), VALS(1, 2, -3, -4))};
	EXPECT("i32 mean truncates", RUN("mean", &a1, i, ET_I32, SHAPE(2)), 0, 1, -3);
	free_all(i, 1);
	Tensor *w[1] = {mk(ET_I8, SHAPE(2), VALS(100, 100))};
	EXPECT("i8 sum wraps", RUN("sum", NULL, w, ET_I8, SCALAR), 0, -56);
	EXPECT("i8 mean of the exact sum", RUN("mean", NULL, w, ET_I8, SCALAR), 0, 100);
	free_all(w, 1);
	Tensor *e[1] = {mk(ET_I32, SHAPE(2, 0), NULL)};
	RUN_ERR("mean", &a1, e, ET_I32, SHAPE(2), "division by zero");
	EXPECT("sum of nothing", RUN("sum", &a1, e, ET_I32, SHAPE(2)), 0, 0, 0);
	free_all(e, 1);
	Tensor *ef[1] = {mk(ET_F32, SHAPE(2, 0), NULL)};
	EXPECT("float mean of nothing", RUN("mean", &a1, ef, ET_F32, SHAPE(2)), 0, NAN, NAN);
	free_all(ef, 1);
}

/* --------------------------------------------------------------- conv */

static void
test_conv(void)
{
	/* 1x1x3x3 input 1..9, one 2x2 kernel [[1,2],[3,4]]. */
	Tensor *a[2] = {mk(ET_F32, SHAPE(1, 1, 3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9)),
	                mk(ET_F32, SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4))};
	EXPECT("conv 2x2", RUN("nn.conv2d", NULL, a, ET_F32, SHAPE(1, 1, 2, 2)), 0, 37, 47, 67, 77);
	Attrs oi32 = {0};
	a_str(&oi32, "out_dtype", "f64");
	EXPECT("conv out_dtype", RUN("nn.conv2d", &oi32, a, ET_F64, SHAPE(1, 1, 2, 2)), 0, 37, 47, 67, 77);
	Attrs bl = {0};
	a_str(&bl, "data_layout", "NHWC");
	/* The kernels read attributes with the type rules' decoders
	 * (ops/attrs.h), so they say the same. */
	RUN_ERR("nn.conv2d", &bl, a, ET_F32, SHAPE(1, 1, 2, 2),
	        "nn.conv2d: 'data_layout' of nn.conv2d must be \"NCHW\" or \"NCHW4c\", not \"NHWC\"");
	Attrs ks = {0};
	a_ints(&ks, "kernel_size", INTS(3, 3));
	RUN_ERR("nn.conv2d", &ks, a, ET_F32, SHAPE(1, 1, 2, 2), "kernel_size");
	free_all(a, 2);

	/* 3x3 ones over 1..9 with padding 1: neighbourhood sums. */
	Tensor *b[2] = {mk(ET_F32, SHAPE(1, 1, 3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9)),
	                mk(ET_F32, SHAPE(1, 1, 3, 3), VALS(1, 1, 1, 1, 1, 1, 1, 1, 1))};
	Attrs p1 = {0};
	a_ints(&p1, "padding", INTS(1));
	EXPECT("conv padding [1]", RUN("nn.conv2d", &p1, b, ET_F32, SHAPE(1, 1, 3, 3)), 0,
	       12, 21, 16, 27, 45, 33, 24, 39, 28);
	Attrs p2 = {0};
	a_ints(&p2, "padding", INTS(1, 1));
	a_ints(&p2, "strides", INTS(2, 2));
	EXPECT("conv strides 2, padding [1,1]", RUN("nn.conv2d", &p2, b, ET_F32, SHAPE(1, 1, 2, 2)), 0,
	       12, 16, 24, 28);
	Attrs p3 = {0};
	a_ints(&p3, "padding", INTS(1, 0));     /* [height, width] */
	EXPECT("conv padding [1,0]", RUN("nn.conv2d", &p3, b, ET_F32, SHAPE(1, 1, 3, 1)), 0, 21, 45, 39);
	free_all(b, 2);

	/* Dilation 2: a 2x2 kernel of ones spans 3x3; x[i][j] = 5i + j. */
	Tensor *d[2] = {mk(ET_F32, SHAPE(1, 1, 5, 5), NULL), mk(ET_F32, SHAPE(1, 1, 2, 2), VALS(1, 1, 1, 1))};
	Attrs dl = {0};
	a_ints(&dl, "dilation", INTS(2, 2));
	Tensor *o = RUN("nn.conv2d", &dl, d, ET_F32, SHAPE(1, 1, 3, 3));
	if (o) {
		bool ok = true;
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				ok = ok && tensor_get(o, i * 3 + j) == 20 * i + 4 * j + 24;
		CHECK(ok, "conv dilation 2");
		tensor_free(o);
	}
	free_all(d, 2);

	/* 4-form padding [top, left, bottom, right] = [1, 0, 0, 2], 1x1
	 * kernel: a zero row on top, two zero columns on the right. */
	Tensor *e[2] = {mk(ET_F32, SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4)), mk(ET_F32, SHAPE(1, 1, 1, 1), VALS(1))};
	Attrs p4 = {0};
	a_ints(&p4, "padding", INTS(1, 0, 0, 2));
	EXPECT("conv padding [1,0,0,2]", RUN("nn.conv2d", &p4, e, ET_F32, SHAPE(1, 1, 3, 4)), 0,
	       0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0);
	free_all(e, 2);

	/* groups=2: channels [1,2 | 3,4], weights [1,10] and [100,1000]. */
	Tensor *g[2] = {mk(ET_F32, SHAPE(1, 4, 1, 1), VALS(1, 2, 3, 4)),
	                mk(ET_F32, SHAPE(2, 2, 1, 1), VALS(1, 10, 100, 1000))};
	Attrs gr = {0};
	a_int(&gr, "groups", 2);
	EXPECT("conv groups 2", RUN("nn.conv2d", &gr, g, ET_F32, SHAPE(1, 2, 1, 1)), 0, 21, 4300);
	Attrs g3 = {0};
	a_int(&g3, "groups", 3);
	RUN_ERR("nn.conv2d", &g3, g, ET_F32, SHAPE(1, 2, 1, 1), "'groups' of nn.conv2d (3) must divide");
	free_all(g, 2);
	/* Depthwise with multiplier 2: groups = C = 2, O = 4, I = 1. */
	Tensor *dw[2] = {mk(ET_F32, SHAPE(1, 2, 1, 2), VALS(1, 2, 3, 4)),
	                 mk(ET_F32, SHAPE(4, 1, 1, 1), VALS(1, 2, 3, 4))};
	Attrs gd = {0};
	a_int(&gd, "groups", 2);
	EXPECT("conv depthwise", RUN("nn.conv2d", &gd, dw, ET_F32, SHAPE(1, 4, 1, 2)), 0,
	       1, 2, 2, 4, 9, 12, 12, 16);
	free_all(dw, 2);

	/* Integers accumulate exactly and wrap at the result's width. */
	Tensor *q[2] = {mk(ET_I8, SHAPE(1, 1, 2, 2), VALS(100, 100, 100, 100)),
	                mk(ET_I8, SHAPE(1, 1, 2, 2), VALS(100, 100, 100, -100))};
	Attrs od = {0};
	a_str(&od, "out_dtype", "int32");
	EXPECT("i8 conv, out_dtype i32", RUN("nn.conv2d", &od, q, ET_I32, SHAPE(1, 1, 1, 1)), 0, 20000);
	EXPECT("i8 conv wraps in i8", RUN("nn.conv2d", NULL, q, ET_I8, SHAPE(1, 1, 1, 1)), 0, 32);
	free_all(q, 2);
}

/* out = layout_transform(x) from src to dst, computed by ref_eval. */
static Tensor *
relayout(Tensor *x, const char *src, const char *dst, uint32_t rank, const int64_t *dims)
{
	Attrs a = {0};
	a_str(&a, "src_layout", src);
	a_str(&a, "dst_layout", dst);
	Tensor *args[1] = {x};
	return run_op(__LINE__, "layout_transform", &a, args, 1, x->kind, rank, dims, NULL);
}

static bool
same_bits(const Tensor *a, const Tensor *b)
{
	return a && b && a->kind == b->kind && a->numel == b->numel &&
	       (a->numel == 0 || memcmp(a->data, b->data, (size_t)a->numel * elem_size(a->kind)) == 0);
}

/* Every pairing of data/kernel/out layouts gives the NCHW result, bit for
 * bit (the summation order does not depend on the layout). */
static void
test_conv_layouts(void)
{
	int64_t xd[4] = {2, 8, 5, 6}, wd[4] = {8, 4, 3, 3}, od[4] = {2, 8, 3, 3};
	Tensor *x = mk(ET_F32, 4, xd, NULL), *w = mk(ET_F32, 4, wd, NULL);
	for (int64_t i = 0; i < x->numel; i++)
		tensor_set(x, i, sin((double)i) * 3);
	for (int64_t i = 0; i < w->numel; i++)
		tensor_set(w, i, cos((double)i * 0.7));
	Attrs base = {0};
	a_ints(&base, "strides", INTS(2, 2));
	a_ints(&base, "padding", INTS(1, 0, 1, 1));
	a_int(&base, "groups", 2);
	Tensor *args[2] = {x, w};
	Tensor *ref = run_op(__LINE__, "nn.conv2d", &base, args, 2, ET_F32, 4, od, NULL);
	int64_t x4d[5] = {2, 2, 5, 6, 4}, w4d[5] = {2, 4, 3, 3, 4}, o4d[5] = {2, 2, 3, 3, 4};
	Tensor *x4 = relayout(x, "NCHW", "NCHW4c", 5, x4d);
	Tensor *w4 = relayout(w, "OIHW", "OIHW4o", 5, w4d);
	for (int combo = 0; combo < 8 && ref && x4 && w4; combo++) {
		bool dpack = combo & 1, kpack = combo & 2, opack = combo & 4;
		Attrs a = base;
		a.m.e = a.e;
		for (uint32_t i = 0; i < a.m.n; i++)
			if (a.e[i].val.kind == AT_LIST)
				a.e[i].val.u.list = a.lists[i];
		a_str(&a, "data_layout", dpack ? "NCHW4c" : "NCHW");
		a_str(&a, "kernel_layout", kpack ? "OIHW4o" : "OIHW");
		if (opack != dpack)
			a_str(&a, "out_layout", opack ? "NCHW4c" : "NCHW");
		else if (combo == 5)
			a_str(&a, "out_layout", "");    /* "": the data layout */
		Tensor *cargs[2] = {dpack ? x4 : x, kpack ? w4 : w};
		Tensor *o = run_op(__LINE__, "nn.conv2d", &a, cargs, 2, ET_F32, opack ? 5 : 4,
		                   opack ? o4d : od, NULL);
		Tensor *back = o && opack ? relayout(o, "NCHW4c", "NCHW", 4, od) : NULL;
		CHECK(same_bits(opack ? back : o, ref), "conv layouts data=%s kernel=%s out=%s differ "
		      "from NCHW/OIHW", dpack ? "NCHW4c" : "NCHW", kpack ? "OIHW4o" : "OIHW",
		      opack ? "NCHW4c" : "NCHW");
		tensor_free(o);
		tensor_free(back);
	}
	/* NCHW4c output needs O % 4 == 0. */
	int64_t w6d[4] = {6, 8, 1, 1};
	Tensor *w6 = mk(ET_F32, 4, w6d, NULL);
	Attrs bad = {0};
	a_str(&bad, "out_layout", "NCHW4c");
	Tensor *bargs[2] = {x, w6};
	int64_t bod[5] = {2, 1, 5, 6, 4};
	run_op(__LINE__, "nn.conv2d", &bad, bargs, 2, ET_F32, 5, bod, "multiple of 4");
	tensor_free(w6);
	tensor_free(ref);
	tensor_free(x4);
	tensor_free(w4);
	tensor_free(x);
	tensor_free(w);
}

/* ------------------------------------------------------ dense, matmul */

static void
test_dense_matmul(void)
{
	Tensor *a[2] = {mk(ET_F32, SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)),
	                mk(ET_F32, SHAPE(2, 3), VALS(1, 0, -1, 2, 1, 0))};
	EXPECT("dense", RUN("nn.dense", NULL, a, ET_F32, SHAPE(2, 2)), 0, -2, 4, -2, 13);
	Attrs u = {0};
	a_int(&u, "units", 3);
	RUN_ERR("nn.dense", &u, a, ET_F32, SHAPE(2, 2), "'units' of nn.dense is 3");
	free_all(a, 2);
	Tensor *b[2] = {mk(ET_F32, SHAPE(1, 2, 3), VALS(1, 2, 3, 4, 5, 6)),
	                mk(ET_F32, SHAPE(1, 3), VALS(1, 1, 1))};
	EXPECT("dense, 3-d data", RUN("nn.dense", NULL, b, ET_F32, SHAPE(1, 2, 1)), 0, 6, 15);
	free_all(b, 2);
	Tensor *c[2] = {mk(ET_I8, SHAPE(1, 2), VALS(-128, -128)), mk(ET_I8, SHAPE(1, 2), VALS(-128, 127))};
	Attrs od = {0};
	a_str(&od, "out_dtype", "i32");
	EXPECT("i8 dense, out i32", RUN("nn.dense", &od, c, ET_I32, SHAPE(1, 1)), 0, 16384 - 16256);
	free_all(c, 2);
	/* weight_layout "NC2n": the weight [[1,0,-1],[2,1,0],[0,1,1],[1,1,1]]
	 * packed [2,3,2], unit u at [u / 2, k, u % 2] */
	Tensor *pk[2] = {mk(ET_F32, SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)),
	                 mk(ET_F32, SHAPE(2, 3, 2), VALS(1, 2, 0, 1, -1, 0, 0, 1, 1, 1, 1, 1))};
	Attrs p2 = {0};
	a_str(&p2, "weight_layout", "NC2n");
	EXPECT("dense NC2n", RUN("nn.dense", &p2, pk, ET_F32, SHAPE(2, 4)), 0, -2, 4, 5, 6, -2, 13, 11, 15);
	Attrs p3 = {0};
	a_str(&p3, "weight_layout", "NC3n");
	RUN_ERR("nn.dense", &p3, pk, ET_F32, SHAPE(2, 6), "does not end in 3");
	Attrs pbad = {0};
	a_str(&pbad, "weight_layout", "NC02n");
	RUN_ERR("nn.dense", &pbad, pk, ET_F32, SHAPE(2, 4), "\"NC<n>n\"");
	RUN_ERR("nn.dense", NULL, pk, ET_F32, SHAPE(2, 4), "a 2-d weight [units, K], not");
	free_all(pk, 2);

	/* x = [[1,2],[3,4]], y = [[5,6],[7,8]] in all four transpositions. */
	Tensor *m[2] = {mk(ET_F32, SHAPE(1, 2, 2), VALS(1, 2, 3, 4)), mk(ET_F32, SHAPE(1, 2, 2), VALS(5, 6, 7, 8))};
	Attrs nn = {0}, tt = {0}, tn = {0};
	a_bool(&nn, "transpose_b", false);
	a_bool(&tt, "transpose_a", true);
	a_bool(&tn, "transpose_a", true);
	a_bool(&tn, "transpose_b", false);
	EXPECT("batch_matmul x y^T (default)", RUN("nn.batch_matmul", NULL, m, ET_F32, SHAPE(1, 2, 2)), 0,
	       17, 23, 39, 53);
	EXPECT("batch_matmul x y", RUN("nn.batch_matmul", &nn, m, ET_F32, SHAPE(1, 2, 2)), 0, 19, 22, 43, 50);
	EXPECT("batch_matmul x^T y^T", RUN("nn.batch_matmul", &tt, m, ET_F32, SHAPE(1, 2, 2)), 0,
	       23, 31, 34, 46);
	EXPECT("batch_matmul x^T y", RUN("nn.batch_matmul", &tn, m, ET_F32, SHAPE(1, 2, 2)), 0,
	       26, 30, 38, 44);
	free_all(m, 2);
	/* Batch 1 broadcasts: x [1,1,2] against y [2,3,2]. */
	Tensor *bc[2] = {mk(ET_F32, SHAPE(1, 1, 2), VALS(1, 10)), mk(ET_F32, SHAPE(2, 3, 2), NULL)};
	EXPECT("batch_matmul broadcast", RUN("nn.batch_matmul", NULL, bc, ET_F32, SHAPE(2, 1, 3)), 0,
	       10, 32, 54, 76, 98, 120);
	free_all(bc, 2);
	Tensor *bad[2] = {mk(ET_F32, SHAPE(2, 2, 3), NULL), mk(ET_F32, SHAPE(3, 4, 3), NULL)};
	RUN_ERR("nn.batch_matmul", NULL, bad, ET_F32, SHAPE(3, 2, 4), "batch sizes 2 and 3 differ");
	free_all(bad, 2);
}

/* ------------------------------------------------------------- pooling */

static void
test_pool(void)
{
	Tensor *x[1] = {mk(ET_F32, SHAPE(1, 1, 4, 4), NULL)};
	Attrs p2 = {0};
	a_ints(&p2, "pool_size", INTS(2, 2));
	a_ints(&p2, "strides", INTS(2, 2));
	EXPECT("max_pool 2x2/2", RUN("nn.max_pool2d", &p2, x, ET_F32, SHAPE(1, 1, 2, 2)), 0, 5, 7, 13, 15);
	EXPECT("avg_pool 2x2/2", RUN("nn.avg_pool2d", &p2, x, ET_F32, SHAPE(1, 1, 2, 2)), 0,
	       2.5, 4.5, 10.5, 12.5);
	Attrs dl = {0};
	a_ints(&dl, "pool_size", INTS(2, 2));
	a_ints(&dl, "dilation", INTS(2, 2));
	EXPECT("max_pool dilation 2", RUN("nn.max_pool2d", &dl, x, ET_F32, SHAPE(1, 1, 2, 2)), 0,
	       10, 11, 14, 15);
	EXPECT("avg_pool dilation 2", RUN("nn.avg_pool2d", &dl, x, ET_F32, SHAPE(1, 1, 2, 2)), 0,
	       5, 6, 9, 10);
	RUN_ERR("nn.max_pool2d", NULL, x, ET_F32, SHAPE(1, 1, 4, 4), "missing attribute 'pool_size'");
	Attrs ol = {0};
	a_ints(&ol, "pool_size", INTS(1, 1));
	a_str(&ol, "out_layout", "NCHW4c");
	RUN_ERR("nn.max_pool2d", &ol, x, ET_F32, SHAPE(1, 1, 4, 4), "same as 'layout'");
	free_all(x, 1);

	/* Padding never wins a max: all negative input, pool 3, padding 1. */
	Tensor *n[1] = {mk(ET_F32, SHAPE(1, 1, 2, 2), VALS(-1, -2, -3, -4))};
	Attrs p3 = {0};
	a_ints(&p3, "pool_size", INTS(3, 3));
	a_ints(&p3, "padding", INTS(1));
	EXPECT("max_pool ignores padding", RUN("nn.max_pool2d", &p3, n, ET_F32, SHAPE(1, 1, 2, 2)), 0,
	       -1, -1, -1, -1);
	free_all(n, 1);

	/* avg_pool 2x2, stride 1, padding 1 on [[1,2],[3,4]]. */
	Tensor *a[1] = {mk(ET_F32, SHAPE(1, 1, 2, 2), VALS(1, 2, 3, 4))};
	Attrs ap = {0};
	a_ints(&ap, "pool_size", INTS(2, 2));
	a_ints(&ap, "padding", INTS(1, 1));
	EXPECT("avg_pool count_include_pad=false", RUN("nn.avg_pool2d", &ap, a, ET_F32, SHAPE(1, 1, 3, 3)),
	       0, 1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4);
	a_bool(&ap, "count_include_pad", true);
	EXPECT("avg_pool count_include_pad=true", RUN("nn.avg_pool2d", &ap, a, ET_F32, SHAPE(1, 1, 3, 3)),
	       0, 0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1);
	free_all(a, 1);

	/* ceil_mode: 3x3 input, pool 2, stride 2 -> 2x2; the last windows are
	 * partial and divide by what they hold (no padding to count). */
	Tensor *c[1] = {mk(ET_F32, SHAPE(1, 1, 3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9))};
	Attrs cm = {0};
	a_ints(&cm, "pool_size", INTS(2, 2));
	a_ints(&cm, "strides", INTS(2, 2));
	EXPECT("avg_pool floor", RUN("nn.avg_pool2d", &cm, c, ET_F32, SHAPE(1, 1, 1, 1)), 0, 3);
	a_bool(&cm, "ceil_mode", true);
	EXPECT("max_pool ceil_mode", RUN("nn.max_pool2d", &cm, c, ET_F32, SHAPE(1, 1, 2, 2)), 0, 5, 6, 8, 9);
	EXPECT("avg_pool ceil_mode", RUN("nn.avg_pool2d", &cm, c, ET_F32, SHAPE(1, 1, 2, 2)), 0,
	       3, 4.5, 7.5, 9);
	a_bool(&cm, "count_include_pad", true);
	EXPECT("avg_pool ceil_mode, count_include_pad", RUN("nn.avg_pool2d", &cm, c, ET_F32, SHAPE(1, 1, 2, 2)),
	       0, 3, 4.5, 7.5, 9);
	/* With padding 1: windows start at -1, 1, 3; the last one holds only
	 * bottom/right padding (row 3) and a position past it (row 4). */
	Attrs cp = {0};
	a_ints(&cp, "pool_size", INTS(2, 2));
	a_ints(&cp, "strides", INTS(2, 2));
	a_ints(&cp, "padding", INTS(1));
	a_bool(&cp, "ceil_mode", true);
	EXPECT("avg_pool ceil_mode, padding", RUN("nn.avg_pool2d", &cp, c, ET_F32, SHAPE(1, 1, 3, 3)),
	       0, 1, 2.5, 0, 5.5, 7, 0, 0, 0, 0);
	EXPECT("max_pool ceil_mode, padding", RUN("nn.max_pool2d", &cp, c, ET_F32, SHAPE(1, 1, 3, 3)),
	       0, 1, 3, -INFINITY, 7, 9, -INFINITY, -INFINITY, -INFINITY, -INFINITY);
	a_bool(&cp, "count_include_pad", true);
	EXPECT("avg_pool ceil_mode, padding, count_include_pad",
	       RUN("nn.avg_pool2d", &cp, c, ET_F32, SHAPE(1, 1, 3, 3)), 0,
	       0.25, 1.25, 0, 2.75, 7, 0, 0, 0, 0);
	free_all(c, 1);

	/* Integers: averages truncate toward zero; max of no element is the
	 * type's minimum. */
	Tensor *i[1] = {mk(ET_I32, SHAPE(1, 1, 2, 2), VALS(1, 2, -3, -4))};
	Attrs r2 = {0};
	a_ints(&r2, "pool_size", INTS(1, 2));
	EXPECT("i32 avg_pool truncates", RUN("nn.avg_pool2d", &r2, i, ET_I32, SHAPE(1, 1, 2, 1)), 0, 1, -3);
	Attrs pi = {0};
	a_ints(&pi, "pool_size", INTS(1, 1));
	a_ints(&pi, "padding", INTS(1, 0));
	EXPECT("i32 max_pool of padding only", RUN("nn.max_pool2d", &pi, i, ET_I32, SHAPE(1, 1, 4, 2)),
	       0, -2147483648.0, -2147483648.0, 1, 2, -3, -4, -2147483648.0, -2147483648.0);
	free_all(i, 1);

	/* global_avg_pool2d, NCHW and NCHW4c. */
	Tensor *g[1] = {mk(ET_F32, SHAPE(1, 2, 2, 2), NULL)};
	EXPECT("global_avg_pool2d", RUN("nn.global_avg_pool2d", NULL, g, ET_F32, SHAPE(1, 2, 1, 1)), 0,
	       1.5, 5.5);
	free_all(g, 1);
	Tensor *g4[1] = {mk(ET_F32, SHAPE(1, 1, 2, 1, 4), NULL)};
	Attrs l4 = {0};
	a_str(&l4, "layout", "NCHW4c");
	EXPECT("global_avg_pool2d NCHW4c", RUN("nn.global_avg_pool2d", &l4, g4, ET_F32, SHAPE(1, 1, 1, 1, 4)),
	       0, 2, 3, 4, 5);
	free_all(g4, 1);
}

/* Pooling in NCHW4c equals pooling in NCHW. */
static void
test_pool_layouts(void)
{
	int64_t xd[4] = {1, 8, 5, 5}, x4d[5] = {1, 2, 5, 5, 4}, od[4] = {1, 8, 3, 3}, o4d[5] = {1, 2, 3, 3, 4};
	Tensor *x = mk(ET_F32, 4, xd, NULL);
	for (int64_t i = 0; i < x->numel; i++)
		tensor_set(x, i, sin((double)i * 3.1) * 5);
	Tensor *x4 = relayout(x, "NCHW", "NCHW4c", 5, x4d);
	static const char *const ops[] = {"nn.max_pool2d", "nn.avg_pool2d"};
	for (int k = 0; k < 2 && x4; k++)
		for (int cip = 0; cip < 2; cip++) {
			Attrs a = {0};
			a_ints(&a, "pool_size", INTS(3, 2));
			a_ints(&a, "strides", INTS(2, 2));
			a_ints(&a, "padding", INTS(1, 0, 0, 1));
			a_bool(&a, "ceil_mode", true);
			if (k == 1)
				a_bool(&a, "count_include_pad", cip);
			Tensor *args[1] = {x};
			Tensor *o = run_op(__LINE__, ops[k], &a, args, 1, ET_F32, 4, od, NULL);
			a_str(&a, "layout", "NCHW4c");
			args[0] = x4;
			Tensor *o4 = run_op(__LINE__, ops[k], &a, args, 1, ET_F32, 5, o4d, NULL);
			Tensor *back = o4 ? relayout(o4, "NCHW4c", "NCHW", 4, od) : NULL;
			CHECK(same_bits(o, back), "%s (count_include_pad=%d): NCHW4c differs from NCHW",
			      ops[k], cip);
			tensor_free(o);
			tensor_free(o4);
			tensor_free(back);
		}
	tensor_free(x4);
	tensor_free(x);
}

/* ---------------------------------------------------------- shape ops */

static void split_case(int line, const char *what, const Attrs *a, Tensor *x, int axis,
                       uint32_t n, const int64_t *sizes, const char *want_err);

static void
test_shape_ops(void)
{
	Tensor *x[1] = {mk(ET_F32, SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6))};
	Attrs r = {0};
	a_ints(&r, "newshape", INTS(3, -1));
	EXPECT("reshape [3,-1]", RUN("reshape", &r, x, ET_F32, SHAPE(3, 2)), 0, 1, 2, 3, 4, 5, 6);
	Attrs r0 = {0};
	a_ints(&r0, "newshape", INTS(0, -1, 1));
	EXPECT("reshape [0,-1,1]", RUN("reshape", &r0, x, ET_F32, SHAPE(2, 3, 1)), 0, 1, 2, 3, 4, 5, 6);
	Attrs rb = {0};
	a_ints(&rb, "newshape", INTS(4, -1));
	RUN_ERR("reshape", &rb, x, ET_F32, SHAPE(4, 1), "cannot reshape f32[2,3] (6 elements) to [4, -1]");
	EXPECT("transpose (default: reversed)", RUN("transpose", NULL, x, ET_F32, SHAPE(3, 2)), 0,
	       1, 4, 2, 5, 3, 6);
	Attrs sq = {0};
	EXPECT("squeeze nothing", RUN("squeeze", &sq, x, ET_F32, SHAPE(2, 3)), 0, 1, 2, 3, 4, 5, 6);
	Attrs ed = {0};
	a_int(&ed, "axis", 0);
	a_int(&ed, "num_newaxis", 2);
	EXPECT("expand_dims axis 0 x2", RUN("expand_dims", &ed, x, ET_F32, SHAPE(1, 1, 2, 3)), 0,
	       1, 2, 3, 4, 5, 6);
	Attrs em = {0};
	a_int(&em, "axis", -1);
	EXPECT("expand_dims axis -1", RUN("expand_dims", &em, x, ET_F32, SHAPE(2, 3, 1)), 0,
	       1, 2, 3, 4, 5, 6);
	free_all(x, 1);

	Tensor *t3[1] = {mk(ET_I16, SHAPE(2, 3, 2), NULL)};
	Attrs ax = {0};
	a_ints(&ax, "axes", INTS(1, -3, 2));
	/* out[j][i][k] = x[i][j][k] = 6i + 2j + k */
	EXPECT("transpose [1,0,2]", RUN("transpose", &ax, t3, ET_I16, SHAPE(3, 2, 2)), 0,
	       0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11);
	Attrs ab = {0};
	a_ints(&ab, "axes", INTS(0, 0, 1));
	RUN_ERR("transpose", &ab, t3, ET_I16, SHAPE(2, 2, 3), "not a permutation");
	free_all(t3, 1);

	Tensor *s[1] = {mk(ET_F32, SHAPE(1, 3, 1), VALS(7, 8, 9))};
	EXPECT("squeeze all 1s", RUN("squeeze", NULL, s, ET_F32, SHAPE(3)), 0, 7, 8, 9);
	Attrs s0 = {0};
	a_ints(&s0, "axis", INTS(0));
	EXPECT("squeeze axis 0", RUN("squeeze", &s0, s, ET_F32, SHAPE(3, 1)), 0, 7, 8, 9);
	Attrs s1 = {0};
	a_ints(&s1, "axis", INTS(1));
	RUN_ERR("squeeze", &s1, s, ET_F32, SHAPE(1, 1), "only axes of size 1");
	free_all(s, 1);

	/* i64 beyond 2^53 moves exactly. */
	Tensor *big[1] = {tensor_new(ET_I64, SHAPE(2))};
	tensor_set_int(big[0], 0, INT64_MAX);
	tensor_set_int(big[0], 1, INT64_MIN + 1);
	Tensor *o = RUN("transpose", NULL, big, ET_I64, SHAPE(2));
	CHECK(o && tensor_get_int(o, 0) == INT64_MAX && tensor_get_int(o, 1) == INT64_MIN + 1,
	      "transpose moves i64 exactly");
	tensor_free(o);
	free_all(big, 1);

	/* concatenate: the tuple's fields are the args. */
	Tensor *c[2] = {mk(ET_F32, SHAPE(1, 2), VALS(1, 2)), mk(ET_F32, SHAPE(2, 2), VALS(3, 4, 5, 6))};
	EXPECT("concatenate axis 0", RUN("concatenate", NULL, c, ET_F32, SHAPE(3, 2)), 0, 1, 2, 3, 4, 5, 6);
	Attrs c1 = {0};
	a_int(&c1, "axis", 1);
	RUN_ERR("concatenate", &c1, c, ET_F32, SHAPE(1, 4), "does not match field 0");
	free_all(c, 2);
	Tensor *c3[3] = {mk(ET_U8, SHAPE(2, 1), VALS(1, 2)), mk(ET_U8, SHAPE(2, 2), VALS(3, 4, 5, 6)),
	                 mk(ET_U8, SHAPE(2, 0), NULL)};
	Attrs cm = {0};
	a_int(&cm, "axis", -1);
	EXPECT("concatenate axis -1", RUN("concatenate", &cm, c3, ET_U8, SHAPE(2, 3)), 0, 1, 3, 4, 2, 5, 6);
	free_all(c3, 3);
	/* Empty tensors whose other axes are huge: nothing to do, no
	 * overflowing index arithmetic (UBSan watches). */
	int64_t huge = (int64_t)1 << 40;
	Tensor *ez[2] = {mk(ET_F32, SHAPE(huge, 0, huge), NULL), mk(ET_F32, SHAPE(huge, 0, huge), NULL)};
	Attrs e1 = {0};
	a_int(&e1, "axis", 1);
	tensor_free(RUN("concatenate", &e1, ez, ET_F32, SHAPE(huge, 0, huge)));
	tensor_free(run_op(__LINE__, "transpose", NULL, ez, 1, ET_F32, SHAPE(huge, 0, huge), NULL));
	tensor_free(run_op(__LINE__, "nn.softmax", NULL, ez, 1, ET_F32, SHAPE(huge, 0, huge), NULL));
	tensor_free(RUN("add", NULL, ez, ET_F32, SHAPE(huge, 0, huge)));
	Attrs e3 = {0};
	a_int(&e3, "indices_or_sections", 1);
	a_int(&e3, "axis", 2);
	split_case(__LINE__, "split of an empty tensor", &e3, ez[0], 2, 1, (int64_t[]){huge}, NULL);
	Attrs e2 = {0};
	a_ints(&e2, "axis", INTS(0, 2));
	tensor_free(run_op(__LINE__, "sum", &e2, ez, 1, ET_F32, SHAPE(0), NULL));
	free_all(ez, 2);
	Tensor *c1a[1] = {mk(ET_F32, SHAPE(2), VALS(1, 2))};
	EXPECT("concatenate of one", RUN("concatenate", NULL, c1a, ET_F32, SHAPE(2)), 0, 1, 2);
	free_all(c1a, 1);
}

/* Comparisons, logic and where, values worked out by hand. */
static void
test_logic(void)
{
	Tensor *ab[2] = {mk(ET_F32, SHAPE(2, 2), VALS(1, 2, 3, NAN)), mk(ET_F32, SHAPE(2), VALS(2, 2))};
	EXPECT("equal", RUN("equal", NULL, ab, ET_BOOL, SHAPE(2, 2)), 0, 0, 1, 0, 0);
	EXPECT("not_equal (NaN too)", RUN("not_equal", NULL, ab, ET_BOOL, SHAPE(2, 2)), 0, 1, 0, 1, 1);
	EXPECT("less", RUN("less", NULL, ab, ET_BOOL, SHAPE(2, 2)), 0, 1, 0, 0, 0);
	EXPECT("less_equal", RUN("less_equal", NULL, ab, ET_BOOL, SHAPE(2, 2)), 0, 1, 1, 0, 0);
	EXPECT("greater", RUN("greater", NULL, ab, ET_BOOL, SHAPE(2, 2)), 0, 0, 0, 1, 0);
	EXPECT("greater_equal", RUN("greater_equal", NULL, ab, ET_BOOL, SHAPE(2, 2)), 0, 0, 1, 1, 0);
	RUN_ERR("equal", NULL, ab, ET_F32, SHAPE(2, 2), "result of element type bool");
	free_all(ab, 2);
	/* u8 compares unsigned: 200 > 100 */
	Tensor *u[2] = {mk(ET_U8, SHAPE(2), VALS(200, 1)), mk(ET_U8, SHAPE(1), VALS(100))};
	EXPECT("greater u8", RUN("greater", NULL, u, ET_BOOL, SHAPE(2)), 0, 1, 0);
	free_all(u, 2);
	Tensor *pq[2] = {mk(ET_BOOL, SHAPE(4), VALS(0, 0, 1, 1)), mk(ET_BOOL, SHAPE(4), VALS(0, 1, 0, 1))};
	EXPECT("logical_and", RUN("logical_and", NULL, pq, ET_BOOL, SHAPE(4)), 0, 0, 0, 0, 1);
	EXPECT("logical_or", RUN("logical_or", NULL, pq, ET_BOOL, SHAPE(4)), 0, 0, 1, 1, 1);
	EXPECT("logical_xor", RUN("logical_xor", NULL, pq, ET_BOOL, SHAPE(4)), 0, 0, 1, 1, 0);
	Tensor *p[1] = {pq[0]};
	EXPECT("logical_not", RUN("logical_not", NULL, p, ET_BOOL, SHAPE(4)), 0, 1, 1, 0, 0);
	free_all(pq, 2);
	/* where broadcasts its three operands; i64 beyond 2^53 moves exactly */
	Tensor *w[3] = {mk(ET_BOOL, SHAPE(2, 1), VALS(1, 0)), tensor_new(ET_I64, SHAPE(3)),
	                mk(ET_I64, SHAPE(1), VALS(-1))};
	for (int i = 0; i < 3; i++)
		tensor_set_int(w[1], i, INT64_MAX - i);
	Tensor *o = RUN("where", NULL, w, ET_I64, SHAPE(2, 3));
	CHECK(o && tensor_get_int(o, 0) == INT64_MAX && tensor_get_int(o, 2) == INT64_MAX - 2 &&
	      tensor_get_int(o, 3) == -1 && tensor_get_int(o, 5) == -1, "where i64 [2,3]");
	tensor_free(o);
	free_all(w, 3);
}

/* argmax and argmin, values worked out by hand. */
static void
test_argreduce(void)
{
	Tensor *x[1] = {mk(ET_F32, SHAPE(2, 4), VALS(1, 5, 5, -2, 0, NAN, 3, NAN))};
	Attrs a1 = {0};
	a_ints(&a1, "axis", INTS(1));
	EXPECT("argmax first of equals", RUN("argmax", &a1, x, ET_I32, SHAPE(2)), 0, 1, 1);
	EXPECT("argmin", RUN("argmin", &a1, x, ET_I32, SHAPE(2)), 0, 3, 1);
	Attrs al = {0};
	a_ints(&al, "axis", INTS(1));
	a_bool(&al, "select_last_index", true);
	EXPECT("argmax last of equals, last NaN", RUN("argmax", &al, x, ET_I32, SHAPE(2)), 0, 2, 3);
	/* all axes: the index in the flattened tensor */
	EXPECT("argmin of all: the first NaN", RUN("argmin", NULL, x, ET_I32, SHAPE0), 0, 5);
	RUN_ERR("argmax", &a1, x, ET_F32, SHAPE(2), "i32");
	free_all(x, 1);
	Tensor *u[1] = {mk(ET_U8, SHAPE(3), VALS(7, 255, 255))};
	EXPECT("argmax u8", RUN("argmax", NULL, u, ET_I32, SHAPE0), 0, 1);
	free_all(u, 1);
}

/* max and min, values worked out by hand. */
static void
test_max_min(void)
{
	Tensor *x[1] = {mk(ET_F32, SHAPE(2, 3), VALS(1, -2, 3, -4, 5, -6))};
	Attrs a1 = {0};
	a_ints(&a1, "axis", INTS(1));
	EXPECT("max axis 1", RUN("max", &a1, x, ET_F32, SHAPE(2)), 0, 3, 5);
	EXPECT("min axis 1", RUN("min", &a1, x, ET_F32, SHAPE(2)), 0, -2, -6);
	Attrs a0 = {0};
	a_ints(&a0, "axis", INTS(0));
	a_bool(&a0, "keepdims", true);
	EXPECT("max axis 0 keepdims", RUN("max", &a0, x, ET_F32, SHAPE(1, 3)), 0, 1, 5, 3);
	EXPECT("min of all", RUN("min", NULL, x, ET_F32, SHAPE0), 0, -6);
	tensor_set(x[0], 4, NAN);
	EXPECT("max keeps NaN", RUN("max", &a1, x, ET_F32, SHAPE(2)), 0, 3, NAN);
	EXPECT("min keeps NaN", RUN("min", &a1, x, ET_F32, SHAPE(2)), 0, -2, NAN);
	free_all(x, 1);
	/* nothing to reduce: the lowest and the highest value */
	Tensor *e[1] = {mk(ET_F32, SHAPE(2, 0), NULL)};
	EXPECT("max of none", RUN("max", &a1, e, ET_F32, SHAPE(2)), 0, -INFINITY, -INFINITY);
	EXPECT("min of none", RUN("min", &a1, e, ET_F32, SHAPE(2)), 0, INFINITY, INFINITY);
	free_all(e, 1);
	/* u64 above INT64_MAX compares unsigned */
	Tensor *u[1] = {tensor_new(ET_U64, SHAPE(3))};
	tensor_set_int(u[0], 0, -1);        /* 2^64 - 1 */
	tensor_set_int(u[0], 1, 7);
	tensor_set_int(u[0], 2, INT64_MIN); /* 2^63 */
	Tensor *o = RUN("max", NULL, u, ET_U64, SHAPE0);
	CHECK(o && tensor_get_int(o, 0) == -1, "max of u64 is 2^64 - 1");
	tensor_free(o);
	o = RUN("min", NULL, u, ET_U64, SHAPE0);
	CHECK(o && tensor_get_int(o, 0) == 7, "min of u64 is 7");
	tensor_free(o);
	free_all(u, 1);
	Tensor *i8[1] = {mk(ET_I8, SHAPE(0), NULL)};
	EXPECT("min of no i8", RUN("min", NULL, i8, ET_I8, SHAPE0), 0, 127);
	EXPECT("max of no i8", RUN("max", NULL, i8, ET_I8, SHAPE0), 0, -128);
	free_all(i8, 1);
}

/* strided_slice and nn.pad, values worked out by hand. */
static void
test_slice_pad(void)
{
	/* x[i][j] = 3i + j + 1 */
	Tensor *x[1] = {mk(ET_F32, SHAPE(3, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9))};
	Attrs sl = {0};
	a_ints(&sl, "begin", INTS(-1, 0));
	a_ints(&sl, "end", INTS(INT64_MIN, 100));
	a_ints(&sl, "strides", INTS(-2, 2));
	/* rows 2, 0; columns 0, 2 */
	EXPECT("strided_slice backward, clamped", RUN("strided_slice", &sl, x, ET_F32, SHAPE(2, 2)), 0,
	       7, 9, 1, 3);
	Attrs sa = {0};
	a_ints(&sa, "axes", INTS(-1));
	a_ints(&sa, "begin", INTS(1));
	a_ints(&sa, "end", INTS(-1));
	EXPECT("strided_slice one axis", RUN("strided_slice", &sa, x, ET_F32, SHAPE(3, 1)), 0, 2, 5, 8);
	Attrs se = {0};
	a_ints(&se, "begin", INTS(2));
	a_ints(&se, "end", INTS(1));
	tensor_free(RUN("strided_slice", &se, x, ET_F32, SHAPE(0, 3)));
	Attrs s0 = {0};
	a_ints(&s0, "begin", INTS(0));
	a_ints(&s0, "end", INTS(1));
	a_ints(&s0, "strides", INTS(0));
	RUN_ERR("strided_slice", &s0, x, ET_F32, SHAPE(1, 3), "must not be 0");

	Attrs pc = {0};
	a_ints(&pc, "pad_width", INTS(1, 0, 0, 1));
	a_num(&pc, "pad_value", -1.5);
	EXPECT("nn.pad constant", RUN("nn.pad", &pc, x, ET_F32, SHAPE(4, 4)), 0,
	       -1.5, -1.5, -1.5, -1.5, 1, 2, 3, -1.5, 4, 5, 6, -1.5, 7, 8, 9, -1.5);
	Attrs pe = {0};
	a_str(&pe, "pad_mode", "edge");
	a_ints(&pe, "pad_width", INTS(0, 0, 2, 1));
	EXPECT("nn.pad edge", RUN("nn.pad", &pe, x, ET_F32, SHAPE(3, 6)), 0,
	       1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 7, 7, 7, 8, 9, 9);
	Attrs pr = {0};
	a_str(&pr, "pad_mode", "reflect");
	a_ints(&pr, "pad_width", INTS(0, 0, 2, 2));
	EXPECT("nn.pad reflect", RUN("nn.pad", &pr, x, ET_F32, SHAPE(3, 7)), 0,
	       3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 9, 8, 7, 8, 9, 8, 7);
	Attrs pb = {0};
	a_str(&pb, "pad_mode", "reflect");
	a_ints(&pb, "pad_width", INTS(3, 0, 0, 0));
	RUN_ERR("nn.pad", &pb, x, ET_F32, SHAPE(6, 3), "by at most 2");
	free_all(x, 1);

	/* An integer pad value is converted as a cast converts it. */
	Tensor *xi[1] = {mk(ET_I8, SHAPE(2), VALS(5, -6))};
	Attrs pi = {0};
	a_ints(&pi, "pad_width", INTS(1, 1));
	a_num(&pi, "pad_value", -2.7);
	EXPECT("nn.pad i8", RUN("nn.pad", &pi, xi, ET_I8, SHAPE(4)), 0, -2, 5, -6, -2);
	free_all(xi, 1);
}

/* Runs split with outputs of the given sizes along axis of x. */
static void
split_case(int line, const char *what, const Attrs *a, Tensor *x, int axis, uint32_t n,
           const int64_t *sizes, const char *want_err)
{
	const OpDef *d = op_lookup("split", 5);
	int64_t dims[8][4];
	Type fields[8];
	const Type *fp[8];
	Tensor *outs[8];
	for (uint32_t p = 0; p < n; p++) {
		memcpy(dims[p], x->dims, x->rank * sizeof(int64_t));
		dims[p][axis] = sizes[p];
		fields[p] = (Type){.kind = TY_TENSOR, .dt = {(uint8_t)x->kind, 1}, .n = x->rank,
		                   .dims = dims[p]};
		fp[p] = &fields[p];
		outs[p] = tensor_like_type(&fields[p]);
	}
	Type tup = {.kind = TY_TUPLE, .n = n, .fields = fp};
	char err[512] = "";
	bool ok = ref_eval(d, &a->m, &x, 1, &tup, outs, n, err, sizeof err);
	checks++;
	if (want_err ? ok || !strstr(err, want_err) : !ok) {
		failures++;
		printf("FAIL %s:%d: %s: %s\n", __FILE__, line, what, ok ? "succeeded" : err);
	}
	/* The pieces, concatenated in order along axis, are x again. */
	if (ok && !want_err) {
		int64_t outer = 1, inner = 1, pos = 0;
		for (int i = 0; i < axis; i++)
			outer *= x->dims[i];
		for (uint32_t i = (uint32_t)axis + 1; i < x->rank; i++)
			inner *= x->dims[i];
		bool same = true;
		for (int64_t o = 0; o < outer; o++)
			for (uint32_t p = 0; p < n; p++)
				for (int64_t j = 0; j < sizes[p] * inner; j++)
					same = same && tensor_get(outs[p], o * sizes[p] * inner + j) ==
					               tensor_get(x, pos++);
		checks++;
		if (!same) {
			failures++;
			printf("FAIL %s:%d: %s: the pieces are not x\n", __FILE__, line, what);
		}
	}
	for (uint32_t p = 0; p < n; p++)
		tensor_free(outs[p]);
}

static void
test_split(void)
{
	Tensor *x = mk(ET_F32, SHAPE(6), NULL);
	Attrs s3 = {0};
	a_int(&s3, "indices_or_sections", 3);
	split_case(__LINE__, "split into 3", &s3, x, 0, 3, (int64_t[]){2, 2, 2}, NULL);
	Attrs ix = {0};
	a_ints(&ix, "indices_or_sections", INTS(1, 4));
	split_case(__LINE__, "split at [1,4]", &ix, x, 0, 3, (int64_t[]){1, 3, 2}, NULL);
	split_case(__LINE__, "split, wrong count", &ix, x, 0, 2, (int64_t[]){1, 5}, "3 pieces");
	Attrs s4 = {0};
	a_int(&s4, "indices_or_sections", 4);
	split_case(__LINE__, "split 6 into 4", &s4, x, 0, 4, (int64_t[]){1, 1, 1, 3}, "divides");
	Attrs bad = {0};
	a_ints(&bad, "indices_or_sections", INTS(4, 2));
	split_case(__LINE__, "split, decreasing", &bad, x, 0, 3, (int64_t[]){4, 0, 2}, "increasing");
	tensor_free(x);
	Tensor *y = mk(ET_I32, SHAPE(2, 4, 3), NULL);
	Attrs a1 = {0};
	a_int(&a1, "indices_or_sections", 2);
	a_int(&a1, "axis", 1);
	split_case(__LINE__, "split axis 1", &a1, y, 1, 2, (int64_t[]){2, 2}, NULL);
	Attrs am = {0};
	a_ints(&am, "indices_or_sections", INTS(1));
	a_int(&am, "axis", -1);
	split_case(__LINE__, "split axis -1 at [1]", &am, y, 2, 2, (int64_t[]){1, 2}, NULL);
	tensor_free(y);
}

static void
test_layout_transform(void)
{
	/* [1,8,2,1] with x[c][h] = 2c + h to NCHW4c [1,2,2,1,4]:
	 * out[co][h][ci] = x[4co + ci][h]. */
	Tensor *x = mk(ET_F32, SHAPE(1, 8, 2, 1), NULL);
	Tensor *o = relayout(x, "NCHW", "NCHW4c", SHAPE(1, 2, 2, 1, 4));
	if (o) {
		bool ok = true;
		for (int co = 0; co < 2; co++)
			for (int h = 0; h < 2; h++)
				for (int ci = 0; ci < 4; ci++)
					ok = ok && tensor_get(o, (co * 2 + h) * 4 + ci) == 2 * (4 * co + ci) + h;
		CHECK(ok, "NCHW -> NCHW4c");
	}
	/* NCHW4c -> NHWC -> NCHW is the identity. */
	Tensor *nhwc = o ? relayout(o, "NCHW4c", "NHWC", SHAPE(1, 2, 1, 8)) : NULL;
	if (nhwc) {
		bool ok = true;
		for (int h = 0; h < 2; h++)
			for (int ch = 0; ch < 8; ch++)
				ok = ok && tensor_get(nhwc, h * 8 + ch) == 2 * ch + h;
		CHECK(ok, "NCHW4c -> NHWC");
	}
	Tensor *back = nhwc ? relayout(nhwc, "NHWC", "NCHW", SHAPE(1, 8, 2, 1)) : NULL;
	CHECK(same_bits(back, x), "NCHW -> NCHW4c -> NHWC -> NCHW is the identity");
	Tensor *same = relayout(x, "NCHW", "NCHW", SHAPE(1, 8, 2, 1));
	CHECK(same_bits(same, x), "NCHW -> NCHW");
	tensor_free(same);
	tensor_free(back);
	tensor_free(nhwc);
	tensor_free(o);
	/* OIHW -> OIHW4o: out[oo][i][h][w][oi] = w[4oo + oi][i][h][w]. */
	Tensor *w = mk(ET_F32, SHAPE(8, 2, 1, 1), NULL);
	o = relayout(w, "OIHW", "OIHW4o", SHAPE(2, 2, 1, 1, 4));
	if (o) {
		bool ok = true;
		for (int oo = 0; oo < 2; oo++)
			for (int i = 0; i < 2; i++)
				for (int oi = 0; oi < 4; oi++)
					ok = ok && tensor_get(o, (oo * 2 + i) * 4 + oi) == (4 * oo + oi) * 2 + i;
		CHECK(ok, "OIHW -> OIHW4o");
	}
	back = o ? relayout(o, "OIHW4o", "OIHW", SHAPE(8, 2, 1, 1)) : NULL;
	CHECK(same_bits(back, w), "OIHW -> OIHW4o -> OIHW");
	tensor_free(back);
	tensor_free(o);
	Attrs bad = {0};
	a_str(&bad, "src_layout", "NCHW");
	a_str(&bad, "dst_layout", "OIHW");
	Tensor *args[1] = {x};
	run_op(__LINE__, "layout_transform", &bad, args, 1, ET_F32, SHAPE(1, 8, 2, 1), "different axes");
	Tensor *x6 = mk(ET_F32, SHAPE(1, 6, 1, 1), NULL);
	Attrs pk = {0};
	a_str(&pk, "src_layout", "NCHW");
	a_str(&pk, "dst_layout", "NCHW4c");
	args[0] = x6;
	run_op(__LINE__, "layout_transform", &pk, args, 1, ET_F32, SHAPE(1, 1, 1, 1, 4), "multiple of 4");
	tensor_free(x6);
	tensor_free(w);
	tensor_free(x);
}

static void
test_dispatch(void)
{
	int n = 0;
	for (const OpDef *const *d = op_all(); *d; d++, n++)
		CHECK(ref_supports(*d), "no reference kernel for %s", (*d)->name);
	/* The count is ops.def's, read here on its own, so that a new
	 * operator needs no edit of this test: the registry holds each line
	 * of it under its id. */
	static const char *const listed[] = {
#define OP(id, name, ...) name,
#include "ops/ops.def"
#undef OP
	};
	int nlisted = (int)(sizeof listed / sizeof listed[0]);
	CHECK(n == nlisted, "the registry has %d operators; ops.def lists %d", n, nlisted);
	for (int i = 0; i < nlisted; i++) {
		const OpDef *d = op_lookup(listed[i], strlen(listed[i]));
		CHECK(d && d->id == (OpId)i, "ops.def's line %d, %s, is not that id in the registry",
		      i + 1, listed[i]);
	}
	CHECK(n == O__COUNT, "op_all lists %d of %d operators", n, (int)O__COUNT);
	/* One table (ops.def): each id names its own definition, op_all is
	 * sorted by name, and op_lookup finds each name. */
	const OpDef *prev = NULL;
	for (const OpDef *const *d = op_all(); *d; prev = *d, d++) {
		CHECK(op_def((*d)->id) == *d, "op_def(%s's id) is another operator", (*d)->name);
		CHECK(!prev || strcmp(prev->name, (*d)->name) < 0, "op_all is not sorted at %s",
		      (*d)->name);
		CHECK(op_lookup((*d)->name, strlen((*d)->name)) == *d, "op_lookup(%s) failed",
		      (*d)->name);
	}
	CHECK(op_lookup("nn.relux", 7) == op_def(O_RELU) && !op_lookup("nn.relux", 8) &&
	      !op_lookup("nn.rel", 6), "op_lookup takes exactly n bytes");
	/* Outputs that disagree with the result type; too many outputs. */
	Tensor *x[1] = {mk(ET_F32, SHAPE(2), NULL)};
	const OpDef *relu = op_lookup("nn.relu", 7);
	int64_t d2 = 2;
	Type t = {.kind = TY_TENSOR, .dt = {ET_F32, 1}, .n = 1, .dims = &d2};
	Tensor *outs[2] = {mk(ET_F16, SHAPE(2), NULL), mk(ET_F32, SHAPE(2), NULL)};
	char err[256];
	CHECK(!ref_eval(relu, NULL, x, 1, &t, outs, 1, err, sizeof err) &&
	      strstr(err, "nn.relu: output tensor 0 is f16[2], but the result type says f32[2]"),
	      "wrong output type: %s", err);
	CHECK(!ref_eval(relu, NULL, x, 1, &t, outs + 1, 2, err, sizeof err) &&
	      strstr(err, "1 field but 2 output tensors"), "two outputs: %s", err);
	CHECK(!ref_eval(relu, NULL, x, 0, &t, outs + 1, 1, err, sizeof err) &&
	      strstr(err, "0 operands given"), "no operand: %s", err);
	CHECK(ref_eval(relu, NULL, x, 1, &t, outs + 1, 1, NULL, 0), "err may be NULL");
	free_all(outs, 2);
	free_all(x, 1);
}

/* ------------------------------------------------- through the parser */

/* A value of the evaluated function: a tensor or a tuple of them (the
 * tensors are owned by the run's pool). */
typedef struct {
	uint32_t n;
	bool tuple;
	Tensor **t;
} Val;

typedef struct {
	Ctx *ctx;
	Module *m;
	Val *vals;              /* by Value.scratch - 1 */
	size_t nvals, capvals;
	Tensor **pool;
	size_t npool, cappool;
} Run;

static Tensor *
pooled(Run *r, Tensor *t)
{
	if (r->npool == r->cappool) {
		r->cappool = r->cappool ? 2 * r->cappool : 64;
		r->pool = realloc(r->pool, r->cappool * sizeof *r->pool);
	}
	return r->pool[r->npool++] = t;
}

static void
set_val(Run *r, Value *v, Val val)
{
	if (r->nvals == r->capvals) {
		r->capvals = r->capvals ? 2 * r->capvals : 64;
		r->vals = realloc(r->vals, r->capvals * sizeof *r->vals);
	}
	r->vals[r->nvals] = val;
	v->scratch = ++r->nvals;
}

static Val *
get_val(Run *r, const Value *v)
{
	return v->scratch && v->scratch <= r->nvals ? &r->vals[v->scratch - 1] : NULL;
}

static void
run_free(Run *r)
{
	for (size_t i = 0; i < r->nvals; i++)
		free(r->vals[i].t);
	free(r->vals);
	for (size_t i = 0; i < r->npool; i++)
		tensor_free(r->pool[i]);
	free(r->pool);
	if (r->m)
		module_free(r->m);
	ctx_free(r->ctx);
}

/* Deterministic inputs: small multiples of 1/4, exact in every float
 * type, so layouts can be compared bit for bit. */
static void
fill_input(Tensor *t, uint32_t seed)
{
	for (int64_t i = 0; i < t->numel; i++) {
		uint32_t h = (uint32_t)i * 2654435761u + seed * 40503u;
		h ^= h >> 13;
		tensor_set(t, i, elem_is_float(t->kind) ? (double)(int)(h % 17 - 8) * 0.25
		                                        : (double)(int)(h % 9 - 4));
	}
}

/* Parses src and evaluates @main on filled inputs, binding by binding.
 * Returns the returned value, or NULL after reporting. */
static Val *
eval_main(int line, Run *r, const char *src)
{
	memset(r, 0, sizeof *r);
	r->ctx = ctx_new("ref_ops_test");
	size_t len = strlen(src);
	char *text = malloc(len + 1);
	memcpy(text, src, len + 1);
	uint16_t file = src_add(r->ctx, "<test>", text, len);
	r->m = ir_parse(r->ctx, file, 0, len);
	checks++;
	if (!r->m) {
		failures++;
		printf("FAIL %s:%d: the module does not parse\n", __FILE__, line);
		return NULL;
	}
	Func *fn = module_func(r->m, sym_intern_cstr(r->m, "main"));
	for (uint32_t i = 0; i < fn->nparams; i++) {
		Tensor *t = pooled(r, tensor_like_type(fn->params[i]->type));
		fill_input(t, i + 1);
		Tensor **one = malloc(sizeof *one);
		one[0] = t;
		set_val(r, fn->params[i], (Val){1, false, one});
	}
	for (Value *v = fn->body.first; v; v = v->next) {
		Tensor **args = malloc((v->nargs + 64) * sizeof *args);
		uint32_t nargs = 0;
		bool ok = true;
		for (uint32_t i = 0; i < v->nargs && ok; i++) {
			Value *a = v->args[i];
			if (a->kind == VK_LIT) {
				Tensor *t = pooled(r, tensor_like_type(a->type));
				if (a->flags & VF_LIT_FLOAT)
					tensor_set(t, 0, a->u.f);
				else
					tensor_set_int(t, 0, a->u.i);
				args[nargs++] = t;
				continue;
			}
			Val *av = get_val(r, a);
			ok = av != NULL;
			for (uint32_t k = 0; ok && k < av->n && nargs < v->nargs + 64; k++)
				args[nargs++] = av->t[k];     /* a tuple: its fields */
		}
		Val out = {0, false, NULL};
		if (ok && v->form == B_OP) {
			const Type *ty = v->type;
			out.tuple = ty->kind == TY_TUPLE;
			out.n = out.tuple ? ty->n : 1;
			out.t = malloc(out.n * sizeof *out.t);
			for (uint32_t k = 0; k < out.n; k++)
				out.t[k] = pooled(r, tensor_like_type(out.tuple ? ty->fields[k] : ty));
			char err[512];
			ok = ref_eval(v->u.op->op, v->u.op->attrs, args, nargs, ty, out.t, out.n, err,
			              sizeof err);
			if (!ok)
				printf("FAIL %s:%d: %%%s: %s\n", __FILE__, line, v->name, err);
		} else if (ok && v->form == B_TUPLE) {
			out = (Val){nargs, true, malloc(nargs * sizeof *out.t)};
			memcpy(out.t, args, nargs * sizeof *args);
		} else if (ok && v->form == B_PROJ) {
			Val *tv = get_val(r, v->args[0]);
			out = (Val){1, false, malloc(sizeof *out.t)};
			out.t[0] = tv->t[v->u.index];
		} else if (ok) {
			printf("FAIL %s:%d: %%%s: binding form %d is not handled here\n", __FILE__, line,
			       v->name, v->form);
			ok = false;
		}
		free(args);
		checks++;
		if (!ok) {
			failures++;
			free(out.t);
			return NULL;
		}
		set_val(r, v, out);
	}
	return get_val(r, fn->body.yield);
}

/* Every field of v is all zeros (differences of equal computations). */
static void
expect_zero(int line, const char *what, const Val *v)
{
	checks++;
	for (uint32_t k = 0; v && k < v->n; k++)
		for (int64_t i = 0; i < v->t[k]->numel; i++)
			if (tensor_get(v->t[k], i) != 0) {
				failures++;
				printf("FAIL %s:%d: %s: field %u element %lld is %g, not 0\n", __FILE__, line,
				       what, (unsigned)k, (long long)i, tensor_get(v->t[k], i));
				return;
			}
	if (!v)
		failures++;
}

static void
test_through_registry(void)
{
	Run r;
	/* Every operator with attributes as the parser hands them over. */
	Val *v = eval_main(__LINE__, &r,
	        "fn @main(%x: f32[1,3,8,8], %w: f32[16,3,3,3], %b: f32[16], %d: f32[8,64],\n"
	        "         %dw: f32[10,64], %i: i32[2,6], %h: f16[4,4], %bm: f32[2,3,4], %bn: f32[1,5,4],\n"
	        "         %bk: f32[2,3,5]) {\n"
	        "  %0 = nn.conv2d(%x, %w) {strides=[1, 1], padding=[1,1,1,1], channels=16, kernel_size=[3,3], data_layout=\"NCHW\", kernel_layout=\"OIHW\", dilation=[1, 1], groups=1, out_layout=\"\"}\n"
	        "  %1 = nn.bias_add(%0, %b) {axis=1}\n"
	        "  %2 = nn.relu(%1)\n"
	        "  %3 = clip(%2) {a_min=-1.5, a_max=6.25}\n"
	        "  %4 = add(%3, 1)\n"
	        "  %5 = multiply(%4, -2.5e-3)\n"
	        "  %6 = subtract(-3, %5)\n"
	        "  %7 = divide(%6, 0.5)\n"
	        "  %8 = nn.max_pool2d(%7) {pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0], ceil_mode=1}\n"
	        "  %9 = nn.dense(%d, %dw) {units=10, out_dtype=\"float64\"}\n"
	        "  %10 = reshape(%9) {newshape=[-1, 5]}\n"
	        "  %11 = transpose(%10) {axes=[1, 0]}\n"
	        "  %12 = sum(%11) {axis=[1], keepdims=true}\n"
	        "  %13 = cast(%12) {dtype=\"f16\"}\n"
	        "  %14 = split(%8) {indices_or_sections=[4, 12], axis=1}\n"
	        "  %15 = %14.1\n"
	        "  %16 = concatenate(%14) {axis=-3}\n"
	        "  %17 = nn.softmax(%16) {axis=-1}\n"
	        "  %18 = layout_transform(%17) {src_layout=\"NCHW\", dst_layout=\"NCHW4c\"}\n"
	        "  %19 = maximum(%x, 0.0)\n"
	        "  %20 = power(%19, 2.0)\n"
	        "  %21 = nn.avg_pool2d(%18) {pool_size=[3, 3], strides=[2, 1], padding=[1, 2], layout=\"NCHW4c\", count_include_pad=true, ceil_mode=true}\n"
	        "  %22 = nn.global_avg_pool2d(%21) {layout=\"NCHW4c\"}\n"
	        "  %23 = squeeze(%22) {axis=[0, 2, 3]}\n"
	        "  %24 = expand_dims(%23) {axis=-1, num_newaxis=2}\n"
	        "  %25 = mean(%24) {axis=[1], exclude=true}\n"
	        "  %26 = minimum(%i, 3)\n"
	        "  %27 = negative(%26)\n"
	        "  %28 = power(%i, 2)\n"
	        "  %29 = divide(%28, 3)\n"
	        "  %30 = exp(%h)\n"
	        "  %31 = log(%30)\n"
	        "  %32 = sqrt(%30)\n"
	        "  %33 = rsqrt(%32)\n"
	        "  %34 = sigmoid(%33)\n"
	        "  %35 = tanh(%34)\n"
	        "  %36 = nn.batch_matmul(%bm, %bn) {transpose_a=false, transpose_b=true}\n"
	        "  %37 = nn.batch_matmul(%bm, %bk) {transpose_a=true, transpose_b=false, out_dtype=\"f64\"}\n"
	        "  %38 = (%13, %15, %18, %20, %25, %27, %29, %31, %35, %36, %37)\n"
	        "  return %38\n"
	        "}\n");
	CHECK(v && v->n == 11, "the network runs");
	if (v && v->n == 11) {
		/* %31 = log(exp(h)) = h within f16 rounding. */
		Tensor *h = r.pool[6], *lg = v->t[7];
		double worst = 0;
		for (int64_t i = 0; i < 16; i++)
			worst = fmax(worst, fabs(tensor_get(lg, i) - tensor_get(h, i)));
		CHECK(worst <= 2e-3, "log(exp(h)) is h in f16, off by %g", worst);
		/* %13: sum of all 10*8 dense outputs, in f16. */
		Tensor *d = r.pool[3], *dw = r.pool[4];
		double total = 0;
		for (int rr = 0; rr < 8; rr++)
			for (int u = 0; u < 10; u++)
				for (int k = 0; k < 64; k++)
					total += tensor_get(d, rr * 64 + k) * tensor_get(dw, u * 64 + k);
		double s13 = 0;
		for (int i = 0; i < 5; i++)
			s13 += tensor_get(v->t[0], i);
		CHECK(fabs(s13 - total) <= 0.01 * fmax(1, fabs(total)), "dense -> sum: %g vs %g", s13, total);
		CHECK(v->t[6]->kind == ET_I32, "int chain keeps i32");
	}
	run_free(&r);

	/* Layout equivalence, computed in the IR: each difference is 0. */
	v = eval_main(__LINE__, &r,
	        "fn @main(%x: f32[1,8,7,6], %w: f32[12,4,3,3], %dw: f32[8,1,3,3]) {\n"
	        "  %a = nn.conv2d(%x, %w) {strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2}\n"
	        "  %x4 = layout_transform(%x) {src_layout=\"NCHW\", dst_layout=\"NCHW4c\"}\n"
	        "  %w4 = layout_transform(%w) {src_layout=\"OIHW\", dst_layout=\"OIHW4o\"}\n"
	        "  %b4 = nn.conv2d(%x4, %w4) {strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2, data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\"}\n"
	        "  %b = layout_transform(%b4) {src_layout=\"NCHW4c\", dst_layout=\"NCHW\"}\n"
	        "  %c = nn.conv2d(%x4, %w) {strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2, data_layout=\"NCHW4c\", out_layout=\"NCHW\"}\n"
	        "  %e4 = nn.conv2d(%x, %w4) {strides=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2, kernel_layout=\"OIHW4o\", out_layout=\"NCHW4c\"}\n"
	        "  %e = layout_transform(%e4) {src_layout=\"NCHW4c\", dst_layout=\"NCHW\"}\n"
	        "  %d0 = nn.conv2d(%x, %dw) {padding=[1], groups=8}\n"
	        "  %dw4 = layout_transform(%dw) {src_layout=\"OIHW\", dst_layout=\"OIHW4o\"}\n"
	        "  %d4 = nn.conv2d(%x4, %dw4) {padding=[1], groups=8, data_layout=\"NCHW4c\", kernel_layout=\"OIHW4o\"}\n"
	        "  %d1 = layout_transform(%d4) {src_layout=\"NCHW4c\", dst_layout=\"NCHW\"}\n"
	        "  %p = nn.avg_pool2d(%x) {pool_size=[3, 2], strides=[2, 2], padding=[1, 1, 0, 0], ceil_mode=true}\n"
	        "  %p4 = nn.avg_pool2d(%x4) {pool_size=[3, 2], strides=[2, 2], padding=[1, 1, 0, 0], ceil_mode=true, layout=\"NCHW4c\", out_layout=\"NCHW4c\"}\n"
	        "  %q = layout_transform(%p4) {src_layout=\"NCHW4c\", dst_layout=\"NCHW\"}\n"
	        "  %g = nn.global_avg_pool2d(%x)\n"
	        "  %g4 = nn.global_avg_pool2d(%x4) {layout=\"NCHW4c\"}\n"
	        "  %h = layout_transform(%g4) {src_layout=\"NCHW4c\", dst_layout=\"NCHW\"}\n"
	        "  %xh = layout_transform(%x4) {src_layout=\"NCHW4c\", dst_layout=\"NHWC\"}\n"
	        "  %xt = transpose(%x) {axes=[0, 2, 3, 1]}\n"
	        "  %s1 = subtract(%a, %b)\n"
	        "  %s2 = subtract(%a, %c)\n"
	        "  %s3 = subtract(%a, %e)\n"
	        "  %s4 = subtract(%d0, %d1)\n"
	        "  %s5 = subtract(%p, %q)\n"
	        "  %s6 = subtract(%g, %h)\n"
	        "  %s7 = subtract(%xh, %xt)\n"
	        "  %t = (%s1, %s2, %s3, %s4, %s5, %s6, %s7)\n"
	        "  return %t\n"
	        "}\n");
	expect_zero(__LINE__, "NCHW4c/OIHW4o against NCHW/OIHW", v);
	/* And the conv is not trivially zero. */
	Val *a = NULL;
	if (v) {
		Func *fn = module_func(r.m, sym_intern_cstr(r.m, "main"));
		a = get_val(&r, fn->body.first);
	}
	double norm = 0;
	for (int64_t i = 0; a && i < a->t[0]->numel; i++)
		norm += fabs(tensor_get(a->t[0], i));
	CHECK(norm > 1, "the conv result is not all zeros");
	run_free(&r);

	/* Split, concatenate back, squeeze/expand round trips: differences 0. */
	v = eval_main(__LINE__, &r,
	        "fn @main(%x: i64[2,6,3]) {\n"
	        "  %s = split(%x) {indices_or_sections=3, axis=1}\n"
	        "  %c = concatenate(%s) {axis=1}\n"
	        "  %s0 = %s.0\n"
	        "  %s2 = %s.2\n"
	        "  %t = (%s2, %s0)\n"
	        "  %c2 = concatenate(%t) {axis=1}\n"
	        "  %e = expand_dims(%x) {axis=1}\n"
	        "  %q = squeeze(%e)\n"
	        "  %r = reshape(%x) {newshape=[0, -1]}\n"
	        "  %r2 = reshape(%r) {newshape=[2, 6, 3]}\n"
	        "  %tt = transpose(%x)\n"
	        "  %t2 = transpose(%tt)\n"
	        "  %d1 = subtract(%c, %x)\n"
	        "  %d2 = subtract(%q, %x)\n"
	        "  %d3 = subtract(%r2, %x)\n"
	        "  %d4 = subtract(%t2, %x)\n"
	        "  %m = sum(%x) {axis=[1], exclude=true, keepdims=true}\n"
	        "  %m2 = sum(%x) {axis=[0, 2], keepdims=true}\n"
	        "  %d5 = subtract(%m, %m2)\n"
	        "  %out = (%d1, %d2, %d3, %d4, %d5)\n"
	        "  return %out\n"
	        "}\n");
	expect_zero(__LINE__, "shape round trips", v);
	run_free(&r);
}

int
main(void)
{
	test_half();
	test_tensor();
	test_binary();
	test_unary();
	test_bias_softmax();
	test_reduce();
	test_conv();
	test_conv_layouts();
	test_dense_matmul();
	test_pool();
	test_pool_layouts();
	test_shape_ops();
	test_slice_pad();
	test_max_min();
	test_argreduce();
	test_logic();
	test_split();
	test_layout_transform();
	test_dispatch();
	test_through_registry();
	printf("ref_ops_test: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
