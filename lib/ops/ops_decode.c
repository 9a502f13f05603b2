/* ops_decode.c: one decoder per operator family (attrs.h).
 *
 * Each reads every attribute of its family in one order with TVM's
 * defaults, so a type rule reports every bad one in that order, and the
 * reference kernels and lowering read the same values.
 */
#include <math.h>
#include <string.h>

#include "ops_impl.h"

const char *const data_layouts[] = {"NCHW", "NCHW4c", NULL};
const char *const kernel_layouts[] = {"OIHW", "OIHW4o", NULL};

bool
conv2d_attrs(OpCx *c, ConvAttrs *a)
{
	memset(a, 0, sizeof *a);
	a->st[0] = a->st[1] = 1;
	a->dil[0] = a->dil[1] = 1;
	oa_pair(c, "strides", 1, a->st);
	oa_pair(c, "dilation", 1, a->dil);
	oa_pair(c, "kernel_size", 1, a->ks);     /* 0: not given */
	oa_padding(c, "padding", a->pad);
	a->groups = oa_int(c, "groups", 1, 1, INT64_MAX);
	a->channels = oa_int(c, "channels", 0, 1, INT64_MAX);   /* 0: not given */
	a->dl = oa_layout(c, "data_layout", "NCHW", data_layouts);
	a->kl = oa_layout(c, "kernel_layout", "OIHW", kernel_layouts);
	a->ol = oa_layout(c, "out_layout", a->dl ? a->dl->name : "NCHW", data_layouts);
	a->has_out_dt = oa_dtype(c, "out_dtype", &a->out_dt);
	return c->ok;
}

bool
pool2d_attrs(OpCx *c, PoolAttrs *a)
{
	memset(a, 0, sizeof *a);
	a->ps[0] = a->ps[1] = a->st[0] = a->st[1] = a->dil[0] = a->dil[1] = 1;
	bool have = true;
	if (c->id != O_GLOBAL_AVG_POOL2D) {
		have = oa_require(c, "pool_size", "pool_size=[2, 2]");
		oa_pair(c, "pool_size", 1, a->ps);
		oa_pair(c, "strides", 1, a->st);
		oa_pair(c, "dilation", 1, a->dil);
		oa_padding(c, "padding", a->pad);
		a->ceil_mode = oa_bool(c, "ceil_mode", false);
		a->count_include_pad = oa_bool(c, "count_include_pad", false);  /* avg only */
	}
	a->l = oa_layout(c, "layout", "NCHW", data_layouts);
	const Layout *ol = oa_layout(c, "out_layout", a->l ? a->l->name : "NCHW", data_layouts);
	if (!have || !c->ok)
		return false;
	if (ol != a->l) {
		op_error_at(c, oa_loc(c, "out_layout"), "'out_layout' of %s must be the same as "
		            "'layout' (%s)", c->op, a->l->name);
		return false;
	}
	return true;
}

bool
matmul_attrs(OpCx *c, MatmulAttrs *a)
{
	memset(a, 0, sizeof *a);
	if (c->id == O_DENSE) {
		a->units = oa_int(c, "units", 0, 1, INT64_MAX);   /* 0: not given */
	} else {
		a->ta = oa_bool(c, "transpose_a", false);
		a->tb = oa_bool(c, "transpose_b", true);
	}
	a->has_out_dt = oa_dtype(c, "out_dtype", &a->out_dt);
	return c->ok;
}

bool
reduce_attrs(OpCx *c, uint32_t rank, ReduceAttrs *a)
{
	bool mark[OPS_MAX_RANK];
	int r = oa_axes(c, "axis", rank, mark);
	a->keepdims = oa_bool(c, "keepdims", false);
	bool exclude = oa_bool(c, "exclude", false);
	if (r < 0 || !c->ok)
		return false;
	for (uint32_t i = 0; i < rank; i++)
		a->red[i] = r == 0 || mark[i] != exclude;
	return true;
}

int64_t
op_axis(OpCx *c)
{
	int64_t dflt;
	switch (c->id) {
	case O_BIAS_ADD: dflt = 1; break;
	case O_SOFTMAX: dflt = -1; break;
	default: dflt = 0; break;   /* concatenate, split */
	}
	return oa_int(c, "axis", dflt, INT64_MIN, INT64_MAX);
}

bool
clip_attrs(OpCx *c, double *lo, double *hi)
{
	bool have = oa_require(c, "a_min", "a_min=0.0");
	have = oa_require(c, "a_max", "a_max=6.0") && have;
	*lo = oa_num(c, "a_min", 0);
	*hi = oa_num(c, "a_max", 0);
	if (!have || !c->ok)
		return false;
	if (isnan(*lo) || isnan(*hi) || *lo > *hi) {
		op_error_at(c, oa_loc(c, "a_min"), "'a_min' of clip (%g) must not be greater "
		            "than 'a_max' (%g)", *lo, *hi);
		return false;
	}
	return true;
}

bool
transform_attrs(OpCx *c, const Layout **src, const Layout **dst)
{
	bool have = oa_require(c, "src_layout", "src_layout=\"NCHW\"");
	have = oa_require(c, "dst_layout", "dst_layout=\"NCHW4c\"") && have;
	*src = oa_layout(c, "src_layout", "NCHW", layout_names);
	*dst = oa_layout(c, "dst_layout", "NCHW", layout_names);
	return have && c->ok;
}
