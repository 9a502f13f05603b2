/* rt_live.c: giving a value's device memory back after its last use, so
 * that a model without a memory plan holds its live values, not all it
 * ever made.
 *
 * Conservative, from @main's text once: a tensor value of the body (not
 * of an if's arm) made by a call_lowered, a device_copy or a constant, or
 * a tensor parameter, whose every use is an operand of a call_lowered or
 * a device_copy in the body, is freed after the last of them.  Anything
 * else (a value used in an arm, yielded, returned, put in a tuple, passed
 * to a function or through on_device, whose tensor another value shares)
 * stays until the run ends.  The body runs in order, once per run, so
 * "last" is the last in the text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"
#include "walk.h"

typedef struct {
	const Value *v;
	const Value *last;        /* its last user in the body */
	bool eligible, pinned;
} Live;

static Live *
live_of(Map *m, const Value *v)
{
	MapProbe it;
	uint32_t h = map_hash_ptr(v);
	for (Live *l = map_first(m, h, &it); l; l = map_next(&it))
		if (l->v == v)
			return l;
	Live *l = xcalloc(1, sizeof *l);
	l->v = v;
	map_add(m, h, l);
	return l;
}

static RtFree *
free_of(OclRt *rt, const Value *user, bool make)
{
	MapProbe it;
	uint32_t h = map_hash_ptr(user);
	for (RtFree *f = map_first(&rt->frees, h, &it); f; f = map_next(&it))
		if (f->user == user)
			return f;
	if (!make)
		return NULL;
	RtFree *f = xcalloc(1, sizeof *f);
	f->user = user;
	map_add(&rt->frees, h, f);
	return f;
}

void
rt_live_init(OclRt *rt)
{
	Func *main = module_func(rt->m, sym_intern_cstr(rt->m, "main"));
	if (!main)
		return;
	Map lives = {0};
	for (uint32_t i = 0; i < main->nparams; i++)
		live_of(&lives, main->params[i])->eligible = main->params[i]->type->kind == TY_TENSOR;
	FuncWalk w;
	WalkStep st;
	fwalk_start(&w, main);
	while (fwalk_next(&w, &st)) {
		if (st.ev != W_BIND) {
			const Value *y = st.blk->yield;
			if (y && y->kind != VK_LIT)
				live_of(&lives, y)->pinned = true;
			continue;
		}
		const Value *v = st.v;
		bool top = st.depth == 1;
		bool use = top && (v->form == B_CALL_LOWERED || v->form == B_DEVICE_COPY);
		live_of(&lives, v)->eligible = top && v->type && v->type->kind == TY_TENSOR &&
		                               (use || v->form == B_CONST);
		for (uint32_t i = 0; i < v->nargs; i++) {
			const Value *a = v->args[i];
			if (a->kind == VK_LIT)
				continue;
			Live *l = live_of(&lives, a);
			if (use)
				l->last = v;
			else
				l->pinned = true;
		}
	}
	for (uint32_t i = 0; i < lives.cap; i++) {
		Live *l = lives.slot[i];
		if (!l)
			continue;
		if (l->eligible && !l->pinned && l->last) {
			RtFree *f = free_of(rt, l->last, true);
			VEC_PUSH(f->vals, f->n, f->cap) = l->v;
		}
		free(l);
	}
	map_free(&lives);
}

/* The leaves of a value of type ty (tuples flattened); types nest only
 * as deep as the parser allows. */
static uint32_t
leaves(const Type *ty)
{
	if (ty->kind == TY_TENSOR)
		return 1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ty->n; i++)
		n += leaves(ty->fields[i]);
	return n;
}

void
rt_live_after(OclRt *rt, const Value *user, Tensor *const *args)
{
	RtFree *f = free_of(rt, user, false);
	for (uint32_t i = 0; f && i < f->n; i++) {
		uint32_t k = 0, j = 0;
		while (j < user->nargs && user->args[j] != f->vals[i])
			k += leaves(user->args[j++]->type);
		if (j < user->nargs)
			rt_val_drop(rt, args[k]);
	}
}

void
rt_live_free(OclRt *rt)
{
	for (uint32_t i = 0; i < rt->frees.cap; i++) {
		RtFree *f = rt->frees.slot[i];
		if (f) {
			free(f->vals);
			free(f);
		}
	}
	map_free(&rt->frees);
}
