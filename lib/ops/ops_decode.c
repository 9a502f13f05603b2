/* ops_decode.c: one decoder per operator family (attrs.h).
 *
 * Each reads every attribute of its family in one order with TVM's
 * defaults, so a type rule reports every bad one in that order, and the
 * reference kernels and lowering read the same values.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_impl.h"

const char *const data_layouts[] = {"NCHW", "NCHW4c", NULL};
/* HWIO: output channels innermost, as ir-lower's cpu conv2d tile reads
 * them (ir-fold-constants writes constant weights so); OIHW16o: panels
 * of 16 output channels, each panel's weights contiguous (what
 * ir-fold-constants writes for a module of cpus only, 16 output
 * channels a tile) */
const char *const kernel_layouts[] = {"OIHW", "OIHW4o", "HWIO", "OIHW16o", NULL};

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

/* nn.dense's weight_layout: 0 for "NC" (the default), n for "NC<n>n"
 * (TVM's dense_pack letters: N units, C features, n the inner part of N;
 * n a decimal without leading zeros, 1 to 65536). */
static int64_t
dense_pack(OpCx *c)
{
	const char *wl = oa_str(c, "weight_layout", "NC");
	if (strcmp(wl, "NC") == 0)
		return 0;
	int64_t n = 0;
	const char *p = wl + 2;
	if (strncmp(wl, "NC", 2) == 0 && *p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9' && n <= 65536)
			n = n * 10 + (*p++ - '0');
		if (n <= 65536 && p[0] == 'n' && p[1] == 0)
			return n;
	}
	op_error_at(c, oa_loc(c, "weight_layout"), "'weight_layout' of %s must be \"NC\" or "
	            "\"NC<n>n\" (n from 1 to 65536), not \"%s\"", c->op, wl);
	return 0;
}

