/* ir.h: the in-memory IR of irpipe.
 *
 * A Module owns one Arena; every node, name and type of the module lives in
 * it and is freed at once with the module.  Names that are compared often
 * (globals, devices, scopes, attribute keys, operator names) are interned
 * Syms, so equality is pointer equality.  Types and virtual devices are
 * hash-consed per module for the same reason.
 *
 * Two levels share a module: the graph level (Func, Value, Block) and the
 * loop level (Prim, PVar, PStmt, PExpr).  Blocks are singly linked lists of
 * nodes; nesting (if arms, loop bodies) is a tree, but every walk over it in
 * lib/ uses an explicit stack, never C recursion, because the depth is the
 * user's.  Loop-level expressions are the one exception: their depth is
 * capped by the parser (IR_MAX_EXPR_DEPTH), so recursion over them is safe.
 */
#ifndef IR_H
#define IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "map.h"

/* ---------------------------------------------------------------- arena */

typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);        /* zeroed, 8-byte aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
size_t arena_bytes(const Arena *a);           /* bytes obtained from malloc */

/* The one growable array: T *a with counts n (used) and cap (held), of
 * any integer type.  VEC_PUSH(a, n, cap) = x appends x, doubling the
 * allocation (from 16) when full; VEC_RESERVE makes room for one more.
 * The arguments are evaluated more than once: pass plain lvalues. */
#define VEC_RESERVE(a, n, cap)                                                   \
	((size_t)(n) < (size_t)(cap) ? (void)0                                    \
	 : (void)((cap) = vec_cap((size_t)(cap), (size_t)(n) + 1, sizeof *(a)),   \
	          (a) = xrealloc((a), (size_t)(cap) * sizeof *(a))))
#define VEC_PUSH(a, n, cap) (*(VEC_RESERVE(a, n, cap), &(a)[(n)++]))
/* The capacity to grow cap to for need elements of size sz: doubled (at
 * least 16), dying rather than overflowing. */
size_t vec_cap(size_t cap, size_t need, size_t sz);

/* Growable array of pointers, malloc-backed, for builders and walks. */
typedef struct {
	void **v;
	size_t n, cap;
} PtrVec;
void ptrvec_push(PtrVec *pv, void *p);
void ptrvec_free(PtrVec *pv);

/* Memory that cannot be had is not an input error: print and exit. */
_Noreturn void die_oom(void);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);

/* --------------------------------------------------------- locations */

/* A source position.  file indexes the SrcMgr of the Ctx (0 = none).
 * line 0 means "unknown". */
typedef struct {
	uint32_t line;
	uint32_t col;            /* bytes from the line's start, from 1; lines
	                          * longer than 4 GiB are capped at UINT32_MAX */
	uint16_t file;
} Loc;

/* ------------------------------------------------------------- symbols */

/* An interned, NUL-terminated string; equal names are the same pointer. */
typedef const char *Sym;

/* ---------------------------------------------------------------- types */

typedef enum {
	ET_BOOL, ET_I8, ET_I16, ET_I32, ET_I64,
	ET_U8, ET_U16, ET_U32, ET_U64,
	ET_F16, ET_F32, ET_F64,
	ET__COUNT
} ElemKind;

/* Element type with vector lanes (lanes 1 = scalar element). */
typedef struct {
	uint8_t kind;   /* ElemKind */
	uint8_t lanes;  /* 1, 2, 3, 4, 8, 16 */
} DType;

const char *elem_name(ElemKind k);           /* "f32" */
int elem_bits(ElemKind k);
bool elem_is_float(ElemKind k);
bool elem_is_signed(ElemKind k);              /* signed ints and floats */
/* The values an integer or bool element can hold: lo..hi (u64: hi is
 * 2^64-1, held as a uint64_t). */
void elem_int_range(ElemKind k, int64_t *lo, uint64_t *hi);
/* The largest finite value of a float element type. */
double elem_float_max(ElemKind k);
bool elem_float_fits(ElemKind k, double v);
bool dtype_eq(DType a, DType b);
/* Parses "f32", "f32x4"; returns false if s is not an element type. */
bool dtype_parse(const char *s, size_t n, DType *out);
/* Writes "f32" or "f32x4" into buf (at least 8 bytes). */
void dtype_str(DType d, char *buf);

