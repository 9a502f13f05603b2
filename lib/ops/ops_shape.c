/* ops_shape.c: type rules of the shape operators (reshape, transpose,
 * layout_transform, concatenate, split, squeeze, expand_dims) and of the
 * reductions sum and mean.
 */
#include <stdlib.h>
#include <string.h>

#include "ops_impl.h"

/* A split yields a tuple type with one field per piece; this bounds the
 * memory one binding can ask for. */
#define OPS_MAX_SPLIT 65536

/* Element count of t, or -1 on overflow. */
static int64_t
numel(const Type *t)
{
	int64_t n = 1;
	for (uint32_t i = 0; i < t->n; i++)
		if (!ck_mul(n, t->dims[i], &n))
			return -1;
	return n;
}

/* -------------------------------------------------------------- reshape */

/* One entry of newshape: 0 copies input dimension i, -1 is inferred
 * (marked by returning -1), positive sizes stand; -1 - error. */
static int64_t
newshape_dim(OpCx *c, const Type *x, int64_t s, uint32_t i)
{
	Loc loc = oa_loc(c, "newshape");
	if (s > 0 || s == -1)
		return s;
	if (s == 0) {
		if (i < x->n)
			return x->dims[i];
		op_error_at(c, loc, "'newshape' of reshape: 0 at position %u copies an input "
		            "dimension, but the input has rank %u", (unsigned)i, (unsigned)x->n);
	} else if (s >= -4) {
		op_error_at(c, loc, "'newshape' of reshape: the special value %lld is not "
		            "supported (only 0 and -1 are)", (long long)s);
	} else {
		op_error_at(c, loc, "'newshape' of reshape: %lld is not a size", (long long)s);
	}
	return -2;
}

const Type *
infer_reshape(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	int64_t ns[OPS_MAX_RANK], dims[OPS_MAX_RANK];
	uint32_t n = 0;
	if (!oa_require(&c, "newshape", "newshape=[1, -1]") ||
	    oa_ints(&c, "newshape", 0, OPS_MAX_RANK, INT64_MIN, ns, &n, "a list of integers") != 1)
		return NULL;
	const Type *x = op_arg(&c, 0);
	int64_t total = numel(x), known = 1;
	int infer_at = -1;
	for (uint32_t i = 0; i < n; i++) {
		dims[i] = newshape_dim(&c, x, ns[i], i);
		if (dims[i] == -2)
			return NULL;
		if (dims[i] == -1 && infer_at >= 0) {
			op_error_at(&c, oa_loc(&c, "newshape"), "'newshape' of reshape has more than "
			            "one -1");
			return NULL;
		}
		if (dims[i] == -1)
			infer_at = (int)i;
		else if (!ck_mul(known, dims[i], &known))
			known = -1;
	}
	char xs[256], ss[256];
	if (total < 0) {
		op_error(&c, "%s has too many elements to reshape", type_text(x, xs, sizeof xs));
		return NULL;
	}
	if (total >= 0 && known > 0 && infer_at >= 0 && total % known == 0)
		dims[infer_at] = total / known;
	else if (!(total >= 0 && infer_at < 0 && known == total)) {
		op_error(&c, "cannot reshape %s (%lld elements) to %s", type_text(x, xs, sizeof xs),
		         (long long)total, ints_text(ns, n, ss, sizeof ss));
		return NULL;
	}
	return type_tensor(m, x->dt, n, dims);
}

/* ------------------------------------------------------------ transpose */

const Type *
infer_transpose(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	int64_t ax[OPS_MAX_RANK], dims[OPS_MAX_RANK];
	uint32_t n = 0;
	int r = oa_ints(&c, "axes", 0, OPS_MAX_RANK, INT64_MIN, ax, &n, "a list of axes (integers)");
	if (r < 0)
		return NULL;
	if (r == 0) {           /* default: reverse the axes */
		for (uint32_t i = 0; i < x->n; i++)
			dims[i] = x->dims[x->n - 1 - i];
		return type_tensor(m, x->dt, x->n, dims);
	}
	char xs[256];
	if (n != x->n) {
		op_error_at(&c, oa_loc(&c, "axes"), "'axes' of transpose has %u entries, but the "
		            "operand %s has rank %u", (unsigned)n, type_text(x, xs, sizeof xs),
		            (unsigned)x->n);
		return NULL;
	}
	bool seen[OPS_MAX_RANK] = {false};
	for (uint32_t i = 0; i < n; i++) {
		int64_t a = axis_norm(&c, "axes", ax[i], x->n);
		if (a < 0)
			return NULL;
		if (seen[a]) {
			op_error_at(&c, oa_loc(&c, "axes"), "'axes' of transpose is not a permutation: "
			            "axis %lld appears twice", (long long)a);
			return NULL;
		}
		seen[a] = true;
		dims[i] = x->dims[a];
	}
	return type_tensor(m, x->dt, x->n, dims);
}

