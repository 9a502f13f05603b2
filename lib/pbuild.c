/* pbuild.c: building loop-level code from C (see pbuild.h). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pbuild.h"

void
pb_start(PBuild *b, Module *m, Prim *p, Loc at)
{
	memset(b, 0, sizeof *b);
	b->m = m;
	b->p = p;
	b->loc = at;
	p->loc = at;
	b->arena = m->arena;
	b->blk[b->n++] = &p->body;
}

static PVar *
new_var(PBuild *b, int kind, const char *name)
{
	PVar *v = arena_alloc(b->arena, sizeof *v);
	v->kind = (uint8_t)kind;
	v->name = module_name(b->m, name, strlen(name));
	v->loc = b->loc;
	return v;
}

PVar *
pb_param_buffer(PBuild *b, const char *name, const Type *ty, const VDev *vd)
{
	PVar *v = new_var(b, PV_BUFFER, name);
	v->type = ty;
	v->vd = vd;
	Prim *p = b->p;
	PVar **np = arena_alloc(b->arena, (p->nparams + 1) * sizeof *np);
	if (p->nparams)
		memcpy(np, p->params, p->nparams * sizeof *np);
	np[p->nparams++] = v;
	p->params = np;
	return v;
}

static const Type *
scalar_type(PBuild *b, DType dt)
{
	return type_tensor(b->m, dt, 0, NULL);
}

PVar *
pb_scalar(PBuild *b, const char *prefix, DType dt)
{
	char name[64];
	snprintf(name, sizeof name, "%s%u", prefix, (unsigned)b->nvars++);
	PVar *v = new_var(b, PV_SCALAR, name);
	v->type = scalar_type(b, dt);
	return v;
}

/* -------------------------------------------------------- expressions */

static PExpr *
new_expr(PBuild *b, int kind, DType dt)
{
	PExpr *e = arena_alloc(b->arena, sizeof *e);
	e->kind = (uint8_t)kind;
	e->dt = dt;
	e->depth = 1;
	e->loc = b->loc;
	return e;
}

static void
deeper(PExpr *e, const PExpr *child)
{
	if (child && child->depth + 1 > e->depth)
		e->depth = (uint16_t)(child->depth + 1);
}

PExpr *
pe_int(PBuild *b, int64_t v, ElemKind k)
{
	if (k == ET_BOOL) /* an integer literal is never a bool (0 reads back as i32) */
		return pe_bool(b, v != 0);
	PExpr *e = new_expr(b, E_INT, (DType){(uint8_t)k, 1});
	e->u.i = v;
	if (k == ET_U64) {
		/* the bits of the number: every v is one */
		if (v < 0)
			e->op = E_INT_U64;
		return e;
	}
	int64_t lo = INT64_MIN;
	uint64_t hi = UINT64_MAX;
	if (!elem_is_float(k))
		elem_int_range(k, &lo, &hi);
	if (!b->bad && (v < lo || (v > 0 && (uint64_t)v > hi))) {
		b->bad = true;
		b->bad_int = v;
		b->bad_kind = k;
	}
	return e;
}

PExpr *
pe_i32(PBuild *b, int64_t v)
{
	return pe_int(b, v, ET_I32);
}

PExpr *
pe_float(PBuild *b, double v, ElemKind k)
{
	if (!elem_is_float(k))
		return pe_int(b, (int64_t)v, k);
	PExpr *e = new_expr(b, E_FLOAT, (DType){(uint8_t)k, 1});
	e->u.f = v;
	return e;
}

PExpr *
pe_bool(PBuild *b, bool v)
{
	PExpr *e = new_expr(b, E_BOOL, (DType){ET_BOOL, 1});
	e->u.i = v;
	return e;
}

PExpr *
pe_lowest(PBuild *b, ElemKind k)
{
	if (elem_is_float(k))
		return pe_float(b, -INFINITY, k);
	int64_t lo;
	uint64_t hi;
	elem_int_range(k, &lo, &hi);
	if (lo == INT64_MIN) /* written as -9223372036854775807 - 1 */
		return pe_bin(b, OP_SUB, pe_int(b, INT64_MIN + 1, k), pe_int(b, 1, k));
	return pe_int(b, lo, k);
}

