/* lower_impl.h: private to lib/lower*.c.
 *
 * A group is a chain of operator bindings of one block: members[0] is the
 * master (the first operator), each later member consumes the one before
 * it, and only the last one's value is used outside the group.  A later
 * member may also read an earlier one than its predecessor (x in
 * x * sigmoid(x): a diamond that closes inside the group); such a member
 * is marked in Group.reread, and all its readers take it at one index,
 * so it is computed once (GroupCx.memo).  Its prim
 * has one buffer parameter per outside operand (a tuple operand: one per
 * field), then one per result tensor.
 *
 * lower_ops.c emits a member's value at an index: the code that computes
 * it goes into the open block of the PBuild, and an expression for it
 * (usually a let variable) comes back.  A member reads its chain
 * predecessor by emitting that one at the index it needs, so an injective
 * consumer simply reads its producer at another index, and a reduction
 * evaluates its producer inside its own loops.
 */
#ifndef LOWER_IMPL_H
#define LOWER_IMPL_H

#include "ir.h"
#include "layout.h"
#include "lower.h"
#include "ops/attrs.h"
#include "pbuild.h"

#define LOWER_MAX_GROUP 32
/* Every rank the format allows: nests keep one index per axis on the stack. */
#define LOWER_MAX_RANK IR_MAX_RANK

typedef struct {
	Value *members[LOWER_MAX_GROUP];
	int n;
	int pattern;              /* OpPattern of the group so far */
	bool closed;              /* nothing more fuses into it */
	uint32_t reread;          /* bit k: member k is read by more than its
	                           * successor, all at the index they share */
	Block *blk;
	Value *replaced;          /* the tail its call_lowered replaces */
	Value *pre, *pre_last;    /* projections to insert before the call */
	Value *scale;             /* a multiply x * s fused into a conv2d master
	                           * as its data operand's prologue (the
	                           * squeeze-and-excitation scale), or NULL */
	uint32_t scale_x;         /* which operand of scale is x (s the other) */
	int npro;                 /* the last npro members (from
	                           * LOWER_PRO0(g), past the chain): the
	                           * index-only operators that compute a dense
	                           * or batch_matmul master's operands (lower.c's
	                           * index_prologue), in program order, each
	                           * read at the index its reader asks */
} Group;

/* An outside operand: a value, or field `field` of a tuple value. */
typedef struct {
	Value *v;
	int field;                /* -1: the value itself */
	PVar *buf;
} GroupInput;

/* The schedule state of the prim being built, set by lower.c and read by
 * the nests (lower_nest.c). */
typedef struct {
	const Device *dev;
	const char *prim;         /* name, for kernel names */
	int nkernels;
	bool reduction;           /* the group has reduction loops per element */
	bool image;               /* the result is an image: 2-d work groups */
} LowerSched;

/* The last value of a reread member: valid while its block is open and
 * asked for at the same index and lanes (and tiled master). */
typedef struct {
	PExpr *val;
	PExpr *master;            /* c->master when it was made */
	PBlock *blk;
	int depth;
	uint32_t lanes;
	PExpr *idx[LOWER_MAX_RANK];
} LowerMemo;

typedef struct {
	Module *m;
	PBuild *b;
	Group *g;
	GroupInput *in;
	int nin;
	PVar **out;               /* result buffers */
	int nout;
	Sym dev;                  /* the group's device */
	const Device *device;     /* its declaration, or NULL */
	const VDev *local;        /* @dev:local, for accumulators */
	LowerSched *sched;
	PExpr *master;            /* when set, member 0's value (tiled schedules) */
	LowerMemo *memo;          /* [LOWER_MAX_GROUP] when g->reread, else NULL */
	uint32_t wide;            /* when above 1, a run of 4 * wide lanes of a
	                           * packed result is that many texels of
	                           * consecutive channel blocks (lower_store_wide) */
	int given_k;              /* when given is set, member given_k's value: */
	PExpr *given;             /* the master's after an index-map epilogue
	                           * (lower_store_through) */
	bool split_k_kernel;      /* --split-k-kernel: a split k's sums added by a kernel of
	                           * their own, not by each tile's last work group */
} GroupCx;

