/* ops.c: the operator registry and the checks common to every operator.
 *
 * The registry is a constant table sorted by name, so op_lookup is a binary
 * search (the parser calls it once per binding).  op_infer checks what all
 * operators share (arity, tuple operands, literal operands, attribute
 * names) and then hands over to the operator's own rule in ops_*.c.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "ops_impl.h"

/* ------------------------------------------------------ attribute names */

static const char *const a_clip[] = {"a_max", "a_min", NULL};
static const char *const a_cast[] = {"dtype", NULL};
static const char *const a_conv2d[] = {
	"channels", "data_layout", "dilation", "groups", "kernel_layout", "kernel_size",
	"out_dtype", "out_layout", "padding", "strides", NULL};
static const char *const a_dense[] = {"out_dtype", "units", NULL};
static const char *const a_batch_matmul[] = {"out_dtype", "transpose_a", "transpose_b", NULL};
static const char *const a_axis[] = {"axis", NULL};
static const char *const a_max_pool[] = {
	"ceil_mode", "dilation", "layout", "out_layout", "padding", "pool_size", "strides", NULL};
static const char *const a_avg_pool[] = {
	"ceil_mode", "count_include_pad", "dilation", "layout", "out_layout", "padding",
	"pool_size", "strides", NULL};
static const char *const a_global_pool[] = {"layout", "out_layout", NULL};
static const char *const a_reshape[] = {"newshape", NULL};
static const char *const a_transpose[] = {"axes", NULL};
static const char *const a_layout_transform[] = {"dst_layout", "src_layout", NULL};
static const char *const a_split[] = {"axis", "indices_or_sections", NULL};
static const char *const a_expand_dims[] = {"axis", "num_newaxis", NULL};
static const char *const a_reduce[] = {"axis", "exclude", "keepdims", NULL};

/* ------------------------------------------------------------- registry */

#define OP(id, nm, lo, hi, pat, fn, at) \
	static const OpDef id = {.name = nm, .min_args = lo, .max_args = hi, \
	                         .pattern = pat, .infer = fn, .attrs = at}

OP(o_add, "add", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_cast, "cast", 1, 1, PAT_ELEMWISE, infer_cast, a_cast);
OP(o_clip, "clip", 1, 1, PAT_ELEMWISE, infer_clip, a_clip);
OP(o_concatenate, "concatenate", 1, 1, PAT_INJECTIVE, infer_concatenate, a_axis);
OP(o_divide, "divide", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_exp, "exp", 1, 1, PAT_ELEMWISE, infer_unary_float, NULL);
OP(o_expand_dims, "expand_dims", 1, 1, PAT_INJECTIVE, infer_expand_dims, a_expand_dims);
OP(o_layout_transform, "layout_transform", 1, 1, PAT_INJECTIVE, infer_layout_transform,
   a_layout_transform);
OP(o_log, "log", 1, 1, PAT_ELEMWISE, infer_unary_float, NULL);
OP(o_maximum, "maximum", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_mean, "mean", 1, 1, PAT_REDUCE, infer_reduce, a_reduce);
OP(o_minimum, "minimum", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_multiply, "multiply", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_negative, "negative", 1, 1, PAT_ELEMWISE, infer_unary, NULL);
OP(o_avg_pool2d, "nn.avg_pool2d", 1, 1, PAT_REDUCE, infer_pool2d, a_avg_pool);
OP(o_batch_matmul, "nn.batch_matmul", 2, 2, PAT_OUT_FUSABLE, infer_batch_matmul, a_batch_matmul);
OP(o_bias_add, "nn.bias_add", 2, 2, PAT_BROADCAST, infer_bias_add, a_axis);
OP(o_conv2d, "nn.conv2d", 2, 2, PAT_OUT_FUSABLE, infer_conv2d, a_conv2d);
OP(o_dense, "nn.dense", 2, 2, PAT_OUT_FUSABLE, infer_dense, a_dense);
OP(o_global_avg_pool2d, "nn.global_avg_pool2d", 1, 1, PAT_REDUCE, infer_global_pool2d,
   a_global_pool);
OP(o_max_pool2d, "nn.max_pool2d", 1, 1, PAT_REDUCE, infer_pool2d, a_max_pool);
OP(o_relu, "nn.relu", 1, 1, PAT_ELEMWISE, infer_unary, NULL);
OP(o_softmax, "nn.softmax", 1, 1, PAT_OPAQUE, infer_softmax, a_axis);
OP(o_power, "power", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_reshape, "reshape", 1, 1, PAT_INJECTIVE, infer_reshape, a_reshape);
OP(o_rsqrt, "rsqrt", 1, 1, PAT_ELEMWISE, infer_unary_float, NULL);
OP(o_sigmoid, "sigmoid", 1, 1, PAT_ELEMWISE, infer_unary_float, NULL);
OP(o_split, "split", 1, 1, PAT_OPAQUE, infer_split, a_split);
OP(o_sqrt, "sqrt", 1, 1, PAT_ELEMWISE, infer_unary_float, NULL);
OP(o_squeeze, "squeeze", 1, 1, PAT_INJECTIVE, infer_squeeze, a_axis);
OP(o_subtract, "subtract", 2, 2, PAT_BROADCAST, infer_binary, NULL);
OP(o_sum, "sum", 1, 1, PAT_REDUCE, infer_reduce, a_reduce);
OP(o_tanh, "tanh", 1, 1, PAT_ELEMWISE, infer_unary_float, NULL);
OP(o_transpose, "transpose", 1, 1, PAT_INJECTIVE, infer_transpose, a_transpose);

