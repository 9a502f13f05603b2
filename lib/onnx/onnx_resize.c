/* onnx_resize.c: Resize (opsets 11 to 17) and Upsample (opset 9) as
 * compositions of the IR's operators.  ONNX's interpolation is separable:
 * along each resized axis, output position o is a weighted sum of input
 * positions, the weights W[o][i] known at import from the sizes, the
 * coordinate transformation and the mode (nearest: one 1; linear: two
 * taps; cubic: four, with cubic_coeff_a and exclude_outside), neighbours
 * past the edge clamped to it.  Each axis is then a multiply of x (with a
 * new axis) by W and a sum, so no new IR operator is needed; W costs
 * in x out elements per axis, and the multiply that many times the other
 * axes, which suits the small images of tests, not large upsampling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_impl.h"

#define MAP_FN(fn) \
	bool fn(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)

typedef enum { RS_NEAREST, RS_LINEAR, RS_CUBIC } RsMode;
typedef enum {
	CT_HALF_PIXEL, CT_PYTORCH_HALF_PIXEL, CT_ALIGN_CORNERS, CT_ASYMMETRIC,
	CT_TF_HALF_PIXEL_FOR_NN, CT_TF_CROP_AND_RESIZE,
} CoordMode;
typedef enum { NR_ROUND_PREFER_FLOOR, NR_ROUND_PREFER_CEIL, NR_FLOOR, NR_CEIL } NearestMode;

typedef struct {
	RsMode mode;
	CoordMode coord;
	NearestMode nearest;
	double a;            /* cubic_coeff_a */
	bool exclude;        /* exclude_outside */
	double extrap;       /* extrapolation_value (tf_crop_and_resize) */
} Rs;

static bool
pick(Imp *im, const char *what, const char *v, const char *const *names, int count, int *out)
{
	for (int i = 0; i < count; i++)
		if (!strcmp(v, names[i]))
			return *out = i, true;
	return onnx_fail(im, "%s '%s' is not supported", what, v), false;
}

/* The input coordinate of output position o (ONNX's reference: the scale
 * given, or out/in for sizes; out_f is in times that scale). */
static double
source_coord(const Rs *r, double o, int64_t in, double scale, double start, double end)
{
	double out_f = scale * (double)in;
	switch (r->coord) {
	case CT_HALF_PIXEL: return (o + 0.5) / scale - 0.5;
	case CT_PYTORCH_HALF_PIXEL: return out_f != 1 ? (o + 0.5) / scale - 0.5 : -0.5;
	case CT_ALIGN_CORNERS: return out_f == 1 ? 0 : o * (double)(in - 1) / (out_f - 1);
	case CT_ASYMMETRIC: return o / scale;
	case CT_TF_HALF_PIXEL_FOR_NN: return (o + 0.5) / scale;
	case CT_TF_CROP_AND_RESIZE:
		return out_f > 1 ? start * (double)(in - 1) + o * (end - start) * (double)(in - 1) /
		                   (out_f - 1)
		                 : 0.5 * (start + end) * (double)(in - 1);
	}
	return 0;
}