/* ----------------------------------------------------- layout_transform */

const Type *
infer_layout_transform(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Layout *src, *dst;
	if (!transform_attrs(&c, &src, &dst))
		return NULL;
	char sa[8], da[8];
	layout_logical_axes(src, sa);
	layout_logical_axes(dst, da);
	bool same = strlen(sa) == strlen(da);
	for (size_t i = 0; same && sa[i]; i++)
		same = strchr(da, sa[i]) != NULL;
	if (!same) {
		op_error_at(&c, oa_loc(&c, "dst_layout"), "layout_transform cannot turn %s into %s: "
		            "they have different axes", src->name, dst->name);
		return NULL;
	}
	const Type *x = op_arg(&c, 0);
	if (!layout_check(&c, src, x, "data"))
		return NULL;
	int64_t size[8], dims[8];
	for (size_t i = 0; sa[i]; i++)
		size[i] = layout_dim(src, x->dims, sa[i]);
	char bad = layout_shape(dst, sa, size, dims);
	if (bad) {
		op_error(&c, "axis %c has size %lld, which %s needs to be a multiple of %u", bad,
		         (long long)size[strchr(sa, bad) - sa], dst->name, (unsigned)dst->factor);
		return NULL;
	}
	return type_tensor(m, x->dt, dst->rank, dims);
}

/* ---------------------------------------------------------- concatenate */

/* Field i of the tuple agrees with field 0 except on axis. */
static bool
concat_field_ok(OpCx *c, const Type *f0, const Type *f, uint32_t i, int64_t axis)
{
	char as[256], bs[256];
	if (f->kind != TY_TENSOR) {
		op_error(c, "field %u of the tuple is a tuple %s; fields must be tensors",
		         (unsigned)i, type_text(f, as, sizeof as));
		return false;
	}
	bool ok = f->n == f0->n && dtype_eq(f->dt, f0->dt);
	for (uint32_t k = 0; ok && k < f->n; k++)
		ok = (int64_t)k == axis || f->dims[k] == f0->dims[k];
	if (!ok)
		op_error(c, "field %u has type %s, which does not match field 0 (%s) on all axes "
		         "but axis %lld", (unsigned)i, type_text(f, as, sizeof as),
		         type_text(f0, bs, sizeof bs), (long long)axis);
	return ok;
}

const Type *
infer_concatenate(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	int64_t axis = op_axis(&c);
	if (!c.ok)
		return NULL;
	const Type *t = op_arg(&c, 0);
	char ts[256];
	if (t->kind != TY_TUPLE || t->n == 0) {
		op_error(&c, "takes one non-empty tuple of tensors (TVM style: %%t = (%%a, %%b)), "
		         "not %s", type_text(t, ts, sizeof ts));
		return NULL;
	}
	const Type *f0 = t->fields[0];
	if (f0->kind != TY_TENSOR || f0->n > OPS_MAX_RANK) {
		op_error(&c, "field 0 of the tuple has type %s; fields must be tensors of rank at "
		         "most %d", type_text(f0, ts, sizeof ts), OPS_MAX_RANK);
		return NULL;
	}
	axis = axis_norm(&c, "axis", axis, f0->n);
	if (axis < 0)
		return NULL;
	int64_t dims[OPS_MAX_RANK];
	memcpy(dims, f0->dims, f0->n * sizeof dims[0]);
	for (uint32_t i = 1; i < t->n; i++) {
		if (!concat_field_ok(&c, f0, t->fields[i], i, axis))
			return NULL;
		if (!ck_add(dims[axis], t->fields[i]->dims[axis], &dims[axis])) {
			op_error(&c, "the result is too large");
			return NULL;
		}
	}
	return type_tensor(m, f0->dt, f0->n, dims);
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

const Type *
infer_split(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	int64_t axis = op_axis(&c);
	if (!oa_require(&c, "indices_or_sections", "indices_or_sections=2") || !c.ok)
		return NULL;
	const Type *x = op_arg(&c, 0);
	axis = axis_norm(&c, "axis", axis, x->n);
	if (axis < 0)
		return NULL;
	const Attr *ios = oa_get(&c, "indices_or_sections");
	/* Room for every piece when ios is good; split_sizes checks it. */
	size_t cap = 1;
	if (ios->kind == AT_INT && ios->u.i >= 1 && ios->u.i <= OPS_MAX_SPLIT)
		cap = (size_t)ios->u.i;
	else if (ios->kind == AT_LIST && ios->n < OPS_MAX_SPLIT)
		cap = (size_t)ios->n + 1;
	int64_t *sizes = xmalloc(cap * sizeof *sizes);
	uint32_t n = split_sizes(&c, ios, x->dims[axis], sizes);
	const Type *res = NULL;
	if (n) {
		const Type **fields = xmalloc(n * sizeof *fields);
		int64_t dims[OPS_MAX_RANK];
		memcpy(dims, x->dims, x->n * sizeof dims[0]);
		for (uint32_t i = 0; i < n; i++) {
			dims[axis] = sizes[i];
			fields[i] = type_tensor(m, x->dt, x->n, dims);
		}
		res = type_tuple(m, n, fields);
		free(fields);
	}
	free(sizes);
	return res;
}

/* -------------------------------------------------------------- squeeze */

const Type *
infer_squeeze(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	bool mark[OPS_MAX_RANK];
	int r = oa_axes(&c, "axis", x->n, mark);
	if (r < 0)
		return NULL;
	int64_t dims[OPS_MAX_RANK];
	uint32_t n = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		bool drop = r == 0 ? x->dims[i] == 1 : mark[i];
		if (drop && x->dims[i] != 1) {
			op_error_at(&c, oa_loc(&c, "axis"), "'axis' of squeeze names axis %u, which has "
			            "size %lld; only axes of size 1 can be squeezed", (unsigned)i,
			            (long long)x->dims[i]);
			return NULL;
		}
		if (!drop)
			dims[n++] = x->dims[i];
	}
	return type_tensor(m, x->dt, n, dims);
}

