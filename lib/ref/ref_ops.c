/* ref_ops.c: ref_eval (output checks, dispatch) and what the reference
 * kernels share: messages, attribute readers, layouts, accumulators.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ref_impl.h"

/* ------------------------------------------------------------- dispatch */

/* The kernel of each operator: a switch, so -Wswitch names an operator
 * ops.def gained and this file did not. */
static RefKernel *
kernel_of(OpId id)
{
	switch (id) {
	case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM:
	case O_MINIMUM: case O_POWER:
		return ref_binary;
	case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG: case O_SQRT: case O_RSQRT:
	case O_SIGMOID: case O_TANH:
		return ref_unary;
	case O_CLIP: return ref_clip;
	case O_CAST: return ref_cast;
	case O_BIAS_ADD: return ref_bias_add;
	case O_SOFTMAX: return ref_softmax;
	case O_SUM: case O_MEAN: return ref_reduce;
	case O_CONV2D: return ref_conv2d;
	case O_DENSE: return ref_dense;
	case O_BATCH_MATMUL: return ref_batch_matmul;
	case O_MAX_POOL2D: case O_AVG_POOL2D: return ref_pool2d;
	case O_GLOBAL_AVG_POOL2D: return ref_global_avg_pool2d;
	case O_RESHAPE: return ref_reshape;
	case O_TRANSPOSE: return ref_transpose;
	case O_LAYOUT_TRANSFORM: return ref_layout_transform;
	case O_CONCATENATE: return ref_concatenate;
	case O_SPLIT: return ref_split;
	case O_SQUEEZE: return ref_squeeze;
	case O_EXPAND_DIMS: return ref_expand_dims;
	case O__COUNT: break;
	}
	return NULL;
}

bool
ref_supports(const OpDef *op)
{
	return op && kernel_of(op->id);
}

/* outs[i] matches field i of the result type. */
static bool
check_outs(RefCx *c, const Type *result, Tensor **outs, uint32_t nouts)
{
	if (!result)
		return ref_fail(c, "no result type given");
	uint32_t want = result->kind == TY_TUPLE ? result->n : 1;
	if (nouts != want)
		return ref_fail(c, "the result type has %u field%s but %u output tensor%s were given",
		                (unsigned)want, want == 1 ? "" : "s", (unsigned)nouts,
		                nouts == 1 ? "" : "s");
	for (uint32_t i = 0; i < nouts; i++) {
		const Type *t = result->kind == TY_TUPLE ? result->fields[i] : result;
		const Tensor *o = outs[i];
		if (t->kind != TY_TENSOR || t->dt.lanes != 1)
			return ref_fail(c, "result field %u is not a tensor of scalar elements",
			                (unsigned)i);
		if (!o)
			return ref_fail(c, "output tensor %u is missing", (unsigned)i);
		bool same = o->kind == (ElemKind)t->dt.kind && o->rank == t->n;
		for (uint32_t k = 0; same && k < t->n; k++)
			same = o->dims[k] == t->dims[k];
		if (!same) {
			char a[256], b[256];
			return ref_fail(c, "output tensor %u is %s%s, but the result type says %s%s",
			                (unsigned)i, elem_name(o->kind),
			                ref_dims_text(o->dims, o->rank, a, sizeof a),
			                elem_name((ElemKind)t->dt.kind),
			                ref_dims_text(t->dims, t->n, b, sizeof b));
		}
	}
	return true;
}

bool
ref_eval(const OpDef *op, const AttrMap *attrs, Tensor *const *args, uint32_t nargs,
         const Type *result, Tensor **outs, uint32_t nouts, char *err, size_t errsz)
{
	RefCx c = {op ? op->name : "?", op ? op->id : O__COUNT, attrs, err, errsz};
	if (err && errsz)
		err[0] = 0;
	RefKernel *fn = op ? kernel_of(op->id) : NULL;
	if (!fn)
		return ref_fail(&c, "no reference kernel for this operator");
	/* concatenate's tuple arrives as its fields: one or more. */
	bool concat = op->id == O_CONCATENATE;
	uint32_t lo = concat ? 1 : op->min_args, hi = concat ? UINT32_MAX : op->max_args;
	if (nargs < lo || nargs > hi)
		return ref_fail(&c, "%u operand%s given", (unsigned)nargs, nargs == 1 ? "" : "s");
	for (uint32_t i = 0; i < nargs; i++)
		if (!args[i])
			return ref_fail(&c, "operand %u is missing", (unsigned)i + 1);
		else if (args[i]->numel > 0 && !args[i]->data)
			return ref_fail(&c, "operand %u has no data", (unsigned)i + 1);
	if (!check_outs(&c, result, outs, nouts))
		return false;
	return fn(&c, args, nargs, outs, nouts);
}

