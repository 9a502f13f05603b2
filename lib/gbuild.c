/* gbuild.c: building graph-level code from C (see gbuild.h). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gbuild.h"
#include "walk.h"

/* ------------------------------------------------------------ functions */

static void
begin(GBuild *b, Module *m, Func *f)
{
	memset(b, 0, sizeof *b);
	b->m = m;
	b->f = f;
	b->pcap = f->nparams;
	gb_at_end(b, &f->body);
}

Func *
gb_func(GBuild *b, Module *m, const char *name)
{
	Sym s = sym_intern_cstr(m, name);
	int kind;
	sym_global(s, &kind);
	if (kind != GK_NONE)
		return NULL;
	Func *f = arena_alloc(m->arena, sizeof *f);
	f->name = s;
	sym_set_global(s, GK_FUNC, f);
	if (m->funcs_last)
		m->funcs_last->next = f;
	else
		m->funcs = f;
	m->funcs_last = f;
	begin(b, m, f);
	return f;
}

void
gb_start(GBuild *b, Module *m, Func *f)
{
	begin(b, m, f);
}

void
gb_at(GBuild *b, Block *blk, Value *after)
{
	b->blk = blk;
	b->after = after;
}

void
gb_at_end(GBuild *b, Block *blk)
{
	gb_at(b, blk, blk->last);
}

void
gb_done(GBuild *b)
{
	if (b->have_names)
		nameset_free(&b->names);
	b->have_names = false;
}

/* The set of the function's names, filled on first use: the names of the
 * bindings made since are in it already (gb_name, gb_take_name). */
static NameSet *
names(GBuild *b)
{
	if (b->have_names)
		return &b->names;
	memset(&b->names, 0, sizeof b->names);
	b->have_names = true;
	Func *f = b->f;
	for (uint32_t i = 0; i < f->nparams; i++)
		nameset_add(&b->names, f->params[i]->name);
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		nameset_add(&b->names, v->name);
	return &b->names;
}

const char *
gb_name(GBuild *b, const char *base, const char *suffix)
{
	NameSet *set = names(b);
	size_t n = strlen(base) + (suffix ? strlen(suffix) : 0) + 24;
	char *buf = xmalloc(n);
	if (suffix)
		snprintf(buf, n, "%s_%s", base, suffix);
	else
		snprintf(buf, n, "%s", base);
	size_t stem = strlen(buf);
	for (unsigned long i = 1; nameset_has(set, buf); i++)
		snprintf(buf + stem, n - stem, "_%lu", i);
	const char *s = module_name(b->m, buf, strlen(buf));
	free(buf);
	nameset_add(set, s);
	return s;
}

bool
gb_take_name(GBuild *b, const char *name)
{
	return nameset_add(names(b), name);
}

Value *
gb_param(GBuild *b, const char *name, const Type *ty)
{
	Func *f = b->f;
	Value *v = value_new(b->m, VK_PARAM, 0);
	v->name = name;
	v->type = ty;
	v->flags = VF_TYPED;
	v->loc = b->loc;
	if (b->on) {
		v->vd = b->on;
		v->flags |= VF_ON;
	}
	if (f->nparams == b->pcap) {
		/* doubled in the arena: linear in the parameters made */
		b->pcap = b->pcap ? 2 * b->pcap : 8;
		Value **np = arena_alloc(b->m->arena, b->pcap * sizeof *np);
		if (f->nparams)
			memcpy(np, f->params, f->nparams * sizeof *np);
		f->params = np;
	}
	f->params[f->nparams++] = v;
	if (b->have_names)
		nameset_add(&b->names, name);
	return v;
}

/* An operand's type; a literal's, where only its type matters (a tuple
 * field, a result), is its default one, as the verifier gives it. */
static const Type *
operand_type(Module *m, Value *a)
{
	if (a->kind == VK_LIT && !a->type)
		a->type = lit_default_type(m, a);
	return a->type;
}

void
gb_return(GBuild *b, Value *v)
{
	b->f->body.yield = v;
	b->f->body.yloc = b->loc;
	b->f->ret_type = operand_type(b->m, v);
}

/* ------------------------------------------------------------- bindings */

Value *
gb_add(GBuild *b, Value *v)
{
	Block *blk = b->blk;
	Value *after = b->after;
	v->next = after ? after->next : blk->first;
	if (after)
		after->next = v;
	else
		blk->first = v;
	if (blk->last == after)
		blk->last = v;
	b->after = v;
	return v;
}

