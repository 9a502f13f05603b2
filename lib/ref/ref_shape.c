/* ref_shape.c: reference kernels of the data-movement operators: reshape,
 * transpose, layout_transform, concatenate, split, squeeze, expand_dims,
 * strided_slice, nn.pad.
 *
 * They copy element bytes, never values, so every element type (i64 and
 * u64 beyond 2^53, NaN payloads) moves exactly.
 */
#include <stdlib.h>

#include "ref_impl.h"

/* The operand and the output have one element type. */
static bool
same_kind_out(RefCx *c, const Tensor *x, const Tensor *out)
{
	return ref_same_kind(c, x, out, "the operand", "the result");
}

/* out = x, byte for byte (same element count). */
static void
copy_all(Tensor *out, const Tensor *x)
{
	if (x->numel > 0)
		memcpy(out->data, x->data, (size_t)x->numel * elem_size(x->kind));
}

/* -------------------------------------------------------------- reshape */

bool
ref_reshape(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	int64_t ns[TENSOR_MAX_RANK], dims[TENSOR_MAX_RANK], known = 1;
	uint32_t n;
	if (!oa_require(c, "newshape", "newshape=[1, -1]") ||
	    oa_ints(c, "newshape", 0, TENSOR_MAX_RANK, INT64_MIN, ns, &n, "a list of integers") != 1)
		return false;
	/* 0 copies the input dimension at that position, -1 is inferred. */
	int infer = -1;
	for (uint32_t i = 0; i < n; i++) {
		if (ns[i] == -1) {
			if (infer >= 0)
				return ref_fail(c, "'newshape' has more than one -1");
			infer = (int)i;
			continue;
		}
		if (ns[i] == 0 && i < x->rank)
			dims[i] = x->dims[i];
		else if (ns[i] > 0)
			dims[i] = ns[i];
		else
			return ref_fail(c, "'newshape' entry %lld at position %u is not supported",
			                (long long)ns[i], (unsigned)i);
		if (__builtin_mul_overflow(known, dims[i], &known))
			return ref_fail(c, "'newshape' is too large");
	}
	if (infer >= 0) {
		if (known == 0 || x->numel % known != 0)
			return ref_fail(c, "cannot infer the -1 of 'newshape' for %lld elements",
			                (long long)x->numel);
		dims[infer] = x->numel / known;
	} else if (known != x->numel) {
		return ref_fail(c, "'newshape' has %lld elements, the operand %lld", (long long)known,
		                (long long)x->numel);
	}
	if (!same_kind_out(c, x, out) || !ref_check_out(c, out, n, dims))
		return false;
	copy_all(out, x);
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
	int64_t ax[TENSOR_MAX_RANK], perm[TENSOR_MAX_RANK], dims[TENSOR_MAX_RANK];
	uint32_t n, r = x->rank;
	int given = oa_ints(c, "axes", 0, TENSOR_MAX_RANK, INT64_MIN, ax, &n,
	                    "a list of axes (integers)");
	if (given < 0)
		return false;
	if (given && n != r)
		return ref_fail(c, "'axes' has %u entries for an operand of rank %u", (unsigned)n,
		                (unsigned)r);
	bool seen[TENSOR_MAX_RANK] = {false};
	for (uint32_t j = 0; j < r; j++) {
		if (!given)
			perm[j] = r - 1 - j;        /* default: reversed */
		else if ((perm[j] = axis_norm(c, "axes", ax[j], r)) < 0)
			return false;
		if (seen[perm[j]])
			return ref_fail(c, "'axes' is not a permutation");
		seen[perm[j]] = true;
		dims[j] = x->dims[perm[j]];
	}
	if (!same_kind_out(c, x, out) || !ref_check_out(c, out, r, dims))
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
			if (++idx[k] < dims[k])
				break;
			in -= istride[perm[k]] * dims[k];
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
	if (!transform_attrs(c, &src, &dst))
		return false;
	char sa[8], da[8];
	layout_logical_axes(src, sa);
	layout_logical_axes(dst, da);
	bool same = strlen(sa) == strlen(da);
	for (size_t i = 0; same && sa[i]; i++)
		same = strchr(da, sa[i]) != NULL;
	if (!same)
		return ref_fail(c, "cannot turn %s into %s: they have different axes", src->name,
		                dst->name);
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	if (!rl_check(c, src, x, "data"))
		return false;
	int64_t size[8], dims[8], idx[8];
	for (size_t i = 0; sa[i]; i++)
		size[i] = layout_dim(src, x->dims, sa[i]);
	if (layout_shape(dst, sa, size, dims))
		return ref_fail(c, "%s needs its split axis to be a multiple of %u", dst->name,
		                (unsigned)dst->factor);
	if (!same_kind_out(c, x, out) || !ref_check_out(c, out, dst->rank, dims))
		return false;
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
	int64_t axis = op_axis(c);
	if (!c->ok || (axis = axis_norm(c, "axis", axis, x0->rank)) < 0)
		return false;
	int64_t dims[TENSOR_MAX_RANK];
	memcpy(dims, x0->dims, x0->rank * sizeof dims[0]);
	for (uint32_t i = 1; i < nargs; i++) {
		const Tensor *t = args[i];
		bool ok = t->kind == x0->kind && t->rank == x0->rank;
		for (uint32_t k = 0; ok && k < t->rank; k++)
			ok = (int64_t)k == axis || t->dims[k] == x0->dims[k];
		if (!ok) {
			char a[256], b[256];
			return ref_fail(c, "field %u (%s%s) does not match field 0 (%s%s) on all axes "
			                "but %lld", (unsigned)i, elem_name(t->kind),
			                ref_dims_text(t->dims, t->rank, a, sizeof a), elem_name(x0->kind),
			                ref_dims_text(x0->dims, x0->rank, b, sizeof b), (long long)axis);
		}
		if (__builtin_add_overflow(dims[axis], t->dims[axis], &dims[axis]))
			return ref_fail(c, "the result is too large");
	}
	if (!same_kind_out(c, x0, out) || !ref_check_out(c, out, x0->rank, dims))
		return false;
	if (out->numel == 0)
		return true;
	/* For each index before the axis, the fields' blocks one after the
	 * other. */
	int64_t outer = ref_prod(dims, 0, (uint32_t)axis);
	int64_t inner = ref_prod(dims, (uint32_t)axis + 1, x0->rank) * (int64_t)elem_size(x0->kind);
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

#define REF_MAX_SPLIT 65536      /* as OPS_MAX_SPLIT */

bool
ref_split(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	const Tensor *x = args[0];
	if (!oa_require(c, "indices_or_sections", "indices_or_sections=2"))
		return false;
	int64_t axis = op_axis(c);
	if (!c->ok || (axis = axis_norm(c, "axis", axis, x->rank)) < 0)
		return false;
	const Attr *ios = oa_get(c, "indices_or_sections");
	int64_t dim = x->dims[axis];
	/* The number of pieces first, then their sizes. */
	uint32_t count;
	if (ios->kind == AT_INT) {
		if (ios->u.i < 1 || ios->u.i > REF_MAX_SPLIT || dim % ios->u.i != 0)
			return ref_fail(c, "'indices_or_sections' (%lld) must be a number of sections "
			                "that divides the axis (size %lld)", (long long)ios->u.i,
			                (long long)dim);
		count = (uint32_t)ios->u.i;
	} else if (ios->kind == AT_LIST && ios->n < REF_MAX_SPLIT) {
		count = ios->n + 1;
	} else {
		return ref_fail(c, "'indices_or_sections' must be an integer or a list of indices");
	}
	if (count != nouts)
		return ref_fail(c, "splits into %u pieces, but %u outputs were given", (unsigned)count,
		                (unsigned)nouts);
	int64_t *sizes = xmalloc(count * sizeof *sizes);
	bool ok = true;
	if (ios->kind == AT_INT) {
		for (uint32_t p = 0; p < count; p++)
			sizes[p] = dim / ios->u.i;
	} else {
		int64_t begin = 0;
		for (uint32_t p = 0; ok && p < ios->n; p++) {
			const Attr *e = &ios->u.list[p];
			ok = e->kind == AT_INT && e->u.i > begin && e->u.i < dim;
			if (ok) {
				sizes[p] = e->u.i - begin;
				begin = e->u.i;
			}
		}
		sizes[ios->n] = dim - begin;
		if (!ok)
			ref_fail(c, "'indices_or_sections': indices must be increasing integers strictly "
			         "between 0 and the axis size (%lld)", (long long)dim);
	}
	int64_t dims[TENSOR_MAX_RANK];
	memcpy(dims, x->dims, x->rank * sizeof dims[0]);
	for (uint32_t p = 0; ok && p < count; p++) {
		dims[axis] = sizes[p];
		ok = same_kind_out(c, x, outs[p]) && ref_check_out(c, outs[p], x->rank, dims);
	}
	if (ok && x->numel > 0) {
		int64_t outer = ref_prod(x->dims, 0, (uint32_t)axis);
		int64_t inner = ref_prod(x->dims, (uint32_t)axis + 1, x->rank) *
		                (int64_t)elem_size(x->kind);
		const char *src = x->data;
		for (int64_t o = 0; o < outer; o++)
			for (uint32_t p = 0; p < count; p++) {
				int64_t block = sizes[p] * inner;
				if (block > 0) {
					memcpy((char *)outs[p]->data + o * block, src, (size_t)block);
					src += block;
				}
			}
	}
	free(sizes);
	return ok;
}

/* -------------------------------------------------------------- squeeze */

bool
ref_squeeze(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	bool mark[TENSOR_MAX_RANK];
	int given = oa_axes(c, "axis", x->rank, mark);
	if (given < 0)
		return false;
	int64_t dims[TENSOR_MAX_RANK];
	uint32_t n = 0;
	for (uint32_t i = 0; i < x->rank; i++) {
		bool drop = given ? mark[i] : x->dims[i] == 1;   /* default: every 1 */
		if (drop && x->dims[i] != 1)
			return ref_fail(c, "axis %u has size %lld; only axes of size 1 can be squeezed",
			                (unsigned)i, (long long)x->dims[i]);
		if (!drop)
			dims[n++] = x->dims[i];
	}
	if (!same_kind_out(c, x, out) || !ref_check_out(c, out, n, dims))
		return false;
	copy_all(out, x);
	return true;
}

/* ---------------------------------------------------------- expand_dims */

bool
ref_expand_dims(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	(void)nargs;
	(void)nouts;
	const Tensor *x = args[0];
	Tensor *out = outs[0];
	int64_t r = x->rank;
	bool have = oa_require(c, "axis", "axis=0");
	int64_t axis = oa_int(c, "axis", 0, -r - 1, r);
	int64_t k = oa_int(c, "num_newaxis", 1, 0, TENSOR_MAX_RANK - r);
	if (!have || !c->ok)
		return false;
	if (axis < 0)
		axis += r + 1;
	/* k axes of size 1 before position axis. */
	int64_t dims[TENSOR_MAX_RANK];
	uint32_t n = 0;
	for (int64_t i = 0; i <= r; i++) {
		if (i == axis)
			for (int64_t j = 0; j < k; j++)
				dims[n++] = 1;
		if (i < r)
			dims[n++] = x->dims[i];
	}
	if (!same_kind_out(c, x, out) || !ref_check_out(c, out, n, dims))
		return false;
	copy_all(out, x);
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
	if (!slice_attrs(c, x->rank, x->dims, &a) || !same_kind_out(c, x, out) ||
	    !ref_check_out(c, out, x->rank, a.len))
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
	if (!pad_attrs(c, x->rank, x->dims, &a) || !same_kind_out(c, x, out) ||
	    !ref_check_out(c, out, x->rank, a.len))
		return false;
	if (out->numel > 0)
		gather(out, x, pad_axis_source, &a, a.value);
	return true;
}