/* The position of a among the members before k, or -1. */
int lower_member_of(const Group *g, int k, const Value *a);
/* The first prologue member's position. */
#define LOWER_PRO0(g) (LOWER_MAX_GROUP - (g)->npro)
/* The position of a in the group's prologue, or -1. */
int lower_prologue_of(const Group *g, const Value *a);
/* Is the operator a pure index map (transpose, reshape, squeeze,
 * expand_dims; with slices, strided_slice): its elements are its
 * operand's, moved? */
bool lower_is_index_map(OpId op, bool slices);
/* A transpose's axes (its attribute, or reversed), normalized. */
void lower_transpose_axes(const Value *v, int64_t *axes);

/* The buffer of operand j of member k (lower_nest.c): an outside input
 * (field -1, or the first field of a tuple operand) or NULL for the chain
 * predecessor and literals. */
GroupInput *lower_input(GroupCx *c, int k, uint32_t j, int field);

/* Member k's value at idx (its result's rank); NULL after reporting an
 * error.  With lanes > 1 the last index starts a run of that many
 * elements and the value is a vector (see lower_group_lanes). */
PExpr *lower_member(GroupCx *c, int k, PExpr *const *idx, uint32_t lanes);
/* Operand j of member k at idx (the operand's rank), with lanes as above. */
PExpr *lower_operand(GroupCx *c, int k, uint32_t j, PExpr *const *idx, uint32_t lanes);
/* Member k's index (an index map's: lower_is_index_map without slices)
 * for its operand's index in: the inverse of the map its value reads
 * through (an epilogue stores through it, lower_store_through). */
void lower_index_forward(GroupCx *c, int k, PExpr *const *in, PExpr **out);
/* The axis of the master's operand j along which consecutive elements
 * are consecutive in memory: its last for an outside operand; through a
 * prologue, where the source's last axis went, or -1 when no axis is. */
int lower_operand_fast_axis(const GroupCx *c, uint32_t j);
/* Is the group's result packed: rank 5, an RGBA last axis of 4? */
bool lower_packed_result(const GroupCx *c);
/* Can member k (and the chain below it) compute `lanes` consecutive
 * elements along its result's last axis as one vector? */
bool lower_chain_lanes_ok(GroupCx *c, int k, uint32_t lanes);
/* 4 when the group's result is packed and every member can compute a
 * texel as a 4-lane vector; else 1. */
uint32_t lower_group_lanes(GroupCx *c);
/* The same for the members after the master, which a tiled schedule
 * gives texels of its own making (lower_tile_dw.c). */
uint32_t lower_consumer_lanes(GroupCx *c);
/* Can the members after the master compute `lanes` consecutive elements
 * along the result's last axis as a vector (the master's value given)? */
bool lower_consumers_lanes_ok(GroupCx *c, uint32_t lanes);
/* Can the members after the master compute texels of several channel
 * blocks as one vector (lower_store_wide): a packed float result, each
 * member elementwise of the master's shape, each outside operand packed
 * and broadcast along the result's axes or a single element? */
bool lower_consumers_wide_ok(GroupCx *c);

/* ------------------------------------------- lower_nest.c: the bottom */

/* The conv2d master's data operand read from buf at idx (lanes along
 * the last axis): a load, times s at idx's n and c (spatial axes 0)
 * when the group has a scale prologue (Group.scale) and buf is x's own
 * buffer; a copy of it (a padded input) has the scale in it already. */
PExpr *lower_load_data(GroupCx *c, PVar *buf, PExpr *const *idx, uint32_t lanes);
/* s at x's index idx (its spatial axes read 0), of `lanes` lanes along
 * the last axis (one element repeated where s's last axis is 1); NULL
 * without a scale prologue.  A cpu tile that broadcasts each element of
 * x over a vector of weights multiplies the weights by it instead, once
 * per reduction step rather than once per element of x (lower_tile.c). */
