/* interp.c: the graph-level reference interpreter (see interp.h).
 *
 * Calls between graph-level functions can nest as deep as the program
 * likes (recursion through an if), so they run on an explicit stack of
 * frames, never on the C stack.  Each frame holds the function's values
 * in an array indexed by the number interp gives every parameter and
 * binding, so a function active twice keeps two sets of values.  Inside a
 * frame, a stack of cursors walks the blocks: an if pushes the arm it
 * takes, and the arm's end hands its yield to the if's binding.
 *
 * Every tensor the run makes lives until interp_free: the interpreter is
 * an oracle for tests and small models, and sharing tensors between
 * values (a projection, a copy) needs no reference counts this way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "interp.h"
#include "interp_prim.h"
#include "tensor/npy.h"
#include "ops/ops.h"
#include "ref_ops.h"
#include "suggest.h"
#include "tensor/data_path.h"
#include "walk.h"

/* A memory plan's storage (ir-plan-memory(1)): one arena per pool and
 * one per image, made when the module has places; a planned buffer is a
 * view into them, so buffers the plan overlaps while both are alive
 * corrupt each other's data, as they would on a device. */
typedef struct {
	Sym pool;             /* NULL: an image */
	int64_t id;           /* image id */
	uint64_t size;
	unsigned char *data;
} PlanArena;

struct Interp {
	Module *m;
	PtrVec tensors;       /* every Tensor made, freed at the end */
	PtrVec vals;          /* every RtVal made (with its fields array) */
	MemBudget mem;        /* what those tensors hold, against --max-memory */
	Func *main;
	PlanArena *arenas;
	size_t narenas, caparenas;
	PtrVec views;         /* tensors whose data is in an arena */
	const InterpOpts *o;  /* of the run under way */
};

typedef struct {
	Value *next;          /* the next binding to run */
	Block *blk;
	Value *ifv;           /* the if whose arm blk is; NULL: the body */
} Cursor;

typedef struct {
	Func *f;
	RtVal **env;          /* by value number */
	Cursor *cur;
	size_t ncur, capcur;
	Value *call;          /* the caller's binding that receives the result */
} Frame;

Interp *
interp_new(Module *m)
{
	Interp *in = xcalloc(1, sizeof *in);
	in->m = m;
	/* the numbering is ours from here: a pass that ran before (the
	 * module need not come straight from the parser) may have left its
	 * own use of Func.scratch */
	for (Func *f = m->funcs; f; f = f->next)
		f->scratch = 0;
	return in;
}

void
interp_free(Interp *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->views.n; i++)
		((Tensor *)in->views.v[i])->data = NULL;
	ptrvec_free(&in->views);
	for (size_t i = 0; i < in->narenas; i++)
		free(in->arenas[i].data);
	free(in->arenas);
	for (size_t i = 0; i < in->tensors.n; i++)
		tensor_free(in->tensors.v[i]);
	for (size_t i = 0; i < in->vals.n; i++) {
		RtVal *r = in->vals.v[i];
		free(r->fields);
		free(r);
	}
	ptrvec_free(&in->tensors);
	ptrvec_free(&in->vals);
	free(in);
}

/* ------------------------------------------------------------- values */

static RtVal *
val_tensor(Interp *in, const Type *ty, Tensor *t)
{
	RtVal *r = xcalloc(1, sizeof *r);
	r->type = ty;
	r->t = t;
	ptrvec_push(&in->vals, r);
	ptrvec_push(&in->tensors, t);
	return r;
}

static RtVal *
val_tuple(Interp *in, const Type *ty, uint32_t n)
{
	RtVal *r = xcalloc(1, sizeof *r);
	r->type = ty;
	r->n = n;
	r->fields = xcalloc(n ? n : 1, sizeof *r->fields);
	ptrvec_push(&in->vals, r);
	return r;
}

/* Takes the bytes of a tensor of type text `type` for `what` ("the result
 * '%0'") from the memory budget; false after reporting at loc. */
static bool
reserve(Interp *in, uint64_t bytes, const char *what, const char *type, Loc loc)
{
	char why[160];
	if (mem_take(&in->mem, bytes, why, sizeof why))
		return true;
	error_at(in->m->ctx, loc, "%s is %s, %llu bytes: %s", what, type,
	         (unsigned long long)bytes, why);
	return false;
}