typedef enum { TY_TENSOR, TY_TUPLE } TypeKind;

/* The format's rank limit (ir(5)): the parser refuses more, so every pass
 * may keep one tensor's dimensions or indices in a fixed array. */
#define IR_MAX_RANK 64

/* The format's limits on tuple types (ir(5)): tuples nest at most
 * IR_MAX_TYPE_DEPTH deep (a tensor is depth 0, a tuple of tensors 1) and
 * hold at most IR_MAX_TYPE_TENSORS tensors in all, counted through every
 * level.  The parser and the verifier refuse more, so a walk over a type may
 * recurse, and its printed spelling stays well inside the lexer's bracket
 * limit and of a size linear in the fields written. */
#define IR_MAX_TYPE_DEPTH 64
#define IR_MAX_TYPE_TENSORS 65536
/* A macro's value as a string literal: IR_STR(IR_MAX_TYPE_DEPTH) is "64". */
#define IR_STR_(x) #x
#define IR_STR(x) IR_STR_(x)

/* Hash-consed: two equal types are the same pointer within a module. */
typedef struct Type Type;
struct Type {
	uint8_t kind;            /* TypeKind */
	DType dt;                /* TY_TENSOR: element type */
	uint16_t depth;          /* 0 for a tensor; 1 + deepest field (saturates) */
	uint32_t tensors;        /* tensors in all, 1 for a tensor (saturates) */
	uint32_t n;              /* TY_TENSOR: rank; TY_TUPLE: fields */
	const int64_t *dims;     /* TY_TENSOR */
	const Type *const *fields; /* TY_TUPLE */
};

/* ------------------------------------------------------------ attributes */

typedef enum { AT_INT, AT_FLOAT, AT_STR, AT_BOOL, AT_LIST, AT_SYM } AttrKind;

typedef struct Attr Attr;
struct Attr {
	uint8_t kind;     /* AttrKind */
	uint32_t n;       /* AT_STR: byte length; AT_LIST: elements */
	Loc loc;
	union {
		int64_t i;        /* AT_INT, AT_BOOL */
		double f;         /* AT_FLOAT */
		const char *s;    /* AT_STR: decoded bytes (may hold NUL), NUL-terminated */
		Sym sym;          /* AT_SYM: a global name, "sram" for @sram */
		Attr *list;       /* AT_LIST */
	} u;
};

typedef struct {
	Sym key;
	Loc loc;          /* of the key */
	Attr val;
} AttrEntry;

/* Sorted by key (strcmp) once the parser is done with it; keys unique. */
typedef struct {
	uint32_t n;
	AttrEntry *e;
} AttrMap;

const Attr *attr_get(const AttrMap *m, const char *key);
/* Whether key is written and `true`. */
bool attr_true(const AttrMap *m, const char *key);

/* The annotations of an alloc that the runtime and the interpreter honour
 * (ir(5), "Allocation annotations"): `zeroed`, a buffer that is all
 * zeros whenever a call of its prim begins and that the prim leaves so
 * (made once, filled with zeros, never shared with another buffer, kept
 * across calls and runs); `coherent`, a buffer whose loads and stores go
 * around caches that one work group does not see another's writes
 * through (OpenCL's volatile). */
#define ANNOT_ZEROED "zeroed"
#define ANNOT_COHERENT "coherent"

/* -------------------------------------------------------------- devices */

typedef enum { DK_CPU, DK_GPU, DK_ACCEL } DevKind;

typedef struct Device Device;
struct Device {
	Sym name;                 /* "gpu" for @gpu */
	DevKind kind;
	int64_t index;
	bool texture;             /* attrs: texture=true */
	int64_t image2d_max[2];   /* width, height; default 8192x8192 */
	int64_t max_work_group_size; /* default 256 */
	AttrMap attrs;            /* everything as written, for printing */
	Loc loc;
	Device *next;
};

/* A virtual device: a device plus a memory scope.  scope NULL = open.
 * Hash-consed per module, so compare pointers. */
