/* verify.c: well-formedness and type inference.
 *
 * Every tool runs this on what it reads and on what it is about to print.
 * It infers the type of every binding (operators through the registry in
 * ops.c) and checks what was written against it; checks that names are
 * defined before use, unique per function, and visible; that devices,
 * pools, functions and prims exist and calls match their signatures; and
 * that prims are well formed.  Block nesting is walked with an explicit
 * stack; loop-level expressions recurse, their depth capped by the parser.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "memplan/check.h"
#include "nameset.h"
#include "ops/ops.h"
#include "suggest.h"
#include "texture/texture.h"
#include "verify_launch.h"
#include "walk.h"

typedef struct {
	Module *m;
	Ctx *ctx;
	bool ok;
	bool check_names;     /* uniqueness (the parser has checked it already) */
	bool poisoned;        /* met what the parser reported (VF_ERROR) */
	NameSet names;        /* of the current function, for uniqueness */
	PtrVec defs;          /* values defined inside open if arms */
	bool in_kernel;       /* the prim statement being checked is in a kernel */
} Verifier;

#define ERR(vf, loc, ...) ((vf)->ok = false, error_at((vf)->ctx, (loc), __VA_ARGS__))
#define NOTE(vf, loc, ...) note_at((vf)->ctx, (loc), __VA_ARGS__)

/* The verifier's own Value flag (see VF_PASS_A): defined and in scope. */
enum { VF_SEEN = VF_PASS_A };

/* Whether v is a buffer in global memory (its scope global or still
 * open, which means global when code is generated). */
static bool
is_global_buffer(const PVar *v)
{
	return v && v->kind == PV_BUFFER && v->vd && (!v->vd->scope || !strcmp(v->vd->scope, "global"));
}

/* A pass that left its own flags on a value broke the rule that they are
 * zero between passes (ir.h): the next pass would misread them. */
static void
check_pass_bits(Verifier *vf, const Value *v)
{
	if (v->flags & VF_PASS_MASK)
		ERR(vf, v->loc, "internal error: a pass left its scratch flags (0x%x) on %s%s",
		    (unsigned)(v->flags & VF_PASS_MASK), v->name ? "%" : "a literal", v->name ? v->name : "");
}

/* ---------------------------------------------------------------- names */

static void
names_reset(Verifier *vf)
{
	nameset_free(&vf->names);
}

/* False if the name was already taken in this function. */
static bool
names_add(Verifier *vf, const char *s)
{
	return !vf->check_names || nameset_add(&vf->names, s);
}

/* --------------------------------------------------------------- helpers */

static bool
types_equal(const Type *a, const Type *b)
{
	return a == b; /* hash-consed */
}

/* "did you mean '@gpu'?" after an error naming an undeclared device. */
static void
note_closest_device(Verifier *vf, Sym name, Loc loc)
{
	Suggest sg;
	suggest_init(&sg, name, strlen(name));
	for (const Device *d = vf->m->devices; d; d = d->next)
		suggest_offer(&sg, d->name);
	suggest_note(&sg, vf->ctx, loc, "@");
}

static void
check_vdev(Verifier *vf, const VDev *vd, Loc loc)
{
	if (vd && !module_device(vf->m, vd->dev)) {
		ERR(vf, loc, "unknown device '@%s'", vd->dev);
		note_closest_device(vf, vd->dev, loc);
	}
}

/* `default @x` / `host @x` must name a device. */
static void
check_device_name(Verifier *vf, Sym name, Loc loc, const char *what)
{
	int kind;
	if (!name || module_device(vf->m, name))
		return;
	sym_global(name, &kind);
	if (kind == GK_NONE) {
		ERR(vf, loc, "%s device '@%s' is not declared", what, name);
		note_closest_device(vf, name, loc);
	} else
		ERR(vf, loc, "'%s' needs a device; '@%s' is a %s", what, name, global_kind_name(kind));
}

/* Vector element types (f32x4) belong to the loop level. */
static bool
graph_type_ok(Verifier *vf, const Type *t, Loc loc)
{
	if (!t || t->kind != TY_TENSOR || t->dt.lanes <= 1)
		return true;
	char d[16];
	dtype_str(t->dt, d);
	ERR(vf, loc, "vector element type %s is for loop-level buffers, not graph-level tensors", d);
	return false;
}

static void
check_written_type(Verifier *vf, Value *v, const Type *inferred)
{
	if (!inferred)
		return;
	if (v->type && !types_equal(v->type, inferred)) {
		char a[256], b[256];
		type_text(v->type, a, sizeof a);
		type_text(inferred, b, sizeof b);
		ERR(vf, v->loc, "'%%%s' is written as %s but its value has type %s", v->name, a, b);
		return;
	}
	v->type = inferred;
}

static bool
operand_ok(Verifier *vf, Value *user, Value *a)
{
	if (!a) {
		ERR(vf, user->loc, "missing operand");
		return false;
	}
	if (a->kind == VK_LIT) {
		check_pass_bits(vf, a);
		return true;
	}
	if (!(a->flags & VF_SEEN)) {
		ERR(vf, user->loc, "'%%%s' is used before its definition or outside its block", a->name);
		NOTE(vf, a->loc, "'%%%s' is defined here", a->name);
		return false;
	}
	return a->type != NULL;
}

/* A literal used where only a value's type matters (a call argument, a
 * tuple field, a return) gets the plain default type. */
static const Type *
literal_type(Verifier *vf, Value *a)
{
	if (!a->type)
		a->type = lit_default_type(vf->m, a);
	return a->type;
}

