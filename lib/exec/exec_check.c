/* exec_check.c: whether the executor can plan @main (exec.h), else why.
 *
 * The plan inlines every call of a function (each call site gets values
 * of its own) and holds both arms of every if, so it needs: no recursion
 * (a function that reaches itself, which only a run can unroll), a plan
 * of at most PLAN_MAX_BINDINGS bindings once inlined (calls in a DAG can
 * multiply), a prim's scalar operand that is a constant or a literal
 * where it is passed (its value is set once), a device with a program
 * behind every copy and every if's result, and tensors for @main's
 * parameters.  The call graph is walked with an explicit stack: calls
 * nest as deep as the program likes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_impl.h"
#include "ops/ops.h"
#include "walk.h"

enum { PLAN_MAX_BINDINGS = 1 << 20 };

/* The constant or literal operand a prim's scalar parameter comes from,
 * when the call's operands are tensors (then operand i is parameter i). */
static bool
scalar_known(const Value *call, uint32_t i)
{
	for (uint32_t j = 0; j < call->nargs; j++)
		if (call->args[j]->type->kind != TY_TENSOR)
			return false;
	const Value *a = i < call->nargs ? call->args[i] : NULL;
	return a && (a->kind == VK_LIT || (a->kind == VK_BIND && a->form == B_CONST));
}

/* Whether the bindings of f (its arms too) can be planned; else why. */
static bool
bindings_plannable(OclRt *rt, Module *m, const Func *f, const char **why)
{
	FuncWalk w;
	Block *blk;
	bool ok = true;
	fwalk_start(&w, f);
	for (Value *v; ok && (v = fwalk_next_binding(&w, &blk));) {
		switch (v->form) {
		case B_OP:
			if (value_is_view(v))
				continue;     /* its operand's buffer (exec_plan.c) */
			*why = "an operator is left";
			ok = false;
			break;
		case B_IF:
			if (!v->vd || !rt_dev_of(rt, module_device(m, v->vd->dev))) {
				*why = "an if's result is on a device without a program";
				ok = false;
			}
			break;
		case B_DEVICE_COPY:
			if (v->type->kind == TY_TENSOR &&
			    !rt_dev_of(rt, module_device(m, v->u.copy->dst->dev))) {
				*why = "a device_copy goes to a device without a program";
				ok = false;
			}
			break;
		case B_CALL_LOWERED: {
			const Prim *p = v->u.prim;
			for (uint32_t i = 0; i < p->nparams && ok; i++)
				if (p->params[i]->kind == PV_SCALAR && !scalar_known(v, i)) {
					*why = "a prim takes a scalar that is not a constant where it is passed";
					ok = false;
				}
			break;
		}
		default:
			break;
		}
	}
	free(w.st);          /* the walk frees it at its end, not before */
	return ok;
}

/* A function of the call graph: being walked (its callees on the
 * stack), or done with its size once inlined. */
typedef struct {
	const Func *f;
	bool done;
	uint64_t size;
} FnInfo;

static FnInfo *
info_of(Map *infos, const Func *f, bool *fresh)
{
	MapProbe it;
	uint32_t h = map_hash_ptr(f);
	for (FnInfo *e = map_first(infos, h, &it); e; e = map_next(&it))
		if (e->f == f) {
			*fresh = false;
			return e;
		}
	FnInfo *e = xcalloc(1, sizeof *e);
	e->f = f;
	map_add(infos, h, e);
	*fresh = true;
	return e;
}

/* The functions f calls, in order of their calls (repeats kept). */
static void
callees(const Func *f, PtrVec *out)
{
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		if (v->form == B_CALL)
			ptrvec_push(out, v->u.callee);
	}
	free(w.st);          /* the walk frees it at its end, not before */
}

static uint64_t
nbindings(const Func *f)
{
	FuncWalk w;
	Block *blk;
	uint64_t n = 0;
	fwalk_start(&w, f);
	while (fwalk_next_binding(&w, &blk))
		n++;
	free(w.st);          /* the walk frees it at its end, not before */
	return n;
}

/* Depth-first over the call graph from main: a callee met while it is
 * still being walked is recursion; sizes summed in post-order. */
static bool
calls_plannable(OclRt *rt, Module *m, const Func *main, const char **why)
{
	typedef struct { const Func *f; PtrVec calls; size_t next; } Item;
	Item *st = NULL;
	size_t n = 0, cap = 0;
	Map infos = {0};
	bool fresh, ok = true;
	info_of(&infos, main, &fresh);
	VEC_PUSH(st, n, cap) = (Item){main, {0}, 0};
	callees(main, &st[0].calls);
	while (n && ok) {
		Item *it = &st[n - 1];
		if (it->next == it->calls.n) {
			FnInfo *fi = info_of(&infos, it->f, &fresh);
			fi->size = nbindings(it->f);
			for (size_t i = 0; i < it->calls.n; i++)
				fi->size += info_of(&infos, it->calls.v[i], &fresh)->size;
			fi->done = true;
			if (fi->size > PLAN_MAX_BINDINGS) {
				*why = "its calls inlined would make more than 2^20 bindings";
				ok = false;
			} else if (!bindings_plannable(rt, m, it->f, why)) {
				ok = false;
			}
			ptrvec_free(&it->calls);
			n--;
			continue;
		}
		const Func *g = it->calls.v[it->next++];
		FnInfo *gi = info_of(&infos, g, &fresh);
		if (!fresh && !gi->done) {
			*why = "a function calls itself (recursion)";
			ok = false;
			break;
		}
		if (fresh) {
			VEC_PUSH(st, n, cap) = (Item){g, {0}, 0};
			callees(g, &st[n - 1].calls);
		}
	}
	for (size_t i = 0; i < n; i++)
		ptrvec_free(&st[i].calls);
	free(st);
	for (uint32_t i = 0; i < infos.cap; i++)
		free(infos.slot[i]);
	map_free(&infos);
	return ok;
}

bool
exec_plannable(OclRt *rt, Module *m, const char **why)
{
	Func *main = module_func(m, sym_intern_cstr(m, "main"));
	if (!main) {
		*why = "no @main";
		return false;
	}
	for (uint32_t i = 0; i < main->nparams; i++)
		if (main->params[i]->type->kind != TY_TENSOR) {
			*why = "a parameter of @main is a tuple";
			return false;
		}
	return calls_plannable(rt, m, main, why);
}