typedef struct VDev VDev;
struct VDev {
	Sym dev;
	Sym scope;
};

typedef struct Pool Pool;
struct Pool {
	Sym name;
	AttrMap attrs;            /* size, devices, kind, ... */
	Loc loc;
	Pool *next;
};

/* Canonical spelling of a memory scope: TVM's "global.texture" is
 * "texture", "global.texture-weight" is "texture:weight",
 * "global.texture-nhwc" is "texture:nhwc", "global.<pool>" is
 * "global-<pool>".  Others are returned unchanged. */
const char *scope_canonical(const char *s, size_t n, size_t *outn, char *buf, size_t bufsz);

/* -------------------------------------------------------- graph level */

typedef enum {
	VK_PARAM,    /* function parameter */
	VK_BIND,     /* a binding in a block */
	VK_LIT,      /* a literal operand: 1, 2.5, true */
} ValueKind;

typedef enum {
	B_OP,           /* %r = op.name(args) {attrs} */
	B_CALL,         /* %r = @f(args) */
	B_CALL_LOWERED, /* %r = call_lowered @k(args) */
	B_ON_DEVICE,    /* %r = on_device(%a, @vd, constrain_body=, constrain_result=) */
	B_DEVICE_COPY,  /* %r = device_copy(%a, @src -> @dst) */
	B_TUPLE,        /* %r = (%a, %b) */
	B_PROJ,         /* %r = %t.0 */
	B_CONST,        /* %r = const TYPE data */
	B_IF,           /* %r = if %c { ... yield %a } else { ... yield %b } */
} BindForm;

/* Flags on a Value: what the text said, kept from pass to pass. */
enum {
	VF_TYPED = 1,        /* the input wrote ": TYPE" */
	VF_ON = 2,           /* the input wrote "on VDEV": a hard constraint */
	VF_LIT_FLOAT = 4,    /* VK_LIT: written as a float */
	VF_LIT_BOOL = 8,     /* VK_LIT: true/false */
	VF_BODY = 16,        /* B_ON_DEVICE: constrain_body (default true) */
	VF_RESULT = 32,      /* B_ON_DEVICE: constrain_result (default false) */
	VF_LOC = 64,         /* loc(...) was written for this node */
	VF_CONST_FILE = 128, /* B_CONST: data in a .npy file */
	VF_LIT_U64 = 256,    /* VK_LIT: an integer above INT64_MAX; u.i holds
	                      * the bits of the unsigned number (a u64 or a
	                      * float, never a signed type) */
	VF_ERROR = 512,      /* the parser reported an error on this binding's
	                      * line (on a Func or Prim: in its definition, and
	                      * not only on such lines): the verifier checks only
	                      * what does not depend on it, so no error cascades.
	                      * Set only in a module that is never returned. */
	/* Pass-owned bits: a pass (the parser, the verifier, a tool's pass)
	 * names them for its own use in its own file and clears them before
	 * it ends (or unlinks the value), so they are zero between passes;
	 * the verifier checks that, and no pass reads another's. */
	VF_PASS_A = 1 << 12,
	VF_PASS_B = 1 << 13,
	VF_PASS_C = 1 << 14,
	VF_PASS_D = 1 << 15,
	VF_PASS_MASK = 0xf000,
};

typedef struct Value Value;
typedef struct Block Block;
typedef struct Func Func;
typedef struct Prim Prim;
typedef struct OpDef OpDef;
typedef struct Module Module;

struct Block {
	Value *first, *last;  /* bindings, linked by Value.next */
	Value *yield;         /* returned / yielded operand */
	Loc yloc;             /* of the return / yield keyword */
};

/* An operator with its attributes.  Calls without attributes share one per
 * operator and module, so a binding pays one pointer for it. */
typedef struct {
	const OpDef *op;      /* NULL after an unknown name was reported */
	AttrMap *attrs;       /* NULL: none */
} OpCall;

/* The two ends of a device_copy. */
typedef struct {
	const VDev *src, *dst;
} CopyEnds;

typedef struct {
	uint32_t count;       /* number of elements */
	union {
		double *f;        /* float element types */
		int64_t *i;       /* integer and bool element types */
	} u;
	const char *path;     /* VF_CONST_FILE: as written */
} ConstData;