static const Type *
arg_type(Verifier *vf, Value *a)
{
	return a->kind == VK_LIT ? literal_type(vf, a) : a->type;
}

static void
check_args_match(Verifier *vf, Value *v, uint32_t n, const Type *const *want, const char *what,
                 const char *name, Loc decl)
{
	if (v->nargs != n) {
		ERR(vf, v->loc, "%s '@%s' takes %u argument%s, %u given", what, name, n,
		    n == 1 ? "" : "s", v->nargs);
		NOTE(vf, decl, "'@%s' is defined here", name);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const Type *t = arg_type(vf, v->args[i]);
		if (!types_equal(t, want[i])) {
			char a[256], b[256];
			type_text(t, a, sizeof a);
			type_text(want[i], b, sizeof b);
			ERR(vf, v->loc, "argument %u of '@%s' has type %s, expected %s", i + 1, name, a, b);
			NOTE(vf, decl, "'@%s' is defined here", name);
		}
	}
}

/* ----------------------------------------------------------- graph level */

/* The checks of a binding that do not depend on its operands' types, made
 * even when an operand has none (an error reported where it is defined)
 * or the parser reported the binding's line: a misspelled attribute or an
 * unknown device is found in the same run as the error before it. */
static void
check_independent(Verifier *vf, Value *v)
{
	switch (v->form) {
	case B_OP:
		if (v->u.op && v->u.op->op)
			op_check_attrs(vf->m, v);
		break;
	case B_ON_DEVICE:
		check_vdev(vf, v->u.target, v->loc);
		break;
	case B_DEVICE_COPY:
		if (v->u.copy) {
			check_vdev(vf, v->u.copy->src, v->loc);
			check_vdev(vf, v->u.copy->dst, v->loc);
		}
		break;
	default:
		break;
	}
}

static const Type *
infer_call_lowered(Verifier *vf, Value *v)
{
	Prim *pr = v->u.prim;
	if (pr->flags & VF_ERROR)
		return NULL; /* its definition had errors: no signature to check */
	if (v->nargs >= pr->nparams) {
		ERR(vf, v->loc, "call_lowered '@%s' passes %u arguments but the prim has %u parameters; "
		    "its results are its trailing parameters", pr->name, v->nargs, pr->nparams);
		NOTE(vf, pr->loc, "'@%s' is defined here", pr->name);
		return NULL;
	}
	for (uint32_t i = 0; i < pr->nparams; i++)
		if (pr->params[i]->kind != PV_BUFFER) {
			ERR(vf, v->loc, "call_lowered '@%s': parameter '%%%s' is a scalar; only buffer "
			    "parameters can be called from the graph level", pr->name, pr->params[i]->name);
			return NULL;
		}
	const Type *want[v->nargs ? v->nargs : 1];
	for (uint32_t i = 0; i < v->nargs; i++)
		want[i] = pr->params[i]->type;
	check_args_match(vf, v, v->nargs, want, "prim", pr->name, pr->loc);
	uint32_t nout = pr->nparams - v->nargs;
	if (nout == 1)
		return pr->params[v->nargs]->type;
	const Type *outs[nout];
	for (uint32_t i = 0; i < nout; i++)
		outs[i] = pr->params[v->nargs + i]->type;
	return type_tuple(vf->m, nout, outs);
}

static const Type *
infer_binding(Verifier *vf, Func *fn, Value *v)
{
	for (uint32_t i = 0; i < v->nargs; i++)
		if (!operand_ok(vf, v, v->args[i])) {
			check_independent(vf, v);
			return NULL;
		}
	switch (v->form) {
	case B_OP:
		if (!v->u.op->op)
			return NULL;
		return op_infer(vf->m, v);
	case B_CALL: {
		Func *c = v->u.callee;
		if (c->flags & VF_ERROR)
			return c->ret_type; /* its definition had errors: not checked */
		if (!c->ret_type) {
			ERR(vf, v->loc, "the result type of '@%s' is not known here", c->name);
			NOTE(vf, c->loc, "write '-> TYPE' on '@%s', or define it before '@%s'", c->name, fn->name);
			return NULL;
		}
		const Type *want[c->nparams ? c->nparams : 1];
		for (uint32_t i = 0; i < c->nparams; i++)
			want[i] = c->params[i]->type;
		check_args_match(vf, v, c->nparams, want, "function", c->name, c->loc);
		return c->ret_type;
	}
	case B_CALL_LOWERED:
		return infer_call_lowered(vf, v);
	case B_ON_DEVICE:
		check_vdev(vf, v->u.target, v->loc);
		return arg_type(vf, v->args[0]);
	case B_DEVICE_COPY:
		check_vdev(vf, v->u.copy->src, v->loc);
		check_vdev(vf, v->u.copy->dst, v->loc);
		return arg_type(vf, v->args[0]);
	case B_TUPLE: {
		const Type *fs[v->nargs ? v->nargs : 1];
		for (uint32_t i = 0; i < v->nargs; i++)
			fs[i] = arg_type(vf, v->args[i]);
		return type_tuple(vf->m, v->nargs, fs);
	}
	case B_PROJ: {
		const Type *t = arg_type(vf, v->args[0]);
		if (t->kind != TY_TUPLE) {
			ERR(vf, v->loc, "'%%%s.%u' projects a field of a value that is not a tuple",
			    v->args[0]->name, (unsigned)v->u.index);
			return NULL;
		}
		if (v->u.index >= t->n) {
			ERR(vf, v->loc, "tuple '%%%s' has %u field%s; there is no field %u",
			    v->args[0]->name, t->n, t->n == 1 ? "" : "s", (unsigned)v->u.index);
			return NULL;
		}
		return t->fields[v->u.index];
	}
	case B_CONST:
		return v->type;
	case B_IF: {
		const Type *t = arg_type(vf, v->args[0]);
		if (t->kind != TY_TENSOR || t->n != 0 || t->dt.kind != ET_BOOL || t->dt.lanes != 1) {
			char a[256];
			type_text(t, a, sizeof a);
			ERR(vf, v->loc, "the condition of 'if' must be bool[], not %s", a);
		}
		return NULL; /* typed when its arms are done */
	}
	}
	return NULL;
}

