/* ops_attr.c: attribute readers, layouts and message helpers shared by the
 * operator type rules.
 *
 * Readers take the value as TVM Relay writes it (lists of ints, strings,
 * bools), report a wrong kind or a bad value at the value's location with
 * the attribute and operator named, and fall back to the default so the
 * rule can go on reading the rest.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops_impl.h"

/* ------------------------------------------------------------- messages */

void
opcx_init(OpCx *c, Module *m, Value *v)
{
	memset(c, 0, sizeof *c);
	c->m = m;
	c->v = v;
	c->op = v->u.op->op->name;
	c->id = v->u.op->op->id;
	c->attrs = v->u.op->attrs;
	c->ok = true;
}

void
opcx_init_msg(OpCx *c, const OpDef *op, const AttrMap *attrs, char *err, size_t errsz)
{
	memset(c, 0, sizeof *c);
	c->op = op ? op->name : "?";
	c->id = op ? op->id : O__COUNT;
	c->attrs = attrs;
	c->err = errsz ? err : NULL;
	c->errsz = errsz;
	c->ok = true;
	if (c->err)
		c->err[0] = 0;
}

/* Without a module: "op: message" into c->err, the first error only. */
static void
to_string(OpCx *c, const char *msg)
{
	if (c->ok && c->err)
		snprintf(c->err, c->errsz, "%s: %s", c->op, msg);
	c->ok = false;
}

void
op_error(OpCx *c, const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!c->m)
		return to_string(c, buf);
	error_at(c->m->ctx, c->v->loc, "%s: %s", c->op, buf);
	c->ok = false;
}

void
op_error_at(OpCx *c, Loc loc, const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!c->m)
		return to_string(c, buf);
	error_at(c->m->ctx, loc, "%s", buf);
	c->ok = false;
}

const char *
dtype_text(DType d, char *buf8)
{
	dtype_str(d, buf8);
	return buf8;
}

const char *
ints_text(const int64_t *v, uint32_t n, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	len += (size_t)snprintf(buf, size, "[");
	for (uint32_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "",
		                        (long long)v[i]);
	if (len < size)
		snprintf(buf + len, size - len, "]");
	return buf;
}

/* "a string" for "must be X, not a string". */
static const char *
kind_text(const Attr *a)
{
	switch (a->kind) {
	case AT_INT: return "an integer";
	case AT_FLOAT: return "a float";
	case AT_STR: return "a string";
	case AT_BOOL: return "a bool";
	case AT_LIST: return "a list";
	case AT_SYM: return "a global name";
	}
	return "?";
}

/* Wrong kind: "'k' of op must be WHAT, not a string". */
static void
kind_error(OpCx *c, const char *key, const Attr *a, const char *what)
{
	op_error_at(c, a->loc, "'%s' of %s must be %s, not %s", key, c->op, what, kind_text(a));
}

/* Right kind, bad value: "'k' of op must be WHAT". */
static void
value_error(OpCx *c, const char *key, const Attr *a, const char *what)
{
	op_error_at(c, a->loc, "'%s' of %s must be %s", key, c->op, what);
}

bool
check_not_bool(OpCx *c, const Shape *t)
{
	if (t->dt.kind != ET_BOOL)
		return true;
	char buf[256];
	op_error(c, "operand has type %s; bool tensors are not supported here",
	         shape_text(t, buf, sizeof buf));
	return false;
}

bool
check_float(OpCx *c, const Shape *t)
{
	if (elem_is_float((ElemKind)t->dt.kind))
		return true;
	char buf[256];
	op_error(c, "needs a floating-point operand, not %s (cast it first)",
	         shape_text(t, buf, sizeof buf));
	return false;
}

bool
check_same_dtype(OpCx *c, const Shape *a, const Shape *b, const char *an, const char *bn)
{
	if (dtype_eq(a->dt, b->dt))
		return true;
	char x[256], y[256];
	if (an)
		op_error(c, "%s and %s have different element types: %s and %s", an, bn,
		         shape_text(a, x, sizeof x), shape_text(b, y, sizeof y));
	else
		op_error(c, "element types differ: %s and %s", shape_text(a, x, sizeof x),
		         shape_text(b, y, sizeof y));
	return false;
}

/* ------------------------------------------------------------- readers */

const Attr *
oa_get(const OpCx *c, const char *key)
{
	return attr_get(c->attrs, key);
}

Loc
oa_loc(const OpCx *c, const char *key)
{
	const Attr *a = oa_get(c, key);
	return a ? a->loc : c->v ? c->v->loc : (Loc){0};
}

bool
oa_require(OpCx *c, const char *key, const char *example)
{
	if (oa_get(c, key))
		return true;
	op_error(c, "missing attribute '%s' (for example %s)", key, example);
	return false;
}