/* 64 bytes plus the operands: a million bindings must fit in ~150 MB with
 * the source text, so fields are packed, operands stored inline, and the
 * union holds one pointer.  scratch is a field of its own, so a pass that
 * keeps something per value (a number for its side arrays, a domain)
 * leaves the placement alone. */
struct Value {
	uint8_t kind;         /* ValueKind */
	uint8_t form;         /* BindForm, for VK_BIND */
	uint16_t flags;       /* VF_* */
	uint32_t nargs;
	const char *name;     /* "x" for %x, arena copy, not interned; NULL for literals */
	const Type *type;     /* NULL until inferred */
	const VDev *vd;       /* placement; NULL = not placed */
	uint32_t scratch;     /* a pass's own: set before it is read, meaningless between passes */
	Loc loc;
	Value *next;          /* next binding in the block */
	union {
		const OpCall *op;                                 /* B_OP */
		Func *callee;                                     /* B_CALL */
		Prim *prim;                                       /* B_CALL_LOWERED */
		const VDev *target;                               /* B_ON_DEVICE */
		CopyEnds *copy;                                   /* B_DEVICE_COPY */
		uint32_t index;                                   /* B_PROJ */
		ConstData *cdata;                                 /* B_CONST */
		Block *arms;                                      /* B_IF: arms[0], arms[1] */
		int64_t i;                                        /* VK_LIT int/bool */
		double f;                                         /* VK_LIT float */
		Sym ref;                                          /* parser scratch: callee name */
	} u;
	Value *args[];        /* operands: nargs of them */
};

/* Allocates a value with room for nargs operands (all NULL). */
Value *value_new(Module *m, ValueKind kind, uint32_t nargs);
/* The number an integer literal operand stands for, as a double. */
double lit_int_double(const Value *lit);
/* The type of a literal operand where no operator types it (a call's
 * argument, a tuple field, a result): bool[], f32[], u64[] as written,
 * else i32[] if its value fits, i64[] if not. */
const Type *lit_default_type(Module *m, const Value *lit);
/* The OpCall for op with attrs (shared when attrs is NULL). */
const OpCall *module_opcall(Module *m, const OpDef *op, AttrMap *attrs);
/* Makes v a device_copy from src to dst. */
void value_set_copy(Module *m, Value *v, const VDev *src, const VDev *dst);

struct Func {
	Sym name;
	Loc loc;
	uint32_t nparams;
	Value **params;       /* VK_PARAM values */
	const Type *ret_type; /* NULL until inferred if not written */
	const VDev *ret_vd;   /* NULL = unplaced */
	uint16_t flags;       /* VF_TYPED / VF_ON for the result, VF_LOC */
	Block body;           /* body.yield is the returned operand */
	uintptr_t scratch;    /* a pass's own use */
	Func *next;
};

/* ---------------------------------------------------------- loop level */

typedef enum {
	PV_BUFFER,   /* a buffer: tensor type + scope */
	PV_SCALAR,   /* a scalar: loop variable, let variable, scalar param */
} PVarKind;

typedef struct PVar PVar;
struct PVar {
	uint8_t kind;         /* PVarKind */
	uint16_t flags;       /* VF_LOC */
	Sym name;
	const Type *type;     /* PV_BUFFER: tensor type; PV_SCALAR: rank-0 tensor */
	const VDev *vd;       /* PV_BUFFER: device and scope (scope may be open) */
	AttrMap annots;       /* alloc annotations */
	Loc loc;
	uint16_t dead;        /* parser scratch: out of scope */
	uintptr_t scratch;    /* a pass's own use */
};

typedef enum {
	FK_SERIAL, FK_PARALLEL, FK_VECTORIZED, FK_UNROLLED, FK_THREAD
} ForKind;