/* The value a block yields, checked like an operand. */
static const Type *
yield_type(Verifier *vf, Block *b, const char *kw)
{
	Value *y = b->yield;
	if (!y) {
		ERR(vf, b->yloc, "block has no '%s'", kw);
		return NULL;
	}
	if (y->kind != VK_LIT && !(y->flags & VF_SEEN)) {
		ERR(vf, b->yloc, "'%%%s' is used before its definition or outside its block", y->name);
		return NULL;
	}
	return arg_type(vf, y);
}

static void
kill(Verifier *vf, uint32_t mark)
{
	for (size_t i = mark; i < vf->defs.n; i++)
		((Value *)vf->defs.v[i])->flags &= (uint16_t)~VF_SEEN;
	vf->defs.n = mark;
}

static void
define_value(Verifier *vf, Value *v, bool nested)
{
	v->flags |= VF_SEEN;
	if (nested)
		ptrvec_push(&vf->defs, v);
}

static void
clear_seen(Func *fn)
{
	FuncWalk w;
	Block *blk;
	for (uint32_t i = 0; i < fn->nparams; i++)
		fn->params[i]->flags &= (uint16_t)~VF_SEEN;
	fwalk_start(&w, fn);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		v->flags &= (uint16_t)~VF_SEEN;
}

static void
check_binding(Verifier *vf, Func *fn, Value *v, bool nested)
{
	if (v->kind != VK_BIND || !v->name) {
		ERR(vf, v->loc, "malformed binding");
		return;
	}
	check_pass_bits(vf, v);
	if (!names_add(vf, v->name))
		ERR(vf, v->loc, "redefinition of '%%%s'", v->name);
	if (v->vd)
		check_vdev(vf, v->vd, v->loc);
	if (v->flags & VF_ERROR) {
		/* The parser reported this line: its written type, if any,
		 * stands for it; what uses it is checked against that. */
		vf->poisoned = true;
		check_independent(vf, v);
		if (v->form != B_IF)
			define_value(vf, v, nested);
		return;
	}
	if (!graph_type_ok(vf, v->type, v->loc)) {
		/* defined, untyped: what uses it is not reported again */
		check_independent(vf, v);
		v->type = NULL;
		if (v->form != B_IF)
			define_value(vf, v, nested);
		return;
	}
	const Type *t = infer_binding(vf, fn, v);
	const char *why = t ? type_over_limits(t) : NULL;
	if (why) {
		/* A tuple of tuples, each binding a level deeper. */
		ERR(vf, v->loc, "the type of '%%%s' is too large: %s", v->name, why);
		t = NULL;
	}
	if (v->form == B_IF)
		return; /* typed, and defined, when its arms end */
	check_written_type(vf, v, t);
	if (!v->type)
		vf->ok = false;
	define_value(vf, v, nested);
}

static void
check_return(Verifier *vf, Func *fn, const Type *yt)
{
	if (!yt)
		return;
	if (fn->ret_type && !types_equal(fn->ret_type, yt)) {
		char a[256], b[256];
		type_text(yt, a, sizeof a);
		type_text(fn->ret_type, b, sizeof b);
		ERR(vf, fn->body.yloc, "'@%s' returns %s but its result type is %s", fn->name, a, b);
		NOTE(vf, fn->loc, "the result type is written here");
	}
	if (!fn->ret_type)
		fn->ret_type = yt;
}

/* Both arms are done: the if's type is what they yield. */
static void
check_if(Verifier *vf, Value *ifv, const Type *t1, bool nested)
{
	const Type *t0 = ifv->u.arms[0].yield ? arg_type(vf, ifv->u.arms[0].yield) : NULL;
	if (t0 && t1 && !types_equal(t0, t1)) {
		char a[256], b[256];
		type_text(t0, a, sizeof a);
		type_text(t1, b, sizeof b);
		ERR(vf, ifv->u.arms[1].yloc, "the arms of 'if' yield different types: %s and %s", a, b);
		NOTE(vf, ifv->u.arms[0].yloc, "the first arm yields here");
	} else if (t0) {
		check_written_type(vf, ifv, t0);
	}
	define_value(vf, ifv, nested);
}