/* Sorted by strcmp of the name: op_lookup bisects it. */
static const OpDef *const all_ops[] = {
	&o_add, &o_cast, &o_clip, &o_concatenate, &o_divide, &o_exp, &o_expand_dims,
	&o_layout_transform, &o_log, &o_maximum, &o_mean, &o_minimum, &o_multiply,
	&o_negative, &o_avg_pool2d, &o_batch_matmul, &o_bias_add, &o_conv2d, &o_dense,
	&o_global_avg_pool2d, &o_max_pool2d, &o_relu, &o_softmax, &o_power, &o_reshape,
	&o_rsqrt, &o_sigmoid, &o_split, &o_sqrt, &o_squeeze, &o_subtract, &o_sum, &o_tanh,
	&o_transpose, NULL,
};

#define NOPS (sizeof all_ops / sizeof all_ops[0] - 1)

const OpDef *const *
op_all(void)
{
	return all_ops;
}

/* strcmp of the n bytes of name against the NUL-terminated s. */
static int
cmp_name(const char *name, size_t n, const char *s)
{
	int r = strncmp(name, s, n);
	if (r != 0)
		return r;
	if (memchr(name, 0, n))
		return -1;          /* a NUL inside name names nothing */
	return s[n] != 0 ? -1 : 0;  /* s[0..n) matched, so s[n] exists */
}