PExpr *
pe_var(PBuild *b, PVar *v)
{
	PExpr *e = new_expr(b, E_VAR, v->type->dt);
	e->u.var = v;
	return e;
}

PExpr *
pe_load(PBuild *b, PVar *buf, PExpr *const *idx, uint32_t lanes)
{
	uint32_t n = buf->type->n;
	PExpr *e = new_expr(b, E_LOAD, (DType){buf->type->dt.kind, (uint8_t)(lanes > 1 ? lanes : 1)});
	e->n = n;
	e->u.load.buf = buf;
	e->u.load.idx = arena_alloc(b->arena, (n ? n : 1) * sizeof(PIndex));
	for (uint32_t i = 0; i < n; i++) {
		e->u.load.idx[i].e = idx[i];
		deeper(e, idx[i]);
	}
	if (n && lanes > 1)
		e->u.load.idx[n - 1].lanes = lanes;
	return e;
}

bool
pe_is_int(const PExpr *e, int64_t *v)
{
	if (e->kind != E_INT)
		return false;
	*v = e->u.i;
	return true;
}

static bool
is_zero(const PExpr *e)
{
	return (e->kind == E_INT && e->u.i == 0);
}

static bool
is_one(const PExpr *e)
{
	return (e->kind == E_INT && e->u.i == 1);
}

/* Is x `a * c` for the positive literal c of y? */
static bool
scaled_by(const PExpr *x, const PExpr *y)
{
	int64_t c, d;
	return x->kind == E_BIN && x->op == OP_MUL && pe_is_int(y, &c) && c > 0 &&
	       pe_is_int(x->u.ops.b, &d) && d == c;
}

PExpr *
pe_bin(PBuild *b, PBinOp op, PExpr *x, PExpr *y)
{
	bool cmp = op >= OP_LT && op <= OP_NE;
	int64_t a, c;
	/* Fold i32 index arithmetic; other types keep their literals, whose
	 * rounding is the interpreter's to decide. */
	if (pe_is_int(x, &a) && pe_is_int(y, &c) && x->dt.kind == ET_I32 && y->dt.kind == ET_I32 &&
	    a > -(1 << 30) && a < (1 << 30) && c > -(1 << 30) && c < (1 << 30)) {
		switch (op) {
		case OP_ADD: return pe_i32(b, a + c);
		case OP_SUB: return pe_i32(b, a - c);
		case OP_MUL:
			if (a > -(1 << 15) && a < (1 << 15) && c > -(1 << 15) && c < (1 << 15))
				return pe_i32(b, a * c);
			break;
		case OP_DIV: if (c > 0 && a >= 0) return pe_i32(b, a / c); break;
		case OP_MOD: if (c > 0 && a >= 0) return pe_i32(b, a % c); break;
		case OP_LT: return pe_bool(b, a < c);
		case OP_LE: return pe_bool(b, a <= c);
		case OP_GT: return pe_bool(b, a > c);
		case OP_GE: return pe_bool(b, a >= c);
		case OP_EQ: return pe_bool(b, a == c);
		case OP_NE: return pe_bool(b, a != c);
		default: break;
		}
	}
	if (x->dt.kind != ET_BOOL && !elem_is_float(x->dt.kind)) {
		switch (op) {
		case OP_ADD:
			if (is_zero(x)) return y;
			if (is_zero(y)) return x;
			break;
		case OP_SUB:
			if (is_zero(y)) return x;
			break;
		case OP_MUL:
			if (is_one(x)) return y;
			if (is_one(y)) return x;
			if (is_zero(x)) return x;
			if (is_zero(y)) return y;
			break;
		case OP_DIV:
			if (is_one(y)) return x;
			/* (a * c) / c is a: index arithmetic, which never wraps */
			if (x->dt.kind == ET_I32 && scaled_by(x, y))
				return x->u.ops.a;
			break;
		case OP_MOD:
			if (is_one(y)) return pe_int(b, 0, x->dt.kind);
			if (x->dt.kind == ET_I32 && scaled_by(x, y))
				return pe_i32(b, 0);
			break;
		default:
			break;
		}
	}
	if (op == OP_AND) {
		if (x->kind == E_BOOL)
			return x->u.i ? y : x;
		if (y->kind == E_BOOL)
			return y->u.i ? x : y;
	}
	PExpr *e = new_expr(b, E_BIN, cmp ? (DType){ET_BOOL, x->dt.lanes} : x->dt);
	e->op = (uint8_t)op;
	e->u.ops.a = x;
	e->u.ops.b = y;
	deeper(e, x);
	deeper(e, y);
	return e;
}