/* ------------------------------------------------------------- messages */

bool
ref_fail(RefCx *c, const char *fmt, ...)
{
	if (!c->err || c->errsz == 0)
		return false;
	int n = snprintf(c->err, c->errsz, "%s: ", c->op);
	if (n >= 0 && (size_t)n < c->errsz) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errsz - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

const char *
ref_dims_text(const int64_t *dims, uint32_t n, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "[");
	for (uint32_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
		                        (long long)dims[i]);
	if (len < size)
		snprintf(buf + len, size - len, "]");
	return buf;
}

bool
ref_check_out(RefCx *c, const Tensor *out, uint32_t rank, const int64_t *dims)
{
	bool same = out->rank == rank;
	for (uint32_t i = 0; same && i < rank; i++)
		same = out->dims[i] == dims[i];
	if (same)
		return true;
	char a[256], b[256];
	return ref_fail(c, "the operands give a result of shape %s, but the output tensor has "
	                "shape %s", ref_dims_text(dims, rank, a, sizeof a),
	                ref_dims_text(out->dims, out->rank, b, sizeof b));
}

bool
ref_same_kind(RefCx *c, const Tensor *a, const Tensor *b, const char *an, const char *bn)
{
	if (a->kind == b->kind)
		return true;
	return ref_fail(c, "%s and %s have different element types: %s and %s", an, bn,
	                elem_name(a->kind), elem_name(b->kind));
}

int64_t
ref_prod(const int64_t *dims, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo; i < hi; i++)
		if (dims[i] == 0)
			return 0;
	int64_t n = 1;
	for (uint32_t i = lo; i < hi; i++)
		if (__builtin_mul_overflow(n, dims[i], &n))
			return INT64_MAX;
	return n;
}

/* ------------------------------------------------------------ attributes */

const Attr *
ra_get(const RefCx *c, const char *key)
{
	return attr_get(c->attrs, key);
}

bool
ra_require(RefCx *c, const char *key)
{
	return ra_get(c, key) ? true : ref_fail(c, "missing attribute '%s'", key);
}

bool
ra_int(RefCx *c, const char *key, int64_t dflt, int64_t lo, int64_t hi, int64_t *out)
{
	const Attr *a = ra_get(c, key);
	*out = dflt;
	if (!a)
		return true;
	if (a->kind != AT_INT || a->u.i < lo || a->u.i > hi)
		return ref_fail(c, "bad attribute '%s' (an integer from %lld to %lld expected)", key,
		                (long long)lo, (long long)hi);
	*out = a->u.i;
	return true;
}

bool
ra_num(RefCx *c, const char *key, double dflt, double *out)
{
	const Attr *a = ra_get(c, key);
	*out = dflt;
	if (!a)
		return true;
	if (a->kind == AT_FLOAT)
		*out = a->u.f;
	else if (a->kind == AT_INT)
		*out = (double)a->u.i;
	else
		return ref_fail(c, "bad attribute '%s' (a number expected)", key);
	return true;
}

bool
ra_bool(RefCx *c, const char *key, bool dflt, bool *out)
{
	const Attr *a = ra_get(c, key);
	*out = dflt;
	if (!a)
		return true;
	/* As oa_bool: true/false, or TVM's 0/1. */
	if (a->kind == AT_BOOL || (a->kind == AT_INT && (a->u.i == 0 || a->u.i == 1))) {
		*out = a->u.i != 0;
		return true;
	}
	return ref_fail(c, "bad attribute '%s' (true or false expected)", key);
}