bool
matmul_attrs(OpCx *c, MatmulAttrs *a)
{
	memset(a, 0, sizeof *a);
	if (c->id == O_DENSE) {
		a->units = oa_int(c, "units", 0, 1, INT64_MAX);   /* 0: not given */
		a->pack = dense_pack(c);
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

bool
arg_last_index(OpCx *c)
{
	return oa_bool(c, "select_last_index", false);
}

int64_t
op_axis(OpCx *c)
{
	int64_t dflt;
	switch (c->id) {
	case O_BIAS_ADD: dflt = 1; break;
	case O_SOFTMAX: case O_LAYER_NORM: dflt = -1; break;
	default: dflt = 0; break;   /* concatenate, split */
	}
	return oa_int(c, "axis", dflt, INT64_MIN, INT64_MAX);
}

bool
layer_norm_attrs(OpCx *c, int64_t *axis, double *eps)
{
	*axis = op_axis(c);
	*eps = oa_num(c, "epsilon", 1e-5);
	if (!c->ok)
		return false;
	if (!isfinite(*eps) || *eps < 0) {
		op_error_at(c, oa_loc(c, "epsilon"), "'epsilon' of nn.layer_norm must be a finite "
		            "number, not negative (it is %g)", *eps);
		return false;
	}
	return true;
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
hard_sigmoid_attrs(OpCx *c, double *alpha, double *beta)
{
	*alpha = oa_num(c, "alpha", 0.2);
	*beta = oa_num(c, "beta", 0.5);
	if (!c->ok)
		return false;
	const char *bad = !isfinite(*alpha) ? "alpha" : !isfinite(*beta) ? "beta" : NULL;
	if (bad) {
		op_error_at(c, oa_loc(c, bad), "'%s' of hard_sigmoid must be a finite number", bad);
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

/* One axis of a slice, as ONNX's Slice computes it: a negative index
 * counts from the end once, then begin and end are clamped into the
 * axis ([0, D] going forward; [0, D-1] and [-1, D-1] going backward,
 * where -1 is "before the first"). */
static void
slice_axis(int64_t D, int64_t b, int64_t e, int64_t t, int64_t *first, int64_t *len)
{
	if (b < 0)
		b += D;         /* b >= INT64_MIN and D >= 0: no overflow */
	if (e < 0)
		e += D;
	int64_t lo = t > 0 ? 0 : -1, hi = t > 0 ? D : D - 1;
	b = b < 0 ? 0 : b > hi ? hi : b;
	e = e < lo ? lo : e > hi ? hi : e;
	int64_t n = t > 0 ? e - b : b - e;   /* |n| <= D + 1 */
	*first = b < 0 ? 0 : b;
	if (D == 0 || n <= 0)
		*len = 0;
	else if (t == INT64_MIN)        /* -t overflows; one element anyway */
		*len = 1;
	else {
		int64_t s = t > 0 ? t : -t;
		*len = n / s + (n % s != 0);
	}
}

bool
slice_attrs(OpCx *c, uint32_t rank, const int64_t *dims, SliceAttrs *a)
{
	int64_t b[OPS_MAX_RANK], e[OPS_MAX_RANK], st[OPS_MAX_RANK], ax[OPS_MAX_RANK];
	uint32_t nb = 0, ne = 0, ns = 0, na = 0;
	const char *list = "a list of integers, one per sliced axis";
	bool have = oa_require(c, "begin", "begin=[0, 1]");
	have = oa_require(c, "end", "end=[2, -1]") && have;
	oa_ints(c, "begin", 0, OPS_MAX_RANK, INT64_MIN, b, &nb, list);
	oa_ints(c, "end", 0, OPS_MAX_RANK, INT64_MIN, e, &ne, list);
	int rs = oa_ints(c, "strides", 0, OPS_MAX_RANK, INT64_MIN, st, &ns, list);
	int ra = oa_ints(c, "axes", 0, OPS_MAX_RANK, INT64_MIN, ax, &na, "a list of axes (integers)");
	if (!have || !c->ok)
		return false;
	if (ne != nb || (rs && ns != nb) || (ra && na != nb)) {
		char more[64] = "";
		if (rs)
			snprintf(more, sizeof more, ", 'strides' %u", ns);
		if (ra)
			snprintf(more + strlen(more), sizeof more - strlen(more), ", 'axes' %u", na);
		op_error(c, "'begin' has %u entries, 'end' %u%s: each needs one entry per sliced "
		         "axis", nb, ne, more);
		return false;
	}
	if (!ra && nb > rank) {
		op_error_at(c, oa_loc(c, "begin"), "'begin' of strided_slice has %u entries, but the "
		            "operand has rank %u", nb, rank);
		return false;
	}
	bool seen[OPS_MAX_RANK] = {false};
	for (uint32_t d = 0; d < rank; d++) {
		a->begin[d] = 0;
		a->step[d] = 1;
		a->len[d] = dims[d];
	}
	for (uint32_t i = 0; i < nb; i++) {
		int64_t d = ra ? axis_norm(c, "axes", ax[i], rank) : (int64_t)i;
		if (d < 0)
			return false;
		if (seen[d]) {
			op_error_at(c, oa_loc(c, "axes"), "'axes' of strided_slice names axis %lld twice",
			            (long long)d);
			return false;
		}
		seen[d] = true;
		int64_t t = rs ? st[i] : 1;
		if (t == 0) {
			op_error_at(c, oa_loc(c, "strides"), "'strides' of strided_slice must not be 0");
			return false;
		}
		a->step[d] = t;
		slice_axis(dims[d], b[i], e[i], t, &a->begin[d], &a->len[d]);
	}
	return true;
}

bool
pad_attrs(OpCx *c, uint32_t rank, const int64_t *dims, PadAttrs *a)
{
	int64_t w[2 * OPS_MAX_RANK];
	uint32_t n = 0;
	bool have = oa_require(c, "pad_width", "pad_width=[0, 0, 1, 1]");
	oa_ints(c, "pad_width", 0, 2 * OPS_MAX_RANK, 0, w, &n,
	        "a list of non-negative integers, before and after for each axis");
	const char *mode = oa_str(c, "pad_mode", "constant");
	a->value = oa_num(c, "pad_value", 0);
	if (!have || !c->ok)
		return false;
	if (!strcmp(mode, "constant"))
		a->mode = PAD_CONSTANT;
	else if (!strcmp(mode, "edge"))
		a->mode = PAD_EDGE;
	else if (!strcmp(mode, "reflect"))
		a->mode = PAD_REFLECT;
	else {
		op_error_at(c, oa_loc(c, "pad_mode"), "'pad_mode' of nn.pad must be \"constant\", "
		            "\"edge\" or \"reflect\", not \"%s\"", mode);
		return false;
	}
	if (a->mode != PAD_CONSTANT && oa_get(c, "pad_value")) {
		op_error_at(c, oa_loc(c, "pad_value"), "'pad_value' of nn.pad is for pad_mode "
		            "\"constant\" only");
		return false;
	}
	if (n != 2 * rank) {
		op_error_at(c, oa_loc(c, "pad_width"), "'pad_width' of nn.pad has %u entries, but "
		            "an operand of rank %u needs %u (before and after for each axis)", n, rank,
		            2 * rank);
		return false;
	}
	for (uint32_t d = 0; d < rank; d++) {
		a->before[d] = w[2 * d];
		a->after[d] = w[2 * d + 1];
		bool pads = a->before[d] || a->after[d];
		if (a->mode == PAD_EDGE && pads && dims[d] == 0) {
			op_error_at(c, oa_loc(c, "pad_width"), "nn.pad: pad_mode \"edge\" cannot pad "
			            "axis %u, which is empty", d);
			return false;
		}
		if (a->mode == PAD_REFLECT && pads &&
		    (a->before[d] >= dims[d] || a->after[d] >= dims[d])) {
			op_error_at(c, oa_loc(c, "pad_width"), "nn.pad: pad_mode \"reflect\" pads axis "
			            "%u of size %lld by at most %lld on each side, not %lld and %lld", d,
			            (long long)dims[d], (long long)(dims[d] > 0 ? dims[d] - 1 : 0),
			            (long long)a->before[d], (long long)a->after[d]);
			return false;
		}
		if (__builtin_add_overflow(dims[d], a->before[d], &a->len[d]) ||
		    __builtin_add_overflow(a->len[d], a->after[d], &a->len[d])) {
			op_error_at(c, oa_loc(c, "pad_width"), "nn.pad: axis %u padded overflows", d);
			return false;
		}
	}
	return true;
}
