/* ops_shape.c: shape rules of the data-movement operators (reshape,
 * transpose, layout_transform, concatenate, split, squeeze, expand_dims,
 * strided_slice, nn.pad) and of the reductions (sum, mean, max, min,
 * argmax, argmin).
 */
#include <stdlib.h>
#include <string.h>

#include "ops_impl.h"

/* A split yields a tuple type with one field per piece; this bounds the
 * memory one binding can ask for. */
#define OPS_MAX_SPLIT 65536

/* -------------------------------------------------------------- reshape */

/* One entry of newshape: 0 copies input dimension i, -1 is inferred
 * (marked by returning -1), positive sizes stand; -1 - error. */
static int64_t
newshape_dim(OpCx *c, const Shape *x, int64_t s, uint32_t i)
{
	Loc loc = oa_loc(c, "newshape");
	if (s > 0 || s == -1)
		return s;
	if (s == 0) {
		if (i < x->rank)
			return x->dims[i];
		op_error_at(c, loc, "'newshape' of reshape: 0 at position %u copies an input "
		            "dimension, but the input has rank %u", (unsigned)i, (unsigned)x->rank);
	} else if (s >= -4) {
		op_error_at(c, loc, "'newshape' of reshape: the special value %lld is not "
		            "supported (only 0 and -1 are)", (long long)s);
	} else {
		op_error_at(c, loc, "'newshape' of reshape: %lld is not a size", (long long)s);
	}
	return -2;
}

bool
shape_reshape(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	int64_t ns[OPS_MAX_RANK], *dims = out->dims;
	uint32_t n = 0;
	if (!oa_require(c, "newshape", "newshape=[1, -1]") ||
	    oa_ints(c, "newshape", 0, OPS_MAX_RANK, INT64_MIN, ns, &n, "a list of integers") != 1)
		return false;
	const Shape *x = &args[0];
	int64_t total = dims_numel(x->rank, x->dims), known = 1;
	int infer_at = -1;
	for (uint32_t i = 0; i < n; i++) {
		dims[i] = newshape_dim(c, x, ns[i], i);
		if (dims[i] == -2)
			return false;
		if (dims[i] == -1 && infer_at >= 0) {
			op_error_at(c, oa_loc(c, "newshape"), "'newshape' of reshape has more than "
			            "one -1");
			return false;
		}
		if (dims[i] == -1)
			infer_at = (int)i;
		else if (!ck_mul(known, dims[i], &known))
			known = -1;
	}
	char xs[256], ss[256];
	if (total < 0) {
		op_error(c, "%s has too many elements to reshape", shape_text(x, xs, sizeof xs));
		return false;
	}
	if (total >= 0 && known > 0 && infer_at >= 0 && total % known == 0)
		dims[infer_at] = total / known;
	else if (!(total >= 0 && infer_at < 0 && known == total)) {
		op_error(c, "cannot reshape %s (%lld elements) to %s", shape_text(x, xs, sizeof xs),
		         (long long)total, ints_text(ns, n, ss, sizeof ss));
		return false;
	}
	out->dt = x->dt;
	out->rank = n;
	return true;
}

/* ------------------------------------------------------------ transpose */

bool
transpose_perm(OpCx *c, const Shape *x, int64_t *perm)
{
	int64_t ax[OPS_MAX_RANK];
	uint32_t n = 0;
	int r = oa_ints(c, "axes", 0, OPS_MAX_RANK, INT64_MIN, ax, &n, "a list of axes (integers)");
	if (r < 0)
		return false;
	if (r == 0) {           /* default: reverse the axes */
		for (uint32_t i = 0; i < x->rank; i++)
			perm[i] = x->rank - 1 - i;
		return true;
	}
	char xs[256];
	if (n != x->rank) {
		op_error_at(c, oa_loc(c, "axes"), "'axes' of transpose has %u entries, but the "
		            "operand %s has rank %u", (unsigned)n, shape_text(x, xs, sizeof xs),
		            (unsigned)x->rank);
		return false;
	}
	bool seen[OPS_MAX_RANK] = {false};
	for (uint32_t i = 0; i < n; i++) {
		int64_t a = axis_norm(c, "axes", ax[i], x->rank);
		if (a < 0)
			return false;
		if (seen[a]) {
			op_error_at(c, oa_loc(c, "axes"), "'axes' of transpose is not a permutation: "
			            "axis %lld appears twice", (long long)a);
			return false;
		}
		seen[a] = true;
		perm[i] = a;
	}
	return true;
}

bool
shape_transpose(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	int64_t perm[OPS_MAX_RANK];
	if (!transpose_perm(c, x, perm))
		return false;
	for (uint32_t i = 0; i < x->rank; i++)
		out->dims[i] = x->dims[perm[i]];
	out->dt = x->dt;
	out->rank = x->rank;
	return true;
}

/* ----------------------------------------------------- layout_transform */

