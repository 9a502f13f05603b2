/* onnx_ops.c: the operator table, and the mapping of elementwise and
 * shape operators.  Each of these folds when its inputs are known at
 * import (see onnx_fold.c); some (Shape, Equal, Range, ...) exist in a
 * model only to compute shapes, and are mapped only that way. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_impl.h"

#define MAP(fn) \
	static bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, \
	               size_t nout)

/* ------------------------------------------------------------ helpers */

int64_t
onnx_norm_axis(Imp *im, int64_t axis, uint32_t rank, const char *what)
{
	if (axis < -(int64_t)rank || axis >= (int64_t)rank) {
		onnx_fail(im, "%s %lld is out of range for rank %u", what, (long long)axis, rank);
		return -1;
	}
	return axis < 0 ? axis + rank : axis;
}

bool
onnx_known_ints(Imp *im, Val *v, const char *what, int64_t *out, size_t max, size_t *n)
{
	if (!v || !v->k)
		return onnx_fail(im, "%s must be known at import (a constant, an initializer or "
		                 "computed from them)", what), false;
	if (elem_is_float(v->kind) || v->rank > 1)
		return onnx_fail(im, "%s must be integers of rank 0 or 1", what), false;
	if ((size_t)v->k->numel > max)
		return onnx_fail(im, "%s has %lld values, more than %zu", what, (long long)v->k->numel,
		                 max), false;
	for (int64_t i = 0; i < v->k->numel; i++)
		out[i] = tensor_get_int(v->k, i);
	*n = (size_t)v->k->numel;
	return true;
}

static bool
dims_eq(uint32_t ra, const int64_t *a, uint32_t rb, const int64_t *b)
{
	return ra == rb && (ra == 0 || memcmp(a, b, ra * sizeof *a) == 0);
}

/* The binary operators the IR has (the others are folded only), and the
 * unary ones: by OpId, the registry's (lib/ops). */
static const OpId bin_ir[] = {
	[BIN_ADD] = O_ADD, [BIN_SUB] = O_SUBTRACT, [BIN_MUL] = O_MULTIPLY,
	[BIN_DIV] = O_DIVIDE, [BIN_POW] = O_POWER, [BIN_MAX] = O_MAXIMUM,
	[BIN_MIN] = O_MINIMUM, [BIN_EQ] = O_EQUAL, [BIN_LT] = O_LESS, [BIN_GT] = O_GREATER,
	[BIN_AND] = O_LOGICAL_AND, [BIN_OR] = O_LOGICAL_OR, [BIN_MOD] = O__COUNT,
	[BIN_LE] = O_LESS_EQUAL, [BIN_GE] = O_GREATER_EQUAL, [BIN_XOR] = O_LOGICAL_XOR,
};

static const OpId un_ir[] = {
	[UN_NEG] = O_NEGATIVE, [UN_RELU] = O_RELU, [UN_SIGMOID] = O_SIGMOID,
	[UN_TANH] = O_TANH, [UN_EXP] = O_EXP, [UN_LOG] = O_LOG, [UN_SQRT] = O_SQRT,
	[UN_NOT] = O_LOGICAL_NOT, [UN_ERF] = O_ERF,
	[UN_RECIP] = O__COUNT, [UN_ABS] = O__COUNT, [UN_FLOOR] = O__COUNT, [UN_CEIL] = O__COUNT,
	[UN_ROUND] = O__COUNT, [UN_SIN] = O_SIN, [UN_COS] = O_COS,
	[UN_ASIN] = O_ASIN, [UN_ACOS] = O_ACOS, [UN_ATAN] = O_ATAN,
};

Val *
onnx_op_binary(Imp *im, BinOp op, Val *a, Val *b, const char *hint)
{
	if (!a || !b)
		return NULL;    /* an operand that failed (reported) */
	bool logic = op == BIN_AND || op == BIN_OR || op == BIN_XOR;
	bool cmp = logic || op == BIN_EQ || op == BIN_LT || op == BIN_GT || op == BIN_LE ||
	           op == BIN_GE;
	ElemKind rk = cmp ? ET_BOOL : a->kind;
	uint32_t r;
	int64_t dims[MAX_RANK];
	if (!onnx_bcast_shape(a->rank, a->dims, b->rank, b->dims, &r, dims)) {
		char x[1024], y[1024];
		return onnx_fail(im, "shapes %s and %s do not broadcast",
		                 onnx_type_str(a->kind, a->rank, a->dims, x, sizeof x),
		                 onnx_type_str(b->kind, b->rank, b->dims, y, sizeof y));
	}
	if (a->kind != b->kind && op != BIN_POW)
		return onnx_fail(im, "operands of element types %s and %s", elem_name(a->kind),
		                 elem_name(b->kind));
	if (a->k && b->k) {
		/* ir-run refuses an integer division by zero: so does the import
		 * (every element of the divisor is used unless the result is
		 * empty) */
		if ((op == BIN_DIV || op == BIN_MOD) && !elem_is_float(b->kind) &&
		    onnx_shape_numel(r, dims) > 0)
			for (int64_t i = 0; i < b->k->numel; i++)
				if (tensor_get_int(b->k, i) == 0)
					return onnx_fail(im, "integer %s by zero (element %lld of the divisor)",
					                 op == BIN_DIV ? "division" : "modulo", (long long)i);
		Tensor *t = onnx_fold_binary(im, op, a->k, b->k, rk);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "cannot fold: too large");
	}
	if (bin_ir[op] == O__COUNT)
		return onnx_fail(im, "is supported only on values known at import (shape arithmetic)");
	if (a->kind != b->kind) {
		/* Pow's exponent may have another type: an integer one is cast
		 * to the float base's; an integer base is raised in the float
		 * exponent's type and the result truncated back */
		if (elem_is_float(a->kind) || !elem_is_float(b->kind)) {
			b = onnx_op_cast(im, b, a->kind, b->hint);
		} else {
			Val *af = onnx_op_cast(im, a, b->kind, a->hint);
			Val *p = af ? onnx_op_binary(im, op, af, b, hint) : NULL;
			return onnx_op_cast(im, p, a->kind, hint);
		}
		if (!b)
			return NULL;
	}
	if (a->kind == ET_BOOL && !cmp)
		return onnx_fail(im, "arithmetic on bool tensors");
	if (a->kind != ET_BOOL && logic)
		return onnx_fail(im, "needs bool operands, not %s", elem_name(a->kind));
	return onnx_emit2(im, hint, rk, r, dims, bin_ir[op], a, b, NULL);
}

Val *
onnx_op_unary(Imp *im, UnOp op, Val *a, const char *hint)
{
	if (!a)
		return NULL;
	if (a->k) {
		Tensor *t = onnx_fold_unary(im, op, a->k);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "cannot fold: too large");
	}
	bool fl = elem_is_float(a->kind);
	if ((op == UN_SIGMOID || op == UN_TANH || op == UN_EXP || op == UN_LOG || op == UN_SQRT ||
	     op == UN_RECIP || op == UN_ERF || op == UN_SIN || op == UN_COS ||
	     op == UN_ASIN || op == UN_ACOS || op == UN_ATAN) && !fl)
		return onnx_fail(im, "needs a floating-point operand, not %s", elem_name(a->kind));
	if (a->kind == ET_BOOL && op != UN_NOT)
		return onnx_fail(im, "arithmetic on bool tensors");
	if (op == UN_FLOOR || op == UN_CEIL || op == UN_ROUND)
		return onnx_op_rounding(im, op, a, hint);
	Value *x = onnx_ref(im, a);
	if (op == UN_RECIP) {
		Value *args[2] = {gb_lit_int(&im->b, 1), x};
		return onnx_emit(im, hint, a->kind, a->rank, a->dims, O_DIVIDE, 2, args, NULL);
	}
	if (op == UN_ABS) {
		Val *ng = onnx_emit1(im, hint, a->kind, a->rank, a->dims, O_NEGATIVE, a, NULL);
		return onnx_emit2(im, hint, a->kind, a->rank, a->dims, O_MAXIMUM, a, ng, NULL);
	}
	if (un_ir[op] == O__COUNT)
		return onnx_fail(im, "is supported only on values known at import");
	return onnx_emit1(im, hint, a->kind, a->rank, a->dims, un_ir[op], a, NULL);
}

