/* attrs.h: reading an operator's attributes, for the type rules
 * (lib/ops/), the reference kernels (lib/ref/) and lowering (lib/lower/).
 *
 * One reader per kind of value (oa_int, oa_pair, oa_layout, ...) and one
 * decoder per operator family (conv2d_attrs, pool2d_attrs, matmul_attrs,
 * reduce_attrs) that fills a struct with TVM's defaults, so the three
 * sides cannot disagree on a name, a default or a layout.  The context
 * says where errors go: the verifier's diagnostics (opcx_init, at the
 * binding or the attribute) or one "op: message" string (opcx_init_msg;
 * the first error is kept).  Lowering reads verified bindings and passes
 * no string.
 */
#ifndef OPS_ATTRS_H
#define OPS_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "layout.h"
#include "ops.h"

/* Ranks above this are refused, so readers and rules can keep dimensions
 * in fixed arrays on the stack instead of allocating per binding. */
#define OPS_MAX_RANK 64

/* One reading of a binding's attributes (a type rule, a kernel run). */
typedef struct OpCx {
	Module *m;               /* NULL: errors go to err */
	Value *v;                /* the binding, when m is set */
	const char *op;          /* operator name, for messages */
	OpId id;
	const AttrMap *attrs;    /* may be NULL */
	char *err;               /* with m NULL: the first error, or NULL */
	size_t errsz;
	bool ok;                 /* false once an error was reported */
} OpCx;

/* Errors as diagnostics of m, at v or its attributes. */
void opcx_init(OpCx *c, Module *m, Value *v);
/* Errors as "op: message" into err (errsz bytes; NULL: dropped).  op may
 * be NULL (named "?"). */
void opcx_init_msg(OpCx *c, const OpDef *op, const AttrMap *attrs, char *err, size_t errsz);

