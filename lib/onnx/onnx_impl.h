/* onnx_impl.h: what the parts of the ONNX importer share.
 *
 *   onnx_read.c    protobuf in (protoc-c's bindings), tensors, attributes
 *   onnx_fold.c    arithmetic on tensors known at import (shape folding)
 *   onnx_emit.c    values, IR names, bindings (built by lib/gbuild.h),
 *                  constants, .npy files, attributes, messages
 *   onnx_ops.c     the operator table; elementwise and shape operators
 *   onnx_nn.c      convolution, pooling, matrix products, normalization
 *   onnx_import.c  the graph: inputs, nodes in order, outputs, --stats
 *
 * Every ONNX value becomes a Val.  A Val whose data is known at import
 * (an initializer, a Constant, or anything computed only from those, as
 * the shape arithmetic torch.onnx emits) carries it as a Tensor and is
 * built into the module only where an operator that is not folded uses
 * it, as a constant.  Every other Val is a binding of @main, built when
 * its node is mapped, by OpId, through the operator's type rule, which
 * must give the type the importer computed: the rules check the
 * importer's shape arithmetic.
 */
#ifndef ONNX_IMPL_H
#define ONNX_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gbuild.h"
#include "ir.h"
#include "map.h"
#include "onnx.pb-c.h"
#include "onnx/onnx_import.h"
#include "ops/ops.h"
#include "tensor/tensor.h"

#define MAX_RANK IR_MAX_RANK

typedef struct Val {
	const char *onnx;        /* the ONNX name it was first bound to, or NULL */
	char *hint;              /* what its IR name is made of */
	ElemKind kind;
	uint32_t rank;
	int64_t dims[MAX_RANK];
	Tensor *k;               /* the data, when known at import */
	char *ir;                /* "%name" once written into the module */
	Value *node;             /* its node in the module, once written */
	size_t live_until;       /* the last node that reads it, by any name it
	                          * is bound to (SIZE_MAX: a graph output); after
	                          * it, data never written is freed */
} Val;

/* An ONNX name and what is known of it before the nodes are mapped. */
typedef struct {
	const char *name;
	uint32_t uses;           /* node inputs and graph outputs naming it */
	size_t user;             /* the index of the last node using it */
	size_t first_user;       /* ... and of the first */
	size_t producer;         /* 1 + the index of the node whose output it
	                          * is; 0 for none (an input, an initializer) */
	bool graph_output;
	Val *val;                /* once bound */
} Name;

typedef struct {
	char *file;              /* "conv1_weight.npy" */
	const Tensor *t;
} DataFile;

/* A TensorProto's raw_data, left in the file (see onnx_unpack). */
typedef struct {
	size_t off, len;
} OnxPayload;

typedef struct Imp {
	const OnnxOpts *o;
	const char *path;
	Ctx *diag;               /* reports, named after the model (onnx_fail) */
	Onnx__ModelProto *model;
	const uint8_t *src;      /* the model's bytes, during onnx_import */
	OnxPayload *payloads;    /* the raw_data in src, by the skeleton's stubs */
	size_t npayloads;
	int64_t opset;           /* of the default domain */
	const Onnx__NodeProto *node;   /* being mapped, for messages */
	const struct OpMap *op;        /* its mapping */
	size_t node_index;
	Map names;               /* Name, by ONNX name */
	PtrVec vals;             /* every Val, to free */
	Map taken;               /* IR names in use (char *) */
	Map files_taken;         /* .npy names in use (char *) */
	PtrVec strs;             /* strings the maps hold, to free */
	DataFile *files;
	size_t nfiles, capfiles;
	Module *m;               /* the module built */
	Ctx *mctx;               /* m's: what the builder reports is captured,
	                          * never shown (see mistyped) */
	GBuild b;                /* builds @main */
	bool too_large;          /* onnx_emit made a type the IR cannot hold (reported) */
	unsigned mistyped;       /* bindings whose type rule disagreed with the
	                          * import's shapes: an internal error */
	Val **absorbed;          /* per node: the value of a node another one folded
	                          * into itself (a BatchNormalization into the Conv
	                          * before it), or NULL */
} Imp;

/* ------------------------------------------------------------ onnx_read.c */