bool
ra_str(RefCx *c, const char *key, const char *dflt, const char **out)
{
	const Attr *a = ra_get(c, key);
	*out = dflt;
	if (!a)
		return true;
	if (a->kind != AT_STR || memchr(a->u.s, 0, a->n))
		return ref_fail(c, "bad attribute '%s' (a string expected)", key);
	if (a->n)
		*out = a->u.s;
	return true;
}

int
ra_ints(RefCx *c, const char *key, uint32_t max, int64_t lo, int64_t *out, uint32_t *n)
{
	const Attr *a = ra_get(c, key);
	*n = 0;
	if (!a)
		return 0;
	bool ok = a->kind == AT_LIST && a->n <= max;
	for (uint32_t i = 0; ok && i < a->n; i++) {
		ok = a->u.list[i].kind == AT_INT && a->u.list[i].u.i >= lo;
		if (ok)
			out[i] = a->u.list[i].u.i;
	}
	if (!ok) {
		ref_fail(c, "bad attribute '%s' (a list of at most %u integers expected)", key,
		         (unsigned)max);
		return -1;
	}
	*n = a->n;
	return 1;
}

bool
ra_pair(RefCx *c, const char *key, int64_t out[2])
{
	int64_t v[2];
	uint32_t n;
	int r = ra_ints(c, key, 2, 1, v, &n);
	if (r < 0 || (r == 1 && n != 2))
		return r < 0 ? false : ref_fail(c, "bad attribute '%s' (2 positive integers "
		                                "expected)", key);
	if (r == 1) {
		out[0] = v[0];
		out[1] = v[1];
	}
	return true;
}

bool
ra_padding(RefCx *c, const char *key, int64_t pad[4])
{
	int64_t v[4];
	uint32_t n;
	int r = ra_ints(c, key, 4, 0, v, &n);
	if (r < 0)
		return false;
	if (r == 0)
		return true;
	switch (n) {
	case 1:     /* all sides */
		pad[0] = pad[1] = pad[2] = pad[3] = v[0];
		return true;
	case 2:     /* [height, width]: both sides of each */
		pad[0] = pad[2] = v[0];
		pad[1] = pad[3] = v[1];
		return true;
	case 4:     /* top, left, bottom, right */
		memcpy(pad, v, sizeof v);
		return true;
	default:
		return ref_fail(c, "bad attribute '%s' (1, 2 or 4 non-negative integers expected)",
		                key);
	}
}

bool
ra_axis_norm(RefCx *c, const char *key, int64_t axis, int64_t rank, int64_t *out)
{
	if (axis >= -rank && axis < rank) {
		*out = axis < 0 ? axis + rank : axis;
		return true;
	}
	return ref_fail(c, "'%s' is %lld, out of range for rank %lld", key, (long long)axis,
	                (long long)rank);
}

/* --------------------------------------------------------------- layouts */


bool
ra_layout(RefCx *c, const char *key, const char *dflt, const char *const *allowed,
          const Layout **out)
{
	const char *s;
	if (!ra_str(c, key, dflt, &s))
		return false;
	for (size_t i = 0; allowed[i]; i++)
		if (strcmp(s, allowed[i]) == 0) {
			*out = layout_find(s);
			return true;
		}
	return ref_fail(c, "'%s' is \"%s\", which this operator does not take", key, s);
}

static bool
is_lower(char ch)
{
	return ch >= 'a' && ch <= 'z';
}

static char
upper(char ch)
{
	return is_lower(ch) ? (char)(ch - 'a' + 'A') : ch;
}

/* Is upper-case axis ax of l split (does its lower-case part appear)? */
static bool
is_split(const Layout *l, char ax)
{
	return l->factor && memchr(l->axes, ax - 'A' + 'a', l->rank) != NULL;
}