Val *
onnx_op_reshape(Imp *im, Val *a, uint32_t rank, const int64_t *dims, const char *hint)
{
	if (onnx_shape_numel(rank, dims) != onnx_shape_numel(a->rank, a->dims))
		return onnx_fail(im, "cannot reshape %lld elements into %lld",
		                 (long long)onnx_shape_numel(a->rank, a->dims),
		                 (long long)onnx_shape_numel(rank, dims));
	if (dims_eq(a->rank, a->dims, rank, dims))
		return a;
	if (a->k) {
		Tensor *t = onnx_fold_reshape(a->k, rank, dims);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "cannot fold: too large");
	}
	/* newshape's 0 copies the input's size there: a size 0 is that
	 * where the input has 0 too, else the one -1, inferred from the
	 * element count, 0 */
	int64_t ns[IR_MAX_RANK];
	bool inferred = false;
	for (uint32_t i = 0; i < rank; i++) {
		ns[i] = dims[i];
		if (dims[i] || (i < a->rank && a->dims[i] == 0))
			continue;
		if (inferred)
			return onnx_fail(im, "cannot reshape into two sizes 0 where the input has other "
			                 "sizes: the IR's newshape infers one (-1), not two");
		ns[i] = -1;
		inferred = true;
	}
	return onnx_emit1(im, hint, a->kind, rank, dims, O_RESHAPE, a,
	                  ATTRS(im, {"newshape", onnx_ints(im, ns, rank)}));
}

Val *
onnx_op_transpose(Imp *im, Val *a, const int64_t *perm, const char *hint)
{
	int64_t dims[MAX_RANK];
	bool ident = true;
	for (uint32_t i = 0; i < a->rank; i++) {
		dims[i] = a->dims[perm[i]];
		ident = ident && perm[i] == i;
	}
	if (ident)
		return a;
	if (a->k) {
		Tensor *t = onnx_fold_transpose(im, a->k, perm);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "cannot fold: too large");
	}
	return onnx_emit1(im, hint, a->kind, a->rank, dims, O_TRANSPOSE, a,
	                  ATTRS(im, {"axes", onnx_ints(im, perm, a->rank)}));
}

/* The parts of a along axis at the increasing cut points cuts[0..ncut),
 * strictly inside the axis, written as one split: field i of the tuple
 * into res[i] where want[i], named after hints[i]. */
static bool
emit_split(Imp *im, Val *a, int64_t axis, const int64_t *cuts, size_t ncut, const bool *want,
           Val **res, const char *const *hints)
{
	char h[96];
	if (ncut > 186)   /* (the limit of the text the importer once wrote) */
		return onnx_fail(im, "splits into too many parts"), false;
	Value *x = onnx_ref(im, a);
	snprintf(h, sizeof h, "%s_parts", hints[0]);
	const char *tn = onnx_take_name(im, h);
	Value *t = gb_op1(&im->b, module_name(im->m, tn, strlen(tn)), O_SPLIT, x,
	                  ATTRS(im, {"axis", gb_int(axis)},
	                        {"indices_or_sections", onnx_ints(im, cuts, ncut)}));
	for (size_t i = 0; i <= ncut; i++) {
		if (!want[i])
			continue;
		res[i] = onnx_proj(im, hints[i], t, (uint32_t)i);
	}
	return true;
}

/* strided_slice of a computed value over n axes, each from start[i] by
 * step[i], count[i] elements (normalized as ONNX's Slice clamps). */
static Val *
strided_slice(Imp *im, Val *a, size_t n, const int64_t *axes, const int64_t *start,
              const int64_t *step, const int64_t *count, const char *hint)
{
	int64_t end[MAX_RANK];
	for (size_t i = 0; i < n; i++) {
		if (count[i] == 0)
			return onnx_fail(im, "an empty slice of a computed value is not supported");
		int64_t d = a->dims[axes[i]];
		/* one past the last element taken; going backward past the
		 * first, an end that clamps to before it */
		end[i] = start[i] + count[i] * step[i];
		if (end[i] < 0)
			end[i] = -d - 1;
	}
	return onnx_emit1(im, hint, a->kind, 0, NULL, O_STRIDED_SLICE, a,
	                  ATTRS(im, {"axes", onnx_ints(im, axes, n)},
	                        {"begin", onnx_ints(im, start, n)}, {"end", onnx_ints(im, end, n)},
	                        {"strides", onnx_ints(im, step, n)}));
}

Val *
onnx_op_slice_axis(Imp *im, Val *a, int64_t axis, int64_t start, int64_t step, int64_t count,
                   const char *hint)
{
	int64_t d = a->dims[axis];
	if (step == 1 && start == 0 && count == d)
		return a;
	if (a->k) {
		int64_t st[MAX_RANK] = {0}, sp[MAX_RANK], ct[MAX_RANK];
		for (uint32_t i = 0; i < a->rank; i++)
			sp[i] = 1, ct[i] = a->dims[i];
		st[axis] = start, sp[axis] = step, ct[axis] = count;
		Tensor *t = onnx_fold_slice(a->k, st, sp, ct);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "cannot fold: too large");
	}
	if (count == 0)
		return onnx_fail(im, "an empty slice of a computed value is not supported");
	if (step != 1) {
		/* the registry's strided_slice; an end before the first element
		 * is written -(d + 1), which it clamps to "before the first" */
		int64_t end = start + step * count, dims[MAX_RANK];
		if (end < 0)
			end = -(d + 1);
		memcpy(dims, a->dims, a->rank * sizeof *dims);
		dims[axis] = count;
		return strided_slice(im, a, 1, &axis, &start, &step, &count, hint);
	}
	/* a slice of steps of 1 is the middle part of a split */
	int64_t cuts[2];
	size_t nc = 0, want = 0;
	if (start > 0) {
		cuts[nc++] = start;
		want = 1;
	}
	if (start + count < d)
		cuts[nc++] = start + count;
	Val *parts[3] = {NULL, NULL, NULL};
	bool wanted[3] = {false, false, false};
	const char *hints[3] = {hint, hint, hint};
	wanted[want] = true;
	if (!emit_split(im, a, axis, cuts, nc, wanted, parts, hints))
		return NULL;
	return parts[want];
}

/* ------------------------------------------------------------ elementwise */

/* Opset 6's binary operators broadcast only when broadcast=1: B's shape
 * then lies within A's, from axis (given) or at its end (numpy's rule);
 * else the shapes are equal.  B gains trailing ones to broadcast by
 * numpy's rule. */
static bool
legacy_broadcast(Imp *im, const Onnx__NodeProto *n, Val **in)
{
	Val *a = in[0], *b = in[1];
	char x[1024], y[1024];
	if (!onnx_attr_int(n, "broadcast", 0)) {
		if (a->rank == b->rank && memcmp(a->dims, b->dims, a->rank * sizeof *a->dims) == 0)
			return true;
		return onnx_fail(im, "shapes %s and %s differ, and broadcast is 0 (opset %lld)",
		                 onnx_type_str(a->kind, a->rank, a->dims, x, sizeof x),
		                 onnx_type_str(b->kind, b->rank, b->dims, y, sizeof y),
		                 (long long)im->opset), false;
	}
	const Onnx__AttributeProto *ax = onnx_attr(n, "axis");
	if (!ax)
		return true;
	int64_t axis = ax->i < 0 ? ax->i + a->rank : ax->i;
	if (axis < 0 || axis + (int64_t)b->rank > (int64_t)a->rank)
		return onnx_fail(im, "axis %lld does not place %s within %s", (long long)ax->i,
		                 onnx_type_str(b->kind, b->rank, b->dims, y, sizeof y),
		                 onnx_type_str(a->kind, a->rank, a->dims, x, sizeof x)), false;
	uint32_t r = a->rank - (uint32_t)axis;
	int64_t d[MAX_RANK];
	for (uint32_t i = 0; i < r; i++)
		d[i] = i < b->rank ? b->dims[i] : 1;
	return (in[1] = onnx_op_reshape(im, b, r, d, "b_aligned")) != NULL;
}