/* The model in buf, after checking that its messages nest at most
 * ONNX_MAX_DEPTH deep (protobuf-c unpacks recursively); NULL after
 * reporting.  The tensors' raw data stays in buf, which must outlive
 * every onnx_tensor call (see the skeleton in onnx_read.c). */
#define ONNX_MAX_DEPTH 64
Onnx__ModelProto *onnx_unpack(Imp *im, const uint8_t *buf, size_t len);
/* ------------------------------------------------------------ onnx_external.c */

/* tp's data, kept in an external file (data_location EXTERNAL), read into
 * dst, which holds bytes, its shape's; false after onnx_fail(). */
bool onnx_external(Imp *im, const Onnx__TensorProto *tp, const char *what, void *dst,
                   uint64_t bytes);
/* ONNX's TensorProto.DataType as an element type; false if the IR has none. */
bool onnx_elem(int32_t dt, ElemKind *k);
const char *onnx_type_name(int32_t dt);            /* "FLOAT", "STRING" */
/* The data of a TensorProto (`what` names it in messages); NULL after
 * reporting. */
Tensor *onnx_tensor(Imp *im, const Onnx__TensorProto *tp, const char *what);

const Onnx__AttributeProto *onnx_attr(const Onnx__NodeProto *n, const char *name);
int64_t onnx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t def);
double onnx_attr_float(const Onnx__NodeProto *n, const char *name, double def);
/* The string attribute, or def when the node has none, copied into buf
 * (bufn bytes, at least 1; cut to fit, an embedded NUL shown as '?'):
 * returns buf, so buf and the result are always the same string. */
const char *onnx_attr_str(const Onnx__NodeProto *n, const char *name, const char *def, char *buf,
                          size_t bufn);
/* The ints attribute: its count (-1 if absent), at most max copied. */
long onnx_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, size_t max);

/* ------------------------------------------------------------ onnx_fold.c */

typedef enum {
	BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_POW, BIN_MAX, BIN_MIN,
	BIN_EQ, BIN_LT, BIN_GT, BIN_AND, BIN_OR, BIN_MOD,
	BIN_LE, BIN_GE, BIN_XOR,
} BinOp;

typedef enum {
	UN_NEG, UN_RELU, UN_SIGMOID, UN_TANH, UN_EXP, UN_LOG, UN_SQRT, UN_RECIP,
	UN_ABS, UN_FLOOR, UN_CEIL, UN_NOT, UN_ERF, UN_ROUND, UN_SIN, UN_COS,
	UN_ASIN, UN_ACOS, UN_ATAN,
} UnOp;

/* NumPy broadcasting of two shapes into out; false if they do not. */
bool onnx_bcast_shape(uint32_t ra, const int64_t *a, uint32_t rb, const int64_t *b, uint32_t *ro,
                      int64_t *out);
/* The element count; INT64_MAX when it overflows. */
int64_t onnx_shape_numel(uint32_t rank, const int64_t *dims);
/* A zeroed tensor for a value computed at import, or NULL when it would
 * take more than FOLD_MAX_BYTES (a model may ask for any size). */
#define FOLD_MAX_BYTES ((uint64_t)1 << 30)
Tensor *onnx_fold_new(ElemKind k, uint32_t rank, const int64_t *dims);
/* The IR's limit on a tensor's elements (ir(5)). */
#define MAX_NUMEL ((int64_t)1 << 48)

/* Elementwise with broadcasting; the result has kind `kind` (bool for the
 * comparisons).  NULL if the shapes do not broadcast. */
Tensor *onnx_fold_binary(Imp *im, BinOp op, const Tensor *a, const Tensor *b, ElemKind kind);
Tensor *onnx_fold_unary(Imp *im, UnOp op, const Tensor *a);
Tensor *onnx_fold_where(Imp *im, const Tensor *c, const Tensor *a, const Tensor *b);
Tensor *onnx_fold_cast(Imp *im, const Tensor *a, ElemKind k);
Tensor *onnx_fold_reshape(const Tensor *a, uint32_t rank, const int64_t *dims);
Tensor *onnx_fold_transpose(Imp *im, const Tensor *a, const int64_t *perm);
/* Elements of a along axis at idx (already in range), as numpy.take. */
Tensor *onnx_fold_gather(const Tensor *a, int64_t axis, const Tensor *idx);
/* a[start:end:step] along each axis (normalized: starts in range, counts
 * given). */