/* A binding of the form, named, at the builder's place and location. */
static Value *
binding(GBuild *b, int form, const char *name, uint32_t nargs, Value *const *args)
{
	Value *v = value_new(b->m, VK_BIND, nargs);
	v->form = (uint8_t)form;
	v->name = name;
	v->loc = b->loc;
	v->flags = b->flags;
	if (b->on) {
		v->vd = b->on;
		v->flags |= VF_ON;
	}
	if (nargs)
		memcpy(v->args, args, nargs * sizeof *args);
	return gb_add(b, v);
}

Value *
gb_op(GBuild *b, const char *name, OpId id, uint32_t nargs, Value *const *args, AttrMap *attrs)
{
	Value *v = binding(b, B_OP, name, nargs, args);
	v->u.op = module_opcall(b->m, op_def(id), attrs);
	v->type = op_infer(b->m, v);
	if (!v->type)
		b->bad++;
	return v;
}

Value *
gb_op1(GBuild *b, const char *name, OpId id, Value *x, AttrMap *attrs)
{
	return gb_op(b, name, id, 1, &x, attrs);
}

Value *
gb_op2(GBuild *b, const char *name, OpId id, Value *x, Value *y, AttrMap *attrs)
{
	Value *args[2] = {x, y};
	return gb_op(b, name, id, 2, args, attrs);
}

Value *
gb_tuple(GBuild *b, const char *name, uint32_t nargs, Value *const *args)
{
	const Type *fs0[16], **fs = nargs <= 16 ? fs0 : xmalloc(nargs * sizeof *fs);
	for (uint32_t i = 0; i < nargs; i++)
		fs[i] = operand_type(b->m, args[i]);
	Value *v = binding(b, B_TUPLE, name, nargs, args);
	v->type = type_tuple(b->m, nargs, fs);
	if (fs != fs0)
		free(fs);
	return v;
}

Value *
gb_proj(GBuild *b, const char *name, Value *t, uint32_t index)
{
	const Type *tt = t->type;
	if (!tt || tt->kind != TY_TUPLE || index >= tt->n)
		return NULL;
	Value *v = binding(b, B_PROJ, name, 1, &t);
	v->u.index = index;
	v->type = tt->fields[index];
	return v;
}

Value *
gb_const(GBuild *b, const char *name, const Type *ty, ConstData *cd)
{
	Value *v = binding(b, B_CONST, name, 0, NULL);
	v->type = ty;
	gb_make_const(v, cd);
	return v;
}

ConstData *
gb_const_data(Module *m, const Type *ty)
{
	ConstData *cd = arena_alloc(m->arena, sizeof *cd);
	int64_t n = type_numel(ty);
	cd->count = (uint32_t)n;
	if (elem_is_float(ty->dt.kind))
		cd->u.f = arena_alloc(m->arena, (size_t)n * sizeof *cd->u.f + 1);
	else
		cd->u.i = arena_alloc(m->arena, (size_t)n * sizeof *cd->u.i + 1);
	return cd;
}

ConstData *
gb_const_file(Module *m, const Type *ty, const char *path)
{
	ConstData *cd = arena_alloc(m->arena, sizeof *cd);
	cd->count = ty->kind == TY_TENSOR ? (uint32_t)type_numel(ty) : 0;
	cd->path = module_name(m, path, strlen(path));
	return cd;
}

void
gb_make_const(Value *v, ConstData *cd)
{
	v->form = B_CONST;
	v->nargs = 0;
	v->u.cdata = cd;
	v->flags |= VF_TYPED;
	if (cd->path)
		v->flags |= VF_CONST_FILE;
	else
		v->flags &= (uint16_t)~VF_CONST_FILE;
}

Value *
gb_undefined(GBuild *b, const char *name, const Type *ty)
{
	Value *v = binding(b, B_TUPLE, name, 0, NULL);
	v->type = ty;
	v->flags |= VF_ERROR;
	return v;
}

/* ------------------------------------------------------------- literals */

static Value *
lit(GBuild *b, uint16_t flags)
{
	Value *v = value_new(b->m, VK_LIT, 0);
	v->loc = b->loc;
	v->flags = flags;
	return v;
}

Value *
gb_lit_int(GBuild *b, int64_t v)
{
	Value *l = lit(b, 0);
	l->u.i = v;
	return l;
}

Value *
gb_lit_float(GBuild *b, double v)
{
	Value *l = lit(b, VF_LIT_FLOAT);
	l->u.f = v;
	return l;
}

Value *
gb_lit_bool(GBuild *b, bool v)
{
	Value *l = lit(b, VF_LIT_BOOL);
	l->u.i = v;
	return l;
}