/* A tensor of a tensor type for `what`, within the memory limit; types
 * the verifier accepted always fit, but a shape too large for memory
 * arithmetic is reported. */
static Tensor *
new_tensor(Interp *in, const Type *ty, const char *what, Loc loc)
{
	char buf[128];
	uint64_t bytes;
	if (!ty || ty->kind != TY_TENSOR || ty->dt.lanes != 1 || ty->dt.kind >= ET__COUNT ||
	    !tensor_bytes((ElemKind)ty->dt.kind, ty->n, ty->dims, &bytes) || bytes > SIZE_MAX) {
		error_at(in->m->ctx, loc, "cannot hold a value of type %s in the interpreter",
		         ty ? type_text(ty, buf, sizeof buf) : "?");
		return NULL;
	}
	if (!reserve(in, bytes, what, type_text(ty, buf, sizeof buf), loc))
		return NULL;
	return tensor_like_type(ty);
}

/* A literal operand as a rank-0 tensor of the type the verifier gave it. */
static RtVal *
literal(Interp *in, const Value *a)
{
	Tensor *t = new_tensor(in, a->type, "a literal", a->loc);
	if (!t)
		return NULL;
	tensor_set_literal(t, 0, a);
	return val_tensor(in, a->type, t);
}

/* -------------------------------------------------------- numbering */

/* Numbers f's parameters and bindings (Value.scratch) once; the count is
 * kept in Func.scratch, plus one so 0 means "not yet". */
static uint32_t
number_values(Func *f)
{
	if (f->scratch)
		return (uint32_t)(f->scratch - 1);
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nparams; i++)
		f->params[i]->scratch = n++;
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		v->scratch = n++;
	f->scratch = (uintptr_t)n + 1;
	return n;
}

static RtVal *
operand(Interp *in, Frame *fr, const Value *a)
{
	if (a->kind == VK_LIT)
		return literal(in, a);
	return fr->env[a->scratch];
}

static void
push_cursor(Frame *fr, Block *blk, Value *ifv)
{
	VEC_PUSH(fr->cur, fr->ncur, fr->capcur) = (Cursor){blk->first, blk, ifv};
}

static Frame *
new_frame(Func *f, Value *call)
{
	Frame *fr = xcalloc(1, sizeof *fr);
	fr->f = f;
	fr->call = call;
	fr->env = xcalloc(number_values(f) + 1, sizeof *fr->env);
	push_cursor(fr, &f->body, NULL);
	return fr;
}

static void
free_frame(Frame *fr)
{
	free(fr->env);
	free(fr->cur);
	free(fr);
}

/* -------------------------------------------------------- constants */

/* The tensor in the .npy file path for `what` of type ty: its header is
 * checked against ty (reported at loc) and its size against the memory
 * limit before the data is read.  NULL with the file's problem in err, or
 * with err empty after reporting. */
static Tensor *
load_npy(Interp *in, const char *path, const Type *ty, const char *what, Loc loc, char *err,
         size_t errsz)
{
	NpyFile nf;
	err[0] = 0;
	if (!npy_open(&nf, path, err, errsz))
		return NULL;
	char a[128], b[128];
	if (!tensor_fits(&nf.head, ty)) {
		error_at(in->m->ctx, loc, "%s is %s, but '%s' holds %s", what,
		         type_text(ty, a, sizeof a), path, tensor_type_text(&nf.head, b, sizeof b));
		npy_close(&nf);
		return NULL;
	}
	if (!reserve(in, nf.bytes, what, type_text(ty, a, sizeof a), loc)) {
		npy_close(&nf);
		return NULL;
	}
	Tensor *t = npy_load(&nf, err, errsz);
	if (!t)
		mem_give(&in->mem, nf.bytes);
	return t;
}

