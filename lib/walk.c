/* walk.c: see walk.h. */
#include <stdlib.h>
#include <string.h>

#include "walk.h"

static void
push(FuncWalk *w, struct WalkFrame fr)
{
	VEC_PUSH(w->st, w->n, w->cap) = fr;
}

void
fwalk_start(FuncWalk *w, const Func *f)
{
	memset(w, 0, sizeof *w);
	push(w, (struct WalkFrame){f->body.first, (Block *)&f->body, NULL, 0});
}

bool
fwalk_next(FuncWalk *w, WalkStep *s)
{
	if (!w->n) {
		free(w->st);
		memset(w, 0, sizeof *w);
		return false;
	}
	struct WalkFrame *fr = &w->st[w->n - 1];
	s->depth = (int)w->n;
	s->blk = fr->blk;
	if (fr->next) {
		Value *v = fr->next;
		fr->next = v->next;
		s->ev = W_BIND;
		s->v = v;
		if (v->kind == VK_BIND && v->form == B_IF)
			push(w, (struct WalkFrame){v->u.arms[0].first, &v->u.arms[0], v, 0});
		return true;
	}
	s->v = fr->ifv;
	s->arm = fr->arm;
	if (!fr->ifv) {
		s->ev = W_BODY_END;
		w->n--;
		return true;
	}
	s->ev = W_ARM_END;
	if (fr->arm == 0)
		*fr = (struct WalkFrame){fr->ifv->u.arms[1].first, &fr->ifv->u.arms[1], fr->ifv, 1};
	else
		w->n--;
	return true;
}

Value *
fwalk_next_binding_slow(FuncWalk *w, Block **blk)
{
	WalkStep s;
	while (fwalk_next(w, &s))
		if (s.ev == W_BIND) {
			*blk = s.blk;
			return s.v;
		}
	return NULL;
}

/* ------------------------------------------------------- loop level */

static void
ppush(PrimWalk *w, PStmt *first, PStmt *owner, int arm, int depth)
{
	VEC_PUSH(w->st, w->n, w->cap) = (struct PWalkFrame){first, owner, arm, depth};
}

void
pwalk_start(PrimWalk *w, const PBlock *blk)
{
	memset(w, 0, sizeof *w);
	ppush(w, blk->first, NULL, 0, 1);
}

void
pwalk_free(PrimWalk *w)
{
	free(w->st);
	memset(w, 0, sizeof *w);
}

bool
pwalk_next(PrimWalk *w, PWalkStep *s)
{
	if (!w->n) {
		pwalk_free(w);
		return false;
	}
	struct PWalkFrame *fr = &w->st[w->n - 1];
	if (fr->next) {
		PStmt *st = fr->next;
		int d = fr->depth;
		fr->next = st->next;
		*s = (PWalkStep){PW_STMT, st, 0, d};
		if (st->kind == S_FOR)
			ppush(w, st->u.loop.body.first, st, 0, d + 1);
		else if (st->kind == S_IF)
			ppush(w, st->u.cond.arms[0].first, st, 0, d + 1);
		else if (st->kind == S_KERNEL)
			ppush(w, st->u.kernel.body.first, st, 0, d + 1);
		return true;
	}
	struct PWalkFrame done = *fr;
	w->n--;
	*s = (PWalkStep){PW_BLOCK_END, done.owner, done.arm, done.depth};
	if (done.owner && done.owner->kind == S_IF && done.arm == 0 && done.owner->u.cond.has_else)
		ppush(w, done.owner->u.cond.arms[1].first, done.owner, 1, done.depth);
	return true;
}

PStmt *
pwalk_next_stmt(PrimWalk *w)
{
	PWalkStep s;
	while (pwalk_next(w, &s))
		if (s.ev == PW_STMT)
			return s.s;
	return NULL;
}

uint32_t
pexpr_noperands(const PExpr *e)
{
	switch (e->kind) {
	case E_LOAD:
	case E_CALL:
		return e->n;
	case E_TEX_LOAD:
	case E_BIN:
		return 2;
	case E_SELECT:
		return 3;
	case E_UN:
	case E_CAST:
	case E_BROADCAST:
		return 1;
	default:
		return 0;
	}
}

PExpr *
pexpr_operand(const PExpr *e, uint32_t i)
{
	switch (e->kind) {
	case E_LOAD:
		return e->u.load.idx[i].e;
	case E_CALL:
		return e->u.call.args[i];
	case E_TEX_LOAD:
		return i == 0 ? e->u.tex.x : e->u.tex.y;
	case E_BIN:
	case E_UN:
	case E_SELECT:
		return i == 0 ? e->u.ops.a : i == 1 ? e->u.ops.b : e->u.ops.c;
	case E_CAST:
	case E_BROADCAST:
		return e->u.cast.a;
	default:
		return NULL;
	}
}

void
pexpr_push_operands(const PExpr *e, PtrVec *st)
{
	for (uint32_t i = pexpr_noperands(e); i-- > 0;)
		ptrvec_push(st, pexpr_operand(e, i));
}