static void
verify_func(Verifier *vf, Func *fn)
{
	names_reset(vf);
	vf->defs.n = 0;
	if (vf->check_names) {
		/* one sequential count saves rehashing every name as the set grows */
		FuncWalk w;
		Block *blk;
		uint32_t n = fn->nparams;
		fwalk_start(&w, fn);
		while (fwalk_next_binding(&w, &blk))
			n++;
		nameset_reserve(&vf->names, n);
	}
	for (uint32_t i = 0; i < fn->nparams; i++) {
		Value *p = fn->params[i];
		if (!names_add(vf, p->name))
			ERR(vf, p->loc, "redefinition of '%%%s'", p->name);
		if (!p->type)
			ERR(vf, p->loc, "parameter '%%%s' has no type", p->name);
		graph_type_ok(vf, p->type, p->loc);
		check_vdev(vf, p->vd, p->loc);
		check_pass_bits(vf, p);
		p->flags |= VF_SEEN;
	}
	check_vdev(vf, fn->ret_vd, fn->loc);

	/* marks[k]: vf->defs.n when the k-th open if began; names defined
	 * in an arm go out of scope when the arm ends. */
	uint32_t *marks = NULL;
	size_t nmarks = 0, cap = 0;
	FuncWalk w;
	WalkStep s;
	fwalk_start(&w, fn);
	while (fwalk_next(&w, &s)) {
		if (s.ev == W_BIND) {
			check_binding(vf, fn, s.v, s.depth > 1);
			if (s.v->form == B_IF)
				VEC_PUSH(marks, nmarks, cap) = (uint32_t)vf->defs.n;
			continue;
		}
		const Type *yt = yield_type(vf, s.blk, s.ev == W_ARM_END ? "yield" : "return");
		if (s.ev == W_BODY_END) {
			check_return(vf, fn, yt);
			continue;
		}
		kill(vf, marks[nmarks - 1]);
		if (s.arm == 1) {
			nmarks--;
			check_if(vf, s.v, yt, s.depth > 2);
		}
	}
	free(marks);
	clear_seen(fn);
}

/* ------------------------------------------------------------ loop level */

static bool
is_int(DType d)
{
	return d.lanes == 1 && d.kind >= ET_I8 && d.kind <= ET_U64;
}

static DType
scalar_dt(int k)
{
	return (DType){(uint8_t)k, 1};
}

static bool
is_literal(const PExpr *e)
{
	return e->kind == E_INT || e->kind == E_FLOAT;
}

static void
dt_str(DType d, char *buf)
{
	dtype_str(d, buf);
}

static bool type_expr(Verifier *vf, PExpr *e, DType hint);

/* A literal must fit the type its context gave it. */
static bool
literal_fits(Verifier *vf, const PExpr *e)
{
	ElemKind k = (ElemKind)e->dt.kind;
	char d[16];
	dt_str(e->dt, d);
	bool u64 = e->kind == E_INT && e->op == E_INT_U64;
	if (e->kind == E_FLOAT || elem_is_float(k)) {
		double v = e->kind == E_FLOAT ? e->u.f : u64 ? (double)(uint64_t)e->u.i : (double)e->u.i;
		if (!elem_float_fits(k, v)) {
			ERR(vf, e->loc, "%g is out of the range of %s", v, d);
			return false;
		}
		return true;
	}
	if (u64) {
		if (k == ET_U64)
			return true;
		ERR(vf, e->loc, "%llu is out of the range of %s", (unsigned long long)e->u.i, d);
		return false;
	}
	int64_t lo;
	uint64_t hi;
	elem_int_range(k, &lo, &hi);
	if (e->u.i < lo || (e->u.i > 0 && (uint64_t)e->u.i > hi)) {
		ERR(vf, e->loc, "%lld is out of the range of %s", (long long)e->u.i, d);
		return false;
	}
	return true;
}

/* A literal takes the type its context gives it, as in C. */
static bool
type_pair(Verifier *vf, PExpr *a, PExpr *b, DType hint)
{
	if (is_literal(a) && !is_literal(b)) {
		if (!type_expr(vf, b, hint))
			return false;
		return type_expr(vf, a, b->dt);
	}
	if (!type_expr(vf, a, hint))
		return false;
	return type_expr(vf, b, a->dt);
}

static bool
same_dt(Verifier *vf, const PExpr *e, DType a, DType b)
{
	if (dtype_eq(a, b))
		return true;
	char x[16], y[16];
	dt_str(a, x);
	dt_str(b, y);
	ERR(vf, e->loc, "operands have different types: %s and %s", x, y);
	return false;
}

static bool
check_index(Verifier *vf, const PExpr *at, PVar *buf, PIndex *idx, uint32_t n, uint32_t *lanes)
{
	*lanes = 1;
	if (!buf)
		return false;
	if (buf->kind != PV_BUFFER) {
		ERR(vf, at->loc, "'%%%s' is not a buffer", buf->name);
		return false;
	}
	if (n != buf->type->n) {
		ERR(vf, at->loc, "'%%%s' has rank %u but is indexed with %u ind%s", buf->name,
		    buf->type->n, n, n == 1 ? "ex" : "ices");
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!type_expr(vf, idx[i].e, scalar_dt(ET_I32)))
			return false;
		if (!is_int(idx[i].e->dt)) {
			ERR(vf, idx[i].e->loc, "an index must be an integer");
			return false;
		}
		if (idx[i].lanes) {
			if (i != n - 1) {
				ERR(vf, idx[i].e->loc, "vector lanes are only allowed on the last index");
				return false;
			}
			*lanes = idx[i].lanes;
		}
	}
	return true;
}

/* A texel access needs a buffer whose type and scope make an image
 * (texture.h), so that its coordinates mean something. */
static bool
check_texel_image(Verifier *vf, const PVar *buf, Loc at)
{
	int64_t wh[2];
	char why[256];
	if (texture_image(buf->type, buf->vd->scope, wh, why, sizeof why))
		return true;
	ERR(vf, at, "'%%%s' is not an image: %s", buf->name, why);
	return false;
}

/* lane(V, K): lane K of the vector V, a scalar.  K is an integer; a
 * literal must be a lane of V, any other value is checked when it runs. */
