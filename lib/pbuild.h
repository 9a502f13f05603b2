/* pbuild.h: building loop-level code (prims, statements, expressions) from
 * C, for ir-lower.
 *
 * A PBuild appends statements to the innermost open block; a loop, an if
 * or a kernel opens its body, pb_close closes it.  Expressions are built
 * with their element types set as the verifier would infer them, and the
 * integer ones are folded on the way (0 + i is i, 2 * 3 is 6), so lowered
 * code reads like hand-written code and its index arithmetic stays short.
 * Every expression keeps its depth; ir-lower binds a value to a `let`
 * before it grows past what the parser accepts (IR_MAX_EXPR_DEPTH).
 */
#ifndef PBUILD_H
#define PBUILD_H

#include "ir.h"

#define PB_MAX_NEST 64

typedef struct {
	Module *m;
	Prim *p;
	PBlock *blk[PB_MAX_NEST];    /* open blocks, innermost last */
	int n;
	uint32_t nvars;              /* for unique names */
	Arena *arena;                /* m->arena */
	Loc loc;                     /* of every statement and parameter made, and
	                              * of the prim (pb_start): the operator lowered,
	                              * so that a module read with loc(...) prints
	                              * one on every line of its new prims too */
	bool bad;                    /* an integer was made that its type cannot
	                              * hold (a dilation of 2^32 in i32 index
	                              * arithmetic): the first is bad_int of
	                              * bad_kind, for the caller to report once */
	int64_t bad_int;
	ElemKind bad_kind;
} PBuild;

/* Starts prim `name` with no parameters; its body is the open block.
 * Everything made is at `at` (line 0: unknown). */
void pb_start(PBuild *b, Module *m, Prim *p, Loc at);
PVar *pb_param_buffer(PBuild *b, const char *name, const Type *ty, const VDev *vd);

/* A fresh scalar name "<prefix><N>" with element type dt (lanes
 * included); not yet defined anywhere. */
PVar *pb_scalar(PBuild *b, const char *prefix, DType dt);

/* -------------------------------------------------------- expressions */

/* For a u64, v holds the bits of the number (above INT64_MAX: negative). */
PExpr *pe_int(PBuild *b, int64_t v, ElemKind k);
PExpr *pe_i32(PBuild *b, int64_t v);
PExpr *pe_float(PBuild *b, double v, ElemKind k);
PExpr *pe_bool(PBuild *b, bool v);
/* The lowest value of k (-inf for floats), the highest. */
PExpr *pe_lowest(PBuild *b, ElemKind k);
PExpr *pe_var(PBuild *b, PVar *v);
/* idx has buf's rank; lanes > 1 makes the last index a lane run. */
PExpr *pe_load(PBuild *b, PVar *buf, PExpr *const *idx, uint32_t lanes);
PExpr *pe_bin(PBuild *b, PBinOp op, PExpr *x, PExpr *y);
PExpr *pe_add(PBuild *b, PExpr *x, PExpr *y);
PExpr *pe_sub(PBuild *b, PExpr *x, PExpr *y);
PExpr *pe_mul(PBuild *b, PExpr *x, PExpr *y);
PExpr *pe_div(PBuild *b, PExpr *x, PExpr *y);
PExpr *pe_mod(PBuild *b, PExpr *x, PExpr *y);
PExpr *pe_neg(PBuild *b, PExpr *x);
PExpr *pe_not(PBuild *b, PExpr *x);
PExpr *pe_select(PBuild *b, PExpr *c, PExpr *x, PExpr *y);
PExpr *pe_cast(PBuild *b, DType to, PExpr *x);
PExpr *pe_broadcast(PBuild *b, uint8_t lanes, PExpr *x);
/* An intrinsic ("max", "exp", "fma", ...) of n operands. */
PExpr *pe_call(PBuild *b, IntrinId fn, uint32_t n, PExpr *const *args);
/* lane(v, k): lane k of the vector v. */
PExpr *pe_lane(PBuild *b, PExpr *v, uint32_t k);
PExpr *pe_call1(PBuild *b, IntrinId fn, PExpr *x);
PExpr *pe_call2(PBuild *b, IntrinId fn, PExpr *x, PExpr *y);
/* A literal of x's type (lanes broadcast): 0 + x's type, and so on. */
PExpr *pe_like(PBuild *b, const PExpr *x, double v);
/* The integer value of a folded literal, for the simplifier. */
bool pe_is_int(const PExpr *e, int64_t *v);

/* --------------------------------------------------------- statements */

/* for %var in lo..hi KIND { ... }: opens the body. */
PStmt *pb_for(PBuild *b, PVar *var, PExpr *lo, PExpr *hi, ForKind kind, const char *thread);
/* if cond { ... }: opens the then arm. */
PStmt *pb_if(PBuild *b, PExpr *cond);
/* kernel @name { ... }: opens the body. */
PStmt *pb_kernel(PBuild *b, const char *name);
void pb_close(PBuild *b);
/* How many blocks are open (the prim's body alone: 1).  Taken before
 * opening a nest, it is what pb_close_to closes back to. */
int pb_depth(const PBuild *b);
/* Closes the innermost blocks until `depth` are open. */
void pb_close_to(PBuild *b, int depth);
/* barrier: the work items of a work group meet. */
void pb_barrier(PBuild *b);
/* mem_fence(): this item's global stores so far are seen before its later
 * ones by every work item (ir(5)); atomic_add is pe_call2(I_ATOMIC_ADD,
 * a load of the element, the i32 added). */
void pb_mem_fence(PBuild *b);
/* let %<prefix>N = e; returns its variable, or e itself when it is a
 * literal or a variable already (no let needed). */
PExpr *pb_let(PBuild *b, const char *prefix, PExpr *e);
void pb_store(PBuild *b, PVar *buf, PExpr *const *idx, uint32_t lanes, PExpr *val);
PVar *pb_alloc(PBuild *b, const char *prefix, const Type *ty, const VDev *vd);

#endif