PExpr *lower_data_scale(GroupCx *c, PExpr *const *idx, uint32_t lanes);

/* Fills c->in with the group's outside operands (a tuple: each field). */
void lower_collect_inputs(GroupCx *c);
/* Opens a kernel named after the prim (@prim_k0, @prim_k1, ...). */
void lower_kernel(GroupCx *c);
/* Opens a kernel and the schedule's loops over dims (rank n); idx gets
 * each axis's index.  Close with pb_close_to(c->b, depth) for a
 * pb_depth taken before. */
void lower_open_nest(GroupCx *c, const int64_t *dims, uint32_t n, PExpr **idx,
                     bool inner_vector);
/* The index of each axis of dims (rank n) that sel marks (all if sel is
 * NULL) from q, their flat index in C order; let-bound where not
 * trivial.  The other entries of idx are left alone. */
void lower_unflatten(PBuild *b, PExpr *q, const int64_t *dims, const bool *sel, uint32_t n,
                     PExpr **idx);
/* The most work items a gpu work group gets: max_work_group_size, at
 * most 256. */
int64_t lower_wg_limit(const Device *dev);
/* lo <= e < hi. */
PExpr *lower_in_range(PBuild *b, PExpr *e, int64_t lo, int64_t hi);
/* The padded-window test: (y, x) lies in [ylo, yhi) x [xlo, xhi). */
PExpr *lower_inside(PBuild *b, PExpr *y, PExpr *x, int64_t ylo, int64_t yhi, int64_t xlo,
                    int64_t xhi);

/* ------------------------------------------------ whole-group schedules */

/* Whole-group lowerings for the operators that are not one value per
 * output element (lower_ops.c): they write the result buffers
 * themselves. */
bool lower_softmax(GroupCx *c);
/* softmax's axis, normalized (lower_ops.c). */
int64_t lower_softmax_axis(const Value *v);
/* softmax over several work items per row on a gpu (lower_reduce.c): 1
 * when lowered, 0 when it does not apply. */
int lower_softmax_gpu(GroupCx *c);
/* softmax along the last axis of f32 rows on a cpu, in vectors
 * (lower_reduce_cpu.c): 1 if lowered, 0 if it does not apply. */
int lower_softmax_cpu(GroupCx *c);
/* Part t of a row of n elements along the last axis in vectors of V (t
 * 0: the vectors, 1: the tail, one at a time): opens its loop and sets
 * *last to the last axis's index; false, nothing opened, when the part
 * is empty (lower_reduce_cpu.c). */
bool lower_row_part(PBuild *b, int t, int64_t n, uint8_t V, PExpr **last);
/* nn.layer_norm (lower_norm.c): a work item per row, element by element;
 * a gpu's rows of several work items each, a cpu's f32 rows in vectors
 * (1 if lowered, 0 if it does not apply). */
bool lower_layer_norm(GroupCx *c);
int lower_layer_norm_gpu(GroupCx *c);
int lower_layer_norm_cpu(GroupCx *c);
bool lower_split(GroupCx *c);
/* The attributes of a sum or mean binding: the axes of its operand it
 * reduces, keepdims. */
void lower_reduce_attrs(const Value *v, ReduceAttrs *a);
/* The type an average (mean, avg_pool2d, global_avg_pool2d) of elements
 * of kind k adds up in: i64 for signed and u64 for unsigned integers,
 * as the reference kernels' accumulator (lib/ref/ref_impl.h), so the
 * quotient is exact before it is wrapped to k; k itself for floats.  A
 * sum needs no wider type: its low bits are the same either way. */
ElemKind lower_average_kind(ElemKind k);
/* A group ending in a reduction that ir-lower spreads over several work
 * items per result (lower_reduce.c): a sum, a mean, a global average
 * pool, or a max or average pool of a large window.  R elements make
 * each result; a result of a packed (NCHWc) group is a texel of 4 lanes,
 * computed as one vector: a unit. */
