/* onnx_fold.c: arithmetic on tensors known at import.
 *
 * torch.onnx computes shapes inside the graph (Shape, Gather, Concat, Div
 * for a flatten or a channel shuffle); the IR's shapes are static, so the
 * importer evaluates such nodes itself when every input is known.  The
 * same kernels fold arithmetic on weights (a BatchNormalization into the
 * convolution before it).  Integers are computed exactly in 64 bits,
 * floats in double and rounded once to the element type.
 */
#include <math.h>
#include <string.h>

#include "onnx_impl.h"

int64_t
onnx_shape_numel(uint32_t rank, const int64_t *dims)
{
	int64_t n = 1;
	for (uint32_t i = 0; i < rank; i++)
		if (__builtin_mul_overflow(n, dims[i], &n))
			return INT64_MAX;   /* more than any tensor: every check refuses it */
	return n;
}

Tensor *
onnx_fold_new(ElemKind k, uint32_t rank, const int64_t *dims)
{
	uint64_t bytes;
	if (!tensor_bytes(k, rank, dims, &bytes) || bytes > FOLD_MAX_BYTES)
		return NULL;
	return tensor_new(k, rank, dims);
}

bool
onnx_bcast_shape(uint32_t ra, const int64_t *a, uint32_t rb, const int64_t *b, uint32_t *ro,
                 int64_t *out)
{
	uint32_t r = ra > rb ? ra : rb;
	for (uint32_t i = 0; i < r; i++) {
		int64_t x = i < r - ra ? 1 : a[i - (r - ra)];
		int64_t y = i < r - rb ? 1 : b[i - (r - rb)];
		if (x != y && x != 1 && y != 1)
			return false;
		out[i] = x == 1 ? y : x;
	}
	*ro = r;
	return true;
}

/* The flat index into t (broadcast to rank r, shape out) of the element at
 * the multi-index idx. */
static int64_t
bcast_index(const Tensor *t, uint32_t r, const int64_t *idx)
{
	int64_t off = 0;
	uint32_t lead = r - t->rank;
	for (uint32_t i = 0; i < t->rank; i++)
		off = off * t->dims[i] + (t->dims[i] == 1 ? 0 : idx[lead + i]);
	return off;
}

static void
next_index(int64_t *idx, uint32_t r, const int64_t *dims)
{
	for (uint32_t i = r; i-- > 0;) {
		if (++idx[i] < dims[i])
			return;
		idx[i] = 0;
	}
}

static bool
is_int(const Tensor *t)
{
	return !elem_is_float(t->kind);
}

static double
bin_f(BinOp op, double x, double y)
{
	switch (op) {
	case BIN_ADD: return x + y;
	case BIN_SUB: return x - y;
	case BIN_MUL: return x * y;
	case BIN_DIV: return x / y;
	case BIN_POW: return pow(x, y);
	case BIN_MAX: return x > y || isnan(x) ? x : y;
	case BIN_MIN: return x < y || isnan(x) ? x : y;
	case BIN_EQ: return x == y;
	case BIN_LT: return x < y;
	case BIN_GT: return x > y;
	case BIN_AND: return x != 0 && y != 0;
	case BIN_OR: return x != 0 || y != 0;
	case BIN_MOD: return fmod(x, y);
	}
	return 0;
}

/* Integer arithmetic as ONNX's runtimes do it: division truncates, and
 * wraps like unsigned (no undefined overflow). */
static int64_t
bin_i(BinOp op, int64_t x, int64_t y)
{
	uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
	switch (op) {
	case BIN_ADD: return (int64_t)(ux + uy);
	case BIN_SUB: return (int64_t)(ux - uy);
	case BIN_MUL: return (int64_t)(ux * uy);
	case BIN_DIV:
		if (y == 0)
			return 0;
		if (y == -1)
			return (int64_t)(0 - ux);
		return x / y;
	case BIN_MOD: {
		if (y == 0 || y == -1)
			return 0;
		int64_t m = x % y;  /* ONNX Mod (fmod=0): the sign of the divisor */
		return m != 0 && ((m < 0) != (y < 0)) ? m + y : m;
	}
	case BIN_POW: {
		int64_t r = 1;
		for (int64_t i = 0; i < y && i < 64; i++)
			r = (int64_t)((uint64_t)r * ux);
		return y < 0 ? 0 : r;
	}
	case BIN_MAX: return x > y ? x : y;
	case BIN_MIN: return x < y ? x : y;
	case BIN_EQ: return x == y;
	case BIN_LT: return x < y;
	case BIN_GT: return x > y;
	case BIN_AND: return x && y;
	case BIN_OR: return x || y;
	}
	return 0;
}