/* "a positive integer", "an integer from -1 to 3", ... */
static void
range_text(int64_t lo, int64_t hi, char *buf, size_t n)
{
	if (hi == INT64_MAX && lo == INT64_MIN)
		snprintf(buf, n, "an integer");
	else if (hi == INT64_MAX && lo == 1)
		snprintf(buf, n, "a positive integer");
	else if (hi == INT64_MAX && lo == 0)
		snprintf(buf, n, "a non-negative integer");
	else if (hi == INT64_MAX)
		snprintf(buf, n, "an integer >= %lld", (long long)lo);
	else
		snprintf(buf, n, "an integer from %lld to %lld", (long long)lo, (long long)hi);
}

int64_t
oa_int(OpCx *c, const char *key, int64_t dflt, int64_t lo, int64_t hi)
{
	const Attr *a = oa_get(c, key);
	if (!a)
		return dflt;
	char what[96];
	range_text(lo, hi, what, sizeof what);
	if (a->kind != AT_INT) {
		kind_error(c, key, a, what);
		return dflt;
	}
	if (a->u.i < lo || a->u.i > hi) {
		value_error(c, key, a, what);
		return dflt;
	}
	return a->u.i;
}

double
oa_num(OpCx *c, const char *key, double dflt)
{
	const Attr *a = oa_get(c, key);
	if (!a)
		return dflt;
	if (a->kind == AT_FLOAT)
		return a->u.f;
	if (a->kind == AT_INT)
		return (double)a->u.i;
	kind_error(c, key, a, "a number");
	return dflt;
}

bool
oa_bool(OpCx *c, const char *key, bool dflt)
{
	const Attr *a = oa_get(c, key);
	if (!a)
		return dflt;
	/* TVM's text format writes some flags as 0/1; take those too. */
	if (a->kind == AT_BOOL || (a->kind == AT_INT && (a->u.i == 0 || a->u.i == 1)))
		return a->u.i != 0;
	if (a->kind == AT_INT)
		value_error(c, key, a, "true or false");
	else
		kind_error(c, key, a, "true or false");
	return dflt;
}

const char *
oa_str(OpCx *c, const char *key, const char *dflt)
{
	const Attr *a = oa_get(c, key);
	if (!a)
		return dflt;
	if (a->kind != AT_STR) {
		kind_error(c, key, a, "a string");
		return dflt;
	}
	if (memchr(a->u.s, 0, a->n)) {
		value_error(c, key, a, "a string without NUL bytes");
		return dflt;
	}
	return a->u.s;
}

int
oa_ints(OpCx *c, const char *key, uint32_t nmin, uint32_t nmax, int64_t lo, int64_t *out,
        uint32_t *n, const char *what)
{
	const Attr *a = oa_get(c, key);
	if (!a)
		return 0;
	if (a->kind != AT_LIST) {
		kind_error(c, key, a, what);
		return -1;
	}
	if (a->n > nmax && nmax == OPS_MAX_RANK) {
		/* `what` does not say how long: a list of one entry per axis */
		op_error_at(c, a->loc, "'%s' of %s has %u entries, more than the %d axes a tensor may have",
		            key, c->op, a->n, OPS_MAX_RANK);
		return -1;
	}
	if (a->n < nmin || a->n > nmax) {
		value_error(c, key, a, what);
		return -1;
	}
	for (uint32_t i = 0; i < a->n; i++) {
		const Attr *e = &a->u.list[i];
		if (e->kind != AT_INT) {
			op_error_at(c, e->loc, "'%s' of %s must be %s, not a list holding %s", key,
			            c->op, what, kind_text(e));
			return -1;
		}
		if (e->u.i < lo) {
			value_error(c, key, a, what);
			return -1;
		}
		out[i] = e->u.i;
	}
	*n = a->n;
	return 1;
}

void
oa_pair(OpCx *c, const char *key, int64_t lo, int64_t out[2])
{
	int64_t v[2];
	uint32_t n;
	const char *what = lo >= 1 ? "a list of 2 positive integers"
	                           : "a list of 2 non-negative integers";
	if (oa_ints(c, key, 2, 2, lo, v, &n, what) == 1) {
		out[0] = v[0];
		out[1] = v[1];
	}
}

void
oa_padding(OpCx *c, const char *key, int64_t pad[4])
{
	int64_t v[4];
	uint32_t n;
	if (oa_ints(c, key, 1, 4, 0, v, &n, "a list of 1, 2 or 4 non-negative integers") != 1)
		return;
	switch (n) {
	case 1: /* all sides */
		pad[0] = pad[1] = pad[2] = pad[3] = v[0];
		break;
	case 2: /* [height, width]: both sides of each */
		pad[0] = pad[2] = v[0];
		pad[1] = pad[3] = v[1];
		break;
	case 4: /* top, left, bottom, right */
		memcpy(pad, v, sizeof v);
		break;
	default:
		value_error(c, key, oa_get(c, key), "a list of 1, 2 or 4 non-negative integers");
	}
}