static bool
type_lane(Verifier *vf, PExpr *e)
{
	if (e->n != 2) {
		ERR(vf, e->loc, "'lane' takes 2 arguments, %u given", e->n);
		return false;
	}
	PExpr *v = e->u.call.args[0], *k = e->u.call.args[1];
	if (!type_expr(vf, v, (DType){ET_F32, 1}))
		return false;
	if (v->dt.lanes < 2) {
		char d[16];
		dt_str(v->dt, d);
		ERR(vf, v->loc, "'lane' needs a vector, not a scalar of type %s", d);
		return false;
	}
	if (k->kind == E_INT && (k->op == E_INT_U64 || k->u.i < 0 || k->u.i >= v->dt.lanes)) {
		ERR(vf, k->loc, "'lane' needs a lane number from 0 to %u", (unsigned)v->dt.lanes - 1);
		return false;
	}
	if (!type_expr(vf, k, scalar_dt(ET_I32)))
		return false;
	if (!is_int(k->dt)) {
		ERR(vf, k->loc, "a lane number must be an integer");
		return false;
	}
	e->dt = (DType){v->dt.kind, 1};
	return true;
}

static bool
type_var(Verifier *vf, PExpr *e)
{
	if (!e->u.var)
		return false;
	if (e->u.var->kind != PV_SCALAR) {
		ERR(vf, e->loc, "buffer '%%%s' used as a scalar; load from it with %%%s[...]",
		    e->u.var->name, e->u.var->name);
		return false;
	}
	if (!e->u.var->type)
		return false;
	e->dt = e->u.var->type->dt;
	return true;
}

static bool
type_load(Verifier *vf, PExpr *e)
{
	uint32_t lanes;
	if (!check_index(vf, e, e->u.load.buf, e->u.load.idx, e->n, &lanes))
		return false;
	e->dt = (DType){e->u.load.buf->type->dt.kind, (uint8_t)lanes};
	return true;
}

/* texture2d_load(%buf, x, y): a texel, 4 lanes of the buffer's elements. */
static bool
type_tex_load(Verifier *vf, PExpr *e)
{
	PVar *buf = e->u.tex.buf;
	if (!buf || buf->kind != PV_BUFFER || !buf->vd || !is_texture_scope(buf->vd->scope)) {
		ERR(vf, e->loc, "texture2d_load needs a buffer in a texture scope");
		return false;
	}
	if (!check_texel_image(vf, buf, e->loc))
		return false;
	if (!type_expr(vf, e->u.tex.x, scalar_dt(ET_I32)) || !type_expr(vf, e->u.tex.y, scalar_dt(ET_I32)))
		return false;
	if (!is_int(e->u.tex.x->dt) || !is_int(e->u.tex.y->dt)) {
		ERR(vf, e->loc, "texture coordinates must be integers");
		return false;
	}
	e->dt = (DType){buf->type->dt.kind, 4};
	return true;
}

/* !a, -a */
static bool
type_unary(Verifier *vf, PExpr *e, DType hint)
{
	if (!type_expr(vf, e->u.ops.a, hint))
		return false;
	if (e->op == OP_NOT && e->u.ops.a->dt.kind != ET_BOOL) {
		ERR(vf, e->loc, "'!' needs a bool operand");
		return false;
	}
	if (e->op == OP_NEG && e->u.ops.a->dt.kind == ET_BOOL) {
		ERR(vf, e->loc, "'-' on a bool");
		return false;
	}
	e->dt = e->u.ops.a->dt;
	return true;
}

/* Arithmetic, comparisons (bool results) and && || (bool operands). */
static bool
type_binary(Verifier *vf, PExpr *e, DType hint)
{
	bool cmp = e->op >= OP_LT && e->op <= OP_NE;
	bool logic = e->op == OP_AND || e->op == OP_OR;
	if (!type_pair(vf, e->u.ops.a, e->u.ops.b, cmp || logic ? scalar_dt(ET_I32) : hint))
		return false;
	DType l = e->u.ops.a->dt, r = e->u.ops.b->dt;
	if (!same_dt(vf, e, l, r))
		return false;
	if (logic && l.kind != ET_BOOL) {
		ERR(vf, e->loc, "'%s' needs bool operands", e->op == OP_AND ? "&&" : "||");
		return false;
	}
	if (!cmp && !logic && l.kind == ET_BOOL) {
		ERR(vf, e->loc, "arithmetic on bool");
		return false;
	}
	if (e->op == OP_MOD && elem_is_float(l.kind)) {
		ERR(vf, e->loc, "'%%' needs integer operands (OpenCL C has no float '%%')");
		return false;
	}
	e->dt = cmp ? (DType){ET_BOOL, l.lanes} : l;
	return true;
}

/* select(c, a, b) */
static bool
type_select(Verifier *vf, PExpr *e, DType hint)
{
	if (!type_expr(vf, e->u.ops.a, scalar_dt(ET_BOOL)) || !type_pair(vf, e->u.ops.b, e->u.ops.c, hint))
		return false;
	if (e->u.ops.a->dt.kind != ET_BOOL) {
		ERR(vf, e->loc, "the condition of select must be bool");
		return false;
	}
	if (!same_dt(vf, e, e->u.ops.b->dt, e->u.ops.c->dt))
		return false;
	if (e->u.ops.a->dt.lanes != 1 && e->u.ops.a->dt.lanes != e->u.ops.b->dt.lanes) {
		ERR(vf, e->loc, "select's condition has %u lanes, its values %u",
		    (unsigned)e->u.ops.a->dt.lanes, (unsigned)e->u.ops.b->dt.lanes);
		return false;
	}
	e->dt = e->u.ops.b->dt;
	return true;
}

