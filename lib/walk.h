/* walk.h: a function's bindings in program order, without recursion.
 *
 * Nesting depth is the user's (ifs ten thousand deep), so every walk over a
 * function goes through this iterator and its explicit stack.  Program
 * order is: an if binding, its then arm, its else arm, then what follows
 * the if.  Besides bindings, the walk reports where each block ends, which
 * is where a printer prints `yield` and `}` and a checker closes a scope.
 */
#ifndef WALK_H
#define WALK_H

#include <stdbool.h>

#include "ir.h"

typedef enum {
	W_BIND,      /* step.v is a binding of step.blk */
	W_ARM_END,   /* arm step.arm of the if step.v ends (its yield is next to check) */
	W_BODY_END,  /* the function body ends (its return) */
} WalkEvent;

typedef struct {
	WalkEvent ev;
	Value *v;        /* W_BIND: the binding; W_ARM_END: the if */
	Block *blk;      /* the block v is in (W_BIND) or that ends */
	int arm;         /* W_ARM_END: 0 then, 1 else */
	int depth;       /* 1 for the function body, +1 per enclosing arm */
} WalkStep;

struct WalkFrame {
	Value *next;      /* next binding of blk to visit */
	Block *blk;
	Value *ifv;       /* the if whose arm blk is; NULL for the body */
	int arm;
};

typedef struct {
	struct WalkFrame *st;
	size_t n, cap;
} FuncWalk;

/* f is not changed by the walk; steps hand out its values for the caller
 * to change or not. */
void fwalk_start(FuncWalk *w, const Func *f);
/* Fills *s with the next step; false (and the walk freed) at the end. */
bool fwalk_next(FuncWalk *w, WalkStep *s);
Value *fwalk_next_binding_slow(FuncWalk *w, Block **blk);

/* Only the bindings: NULL at the end.  Passes walk every binding several
 * times, so the common step (a binding that is not an if) is inline. */
static inline Value *
fwalk_next_binding(FuncWalk *w, Block **blk)
{
	if (w->n) {
		struct WalkFrame *fr = &w->st[w->n - 1];
		Value *v = fr->next;
		if (v && !(v->kind == VK_BIND && v->form == B_IF)) {
			fr->next = v->next;
			*blk = fr->blk;
			return v;
		}
	}
	return fwalk_next_binding_slow(w, blk);
}

#endif
