/* walk.c: see walk.h. */
#include <stdlib.h>
#include <string.h>

#include "walk.h"

static void
push(FuncWalk *w, struct WalkFrame fr)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->st = xrealloc(w->st, w->cap * sizeof *w->st);
	}
	w->st[w->n++] = fr;
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