/* cast<T>(a) keeps the lanes; broadcast<T>(a) makes a vector of a scalar. */
static bool
type_cast(Verifier *vf, PExpr *e)
{
	char a[16], b[16];
	if (!type_expr(vf, e->u.cast.a, scalar_dt(e->u.cast.to.kind)))
		return false;
	if (e->kind == E_BROADCAST && (e->u.cast.a->dt.lanes != 1 || e->u.cast.to.lanes < 2 ||
	                               e->u.cast.a->dt.kind != e->u.cast.to.kind)) {
		dt_str(e->u.cast.a->dt, a);
		dt_str(e->u.cast.to, b);
		ERR(vf, e->loc, "broadcast<%s> needs a scalar of the same element type, not %s", b, a);
		return false;
	}
	if (e->kind == E_CAST && e->u.cast.a->dt.lanes != e->u.cast.to.lanes) {
		ERR(vf, e->loc, "cast cannot change the number of lanes");
		return false;
	}
	e->dt = e->u.cast.to;
	return true;
}

/* atomic_add(%B[i], v): the first argument names an element (a load of
 * one i32 of a global buffer, which the call reads and writes), the
 * second is the i32 added; the call is the element's old value. */
static bool
type_atomic(Verifier *vf, PExpr *e)
{
	if (e->n != 2) {
		ERR(vf, e->loc, "'atomic_add' takes 2 arguments, %u given", e->n);
		return false;
	}
	PExpr *el = e->u.call.args[0], *v = e->u.call.args[1];
	if (!vf->in_kernel) {
		ERR(vf, e->loc, "'atomic_add' must be inside a kernel");
		return false;
	}
	if (el->kind != E_LOAD) {
		ERR(vf, el->loc, "'atomic_add' needs an element of a buffer such as %%B[i] first");
		return false;
	}
	if (!type_expr(vf, el, scalar_dt(ET_I32)))
		return false;
	PVar *b = el->u.load.buf;
	if (!dtype_eq(el->dt, scalar_dt(ET_I32))) {
		char d[16];
		dt_str(el->dt, d);
		ERR(vf, el->loc, "'atomic_add' needs one i32 element, not %s", d);
		return false;
	}
	if (!is_global_buffer(b)) {
		ERR(vf, el->loc, "'atomic_add' needs a buffer in global memory; '%%%s' is in %s memory",
		    b->name, b->vd->scope);
		return false;
	}
	if (!type_expr(vf, v, scalar_dt(ET_I32)) || !same_dt(vf, e, scalar_dt(ET_I32), v->dt))
		return false;
	e->dt = scalar_dt(ET_I32);
	return true;
}

/* An intrinsic call (intrin.def): its arguments of one type, which a
 * literal takes from the first argument that is not one. */
static bool
type_call(Verifier *vf, PExpr *e, DType hint)
{
	if (e->op == I_LANE)
		return type_lane(vf, e);
	if (e->op == I_ATOMIC_ADD)
		return type_atomic(vf, e);
	if (e->op == I_MEM_FENCE) {
		ERR(vf, e->loc, "'mem_fence()' is a statement of its own, not a value");
		return false;
	}
	if (e->op >= I__COUNT) {
		ERR(vf, e->loc, "unknown intrinsic '%s'", e->u.call.fn);
		Suggest sg;
		suggest_init(&sg, e->u.call.fn, strlen(e->u.call.fn));
		for (int k = 0; k < I__COUNT; k++)
			suggest_offer(&sg, intrin_def((IntrinId)k)->name);
		suggest_note(&sg, vf->ctx, e->loc, "");
		return false;
	}
	const IntrinDef *in = intrin_def((IntrinId)e->op);
	if (e->n != in->nargs) {
		ERR(vf, e->loc, "'%s' takes %d argument%s, %u given", e->u.call.fn,
		    in->nargs, in->nargs == 1 ? "" : "s", e->n);
		return false;
	}
	PExpr **args = e->u.call.args;
	PExpr *lead = args[0];
	for (uint32_t k = 0; k < e->n; k++)
		if (!is_literal(args[k])) {
			lead = args[k];
			break;
		}
	if (!type_expr(vf, lead, hint))
		return false;
	for (uint32_t k = 0; k < e->n; k++)
		if (args[k] != lead && (!type_expr(vf, args[k], lead->dt) ||
		                        !same_dt(vf, e, lead->dt, args[k]->dt)))
			return false;
	if (lead->dt.kind == ET_BOOL) {
		ERR(vf, e->loc, "'%s' on a bool", e->u.call.fn);
		return false;
	}
	if (in->float_only && !elem_is_float(lead->dt.kind)) {
		ERR(vf, e->loc, "'%s' needs floating-point operands", e->u.call.fn);
		return false;
	}
	e->dt = lead->dt;
	return true;
}

/* Gives e and its operands their types (hint: the type the context
 * expects, which a literal takes).  Recursion is bounded by
 * IR_MAX_EXPR_DEPTH (the parser caps it). */
static bool
type_expr(Verifier *vf, PExpr *e, DType hint)
{
	switch (e->kind) {
	case E_INT:
		e->dt = (is_int(hint) || elem_is_float(hint.kind)) ? scalar_dt(hint.kind) : scalar_dt(ET_I32);
		return literal_fits(vf, e);
	case E_FLOAT:
		e->dt = elem_is_float(hint.kind) ? scalar_dt(hint.kind) : scalar_dt(ET_F32);
		return literal_fits(vf, e);
	case E_BOOL:
		e->dt = scalar_dt(ET_BOOL);
		return true;
	case E_VAR: return type_var(vf, e);
	case E_LOAD: return type_load(vf, e);
	case E_TEX_LOAD: return type_tex_load(vf, e);
	case E_UN: return type_unary(vf, e, hint);
	case E_BIN: return type_binary(vf, e, hint);
	case E_SELECT: return type_select(vf, e, hint);
	case E_CAST:
	case E_BROADCAST: return type_cast(vf, e);
	case E_CALL: return type_call(vf, e, hint);
	}
	return false;
}