Tensor *onnx_fold_slice(const Tensor *a, const int64_t *start, const int64_t *step,
                        const int64_t *count);
Tensor *onnx_fold_concat(Imp *im, const Tensor *const *parts, size_t n, int64_t axis);
Tensor *onnx_fold_expand(const Tensor *a, uint32_t rank, const int64_t *dims);

/* ------------------------------------------------------------ onnx_emit.c */

/* "f32[1,3,224,224]" into buf. */
const char *onnx_type_str(ElemKind k, uint32_t rank, const int64_t *dims, char *buf, size_t n);

/* A Val of the given type with no data and no IR name yet. */
Val *onnx_val_new(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims);
/* A Val known at import; takes t. */
Val *onnx_val_known(Imp *im, const char *hint, Tensor *t);
/* The IR's type of a value of the import. */
const Type *onnx_type(Imp *im, ElemKind k, uint32_t rank, const int64_t *dims);
/* The module's node for v, building its constant first if it is one not
 * built yet. */
Value *onnx_ref(Imp *im, Val *v);
/* A parameter of @main. */
Val *onnx_param(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims);
/* Binds a new value to the operator call id(args) {attrs} (lib/gbuild.h).
 * Its type is the operator's rule's: with dims NULL the value takes it (k
 * and rank unused), else the rule must give k[dims] (the importer needed
 * the shape before: else the import fails as an internal error).  A
 * dimension beyond the IR's 2^40 is reported, naming the node, and sets
 * im->too_large, which fails the node (the value is still returned). */
Val *onnx_emit(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims, OpId id,
               uint32_t nargs, Value *const *args, AttrMap *attrs);
/* The same of one or two operands, from their Vals. */
Val *onnx_emit1(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims, OpId id,
                Val *x, AttrMap *attrs);
Val *onnx_emit2(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims, OpId id,
                Val *x, Val *y, AttrMap *attrs);
/* Field index of the tuple node, typed as the tuple's field. */
Val *onnx_proj(Imp *im, const char *hint, Value *tuple, uint32_t index);
/* A tuple of fields, named after hint. */
Value *onnx_tuple(Imp *im, const char *hint, uint32_t n, Value *const *fields);
/* A number as an attribute or a literal operand, as its text "%.17g"
 * would be read: an integer unless it has a point or an exponent. */
Attr onnx_num(double d);
Value *onnx_lit(Imp *im, double d);
Attr onnx_ints(Imp *im, const int64_t *v, size_t n);
AttrMap *onnx_attrs(Imp *im, uint32_t n, const GAttr *kv);
/* An attribute map of its entries: ATTRS(im, {"axis", gb_int(1)}, ...). */
#define ATTRS(im, ...) \
	onnx_attrs((im), sizeof (GAttr[]){__VA_ARGS__} / sizeof (GAttr), (GAttr[]){__VA_ARGS__})