/* The attributes by which opset 6's forms differ from opset 7's, where
 * the import cannot follow them: training modes. */
bool
onnx_legacy_ok(Imp *im, const Onnx__NodeProto *n)
{
	const char *op = n->op_type;
	if ((strcmp(op, "BatchNormalization") == 0 || strcmp(op, "Dropout") == 0) &&
	    !onnx_attr_int(n, "is_test", 0))
		return onnx_fail(im, "is_test=0 (training, opset %lld) is not supported",
		                 (long long)im->opset), false;
	if (strcmp(op, "BatchNormalization") == 0 && onnx_attr_int(n, "spatial", 1) != 1)
		return onnx_fail(im, "spatial=0 is not supported"), false;
	return true;
}

MAP(map_binary)
{
	(void)nout;
	if (nin < 1 || !in[0])
		return onnx_fail(im, "needs an input"), false;
	if (im->opset < 7 && nin == 2 && in[1] && !legacy_broadcast(im, n, in))
		return false;
	BinOp op = (BinOp)im->op->arg;
	Val *acc = in[0];
	if (nin == 1)
		return out[0] = acc, true;   /* Max, Min, Sum of one */
	for (size_t i = 1; i < nin && acc; i++) {
		if (!in[i])
			return onnx_fail(im, "input %zu is missing", i), false;
		acc = onnx_op_binary(im, op, acc, in[i], onnx_out_hint(im, 0));
	}
	return (out[0] = acc) != NULL;
}

MAP(map_unary)
{
	(void)n, (void)nin, (void)nout;
	return (out[0] = onnx_op_unary(im, (UnOp)im->op->arg, in[0], onnx_out_hint(im, 0))) != NULL;
}

MAP(map_identity)
{
	(void)im, (void)n, (void)nin;
	/* Dropout's mask in inference keeps every element: trues, known at
	 * import (torch.onnx writes it for swin's attention, unused) */
	if (nout > 1 && strcmp(n->op_type, "Dropout") == 0 && n->output[1] && *n->output[1]) {
		Tensor *m = onnx_fold_new(ET_BOOL, in[0]->rank, in[0]->dims);
		if (!m)
			return onnx_fail(im, "its mask is too large to compute at import"), false;
		for (int64_t i = 0; i < m->numel; i++)
			tensor_set_int(m, i, 1);
		if (!(out[1] = onnx_val_known(im, onnx_out_hint(im, 1), m)))
			return false;
	}
	/* From opset 12 training_mode is an input: true drops at random,
	 * which inference cannot do, unless the ratio is 0. */
	if (strcmp(n->op_type, "Dropout") == 0 && nin > 2 && in[2]) {
		bool train = !in[2]->k || in[2]->k->numel != 1 || tensor_get(in[2]->k, 0) != 0;
		bool drops = nin < 2 || !in[1] || !in[1]->k || in[1]->k->numel != 1 ||
		             tensor_get(in[1]->k, 0) != 0;
		if (train && drops)
			return onnx_fail(im, "training mode (a random mask) is not supported"), false;
	}
	out[0] = in[0];
	return true;
}

MAP(map_clip)
{
	(void)nout;
	Val *x = in[0];
	double lo, hi;
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "Clip of bool tensors is not supported"), false;
	if (elem_is_float(x->kind)) {
		lo = -elem_float_max(x->kind);
		hi = elem_float_max(x->kind);
	} else {
		int64_t l;
		uint64_t h;
		elem_int_range(x->kind, &l, &h);
		lo = (double)l;
		hi = (double)h;
	}
	if (im->opset < 11) {
		lo = onnx_attr_float(n, "min", lo);
		hi = onnx_attr_float(n, "max", hi);
	} else {
		for (size_t i = 1; i < 3 && i < nin; i++) {
			if (!in[i])
				continue;
			if (!in[i]->k || in[i]->k->numel != 1)
				return onnx_fail(im, "its %s must be a scalar known at import",
				                 i == 1 ? "min" : "max"), false;
			*(i == 1 ? &lo : &hi) = tensor_get(in[i]->k, 0);
		}
	}
	if (x->k) {
		Tensor *t = tensor_copy(x->k);
		for (int64_t i = 0; i < t->numel; i++) {
			double v = tensor_get(t, i);
			tensor_set(t, i, v < lo ? lo : v > hi ? hi : v);
		}
		return (out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t)) != NULL;
	}
	if (lo > hi)
		return onnx_fail(im, "min %g is above max %g", lo, hi), false;
	out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, x->rank, x->dims, O_CLIP, x,
	                    ATTRS(im, {"a_max", onnx_num(hi)}, {"a_min", onnx_num(lo)}));
	return true;
}

/* HardSigmoid (alpha, beta) and HardSwish (ONNX's 1/6 and 1/2): the IR's
 * hard_sigmoid and hard_swish, whose alpha and beta defaults are ONNX's. */
MAP(map_hard_sigmoid)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	bool swish = strcmp(n->op_type, "HardSwish") == 0;
	double alpha = swish ? 1.0 / 6 : onnx_attr_float(n, "alpha", 0.2);
	double beta = swish ? 0.5 : onnx_attr_float(n, "beta", 0.5);
	if (!elem_is_float(x->kind))
		return onnx_fail(im, "needs a floating-point operand, not %s", elem_name(x->kind)), false;
	if (!isfinite(alpha) || !isfinite(beta))
		return onnx_fail(im, "alpha %g and beta %g must be finite", alpha, beta), false;
	if (x->k) {
		Tensor *t = tensor_copy(x->k);
		for (int64_t i = 0; i < t->numel; i++) {
			double v = tensor_get(t, i), h = alpha * v + beta;
			h = h < 0 ? 0.0 : h > 1 ? 1.0 : h;
			tensor_set(t, i, swish ? v * h : h);
		}
		return (out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t)) != NULL;
	}
	if (swish)
		out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, x->rank, x->dims, O_HARD_SWISH, x,
		                    NULL);
	else
		out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, x->rank, x->dims, O_HARD_SIGMOID,
		                    x, ATTRS(im, {"alpha", onnx_num(alpha)}, {"beta", onnx_num(beta)}));
	return out[0] != NULL;
}

MAP(map_cast)
{
	(void)nout;
	ElemKind k;
	int64_t to = onnx_attr_int(n, "to", 0);
	if (strcmp(n->op_type, "CastLike") == 0) {
		/* the element type of its second input */
		if (nin < 2 || !in[1])
			return onnx_fail(im, "needs the value whose type it takes"), false;
		k = in[1]->kind;
	} else if (to < 0 || to > INT32_MAX || !onnx_elem((int32_t)to, &k)) {
		return onnx_fail(im, "casts to %s, which the IR does not have",
		                 onnx_type_name(to < 0 || to > INT32_MAX ? 0 : (int32_t)to)), false;
	}
	return (out[0] = onnx_op_cast(im, in[0], k, onnx_out_hint(im, 0))) != NULL;
}

Val *
onnx_op_cast(Imp *im, Val *x, ElemKind k, const char *hint)
{
	if (!x)
		return NULL;
	if (x->kind == k)
		return x;
	if (x->k) {
		Tensor *t = onnx_fold_cast(im, x->k, k);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "cannot fold: too large");
	}
	return onnx_emit1(im, hint, k, x->rank, x->dims, O_CAST, x,
	                  ATTRS(im, {"dtype", gb_str(im->m, elem_name(k))}));
}

Val *
onnx_scalar(Imp *im, ElemKind k, double v)
{
	Tensor *t = tensor_new(k, 0, NULL);
	tensor_set(t, 0, v);
	return onnx_val_known(im, "k", t);
}

/* ------------------------------------------------------------ constants */