static bool
valid_thread(Sym t)
{
	static const char *tags[] = {
		"blockIdx.x", "blockIdx.y", "blockIdx.z",
		"threadIdx.x", "threadIdx.y", "threadIdx.z",
	};
	for (size_t i = 0; i < sizeof tags / sizeof *tags; i++)
		if (strcmp(t, tags[i]) == 0)
			return true;
	return false;
}

static void
check_buffer_var(Verifier *vf, PVar *v)
{
	if (v->type->dt.lanes > 1) {
		char d[16];
		dt_str(v->type->dt, d);
		ERR(vf, v->loc, "buffer '%%%s' of %s: buffers hold scalars; read vectors with a lane run "
		    "such as %%%s[i:4]", v->name, d, v->name);
	}
	if (!v->vd) {
		ERR(vf, v->loc, "buffer '%%%s' has no device", v->name);
		return;
	}
	check_vdev(vf, v->vd, v->loc);
	for (uint32_t i = 0; i < v->annots.n; i++) {
		AttrEntry *e = &v->annots.e[i];
		if (!strcmp(e->key, ANNOT_ZEROED) || !strcmp(e->key, ANNOT_COHERENT)) {
			/* ir(5), "Allocation annotations" */
			if (e->val.kind != AT_BOOL)
				ERR(vf, e->val.loc, "'%s' is true or false", e->key);
			else if (e->val.u.i && !is_global_buffer(v))
				ERR(vf, e->loc, "'%s' needs a buffer in global memory; '%%%s' is in %s memory",
				    e->key, v->name, v->vd->scope);
			continue;
		}
		if (strcmp(e->key, "candidate_pools") != 0)
			continue;
		if (e->val.kind != AT_LIST) {
			ERR(vf, e->val.loc, "'candidate_pools' must be a list of pools");
			continue;
		}
		for (uint32_t j = 0; j < e->val.n; j++) {
			const Attr *a = &e->val.u.list[j];
			if (a->kind != AT_SYM)
				ERR(vf, a->loc, "'candidate_pools' lists pools such as @sram");
			else if (!module_pool(vf->m, a->u.sym))
				ERR(vf, a->loc, "'candidate_pools' names '@%s', which is not a declared pool",
				    a->u.sym);
		}
	}
}

/* alloc ... image2d[W, H]: an image the runtime allocates before the
 * prim's kernels run, so outside them, of the size the scope's
 * convention gives the type. */
static void
check_image_alloc(Verifier *vf, const PStmt *s, bool in_kernel)
{
	const PVar *v = s->u.alloc.buf;
	const int64_t *img = s->u.alloc.image;
	int64_t wh[2];
	char why[256], ty[128];
	if (!v->vd || !is_texture_scope(v->vd->scope)) {
		ERR(vf, s->loc, "'image2d' needs a buffer in a texture scope");
		return;
	}
	if (in_kernel) {
		ERR(vf, s->loc, "an image is allocated outside kernels, before they run");
		return;
	}
	if (!texture_image(v->type, v->vd->scope, wh, why, sizeof why)) {
		ERR(vf, s->loc, "%s", why);
		return;
	}
	if (wh[0] != img[0] || wh[1] != img[1])
		ERR(vf, s->loc, "'%%%s' of %s in %s is image2d[%lld, %lld], not [%lld, %lld]", v->name,
		    type_text(v->type, ty, sizeof ty), v->vd->scope, (long long)wh[0], (long long)wh[1],
		    (long long)img[0], (long long)img[1]);
}

