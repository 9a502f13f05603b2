/* onnx_fold.c: arithmetic on tensors known at import.
 *
 * torch.onnx computes shapes inside the graph (Shape, Gather, Concat, Div
 * for a flatten or a channel shuffle); the IR's shapes are static, so the
 * importer evaluates such nodes itself when every input is known.  The
 * same kernels fold arithmetic on weights (a BatchNormalization into the
 * convolution before it).  What the IR has an operator for is computed by
 * its reference kernel (lib/ref, ref_eval), so a value folded at import is
 * the one ir-run would compute; the rest (Mod, Pow of integers or mixed
 * types, Abs, Floor, Ceil, Reciprocal, gather, slices, expand) is here, integers
 * exactly in 64 bits, floats in double rounded once to the element type.
 */
#include <math.h>
#include <string.h>

#include "onnx_impl.h"
#include "ref/ref_ops.h"

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

/* op(args) {attrs} by its reference kernel into a new tensor of kind k
 * and shape dims; NULL when it would be too large, or after reporting
 * what the kernel refused. */
static Tensor *
ref_fold(Imp *im, OpId op, const AttrMap *attrs, const Tensor *const *args, uint32_t nargs,
         ElemKind k, uint32_t rank, const int64_t *dims)
{
	Tensor *t = onnx_fold_new(k, rank, dims);
	char err[256];
	if (t && !ref_eval(op_def(op), attrs, (Tensor *const *)args, nargs,
	                   onnx_type(im, k, rank, dims), &t, 1, err, sizeof err)) {
		onnx_fail(im, "cannot fold: %s", err);
		tensor_free(t);
		return NULL;
	}
	return t;
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

/* What ref_eval does not compute as ONNX does here: Mod (the IR has
 * none), and Pow of integers or of an exponent of another element type. */
static double
bin_f(BinOp op, double x, double y)
{
	return op == BIN_POW ? pow(x, y) : fmod(x, y);
}

/* Integer arithmetic as ONNX's runtimes do it: wraps like unsigned (no
 * undefined overflow). */
static int64_t
bin_i(BinOp op, int64_t x, int64_t y)
{
	if (op == BIN_MOD) {
		if (y == 0 || y == -1)
			return 0;
		int64_t m = x % y;  /* ONNX Mod (fmod=0): the sign of the divisor */
		return m != 0 && ((m < 0) != (y < 0)) ? m + y : m;
	}
	uint64_t ux = (uint64_t)x;
	int64_t r = 1;
	for (int64_t i = 0; i < y && i < 64; i++)
		r = (int64_t)((uint64_t)r * ux);
	return y < 0 ? 0 : r;
}

Tensor *
onnx_fold_binary(Imp *im, BinOp op, const Tensor *a, const Tensor *b, ElemKind kind)
{
	uint32_t r;
	int64_t dims[MAX_RANK], idx[MAX_RANK] = {0};
	if (!onnx_bcast_shape(a->rank, a->dims, b->rank, b->dims, &r, dims))
		return NULL;
	static const OpId ir[] = {
		[BIN_ADD] = O_ADD, [BIN_SUB] = O_SUBTRACT, [BIN_MUL] = O_MULTIPLY,
		[BIN_DIV] = O_DIVIDE, [BIN_POW] = O_POWER, [BIN_MAX] = O_MAXIMUM,
		[BIN_MIN] = O_MINIMUM, [BIN_EQ] = O_EQUAL, [BIN_LT] = O_LESS, [BIN_GT] = O_GREATER,
		[BIN_AND] = O_LOGICAL_AND, [BIN_OR] = O_LOGICAL_OR, [BIN_MOD] = O__COUNT,
		[BIN_LE] = O_LESS_EQUAL, [BIN_GE] = O_GREATER_EQUAL, [BIN_XOR] = O_LOGICAL_XOR,
	};
	/* (an integer Pow stays here: ONNX's, 0 for a negative exponent, is
	 * not the IR's power) */
	if (ir[op] != O__COUNT && a->kind == b->kind && !(op == BIN_POW && is_int(a)))
		return ref_fold(im, ir[op], NULL, (const Tensor *[]){a, b}, 2, kind, r, dims);
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
onnx_fold_unary(Imp *im, UnOp op, const Tensor *a)
{
	static const OpId ir[] = {
		[UN_NEG] = O_NEGATIVE, [UN_RELU] = O_RELU, [UN_SIGMOID] = O_SIGMOID,
		[UN_TANH] = O_TANH, [UN_EXP] = O_EXP, [UN_LOG] = O_LOG, [UN_SQRT] = O_SQRT,
		[UN_NOT] = O_LOGICAL_NOT, [UN_ERF] = O_ERF, [UN_RECIP] = O__COUNT,
		[UN_ABS] = O__COUNT, [UN_FLOOR] = O__COUNT, [UN_CEIL] = O__COUNT,
		[UN_ROUND] = O__COUNT, [UN_SIN] = O_SIN, [UN_COS] = O_COS,
		[UN_ASIN] = O_ASIN, [UN_ACOS] = O_ACOS, [UN_ATAN] = O_ATAN,
	};
	bool ints = is_int(a);
	/* the kernels take floats, and integers for negative and nn.relu, bools
	 * for logical_not; the rest is computed here as it always was */
	bool by_ref = ir[op] != O__COUNT &&
	              (op == UN_NOT ? a->kind == ET_BOOL
	               : !ints || (a->kind != ET_BOOL && (op == UN_NEG || op == UN_RELU)));
	if (by_ref)
		return ref_fold(im, ir[op], NULL, &a, 1, a->kind, a->rank, a->dims);
	Tensor *t = onnx_fold_new(a->kind, a->rank, a->dims);
	if (!t)
		return NULL;
	for (int64_t i = 0; i < a->numel; i++) {
		if (ints && (op == UN_NEG || op == UN_ABS || op == UN_RELU || op == UN_NOT ||
		             op == UN_FLOOR || op == UN_CEIL || op == UN_ROUND)) {
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
		case UN_SIN: y = sin(x); break;
		case UN_COS: y = cos(x); break;
		case UN_ASIN: y = asin(x); break;
		case UN_ACOS: y = acos(x); break;
		case UN_ATAN: y = atan(x); break;
		case UN_EXP: y = exp(x); break;
		case UN_LOG: y = log(x); break;
		case UN_SQRT: y = sqrt(x); break;
		case UN_RECIP: y = 1 / x; break;
		case UN_ABS: y = fabs(x); break;
		case UN_FLOOR: y = floor(x); break;
		case UN_CEIL: y = ceil(x); break;
		case UN_ROUND: y = nearbyint(x); break;   /* halves to even */
		case UN_NOT: y = x == 0; break;
		}
		tensor_set(t, i, y);
	}
	return t;
}

Tensor *
onnx_fold_where(Imp *im, const Tensor *c, const Tensor *a, const Tensor *b)
{
	uint32_t r1, r;
	int64_t d1[MAX_RANK], dims[MAX_RANK];
	if (!onnx_bcast_shape(c->rank, c->dims, a->rank, a->dims, &r1, d1) ||
	    !onnx_bcast_shape(r1, d1, b->rank, b->dims, &r, dims))
		return NULL;
	return ref_fold(im, O_WHERE, NULL, (const Tensor *[]){c, a, b}, 3, a->kind, r, dims);
}

Tensor *
onnx_fold_cast(Imp *im, const Tensor *a, ElemKind k)
{
	AttrMap *am = ATTRS(im, {"dtype", gb_str(im->m, elem_name(k))});
	return ref_fold(im, O_CAST, am, &a, 1, k, a->rank, a->dims);
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
onnx_fold_transpose(Imp *im, const Tensor *a, const int64_t *perm)
{
	int64_t dims[MAX_RANK];
	for (uint32_t i = 0; i < a->rank; i++)
		dims[i] = a->dims[perm[i]];
	return ref_fold(im, O_TRANSPOSE, ATTRS(im, {"axes", onnx_ints(im, perm, a->rank)}), &a, 1,
	                a->kind, a->rank, dims);
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
onnx_fold_concat(Imp *im, const Tensor *const *parts, size_t n, int64_t axis)
{
	int64_t dims[MAX_RANK];
	const Tensor *f = parts[0];
	memcpy(dims, f->dims, sizeof dims);
	dims[axis] = 0;
	for (size_t i = 0; i < n; i++)
		dims[axis] += parts[i]->dims[axis];
	return ref_fold(im, O_CONCATENATE, ATTRS(im, {"axis", gb_int(axis)}), parts, (uint32_t)n,
	                f->kind, f->rank, dims);
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
