/* ref_logic.c: reference kernels of the comparisons (equal, less, ...),
 * the logical operators on bool tensors and where.
 *
 * Comparisons compare values: floats as doubles (NaN is equal to nothing
 * and ordered with nothing, so only not_equal is true of it), integers
 * exactly, unsigned ones as unsigned.  Operands broadcast NumPy style; the
 * outputs have the shapes the shape rules give (ref_eval checked them).
 */
#include <math.h>

#include "ref_impl.h"

/* -1, 0, 1 as a < b, a == b, a > b; 2 when unordered (a NaN). */
static int
order(const Tensor *a, int64_t i, const Tensor *b, int64_t j)
{
	if (elem_is_float(a->kind)) {
		double x = tensor_get(a, i), y = tensor_get(b, j);
		return isnan(x) || isnan(y) ? 2 : x < y ? -1 : x > y;
	}
	int64_t x = tensor_get_int(a, i), y = tensor_get_int(b, j);
	if (!elem_is_signed(a->kind)) {
		uint64_t ux = ref_u(x), uy = ref_u(y);
		return ux < uy ? -1 : ux > uy;
	}
	return x < y ? -1 : x > y;
}

static bool
elem(OpId id, const Tensor *a, int64_t i, const Tensor *b, int64_t j)
{
	if (id == O_LOGICAL_AND || id == O_LOGICAL_OR || id == O_LOGICAL_XOR) {
		bool x = tensor_get_int(a, i) != 0, y = tensor_get_int(b, j) != 0;
		return id == O_LOGICAL_AND ? x && y : id == O_LOGICAL_OR ? x || y : x != y;
	}
	int o = order(a, i, b, j);
	switch (id) {
	case O_EQUAL: return o == 0;
	case O_NOT_EQUAL: return o != 0;
	case O_LESS: return o == -1;
	case O_LESS_EQUAL: return o == -1 || o == 0;
	case O_GREATER: return o == 1;
	case O_GREATER_EQUAL: return o == 1 || o == 0;
	default: return false;      /* ref_compare serves only these */
	}
}

bool
ref_compare(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	Tensor *out = outs[0];
	uint32_t r = out->rank;
	const int64_t *dims = out->dims;
	int64_t st[2][TENSOR_MAX_RANK];
	for (int j = 0; j < 2; j++)
		ref_broadcast_strides(args[j], r, st[j]);
	int64_t idx[TENSOR_MAX_RANK] = {0}, ia = 0, ib = 0;
	for (int64_t o = 0; o < out->numel; o++) {
		tensor_set_int(out, o, elem(c->id, args[0], ia, args[1], ib));
		for (uint32_t k = r; k-- > 0;) {
			ia += st[0][k];
			ib += st[1][k];
			if (++idx[k] < dims[k])
				break;
			ia -= st[0][k] * dims[k];
			ib -= st[1][k] * dims[k];
			idx[k] = 0;
		}
	}
	return true;
}

bool
ref_logical_not(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)c;
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	for (int64_t i = 0; i < x->numel; i++)
		tensor_set_int(out, i, tensor_get_int(x, i) == 0);
	return true;
}

bool
ref_where(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)c;
	(void)nargs;
	(void)nouts;
	Tensor *out = outs[0];
	uint32_t r = out->rank;
	const int64_t *dims = out->dims;
	int64_t st[3][TENSOR_MAX_RANK];
	for (int j = 0; j < 3; j++)
		ref_broadcast_strides(args[j], r, st[j]);
	size_t es = elem_size(out->kind);
	int64_t idx[TENSOR_MAX_RANK] = {0}, at[3] = {0, 0, 0};
	for (int64_t o = 0; o < out->numel; o++) {
		/* the chosen element's bytes: every type moves exactly */
		const Tensor *src = tensor_get_int(args[0], at[0]) ? args[1] : args[2];
		int64_t s = src == args[1] ? at[1] : at[2];
		memcpy((char *)out->data + (size_t)o * es, (const char *)src->data + (size_t)s * es, es);
		for (uint32_t k = r; k-- > 0;) {
			for (int j = 0; j < 3; j++)
				at[j] += st[j][k];
			if (++idx[k] < dims[k])
				break;
			for (int j = 0; j < 3; j++)
				at[j] -= st[j][k] * dims[k];
			idx[k] = 0;
		}
	}
	return true;
}