/* Constant v's tensor from its literal or its file. */
static RtVal *
eval_const_data(Interp *in, const InterpOpts *o, const Value *v, const char *what)
{
	const ConstData *cd = v->u.cdata;
	if (!(v->flags & VF_CONST_FILE)) {
		Tensor *t = new_tensor(in, v->type, what, v->loc);
		if (!t)
			return NULL;
		tensor_set_inline(t, cd);
		return val_tensor(in, v->type, t);
	}
	if (!o->any_data_path && !data_path_inside(cd->path)) {
		error_at(in->m->ctx, v->loc, INTERP_OUTSIDE_MSG, v->name, cd->path);
		return NULL;
	}
	char *path = data_path_resolve(cd->path, o->data_dir, o->input_path);
	char err[512];
	Tensor *t = load_npy(in, path, v->type, what, v->loc, err, sizeof err);
	if (!t && err[0])
		error_at(in->m->ctx, v->loc, "cannot load the constant '%%%s': %s", v->name, err);
	free(path);
	return t ? val_tensor(in, v->type, t) : NULL;
}

/* Constant v's tensor: read, or left to the device that holds it. */
static RtVal *
eval_const(Interp *in, const InterpOpts *o, const Value *v)
{
	char what[160];
	snprintf(what, sizeof what, "the constant '%%%s'", v->name);
	if (o->dev && o->dev->const_held && o->dev->const_held(o->dev_ud, v)) {
		/* its data is on a device already: read back only if wanted */
		Tensor *t = new_tensor(in, v->type, what, v->loc);
		if (t)
			o->dev->const_made(o->dev_ud, v, t);
		return t ? val_tensor(in, v->type, t) : NULL;
	}
	RtVal *r = eval_const_data(in, o, v, what);
	if (r && o->dev && o->dev->const_made)
		o->dev->const_made(o->dev_ud, v, r->t);
	return r;
}

/* ------------------------------------------------------------ plans */

static void
add_arena(const PlaceList *l, void *st)
{
	Interp *in = st;
	for (uint32_t i = 0; i < l->n; i++) {
		const Place *p = &l->p[i];
		size_t k = 0;
		while (k < in->narenas && !(in->arenas[k].pool == p->pool &&
		                            (p->pool || in->arenas[k].id == p->offset)))
			k++;
		uint64_t size = 0;
		if (p->pool) {
			const Pool *pl = module_pool(in->m, p->pool);
			const Attr *a = pl ? attr_get(&pl->attrs, "size") : NULL;
			size = a && a->kind == AT_INT && a->u.i > 0 ? (uint64_t)a->u.i : 0;
		} else {
			/* the largest element is 8 bytes */
			size = (uint64_t)p->image[0] * (uint64_t)p->image[1] * 4 * 8;
		}
		if (k == in->narenas)
			VEC_PUSH(in->arenas, in->narenas, in->caparenas) = (PlanArena){p->pool, p->offset, 0, NULL};
		if (size > in->arenas[k].size)
			in->arenas[k].size = size;
	}
}

/* Makes the arenas of the module's plan, if it has one. */
static void
plan_arenas(Interp *in)
{
	if (!in->m->places || in->narenas || in->o->dev)
		return;
	module_each_places(in->m, add_arena, in);
	for (size_t k = 0; k < in->narenas; k++)
		in->arenas[k].data = xcalloc(1, in->arenas[k].size ? in->arenas[k].size : 1);
}

/* The bytes a place gives a buffer of `bytes`, or NULL (no such arena, or
 * the buffer does not fit: then it gets storage of its own). */
static void *
place_data(Interp *in, const Place *p, uint64_t bytes)
{
	for (size_t k = 0; k < in->narenas; k++) {
		PlanArena *a = &in->arenas[k];
		if (a->pool != p->pool || (!p->pool && a->id != p->offset))
			continue;
		uint64_t off = p->pool ? (uint64_t)p->offset : 0;
		return off <= a->size && bytes <= a->size - off ? a->data + off : NULL;
	}
	return NULL;
}

/* t's data moved to place i of node, if the plan has one. */
static void
to_place(Interp *in, const void *node, uint32_t i, uint32_t n, Tensor *t)
{
	const InterpOpts *o = in->o;
	if (o && o->dev) {
		if (o->dev->placed && t && in->m->places)
			o->dev->placed(o->dev_ud, node, i, n, t);
		return;
	}
	const PlaceList *l = in->m->places ? module_places(in->m, node) : NULL;
	if (!l || l->n != n || !t)
		return;
	uint64_t bytes = (uint64_t)t->numel * elem_size(t->kind);
	unsigned char *d = place_data(in, &l->p[i], bytes);
	if (!d || !bytes)
		return;
	memcpy(d, t->data, bytes);
	free(t->data);
	t->data = d;
	ptrvec_push(&in->views, t);
}

