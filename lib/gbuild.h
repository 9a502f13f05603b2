/* gbuild.h: building graph-level code (functions, bindings, attribute
 * maps) from C, beside pbuild.h which builds prims.
 *
 * A pass that adds or edits bindings, and an importer that makes a whole
 * module, build through these functions instead of filling Value nodes
 * and AttrMaps by hand, so that what they make is what the parser would
 * have made from the same text:
 *
 *   - an operator call is by OpId, and is typed on the spot by the
 *     operator's type rule (op_infer, as the verifier types it), which
 *     also gives its literal operands their types;
 *   - an attribute map is sorted by key with interned keys, and a map
 *     edited is a copy (maps may be shared by several calls);
 *   - constants, tuples, projections, parameters and the function's
 *     result get the types the parser and the verifier give them.
 *
 * A GBuild appends bindings to a block, or inserts them after a given
 * binding (gb_at).  Everything it makes is at b->loc, carries b->flags
 * (VF_LOC, a pass's own VF_PASS_* bit) and, when b->on is set, is placed
 * there as a hard constraint (`on @dev`): the caller sets those fields
 * between calls.  Names are the caller's: gb_name makes a fresh one in
 * the function (base, else base_1, base_2, ...).
 *
 *     GBuild b;
 *     Func *f = gb_func(&b, m, "main");
 *     Value *x = gb_param(&b, gb_name(&b, "x", NULL), ty);
 *     Attr axis = gb_int(1);
 *     AttrMap *am = gb_attrs(m, 1, &(GAttr){"axis", axis});
 *     Value *y = gb_op1(&b, gb_name(&b, "y", NULL), O_SOFTMAX, x, am);
 *     gb_return(&b, y);
 *     gb_done(&b);
 *
 * Errors: an operator whose operands or attributes its type rule refuses
 * is reported through m->ctx, as the verifier would (at b->loc, or at the
 * attribute's location: unknown for those built here), and comes back
 * untyped (type NULL); b->bad counts them.
 */
#ifndef GBUILD_H
#define GBUILD_H

#include "ir.h"
#include "nameset.h"
#include "ops/ops.h"

typedef struct {
	Module *m;
	Func *f;              /* the function built or edited */
	Block *blk;           /* where the next binding goes ... */
	Value *after;         /* ... just after this one (NULL: first in blk);
	                       * it moves to each binding made */
	Loc loc;              /* of every node made */
	uint16_t flags;       /* added to every binding made */
	const VDev *on;       /* every binding made is `on` it; NULL: unplaced */
	unsigned bad;         /* operators the type rules refused */
	/* private */
	NameSet names;        /* f's names, filled on the first gb_name */
	bool have_names;
	uint32_t pcap;        /* room in f->params */
} GBuild;

/* ------------------------------------------------------------ functions */

/* Starts building a new function @name of m (no parameters, an empty
 * body, registered and appended to m's functions); NULL if the name is
 * taken by another global.  Bindings go at the end of its body. */
Func *gb_func(GBuild *b, Module *m, const char *name);
/* Starts editing f of m: bindings go at the end of its body. */
void gb_start(GBuild *b, Module *m, Func *f);
/* Bindings go after `after` in blk (NULL: at its start), each after the
 * one made before. */
void gb_at(GBuild *b, Block *blk, Value *after);
/* Bindings go at the end of blk. */
void gb_at_end(GBuild *b, Block *blk);
/* Frees what the builder holds (not what it made). */
void gb_done(GBuild *b);

/* A fresh local name of the function, in the module's name arena:
 * "base" or, with suffix, "base_suffix"; on a clash _1, _2, ... is added.
 * It is taken at once (a second call gives another). */
const char *gb_name(GBuild *b, const char *base, const char *suffix);
/* Takes name (not copied: the module's, as gb_name's) so gb_name will not
 * make it; false if the function has it already. */
bool gb_take_name(GBuild *b, const char *name);

/* A new parameter %name: ty, appended to the function's. */
Value *gb_param(GBuild *b, const char *name, const Type *ty);
/* `return v`: the function's result, typed as v is. */
void gb_return(GBuild *b, Value *v);

/* ------------------------------------------------------------- bindings */

/* Links v (a binding made by the functions below, or by hand) in at the
 * builder's position; returns v. */
Value *gb_add(GBuild *b, Value *v);

