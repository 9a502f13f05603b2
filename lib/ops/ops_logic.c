/* ops_logic.c: type rules of the comparisons (equal, less, ...: bool
 * results), the logical operators on bool tensors and where.
 *
 * All broadcast NumPy style, as add does: operands align on the right,
 * and each axis has one size or 1.
 */
#include "ops_impl.h"

/* The broadcast shape of the n operands into dims (rank *r); false after
 * an error at the binding. */
static bool
broadcast(OpCx *c, uint32_t n, uint32_t *r, int64_t *dims)
{
	*r = 0;
	for (uint32_t j = 0; j < n; j++)
		if (op_arg(c, j)->n > *r)
			*r = op_arg(c, j)->n;
	for (uint32_t i = 0; i < *r; i++) {
		dims[i] = 1;
		for (uint32_t j = 0; j < n; j++) {
			const Type *t = op_arg(c, j);
			int64_t d = i + t->n >= *r ? t->dims[i + t->n - *r] : 1;
			if (d != 1 && dims[i] != 1 && d != dims[i]) {
				char buf[256];
				op_error(c, "shapes do not broadcast: operand %u is %s, which has size %lld "
				         "at axis %u of the result, where another operand has %lld",
				         (unsigned)j, type_text(t, buf, sizeof buf), (long long)d,
				         (unsigned)i, (long long)dims[i]);
				return false;
			}
			if (d != 1)
				dims[i] = d;
		}
	}
	return true;
}

/* Operand j is a tensor of bool. */
static bool
check_bool(OpCx *c, uint32_t j, const char *what)
{
	const Type *t = op_arg(c, j);
	if (t->dt.kind == ET_BOOL)
		return true;
	char buf[256];
	op_error(c, "%s must be a bool tensor, not %s", what, type_text(t, buf, sizeof buf));
	return false;
}

static const Type *
bool_result(Module *m, OpCx *c, uint32_t n)
{
	uint32_t r;
	int64_t dims[OPS_MAX_RANK];
	if (!broadcast(c, n, &r, dims))
		return NULL;
	return type_tensor(m, (DType){ET_BOOL, 1}, r, dims);
}

/* equal, not_equal, less, less_equal, greater, greater_equal: two
 * operands of one element type (bool too), a bool result. */
const Type *
infer_compare(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	if (!check_same_dtype(&c, op_arg(&c, 0), op_arg(&c, 1), NULL, NULL))
		return NULL;
	return bool_result(m, &c, 2);
}

/* logical_and, logical_or, logical_xor, logical_not: bool operands. */
const Type *
infer_logical(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	uint32_t n = v->nargs;
	for (uint32_t j = 0; j < n; j++)
		if (!check_bool(&c, j, n == 1 ? "the operand" : j == 0 ? "the first operand"
		                                              : "the second operand"))
			return NULL;
	return bool_result(m, &c, n);
}

/* where(cond, x, y): cond bool, x and y of one element type, the result
 * of theirs; the three broadcast together. */
const Type *
infer_where(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	if (!check_bool(&c, 0, "the condition") ||
	    !check_same_dtype(&c, op_arg(&c, 1), op_arg(&c, 2), "x", "y"))
		return NULL;
	uint32_t r;
	int64_t dims[OPS_MAX_RANK];
	if (!broadcast(&c, 3, &r, dims))
		return NULL;
	return type_tensor(m, op_arg(&c, 1)->dt, r, dims);
}