static void *
prim_data_for(void *st, const PVar *buf, uint64_t bytes)
{
	Interp *in = st;
	const PlaceList *l = in->m->places ? module_places(in->m, buf) : NULL;
	return l && l->n == 1 && bytes ? place_data(in, &l->p[0], bytes) : NULL;
}

/* ------------------------------------------------------------ calls */

/* Appends the tensors of r (tuples flattened, left to right) to pv. */
static void
flatten(const RtVal *r, PtrVec *pv)
{
	/* Tuples nest only as deep as their types, which the parser caps. */
	if (r->type->kind == TY_TENSOR) {
		ptrvec_push(pv, r->t);
		return;
	}
	for (uint32_t i = 0; i < r->n; i++)
		flatten(r->fields[i], pv);
}

/* The tensors of a call: its operands' (tuples flattened), then fresh
 * result tensors, one per tensor of v's type; *result is v's value.
 * False after reporting an error. */
static bool
call_buffers(Interp *in, Frame *fr, const Value *v, PtrVec *bufs, uint32_t *nin, RtVal **result)
{
	for (uint32_t i = 0; i < v->nargs; i++) {
		RtVal *a = operand(in, fr, v->args[i]);
		if (!a)
			return false;
		flatten(a, bufs);
	}
	*nin = (uint32_t)bufs->n;
	const Type *ty = v->type;
	uint32_t nouts = ty->kind == TY_TUPLE ? ty->n : 1;
	RtVal *r = ty->kind == TY_TUPLE ? val_tuple(in, ty, nouts) : NULL;
	for (uint32_t i = 0; i < nouts; i++) {
		const Type *fty = ty->kind == TY_TUPLE ? ty->fields[i] : ty;
		char what[160];
		if (ty->kind == TY_TUPLE)
			snprintf(what, sizeof what, "result %u of '%%%s'", (unsigned)i, v->name);
		else
			snprintf(what, sizeof what, "the result '%%%s'", v->name);
		Tensor *t = new_tensor(in, fty, what, v->loc);
		if (!t)
			return false;
		if (fr->f == in->main)
			to_place(in, v, i, nouts, t);
		if (!in->o || !in->o->dev)
			tensor_poison(t);
		RtVal *o = val_tensor(in, fty, t);
		if (r)
			r->fields[i] = o;
		else
			r = o;
		ptrvec_push(bufs, t);
	}
	*result = r;
	return true;
}

static RtVal *
eval_op(Interp *in, Frame *fr, const Value *v)
{
	PtrVec bufs = {0};
	uint32_t nin;
	RtVal *r = NULL;
	bool ok = call_buffers(in, fr, v, &bufs, &nin, &r);
	char err[512];
	const InterpOpts *o = in->o;
	for (uint32_t i = 0; ok && o && o->dev && i < nin; i++)
		ok = o->dev->to_host(o->dev_ud, bufs.v[i]);
	if (ok && !ref_eval(v->u.op->op, v->u.op->attrs, (Tensor *const *)bufs.v, nin, v->type,
	                    (Tensor **)bufs.v + nin, (uint32_t)bufs.n - nin, err, sizeof err)) {
		error_at(in->m->ctx, v->loc, "%s", err);
		ok = false;
	}
	ptrvec_free(&bufs);
	return ok ? r : NULL;
}

/* call_lowered: the prim's parameters are the arguments' tensors followed
 * by one result buffer per result tensor. */
static RtVal *
eval_call_lowered(Interp *in, Frame *fr, const Value *v)
{
	const Prim *p = v->u.prim;
	PtrVec bufs = {0};
	uint32_t nin;
	RtVal *r = NULL;
	bool ok = call_buffers(in, fr, v, &bufs, &nin, &r);
	if (ok && bufs.n != p->nparams) {
		error_at(in->m->ctx, v->loc, "call_lowered @%s passes %zu buffers; the prim takes %u",
		         p->name, bufs.n, (unsigned)p->nparams);
		ok = false;
	}
	PrimPlan plan = {prim_data_for, in};
	const InterpOpts *o = in->o;
	if (ok && o && o->dev) {
		ok = o->dev->run_prim(o->dev_ud, v, p, (Tensor *const *)bufs.v, (uint32_t)bufs.n, nin);
	} else if (ok && !prim_exec_planned(in->m->ctx, p, (Tensor *const *)bufs.v, (uint32_t)bufs.n,
	                                    &in->mem, fr->f == in->main && in->narenas ? &plan : NULL)) {
		note_at(in->m->ctx, v->loc, "in the call of @%s here", p->name);
		ok = false;
	}
	ptrvec_free(&bufs);
	return ok ? r : NULL;
}

