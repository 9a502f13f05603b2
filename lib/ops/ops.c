/* ops.c: the operator registry and the checks common to every operator.
 *
 * The registry is a constant table made from ops.def, indexed by OpId;
 * op_lookup bisects a copy sorted by name (the parser calls it once per
 * binding).  op_infer checks what all
 * operators share (arity, tuple operands, literal operands, attribute
 * names) and then hands over to the operator's own shape rule in ops_*.c
 * (shape.c's op_type).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_impl.h"
#include "suggest.h"

/* ------------------------------------------------------ attribute names */

static const char *const a_clip[] = {"a_max", "a_min", NULL};
static const char *const a_hard_sigmoid[] = {"alpha", "beta", NULL};
static const char *const a_cast[] = {"dtype", NULL};
static const char *const a_conv2d[] = {
	"channels", "data_layout", "dilation", "groups", "kernel_layout", "kernel_size",
	"out_dtype", "out_layout", "padding", "strides", NULL};
static const char *const a_dense[] = {"out_dtype", "units", "weight_layout", NULL};
static const char *const a_batch_matmul[] = {"out_dtype", "transpose_a", "transpose_b", NULL};
static const char *const a_axis[] = {"axis", NULL};
static const char *const a_layer_norm[] = {"axis", "epsilon", NULL};
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
static const char *const a_argreduce[] = {"axis", "exclude", "keepdims", "select_last_index",
                                          NULL};
static const char *const a_strided_slice[] = {"axes", "begin", "end", "strides", NULL};
static const char *const a_pad[] = {"pad_mode", "pad_value", "pad_width", NULL};

/* ------------------------------------------------------------- registry */

static const OpDef defs[O__COUNT] = {
#define OP(id_, nm, lo, hi, pat, fn, at) \
	[O_##id_] = {.id = O_##id_, .name = nm, .min_args = lo, .max_args = hi, \
	              .pattern = pat, .shape = fn, .attrs = at},
#include "ops.def"
#undef OP
};

const OpDef *
op_def(OpId id)
{
	return &defs[id];
}

/* The registry sorted by name (op_lookup bisects it), made from ops.def
 * the first time it is needed; NULL-terminated for op_all. */
static const OpDef *by_name[O__COUNT + 1];

static int
cmp_def(const void *a, const void *b)
{
	return strcmp((*(const OpDef *const *)a)->name, (*(const OpDef *const *)b)->name);
}

static const OpDef *const *
sorted(void)
{
	if (!by_name[0]) {
		for (size_t i = 0; i < O__COUNT; i++)
			by_name[i] = &defs[i];
		qsort(by_name, O__COUNT, sizeof *by_name, cmp_def);
	}
	return by_name;
}

const OpDef *const *
op_all(void)
{
	return sorted();
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
	const OpDef *const *all_ops = sorted();
	size_t lo = 0, hi = O__COUNT;
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
op_is_view(const OpDef *def)
{
	return def && (def->id == O_RESHAPE || def->id == O_SQUEEZE || def->id == O_EXPAND_DIMS);
}

bool
value_is_view(const Value *v)
{
	return v->kind == VK_BIND && v->form == B_OP && v->u.op->op && op_is_view(v->u.op->op) &&
	       v->nargs == 1 && v->args[0]->kind != VK_LIT && v->type->kind == TY_TENSOR;
}

bool
op_has_attr(const OpDef *def, const char *key)
{
	for (const char *const *a = def->attrs; a && *a; a++)
		if (strcmp(*a, key) == 0)
			return true;
	return false;
}

/* ------------------------------------------------- attribute checks */

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

bool
op_check_attrs(Module *m, const Value *v)
{
	const OpDef *def = v->u.op->op;
	const AttrMap *am = v->u.op->attrs;
	bool ok = true;
	for (uint32_t i = 0; am && i < am->n; i++) {
		const AttrEntry *e = &am->e[i];
		if (op_has_attr(def, e->key))
			continue;
		error_at(m->ctx, e->loc, "unknown attribute '%s' for %s", e->key, def->name);
		Suggest sg;
		suggest_init(&sg, e->key, strlen(e->key));
		for (const char *const *a = def->attrs; a && *a; a++)
			suggest_offer(&sg, *a);
		if (!suggest_note(&sg, m->ctx, e->loc, ""))
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
		if (!elem_float_fits(k, a->u.f)) {
			error_at(m->ctx, a->loc, "%s: float literal is out of the range of %s",
			         v->u.op->op->name, dn);
			return false;
		}
		return true;
	}
	if (elem_is_float(k))
		return true;
	/* Integer literal, integer or bool element: must be representable. */
	if (a->flags & VF_LIT_U64) {
		if (k == ET_U64)
			return true;
		error_at(m->ctx, a->loc, "%s: integer literal %llu is out of the range of %s",
		         v->u.op->op->name, (unsigned long long)a->u.i, dn);
		return false;
	}
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
	/* where's condition is no model for its x and y, nor they for it */
	uint32_t from = v->u.op->op->id == O_WHERE ? 1 : 0;
	for (uint32_t i = from; i < v->nargs && !like; i++) {
		const Value *a = v->args[i];
		if (a->kind != VK_LIT && a->type && a->type->kind == TY_TENSOR)
			like = a->type;
	}
	bool ok = true;
	for (uint32_t i = 0; i < v->nargs; i++) {
		Value *a = v->args[i];
		if (a->kind != VK_LIT)
			continue;
		if (like && i >= from) {
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
		if (a->type->kind == TY_TUPLE && def->id != O_CONCATENATE) {
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
	/* An untyped operand was reported where it was defined. */
	bool typed = true;
	for (uint32_t i = 0; i < v->nargs; i++)
		if (!v->args[i] || (v->args[i]->kind != VK_LIT && !v->args[i]->type))
			typed = false;
	if (!typed || !check_arity(m, v) || !check_operand_kinds(m, v)) {
		op_check_attrs(m, v); /* independent of the operands */
		return NULL;
	}
	bool ok = type_literals(m, v);
	ok = op_check_attrs(m, v) && ok;
	if (!ok)
		return NULL;
	return op_type(m, v);
}