/* %name = op(args) {attrs}: an operator call of nargs operands, typed by
 * the operator's rule.  attrs NULL: none (the call is shared). */
Value *gb_op(GBuild *b, const char *name, OpId id, uint32_t nargs, Value *const *args,
             AttrMap *attrs);
Value *gb_op1(GBuild *b, const char *name, OpId id, Value *x, AttrMap *attrs);
Value *gb_op2(GBuild *b, const char *name, OpId id, Value *x, Value *y, AttrMap *attrs);
/* %name = (args): a tuple. */
Value *gb_tuple(GBuild *b, const char *name, uint32_t nargs, Value *const *args);
/* %name = %t.index: a field of the tuple t; NULL (nothing made) if t is
 * not a tuple of more than index fields. */
Value *gb_proj(GBuild *b, const char *name, Value *t, uint32_t index);

/* %name: ty = const ty DATA, with cd from gb_const_data (inline) or
 * gb_const_file (a .npy file). */
Value *gb_const(GBuild *b, const char *name, const Type *ty, ConstData *cd);
/* Room for the inline data of a constant of tensor type ty, zeroed: its
 * type_numel(ty) elements in u.f for floating-point types, else in u.i
 * (bools 0 or 1, a u64 as its bits); the caller fills it. */
ConstData *gb_const_data(Module *m, const Type *ty);
/* The data of a constant of type ty in the .npy file path (copied), as
 * written (relative to the module's file). */
ConstData *gb_const_file(Module *m, const Type *ty, const char *path);
/* Turns the binding v into `const` with cd, in place: it keeps its name,
 * type, placement and location. */
void gb_make_const(Value *v, ConstData *cd);

/* A placeholder binding %name: ty for a value the caller could not make
 * and has reported (an importer's `undefined`): marked VF_ERROR, so the
 * module is one that is never returned (see VF_ERROR). */
Value *gb_undefined(GBuild *b, const char *name, const Type *ty);

/* ------------------------------------------------------------- literals */

/* Literal operands, untyped as the parser reads `2`, `2.5`, `true`: the
 * operator they are passed to types them. */
Value *gb_lit_int(GBuild *b, int64_t v);
Value *gb_lit_float(GBuild *b, double v);
Value *gb_lit_bool(GBuild *b, bool v);
/* A literal of element type k[] already: f for a floating-point k, else
 * i (a bool 0 or 1; a u64 as its bits). */
Value *gb_lit_typed(GBuild *b, ElemKind k, double f, int64_t i);

/* ----------------------------------------------------------- attributes */

/* Attribute values (locations unknown); strings and lists are copied into
 * m's arena.  A layout is a string ("NCHW4c"); a global (@sram) a sym. */
Attr gb_int(int64_t v);
Attr gb_float(double v);
Attr gb_bool(bool v);
Attr gb_str(Module *m, const char *s);
Attr gb_strn(Module *m, const char *s, size_t n);   /* may hold NUL bytes */
Attr gb_sym(Module *m, const char *name);
Attr gb_ints(Module *m, const int64_t *v, uint32_t n);
Attr gb_floats(Module *m, const double *v, uint32_t n);
/* A list of any attributes (nested lists too), copied one level. */
Attr gb_list(Module *m, const Attr *items, uint32_t n);

/* One entry of a map to build. */
typedef struct {
	const char *key;
	Attr val;
} GAttr;

/* A map of the n entries (keys distinct), sorted as the parser sorts. */
AttrMap *gb_attrs(Module *m, uint32_t n, const GAttr *kv);
/* A copy of old (NULL: empty) with key set to *val, or removed when val is
 * NULL.  A key that was there keeps its locations (an error about the new
 * value points where the old one was written). */
AttrMap *gb_attrs_set(Module *m, const AttrMap *old, const char *key, const Attr *val);
/* The operator call v (B_OP) with attribute key set to *val (NULL:
 * removed); v is not typed again (gb_retype). */
void gb_set_attr(Module *m, Value *v, const char *key, const Attr *val);
/* The operator call v (B_OP) made a call of id with attrs. */
void gb_set_op(Module *m, Value *v, OpId id, AttrMap *attrs);
/* Types the operator call v again after its operands or attributes
 * changed, as written now (a type it was written with is dropped);
 * returns its type, or NULL after the type rule reported why not. */
const Type *gb_retype(Module *m, Value *v);

#endif