/* ----------------------------------------------------------- inputs */

static bool
bind_inputs(Interp *in, const InterpOpts *o, Func *main, Frame *fr)
{
	Ctx *ctx = in->m->ctx;
	bool ok = true;
	for (uint32_t k = 0; k < o->ninputs; k++) {
		const char *name = o->inputs[k].name;
		if (name[0] == '%')
			name++;
		uint32_t i = 0;
		while (i < main->nparams && strcmp(main->params[i]->name, name) != 0)
			i++;
		if (i == main->nparams) {
			error_at(ctx, main->loc, "--input %s: @main has no parameter '%%%s'",
			         o->inputs[k].name, name);
			Suggest sg;
			suggest_init(&sg, name, strlen(name));
			for (uint32_t j = 0; j < main->nparams; j++)
				suggest_offer(&sg, main->params[j]->name);
			for (uint32_t j = 0; j < main->nparams; j++)
				if (main->params[j]->name == suggest_best(&sg))
					suggest_note(&sg, ctx, main->params[j]->loc, "");
			ok = false;
			continue;
		}
		for (uint32_t j = 0; j < k; j++) {
			const char *other = o->inputs[j].name;
			if (strcmp(other + (other[0] == '%'), name) == 0) {
				error_at(ctx, main->params[i]->loc, "parameter '%%%s' is given twice with --input",
				         name);
				ok = false;
			}
		}
		Value *p = main->params[i];
		if (p->type->kind != TY_TENSOR) {
			char a[128];
			error_at(ctx, p->loc, "parameter '%%%s' is a tuple %s; ir-run takes tensors only",
			         name, type_text(p->type, a, sizeof a));
			ok = false;
			continue;
		}
		char err[512], what[160];
		snprintf(what, sizeof what, "parameter '%%%s'", name);
		Tensor *t;
		if (o->inputs[k].tensor) {
			const Tensor *given = o->inputs[k].tensor;
			char a[128], b[128];
			uint64_t bytes = 0;
			t = NULL;
			if (!tensor_fits(given, p->type))
				error_at(ctx, p->loc, "%s is %s, but 'the input' holds %s", what,
				         type_text(p->type, a, sizeof a), tensor_type_text(given, b, sizeof b));
			else if (tensor_bytes(given->kind, given->rank, given->dims, &bytes) &&
			         reserve(in, bytes, what, type_text(p->type, a, sizeof a), p->loc))
				t = tensor_copy(given);
		} else {
			t = load_npy(in, o->inputs[k].path, p->type, what, p->loc, err, sizeof err);
			if (!t && err[0])
				error_at(ctx, p->loc, "cannot read the input for '%%%s': %s", name, err);
		}
		if (!t) {
			ok = false;
			continue;
		}
		if (!fr->env[p->scratch]) {
			fr->env[p->scratch] = val_tensor(in, p->type, t);
		} else {
			mem_give(&in->mem, (uint64_t)t->numel * elem_size(t->kind));
			tensor_free(t);
		}
	}
	for (uint32_t i = 0; i < main->nparams && ok; i++) {
		Value *p = main->params[i];
		if (!fr->env[p->scratch]) {
			error_at(ctx, p->loc, "no input for parameter '%%%s': give --input %s=FILE.npy",
			         p->name, p->name);
			ok = false;
		}
	}
	return ok;
}

/* ------------------------------------------------- for the executor */

/* The executor (lib/exec/) reads @main's inputs and its constants the
 * way a run of the interpreter does, with the same checks and messages;
 * the tensors stay the interpreter's until interp_free. */

static void
set_budget(Interp *in, const InterpOpts *o)
{
	in->o = o;
	in->mem.limit = o->max_memory == UINT64_MAX ? 0
	              : o->max_memory ? o->max_memory : mem_default_limit();
}

