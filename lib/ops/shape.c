/* shape.c: shapes, op_shape (a call's shape rule, by ops.def) and the type
 * rules made of the shape rules (op_type, for op_infer).
 */
#include <stdlib.h>
#include <string.h>

#include "ops_impl.h"

/* A call's operands fit a fixed array (where has the most). */
#define MAX_OPERANDS 3
#define OP(id, nm, lo, hi, ...) _Static_assert(hi <= MAX_OPERANDS, nm " has too many operands");
#include "ops.def"
#undef OP
/* Every tensor type's shape fits a Shape. */
_Static_assert(IR_MAX_RANK <= OPS_MAX_RANK, "a rank the IR allows does not fit a Shape");

void
shape_set(Shape *s, DType dt, uint32_t rank, const int64_t *dims)
{
	s->dt = dt;
	s->rank = rank;
	if (rank)
		memcpy(s->dims, dims, rank * sizeof dims[0]);
}

void
shape_of_type(Shape *s, const Type *t)
{
	shape_set(s, t->dt, t->n, t->dims);
}

const char *
shape_text(const Shape *s, char *buf, size_t n)
{
	Type t = {.kind = TY_TENSOR, .dt = s->dt, .tensors = 1, .n = s->rank, .dims = s->dims};
	return type_text(&t, buf, n);
}

bool
op_shape(OpCx *c, const Shape *args, uint32_t nargs, Shape *out)
{
	if (c->id >= O__COUNT) {
		op_error(c, "no such operator");
		return false;
	}
	const OpDef *def = op_def(c->id);
	/* concatenate's tuple arrives as its fields: one or more. */
	bool concat = c->id == O_CONCATENATE;
	uint32_t lo = concat ? 1 : def->min_args, hi = concat ? UINT32_MAX : def->max_args;
	if (nargs < lo || nargs > hi) {
		op_error(c, "%u operand%s given", (unsigned)nargs, nargs == 1 ? "" : "s");
		return false;
	}
	if (!def->shape) {
		op_error(c, "has a result per piece: its shape rule is split_shape");
		return false;
	}
	return def->shape(c, args, nargs, out);
}

/* ------------------------------------------------------------ type rules */

/* concatenate's operand is one tuple of tensors: its fields go to the
 * rule, each checked in the order the rule checks them. */
static const Type *
concatenate_type(Module *m, OpCx *c, const Type *t)
{
	op_axis(c);     /* a bad axis is reported before the operand */
	if (!c->ok)
		return NULL;
	char ts[256];
	if (t->kind != TY_TUPLE || t->n == 0) {
		op_error(c, "takes one non-empty tuple of tensors (TVM style: %%t = (%%a, %%b)), "
		         "not %s", type_text(t, ts, sizeof ts));
		return NULL;
	}
	const Type *f0 = t->fields[0];
	if (f0->kind != TY_TENSOR || f0->n > OPS_MAX_RANK) {
		op_error(c, "field 0 of the tuple has type %s; fields must be tensors of rank at "
		         "most %d", type_text(f0, ts, sizeof ts), OPS_MAX_RANK);
		return NULL;
	}
	/* The fields before the first that is a tuple: the rule checks them
	 * in order, then that one is reported. */
	uint32_t k = 1;
	while (k < t->n && t->fields[k]->kind == TY_TENSOR)
		k++;
	Shape *fs = xmalloc(k * sizeof *fs), out;
	for (uint32_t i = 0; i < k; i++)
		shape_of_type(&fs[i], t->fields[i]);
	bool ok = shape_concatenate(c, fs, k, &out);
	free(fs);
	if (ok && k < t->n) {
		op_error(c, "field %u of the tuple is a tuple %s; fields must be tensors",
		         (unsigned)k, type_text(t->fields[k], ts, sizeof ts));
		ok = false;
	}
	return ok ? type_tensor(m, out.dt, out.rank, out.dims) : NULL;
}

/* split's result is a tuple, a field per piece. */
static const Type *
split_type(Module *m, OpCx *c, const Shape *x)
{
	uint32_t axis;
	int64_t *sizes;
	uint32_t n = split_shape(c, x, &axis, &sizes);
	if (!n)
		return NULL;
	const Type **fields = xmalloc(n * sizeof *fields);
	Shape piece = *x;
	for (uint32_t i = 0; i < n; i++) {
		piece.dims[axis] = sizes[i];
		fields[i] = type_tensor(m, piece.dt, piece.rank, piece.dims);
	}
	const Type *res = type_tuple(m, n, fields);
	free(fields);
	free(sizes);
	return res;
}

const Type *
op_type(Module *m, Value *v)
{
	OpCx c;
	opcx_init(&c, m, v);
	if (c.id == O_CONCATENATE)
		return concatenate_type(m, &c, v->args[0]->type);
	Shape args[MAX_OPERANDS], out;
	for (uint32_t i = 0; i < v->nargs; i++)
		shape_of_type(&args[i], v->args[i]->type);
	if (c.id == O_SPLIT)
		return split_type(m, &c, &args[0]);
	if (!op_shape(&c, args, v->nargs, &out))
		return NULL;
	return type_tensor(m, out.dt, out.rank, out.dims);
}
