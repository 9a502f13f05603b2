/* walk.h: a function's bindings in program order, and a prim's
 * statements, without recursion.
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


/* ------------------------------------------------------- loop level */

/* A prim's statements in preorder, without recursion (loop nests are the
 * user's too).  Each statement comes as PW_STMT before the statements of
 * its bodies (a for's, a kernel's, an if's then arm and then its else
 * arm); where a block ends comes PW_BLOCK_END, which is where a printer
 * prints `}` and a checker closes a scope. */
typedef enum {
	PW_STMT,       /* step.s is the next statement */
	PW_BLOCK_END,  /* a body of step.s ends (step.s NULL: the walk's root) */
} PWalkEvent;

typedef struct {
	PWalkEvent ev;
	PStmt *s;
	int arm;         /* PW_BLOCK_END of an if: 0 then, 1 else */
	int depth;       /* of the statement, or of the block that ends: 1 for the root */
} PWalkStep;

struct PWalkFrame {
	PStmt *next;      /* next statement of the block to visit */
	PStmt *owner;     /* the statement whose body the block is; NULL: root */
	int arm;
	int depth;
};

typedef struct {
	struct PWalkFrame *st;
	size_t n, cap;
} PrimWalk;

/* Walks the statements of blk (a prim's body, or a loop's). */
void pwalk_start(PrimWalk *w, const PBlock *blk);
/* Fills *s with the next step; false (and the walk freed) at the end. */
bool pwalk_next(PrimWalk *w, PWalkStep *s);
/* Only the statements: NULL at the end. */
PStmt *pwalk_next_stmt(PrimWalk *w);
/* Ends a walk early. */
void pwalk_free(PrimWalk *w);

/* The operands of a loop-level expression, first to last: a load's
 * indices, a texture load's x and y, a unary's, binary's or select's
 * a (b, c), a cast's or broadcast's operand, a call's arguments; none
 * for literals and variables.  The code generator and the checks of
 * its launches walk them. */
uint32_t pexpr_noperands(const PExpr *e);
/* Operand i, 0 <= i < pexpr_noperands(e). */
PExpr *pexpr_operand(const PExpr *e, uint32_t i);
/* Pushes e's operands on st, the first on top, for a walk with an
 * explicit stack. */
void pexpr_push_operands(const PExpr *e, PtrVec *st);

#endif