bool
interp_read_inputs(Interp *in, const InterpOpts *o, Tensor **per_param)
{
	Func *main = module_func(in->m, sym_intern_cstr(in->m, "main"));
	if (!main) {
		error_at(in->m->ctx, (Loc){0}, "no function @main");
		return false;
	}
	set_budget(in, o);
	Frame *fr = new_frame(main, NULL);
	bool ok = bind_inputs(in, o, main, fr);
	for (uint32_t i = 0; ok && i < main->nparams; i++)
		per_param[i] = fr->env[main->params[i]->scratch]->t;
	free_frame(fr);
	return ok;
}

Tensor *
interp_const_tensor(Interp *in, const InterpOpts *o, const Value *v)
{
	char what[160];
	set_budget(in, o);
	if (v->kind == VK_LIT) {
		RtVal *r = literal(in, v);
		return r ? r->t : NULL;
	}
	snprintf(what, sizeof what, "the constant '%%%s'", v->name);
	RtVal *r = eval_const_data(in, o, v, what);
	return r ? r->t : NULL;
}

/* ------------------------------------------------------------- run */

/* One run of @main: a stack of frames (a call pushes one, its end pops
 * it), without recursion in C however deep the IR's calls nest. */
typedef struct {
	Interp *in;
	const InterpOpts *o;
	PtrVec stack;             /* Frame *; the last one runs */
	uint32_t max_depth;
	const RtVal *result;      /* @main's, once it returns */
} Run;

/* @main's parameters from the inputs, each in its planned place. */
static bool
start_main(Run *r, Func *main, Frame *top)
{
	Interp *in = r->in;
	if (!bind_inputs(in, r->o, main, top))
		return false;
	for (uint32_t i = 0; i < main->nparams; i++) {
		RtVal *pv = top->env[main->params[i]->scratch];
		if (pv && pv->type->kind == TY_TENSOR)
			to_place(in, main->params[i], 0, 1, pv->t);
	}
	return true;
}

/* The block of cursor c ends: its yield goes to the if, or the function
 * returns to its caller (or, @main, ends the run). */
static bool
end_block(Run *r, Frame *fr, Cursor *c)
{
	RtVal *y = operand(r->in, fr, c->blk->yield);
	if (!y)
		return false;
	if (c->ifv) {
		fr->env[c->ifv->scratch] = y;
		fr->ncur--;
		return true;
	}
	r->stack.n--;
	if (r->stack.n) {
		Frame *caller = r->stack.v[r->stack.n - 1];
		caller->env[fr->call->scratch] = y;
	} else {
		r->result = y;
	}
	free_frame(fr);
	return true;
}

/* A call of a function: a frame for it, its parameters bound; false (after
 * reporting) when calls nest too deep, or when an operand is missing. */
static bool
push_call(Run *r, Frame *fr, Value *v)
{
	if (r->stack.n >= r->max_depth) {
		error_at(r->in->m->ctx, v->loc, "calls nest deeper than %u; is the recursion endless?",
		         r->max_depth);
		return false;
	}
	Frame *callee = new_frame(v->u.callee, v);
	bool ok = true;
	for (uint32_t i = 0; i < v->nargs && ok; i++) {
		RtVal *a = operand(r->in, fr, v->args[i]);
		callee->env[v->u.callee->params[i]->scratch] = a;
		ok = a != NULL;
	}
	ptrvec_push(&r->stack, callee);
	return ok;
}

/* An if: runs the arm its condition picks next. */
static bool
enter_if(Run *r, Frame *fr, Value *v)
{
	RtVal *cv = operand(r->in, fr, v->args[0]);
	if (!cv || (r->o->dev && !r->o->dev->to_host(r->o->dev_ud, cv->t)))
		return false;
	bool taken = tensor_get_int(cv->t, 0) != 0;
	push_cursor(fr, &v->u.arms[taken ? 0 : 1], v);
	return true;
}

/* device_copy: on a device, the device's copy; a planned copy in @main
 * gets its own place, the data copied there; else the operand itself. */