MAP(map_constant)
{
	(void)in, (void)nin, (void)nout;
	const Onnx__AttributeProto *a;
	Tensor *t = NULL;
	if ((a = onnx_attr(n, "value")) && a->t) {
		t = onnx_tensor(im, a->t, "its value");
		if (!t)
			return false;
	} else if ((a = onnx_attr(n, "value_float")) && a->has_f) {
		t = tensor_new(ET_F32, 0, NULL);
		tensor_set(t, 0, a->f);
	} else if ((a = onnx_attr(n, "value_int")) && a->has_i) {
		t = tensor_new(ET_I64, 0, NULL);
		tensor_set_int(t, 0, a->i);
	} else if ((a = onnx_attr(n, "value_floats"))) {
		int64_t d = (int64_t)a->n_floats;
		t = tensor_new(ET_F32, 1, &d);
		for (size_t i = 0; i < a->n_floats; i++)
			tensor_set(t, (int64_t)i, a->floats[i]);
	} else if ((a = onnx_attr(n, "value_ints"))) {
		int64_t d = (int64_t)a->n_ints;
		t = tensor_new(ET_I64, 1, &d);
		for (size_t i = 0; i < a->n_ints; i++)
			tensor_set_int(t, (int64_t)i, a->ints[i]);
	} else {
		return onnx_fail(im, "only value, value_float(s) and value_int(s) are supported"), false;
	}
	out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t);
	return true;
}

MAP(map_constant_of_shape)
{
	(void)nin, (void)nout;
	int64_t dims[MAX_RANK];
	size_t r;
	if (!onnx_known_ints(im, in[0], "its shape", dims, MAX_RANK, &r))
		return false;
	for (size_t i = 0; i < r; i++)
		if (dims[i] < 0 || dims[i] > ((int64_t)1 << 40))
			return onnx_fail(im, "dimension %lld in its shape", (long long)dims[i]), false;
	const Onnx__AttributeProto *a = onnx_attr(n, "value");
	ElemKind k = ET_F32;
	double v = 0;
	int64_t vi = 0;
	if (a && a->t) {
		Tensor *vt = onnx_tensor(im, a->t, "its value");
		if (!vt)
			return false;
		if (vt->numel != 1) {
			tensor_free(vt);
			return onnx_fail(im, "its value must have one element"), false;
		}
		k = vt->kind;
		v = tensor_get(vt, 0);
		vi = tensor_get_int(vt, 0);
		tensor_free(vt);
	}
	Tensor *t = onnx_fold_new(k, (uint32_t)r, dims);
	if (!t)
		return onnx_fail(im, "too large to compute at import"), false;
	for (int64_t i = 0; i < t->numel; i++) {
		if (elem_is_float(k))
			tensor_set(t, i, v);
		else
			tensor_set_int(t, i, vi);
	}
	out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t);
	return true;
}

MAP(map_range)
{
	(void)n, (void)nin, (void)nout;
	for (int i = 0; i < 3; i++)
		if (!in[i]->k || in[i]->k->numel != 1)
			return onnx_fail(im, "start, limit and delta must be scalars known at import"), false;
	ElemKind k = in[0]->kind;
	double s = tensor_get(in[0]->k, 0), l = tensor_get(in[1]->k, 0), d = tensor_get(in[2]->k, 0);
	if (d == 0)
		return onnx_fail(im, "delta is 0"), false;
	double cnt = ceil((l - s) / d);
	if (!(cnt < (double)((int64_t)1 << 32)))
		return onnx_fail(im, "too many elements"), false;
	int64_t c = cnt > 0 ? (int64_t)cnt : 0;
	Tensor *t = onnx_fold_new(k, 1, &c);
	if (!t)
		return onnx_fail(im, "too large to compute at import"), false;
	for (int64_t i = 0; i < c; i++) {
		if (elem_is_float(k))
			tensor_set(t, i, s + (double)i * d);
		else
			tensor_set_int(t, i, (int64_t)((uint64_t)tensor_get_int(in[0]->k, 0) +
			                              (uint64_t)i * (uint64_t)tensor_get_int(in[2]->k, 0)));
	}
	out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t);
	return true;
}

Val *
onnx_op_where(Imp *im, Val *c, Val *a, Val *b, const char *hint)
{
	if (!c || !a || !b)
		return NULL;    /* an operand that failed (reported) */
	if (c->k && a->k && b->k) {
		Tensor *t = onnx_fold_where(im, c->k, a->k, b->k);
		return t ? onnx_val_known(im, hint, t) : onnx_fail(im, "shapes do not broadcast");
	}
	/* the registry's where: the three broadcast together */
	uint32_t r1, r;
	int64_t d1[MAX_RANK], dims[MAX_RANK];
	if (!onnx_bcast_shape(c->rank, c->dims, a->rank, a->dims, &r1, d1) ||
	    !onnx_bcast_shape(r1, d1, b->rank, b->dims, &r, dims))
		return onnx_fail(im, "shapes do not broadcast");
	if (c->kind != ET_BOOL || a->kind != b->kind)
		return onnx_fail(im, "needs a bool condition and x and y of one element type");
	Value *cxy[3] = {onnx_ref(im, c), onnx_ref(im, a), onnx_ref(im, b)};
	return onnx_emit(im, hint, a->kind, r, dims, O_WHERE, 3, cxy, NULL);
}

MAP(map_where)
{
	(void)n, (void)nin, (void)nout;
	return (out[0] = onnx_op_where(im, in[0], in[1], in[2], onnx_out_hint(im, 0))) != NULL;
}

/* ------------------------------------------------------------ shapes */

MAP(map_shape)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	int64_t r = x->rank, s = 0, e = r;
	if (im->opset >= 15) {
		s = onnx_attr_int(n, "start", 0);
		e = onnx_attr_int(n, "end", r);
		s = s < 0 ? s + r : s;
		e = e < 0 ? e + r : e;
		s = s < 0 ? 0 : s > r ? r : s;
		e = e < 0 ? 0 : e > r ? r : e;
	}
	int64_t c = e > s ? e - s : 0;
	Tensor *t = tensor_new(ET_I64, 1, &c);
	for (int64_t i = 0; i < c; i++)
		tensor_set_int(t, i, x->dims[s + i]);
	out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t);
	return true;
}

MAP(map_size)
{
	(void)n, (void)nin, (void)nout;
	Tensor *t = tensor_new(ET_I64, 0, NULL);
	tensor_set_int(t, 0, onnx_shape_numel(in[0]->rank, in[0]->dims));
	out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t);
	return true;
}

MAP(map_gather)
{
	(void)nin, (void)nout;
	Val *x = in[0], *ix = in[1];
	if (x->rank == 0)
		return onnx_fail(im, "gathers from a scalar"), false;
	int64_t axis = onnx_norm_axis(im, onnx_attr_int(n, "axis", 0), x->rank, "axis");
	if (axis < 0)
		return false;
	if (elem_is_float(ix->kind) || ix->kind == ET_BOOL)
		return onnx_fail(im, "its indices must be integers"), false;
	if (!ix->k)
		return (out[0] = onnx_gather_computed(im, x, axis, ix, onnx_out_hint(im, 0))) != NULL;
	int64_t d = x->dims[axis];
	for (int64_t i = 0; i < ix->k->numel; i++) {
		int64_t k = tensor_get_int(ix->k, i);
		if (k < -d || k >= d)
			return onnx_fail(im, "index %lld is out of range for an axis of %lld", (long long)k,
			                 (long long)d), false;
	}
	if (x->k) {
		Tensor *t = onnx_fold_gather(x->k, axis, ix->k);
		return (out[0] = t ? onnx_val_known(im, onnx_out_hint(im, 0), t) : NULL) != NULL;
	}
	/* a computed value: scalar indices, and runs of consecutive ones, are
	 * slices */
	int64_t first = ix->k->numel ? tensor_get_int(ix->k, 0) : 0;
	first = first < 0 ? first + d : first;
	for (int64_t i = 1; i < ix->k->numel; i++) {
		int64_t k = tensor_get_int(ix->k, i);
		if ((k < 0 ? k + d : k) != first + i)
			return (out[0] = onnx_gather_computed(im, x, axis, ix, onnx_out_hint(im, 0))) != NULL;
	}
	if (ix->rank > 1 || ix->k->numel == 0)
		return (out[0] = onnx_gather_computed(im, x, axis, ix, onnx_out_hint(im, 0))) != NULL;
	Val *s = onnx_op_slice_axis(im, x, axis, first, 1, ix->rank ? ix->k->numel : 1,
	                            onnx_out_hint(im, 0));
	if (!s)
		return false;
	if (ix->rank == 0) {
		int64_t dims[MAX_RANK];
		uint32_t r = 0;
		for (uint32_t i = 0; i < x->rank; i++)
			if (i != axis)
				dims[r++] = x->dims[i];
		s = onnx_op_reshape(im, s, r, dims, onnx_out_hint(im, 0));
	}
	return (out[0] = s) != NULL;
}