typedef enum {
	S_FOR,         /* for %i in lo..hi KIND { body } */
	S_IF,          /* if cond { } else { } */
	S_LET,         /* let %x = e (scope: rest of the block) */
	S_STORE,       /* %B[i, j, k:4] = e */
	S_ALLOC,       /* alloc %B: TYPE @dev:scope [image2d[W, H]] {annotations} */
	S_TEX_STORE,   /* texture2d_store(%B, x, y, e) */
	S_BARRIER,     /* barrier */
	S_KERNEL,      /* kernel @name { body } */
	S_EVAL,        /* an intrinsic call evaluated for effect */
} PStmtKind;

typedef enum {
	E_INT, E_FLOAT, E_BOOL,  /* literals */
	E_VAR,         /* a scalar PVar */
	E_LOAD,        /* %B[i, j, k:4] */
	E_TEX_LOAD,    /* texture2d_load(%B, x, y) */
	E_BIN,         /* a op b */
	E_UN,          /* -a, !a */
	E_SELECT,      /* select(c, a, b) */
	E_CAST,        /* cast<T>(a) */
	E_CALL,        /* an intrinsic (intrin.def): min(a, b), exp(a), lane(v, 2), ... */
	E_BROADCAST,   /* broadcast<f32x4>(a) */
} PExprKind;

typedef enum {
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
	OP_AND, OP_OR,
	OP_NEG, OP_NOT,
} PBinOp;

/* The intrinsics, one per line of intrin.def; I__COUNT: no intrinsic has
 * that name (the verifier reports it). */
typedef enum {
#define INTRIN(id, ...) I_##id,
#include "intrin.def"
#undef INTRIN
	I__COUNT
} IntrinId;

typedef struct {
	const char *name;     /* "fma" */
	uint8_t nargs;
	bool float_only;      /* else integers too (never bool) */
	const char *opencl;   /* the OpenCL C built-in for floats; NULL: none */
} IntrinDef;

/* The intrinsic named by the n bytes at name, or I__COUNT. */
IntrinId intrin_lookup(const char *name, size_t n);
const IntrinDef *intrin_def(IntrinId id);   /* id < I__COUNT */

#define IR_MAX_EXPR_DEPTH 256

/* PExpr.op of an E_INT above INT64_MAX (written so, or a u64 a pass
 * built): u.i holds the bits of the unsigned number, which only a u64 or a
 * floating-point type holds.  Negated right away, 9223372036854775808 is
 * INT64_MIN with op 0.  An E_INT typed u64 without it is at most
 * INT64_MAX, so a u64 literal's value is always (uint64_t)u.i. */
enum { E_INT_U64 = 1 };

typedef struct PExpr PExpr;
typedef struct PStmt PStmt;

typedef struct {
	PStmt *first, *last;
} PBlock;

/* An index of a load or store: an expression, or on the last axis a run of
 * `lanes` consecutive elements starting at the expression (written e:N). */
typedef struct {
	PExpr *e;
	uint32_t lanes;       /* 0 = a plain index */
} PIndex;

struct PExpr {
	uint8_t kind;         /* PExprKind */
	uint8_t op;           /* PBinOp for E_BIN/E_UN; IntrinId for E_CALL */
	DType dt;             /* result element type; set by the verifier */
	uint16_t depth;       /* 1 + deepest operand, <= IR_MAX_EXPR_DEPTH */
	uint32_t n;           /* E_LOAD: indices; E_CALL: args */
	Loc loc;
	union {
		int64_t i;
		double f;
		PVar *var;                                     /* E_VAR */
		struct { PVar *buf; PIndex *idx; } load;       /* E_LOAD */
		struct { PVar *buf; PExpr *x, *y; } tex;       /* E_TEX_LOAD */
		struct { PExpr *a, *b, *c; } ops;              /* E_BIN/E_UN/E_SELECT */
		struct { DType to; PExpr *a; } cast;           /* E_CAST/E_BROADCAST */
		struct { Sym fn; PExpr **args; } call;         /* E_CALL */
		Sym ref;                                       /* parser scratch */
	} u;
};