/* "op: message" at the binding. */
void op_error(OpCx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "message" at loc (an attribute's). */
void op_error_at(OpCx *c, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ readers */

/* NULL if absent. */
const Attr *oa_get(const OpCx *c, const char *key);
/* The attribute's location, or the binding's when absent. */
Loc oa_loc(const OpCx *c, const char *key);
/* Reports "op: missing attribute 'key'" (with an example) when absent. */
bool oa_require(OpCx *c, const char *key, const char *example);

/* An integer in [lo, hi]; dflt when absent or bad. */
int64_t oa_int(OpCx *c, const char *key, int64_t dflt, int64_t lo, int64_t hi);
/* A number (int or float); dflt when absent or bad. */
double oa_num(OpCx *c, const char *key, double dflt);
/* true/false (or 0/1); dflt when absent or bad. */
bool oa_bool(OpCx *c, const char *key, bool dflt);
/* A string without NUL bytes; dflt when absent or bad. */
const char *oa_str(OpCx *c, const char *key, const char *dflt);

/* A list of between nmin and nmax integers, each >= lo, into out (room for
 * nmax).  Returns 1 if present and good, 0 if absent, -1 after an error.
 * `what` completes "'key' of op must be ..." ("a list of 2 positive
 * integers"). */
int oa_ints(OpCx *c, const char *key, uint32_t nmin, uint32_t nmax, int64_t lo,
            int64_t *out, uint32_t *n, const char *what);
/* Exactly two integers >= lo (strides, dilation, pool_size, kernel_size);
 * out keeps its defaults when absent. */
void oa_pair(OpCx *c, const char *key, int64_t lo, int64_t out[2]);
/* 1, 2 or 4 non-negative integers, TVM style, into top, left, bottom,
 * right. */
void oa_padding(OpCx *c, const char *key, int64_t pad[4]);
/* A dtype string: ours ("f16") or TVM's ("float16"); scalar elements only.
 * Returns false when absent (out untouched) or bad. */
bool oa_dtype(OpCx *c, const char *key, DType *out);
/* A layout attribute that must be one of `allowed` ("NCHW", "NCHW4c",
 * NULL); dflt when absent. NULL after an error. */
const Layout *oa_layout(OpCx *c, const char *key, const char *dflt, const char *const *allowed);

/* Normalizes a possibly negative axis against rank (axes -rank..rank-1).
 * Reports at the attribute `key` (or the binding) and returns -1 when out
 * of range. */
int64_t axis_norm(OpCx *c, const char *key, int64_t axis, int64_t rank);
/* An optional list of axes (may be negative) of a rank-`rank` operand
 * into mark[] (true = named; each at most once).  Returns 1 if given, 0
 * if absent, -1 after an error. */
int oa_axes(OpCx *c, const char *key, uint32_t rank, bool *mark);

/* The layouts of data (NCHW, NCHW4c) and of weights (OIHW, OIHW4o, HWIO,
 * OIHW16o). */
extern const char *const data_layouts[], *const kernel_layouts[];

/* ------------------------------------------------------------ families */

/* nn.conv2d, with TVM's defaults. */
typedef struct {
	int64_t st[2], dil[2], pad[4];   /* strides, dilation, top/left/bottom/right */
	int64_t ks[2];                   /* kernel_size; 0: not given */
	int64_t groups, channels;        /* channels 0: not given */
	const Layout *dl, *kl, *ol;      /* data, kernel, out */
	DType out_dt;
	bool has_out_dt;
} ConvAttrs;
bool conv2d_attrs(OpCx *c, ConvAttrs *a);

/* nn.max_pool2d, nn.avg_pool2d (pool_size required) and
 * nn.global_avg_pool2d (layouts only); out_layout must equal layout. */
typedef struct {
	int64_t ps[2], st[2], dil[2], pad[4];  /* pool_size, strides, dilation, padding */
	bool ceil_mode, count_include_pad;
	const Layout *l;
} PoolAttrs;
bool pool2d_attrs(OpCx *c, PoolAttrs *a);

/* nn.dense (units; 0: not given; pack: 0 for weight_layout "NC", the
 * weight [units, K], or n for "NC<n>n", the weight packed [units/n, K, n]
 * as ir-fold-constants writes it for ir-lower's cpu tile) and
 * nn.batch_matmul (transposes). */
typedef struct {
	int64_t units, pack;
	bool ta, tb;
	DType out_dt;
	bool has_out_dt;
} MatmulAttrs;
bool matmul_attrs(OpCx *c, MatmulAttrs *a);

/* sum and mean of a rank-`rank` operand: red[i] is true for each axis
 * reduced (TVM: no axis list reduces every axis, whatever exclude says). */
typedef struct {
	bool keepdims;
	bool red[OPS_MAX_RANK];
} ReduceAttrs;
bool reduce_attrs(OpCx *c, uint32_t rank, ReduceAttrs *a);
/* argmax and argmin: select_last_index (default false: the first of
 * equal extremes, and of NaNs, which win). */
bool arg_last_index(OpCx *c);

/* The `axis` of bias_add (default 1: NCHW's channels), softmax and
 * layer_norm (-1: the last) and concatenate and split (0), as written: possibly negative. */
int64_t op_axis(OpCx *c);

/* nn.layer_norm's axis (as written; default -1) and epsilon (default
 * ONNX's 1e-5; finite, not negative).  The axes axis..rank-1 are
 * normalized together, as ONNX's LayerNormalization. */
bool layer_norm_attrs(OpCx *c, int64_t *axis, double *eps);

/* clip's a_min and a_max (both required, a_min <= a_max). */
bool clip_attrs(OpCx *c, double *lo, double *hi);
/* hard_sigmoid's alpha and beta (ONNX's HardSigmoid: max(0, min(1,
 * alpha x + beta)); defaults ONNX's 0.2 and 0.5; finite). */
bool hard_sigmoid_attrs(OpCx *c, double *alpha, double *beta);

/* layout_transform's src_layout and dst_layout (both required). */
bool transform_attrs(OpCx *c, const Layout **src, const Layout **dst);

/* strided_slice of a rank-`rank` operand of shape dims: begin and end
 * (required, one entry per axis of `axes`), strides (default 1s) and axes
 * (default 0, 1, ...), read as ONNX's Slice reads starts, ends, steps and
 * axes: a negative index counts from the end, then both are clamped into
 * the axis.  Per axis: its first index, step and result length (an axis
 * not listed: 0, 1, its size). */
typedef struct {
	int64_t begin[OPS_MAX_RANK], step[OPS_MAX_RANK], len[OPS_MAX_RANK];
} SliceAttrs;
bool slice_attrs(OpCx *c, uint32_t rank, const int64_t *dims, SliceAttrs *a);

/* nn.pad of a rank-`rank` operand of shape dims: pad_width (required,
 * [before0, after0, before1, after1, ...], non-negative), pad_mode
 * ("constant", the default, "edge" or "reflect") and pad_value (constant
 * mode; default 0).  Edge needs a non-empty axis where it pads, reflect
 * pads of at most the axis's size - 1. */
typedef enum { PAD_CONSTANT, PAD_EDGE, PAD_REFLECT } PadMode;
typedef struct {
	int64_t before[OPS_MAX_RANK], after[OPS_MAX_RANK], len[OPS_MAX_RANK];
	double value;
	PadMode mode;
} PadAttrs;
bool pad_attrs(OpCx *c, uint32_t rank, const int64_t *dims, PadAttrs *a);

#endif