/* The axes of Unsqueeze or Squeeze: the attribute before opset 13, the
 * input from it. */
static bool
axes_of(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, int64_t *axes, size_t *na,
        bool *given)
{
	*given = true;
	if (im->opset < 13) {
		long c = onnx_attr_ints(n, "axes", axes, MAX_RANK);
		if (c > MAX_RANK)
			return onnx_fail(im, "too many axes"), false;
		*given = c >= 0;
		*na = c < 0 ? 0 : (size_t)c;
		return true;
	}
	if (nin < 2 || !in[1]) {
		*given = false;
		*na = 0;
		return true;
	}
	return onnx_known_ints(im, in[1], "its axes", axes, MAX_RANK, na);
}

MAP(map_unsqueeze)
{
	(void)nout;
	int64_t axes[MAX_RANK], dims[MAX_RANK];
	size_t na;
	bool given;
	if (!axes_of(im, n, in, nin, axes, &na, &given))
		return false;
	Val *x = in[0];
	uint32_t r = x->rank + (uint32_t)na;
	if (!given || r > MAX_RANK)
		return onnx_fail(im, "needs axes, and at most rank %d", MAX_RANK), false;
	bool ins[MAX_RANK] = {false};
	for (size_t i = 0; i < na; i++) {
		int64_t a = onnx_norm_axis(im, axes[i], r, "axis");
		if (a < 0)
			return false;
		if (ins[a])
			return onnx_fail(im, "axis %lld is repeated", (long long)axes[i]), false;
		ins[a] = true;
	}
	for (uint32_t i = 0, j = 0; i < r; i++)
		dims[i] = ins[i] ? 1 : x->dims[j++];
	return (out[0] = onnx_op_reshape(im, x, r, dims, onnx_out_hint(im, 0))) != NULL;
}

MAP(map_squeeze)
{
	(void)nout;
	int64_t axes[MAX_RANK], dims[MAX_RANK];
	size_t na;
	bool given;
	if (!axes_of(im, n, in, nin, axes, &na, &given))
		return false;
	Val *x = in[0];
	bool drop[MAX_RANK] = {false};
	for (size_t i = 0; i < na; i++) {
		int64_t a = onnx_norm_axis(im, axes[i], x->rank, "axis");
		if (a < 0)
			return false;
		if (x->dims[a] != 1)
			return onnx_fail(im, "axis %lld has size %lld, not 1", (long long)axes[i],
			                 (long long)x->dims[a]), false;
		drop[a] = true;
	}
	uint32_t r = 0;
	for (uint32_t i = 0; i < x->rank; i++)
		if (!(given ? drop[i] : x->dims[i] == 1))
			dims[r++] = x->dims[i];
	return (out[0] = onnx_op_reshape(im, x, r, dims, onnx_out_hint(im, 0))) != NULL;
}

MAP(map_reshape)
{
	(void)nout;
	int64_t want[MAX_RANK], dims[MAX_RANK];
	size_t r;
	Val *x = in[0];
	if (im->opset < 5) {
		long c = onnx_attr_ints(n, "shape", want, MAX_RANK);
		if (c < 0 || c > MAX_RANK)
			return onnx_fail(im, "needs a shape of rank at most %d", MAX_RANK), false;
		r = (size_t)c;
	} else if (nin < 2 || !onnx_known_ints(im, in[1], "its shape", want, MAX_RANK, &r)) {
		return nin < 2 ? (onnx_fail(im, "needs a shape"), false) : false;
	}
	bool allowzero = onnx_attr_int(n, "allowzero", 0) != 0;
	int64_t known = 1, infer = -1;
	for (size_t i = 0; i < r; i++) {
		dims[i] = want[i];
		if (want[i] == 0 && !allowzero) {
			if (i >= x->rank)
				return onnx_fail(im, "shape entry %zu is 0, but the input has rank %u", i,
				                 x->rank), false;
			dims[i] = x->dims[i];
		} else if (want[i] == -1) {
			if (infer >= 0)
				return onnx_fail(im, "its shape has more than one -1"), false;
			infer = (int64_t)i;
			continue;
		} else if (want[i] < 0) {
			return onnx_fail(im, "shape entry %lld", (long long)want[i]), false;
		}
		if (dims[i] > ((int64_t)1 << 40) || __builtin_mul_overflow(known, dims[i], &known) ||
		    known > MAX_NUMEL)
			return onnx_fail(im, "its shape has more than 2^48 elements"), false;
	}
	int64_t total = onnx_shape_numel(x->rank, x->dims);
	if (infer >= 0) {
		if (known == 0 || total % known)
			return onnx_fail(im, "cannot infer the -1 in its shape: %lld elements", (long long)total),
			       false;
		dims[infer] = total / known;
	}
	return (out[0] = onnx_op_reshape(im, x, (uint32_t)r, dims, onnx_out_hint(im, 0))) != NULL;
}

MAP(map_flatten)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	int64_t axis = onnx_attr_int(n, "axis", 1);
	if (axis < -(int64_t)x->rank || axis > (int64_t)x->rank)
		return onnx_fail(im, "axis %lld is out of range for rank %u", (long long)axis, x->rank),
		       false;
	if (axis < 0)
		axis += x->rank;
	int64_t dims[2] = {onnx_shape_numel((uint32_t)axis, x->dims),
	                   onnx_shape_numel(x->rank - (uint32_t)axis, x->dims + axis)};
	return (out[0] = onnx_op_reshape(im, x, 2, dims, onnx_out_hint(im, 0))) != NULL;
}

MAP(map_transpose)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	int64_t perm[MAX_RANK];
	long c = onnx_attr_ints(n, "perm", perm, MAX_RANK);
	if (c < 0) {
		for (uint32_t i = 0; i < x->rank; i++)
			perm[i] = x->rank - 1 - i;
	} else {
		bool seen[MAX_RANK] = {false};
		if ((uint32_t)c != x->rank)
			return onnx_fail(im, "perm has %ld entries for rank %u", c, x->rank), false;
		for (uint32_t i = 0; i < x->rank; i++) {
			if (perm[i] < 0 || perm[i] >= x->rank || seen[perm[i]])
				return onnx_fail(im, "perm is not a permutation of the axes"), false;
			seen[perm[i]] = true;
		}
	}
	return (out[0] = onnx_op_transpose(im, x, perm, onnx_out_hint(im, 0))) != NULL;
}