struct PStmt {
	uint8_t kind;         /* PStmtKind */
	uint8_t fkind;        /* S_FOR: ForKind */
	uint16_t flags;       /* VF_LOC */
	uint32_t n;           /* S_STORE: indices */
	Loc loc;
	PStmt *next;
	union {
		struct { PVar *var; PExpr *lo, *hi; Sym thread; PBlock body; } loop;
		struct { PExpr *cond; PBlock arms[2]; bool has_else; } cond;
		struct { PVar *var; PExpr *val; } let;
		struct { PVar *buf; PIndex *idx; PExpr *val; } store;
		/* image: image2d[width, height] (texels) of an image alloc, as
		 * ir-flatten-texture writes it; 0, 0: a plain alloc */
		struct { PVar *buf; int64_t image[2]; } alloc;
		struct { PVar *buf; PExpr *x, *y, *val; } tex;
		struct { Sym name; PBlock body; struct Launch *launch; } kernel;
		PExpr *eval;
	} u;
};

/* The launch of a kernel after ir-codegen-ocl: NDRange sizes (3 axes,
 * local divides global) and the kernel's arguments in order: prim buffer
 * parameters and prim-level allocs (workspace buffers and images the
 * runtime allocates, sized by their types). */
typedef struct Launch {
	int64_t global[3], local[3];
	uint32_t nargs;
	PVar **args;
	Loc loc;
} Launch;

/* One line of a device's OpenCL program (`| text`), without its newline. */
typedef struct ProgLine ProgLine;
struct ProgLine {
	const char *s;
	uint32_t n;
	ProgLine *next;
};

/* `program @dev { | ... }`: the OpenCL C of one device, line by line. */
typedef struct Program Program;
struct Program {
	Sym dev;
	Loc loc;
	uint32_t nlines;
	ProgLine *first, *last;
	Program *next;
};

struct Prim {
	Sym name;
	Loc loc;
	uint16_t flags;       /* VF_LOC */
	uint32_t nparams;
	PVar **params;
	AttrMap attrs;
	PBlock body;
	Prim *next;
};

/* ------------------------------------------------------------ placements */

/* Where ir-plan-memory put one buffer (ir(5), "Memory plans"): a byte
 * offset in a pool, or for an image the shared image it uses and that
 * image's size in texels. */
typedef struct {
	Sym pool;             /* the pool; NULL: an image */
	int64_t offset;       /* pool: bytes from its start; image: the image id */
	int64_t image[2];     /* image: width, height */
	Loc loc;
} Place;

/* The places of one node: a binding (one per buffer of its type, tuple
 * fields flattened in order), a parameter of a function, or a PVar of an
 * alloc.  Kept beside the nodes, in Module.places, so that unplanned
 * modules pay nothing. */
typedef struct {
	const void *node;
	uint32_t n;
	Place *p;
} PlaceList;

/* --------------------------------------------------------------- module */

typedef struct Ctx Ctx;

struct Module {
	Ctx *ctx;
	Arena *arena;         /* nodes */
	Arena *names;         /* local names, packed without alignment */
	/* interning and hash-consing tables (private to module.c) */
	Map syms, types, vdevs;
	Map plain_ops;        /* OpCalls without attributes, by op */

	Device *devices, *devices_last;
	Pool *pools, *pools_last;
	Func *funcs, *funcs_last;
	Prim *prims, *prims_last;
	Program *programs, *programs_last;
	Sym default_dev; Loc default_loc;   /* as written; NULL if absent */
	Sym host_dev; Loc host_loc;
	bool has_locs;        /* some loc(...) was read: keep printing them */
	void *places;         /* PlaceList by node (module.c); NULL: none */
};

Module *module_new(Ctx *ctx);
void module_free(Module *m);
/* A deep copy of m, a module of its own in the same Ctx (module_clone.c):
 * every node, name, type, attribute and place, with the same locations
 * and flags, so that printed it is m printed.  Linear in m's size. */
Module *module_clone(const Module *m);
Sym sym_intern(Module *m, const char *s, size_t n);
/* A copy of a local name, in the module's name arena. */
const char *module_name(Module *m, const char *s, size_t n);
Sym sym_intern_cstr(Module *m, const char *s);

/* Every @name names one global: a function, prim, device or pool. */
enum { GK_NONE, GK_FUNC, GK_PRIM, GK_DEVICE, GK_POOL };
void sym_set_global(Sym s, int kind, void *obj);
void *sym_global(Sym s, int *kind);      /* NULL, kind GK_NONE if undefined */
const char *global_kind_name(int kind);  /* "function", "prim", ... */