static void
cubic_coeffs(double t, double A, double *c)
{
	double s = 1 - t;
	c[0] = ((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A;
	c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
	c[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
	c[3] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
}

/* Row o of W (in entries), and whether o lies outside the input (crop). */
static bool
weights_row(const Rs *r, int64_t o, int64_t in, double scale, double st, double en, double *w)
{
	double x = source_coord(r, (double)o, in, scale, st, en);
	memset(w, 0, (size_t)in * sizeof *w);
	if (r->coord == CT_TF_CROP_AND_RESIZE && (x < 0 || x > (double)(in - 1)))
		return true;
	/* the neighbour left of x (x itself less one when x is whole) and the
	 * fraction past it, in (0, 1] */
	double base = ceil(x) - 1, t = x - base, c[4];
	int64_t first, taps;
	if (r->mode == RS_NEAREST) {
		bool up = t == 1 || r->nearest == NR_CEIL ||
		          (r->nearest == NR_ROUND_PREFER_FLOOR && t > 0.5) ||
		          (r->nearest == NR_ROUND_PREFER_CEIL && t >= 0.5);
		c[0] = up ? 0 : 1, c[1] = up ? 1 : 0;
		first = (int64_t)base, taps = 2;
	} else if (r->mode == RS_LINEAR) {
		c[0] = 1 - t, c[1] = t;
		first = (int64_t)base, taps = 2;
	} else {
		cubic_coeffs(t, r->a, c);
		first = (int64_t)base - 1, taps = 4;
	}
	double sum = 0;
	for (int64_t k = 0; k < taps; k++) {
		int64_t i = first + k;
		if (r->exclude && (i < 0 || i >= in))
			c[k] = 0;
		sum += c[k];
	}
	for (int64_t k = 0; k < taps; k++) {
		int64_t i = first + k;
		i = i < 0 ? 0 : i >= in ? in - 1 : i;
		w[i] += r->exclude && sum != 0 ? c[k] / sum : c[k];
	}
	return false;
}

/* x resized along axis a to out positions; *outside, when non-NULL, gets
 * (known, shaped [1.., out, ..1]) 1 where the position lies outside. */
static Val *
resize_axis(Imp *im, const Rs *r, Val *x, uint32_t a, int64_t out, double scale, double st,
            double en, Val **outside, const char *h)
{
	int64_t in = x->dims[a], wd[MAX_RANK], xd[MAX_RANK], od[MAX_RANK];
	uint32_t rk = x->rank + 1;
	if (rk > MAX_RANK)
		return onnx_fail(im, "rank %u leaves no room for the weights' axis", x->rank);
	if (onnx_shape_numel(x->rank, x->dims) > ((int64_t)1 << 28) / (out ? out : 1) ||
	    in * out > ((int64_t)1 << 26))
		return onnx_fail(im, "resizing an axis of %lld to %lld is too large for its weights",
		                 (long long)in, (long long)out);
	for (uint32_t i = 0, j = 0; i < rk; i++) {
		wd[i] = i == a ? out : i == a + 1 ? in : 1;
		xd[i] = i == a ? 1 : x->dims[j++];
	}
	Tensor *w = onnx_fold_new(x->kind, rk, wd);
	for (uint32_t i = 0; i < x->rank; i++)
		od[i] = i == a ? out : 1;
	Tensor *ot = outside ? onnx_fold_new(x->kind, x->rank, od) : NULL;
	if (!w || (outside && !ot)) {
		tensor_free(w);
		tensor_free(ot);
		return onnx_fail(im, "too large to compute at import");
	}
	double *row = xmalloc((size_t)in * sizeof *row);
	for (int64_t o = 0; o < out; o++) {
		bool off = weights_row(r, o, in, scale, st, en, row);
		for (int64_t i = 0; i < in; i++)
			tensor_set(w, o * in + i, row[i]);
		if (ot)
			tensor_set(ot, o, off);
	}
	free(row);
	if (outside)
		*outside = onnx_val_known(im, "outside", ot);
	Val *xr = onnx_op_reshape(im, x, rk, xd, h);
	Val *p = xr ? onnx_op_binary(im, BIN_MUL, xr, onnx_val_known(im, "weights", w), h) : NULL;
	int64_t ax = a + 1;
	return p ? onnx_emit1(im, h, x->kind, 0, NULL, O_SUM, p,
	                      ATTRS(im, {"axis", onnx_ints(im, &ax, 1)}, {"keepdims", gb_bool(false)}))
	         : NULL;
}

static bool
read_attrs(Imp *im, const Onnx__NodeProto *n, bool upsample, Rs *r)
{
	static const char *const modes[] = {"nearest", "linear", "cubic"};
	static const char *const coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
	                                     "asymmetric", "tf_half_pixel_for_nn",
	                                     "tf_crop_and_resize"};
	static const char *const nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
	                                      "ceil"};
	char m[32], c[32], nm[32];
	int v;
	onnx_attr_str(n, "mode", "nearest", m, sizeof m);
	if (!pick(im, "mode", m, modes, upsample ? 2 : 3, &v))
		return false;
	r->mode = (RsMode)v;
	/* Upsample: the asymmetric transform, nearest rounding down */
	onnx_attr_str(n, "coordinate_transformation_mode", upsample ? "asymmetric" : "half_pixel", c,
	              sizeof c);
	if (!pick(im, "coordinate_transformation_mode", c, coords, 6, &v))
		return false;
	r->coord = (CoordMode)v;
	onnx_attr_str(n, "nearest_mode", upsample ? "floor" : "round_prefer_floor", nm, sizeof nm);
	if (!pick(im, "nearest_mode", nm, nearest, 4, &v))
		return false;
	r->nearest = (NearestMode)v;
	r->a = onnx_attr_float(n, "cubic_coeff_a", -0.75);
	r->exclude = onnx_attr_int(n, "exclude_outside", 0) != 0;
	r->extrap = onnx_attr_float(n, "extrapolation_value", 0);
	if (onnx_attr(n, "antialias") || onnx_attr(n, "axes") || onnx_attr(n, "keep_aspect_ratio_policy"))
		return onnx_fail(im, "antialias, axes and keep_aspect_ratio_policy are not supported"),
		       false;
	return true;
}

/* A float input known at import with count values, or none (absent or
 * empty): false after reporting. */
static bool
known_floats(Imp *im, Val *v, const char *what, uint32_t count, double *out, bool *given)
{
	*given = false;
	if (!v || onnx_shape_numel(v->rank, v->dims) == 0)
		return true;
	if (!v->k)
		return onnx_fail(im, "its %s must be known at import", what), false;
	if (v->k->numel != count)
		return onnx_fail(im, "its %s has %lld values for rank %u", what,
		                 (long long)v->k->numel, count / (strcmp(what, "roi") ? 1 : 2)), false;
	for (uint32_t i = 0; i < count; i++)
		out[i] = tensor_get(v->k, i);
	*given = true;
	return true;
}

MAP_FN(onnx_map_resize)
{
	(void)nout;
	Val *x = in[0];
	const char *h = onnx_out_hint(im, 0);
	bool upsample = !strcmp(n->op_type, "Upsample");
	Rs r;
	if (!read_attrs(im, n, upsample, &r))
		return false;
	if (!elem_is_float(x->kind) || x->rank == 0)
		return onnx_fail(im, "needs a floating-point input"), false;
	double scales[MAX_RANK], roi[2 * MAX_RANK];
	int64_t sizes[MAX_RANK];
	bool has_scales, has_sizes = false, has_roi = false;
	size_t ns;
	Val *sv = upsample ? (nin > 1 ? in[1] : NULL) : (nin > 2 ? in[2] : NULL);
	if (!known_floats(im, sv, "scales", x->rank, scales, &has_scales))
		return false;
	if (!upsample && nin > 3 && in[3] && onnx_shape_numel(in[3]->rank, in[3]->dims) > 0) {
		if (!onnx_known_ints(im, in[3], "its sizes", sizes, MAX_RANK, &ns))
			return false;
		if (ns != x->rank)
			return onnx_fail(im, "its sizes have %zu values for rank %u", ns, x->rank), false;
		has_sizes = true;
	}
	if (r.coord == CT_TF_CROP_AND_RESIZE &&
	    !known_floats(im, nin > 1 ? in[1] : NULL, "roi", 2 * x->rank, roi, &has_roi))
		return false;
	if (has_scales == has_sizes)
		return onnx_fail(im, "needs either scales or sizes"), false;
	Val *y = x, *outside_any = NULL;
	for (uint32_t a = 0; a < x->rank && y; a++) {
		int64_t d = x->dims[a], o;
		double st = has_roi ? roi[a] : 0, en = has_roi ? roi[x->rank + a] : 1, s;
		if (has_sizes) {
			o = sizes[a];
			s = d ? (double)o / (double)d : 1;
		} else {
			s = scales[a];
			double of = floor((double)d * (en - st) * s);
			if (!(s > 0) || !(of >= 0 && of <= (double)((int64_t)1 << 40)))
				return onnx_fail(im, "scale %g is out of range", s), false;
			o = (int64_t)of;
		}
		if (o < 0 || (o > 0 && d == 0) || o > ((int64_t)1 << 40))
			return onnx_fail(im, "size %lld for an axis of %lld", (long long)o, (long long)d),
			       false;
		if (o == d && s == 1 && !has_roi && r.coord != CT_TF_HALF_PIXEL_FOR_NN)
			continue;   /* (these transforms map o to o at scale 1) */
		Val *off = NULL;
		y = resize_axis(im, &r, y, a, o, s, st, en, has_roi ? &off : NULL, h);
		if (y && off)
			outside_any = outside_any ? onnx_op_binary(im, BIN_MAX, outside_any, off, h) : off;
	}
	if (y && outside_any && r.extrap != 0) {
		/* tf_crop_and_resize: extrapolation_value where any axis lies
		 * outside (the weights there are 0) */
		Val *e = onnx_op_binary(im, BIN_MUL, outside_any, onnx_scalar(im, x->kind, r.extrap), h);
		y = e ? onnx_op_binary(im, BIN_ADD, y, e, h) : NULL;
	}
	return (out[0] = y) != NULL;
}
