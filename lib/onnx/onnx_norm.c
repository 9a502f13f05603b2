/* onnx_norm.c: LayerNormalization (opset 17) and torch.onnx's
 * decomposition of nn.LayerNorm before opset 17, as the registry's
 * nn.layer_norm: one row kernel after ir-lower, where the decomposition
 * was four (vit_b_16 and convnext use them).
 *
 * torch.onnx writes, over the last axes (opset 13):
 *
 *   m = ReduceMean(x) {axes, keepdims}     d = Sub(x, m)
 *   p = Pow(d, 2)                          v = ReduceMean(p) {same axes}
 *   s = Sqrt(Add(v, eps))                  y = Div(d, s)
 *   y = Add(Mul(y, gamma), beta)           (with elementwise_affine)
 *
 * The ReduceMean of x is mapped as the whole chain when it matches
 * exactly: each intermediate used only by the next node (d by Pow and
 * Div), exponent 2 and eps known scalars, both reductions over the same
 * trailing axes keeping them, gamma and beta computed before x's mean
 * and of the normalized axes' shape (a missing gamma or beta is one or
 * zero).  The chain's other nodes then take the layer norm as their
 * output (Imp.absorbed).  Anything else is mapped node by node.
 *
 * LayerNormalization whose Scale or B broadcast from a smaller shape, or
 * whose Mean or InvStdDev outputs are read, is mapped as the registry's
 * reductions and arithmetic instead:
 *
 *   mean = mean(x) over axes axis..rank-1, keepdims
 *   d    = x - mean
 *   inv  = rsqrt(mean(d * d) + epsilon)
 *   y    = d * inv * Scale + B
 *
 * stash_type (the type the statistics are computed in) is taken as x's
 * type there; nn.layer_norm computes f16 rows in f32.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx_impl.h"

/* Does w (NULL: absent) have exactly the shape of x's axes from axis, and
 * x's element type? */
static bool
row_shaped(const Val *x, int64_t axis, const Val *w)
{
	uint32_t nr = x->rank - (uint32_t)axis;
	if (!w)
		return true;
	if (w->kind != x->kind || w->rank != nr)
		return false;
	return memcmp(w->dims, x->dims + axis, nr * sizeof *w->dims) == 0;
}

/* nn.layer_norm(x, gamma, beta): an absent gamma is ones, beta zeros,
 * known at import. */
static Val *
layer_norm(Imp *im, Val *x, int64_t axis, double eps, Val *gamma, Val *beta, const char *hint)
{
	Val *gb[2] = {gamma, beta};
	for (int i = 0; i < 2; i++) {
		if (gb[i])
			continue;
		Tensor *t = tensor_new(x->kind, x->rank - (uint32_t)axis, x->dims + axis);
		for (int64_t j = 0; j < t->numel; j++)
			tensor_set(t, j, i ? 0.0 : 1.0);
		gb[i] = onnx_val_known(im, i ? "beta" : "gamma", t);
	}
	Value *args[3] = {onnx_ref(im, x), onnx_ref(im, gb[0]), onnx_ref(im, gb[1])};
	return onnx_emit(im, hint, x->kind, x->rank, x->dims, O_LAYER_NORM, 3, args,
	                 ATTRS(im, {"axis", gb_int(axis)}, {"epsilon", onnx_num(eps)}));
}

/* ------------------------------------------------- LayerNormalization */

/* Are output i and later of n unnamed or read by nothing? */
static bool
outputs_unread(Imp *im, const Onnx__NodeProto *n, size_t i)
{
	for (; i < n->n_output; i++) {
		Name *e = n->output[i] && *n->output[i] ? onnx_name_get(im, n->output[i]) : NULL;
		if (e && (e->uses || e->graph_output))
			return false;
	}
	return true;
}