PExpr *pe_add(PBuild *b, PExpr *x, PExpr *y) { return pe_bin(b, OP_ADD, x, y); }
PExpr *pe_sub(PBuild *b, PExpr *x, PExpr *y) { return pe_bin(b, OP_SUB, x, y); }
PExpr *pe_mul(PBuild *b, PExpr *x, PExpr *y) { return pe_bin(b, OP_MUL, x, y); }
PExpr *pe_div(PBuild *b, PExpr *x, PExpr *y) { return pe_bin(b, OP_DIV, x, y); }
PExpr *pe_mod(PBuild *b, PExpr *x, PExpr *y) { return pe_bin(b, OP_MOD, x, y); }

static PExpr *
unary(PBuild *b, PBinOp op, PExpr *x)
{
	PExpr *e = new_expr(b, E_UN, x->dt);
	e->op = (uint8_t)op;
	e->u.ops.a = x;
	deeper(e, x);
	return e;
}

PExpr *
pe_neg(PBuild *b, PExpr *x)
{
	return unary(b, OP_NEG, x);
}

PExpr *
pe_not(PBuild *b, PExpr *x)
{
	if (x->kind == E_BOOL)
		return pe_bool(b, !x->u.i);
	return unary(b, OP_NOT, x);
}

PExpr *
pe_select(PBuild *b, PExpr *c, PExpr *x, PExpr *y)
{
	if (c->kind == E_BOOL)
		return c->u.i ? x : y;
	PExpr *e = new_expr(b, E_SELECT, x->dt);
	e->u.ops.a = c;
	e->u.ops.b = x;
	e->u.ops.c = y;
	deeper(e, c);
	deeper(e, x);
	deeper(e, y);
	return e;
}

PExpr *
pe_cast(PBuild *b, DType to, PExpr *x)
{
	if (dtype_eq(to, x->dt))
		return x;
	PExpr *e = new_expr(b, E_CAST, to);
	e->u.cast.to = to;
	e->u.cast.a = x;
	deeper(e, x);
	return e;
}

PExpr *
pe_broadcast(PBuild *b, uint8_t lanes, PExpr *x)
{
	if (lanes <= 1 || x->dt.lanes == lanes)
		return x;
	DType to = {x->dt.kind, lanes};
	PExpr *e = new_expr(b, E_BROADCAST, to);
	e->u.cast.to = to;
	e->u.cast.a = x;
	deeper(e, x);
	return e;
}

PExpr *
pe_call(PBuild *b, IntrinId fn, uint32_t n, PExpr *const *args)
{
	PExpr *e = new_expr(b, E_CALL, args[0]->dt);
	e->n = n;
	e->op = (uint8_t)fn;
	e->u.call.fn = sym_intern_cstr(b->m, intrin_def(fn)->name);
	e->u.call.args = arena_alloc(b->arena, n * sizeof *e->u.call.args);
	for (uint32_t i = 0; i < n; i++) {
		e->u.call.args[i] = args[i];
		deeper(e, args[i]);
	}
	/* A literal first operand takes its type from the others. */
	for (uint32_t i = 0; i < n; i++)
		if (args[i]->kind != E_INT && args[i]->kind != E_FLOAT) {
			e->dt = args[i]->dt;
			break;
		}
	return e;
}

PExpr *
pe_lane(PBuild *b, PExpr *v, uint32_t k)
{
	PExpr *args[2] = {v, pe_i32(b, k)};
	PExpr *e = pe_call(b, I_LANE, 2, args);
	e->dt = (DType){v->dt.kind, 1};
	return e;
}

PExpr *
pe_call1(PBuild *b, IntrinId fn, PExpr *x)
{
	return pe_call(b, fn, 1, &x);
}

PExpr *
pe_call2(PBuild *b, IntrinId fn, PExpr *x, PExpr *y)
{
	PExpr *a[2] = {x, y};
	return pe_call(b, fn, 2, a);
}