const OpDef *
op_lookup(const char *name, size_t n)
{
	size_t lo = 0, hi = NOPS;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = cmp_name(name, n, all_ops[mid]->name);
		if (r == 0)
			return all_ops[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

bool
op_has_attr(const OpDef *def, const char *key)
{
	for (const char *const *a = def->attrs; a && *a; a++)
		if (strcmp(*a, key) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------ attribute names */

/* Edit distance of a and b, or a large number when either is long (keys
 * are short; a long one is no typo of a known name). */
static unsigned
edit_distance(const char *a, const char *b)
{
	enum { MAXN = 40 };
	size_t na = strlen(a), nb = strlen(b);
	if (na > MAXN || nb > MAXN)
		return 1000;
	unsigned row[MAXN + 1];
	for (size_t j = 0; j <= nb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		unsigned diag_ = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= nb; j++) {
			unsigned up = row[j];
			unsigned best = diag_ + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag_ = up;
		}
	}
	return row[nb];
}

/* The known name closest to key, if close enough to be a typo. */
static const char *
closest_attr(const OpDef *def, const char *key)
{
	const char *best = NULL;
	unsigned bd = 3;          /* at most 2 edits */
	for (const char *const *a = def->attrs; a && *a; a++) {
		unsigned d = edit_distance(key, *a);
		if (d < bd) {
			bd = d;
			best = *a;
		}
	}
	return best;
}

static void
note_valid_attrs(Ctx *ctx, const OpDef *def, Loc loc)
{
	if (!def->attrs) {
		note_at(ctx, loc, "%s takes no attributes", def->name);
		return;
	}
	char buf[512];
	size_t len = 0;
	buf[0] = 0;
	for (const char *const *a = def->attrs; *a && len < sizeof buf; a++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
		                        a == def->attrs ? "" : ", ", *a);
	note_at(ctx, loc, "%s takes: %s", def->name, buf);
}

static bool
check_attr_names(Module *m, const Value *v)
{
	const OpDef *def = v->u.op->op;
	const AttrMap *am = v->u.op->attrs;
	bool ok = true;
	for (uint32_t i = 0; am && i < am->n; i++) {
		const AttrEntry *e = &am->e[i];
		if (op_has_attr(def, e->key))
			continue;
		error_at(m->ctx, e->loc, "unknown attribute '%s' for %s", e->key, def->name);
		const char *near = closest_attr(def, e->key);
		if (near)
			note_at(m->ctx, e->loc, "did you mean '%s'?", near);
		else
			note_valid_attrs(m->ctx, def, e->loc);
		ok = false;
	}
	return ok;
}

/* ---------------------------------------------------- literal operands */

/* Can literal a be an element of kind k?  Reports at the literal. */
static bool
literal_fits(Module *m, const Value *v, const Value *a, DType dt)
{
	char dn[8];
	dtype_str(dt, dn);
	ElemKind k = (ElemKind)dt.kind;
	if (a->flags & VF_LIT_BOOL) {
		if (k == ET_BOOL)
			return true;
		error_at(m->ctx, a->loc, "%s: bool literal '%s' cannot be an element of type %s",
		         v->u.op->op->name, a->u.i ? "true" : "false", dn);
		return false;
	}
	if (a->flags & VF_LIT_FLOAT) {
		if (!elem_is_float(k)) {
			error_at(m->ctx, a->loc, "%s: float literal cannot be an element of type %s "
			         "(the type of the other operand)", v->u.op->op->name, dn);
			return false;
		}
		if (isfinite(a->u.f) && fabs(a->u.f) > elem_float_max(k)) {
			error_at(m->ctx, a->loc, "%s: float literal is out of the range of %s",
			         v->u.op->op->name, dn);
			return false;
		}
		return true;
	}
	if (elem_is_float(k))
		return true;
	/* Integer literal, integer or bool element: must be representable. */
	int64_t x = a->u.i, lo;
	uint64_t hi;
	elem_int_range(k, &lo, &hi);
	if (x < lo || (x > 0 && (uint64_t)x > hi)) {
		error_at(m->ctx, a->loc, "%s: integer literal %lld is out of the range of %s",
		         v->u.op->op->name, (long long)x, dn);
		return false;
	}
	return true;
}

/* Gives each literal operand a rank-0 type: the element type of the first
 * tensor operand if there is one, else i32/f32/bool by how it was
 * written. */
static bool
type_literals(Module *m, Value *v)
{
	const Type *like = NULL;
	for (uint32_t i = 0; i < v->nargs && !like; i++) {
		const Value *a = v->args[i];
		if (a->kind != VK_LIT && a->type && a->type->kind == TY_TENSOR)
			like = a->type;
	}
	bool ok = true;
	for (uint32_t i = 0; i < v->nargs; i++) {
		Value *a = v->args[i];
		if (a->kind != VK_LIT)
			continue;
		if (like) {
			if (!literal_fits(m, v, a, like->dt)) {
				ok = false;
				continue;
			}
			a->type = type_tensor(m, like->dt, 0, NULL);
		} else {
			ElemKind k = (a->flags & VF_LIT_BOOL) ? ET_BOOL
			           : (a->flags & VF_LIT_FLOAT) ? ET_F32 : ET_I32;
			DType d = {(uint8_t)k, 1};
			if (!literal_fits(m, v, a, d)) {
				ok = false;
				continue;
			}
			a->type = type_scalar(m, k);
		}
	}
	return ok;
}

/* ------------------------------------------------------------ op_infer */

static bool
check_arity(Module *m, const Value *v)
{
	const OpDef *def = v->u.op->op;
	if (v->nargs >= def->min_args && v->nargs <= def->max_args)
		return true;
	if (def->min_args == def->max_args)
		error_at(m->ctx, v->loc, "'%s' takes %u operand%s, %u given", def->name,
		         (unsigned)def->min_args, def->min_args == 1 ? "" : "s", (unsigned)v->nargs);
	else
		error_at(m->ctx, v->loc, "'%s' takes %u to %u operands, %u given", def->name,
		         (unsigned)def->min_args, (unsigned)def->max_args, (unsigned)v->nargs);
	return false;
}

/* Tuples are operands of concatenate only; ranks are bounded. */
static bool
check_operand_kinds(Module *m, const Value *v)
{
	const OpDef *def = v->u.op->op;
	bool ok = true;
	for (uint32_t i = 0; i < v->nargs; i++) {
		const Value *a = v->args[i];
		if (a->kind == VK_LIT || !a->type)
			continue;
		char buf[256];
		if (a->type->kind == TY_TUPLE && def != &o_concatenate) {
			error_at(m->ctx, v->loc, "%s: operand %u ('%%%s') is a tuple %s; "
			         "project a field first", def->name, (unsigned)i + 1, a->name,
			         type_text(a->type, buf, sizeof buf));
			ok = false;
		} else if (a->type->kind == TY_TENSOR && a->type->n > OPS_MAX_RANK) {
			error_at(m->ctx, v->loc, "%s: operand %u has rank %u; operators take at most %d",
			         def->name, (unsigned)i + 1, (unsigned)a->type->n, OPS_MAX_RANK);
			ok = false;
		}
	}
	return ok;
}

const Type *
op_infer(Module *m, Value *v)
{
	const OpDef *def = v->u.op->op;
	/* An untyped operand was reported where it was defined. */
	for (uint32_t i = 0; i < v->nargs; i++)
		if (!v->args[i] || (v->args[i]->kind != VK_LIT && !v->args[i]->type))
			return NULL;
	if (!check_arity(m, v) || !check_operand_kinds(m, v))
		return NULL;
	bool ok = type_literals(m, v);
	ok = check_attr_names(m, v) && ok;
	if (!ok)
		return NULL;
	return def->infer(m, v);
}