typedef struct {
	OpId op;
	const Type *it, *ot;          /* the reduction's operand and result */
	bool red[LOWER_MAX_RANK];     /* sum, mean, global pool: reduced axes */
	bool keep;                    /* sum, mean: keepdims */
	bool window;                  /* max_pool2d, avg_pool2d */
	PoolAttrs pa;
	int hax, wax;                 /* pools: the H and W axes */
	int64_t R;                    /* elements per result */
	uint32_t lanes;               /* 4: a unit is a texel, else 1 */
	int64_t udims[LOWER_MAX_RANK];/* the result's dims, the last 1 for texels */
	int64_t U;                    /* units */
	ElemKind kk, ak;              /* the result's kind, the accumulator's */
} Reduction;
/* The group's reduction when its last member is one of those above and
 * can be split (0 when not). */
bool lower_reduction(GroupCx *c, Reduction *rd);
/* The operand's index for unit index oidx and in[] the reduced axes'
 * indices from f, their flat index (C order; for a window: ky, kx; with
 * V > 1, of vectors of V along the last axis);
 * for a window, the test that the element lies inside the input (NULL
 * otherwise). */
PExpr *lower_reduction_index(GroupCx *c, const Reduction *rd, PExpr *const *oidx, PExpr *f,
                             uint32_t V, PExpr **in);
/* The operand at in (rd->lanes, or `lanes` along the last axis),
 * converted to the accumulator's kind; NULL after an error. */
PExpr *lower_reduction_operand(GroupCx *c, const Reduction *rd, PExpr *const *in, uint32_t lanes);
/* a combined with x: a + x, or max(a, x) for max_pool2d */
PExpr *lower_reduction_combine(GroupCx *c, const Reduction *rd, PExpr *a, PExpr *x);
/* The identity of the combination (0, or the lowest value). */
PExpr *lower_reduction_init(GroupCx *c, const Reduction *rd);
/* Stores the result of unit oidx from total, its combined elements: a
 * mean divided, an average pool by its count, cast to the result. */
void lower_reduction_store(GroupCx *c, const Reduction *rd, PExpr *const *oidx, PExpr *total);
/* Loops over the units' partial results of S slices, ps [S, U, lanes],
 * combined and stored (a kernel of its own). */
void lower_reduction_slices(GroupCx *c, const Reduction *rd, PVar *ps, int64_t S);
/* ps [S, U, lanes] of the partial results when S > 1, else NULL. */
PVar *lower_reduction_parts(GroupCx *c, const Reduction *rd, int64_t S);
/* The end of a sliced reduction's kernel: total stored as slice s's part
 * of unit u in ps, or, unsliced (ps NULL), as unit oidx's result; the
 * nest closed to depth, then the kernel that combines the parts. */
void lower_reduction_finish(GroupCx *c, const Reduction *rd, PVar *ps, PExpr *s, PExpr *u,
                            PExpr *const *oidx, PExpr *total, int depth, int64_t S);
/* gpu (lower_reduce.c) and cpu (lower_reduce_cpu.c) schedules of such a
 * group: 1 when lowered, 0 when it does not apply, -1 after an error. */
int lower_reduce_gpu(GroupCx *c);
int lower_reduce_cpu(GroupCx *c);
/* A max or average pool of a window on a cpu, a row of outputs per work
 * item in vectors (lower_pool_cpu.c): 1, 0 or -1 as above. */
int lower_pool_cpu(GroupCx *c);
/* part[0] = the sum of the WG items' acc[0] (lower_reduce.c) */
void lower_sum_shares(PBuild *b, PVar *part, PVar *acc, PExpr *t, int64_t WG);
/* As lower_sum_shares for segments of T items (t: the item's place in
 * its segment, tx: in the work group; a segment's items stride apart in
 * tx) of L-lane shares (share, each item's), added, or combined by max;
 * the result ends in part[tx - t stride] (lower_reduce.c). */