Value *
gb_lit_typed(GBuild *b, ElemKind k, double f, int64_t i)
{
	Value *l;
	if (elem_is_float(k))
		l = gb_lit_float(b, f);
	else if (k == ET_BOOL)
		l = gb_lit_bool(b, i != 0);
	else {
		l = gb_lit_int(b, i);
		if (k == ET_U64 && i < 0)
			l->flags |= VF_LIT_U64;
	}
	l->type = type_scalar(b->m, k);
	return l;
}

/* ----------------------------------------------------------- attributes */

Attr
gb_int(int64_t v)
{
	return (Attr){.kind = AT_INT, .u.i = v};
}

Attr
gb_float(double v)
{
	return (Attr){.kind = AT_FLOAT, .u.f = v};
}

Attr
gb_bool(bool v)
{
	return (Attr){.kind = AT_BOOL, .u.i = v};
}

Attr
gb_strn(Module *m, const char *s, size_t n)
{
	return (Attr){.kind = AT_STR, .n = (uint32_t)n, .u.s = arena_strndup(m->arena, s, n)};
}

Attr
gb_str(Module *m, const char *s)
{
	return gb_strn(m, s, strlen(s));
}

Attr
gb_sym(Module *m, const char *name)
{
	return (Attr){.kind = AT_SYM, .u.sym = sym_intern_cstr(m, name)};
}

static Attr
list_of(Module *m, uint32_t n)
{
	Attr a = {.kind = AT_LIST, .n = n};
	a.u.list = arena_alloc(m->arena, (n ? n : 1) * sizeof *a.u.list);
	return a;
}

Attr
gb_ints(Module *m, const int64_t *v, uint32_t n)
{
	Attr a = list_of(m, n);
	for (uint32_t i = 0; i < n; i++)
		a.u.list[i] = gb_int(v[i]);
	return a;
}

Attr
gb_floats(Module *m, const double *v, uint32_t n)
{
	Attr a = list_of(m, n);
	for (uint32_t i = 0; i < n; i++)
		a.u.list[i] = gb_float(v[i]);
	return a;
}

Attr
gb_list(Module *m, const Attr *items, uint32_t n)
{
	Attr a = list_of(m, n);
	if (n)
		memcpy(a.u.list, items, n * sizeof *items);
	return a;
}

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const AttrEntry *)a)->key, ((const AttrEntry *)b)->key);
}

AttrMap *
gb_attrs(Module *m, uint32_t n, const GAttr *kv)
{
	if (!n)
		return NULL;
	AttrMap *am = arena_alloc(m->arena, sizeof *am);
	am->n = n;
	am->e = arena_alloc(m->arena, n * sizeof *am->e);
	for (uint32_t i = 0; i < n; i++) {
		am->e[i].key = sym_intern_cstr(m, kv[i].key);
		am->e[i].val = kv[i].val;
	}
	qsort(am->e, n, sizeof *am->e, entry_cmp);
	return am;
}

AttrMap *
gb_attrs_set(Module *m, const AttrMap *old, const char *key, const Attr *val)
{
	Sym k = sym_intern_cstr(m, key);
	uint32_t n0 = old ? old->n : 0;
	AttrMap *am = arena_alloc(m->arena, sizeof *am);
	am->e = arena_alloc(m->arena, (n0 + 1) * sizeof *am->e);
	AttrEntry put = {.key = k};
	if (val)
		put.val = *val;
	bool done = !val;
	for (uint32_t i = 0; i < n0; i++) {
		const AttrEntry *e = &old->e[i];
		int c = strcmp(e->key, k);
		if (c == 0) {
			/* replaced (or removed) where it was written */
			put.loc = e->loc;
			put.val.loc = e->val.loc;
			continue;
		}
		if (c > 0 && !done) {
			am->e[am->n++] = put;
			done = true;
		}
		am->e[am->n++] = *e;
	}
	if (!done)
		am->e[am->n++] = put;
	return am;
}

void
gb_set_attr(Module *m, Value *v, const char *key, const Attr *val)
{
	v->u.op = module_opcall(m, v->u.op->op, gb_attrs_set(m, v->u.op->attrs, key, val));
}

void
gb_set_op(Module *m, Value *v, OpId id, AttrMap *attrs)
{
	v->u.op = module_opcall(m, op_def(id), attrs);
}

const Type *
gb_retype(Module *m, Value *v)
{
	v->flags &= (uint16_t)~VF_TYPED;
	const Type *t = op_infer(m, v);
	if (t)
		v->type = t;
	return t;
}