bool
onnx_map_layernorm(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)
{
	Val *x = in[0], *scale = nin > 1 ? in[1] : NULL, *bias = nin > 2 ? in[2] : NULL;
	if (!elem_is_float(x->kind))
		return onnx_fail(im, "needs a floating-point input, not %s", elem_name(x->kind)), false;
	if (!scale)
		return onnx_fail(im, "needs its Scale input"), false;
	if (x->rank == 0)
		return onnx_fail(im, "needs an input of at least one axis"), false;
	int64_t axis = onnx_norm_axis(im, onnx_attr_int(n, "axis", -1), x->rank, "axis");
	if (axis < 0)
		return false;
	double eps = onnx_attr_float(n, "epsilon", 1e-5);
	if (!isfinite(eps) || eps < 0)
		return onnx_fail(im, "epsilon %g must be a finite number, 0 or more", eps), false;
	const char *h = onnx_out_hint(im, 0);
	if (row_shaped(x, axis, scale) && row_shaped(x, axis, bias) && outputs_unread(im, n, 1)) {
		for (size_t i = 1; i < nout; i++)
			out[i] = x;     /* read by nothing: any value */
		return (out[0] = layer_norm(im, x, axis, eps, scale, bias, h)) != NULL;
	}
	/* Scale and B broadcast to the normalized axes (x's shape from axis) */
	Val *const wb[2] = {scale, bias};
	for (int i = 0; i < 2; i++) {
		Val *w = wb[i];
		if (!w)
			continue;
		if (w->kind != x->kind)
			return onnx_fail(im, "its %s is %s, its input %s", i ? "B" : "Scale", elem_name(w->kind),
			                 elem_name(x->kind)), false;
		uint32_t nr = x->rank - (uint32_t)axis;
		bool ok = w->rank <= nr;
		for (uint32_t k = 0; ok && k < w->rank; k++) {
			int64_t wd = w->dims[w->rank - 1 - k], xd = x->dims[x->rank - 1 - k];
			ok = wd == xd || wd == 1;
		}
		if (!ok)
			return onnx_fail(im, "its %s does not broadcast to the normalized axes %lld..%u of "
			                 "its input", i ? "B" : "Scale", (long long)axis, x->rank - 1), false;
	}
	int64_t axes[MAX_RANK];
	size_t na = 0;
	for (uint32_t i = (uint32_t)axis; i < x->rank; i++)
		axes[na++] = i;
	Val *mean = onnx_emit1(im, nout > 1 && onnx_out_hint(im, 1) ? onnx_out_hint(im, 1) : "mean",
	                       x->kind, 0, NULL, O_MEAN, x,
	                       ATTRS(im, {"axis", onnx_ints(im, axes, na)}, {"keepdims", gb_bool(true)}));
	Val *d = mean ? onnx_op_binary(im, BIN_SUB, x, mean, "centered") : NULL;
	Val *sq = d ? onnx_op_binary(im, BIN_MUL, d, d, "squared") : NULL;
	if (!sq)
		return false;
	Val *var = onnx_emit1(im, "variance", x->kind, 0, NULL, O_MEAN, sq,
	                      ATTRS(im, {"axis", onnx_ints(im, axes, na)}, {"keepdims", gb_bool(true)}));
	if (!var)
		return false;
	Value *va[2] = {onnx_ref(im, var), onnx_lit(im, eps)};
	Val *ve = onnx_emit(im, "variance", x->kind, 0, NULL, O_ADD, 2, va, NULL);
	if (!ve)
		return false;
	Val *inv = onnx_emit1(im, nout > 2 && onnx_out_hint(im, 2) ? onnx_out_hint(im, 2) : "inv_std",
	                      x->kind, 0, NULL, O_RSQRT, ve, NULL);
	Val *y = inv ? onnx_op_binary(im, BIN_MUL, d, inv, "normalized") : NULL;
	if (y)
		y = onnx_op_binary(im, BIN_MUL, y, scale, bias ? "scaled" : h);
	if (y && bias)
		y = onnx_op_binary(im, BIN_ADD, y, bias, h);
	if (!y)
		return false;
	out[0] = y;
	if (nout > 1)
		out[1] = mean;
	if (nout > 2)
		out[2] = inv;
	return true;
}

/* --------------------------------------------- the opset 13 decomposition */