void lower_combine_shares(PBuild *b, PVar *part, PExpr *share, PExpr *t, PExpr *tx, int64_t T,
                          int64_t stride, uint8_t L, bool max);
/* In an open kernel: for %bx in 0..groups bind(blockIdx.x) { alloc
 * %part: k[WG] (or [WG, L]) @dev:shared; for %tx in 0..WG
 * bind(threadIdx.x) { ... (left open; returns tx, sets *bx and *part;
 * lower_reduce.c). */
PExpr *lower_open_groups(GroupCx *c, int64_t groups, int64_t WG, ElemKind k, uint8_t L, PExpr **bx,
                         PVar **part);
/* Whether rows of n elements (consecutive ones where inner) get several
 * work items each on a gpu, as softmax's and layer_norm's rows: then T
 * items per row and G rows per work group (lower_reduce.c). */
bool lower_row_items(const Device *dev, int64_t n, int64_t rows, bool inner, int64_t *T,
                     int64_t *G);

/* ------------------------------------------------------- tiled schedules */

/* Register-tiled dense, batch_matmul and conv2d (lower_tile.c): 1 when it
 * lowered the group, 0 when the group has no tiled schedule, -1 after an
 * error. */
int lower_tiled(GroupCx *c);
/* A grouped or depthwise conv2d, a row of outputs per work item with its
 * input window in registers (lower_tile_dw.c): 1, 0 or -1 as
 * lower_tiled. */
int lower_tile_grouped(GroupCx *c);
/* dense, batch_matmul and conv2d on a gpu as a matrix product tiled in
 * shared memory (lower_tile_gpu.c): 1, 0 or -1 as lower_tiled. */
int lower_tiled_gpu(GroupCx *c);
/* A dense or batch_matmul of fewer than 8 rows, or a 1x1 conv2d of a
 * 1x1 image, on a gpu: several work items per result (lower_gemv.c); 1,
 * 0 or -1 as lower_tiled. */
int lower_gemv_gpu(GroupCx *c);
/* A packed conv2d (NCHW4c, OIHW4o) that lower_tiled_gpu takes, whatever
 * its buffers' scopes (images too): for ir-lower --stats. */
bool lower_gpu_packed_gemm(const GroupCx *c);

/* What the tiles share (lower_tile_base.c). */
/* Whether the group's device is a gpu (or accelerator): not a cpu. */
bool lower_on_gpu(const GroupCx *c);
/* `for %<prefix>N in 0..n KIND {`, or nothing for n == 1 (the index is
 * 0).  Callers close back to a pb_depth taken before. */
PExpr *lower_loop(PBuild *b, const char *prefix, int64_t n, ForKind kind);
/* acc + x * w, as one fma for floats; x, w and acc have acc's type. */
PExpr *lower_mac(PBuild *b, PExpr *acc, PExpr *x, PExpr *w);
/* Is l the layout of that name? */
bool lower_is_layout(const Layout *l, const char *name);
/* The shape of a dense [M,K] x [N,K] or batch_matmul [B|1,M,K] x
 * [B|1,N,K] that the tiles take: false for literal
 * operands or an empty tensor.  A dense's rows are every axis of x but
 * its last (a transformer's [1,197,768]: 197 rows), M their product; a
 * dense of weight_layout "NC<P>n" has its weight [N/P,K,P] (pack P).  A
 * batch_matmul may transpose x ([B|1,K,M], ta) and take y as [B|1,K,N]
 * (tb false, as ir-import-onnx writes MatMul). */
typedef struct {
	uint32_t o; /* the axes after the batch: 1 if batched */
	int64_t B, BX, BW, M, K, N; /* batches of the result, x and w */
	int64_t pack;               /* P, or 0 for a weight [B|1,N,K] */
	bool batched, ta, tb;
	uint32_t lead;              /* dense: x's axes before its last */
	const int64_t *ldims;       /* their sizes */
} MatmulShape;
bool lower_matmul_shape(const GroupCx *c, bool batched, MatmulShape *sh);
/* The index of x at batch bt, row m, reduction index k into idx (x's
 * rank entries); a dense's row is taken apart into its leading axes
 * (let-bound) unless pre has them already (lower_matmul_rows; NULL:
 * here).  A batch of 1 reads batch 0. */