Tensor *
onnx_fold_binary(BinOp op, const Tensor *a, const Tensor *b, ElemKind kind)
{
	uint32_t r;
	int64_t dims[MAX_RANK], idx[MAX_RANK] = {0};
	if (!onnx_bcast_shape(a->rank, a->dims, b->rank, b->dims, &r, dims))
		return NULL;
	Tensor *t = onnx_fold_new(kind, r, dims);
	if (!t)
		return NULL;
	bool ints = is_int(a) && is_int(b);
	for (int64_t i = 0; i < t->numel; i++) {
		int64_t ia = bcast_index(a, r, idx), ib = bcast_index(b, r, idx);
		if (ints)
			tensor_set_int(t, i, bin_i(op, tensor_get_int(a, ia), tensor_get_int(b, ib)));
		else
			tensor_set(t, i, bin_f(op, tensor_get(a, ia), tensor_get(b, ib)));
		next_index(idx, r, dims);
	}
	return t;
}

Tensor *
onnx_fold_unary(UnOp op, const Tensor *a)
{
	Tensor *t = onnx_fold_new(a->kind, a->rank, a->dims);
	if (!t)
		return NULL;
	bool ints = is_int(a);
	for (int64_t i = 0; i < a->numel; i++) {
		if (ints && (op == UN_NEG || op == UN_ABS || op == UN_RELU || op == UN_NOT ||
		             op == UN_FLOOR || op == UN_CEIL)) {
			int64_t x = tensor_get_int(a, i);
			int64_t y = op == UN_NEG ? (int64_t)(0 - (uint64_t)x)
			          : op == UN_ABS ? (x < 0 ? (int64_t)(0 - (uint64_t)x) : x)
			          : op == UN_RELU ? (x < 0 ? 0 : x)
			          : op == UN_NOT ? !x : x;
			tensor_set_int(t, i, y);
			continue;
		}
		double x = tensor_get(a, i), y = x;
		switch (op) {
		case UN_NEG: y = -x; break;
		case UN_RELU: y = x < 0 ? 0 : x; break;
		case UN_SIGMOID: y = 1 / (1 + exp(-x)); break;
		case UN_TANH: y = tanh(x); break;
		case UN_ERF: y = erf(x); break;
		case UN_EXP: y = exp(x); break;
		case UN_LOG: y = log(x); break;
		case UN_SQRT: y = sqrt(x); break;
		case UN_RECIP: y = 1 / x; break;
		case UN_ABS: y = fabs(x); break;
		case UN_FLOOR: y = floor(x); break;
		case UN_CEIL: y = ceil(x); break;
		case UN_NOT: y = x == 0; break;
		}
		tensor_set(t, i, y);
	}
	return t;
}

Tensor *
onnx_fold_where(const Tensor *c, const Tensor *a, const Tensor *b)
{
	uint32_t r1, r;
	int64_t d1[MAX_RANK], dims[MAX_RANK], idx[MAX_RANK] = {0};
	if (!onnx_bcast_shape(c->rank, c->dims, a->rank, a->dims, &r1, d1) ||
	    !onnx_bcast_shape(r1, d1, b->rank, b->dims, &r, dims))
		return NULL;
	Tensor *t = onnx_fold_new(a->kind, r, dims);
	if (!t)
		return NULL;
	for (int64_t i = 0; i < t->numel; i++) {
		const Tensor *s = tensor_get_int(c, bcast_index(c, r, idx)) ? a : b;
		int64_t is = bcast_index(s, r, idx);
		if (is_int(s))
			tensor_set_int(t, i, tensor_get_int(s, is));
		else
			tensor_set(t, i, tensor_get(s, is));
		next_index(idx, r, dims);
	}
	return t;
}

Tensor *
onnx_fold_cast(const Tensor *a, ElemKind k)
{
	Tensor *t = onnx_fold_new(k, a->rank, a->dims);
	if (!t)
		return NULL;
	for (int64_t i = 0; i < a->numel; i++) {
		if (is_int(a) && !elem_is_float(k))
			tensor_set_int(t, i, tensor_get_int(a, i));
		else
			tensor_set(t, i, tensor_get(a, i));
	}
	return t;
}

Tensor *
onnx_fold_reshape(const Tensor *a, uint32_t rank, const int64_t *dims)
{
	Tensor *t = onnx_fold_new(a->kind, rank, dims);
	if (!t)
		return NULL;
	if (t->numel == a->numel && a->numel)
		memcpy(t->data, a->data, (size_t)a->numel * elem_size(a->kind));
	return t;
}

/* The row-major strides of a's axes. */
static void
strides_of(const Tensor *a, int64_t *stride)
{
	int64_t s = 1;
	for (uint32_t i = a->rank; i-- > 0;) {
		stride[i] = s;
		s *= a->dims[i];
	}
}

/* t's elements in order, each element base + sum of idx[d] * step[d] of
 * a (idx: its index in t): a transpose and a slice are such a walk. */