/* Node u, if its op_type is op, it has nin inputs and an output, and its
 * absorbed slot (at idx) is free. */
static const Onnx__NodeProto *
node_is(Imp *im, const Onnx__NodeProto *u, size_t idx, const char *op, size_t nin)
{
	if (!u || !u->op_type || strcmp(u->op_type, op) != 0 || u->n_input != nin ||
	    u->n_output < 1 || !u->output[0] || !*u->output[0] || im->absorbed[idx])
		return NULL;
	return u;
}

/* The node that alone reads name s (see onnx_sole_user), as node_is
 * takes it; its index in *idx. */
static const Onnx__NodeProto *
next_node(Imp *im, const char *s, const char *op, size_t nin, size_t *idx)
{
	const Onnx__NodeProto *u = s ? onnx_sole_user(im, s, idx) : NULL;
	return u ? node_is(im, u, *idx, op, nin) : NULL;
}

static bool
same(const char *a, const char *b)
{
	return a && b && *a && strcmp(a, b) == 0;
}

/* The other input of binary node u, whose input `mine` is one of its two
 * (either side when commutes); NULL if it has no such input. */
static const char *
other_input(const Onnx__NodeProto *u, const char *mine, bool commutes)
{
	if (u->n_input != 2)
		return NULL;
	if (same(u->input[0], mine))
		return u->input[1];
	return commutes && same(u->input[1], mine) ? u->input[0] : NULL;
}

/* The value of name s as a known scalar: bound already, or the output of
 * a Constant node not mapped yet (torch.onnx writes the exponent and eps
 * just before their use, after x's mean).  1 when it is one, 0 when not,
 * -1 when that Constant's value is malformed: reported once, naming the
 * Constant (its own mapping would report it again), and the import stops. */
static int
known_scalar(Imp *im, const char *s, double *v)
{
	Name *e = onnx_name_get(im, s);
	if (!e)
		return 0;
	/* of rank 0 or 1, as the Constant below: a [1,1,1,1] eps would
	 * broadcast the chain's result to rank 4 */
	if (e->val)
		return e->val->k && e->val->k->numel == 1 && e->val->k->rank <= 1 &&
		       elem_is_float(e->val->k->kind) &&
		       (*v = tensor_get(e->val->k, 0), true);
	if (!e->producer)
		return 0;
	const Onnx__NodeProto *c = im->model->graph->node[e->producer - 1];
	if (!c->op_type || strcmp(c->op_type, "Constant") != 0 || c->n_attribute != 1)
		return 0;
	const Onnx__AttributeProto *a = onnx_attr(c, "value");
	if (!a || !a->t || a->t->n_dims > 1 || (a->t->n_dims == 1 && a->t->dims[0] != 1))
		return 0;
	const Onnx__NodeProto *self = im->node;
	size_t self_index = im->node_index;
	im->node = c;
	im->node_index = e->producer - 1;
	Tensor *t = onnx_tensor(im, a->t, "its value");
	im->node = self;
	im->node_index = self_index;
	if (!t)
		return -1;
	bool ok = t->numel == 1 && elem_is_float(t->kind);
	if (ok)
		*v = tensor_get(t, 0);
	tensor_free(t);
	return ok;
}

/* The axes a ReduceMean of a rank-r input reduces, if they are axis..r-1
 * for one axis, with keepdims: that axis, else -1. */
static int64_t
trailing_axes(const Onnx__NodeProto *n, uint32_t r)
{
	int64_t axes[MAX_RANK];
	long c = onnx_attr_ints(n, "axes", axes, MAX_RANK);
	if (onnx_attr_int(n, "keepdims", 1) == 0 || c > (long)r || c == 0 || n->n_input != 1)
		return -1;
	if (c < 0)
		return 0;       /* every axis */
	bool red[MAX_RANK] = {false};
	for (long i = 0; i < c; i++) {
		int64_t a = axes[i] < 0 ? axes[i] + r : axes[i];
		if (a < 0 || a >= (int64_t)r || red[a])
			return -1;
		red[a] = true;
	}
	int64_t axis = (int64_t)r - c;
	for (uint32_t i = 0; i < r; i++)
		if (red[i] != ((int64_t)i >= axis))
			return -1;
	return axis;
}