void lower_matmul_xi(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *m, PExpr *k,
                     PExpr *const *pre, PExpr **idx);
/* A dense's row m as the indices of x's leading axes, let-bound, into
 * pre (sh->lead entries). */
void lower_matmul_rows(PBuild *b, const MatmulShape *sh, PExpr *m, PExpr **pre);
/* The index of an unpacked weight at batch bt, column n, reduction k. */
void lower_matmul_wi(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *n, PExpr *k,
                     PExpr **idx);
/* The index of the result at batch bt, row m, column n (pre as for x). */
void lower_matmul_oi(PBuild *b, const MatmulShape *sh, PExpr *bt, PExpr *m, PExpr *n,
                     PExpr *const *pre, PExpr **idx);
/* Stores e, member 0's value at idx (lanes along the last axis), through
 * the fused consumers into the result; false after an error. */
bool lower_store_through(GroupCx *c, PExpr *e, PExpr *const *idx, uint32_t lanes);
/* lower_store_through's two halves, up to member last (the group's last,
 * or the one before a layer_norm that ends it: lower_norm_product):
 * member last's index oi for the master's idx, through an index-map
 * epilogue before it; and member last's value there, for e, the
 * master's at idx (a variable: let-bound); NULL after an error. */
void lower_index_through(GroupCx *c, PExpr *const *idx, int last, PExpr **oi);
PExpr *lower_value_through(GroupCx *c, PExpr *e, PExpr *const *idx, PExpr *const *oi, int last,
                           uint32_t lanes);
/* The S slices' sums of a product's element (row, col) in ps [S, M, N],
 * added in slice order: the same sum whichever work group or kernel adds
 * them. */
PExpr *lower_slice_sum(PBuild *b, PVar *ps, int64_t S, PExpr *row, PExpr *col);
/* Does the group end in a layer_norm fused after its product (lower.c's
 * norm_epilogue)? */
static inline bool
lower_ends_in_norm(const Group *g)
{
	return g->n > 1 && g->members[g->n - 1]->u.op->op->id == O_LAYER_NORM;
}
/* That layer_norm as the second kernel of the product's prim: its rows
 * (the product's rows) from the product's S slices in ps, through the
 * epilogue members between (lower_norm.c); 1, or -1 after an error. */
int lower_norm_product(GroupCx *c, PVar *ps, int64_t S, const MatmulShape *mm);
/* The same for e, the texels of n consecutive channel blocks from idx[1]
 * (4 * n lanes) of a packed result, the fused consumers computed on all
 * of them at once (lower_consumers_wide_ok); each texel is stored on its
 * own, those of blocks below tstart (when not NULL) not at all. */
bool lower_store_wide(GroupCx *c, PExpr *e, PExpr *const *idx, uint32_t n, PExpr *tstart);

/* The attributes of a verified binding, through ops/attrs.h's decoders. */
void lower_conv_attrs(const Value *v, ConvAttrs *a);
void lower_pool_attrs(const Value *v, PoolAttrs *a);
/* batch_matmul's transpose_a and transpose_b, with TVM's defaults. */
void lower_matmul_transposes(const Value *v, bool *ta, bool *tb);
/* dense's weight_layout "NC<P>n": P, or 0 for "NC" (and batch_matmul). */
int64_t lower_dense_pack(const Value *v);

/* True if the operator is one lower_member handles (all but softmax,
 * layer_norm and split, which are lowered whole). */
bool lower_is_elementwise_form(const OpDef *op);
/* True if the member computes a reduction (loops of its own per element). */
bool lower_has_reduction(const OpDef *op);

#endif
