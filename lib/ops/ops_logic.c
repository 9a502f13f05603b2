/* ops_logic.c: shape rules of the comparisons (equal, less, ...: bool
 * results), the logical operators on bool tensors and where.
 *
 * All broadcast NumPy style, as add does: operands align on the right,
 * and each axis has one size or 1.
 */
#include "ops_impl.h"

/* The broadcast shape of the n operands into out's rank and dims; false
 * after an error at the binding. */
static bool
broadcast(OpCx *c, const Shape *args, uint32_t n, Shape *out)
{
	uint32_t r = 0;
	for (uint32_t j = 0; j < n; j++)
		if (args[j].rank > r)
			r = args[j].rank;
	for (uint32_t i = 0; i < r; i++) {
		out->dims[i] = 1;
		for (uint32_t j = 0; j < n; j++) {
			const Shape *t = &args[j];
			int64_t d = i + t->rank >= r ? t->dims[i + t->rank - r] : 1;
			if (d != 1 && out->dims[i] != 1 && d != out->dims[i]) {
				char buf[256];
				op_error(c, "shapes do not broadcast: operand %u is %s, which has size %lld "
				         "at axis %u of the result, where another operand has %lld",
				         (unsigned)j, shape_text(t, buf, sizeof buf), (long long)d,
				         (unsigned)i, (long long)out->dims[i]);
				return false;
			}
			if (d != 1)
				out->dims[i] = d;
		}
	}
	out->rank = r;
	return true;
}

/* Operand j is a tensor of bool. */
static bool
check_bool(OpCx *c, const Shape *t, const char *what)
{
	if (t->dt.kind == ET_BOOL)
		return true;
	char buf[256];
	op_error(c, "%s must be a bool tensor, not %s", what, shape_text(t, buf, sizeof buf));
	return false;
}

static bool
bool_result(OpCx *c, const Shape *args, uint32_t n, Shape *out)
{
	out->dt = (DType){ET_BOOL, 1};
	return broadcast(c, args, n, out);
}

/* equal, not_equal, less, less_equal, greater, greater_equal: two
 * operands of one element type (bool too), a bool result. */
bool
shape_compare(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	if (!check_same_dtype(c, &args[0], &args[1], NULL, NULL))
		return false;
	return bool_result(c, args, 2, out);
}

/* logical_and, logical_or, logical_xor, logical_not: bool operands. */
bool
shape_logical(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	uint32_t n = nargs;
	for (uint32_t j = 0; j < n; j++)
		if (!check_bool(c, &args[j], n == 1 ? "the operand" : j == 0 ? "the first operand"
		                                                  : "the second operand"))
			return false;
	return bool_result(c, args, n, out);
}

/* where(cond, x, y): cond bool, x and y of one element type, the result
 * of theirs; the three broadcast together. */
bool
shape_where(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	if (!check_bool(c, &args[0], "the condition") ||
	    !check_same_dtype(c, &args[1], &args[2], "x", "y"))
		return false;
	out->dt = args[1].dt;
	return broadcast(c, args, 3, out);
}