/* A fresh IR name made from hint (sanitized to [A-Za-z0-9_], unique). */
char *onnx_take_name(Imp *im, const char *hint);
/* The name the current node's output i gives, sanitized (NULL: none). */
const char *onnx_out_hint(Imp *im, size_t i);
/* Reports an error about the current node (or the model); returns NULL. */
void *onnx_fail(Imp *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------ onnx_ops.c */

typedef struct OpMap {
	const char *op;          /* ONNX op_type */
	int since;               /* the first opset we map it in */
	int min_in;              /* inputs it needs */
	/* Maps the node: fills out[0..nout), returns false after onnx_fail(). */
	bool (*map)(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out,
	            size_t nout);
	int arg;                 /* for map: the BinOp or UnOp of the elementwise ones */
} OpMap;

/* The mapping of op in the default domain at opset, or NULL. */
/* Opset 6's attributes the import cannot follow (training modes);
 * false after reporting. */
bool onnx_legacy_ok(Imp *im, const Onnx__NodeProto *n);
const OpMap *onnx_op_lookup(const char *op, int64_t opset);
/* The first opset the table maps op in, or -1 when it has no entry. */
int onnx_op_since(const char *op);

/* Shared by the operator files.  onnx_op_binary, onnx_op_unary,
 * onnx_op_cast and onnx_op_where return NULL for a NULL operand (one whose
 * building failed, reported), so that compositions nest. */
Val *onnx_op_binary(Imp *im, BinOp op, Val *a, Val *b, const char *hint);
Val *onnx_op_unary(Imp *im, UnOp op, Val *a, const char *hint);
/* where(c, a, b), broadcasting the three (folded when all are known). */
Val *onnx_op_where(Imp *im, Val *c, Val *a, Val *b, const char *hint);
/* a as element type k (folded when known). */
Val *onnx_op_cast(Imp *im, Val *a, ElemKind k, const char *hint);
/* A scalar of kind k known at import (v converted as tensor_set does). */
Val *onnx_scalar(Imp *im, ElemKind k, double v);
Val *onnx_op_reshape(Imp *im, Val *a, uint32_t rank, const int64_t *dims, const char *hint);
Val *onnx_op_transpose(Imp *im, Val *a, const int64_t *perm, const char *hint);
/* a[start:start+count*step:step] along axis. */
Val *onnx_op_slice_axis(Imp *im, Val *a, int64_t axis, int64_t start, int64_t step, int64_t count,
                        const char *hint);
/* The integer data of a known Val (shape arithmetic); false after onnx_fail()
 * when v is not known at import or not integers. */
bool onnx_known_ints(Imp *im, Val *v, const char *what, int64_t *out, size_t max, size_t *n);
/* An axis in [-rank, rank) normalized, or -1 after onnx_fail(). */
int64_t onnx_norm_axis(Imp *im, int64_t axis, uint32_t rank, const char *what);

/* ------------------------------------------------------------ onnx_nn.c */

bool onnx_map_conv(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_gemm(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_matmul(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_batchnorm(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_maxpool(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_avgpool(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_global_pool(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_softmax(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_logsoftmax(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_reduce(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_norm.c */
bool onnx_map_layernorm(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* ReduceMean node n of x, if it starts torch.onnx's decomposition of
 * nn.LayerNorm (see onnx_norm.c): the chain as one nn.layer_norm into
 * *out, its other nodes absorbed; 1 if so, 0 if n is no such start, -1
 * after reporting. */
int onnx_layernorm_chain(Imp *im, const Onnx__NodeProto *n, Val *x, Val **out);
/* onnx_einsum.c */
bool onnx_map_einsum(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_activation.c */
bool onnx_map_activation(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_mean(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_arith.c */
/* Floor, Ceil or Round (UN_FLOOR, UN_CEIL, UN_ROUND) of a computed value. */
Val *onnx_op_rounding(Imp *im, UnOp op, Val *x, const char *hint);
bool onnx_map_mod(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_bitshift(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_layout.c */
/* The product over the axes red[] of x (kept as 1 with keep). */
Val *onnx_reduce_prod(Imp *im, Val *x, const bool *red, bool keep, const char *hint);
bool onnx_map_trilu(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_cumsum(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_eyelike(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_depth_space(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_tile(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_resize.c */
bool onnx_map_resize(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_instnorm.c */
bool onnx_map_instnorm(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_mvn(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_lrn(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_convtranspose.c */
bool onnx_map_convtranspose(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_onehot.c */
/* Gather along axis by computed (or scattered) indices: a one-hot mask. */
Val *onnx_gather_computed(Imp *im, Val *x, int64_t axis, Val *idx, const char *hint);
bool onnx_map_gather_elements(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_hardmax(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_nll_loss(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_sce_loss(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_onehot(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
bool onnx_map_scatter_elements(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);
/* onnx_scatter.c */
bool onnx_map_scatternd(Imp *, const Onnx__NodeProto *, Val **, size_t, Val **, size_t);

/* The Name of an ONNX value (NULL if the graph never names it). */
Name *onnx_name_get(Imp *im, const char *s);
/* The single node that uses name s, if s has exactly one use and it is a
 * node's input (not a graph output), its index in *index; NULL otherwise. */
const Onnx__NodeProto *onnx_sole_user(Imp *im, const char *s, size_t *index);

#endif