MAP(map_concat)
{
	(void)nout;
	if (nin == 0 || !in[0])
		return onnx_fail(im, "needs inputs"), false;
	Val *f = in[0];
	if (!onnx_attr(n, "axis"))
		return onnx_fail(im, "needs an axis"), false;
	int64_t axis = onnx_norm_axis(im, onnx_attr_int(n, "axis", 0), f->rank, "axis");
	if (axis < 0)
		return false;
	bool all = true;
	int64_t dims[MAX_RANK];
	memcpy(dims, f->dims, f->rank * sizeof *dims);
	dims[axis] = 0;
	for (size_t i = 0; i < nin; i++) {
		Val *v = in[i];
		if (!v)
			return onnx_fail(im, "input %zu is missing", i), false;
		if (v->rank != f->rank || v->kind != f->kind)
			return onnx_fail(im, "input %zu has another rank or element type", i), false;
		for (uint32_t d = 0; d < f->rank; d++)
			if (d != axis && v->dims[d] != f->dims[d])
				return onnx_fail(im, "input %zu differs in size on axis %u", i, d), false;
		dims[axis] += v->dims[axis];
		all = all && v->k;
	}
	if (all) {
		const Tensor **ts = xmalloc(nin * sizeof *ts);
		for (size_t i = 0; i < nin; i++)
			ts[i] = in[i]->k;
		Tensor *t = onnx_fold_concat(im, ts, nin, axis);
		free(ts);
		return (out[0] = t ? onnx_val_known(im, onnx_out_hint(im, 0), t) : NULL) != NULL;
	}
	if (nin == 1)
		return out[0] = f, true;
	/* the operands first (constants among them are written here) */
	Value **refs = xmalloc(nin * sizeof *refs);
	for (size_t i = 0; i < nin; i++)
		refs[i] = onnx_ref(im, in[i]);
	char h[96];
	snprintf(h, sizeof h, "%s_in", onnx_out_hint(im, 0));
	Value *t = onnx_tuple(im, h, (uint32_t)nin, refs);
	free(refs);
	out[0] = onnx_emit(im, onnx_out_hint(im, 0), f->kind, f->rank, dims, O_CONCATENATE, 1, &t,
	                   ATTRS(im, {"axis", gb_int(axis)}));
	return true;
}

/* ONNX's clamping of one axis of a Slice: the first index and the count
 * (step is not 0 and not INT64_MIN). */
static void
slice_range(int64_t d, int64_t s, int64_t e, int64_t step, int64_t *start, int64_t *count)
{
	if (s < 0)
		s = s < -d ? 0 : s + d;
	if (e < 0)
		e = e < -d ? -1 : e + d;
	if (step > 0) {
		s = s > d ? d : s;
		e = e < 0 ? 0 : e > d ? d : e;
		*count = e > s ? (e - s - 1) / step + 1 : 0;
	} else {
		s = s > d - 1 ? d - 1 : s;
		e = e > d - 1 ? d - 1 : e;
		*count = s > e ? (s - e - 1) / (-step) + 1 : 0;
	}
	*start = s;
}

MAP(map_slice)
{
	(void)nout;
	Val *x = in[0];
	int64_t st[MAX_RANK * 2], en[MAX_RANK * 2], ax[MAX_RANK * 2], sp[MAX_RANK * 2];
	size_t ns, ne, na, np;
	if (im->opset < 10) {
		long a = onnx_attr_ints(n, "starts", st, MAX_RANK), b = onnx_attr_ints(n, "ends", en, MAX_RANK);
		long c = onnx_attr_ints(n, "axes", ax, MAX_RANK);
		if (a < 0 || b < 0 || a > MAX_RANK || b > MAX_RANK || c > MAX_RANK)
			return onnx_fail(im, "needs starts and ends"), false;
		ns = (size_t)a, ne = (size_t)b, na = c < 0 ? SIZE_MAX : (size_t)c, np = SIZE_MAX;
	} else {
		if (nin < 3 || !onnx_known_ints(im, in[1], "its starts", st, MAX_RANK, &ns) ||
		    !onnx_known_ints(im, in[2], "its ends", en, MAX_RANK, &ne))
			return nin < 3 ? (onnx_fail(im, "needs starts and ends"), false) : false;
		na = np = SIZE_MAX;
		if (nin > 3 && in[3] && !onnx_known_ints(im, in[3], "its axes", ax, MAX_RANK, &na))
			return false;
		if (nin > 4 && in[4] && !onnx_known_ints(im, in[4], "its steps", sp, MAX_RANK, &np))
			return false;
	}
	if (na == SIZE_MAX)
		for (na = 0; na < ns && na < MAX_RANK; na++)
			ax[na] = (int64_t)na;
	if (np == SIZE_MAX)
		for (np = 0; np < ns; np++)
			sp[np] = 1;
	if (ns != ne || ns != na || ns != np)
		return onnx_fail(im, "starts, ends, axes and steps differ in length"), false;
	int64_t start[MAX_RANK] = {0}, step[MAX_RANK], count[MAX_RANK];
	bool seen[MAX_RANK] = {false};
	for (uint32_t i = 0; i < x->rank; i++)
		step[i] = 1, count[i] = x->dims[i];
	for (size_t i = 0; i < ns; i++) {
		int64_t a = onnx_norm_axis(im, ax[i], x->rank, "axis");
		if (a < 0)
			return false;
		if (seen[a])
			return onnx_fail(im, "axis %lld is repeated", (long long)ax[i]), false;
		seen[a] = true;
		if (sp[i] == 0 || sp[i] == INT64_MIN)
			return onnx_fail(im, "step %lld", (long long)sp[i]), false;
		step[a] = sp[i];
		slice_range(x->dims[a], st[i], en[i], sp[i], &start[a], &count[a]);
		if (count[a] <= 1)
			step[a] = step[a] > 0 ? 1 : -1;   /* one element: any step takes it */
	}
	if (x->k) {
		Tensor *t = onnx_fold_slice(x->k, start, step, count);
		return (out[0] = t ? onnx_val_known(im, onnx_out_hint(im, 0), t) : NULL) != NULL;
	}
	int64_t axs[MAX_RANK], b[MAX_RANK], sp1[MAX_RANK], ct[MAX_RANK];
	size_t k = 0;
	for (uint32_t a = 0; a < x->rank; a++)
		if (seen[a] && !(step[a] == 1 && start[a] == 0 && count[a] == x->dims[a])) {
			axs[k] = a, b[k] = start[a], sp1[k] = step[a], ct[k] = count[a];
			k++;
		}
	if (!k)
		return out[0] = x, true;
	return (out[0] = strided_slice(im, x, k, axs, b, sp1, ct, onnx_out_hint(im, 0))) != NULL;
}

MAP(map_split)
{
	Val *x = in[0];
	if (x->rank == 0)
		return onnx_fail(im, "splits a scalar"), false;
	int64_t axis = onnx_norm_axis(im, onnx_attr_int(n, "axis", 0), x->rank, "axis");
	if (axis < 0)
		return false;
	if (nout > 65536)
		return onnx_fail(im, "too many outputs"), false;
	int64_t *sz = xmalloc(nout * sizeof *sz);
	size_t ns = 0;
	bool given = false;
	if (im->opset < 13) {
		long c = onnx_attr_ints(n, "split", sz, nout);
		given = c >= 0;
		ns = c < 0 ? 0 : (size_t)c;
	} else if (nin > 1 && in[1]) {
		given = true;
		if (!onnx_known_ints(im, in[1], "its split", sz, nout, &ns)) {
			free(sz);
			return false;
		}
	}
	int64_t d = x->dims[axis];
	if (!given) {
		if (d % (int64_t)nout) {
			free(sz);
			return onnx_fail(im, "an axis of %lld does not split into %zu equal parts",
			                 (long long)d, nout), false;
		}
		for (size_t i = 0; i < nout; i++)
			sz[i] = d / (int64_t)nout;
		ns = nout;
	}
	int64_t sum = 0;
	for (size_t i = 0; i < ns; i++)
		sum += sz[i] < 0 || sz[i] > d ? d + 1 : sz[i];
	if (ns != nout || sum != d) {
		free(sz);
		return onnx_fail(im, "the split sizes do not add up to the axis (%lld) for %zu outputs",
		                 (long long)d, nout), false;
	}
	bool ok = true;
	if (x->k || nout == 1) {
		for (size_t i = 0, at = 0; i < nout && ok; at += (size_t)sz[i], i++)
			ok = (out[i] = onnx_op_slice_axis(im, x, axis, (int64_t)at, 1, sz[i],
			                              onnx_out_hint(im, i))) != NULL;
		free(sz);
		return ok;
	}
	int64_t *cuts = xmalloc(nout * sizeof *cuts);
	bool *want = xmalloc(nout * sizeof *want);
	const char **hints = xmalloc(nout * sizeof *hints);
	int64_t at = 0;
	for (size_t i = 0; i < nout; i++) {
		if (sz[i] == 0)
			ok = false;
		at += sz[i];
		if (i + 1 < nout)
			cuts[i] = at;
		want[i] = true;
		hints[i] = onnx_out_hint(im, i);
	}
	if (!ok)
		onnx_fail(im, "an empty part of a computed value is not supported");
	else
		ok = emit_split(im, x, axis, cuts, nout - 1, want, out, hints);
	free(cuts);
	free(want);
	free(hints);
	free(sz);
	return ok;
}