/* gamma or beta: the value of name s, bound before x's mean, if it is
 * one of the rows' shape. */
static Val *
row_value(Imp *im, const char *s, const Val *x, int64_t axis)
{
	Name *e = onnx_name_get(im, s);
	return e && e->val && row_shaped(x, axis, e->val) ? e->val : NULL;
}

int
onnx_layernorm_chain(Imp *im, const Onnx__NodeProto *n, Val *x, Val **out)
{
	if (!elem_is_float(x->kind) || x->rank == 0 || im->opset >= 18 || n->n_output != 1)
		return 0;
	int64_t axis = trailing_axes(n, x->rank);
	if (axis < 0)
		return 0;
	enum { SUB, POW, VAR, ADD, SQRT, DIV, MUL, BIAS, NCHAIN };
	const Onnx__NodeProto *c[NCHAIN] = {NULL};
	size_t at[NCHAIN];
	const char *xs = n->input[0], *d;
	double two, eps;
	if (!(c[SUB] = next_node(im, n->output[0], "Sub", 2, &at[SUB])) ||
	    !same(c[SUB]->input[0], xs) || !same(c[SUB]->input[1], n->output[0]))
		return 0;
	/* d: read by the Pow, then the Div, and nothing else */
	d = c[SUB]->output[0];
	Name *dn = onnx_name_get(im, d);
	if (!dn || dn->uses != 2 || dn->graph_output || dn->first_user == dn->user)
		return 0;
	at[POW] = dn->first_user;
	if (!(c[POW] = node_is(im, im->model->graph->node[at[POW]], at[POW], "Pow", 2)) ||
	    !same(c[POW]->input[0], d))
		return 0;
	int k = known_scalar(im, c[POW]->input[1], &two);
	if (k <= 0 || two != 2)
		return k;
	if (!(c[VAR] = next_node(im, c[POW]->output[0], "ReduceMean", 1, &at[VAR])) ||
	    trailing_axes(c[VAR], x->rank) != axis ||
	    !(c[ADD] = next_node(im, c[VAR]->output[0], "Add", 2, &at[ADD])))
		return 0;
	const char *es = other_input(c[ADD], c[VAR]->output[0], true);
	if (!es)
		return 0;
	if ((k = known_scalar(im, es, &eps)) < 0)
		return -1;
	if (!k || !isfinite(eps) || eps < 0 ||
	    !(c[SQRT] = next_node(im, c[ADD]->output[0], "Sqrt", 1, &at[SQRT])) ||
	    !(c[DIV] = next_node(im, c[SQRT]->output[0], "Div", 2, &at[DIV])) ||
	    !same(c[DIV]->input[0], d) || !same(c[DIV]->input[1], c[SQRT]->output[0]) ||
	    at[DIV] != dn->user)
		return 0;
	/* then, maybe, times gamma and plus beta */
	int last = DIV;
	Val *gamma = NULL, *beta = NULL;
	if ((c[MUL] = next_node(im, c[DIV]->output[0], "Mul", 2, &at[MUL])) &&
	    (gamma = row_value(im, other_input(c[MUL], c[DIV]->output[0], true), x, axis))) {
		last = MUL;
		if ((c[BIAS] = next_node(im, c[MUL]->output[0], "Add", 2, &at[BIAS])) &&
		    (beta = row_value(im, other_input(c[BIAS], c[MUL]->output[0], true), x, axis)))
			last = BIAS;
	}
	const Onnx__NodeProto *self = im->node;
	im->node = c[last];
	Val *y = layer_norm(im, x, axis, eps, gamma, beta, onnx_out_hint(im, 0));
	im->node = self;
	if (!y)
		return -1;
	for (int i = SUB; i <= last; i++)
		im->absorbed[at[i]] = y;
	*out = y;
	return 1;
}