const Type *type_tensor(Module *m, DType dt, uint32_t rank, const int64_t *dims);
const Type *type_tuple(Module *m, uint32_t n, const Type *const *fields);
const Type *type_scalar(Module *m, ElemKind k);
/* The element count of a shape: the product of dims[0..rank) taken in
 * order, or -1 as soon as a partial product overflows int64 (a 0 after
 * that does not help).  The one place it is written. */
int64_t dims_numel(uint32_t rank, const int64_t *dims);
int64_t type_numel(const Type *t);           /* tensors only: dims_numel */
int64_t type_bytes(const Type *t);           /* sum over tuple fields */
/* NULL if t is within IR_MAX_TYPE_DEPTH and IR_MAX_TYPE_TENSORS, else
 * why not, in words for an error message. */
const char *type_over_limits(const Type *t);
/* Appends the canonical spelling ("f32[1,3]", "(f32[4], i32[])"); no
 * recursion, whatever the depth. */
void type_print(FILE *f, const Type *t);
/* The same spelling in buf (n bytes, truncated if need be); returns buf. */
const char *type_text(const Type *t, char *buf, size_t n);

const VDev *vdev_get(Module *m, Sym dev, Sym scope);

/* node's places, or NULL. */
const PlaceList *module_places(const Module *m, const void *node);
/* Sets (replaces) node's places with a copy of n of them; n 0 removes. */
void module_set_places(Module *m, const void *node, uint32_t n, const Place *p);
/* For the passes that come before ir-plan-memory (ir-alter-layout,
 * ir-fold-constants, ir-plan-devices, ir-lower, ir-flatten-texture): true
 * if m has no memory plan; else reports, at the first place, that the tool
 * (its name, such as "ir-lower") runs before ir-plan-memory, and returns
 * false.  Such a pass moves, adds or drops the buffers a plan names, so
 * the plan it left behind would not verify. */
bool module_check_unplanned(Module *m, const char *tool);
/* Calls fn on every PlaceList, in no particular order. */
void module_each_places(const Module *m, void (*fn)(const PlaceList *, void *), void *st);
void module_free_places(Module *m);   /* module_free's */

Device *module_device(const Module *m, Sym name);
Pool *module_pool(const Module *m, Sym name);
Func *module_func(const Module *m, Sym name);
Prim *module_prim(const Module *m, Sym name);
/* The effective default and host devices, per DESIGN.md. NULL if none. */
Device *module_default_device(const Module *m);
Device *module_host_device(const Module *m);
/* The device of prim p's first placed buffer (parameters, then its
 * top-level allocs); NULL if none is placed. */
Device *prim_placed_device(const Module *m, const Prim *p);

/* ------------------------------------------------------- the big three */

/* Parses bytes [begin, end) of source `file` (registered with src_add), so
 * a --split-input-file chunk reports the lines of the whole file.  Returns
 * NULL after reporting errors.  The module is verified and types inferred. */
Module *ir_parse(Ctx *ctx, uint16_t file, size_t begin, size_t end);

/* Checks well-formedness and infers missing types.  Reports through ctx;
 * returns false when an error was reported. */
bool ir_verify(Module *m);
/* ir_verify, optionally without re-checking name uniqueness (for input the
 * parser has just checked). */
bool verify_module(Module *m, bool check_names);

typedef struct {
	bool locations;       /* print loc(...) on every node */
} PrintOpts;
void ir_print(const Module *m, FILE *out, const PrintOpts *opts);
/* d as the printer writes floats: the shortest decimal that reads back to
 * d, always with a '.' or an exponent ("10.0", "1e-07", "nan", "-inf"). */
void ir_print_double(FILE *f, double d);
/* The same spelling for a value of a narrower float type: the shortest
 * decimal that reads back to d once rounded by round (to f32 or f16, say;
 * NULL: a double, as ir_print_double), plain from 1e-5 to below 1e16. */
void ir_print_float(FILE *f, double d, double (*round)(double));

#endif