/* ---------------------------------------------------------- expand_dims */

const Type *
infer_expand_dims(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	int64_t r = x->n;
	bool have = oa_require(&c, "axis", "axis=0");
	int64_t axis = oa_int(&c, "axis", 0, -r - 1, r);
	int64_t k = oa_int(&c, "num_newaxis", 1, 0, OPS_MAX_RANK - r);
	if (!have || !c.ok)
		return NULL;
	if (axis < 0)
		axis += r + 1;
	int64_t dims[OPS_MAX_RANK];
	uint32_t n = 0;
	for (int64_t i = 0; i <= r; i++) {
		if (i == axis)
			for (int64_t j = 0; j < k; j++)
				dims[n++] = 1;
		if (i < r)
			dims[n++] = x->dims[i];
	}
	return type_tensor(m, x->dt, n, dims);
}

/* ----------------------------------------------------------- sum, mean */

const Type *
infer_reduce(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	ReduceAttrs a;
	if (!reduce_attrs(&c, x->n, &a) || !check_not_bool(&c, x))
		return NULL;
	int64_t dims[OPS_MAX_RANK];
	uint32_t n = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		if (!a.red[i])
			dims[n++] = x->dims[i];
		else if (a.keepdims)
			dims[n++] = 1;
	}
	return type_tensor(m, x->dt, n, dims);
}

/* argmax, argmin: reduce as sum does, to the i32 index of the extreme
 * over the reduced axes (flattened in C order); not over nothing. */
const Type *
infer_argreduce(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	ReduceAttrs a;
	arg_last_index(&c);
	if (!reduce_attrs(&c, x->n, &a) || !c.ok || !check_not_bool(&c, x))
		return NULL;
	int64_t dims[OPS_MAX_RANK], red = 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < x->n; i++) {
		if (a.red[i] && !ck_mul(red, x->dims[i], &red))
			red = INT64_MAX;
		if (!a.red[i])
			dims[n++] = x->dims[i];
		else if (a.keepdims)
			dims[n++] = 1;
	}
	if (red == 0) {
		op_error(&c, "reduces no elements: there is no index of an extreme");
		return NULL;
	}
	if (red > INT32_MAX) {
		op_error(&c, "reduces %lld elements, more than an i32 index counts", (long long)red);
		return NULL;
	}
	return type_tensor(m, (DType){ET_I32, 1}, n, dims);
}

/* -------------------------------------------------------- strided_slice */

const Type *
infer_strided_slice(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	SliceAttrs a;
	if (!slice_attrs(&c, x->n, x->dims, &a))
		return NULL;
	return type_tensor(m, x->dt, x->n, a.len);
}

/* --------------------------------------------------------------- nn.pad */

const Type *
infer_pad(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	const Type *x = op_arg(&c, 0);
	PadAttrs a;
	if (!pad_attrs(&c, x->n, x->dims, &a))
		return NULL;
	if (x->dt.kind == ET_BOOL && a.value != 0 && a.value != 1) {
		op_error_at(&c, oa_loc(&c, "pad_value"), "'pad_value' of nn.pad on bool must be 0 "
		            "or 1, not %g", a.value);
		return NULL;
	}
	const Type *t = type_tensor(m, x->dt, x->n, a.len);
	if (numel(t) < 0) {
		op_error(&c, "the result is too large");
		return NULL;
	}
	return t;
}