bool
transform_axes(OpCx *c, const Layout **src, const Layout **dst, char axes[8])
{
	if (!transform_attrs(c, src, dst))
		return false;
	char da[8];
	layout_logical_axes(*src, axes);
	layout_logical_axes(*dst, da);
	bool same = strlen(axes) == strlen(da);
	for (size_t i = 0; same && axes[i]; i++)
		same = strchr(da, axes[i]) != NULL;
	if (!same) {
		op_error_at(c, oa_loc(c, "dst_layout"), "layout_transform cannot turn %s into %s: "
		            "they have different axes", (*src)->name, (*dst)->name);
		return false;
	}
	return true;
}

bool
shape_layout_transform(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Layout *src, *dst;
	char sa[8];
	if (!transform_axes(c, &src, &dst, sa))
		return false;
	const Shape *x = &args[0];
	if (!layout_check(c, src, x, "data"))
		return false;
	int64_t size[8];
	for (size_t i = 0; sa[i]; i++)
		size[i] = layout_dim(src, x->dims, sa[i]);
	char bad = layout_shape(dst, sa, size, out->dims);
	if (bad) {
		op_error(c, "axis %c has size %lld, which %s needs to be a multiple of %u", bad,
		         (long long)size[strchr(sa, bad) - sa], dst->name, (unsigned)dst->factor);
		return false;
	}
	out->dt = x->dt;
	out->rank = dst->rank;
	return true;
}

/* ---------------------------------------------------------- concatenate */

/* Field i agrees with field 0 except on axis. */
static bool
concat_field_ok(OpCx *c, const Shape *f0, const Shape *f, uint32_t i, int64_t axis)
{
	char as[256], bs[256];
	bool ok = f->rank == f0->rank && dtype_eq(f->dt, f0->dt);
	for (uint32_t k = 0; ok && k < f->rank; k++)
		ok = (int64_t)k == axis || f->dims[k] == f0->dims[k];
	if (!ok)
		op_error(c, "field %u has type %s, which does not match field 0 (%s) on all axes "
		         "but axis %lld", (unsigned)i, shape_text(f, as, sizeof as),
		         shape_text(f0, bs, sizeof bs), (long long)axis);
	return ok;
}

/* The tuple's fields are args[0..nargs). */
bool
shape_concatenate(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	int64_t axis = op_axis(c);
	if (!c->ok)
		return false;
	const Shape *f0 = &args[0];
	axis = axis_norm(c, "axis", axis, f0->rank);
	if (axis < 0)
		return false;
	*out = *f0;
	for (uint32_t i = 1; i < nargs; i++) {
		if (!concat_field_ok(c, f0, &args[i], i, axis))
			return false;
		if (!ck_add(out->dims[axis], args[i].dims[axis], &out->dims[axis])) {
			op_error(c, "the result is too large");
			return false;
		}
	}
	return true;
}

/* ---------------------------------------------------------------- split */

/* The sizes of the pieces into sizes[] (room for as many as ios asks,
 * if that is at most OPS_MAX_SPLIT); their count, or 0 after an error. */
static uint32_t
split_sizes(OpCx *c, const Attr *ios, int64_t dim, int64_t *sizes)
{
	Loc loc = ios->loc;
	if (ios->kind == AT_INT) {
		int64_t k = ios->u.i;
		if (k < 1 || k > OPS_MAX_SPLIT || dim % k != 0) {
			op_error_at(c, loc, "'indices_or_sections' of split (%lld) must be a number of "
			            "sections from 1 to %d that divides the axis (size %lld)",
			            (long long)k, OPS_MAX_SPLIT, (long long)dim);
			return 0;
		}
		for (int64_t i = 0; i < k; i++)
			sizes[i] = dim / k;
		return (uint32_t)k;
	}
	if (ios->kind != AT_LIST || ios->n >= OPS_MAX_SPLIT) {
		op_error_at(c, loc, "'indices_or_sections' of split must be an integer (sections) or "
		            "a list of increasing indices");
		return 0;
	}
	int64_t begin = 0;
	for (uint32_t i = 0; i < ios->n; i++) {
		const Attr *e = &ios->u.list[i];
		if (e->kind != AT_INT || e->u.i <= begin || e->u.i >= dim) {
			op_error_at(c, e->loc, "'indices_or_sections' of split: indices must be "
			            "integers, increasing, and strictly between 0 and the axis size "
			            "(%lld)", (long long)dim);
			return 0;
		}
		sizes[i] = e->u.i - begin;
		begin = e->u.i;
	}
	sizes[ios->n] = dim - begin;
	return ios->n + 1;
}