static void
copy_walk(Tensor *t, const Tensor *a, int64_t base, const int64_t *step)
{
	int64_t idx[MAX_RANK] = {0};
	size_t es = elem_size(a->kind);
	for (int64_t i = 0; i < t->numel; i++) {
		int64_t off = base;
		for (uint32_t d = 0; d < t->rank; d++)
			off += idx[d] * step[d];
		memcpy((char *)t->data + (size_t)i * es, (const char *)a->data + (size_t)off * es, es);
		next_index(idx, t->rank, t->dims);
	}
}

Tensor *
onnx_fold_transpose(const Tensor *a, const int64_t *perm)
{
	int64_t dims[MAX_RANK], stride[MAX_RANK], step[MAX_RANK];
	strides_of(a, stride);
	for (uint32_t i = 0; i < a->rank; i++) {
		dims[i] = a->dims[perm[i]];
		step[i] = stride[perm[i]];
	}
	Tensor *t = onnx_fold_new(a->kind, a->rank, dims);
	if (t)
		copy_walk(t, a, 0, step);
	return t;
}

Tensor *
onnx_fold_gather(const Tensor *a, int64_t axis, const Tensor *idx)
{
	int64_t dims[MAX_RANK];
	uint32_t r = 0;
	if (a->rank + idx->rank - 1 > MAX_RANK)
		return NULL;
	for (int64_t i = 0; i < axis; i++)
		dims[r++] = a->dims[i];
	for (uint32_t i = 0; i < idx->rank; i++)
		dims[r++] = idx->dims[i];
	for (uint32_t i = (uint32_t)axis + 1; i < a->rank; i++)
		dims[r++] = a->dims[i];
	Tensor *t = onnx_fold_new(a->kind, r, dims);
	if (!t)
		return NULL;
	int64_t outer = onnx_shape_numel((uint32_t)axis, a->dims);
	int64_t inner = onnx_shape_numel(a->rank - (uint32_t)axis - 1, a->dims + axis + 1);
	size_t es = elem_size(a->kind), blk = (size_t)inner * es;
	int64_t n = a->dims[axis];
	char *o = t->data;
	for (int64_t i = 0; i < outer; i++)
		for (int64_t j = 0; j < idx->numel; j++) {
			int64_t k = tensor_get_int(idx, j);
			if (k < 0)
				k += n;
			if (!blk)
				continue;   /* o may be NULL: an empty result has no data */
			memcpy(o, (const char *)a->data + ((size_t)(i * n + k)) * blk, blk);
			o += blk;
		}
	return t;
}

Tensor *
onnx_fold_slice(const Tensor *a, const int64_t *start, const int64_t *step, const int64_t *count)
{
	int64_t stride[MAX_RANK], base = 0, st[MAX_RANK];
	strides_of(a, stride);
	for (uint32_t i = 0; i < a->rank; i++) {
		base += start[i] * stride[i];
		st[i] = step[i] * stride[i];
	}
	Tensor *t = onnx_fold_new(a->kind, a->rank, count);
	if (t)
		copy_walk(t, a, base, st);
	return t;
}

Tensor *
onnx_fold_concat(const Tensor *const *parts, size_t n, int64_t axis)
{
	int64_t dims[MAX_RANK];
	const Tensor *f = parts[0];
	memcpy(dims, f->dims, sizeof dims);
	dims[axis] = 0;
	for (size_t i = 0; i < n; i++)
		dims[axis] += parts[i]->dims[axis];
	Tensor *t = onnx_fold_new(f->kind, f->rank, dims);
	if (!t)
		return NULL;
	int64_t outer = onnx_shape_numel((uint32_t)axis, f->dims);
	size_t es = elem_size(f->kind);
	char *o = t->data;
	for (int64_t i = 0; i < outer; i++)
		for (size_t p = 0; p < n; p++) {
			const Tensor *x = parts[p];
			size_t blk = (size_t)onnx_shape_numel(x->rank - (uint32_t)axis, x->dims + axis) * es;
			if (!blk)
				continue;   /* o may be NULL: an empty result has no data */
			memcpy(o, (const char *)x->data + (size_t)i * blk, blk);
			o += blk;
		}
	return t;
}

Tensor *
onnx_fold_expand(const Tensor *a, uint32_t rank, const int64_t *dims)
{
	int64_t idx[MAX_RANK] = {0};
	Tensor *t = onnx_fold_new(a->kind, rank, dims);
	if (!t)
		return NULL;
	size_t es = elem_size(a->kind);
	for (int64_t i = 0; i < t->numel; i++) {
		memcpy((char *)t->data + (size_t)i * es,
		       (const char *)a->data + (size_t)bcast_index(a, rank, idx) * es, es);
		next_index(idx, rank, dims);
	}
	return t;
}
