/* verify_launch.c: the launches and programs that ir-codegen-ocl writes.
 *
 * A kernel's launch names its arguments: exactly the prim parameters and
 * prim-level allocs (workspace buffers and images) its body uses, each
 * once.  Sizes have three axes, the local size divides the global one and
 * fits the device's max_work_group_size.  Statements and expressions are
 * walked with explicit stacks.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "verify_launch.h"
#include "walk.h"

/* Marks on PVar.scratch while one kernel is checked. */
enum { ARG_PASSED = 1, ARG_USED = 2, ARG_VISIBLE = 4 };

static void
use(PVar *v)
{
	if (v && (v->scratch & ARG_VISIBLE))
		v->scratch |= ARG_USED;
}

static void
use_expr(PExpr *root, PtrVec *st)
{
	st->n = 0;
	if (root)
		ptrvec_push(st, root);
	while (st->n) {
		PExpr *e = st->v[--st->n];
		if (!e)
			continue;
		if (e->kind == E_VAR)
			use(e->u.var);
		else if (e->kind == E_LOAD)
			use(e->u.load.buf);
		else if (e->kind == E_TEX_LOAD)
			use(e->u.tex.buf);
		pexpr_push_operands(e, st);
	}
}

/* Every buffer and scalar of the prim's scope that kernel k uses. */
static void
mark_uses(PStmt *k)
{
	PtrVec ex = {0};
	PrimWalk w;
	pwalk_start(&w, &k->u.kernel.body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		switch (s->kind) {
		case S_FOR:
			use_expr(s->u.loop.lo, &ex);
			use_expr(s->u.loop.hi, &ex);
			break;
		case S_IF:
			use_expr(s->u.cond.cond, &ex);
			break;
		case S_LET:
			use_expr(s->u.let.val, &ex);
			break;
		case S_STORE:
			use(s->u.store.buf);
			for (uint32_t i = 0; i < s->n; i++)
				use_expr(s->u.store.idx[i].e, &ex);
			use_expr(s->u.store.val, &ex);
			break;
		case S_TEX_STORE:
			use(s->u.tex.buf);
			use_expr(s->u.tex.x, &ex);
			use_expr(s->u.tex.y, &ex);
			use_expr(s->u.tex.val, &ex);
			break;
		case S_EVAL:
			use_expr(s->u.eval, &ex);
			break;
		default:
			break;
		}
	}
	ptrvec_free(&ex);
}

static const char axes[] = "xyz";

bool
verify_launch(Module *m, const Prim *p, PStmt *k)
{
	Ctx *ctx = m->ctx;
	const Launch *l = k->u.kernel.launch;
	bool ok = true;
	int64_t items = 1;
	for (int i = 0; i < 3; i++) {
		if (l->global[i] < 1 || l->local[i] < 1) {
			error_at(ctx, l->loc, "launch of '@%s': sizes must be at least 1 (axis %c)",
			         k->u.kernel.name, axes[i]);
			return false;
		}
		if (l->global[i] % l->local[i]) {
			error_at(ctx, l->loc, "launch of '@%s': global size %lld is not a multiple of "
			         "local size %lld on axis %c", k->u.kernel.name,
			         (long long)l->global[i], (long long)l->local[i], axes[i]);
			ok = false;
		}
		items *= l->local[i];
	}
	const Device *d = prim_placed_device(m, p);
	if (d && items > d->max_work_group_size) {
		error_at(ctx, l->loc, "launch of '@%s': a work group of %lld items exceeds "
		         "max_work_group_size %lld of '@%s'", k->u.kernel.name, (long long)items,
		         (long long)d->max_work_group_size, d->name);
		note_at(ctx, d->loc, "the device is declared here");
		ok = false;
	}
	/* What the kernel may take: parameters and prim-level allocs. */
	for (uint32_t i = 0; i < p->nparams; i++)
		p->params[i]->scratch = ARG_VISIBLE;
	for (PStmt *s = p->body.first; s; s = s->next)
		if (s->kind == S_ALLOC)
			s->u.alloc.buf->scratch = ARG_VISIBLE;
	mark_uses(k);
	for (uint32_t i = 0; i < l->nargs; i++) {
		PVar *a = l->args[i];
		if (!a)
			continue;
		if (!(a->scratch & ARG_VISIBLE)) {
			error_at(ctx, l->loc, "launch of '@%s' passes '%%%s', which is not a parameter or "
			         "a prim-level alloc of '@%s'", k->u.kernel.name, a->name, p->name);
			ok = false;
		} else if (a->scratch & ARG_PASSED) {
			error_at(ctx, l->loc, "launch of '@%s' passes '%%%s' twice", k->u.kernel.name, a->name);
			ok = false;
		} else if (!(a->scratch & ARG_USED)) {
			error_at(ctx, l->loc, "launch of '@%s' passes '%%%s', which the kernel does not use",
			         k->u.kernel.name, a->name);
			ok = false;
		}
		a->scratch |= ARG_PASSED;
	}
	PVar *missing = NULL;
	for (uint32_t i = 0; i < p->nparams && !missing; i++)
		if ((p->params[i]->scratch & (ARG_USED | ARG_PASSED)) == ARG_USED)
			missing = p->params[i];
	for (PStmt *s = p->body.first; s && !missing; s = s->next)
		if (s->kind == S_ALLOC && (s->u.alloc.buf->scratch & (ARG_USED | ARG_PASSED)) == ARG_USED)
			missing = s->u.alloc.buf;
	if (missing) {
		error_at(ctx, l->loc, "kernel '@%s' uses '%%%s' but its launch does not pass it",
		         k->u.kernel.name, missing->name);
		ok = false;
	}
	for (uint32_t i = 0; i < p->nparams; i++)
		p->params[i]->scratch = 0;
	for (PStmt *s = p->body.first; s; s = s->next)
		if (s->kind == S_ALLOC)
			s->u.alloc.buf->scratch = 0;
	return ok;
}

bool
verify_programs(Module *m)
{
	bool ok = true;
	for (const Program *pg = m->programs; pg; pg = pg->next) {
		if (!module_device(m, pg->dev)) {
			error_at(m->ctx, pg->loc, "program for unknown device '@%s'", pg->dev);
			ok = false;
		}
		for (const Program *q = m->programs; q != pg; q = q->next)
			if (q->dev == pg->dev) {
				error_at(m->ctx, pg->loc, "a second program for device '@%s'", pg->dev);
				note_at(m->ctx, q->loc, "the first is here");
				ok = false;
				break;
			}
	}
	return ok;
}