bool
rl_check(RefCx *c, const Layout *l, const Tensor *t, const char *what)
{
	char buf[256];
	if (t->rank != l->rank)
		return ref_fail(c, "%s has shape %s, but layout %s needs rank %u", what,
		                ref_dims_text(t->dims, t->rank, buf, sizeof buf), l->name,
		                (unsigned)l->rank);
	for (uint32_t i = 0; i < l->rank; i++)
		if (is_lower(l->axes[i]) && t->dims[i] != l->factor)
			return ref_fail(c, "%s has shape %s, but layout %s needs dimension %u to be %u",
			                what, ref_dims_text(t->dims, t->rank, buf, sizeof buf), l->name,
			                (unsigned)i, (unsigned)l->factor);
	/* rl_dim multiplies a split axis back together: keep that in range. */
	for (uint32_t i = 0; i < l->rank; i++) {
		int64_t n;
		if (!is_lower(l->axes[i]) && is_split(l, l->axes[i]) &&
		    __builtin_mul_overflow(t->dims[i], (int64_t)l->factor, &n))
			return ref_fail(c, "%s has shape %s, whose axis %c is too large", what,
			                ref_dims_text(t->dims, t->rank, buf, sizeof buf), l->axes[i]);
	}
	return true;
}

int64_t
rl_dim(const Layout *l, const int64_t *dims, char ax)
{
	int64_t size = 1;
	for (uint32_t i = 0; i < l->rank; i++)
		if (upper(l->axes[i]) == ax)
			size *= dims[i];
	return size;
}

bool
rl_shape(const Layout *l, const char *letters, const int64_t *size, int64_t *dims)
{
	for (uint32_t i = 0; i < l->rank; i++) {
		char ax = l->axes[i];
		if (is_lower(ax)) {
			dims[i] = l->factor;
			continue;
		}
		const char *p = strchr(letters, ax);
		int64_t s = p ? size[p - letters] : 1;
		if (is_split(l, ax)) {
			if (s % l->factor != 0)
				return false;
			s /= l->factor;
		}
		dims[i] = s;
	}
	return true;
}

int64_t
rl_offset(const Layout *l, const int64_t *dims, const char *letters, const int64_t *idx)
{
	int64_t off = 0;
	for (uint32_t i = 0; i < l->rank; i++) {
		char ax = l->axes[i];
		const char *p = strchr(letters, upper(ax));
		int64_t v = p ? idx[p - letters] : 0;
		if (is_lower(ax))
			v %= l->factor;
		else if (is_split(l, ax))
			v /= l->factor;
		off = off * dims[i] + v;
	}
	return off;
}

void
rl_index(const Layout *l, const int64_t *dims, int64_t off, const char *letters,
         int64_t *idx)
{
	for (size_t i = 0; letters[i]; i++)
		idx[i] = 0;
	/* From the last (fastest) axis: its index is the remainder. */
	for (uint32_t i = l->rank; i-- > 0;) {
		int64_t v = off % dims[i];
		off /= dims[i];
		char ax = l->axes[i];
		const char *p = strchr(letters, upper(ax));
		if (!p)
			continue;
		if (!is_lower(ax) && is_split(l, ax))
			v *= l->factor;     /* outer part; the inner one adds its own */
		idx[p - letters] += v;
	}
}

/* ---------------------------------------------------------- arithmetic */

void
ref_store_int(Tensor *out, int64_t o, uint64_t bits, bool is_unsigned)
{
	switch (out->kind) {
	case ET_F16:
		/* Through double: only values beyond 2^53 round twice, and those
		 * overflow f16 either way. */
		tensor_set(out, o, is_unsigned ? (double)bits : (double)ref_s(bits));
		return;
	case ET_F32:
		((float *)out->data)[o] = is_unsigned ? (float)bits : (float)ref_s(bits);
		return;
	case ET_F64:
		((double *)out->data)[o] = is_unsigned ? (double)bits : (double)ref_s(bits);
		return;
	default:
		tensor_set_int(out, o, ref_s(bits));
		return;
	}
}

void
acc_store(const Acc *a, Tensor *out, int64_t o)
{
	if (a->isint)
		ref_store_int(out, o, a->i, a->uns);
	else
		tensor_set(out, o, a->f);
}

void
acc_store_div(const Acc *a, int64_t n, Tensor *out, int64_t o)
{
	if (!a->isint)
		tensor_set(out, o, a->f / (double)n);
	else if (a->uns)
		ref_store_int(out, o, a->i / (uint64_t)n, true);
	else
		ref_store_int(out, o, ref_u(ref_s(a->i) / n), false);
}