MAP(map_expand)
{
	(void)n, (void)nout;
	Val *x = in[0];
	int64_t want[MAX_RANK], dims[MAX_RANK];
	size_t r;
	uint32_t ro;
	if (nin < 2 || !onnx_known_ints(im, in[1], "its shape", want, MAX_RANK, &r))
		return nin < 2 ? (onnx_fail(im, "needs a shape"), false) : false;
	if (!onnx_bcast_shape(x->rank, x->dims, (uint32_t)r, want, &ro, dims))
		return onnx_fail(im, "its shape does not broadcast with the input's"), false;
	if (onnx_shape_numel(ro, dims) > MAX_NUMEL)
		return onnx_fail(im, "its result has more than 2^48 elements"), false;
	if (x->k) {
		Tensor *t = onnx_fold_expand(x->k, ro, dims);
		return (out[0] = t ? onnx_val_known(im, onnx_out_hint(im, 0), t) : NULL) != NULL;
	}
	if (dims_eq(x->rank, x->dims, ro, dims))
		return out[0] = x, true;
	/* x + zeros (x or false for bool, as a padding mask torch expands),
	 * the zeros only as large as the axes x broadcasts along */
	int64_t zd[MAX_RANK];
	for (uint32_t i = 0; i < ro; i++) {
		int64_t xd = i < ro - x->rank ? 1 : x->dims[i - (ro - x->rank)];
		zd[i] = xd == dims[i] ? 1 : dims[i];
	}
	Tensor *z = onnx_fold_new(x->kind, ro, zd);
	if (!z)
		return onnx_fail(im, "too large to compute at import"), false;
	Val *zv = onnx_val_known(im, "zeros", z);
	BinOp op = x->kind == ET_BOOL ? BIN_OR : BIN_ADD;
	return (out[0] = onnx_op_binary(im, op, x, zv, onnx_out_hint(im, 0))) != NULL;
}

/* ------------------------------------------------------ pad, argmax */

/* The largest pad: a dimension's largest size, so that the padded size
 * (at most three of them) cannot overflow; onnx_emit refuses a result larger
 * than that. */
#define PAD_MAX ((int64_t)1 << 40)

/* Pad: the registry's nn.pad, its pad_width [before, after] per axis;
 * constant (with the value), edge and reflect modes, no negative pads. */
MAP(map_pad)
{
	(void)nout;
	Val *x = in[0];
	int64_t pads[2 * MAX_RANK], axes[MAX_RANK];
	size_t np = 0, na = 0;
	double value = 0;
	if (im->opset < 11) {
		long c = onnx_attr_ints(n, "pads", pads, 2 * MAX_RANK);
		if (c < 0 || c > 2 * MAX_RANK)
			return onnx_fail(im, "needs its pads"), false;
		np = (size_t)c;
		value = onnx_attr_float(n, "value", 0);
	} else {
		if (nin < 2 || !in[1] || !onnx_known_ints(im, in[1], "its pads", pads, 2 * MAX_RANK, &np))
			return nin < 2 || !in[1] ? (onnx_fail(im, "needs its pads"), false) : false;
		if (nin > 2 && in[2]) {
			if (!in[2]->k || in[2]->k->numel != 1)
				return onnx_fail(im, "its constant_value must be a scalar known at import"), false;
			value = tensor_get(in[2]->k, 0);
		}
		if (nin > 3 && in[3] && !onnx_known_ints(im, in[3], "its axes", axes, MAX_RANK, &na))
			return false;
	}
	char mode[32];
	onnx_attr_str(n, "mode", "constant", mode, sizeof mode);
	if (strcmp(mode, "constant") && strcmp(mode, "edge") && strcmp(mode, "reflect"))
		return onnx_fail(im, "mode \"%s\" is not supported", mode), false;
	/* pads lists the begins of each axis (of axes, when given), then the ends */
	size_t k = na ? na : x->rank;
	if (np != 2 * k)
		return onnx_fail(im, "has %zu pads for %zu axes", np, k), false;
	int64_t w[2 * MAX_RANK] = {0};
	for (size_t i = 0; i < k; i++) {
		int64_t a = na ? onnx_norm_axis(im, axes[i], x->rank, "axis") : (int64_t)i;
		if (a < 0)
			return false;
		if (pads[i] < 0 || pads[k + i] < 0)
			return onnx_fail(im, "negative pads (cropping) are not supported"), false;
		if (pads[i] > PAD_MAX || pads[k + i] > PAD_MAX)
			return onnx_fail(im, "pads of %lld are more than a dimension may be (2^40)",
			                 (long long)(pads[i] > PAD_MAX ? pads[i] : pads[k + i])), false;
		w[2 * a] = pads[i];
		w[2 * a + 1] = pads[k + i];
	}
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "padding bool tensors is not supported"), false;
	Attr width = onnx_ints(im, w, 2 * (size_t)x->rank);
	if (!strcmp(mode, "constant"))
		out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, 0, NULL, O_PAD, x,
		                    ATTRS(im, {"pad_value", onnx_num(value)}, {"pad_width", width}));
	else
		out[0] = onnx_emit1(im, onnx_out_hint(im, 0), x->kind, 0, NULL, O_PAD, x,
		                    ATTRS(im, {"pad_mode", gb_str(im->m, mode)}, {"pad_width", width}));
	return out[0] != NULL;
}

/* ArgMax, ArgMin: the registry's argmax and argmin (an i32 index), cast to
 * ONNX's i64. */
MAP(map_argreduce)
{
	(void)nin, (void)nout;
	Val *x = in[0];
	if (x->kind == ET_BOOL)
		return onnx_fail(im, "needs a number tensor, not bool"), false;
	int64_t a = onnx_norm_axis(im, onnx_attr_int(n, "axis", 0), x->rank, "axis");
	if (a < 0)
		return false;
	bool keep = onnx_attr_int(n, "keepdims", 1) != 0, last = onnx_attr_int(n, "select_last_index", 0) != 0;
	if (x->dims[a] == 0)
		return onnx_fail(im, "an index over an empty axis is not supported"), false;
	Val *i32 = onnx_emit1(im, onnx_out_hint(im, 0), ET_I32, 0, NULL,
	                      strcmp(n->op_type, "ArgMax") == 0 ? O_ARGMAX : O_ARGMIN, x,
	                      ATTRS(im, {"axis", onnx_ints(im, &a, 1)}, {"keepdims", gb_bool(keep)},
	                            {"select_last_index", gb_bool(last)}));
	if (!i32)
		return false;
	out[0] = onnx_emit1(im, onnx_out_hint(im, 0), ET_I64, 0, NULL, O_CAST, i32,
	                    ATTRS(im, {"dtype", gb_str(im->m, "i64")}));
	return out[0] != NULL;
}

/* ------------------------------------------------------------ the table */

