/* ref_shape.c: reference kernels of the data-movement operators: reshape,
 * transpose, layout_transform, concatenate, split, squeeze, expand_dims,
 * strided_slice, nn.pad.  Their outputs have the shapes the operators'
 * shape rules give (ref_eval checked them).
 *
 * They copy element bytes, never values, so every element type (i64 and
 * u64 beyond 2^53, NaN payloads) moves exactly.
 */
#include "ref_impl.h"

/* reshape, squeeze, expand_dims: out = x, byte for byte (the same element
 * count). */
bool
ref_copy(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)c;
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	if (x->numel > 0)
		memcpy(outs[0]->data, x->data, (size_t)x->numel * elem_size(x->kind));
	return true;
}

/* ------------------------------------------------------------ transpose */

bool
ref_transpose(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	Shape xs;
	int64_t perm[TENSOR_MAX_RANK];
	uint32_t r = x->rank;
	if (!transpose_perm(c, ref_shape_of(x, &xs), perm))
		return false;
	if (out->numel == 0)
		return true;
	int64_t istride[TENSOR_MAX_RANK], s = 1;
	for (uint32_t i = r; i-- > 0;) {
		istride[i] = s;
		s *= x->dims[i];
	}
	/* out[j0, j1, ...] = x[i] with i[perm[k]] = j[k]. */
	size_t es = elem_size(x->kind);
	int64_t idx[TENSOR_MAX_RANK] = {0}, in = 0;
	for (int64_t o = 0; o < out->numel; o++) {
		memcpy((char *)out->data + o * (int64_t)es, (const char *)x->data + in * (int64_t)es, es);
		for (uint32_t k = r; k-- > 0;) {
			in += istride[perm[k]];
			if (++idx[k] < out->dims[k])
				break;
			in -= istride[perm[k]] * out->dims[k];
			idx[k] = 0;
		}
	}
	return true;
}

/* ----------------------------------------------------- layout_transform */

bool
ref_layout_transform(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs,
                     uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Layout *src, *dst;
	char sa[8];
	if (!transform_axes(c, &src, &dst, sa))
		return false;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	int64_t idx[8];
	/* Each output element: its logical index, then where that lies in x. */
	size_t es = elem_size(x->kind);
	for (int64_t o = 0; o < out->numel; o++) {
		layout_index(dst, out->dims, o, sa, idx);
		int64_t in = layout_offset(src, x->dims, sa, idx);
		memcpy((char *)out->data + o * (int64_t)es, (const char *)x->data + in * (int64_t)es, es);
	}
	return true;
}

/* ---------------------------------------------------------- concatenate */

bool
ref_concatenate(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nouts;
	const Tensor *x0 = args[0];
	Tensor *out = outs[0];
	uint32_t axis = ref_axis(c, x0->rank);
	if (out->numel == 0)
		return true;
	/* For each index before the axis, the fields' blocks one after the
	 * other. */
	int64_t outer = ref_prod(out->dims, 0, axis);
	int64_t inner = ref_prod(out->dims, axis + 1, x0->rank) *
	                (int64_t)elem_size(x0->kind);
	char *dst = out->data;
	for (int64_t o = 0; o < outer; o++)
		for (uint32_t i = 0; i < nargs; i++) {
			int64_t block = args[i]->dims[axis] * inner;
			if (block > 0) {
				memcpy(dst, (const char *)args[i]->data + o * block, (size_t)block);
				dst += block;
			}
		}
	return true;
}

/* ---------------------------------------------------------------- split */

bool
ref_split(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	const Tensor *x = args[0];
	uint32_t axis = ref_axis(c, x->rank);
	if (x->numel == 0)
		return true;
	/* The pieces' sizes along the axis are their outputs' (ref_eval
	 * checked them against the rule). */
	int64_t outer = ref_prod(x->dims, 0, axis);
	int64_t inner = ref_prod(x->dims, axis + 1, x->rank) * (int64_t)elem_size(x->kind);
	const char *src = x->data;
	for (int64_t o = 0; o < outer; o++)
		for (uint32_t p = 0; p < nouts; p++) {
			int64_t block = outs[p]->dims[axis] * inner;
			if (block > 0) {
				memcpy((char *)outs[p]->data + o * block, src, (size_t)block);
				src += block;
			}
		}
	return true;
}

/* --------------------------------------------- strided_slice and nn.pad */

/* Element o of out gets element `src` of x (src < 0: the pad value). */
static void
put(Tensor *out, int64_t o, const Tensor *x, int64_t src, double value)
{
	size_t es = elem_size(x->kind);
	if (src < 0)
		tensor_set(out, o, value);
	else
		memcpy((char *)out->data + (size_t)o * es, (const char *)x->data + (size_t)src * es, es);
}

/* Which index along axis d of x index i along out's axis d reads (n: the
 * axis' size), or -1 for the pad value. */
typedef int64_t SourceOfAxis(const void *attrs, uint32_t d, int64_t i, int64_t n);

/* Fills out (not empty), element by element in order, from the element
 * of x that source names axis by axis: one walk over out's index for
 * strided_slice and nn.pad, which differ only in the axis map. */
static void
gather(Tensor *out, const Tensor *x, SourceOfAxis *source, const void *attrs, double value)
{
	int64_t istride[TENSOR_MAX_RANK], s = 1, idx[TENSOR_MAX_RANK] = {0};
	for (uint32_t i = x->rank; i-- > 0;) {
		istride[i] = s;
		s *= x->dims[i];
	}
	for (int64_t o = 0; o < out->numel; o++) {
		int64_t src = 0;
		for (uint32_t d = 0; d < x->rank && src >= 0; d++) {
			int64_t j = source(attrs, d, idx[d], x->dims[d]);
			src = j < 0 ? -1 : src + j * istride[d];
		}
		put(out, o, x, src, value);
		for (uint32_t d = x->rank; d-- > 0;) {
			if (++idx[d] < out->dims[d])
				break;
			idx[d] = 0;
		}
	}
}

static int64_t
slice_source(const void *attrs, uint32_t d, int64_t i, int64_t n)
{
	(void)n;
	const SliceAttrs *a = attrs;
	return a->begin[d] + i * a->step[d];
}

bool
ref_strided_slice(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	SliceAttrs a;
	if (!slice_attrs(c, x->rank, x->dims, &a))
		return false;
	if (out->numel > 0)
		gather(out, x, slice_source, &a, 0);
	return true;
}

/* The index into an axis of size n that padded index i (before: the
 * padding in front) reads, or -1 for the constant. */
static int64_t
pad_source(PadMode mode, int64_t i, int64_t before, int64_t n)
{
	i -= before;
	if (i >= 0 && i < n)
		return i;
	switch (mode) {
	case PAD_EDGE: return i < 0 ? 0 : n - 1;
	case PAD_REFLECT: return i < 0 ? -i : 2 * (n - 1) - i;
	case PAD_CONSTANT: break;
	}
	return -1;
}

static int64_t
pad_axis_source(const void *attrs, uint32_t d, int64_t i, int64_t n)
{
	const PadAttrs *a = attrs;
	return pad_source(a->mode, i, a->before[d], n);
}

bool
ref_pad(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	PadAttrs a;
	if (!pad_attrs(c, x->rank, x->dims, &a))
		return false;
	if (out->numel > 0)
		gather(out, x, pad_axis_source, &a, a.value);
	return true;
}