PExpr *
pe_like(PBuild *b, const PExpr *x, double v)
{
	return pe_broadcast(b, x->dt.lanes, pe_float(b, v, (ElemKind)x->dt.kind));
}

/* --------------------------------------------------------- statements */

static PStmt *
append(PBuild *b, int kind)
{
	PStmt *s = arena_alloc(b->arena, sizeof *s);
	s->kind = (uint8_t)kind;
	s->loc = b->loc;
	PBlock *blk = b->blk[b->n - 1];
	if (blk->last)
		blk->last->next = s;
	else
		blk->first = s;
	blk->last = s;
	return s;
}

static void
open_block(PBuild *b, PBlock *blk)
{
	if (b->n == PB_MAX_NEST) {
		fprintf(stderr, "internal error: generated loop nest too deep\n");
		abort();
	}
	b->blk[b->n++] = blk;
}

PStmt *
pb_for(PBuild *b, PVar *var, PExpr *lo, PExpr *hi, ForKind kind, const char *thread)
{
	PStmt *s = append(b, S_FOR);
	s->fkind = (uint8_t)kind;
	s->u.loop.var = var;
	s->u.loop.lo = lo;
	s->u.loop.hi = hi;
	if (thread)
		s->u.loop.thread = sym_intern_cstr(b->m, thread);
	open_block(b, &s->u.loop.body);
	return s;
}

PStmt *
pb_if(PBuild *b, PExpr *cond)
{
	PStmt *s = append(b, S_IF);
	s->u.cond.cond = cond;
	open_block(b, &s->u.cond.arms[0]);
	return s;
}

void
pb_barrier(PBuild *b)
{
	append(b, S_BARRIER);
}

void
pb_mem_fence(PBuild *b)
{
	PExpr *e = new_expr(b, E_CALL, (DType){ET_I32, 1});
	e->op = (uint8_t)I_MEM_FENCE;
	e->u.call.fn = sym_intern_cstr(b->m, intrin_def(I_MEM_FENCE)->name);
	PStmt *s = append(b, S_EVAL);
	s->u.eval = e;
}

PStmt *
pb_kernel(PBuild *b, const char *name)
{
	PStmt *s = append(b, S_KERNEL);
	s->u.kernel.name = sym_intern_cstr(b->m, name);
	open_block(b, &s->u.kernel.body);
	return s;
}

void
pb_close(PBuild *b)
{
	if (b->n > 1)
		b->n--;
}

int
pb_depth(const PBuild *b)
{
	return b->n;
}

void
pb_close_to(PBuild *b, int depth)
{
	while (b->n > depth && b->n > 1)
		b->n--;
}

PExpr *
pb_let(PBuild *b, const char *prefix, PExpr *e)
{
	if (e->kind == E_VAR || e->kind == E_INT || e->kind == E_FLOAT || e->kind == E_BOOL)
		return e;
	PStmt *s = append(b, S_LET);
	s->u.let.var = pb_scalar(b, prefix, e->dt);
	s->u.let.val = e;
	return pe_var(b, s->u.let.var);
}

void
pb_store(PBuild *b, PVar *buf, PExpr *const *idx, uint32_t lanes, PExpr *val)
{
	PStmt *s = append(b, S_STORE);
	uint32_t n = buf->type->n;
	s->n = n;
	s->u.store.buf = buf;
	s->u.store.idx = arena_alloc(b->arena, (n ? n : 1) * sizeof(PIndex));
	for (uint32_t i = 0; i < n; i++)
		s->u.store.idx[i].e = idx[i];
	if (n && lanes > 1)
		s->u.store.idx[n - 1].lanes = lanes;
	s->u.store.val = val;
}

PVar *
pb_alloc(PBuild *b, const char *prefix, const Type *ty, const VDev *vd)
{
	char name[64];
	snprintf(name, sizeof name, "%s%u", prefix, (unsigned)b->nvars++);
	PVar *v = new_var(b, PV_BUFFER, name);
	v->type = ty;
	v->vd = vd;
	PStmt *s = append(b, S_ALLOC);
	s->u.alloc.buf = v;
	return v;
}