uint32_t
split_shape(OpCx *c, const Shape *x, uint32_t *axis, int64_t **sizes)
{
	*sizes = NULL;
	int64_t a = op_axis(c);
	if (!oa_require(c, "indices_or_sections", "indices_or_sections=2") || !c->ok)
		return 0;
	a = axis_norm(c, "axis", a, x->rank);
	if (a < 0)
		return 0;
	const Attr *ios = oa_get(c, "indices_or_sections");
	/* Room for every piece when ios is good; split_sizes checks it. */
	size_t cap = 1;
	if (ios->kind == AT_INT && ios->u.i >= 1 && ios->u.i <= OPS_MAX_SPLIT)
		cap = (size_t)ios->u.i;
	else if (ios->kind == AT_LIST && ios->n < OPS_MAX_SPLIT)
		cap = (size_t)ios->n + 1;
	int64_t *s = xmalloc(cap * sizeof *s);
	uint32_t n = split_sizes(c, ios, x->dims[a], s);
	if (!n) {
		free(s);
		return 0;
	}
	*axis = (uint32_t)a;
	*sizes = s;
	return n;
}

/* -------------------------------------------------------------- squeeze */

bool
shape_squeeze(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	bool mark[OPS_MAX_RANK];
	int r = oa_axes(c, "axis", x->rank, mark);
	if (r < 0)
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < x->rank; i++) {
		bool drop = r == 0 ? x->dims[i] == 1 : mark[i];
		if (drop && x->dims[i] != 1) {
			op_error_at(c, oa_loc(c, "axis"), "'axis' of squeeze names axis %u, which has "
			            "size %lld; only axes of size 1 can be squeezed", (unsigned)i,
			            (long long)x->dims[i]);
			return false;
		}
		if (!drop)
			out->dims[n++] = x->dims[i];
	}
	out->dt = x->dt;
	out->rank = n;
	return true;
}

/* ---------------------------------------------------------- expand_dims */

bool
shape_expand_dims(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	int64_t r = x->rank;
	bool have = oa_require(c, "axis", "axis=0");
	int64_t axis = oa_int(c, "axis", 0, -r - 1, r);
	int64_t k = oa_int(c, "num_newaxis", 1, 0, OPS_MAX_RANK - r);
	if (!have || !c->ok)
		return false;
	if (axis < 0)
		axis += r + 1;
	uint32_t n = 0;
	for (int64_t i = 0; i <= r; i++) {
		if (i == axis)
			for (int64_t j = 0; j < k; j++)
				out->dims[n++] = 1;
		if (i < r)
			out->dims[n++] = x->dims[i];
	}
	out->dt = x->dt;
	out->rank = n;
	return true;
}

/* ---------------------------------------------------- sum, mean, max, min */

/* x without the reduced axes (a size 1 in their place with keepdims). */
static void
reduced_shape(const Shape *x, const ReduceAttrs *a, Shape *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < x->rank; i++) {
		if (!a->red[i])
			out->dims[n++] = x->dims[i];
		else if (a->keepdims)
			out->dims[n++] = 1;
	}
	out->dt = x->dt;
	out->rank = n;
}

bool
shape_reduce(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	ReduceAttrs a;
	if (!reduce_attrs(c, x->rank, &a) || !check_not_bool(c, x))
		return false;
	reduced_shape(x, &a, out);
	return true;
}

/* argmax, argmin: reduce as sum does, to the i32 index of the extreme
 * over the reduced axes (flattened in C order); not over nothing. */
bool
shape_argreduce(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	ReduceAttrs a;
	arg_last_index(c);
	if (!reduce_attrs(c, x->rank, &a) || !c->ok || !check_not_bool(c, x))
		return false;
	int64_t red = 1;
	for (uint32_t i = 0; i < x->rank; i++)
		if (a.red[i] && !ck_mul(red, x->dims[i], &red))
			red = INT64_MAX;
	if (red == 0) {
		op_error(c, "reduces no elements: there is no index of an extreme");
		return false;
	}
	if (red > INT32_MAX) {
		op_error(c, "reduces %lld elements, more than an i32 index counts", (long long)red);
		return false;
	}
	reduced_shape(x, &a, out);
	out->dt = (DType){ET_I32, 1};
	return true;
}

/* -------------------------------------------------------- strided_slice */

bool
shape_strided_slice(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	SliceAttrs a;
	if (!slice_attrs(c, x->rank, x->dims, &a))
		return false;
	shape_set(out, x->dt, x->rank, a.len);
	return true;
}

/* --------------------------------------------------------------- nn.pad */

bool
shape_pad(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	(void)nargs;
	const Shape *x = &args[0];
	PadAttrs a;
	if (!pad_attrs(c, x->rank, x->dims, &a))
		return false;
	if (x->dt.kind == ET_BOOL && a.value != 0 && a.value != 1) {
		op_error_at(c, oa_loc(c, "pad_value"), "'pad_value' of nn.pad on bool must be 0 "
		            "or 1, not %g", a.value);
		return false;
	}
	if (dims_numel(x->rank, a.len) < 0) {
		op_error(c, "the result is too large");
		return false;
	}
	shape_set(out, x->dt, x->rank, a.len);
	return true;
}