static RtVal *
eval_device_copy(Run *r, Frame *fr, Value *v)
{
	Interp *in = r->in;
	const InterpOpts *o = r->o;
	RtVal *x = operand(in, fr, v->args[0]);
	if (x && o->dev && x->type->kind == TY_TENSOR) {
		Tensor *t = new_tensor(in, x->type, "the copy", v->loc);
		RtVal *c = t ? val_tensor(in, x->type, t) : NULL;
		return c && o->dev->device_copy(o->dev_ud, v, x->t, t) ? c : NULL;
	}
	if (x && fr->f == in->main && x->type->kind == TY_TENSOR && module_places(in->m, v)) {
		Tensor *t = tensor_copy(x->t);
		x = val_tensor(in, x->type, t);
		to_place(in, v, 0, 1, t);
	}
	return x;
}

/* The value of a binding that runs in place (every form but call and if). */
static RtVal *
eval_binding(Run *r, Frame *fr, Value *v)
{
	Interp *in = r->in;
	RtVal *x = NULL;
	switch (v->form) {
	case B_OP:
		return eval_op(in, fr, v);
	case B_CALL_LOWERED:
		return eval_call_lowered(in, fr, v);
	case B_ON_DEVICE:
		return operand(in, fr, v->args[0]);
	case B_DEVICE_COPY:
		return eval_device_copy(r, fr, v);
	case B_TUPLE:
		x = val_tuple(in, v->type, v->nargs);
		for (uint32_t i = 0; i < v->nargs && x; i++)
			if (!(x->fields[i] = operand(in, fr, v->args[i])))
				x = NULL;
		return x;
	case B_PROJ:
		x = operand(in, fr, v->args[0]);
		return x && v->u.index < x->n ? x->fields[v->u.index] : NULL;
	case B_CONST:
		x = eval_const(in, r->o, v);
		if (x && fr->f == in->main && x->type->kind == TY_TENSOR)
			to_place(in, v, 0, 1, x->t);
		return x;
	case B_CALL:
	case B_IF:
		break;          /* run_binding's */
	}
	return NULL;
}

/* Runs binding v of frame fr: its value into fr's environment, or, for a
 * call or an if, a frame or an arm pushed to run next.  False after an
 * error, reported (an internal one if nothing else was). */
static bool
run_binding(Run *r, Frame *fr, Value *v)
{
	RtVal *x = NULL;
	if (v->form == B_CALL)
		return push_call(r, fr, v);     /* as before: no internal error */
	if (v->form == B_IF ? enter_if(r, fr, v) : (x = eval_binding(r, fr, v)) != NULL) {
		if (x)
			fr->env[v->scratch] = x;
		return true;
	}
	Ctx *ctx = r->in->m->ctx;
	if (ctx->nerrors == 0)
		error_at(ctx, v->loc, "internal error: the interpreter could not evaluate '%%%s'",
		         v->name);
	return false;
}

/* With a device, the result's tensors back on the host. */
static bool
result_to_host(Run *r)
{
	PtrVec ts = {0};
	bool ok = true;
	flatten(r->result, &ts);
	for (size_t i = 0; i < ts.n && ok; i++)
		ok = r->o->dev->to_host(r->o->dev_ud, ts.v[i]);
	ptrvec_free(&ts);
	return ok;
}

const RtVal *
interp_run_main(Interp *in, const InterpOpts *o)
{
	Func *main = module_func(in->m, sym_intern_cstr(in->m, "main"));
	if (!main) {
		error_at(in->m->ctx, (Loc){0}, "no function @main");
		return NULL;
	}
	set_budget(in, o);
	Run r = {.in = in, .o = o, .max_depth = o->max_call_depth ? o->max_call_depth : 10000};
	Frame *top = new_frame(main, NULL);
	ptrvec_push(&r.stack, top);
	in->main = main;
	plan_arenas(in);
	bool ok = start_main(&r, main, top);
	while (ok && r.stack.n) {
		Frame *fr = r.stack.v[r.stack.n - 1];
		Cursor *c = &fr->cur[fr->ncur - 1];
		if (!c->next) {
			ok = end_block(&r, fr, c);
			continue;
		}
		Value *v = c->next;
		c->next = v->next;
		ok = run_binding(&r, fr, v);
	}
	for (size_t i = 0; i < r.stack.n; i++)
		free_frame(r.stack.v[i]);
	ptrvec_free(&r.stack);
	if (ok && r.result && o->dev)
		ok = result_to_host(&r);
	return ok ? r.result : NULL;
}
