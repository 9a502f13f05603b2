/* onnx_norm.c: LayerNormalization (opset 17), as the registry's reductions
 * and arithmetic: torch.onnx writes one node for nn.LayerNorm from opset
 * 17 on (the same arithmetic as nodes before), which the vision
 * transformers and convnext use.
 *
 *   mean = mean(x) over axes axis..rank-1, keepdims
 *   d    = x - mean
 *   inv  = rsqrt(mean(d * d) + epsilon)
 *   y    = d * inv * Scale + B
 *
 * The optional outputs Mean and InvStdDev are mean and inv.  stash_type
 * (the type the statistics are computed in) is taken as x's type: the IR
 * computes each operator in the element type of its operands.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "onnx_impl.h"

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
	const char *h = onnx_out_hint(im, 0);
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