static void
verify_stmt(Verifier *vf, PStmt *s, bool in_kernel)
{
	vf->in_kernel = in_kernel;
	switch (s->kind) {
	case S_FOR:
		if (type_expr(vf, s->u.loop.lo, scalar_dt(ET_I32)) && type_expr(vf, s->u.loop.hi, scalar_dt(ET_I32)) &&
		    (!is_int(s->u.loop.lo->dt) || !is_int(s->u.loop.hi->dt)))
			ERR(vf, s->loc, "loop bounds must be integers");
		if (s->fkind == FK_THREAD) {
			if (!valid_thread(s->u.loop.thread))
				ERR(vf, s->loc, "unknown thread tag '%s' (expected blockIdx.x/y/z or threadIdx.x/y/z)",
				    s->u.loop.thread);
			if (!in_kernel)
				ERR(vf, s->loc, "a loop bound to %s must be inside a kernel", s->u.loop.thread);
		}
		break;
	case S_IF:
		if (type_expr(vf, s->u.cond.cond, scalar_dt(ET_BOOL)) &&
		    !dtype_eq(s->u.cond.cond->dt, scalar_dt(ET_BOOL)))
			ERR(vf, s->loc, "the condition of 'if' must be a scalar bool");
		break;
	case S_LET: {
		PVar *v = s->u.let.var;
		DType hint = v->type ? v->type->dt : scalar_dt(ET_I32);
		if (!type_expr(vf, s->u.let.val, hint))
			break;
		if (!v->type) {
			v->type = type_tensor(vf->m, s->u.let.val->dt, 0, NULL);
		} else if (!dtype_eq(v->type->dt, s->u.let.val->dt)) {
			char a[16], b[16];
			dt_str(v->type->dt, a);
			dt_str(s->u.let.val->dt, b);
			ERR(vf, s->u.let.val->loc, "'%%%s' is declared %s but its value is %s", v->name, a, b);
		}
		break;
	}
	case S_STORE: {
		uint32_t lanes;
		PExpr at = {.loc = s->loc};
		PVar *buf = s->u.store.buf;
		if (!check_index(vf, &at, buf, s->u.store.idx, s->n, &lanes))
			break;
		DType want = {buf->type->dt.kind, (uint8_t)lanes};
		if (type_expr(vf, s->u.store.val, want) && !dtype_eq(want, s->u.store.val->dt)) {
			char a[16], b[16];
			dt_str(want, a);
			dt_str(s->u.store.val->dt, b);
			ERR(vf, s->u.store.val->loc, "'%%%s' takes %s here but the stored value is %s",
			    buf->name, a, b);
		}
		break;
	}
	case S_ALLOC:
		check_buffer_var(vf, s->u.alloc.buf);
		if (s->u.alloc.image[0])
			check_image_alloc(vf, s, in_kernel);
		break;
	case S_TEX_STORE: {
		PVar *buf = s->u.tex.buf;
		if (!buf || buf->kind != PV_BUFFER || !buf->vd || !is_texture_scope(buf->vd->scope)) {
			ERR(vf, s->loc, "texture2d_store needs a buffer in a texture scope");
			break;
		}
		if (!check_texel_image(vf, buf, s->loc))
			break;
		DType want = {buf->type->dt.kind, 4};
		if (type_expr(vf, s->u.tex.x, scalar_dt(ET_I32)) && type_expr(vf, s->u.tex.y, scalar_dt(ET_I32)) &&
		    type_expr(vf, s->u.tex.val, want))
			same_dt(vf, s->u.tex.val, want, s->u.tex.val->dt);
		break;
	}
	case S_BARRIER:
		if (!in_kernel)
			ERR(vf, s->loc, "'barrier' must be inside a kernel");
		break;
	case S_KERNEL:
		break;
	case S_EVAL: {
		PExpr *e = s->u.eval;
		bool fence = e->kind == E_CALL && e->op == I_MEM_FENCE;
		if (fence && !in_kernel)
			ERR(vf, s->loc, "'mem_fence' must be inside a kernel");
		else if (fence && e->n != 0)
			ERR(vf, e->loc, "'mem_fence' takes no arguments, %u given", e->n);
		else if (!fence)
			type_expr(vf, e, scalar_dt(ET_F32));
		else
			e->dt = scalar_dt(ET_I32);
		break;
	}
	}
}

static void
verify_prim(Verifier *vf, Prim *p)
{
	names_reset(vf);
	for (uint32_t i = 0; i < p->nparams; i++) {
		PVar *v = p->params[i];
		if (!names_add(vf, v->name))
			ERR(vf, v->loc, "redefinition of '%%%s'", v->name);
		if (v->kind == PV_BUFFER)
			check_buffer_var(vf, v);
	}
	NameSet kernels = {0};
	/* how many kernels the statement is inside */
	int kernels_open = 0;
	PrimWalk w;
	PWalkStep ws;
	pwalk_start(&w, &p->body);
	while (pwalk_next(&w, &ws)) {
		PStmt *s = ws.s;
		if (ws.ev == PW_BLOCK_END) {
			if (s && s->kind == S_KERNEL)
				kernels_open--;
			continue;
		}
		verify_stmt(vf, s, kernels_open > 0);
		if (s->kind == S_KERNEL) {
			/* kernels become OpenCL functions: one name each */
			if (!nameset_add(&kernels, s->u.kernel.name))
				ERR(vf, s->loc, "a second kernel named '@%s' in '@%s'", s->u.kernel.name, p->name);
			if (s->u.kernel.launch && !verify_launch(vf->m, p, s))
				vf->ok = false;
			kernels_open++;
		}
	}
	nameset_free(&kernels);
}

/* ---------------------------------------------------------------- module */

bool
ir_verify(Module *m)
{
	return verify_module(m, true);
}

bool
verify_module(Module *m, bool check_names)
{
	Verifier vf = {.m = m, .ctx = m->ctx, .ok = true, .check_names = check_names};
	/* Type rules (ops.c) report without touching vf.ok: any error counts. */
	int errors_before = m->ctx->nerrors;
	check_device_name(&vf, m->default_dev, m->default_loc, "default");
	check_device_name(&vf, m->host_dev, m->host_loc, "host");
	for (Pool *p = m->pools; p; p = p->next) {
		const Attr *devs = attr_get(&p->attrs, "devices");
		for (uint32_t i = 0; devs && devs->kind == AT_LIST && i < devs->n; i++)
			if (devs->u.list[i].kind == AT_SYM && !module_device(m, devs->u.list[i].u.sym))
				ERR(&vf, devs->u.list[i].loc, "pool '@%s' names unknown device '@%s'", p->name,
				    devs->u.list[i].u.sym);
	}
	/* A definition with errors the parser reported as a whole (VF_ERROR)
	 * is skipped; the others are checked, so one run reports every
	 * independent error. */
	for (Prim *p = m->prims; p; p = p->next) {
		if (p->flags & VF_ERROR)
			vf.poisoned = true;
		else
			verify_prim(&vf, p);
	}
	if (!verify_programs(m))
		vf.ok = false;
	for (Func *f = m->funcs; f; f = f->next) {
		if (f->flags & VF_ERROR)
			vf.poisoned = true;
		else
			verify_func(&vf, f);
	}
	names_reset(&vf);
	ptrvec_free(&vf.defs);
	/* A memory plan is checked on a module that is otherwise sound. */
	if (vf.ok && !vf.poisoned && m->ctx->nerrors == errors_before && m->places)
		memplan_check(m);
	return vf.ok && m->ctx->nerrors == errors_before;
}