static const OpMap ops[] = {
	{"Abs", 6, 1, map_unary, UN_ABS},
	{"Acos", 7, 1, map_unary, UN_ACOS},
	{"Acosh", 9, 1, onnx_map_activation, 0},
	{"Add", 6, 2, map_binary, BIN_ADD},
	{"And", 6, 2, map_binary, BIN_AND},
	{"ArgMax", 1, 1, map_argreduce, 0},
	{"ArgMin", 1, 1, map_argreduce, 0},
	{"Asin", 7, 1, map_unary, UN_ASIN},
	{"Asinh", 9, 1, onnx_map_activation, 0},
	{"Atan", 7, 1, map_unary, UN_ATAN},
	{"Atanh", 9, 1, onnx_map_activation, 0},
	{"AveragePool", 6, 1, onnx_map_avgpool, 0},
	{"BatchNormalization", 6, 5, onnx_map_batchnorm, 0},
	{"BitShift", 11, 2, onnx_map_bitshift, 0},
	{"Cast", 6, 1, map_cast, 0},
	{"CastLike", 15, 2, map_cast, 0},
	{"Ceil", 6, 1, map_unary, UN_CEIL},
	{"Celu", 12, 1, onnx_map_activation, 0},
	{"Clip", 6, 1, map_clip, 0},
	{"Concat", 4, 1, map_concat, 0},
	{"Constant", 1, 0, map_constant, 0},
	{"ConstantOfShape", 9, 1, map_constant_of_shape, 0},
	{"Conv", 1, 2, onnx_map_conv, 0},
	{"ConvTranspose", 1, 2, onnx_map_convtranspose, 0},
	{"Cos", 7, 1, map_unary, UN_COS},
	{"Cosh", 9, 1, onnx_map_activation, 0},
	{"CumSum", 11, 2, onnx_map_cumsum, 0},
	{"DepthToSpace", 1, 1, onnx_map_depth_space, 0},
	{"Div", 6, 2, map_binary, BIN_DIV},
	{"Dropout", 6, 1, map_identity, 0},
	{"Equal", 6, 2, map_binary, BIN_EQ},
	{"Einsum", 12, 1, onnx_map_einsum, 0},
	{"Elu", 1, 1, onnx_map_activation, 0},
	{"Erf", 9, 1, map_unary, UN_ERF},
	{"Exp", 6, 1, map_unary, UN_EXP},
	{"Expand", 8, 2, map_expand, 0},
	{"EyeLike", 9, 1, onnx_map_eyelike, 0},
	{"Flatten", 1, 1, map_flatten, 0},
	{"Floor", 6, 1, map_unary, UN_FLOOR},
	{"Gather", 1, 2, map_gather, 0},
	{"GatherElements", 11, 2, onnx_map_gather_elements, 0},
	{"Gemm", 6, 2, onnx_map_gemm, 0},
	{"GlobalAveragePool", 1, 1, onnx_map_global_pool, 0},
	{"GlobalMaxPool", 1, 1, onnx_map_global_pool, 1},
	{"Greater", 6, 2, map_binary, BIN_GT},
	{"GreaterOrEqual", 12, 2, map_binary, BIN_GE},
	{"HardSigmoid", 6, 1, map_hard_sigmoid, 0},
	{"HardSwish", 14, 1, map_hard_sigmoid, 0},
	{"Hardmax", 1, 1, onnx_map_hardmax, 0},
	{"Identity", 1, 1, map_identity, 0},
	{"InstanceNormalization", 6, 3, onnx_map_instnorm, 0},
	{"IsInf", 10, 1, onnx_map_activation, 0},
	{"IsNaN", 9, 1, onnx_map_activation, 0},
	{"LRN", 1, 1, onnx_map_lrn, 0},
	{"LayerNormalization", 17, 1, onnx_map_layernorm, 0},
	{"LeakyRelu", 1, 1, onnx_map_activation, 0},
	{"Less", 6, 2, map_binary, BIN_LT},
	{"LessOrEqual", 12, 2, map_binary, BIN_LE},
	{"Log", 6, 1, map_unary, UN_LOG},
	{"LogSoftmax", 1, 1, onnx_map_logsoftmax, 0},
	{"MatMul", 1, 2, onnx_map_matmul, 0},
	{"Max", 6, 1, map_binary, BIN_MAX},
	{"MaxPool", 6, 1, onnx_map_maxpool, 0},
	{"Mean", 6, 1, onnx_map_mean, 0},
	{"MeanVarianceNormalization", 9, 1, onnx_map_mvn, 0},
	{"Min", 6, 1, map_binary, BIN_MIN},
	{"Mod", 10, 2, onnx_map_mod, 0},
	{"Mul", 6, 2, map_binary, BIN_MUL},
	{"Neg", 6, 1, map_unary, UN_NEG},
	{"NegativeLogLikelihoodLoss", 12, 2, onnx_map_nll_loss, 0},
	{"Not", 1, 1, map_unary, UN_NOT},
	{"OneHot", 9, 3, onnx_map_onehot, 0},
	{"Or", 6, 2, map_binary, BIN_OR},
	{"PRelu", 6, 2, onnx_map_activation, 0},
	{"Pad", 2, 1, map_pad, 0},
	{"Pow", 6, 2, map_binary, BIN_POW},
	{"Range", 11, 3, map_range, 0},
	{"Reciprocal", 6, 1, map_unary, UN_RECIP},
	{"ReduceL1", 1, 1, onnx_map_reduce, 0},
	{"ReduceL2", 1, 1, onnx_map_reduce, 0},
	{"ReduceLogSum", 1, 1, onnx_map_reduce, 0},
	{"ReduceLogSumExp", 1, 1, onnx_map_reduce, 0},
	{"ReduceMax", 1, 1, onnx_map_reduce, 0},
	{"ReduceMean", 1, 1, onnx_map_reduce, 0},
	{"ReduceMin", 1, 1, onnx_map_reduce, 0},
	{"ReduceProd", 1, 1, onnx_map_reduce, 0},
	{"ReduceSum", 1, 1, onnx_map_reduce, 0},
	{"ReduceSumSquare", 1, 1, onnx_map_reduce, 0},
	{"Relu", 6, 1, map_unary, UN_RELU},
	{"Reshape", 5, 1, map_reshape, 0},
	{"Resize", 11, 1, onnx_map_resize, 0},
	{"Round", 11, 1, map_unary, UN_ROUND},
	{"Scatter", 9, 3, onnx_map_scatter_elements, 0},
	{"ScatterElements", 11, 3, onnx_map_scatter_elements, 0},
	{"ScatterND", 11, 3, onnx_map_scatternd, 0},
	{"Selu", 1, 1, onnx_map_activation, 0},
	{"Shape", 1, 1, map_shape, 0},
	{"Shrink", 9, 1, onnx_map_activation, 0},
	{"Sigmoid", 6, 1, map_unary, UN_SIGMOID},
	{"Sign", 9, 1, onnx_map_activation, 0},
	{"Sin", 7, 1, map_unary, UN_SIN},
	{"Sinh", 9, 1, onnx_map_activation, 0},
	{"Size", 1, 1, map_size, 0},
	{"Slice", 1, 1, map_slice, 0},
	{"Softmax", 1, 1, onnx_map_softmax, 0},
	{"SoftmaxCrossEntropyLoss", 12, 2, onnx_map_sce_loss, 0},
	{"Softplus", 1, 1, onnx_map_activation, 0},
	{"Softsign", 1, 1, onnx_map_activation, 0},
	{"SpaceToDepth", 1, 1, onnx_map_depth_space, 0},
	{"Split", 2, 1, map_split, 0},
	{"Sqrt", 6, 1, map_unary, UN_SQRT},
	{"Squeeze", 1, 1, map_squeeze, 0},
	{"Sub", 6, 2, map_binary, BIN_SUB},
	{"Sum", 6, 1, map_binary, BIN_ADD},
	{"Tan", 7, 1, onnx_map_activation, 0},
	{"Tanh", 6, 1, map_unary, UN_TANH},
	{"ThresholdedRelu", 10, 1, onnx_map_activation, 0},
	{"Tile", 6, 2, onnx_map_tile, 0},
	{"Transpose", 1, 1, map_transpose, 0},
	{"Trilu", 14, 1, onnx_map_trilu, 0},
	{"Unsqueeze", 1, 1, map_unsqueeze, 0},
	{"Upsample", 9, 2, onnx_map_resize, 0},
	{"Where", 9, 3, map_where, 0},
	{"Xor", 1, 2, map_binary, BIN_XOR},
};

const OpMap *
onnx_op_lookup(const char *op, int64_t opset)
{
	if (!op)
		return NULL;
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (strcmp(ops[i].op, op) == 0)
			return opset >= ops[i].since ? &ops[i] : NULL;
	return NULL;
}

int
onnx_op_since(const char *op)
{
	for (size_t i = 0; op && i < sizeof ops / sizeof *ops; i++)
		if (strcmp(ops[i].op, op) == 0)
			return ops[i].since;
	return -1;
}
