/* shape_test: the operators' shape rules (ops/shape.h) called as the ONNX
 * importer calls them: operand shapes and an attribute map, no module and
 * no binding, the errors one "op: message" string, worded as the type
 * rules word them in ir-parse's diagnostics.  Exit 0 when every check
 * passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/shape.h"

#include "check.h"
#include "test_attrs.h"

#define DIMS(...) (uint32_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
	(int64_t[]){__VA_ARGS__}

static Shape
shape(ElemKind k, uint32_t rank, const int64_t *dims)
{
	Shape s;
	shape_set(&s, (DType){(uint8_t)k, 1}, rank, dims);
	return s;
}

/* op's rule on args: the result's spelling ("f32[1,4,8,8]") or the error. */
static const char *
rule(OpId id, const Attrs *a, const Shape *args, uint32_t nargs, char *buf, size_t n)
{
	OpCx c;
	Shape out;
	opcx_init_msg(&c, op_def(id), a ? &a->m : NULL, buf, n);
	if (op_shape(&c, args, nargs, &out))
		shape_text(&out, buf, n);
	return buf;
}

#define EXPECT_RULE(want, ...)                                                   \
	do {                                                                     \
		char buf_[512];                                                  \
		const char *got_ = rule(__VA_ARGS__, buf_, sizeof buf_);         \
		CHECK(strcmp(got_, want) == 0, "want \"%s\", got \"%s\"", want, got_); \
	} while (0)

static void
test_results(void)
{
	Shape conv[2] = {shape(ET_F32, DIMS(1, 3, 8, 8)), shape(ET_F32, DIMS(4, 3, 3, 3))};
	Attrs pad = {0};
	a_ints(&pad, "padding", 2, (int64_t[]){1, 1});
	EXPECT_RULE("f32[1,4,8,8]", O_CONV2D, &pad, conv, 2);
	Attrs strided = {0};
	a_ints(&strided, "strides", 2, (int64_t[]){2, 2});
	EXPECT_RULE("f32[1,4,3,3]", O_CONV2D, &strided, conv, 2);

	Shape bin[2] = {shape(ET_I8, DIMS(2, 1, 3)), shape(ET_I8, DIMS(4, 1))};
	EXPECT_RULE("i8[2,4,3]", O_ADD, NULL, bin, 2);
	EXPECT_RULE("bool[2,4,3]", O_LESS, NULL, bin, 2);

	Attrs to16 = {0};
	a_str(&to16, "dtype", "float16");
	EXPECT_RULE("f16[2,1,3]", O_CAST, &to16, bin, 1);

	Attrs rs = {0};
	a_ints(&rs, "newshape", 2, (int64_t[]){3, -1});
	EXPECT_RULE("i8[3,2]", O_RESHAPE, &rs, bin, 1);

	/* concatenate's tuple comes as its fields */
	Shape cat[3] = {shape(ET_F32, DIMS(2, 3)), shape(ET_F32, DIMS(2, 5)),
	                shape(ET_F32, DIMS(2, 1))};
	Attrs ax1 = {0};
	a_int(&ax1, "axis", 1);
	EXPECT_RULE("f32[2,9]", O_CONCATENATE, &ax1, cat, 3);

	Attrs am = {0};
	a_ints(&am, "axis", 1, (int64_t[]){1});
	a_bool(&am, "keepdims", true);
	EXPECT_RULE("i32[2,1]", O_ARGMAX, &am, cat, 1);
}

static void
test_errors(void)
{
	Shape bin[2] = {shape(ET_F32, DIMS(2, 3)), shape(ET_F32, DIMS(4))};
	EXPECT_RULE("add: shapes do not broadcast: f32[2,3] and f32[4] (3 vs 4 at axis 1 of the "
	            "result)", O_ADD, NULL, bin, 2);
	EXPECT_RULE("reshape: missing attribute 'newshape' (for example newshape=[1, -1])",
	            O_RESHAPE, NULL, bin, 1);
	Attrs ax = {0};
	a_int(&ax, "axis", 2);
	EXPECT_RULE("nn.softmax: 'axis' of nn.softmax is 2, out of range for rank 2 (-2 to 1)",
	            O_SOFTMAX, &ax, bin, 1);
	Shape ints[1] = {shape(ET_I32, DIMS(3))};
	EXPECT_RULE("exp: needs a floating-point operand, not i32[3] (cast it first)", O_EXP, NULL,
	            ints, 1);
	EXPECT_RULE("add: 1 operand given", O_ADD, NULL, bin, 1);
	EXPECT_RULE("split: has a result per piece: its shape rule is split_shape", O_SPLIT, NULL,
	            bin, 1);
}

static void
test_split(void)
{
	Shape x = shape(ET_I32, DIMS(6, 4));
	Attrs three = {0};
	a_int(&three, "indices_or_sections", 3);
	OpCx c;
	char err[256];
	opcx_init_msg(&c, op_def(O_SPLIT), &three.m, err, sizeof err);
	uint32_t axis = 9;
	int64_t *sizes;
	uint32_t n = split_shape(&c, &x, &axis, &sizes);
	CHECK(n == 3 && axis == 0 && sizes[0] == 2 && sizes[1] == 2 && sizes[2] == 2,
	      "split into 3: %u pieces (%s)", n, err);
	free(sizes);

	Attrs at = {0};
	a_int(&at, "axis", -1);
	a_ints(&at, "indices_or_sections", 2, (int64_t[]){1, 3});
	opcx_init_msg(&c, op_def(O_SPLIT), &at.m, err, sizeof err);
	n = split_shape(&c, &x, &axis, &sizes);
	CHECK(n == 3 && axis == 1 && sizes[0] == 1 && sizes[1] == 2 && sizes[2] == 1,
	      "split at [1, 3]: %u pieces (%s)", n, err);
	free(sizes);

	Attrs bad = {0};
	a_int(&bad, "indices_or_sections", 4);
	opcx_init_msg(&c, op_def(O_SPLIT), &bad.m, err, sizeof err);
	n = split_shape(&c, &x, &axis, &sizes);
	CHECK(n == 0 && !sizes && strcmp(err, "split: 'indices_or_sections' of split (4) must be "
	                                      "a number of sections from 1 to 65536 that divides "
	                                      "the axis (size 6)") == 0,
	      "split 6 into 4: %s", err);
}

int
main(void)
{
	test_results();
	test_errors();
	test_split();
	printf("shape_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