/* TVM's spellings of the element types. */
static const struct {
	const char *tvm;
	ElemKind k;
} tvm_dtypes[] = {
	{"bool", ET_BOOL}, {"int8", ET_I8}, {"int16", ET_I16}, {"int32", ET_I32},
	{"int64", ET_I64}, {"uint8", ET_U8}, {"uint16", ET_U16}, {"uint32", ET_U32},
	{"uint64", ET_U64}, {"float16", ET_F16}, {"float32", ET_F32}, {"float64", ET_F64},
};

bool
oa_dtype(OpCx *c, const char *key, DType *out)
{
	const char *s = oa_str(c, key, NULL);
	if (!s || !*s)          /* TVM writes "" for "same as the input" */
		return false;
	DType d;
	bool found = false;
	for (size_t i = 0; i < sizeof tvm_dtypes / sizeof tvm_dtypes[0] && !found; i++)
		if (strcmp(s, tvm_dtypes[i].tvm) == 0) {
			d.kind = (uint8_t)tvm_dtypes[i].k;
			d.lanes = 1;
			found = true;
		}
	if (!found)
		found = dtype_parse(s, strlen(s), &d);
	const Attr *a = oa_get(c, key);
	if (!found) {
		op_error_at(c, a->loc, "'%s' of %s must be an element type such as \"f16\" or "
		            "\"float16\", not \"%s\"", key, c->op, s);
		return false;
	}
	if (d.lanes != 1) {
		op_error_at(c, a->loc, "'%s' of %s must be a scalar element type; vector types "
		            "such as \"%s\" belong to the loop level", key, c->op, s);
		return false;
	}
	*out = d;
	return true;
}

int64_t
axis_norm(OpCx *c, const char *key, int64_t axis, int64_t rank)
{
	if (axis >= -rank && axis < rank)
		return axis < 0 ? axis + rank : axis;
	if (rank == 0)
		op_error_at(c, oa_loc(c, key), "'%s' of %s is %lld, but the operand has rank 0 "
		            "(no axes)", key, c->op, (long long)axis);
	else
		op_error_at(c, oa_loc(c, key), "'%s' of %s is %lld, out of range for rank %lld "
		            "(%lld to %lld)", key, c->op, (long long)axis, (long long)rank,
		            (long long)-rank, (long long)(rank - 1));
	return -1;
}

int
oa_axes(OpCx *c, const char *key, uint32_t rank, bool *mark)
{
	int64_t ax[OPS_MAX_RANK];
	uint32_t n = 0;
	memset(mark, 0, rank * sizeof *mark);
	int r = oa_ints(c, key, 0, OPS_MAX_RANK, INT64_MIN, ax, &n, "a list of axes (integers)");
	if (r != 1)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		int64_t a = axis_norm(c, key, ax[i], rank);
		if (a < 0)
			return -1;
		if (mark[a]) {
			op_error_at(c, oa_loc(c, key), "'%s' of %s names axis %lld twice", key, c->op,
			            (long long)a);
			return -1;
		}
		mark[a] = true;
	}
	return 1;
}

/* --------------------------------------------------------------- layouts */


/* "\"NCHW\" or \"NCHW4c\"" */
static void
choices_text(const char *const *allowed, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; allowed[i] && len < n; i++) {
		const char *sep = i == 0 ? "" : allowed[i + 1] ? ", " : " or ";
		len += (size_t)snprintf(buf + len, n - len, "%s\"%s\"", sep, allowed[i]);
	}
}

const Layout *
oa_layout(OpCx *c, const char *key, const char *dflt, const char *const *allowed)
{
	const char *s = oa_str(c, key, dflt);
	if (!*s)                /* TVM writes "" for "the default" (out_layout) */
		s = dflt;
	for (size_t i = 0; allowed[i]; i++)
		if (strcmp(s, allowed[i]) == 0)
			return layout_find(s);
	char buf[128];
	choices_text(allowed, buf, sizeof buf);
	op_error_at(c, oa_loc(c, key), "'%s' of %s must be %s, not \"%s\"", key, c->op, buf, s);
	return NULL;
}

bool
layout_check(OpCx *c, const Layout *l, const Shape *t, const char *what)
{
	char buf[256];
	uint32_t i = 0;
	switch (layout_fit(l, t->dims, t->rank, &i)) {
	case LAYOUT_RANK:
		op_error(c, "%s has type %s, but layout %s needs rank %u", what,
		         shape_text(t, buf, sizeof buf), l->name, (unsigned)l->rank);
		return false;
	case LAYOUT_INNER:
		op_error(c, "%s has type %s, but layout %s needs dimension %u to be %u", what,
		         shape_text(t, buf, sizeof buf), l->name, (unsigned)i, (unsigned)l->factor);
		return false;
	case LAYOUT_TOO_LARGE:
		op_error(c, "%s has type %s, whose axis %c is too large", what,
		         shape_text(t, buf, sizeof buf), l->axes[i]);
		return false;
	}
	return true;
}
