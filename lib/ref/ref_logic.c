/* ref_logic.c: reference kernels of the comparisons (equal, less, ...),
 * the logical operators on bool tensors and where.
 *
 * Comparisons compare values: floats as doubles (NaN is equal to nothing
 * and ordered with nothing, so only not_equal is true of it), integers
 * exactly, unsigned ones as unsigned.  Operands broadcast NumPy style.
 */
#include <math.h>

#include "ref_impl.h"

/* The broadcast shape of n operands, and each operand's strides in it (0
 * along an axis where it has size 1 or no axis). */
static bool
broadcast(RefCx *c, Tensor *const *args, uint32_t n, uint32_t *r, int64_t *dims,
          int64_t st[][TENSOR_MAX_RANK])
{
	*r = 0;
	for (uint32_t j = 0; j < n; j++)
		if (args[j]->rank > *r)
			*r = args[j]->rank;
	for (uint32_t i = 0; i < *r; i++) {
		dims[i] = 1;
		for (uint32_t j = 0; j < n; j++) {
			const Tensor *t = args[j];
			int64_t d = i + t->rank >= *r ? t->dims[i + t->rank - *r] : 1;
			if (d != 1 && dims[i] != 1 && d != dims[i])
				return ref_fail(c, "operand %u does not broadcast (size %lld at axis %u, "
				                "another operand %lld)", (unsigned)j, (long long)d,
				                (unsigned)i, (long long)dims[i]);
			if (d != 1)
				dims[i] = d;
		}
	}
	for (uint32_t j = 0; j < n; j++) {
		int64_t s = 1;
		for (uint32_t i = *r; i-- > 0;) {
			st[j][i] = 0;
			if (i + args[j]->rank >= *r) {
				int64_t d = args[j]->dims[i + args[j]->rank - *r];
				if (d != 1)
					st[j][i] = s;
				s *= d;
			}
		}
	}
	return true;
}

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
	(void)nouts;
	Tensor *out = outs[0];
	if (args[0]->kind != args[1]->kind)
		return ref_fail(c, "element types differ: %s and %s", elem_name(args[0]->kind),
		                elem_name(args[1]->kind));
	if (out->kind != ET_BOOL)
		return ref_fail(c, "the result must be bool, not %s", elem_name(out->kind));
	bool logical = c->id == O_LOGICAL_AND || c->id == O_LOGICAL_OR || c->id == O_LOGICAL_XOR;
	if (logical && args[0]->kind != ET_BOOL)
		return ref_fail(c, "needs bool operands, not %s", elem_name(args[0]->kind));
	uint32_t r;
	int64_t dims[TENSOR_MAX_RANK], st[2][TENSOR_MAX_RANK];
	if (!broadcast(c, args, nargs, &r, dims, st) || !ref_check_out(c, out, r, dims))
		return false;
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
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	if (x->kind != ET_BOOL || out->kind != ET_BOOL)
		return ref_fail(c, "needs a bool operand and result, not %s", elem_name(x->kind));
	if (!ref_check_out(c, out, x->rank, x->dims))
		return false;
	for (int64_t i = 0; i < x->numel; i++)
		tensor_set_int(out, i, tensor_get_int(x, i) == 0);
	return true;
}

bool
ref_where(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nouts;
	Tensor *out = outs[0];
	if (args[0]->kind != ET_BOOL)
		return ref_fail(c, "the condition must be bool, not %s", elem_name(args[0]->kind));
	if (args[1]->kind != args[2]->kind || out->kind != args[1]->kind)
		return ref_fail(c, "x, y and the result differ in element type: %s, %s, %s",
		                elem_name(args[1]->kind), elem_name(args[2]->kind),
		                elem_name(out->kind));
	uint32_t r;
	int64_t dims[TENSOR_MAX_RANK], st[3][TENSOR_MAX_RANK];
	if (!broadcast(c, args, nargs, &r, dims, st) || !ref_check_out(c, out, r, dims))
		return false;
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
