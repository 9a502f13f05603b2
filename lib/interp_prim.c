/* interp_prim.c: the loop-level interpreter (see interp_prim.h).
 *
 * Statements run on an explicit stack (a prim may nest ten thousand
 * deep); expressions recurse, their depth being capped by the parser.
 * Scalars (parameters, loop variables, lets) live in slots numbered once
 * per run through PVar.scratch; buffers (parameters and allocs) likewise
 * in a second table.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp_prim.h"

#define MAX_LANES 16

typedef struct {
	int64_t i[MAX_LANES];
	double f[MAX_LANES];
} Val;

typedef struct {
	const PStmt *loop;    /* the for this frame iterates, or NULL: a block */
	const PStmt *next;    /* next statement to run */
	int64_t cur, hi;
} Frame;

typedef struct {
	Ctx *ctx;
	const Prim *p;
	Val *slot;            /* scalars */
	uint32_t nslots;
	Tensor **buf;         /* buffers */
	bool *owned;          /* buf[i] was allocated here */
	uint32_t nbufs;
	bool failed;
} Run;

/* ------------------------------------------------------------ numbering */

static void
number_stmts(const PBlock *body, uint32_t *ns, uint32_t *nb)
{
	PtrVec st = {0};
	ptrvec_push(&st, body->first);
	while (st.n) {
		PStmt *s = st.v[--st.n];
		if (!s)
			continue;
		ptrvec_push(&st, s->next);
		switch (s->kind) {
		case S_FOR:
			s->u.loop.var->scratch = (*ns)++;
			ptrvec_push(&st, s->u.loop.body.first);
			break;
		case S_IF:
			ptrvec_push(&st, s->u.cond.arms[0].first);
			ptrvec_push(&st, s->u.cond.arms[1].first);
			break;
		case S_LET:
			s->u.let.var->scratch = (*ns)++;
			break;
		case S_ALLOC:
			s->u.alloc.buf->scratch = (*nb)++;
			break;
		case S_KERNEL:
			ptrvec_push(&st, s->u.kernel.body.first);
			break;
		default:
			break;
		}
	}
	ptrvec_free(&st);
}

/* ---------------------------------------------------------- arithmetic */

static int64_t
wrap(ElemKind k, int64_t v)
{
	switch (k) {
	case ET_BOOL: return v != 0;
	case ET_I8: return (int8_t)(uint8_t)((uint64_t)v & 0xff);
	case ET_I16: return (int16_t)(uint16_t)((uint64_t)v & 0xffff);
	case ET_I32: return (int32_t)(uint32_t)((uint64_t)v & 0xffffffffu);
	case ET_U8: return (int64_t)((uint64_t)v & 0xff);
	case ET_U16: return (int64_t)((uint64_t)v & 0xffff);
	case ET_U32: return (int64_t)((uint64_t)v & 0xffffffffu);
	default: return v;
	}
}

static double
round_to(ElemKind k, double v)
{
	if (k == ET_F32)
		return (double)(float)v;
	if (k == ET_F16)
		return f16_to_double(f16_from_double(v));
	return v;
}

static bool fail(Run *r, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool
fail(Run *r, Loc loc, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	error_at(r->ctx, loc, "in @%s: %s", r->p->name, msg);
	r->failed = true;
	return false;
}

static bool eval(Run *r, const PExpr *e, Val *out);

/* The element offset of an index (lanes: a run on the last axis). */
static bool
offset(Run *r, const PVar *b, const PIndex *idx, uint32_t n, Loc loc, int64_t *off, uint32_t *lanes)
{
	const Tensor *t = r->buf[b->scratch];
	int64_t o = 0;
	*lanes = 1;
	for (uint32_t d = 0; d < n; d++) {
		Val v;
		if (!eval(r, idx[d].e, &v))
			return false;
		int64_t i = v.i[0];
		uint32_t l = idx[d].lanes ? idx[d].lanes : 1;
		if (i < 0 || i + l > t->dims[d])
			return fail(r, loc, "index %lld is out of bounds for axis %u of '%%%s' (size %lld)",
			            (long long)(i < 0 ? i : i + l - 1), (unsigned)d, b->name,
			            (long long)t->dims[d]);
		o = o * t->dims[d] + i;
		*lanes = l;
	}
	*off = o;
	return true;
}

static double
intrinsic_f(const char *fn, double a, double b, double c)
{
	if (!strcmp(fn, "exp")) return exp(a);
	if (!strcmp(fn, "log")) return log(a);
	if (!strcmp(fn, "sqrt")) return sqrt(a);
	if (!strcmp(fn, "rsqrt")) return 1.0 / sqrt(a);
	if (!strcmp(fn, "tanh")) return tanh(a);
	if (!strcmp(fn, "sigmoid")) return 1.0 / (1.0 + exp(-a));
	if (!strcmp(fn, "floor")) return floor(a);
	if (!strcmp(fn, "ceil")) return ceil(a);
	if (!strcmp(fn, "pow")) return pow(a, b);
	if (!strcmp(fn, "fma")) return fma(a, b, c);
	if (!strcmp(fn, "abs")) return fabs(a);
	if (!strcmp(fn, "min")) return isnan(a) ? a : isnan(b) ? b : a < b ? a : b;
	if (!strcmp(fn, "max")) return isnan(a) ? a : isnan(b) ? b : a > b ? a : b;
	return NAN;
}

static int64_t
intrinsic_i(const char *fn, int64_t a, int64_t b, bool uns)
{
	if (!strcmp(fn, "min"))
		return (uns ? (uint64_t)a < (uint64_t)b : a < b) ? a : b;
	if (!strcmp(fn, "max"))
		return (uns ? (uint64_t)a > (uint64_t)b : a > b) ? a : b;
	if (!strcmp(fn, "abs"))
		return uns || a >= 0 ? a : (int64_t)(0 - (uint64_t)a);
	return a;
}

static bool
binop(Run *r, const PExpr *e, const Val *a, const Val *b, Val *out)
{
	ElemKind k = (ElemKind)e->u.ops.a->dt.kind;
	int lanes = e->dt.lanes;
	bool fl = elem_is_float(k), uns = !elem_is_signed(k);
	for (int l = 0; l < lanes; l++) {
		double x = a->f[l], y = b->f[l];
		int64_t i = a->i[l], j = b->i[l];
		uint64_t ui = (uint64_t)i, uj = (uint64_t)j;
		switch (e->op) {
		case OP_LT: out->i[l] = fl ? x < y : uns ? ui < uj : i < j; continue;
		case OP_LE: out->i[l] = fl ? x <= y : uns ? ui <= uj : i <= j; continue;
		case OP_GT: out->i[l] = fl ? x > y : uns ? ui > uj : i > j; continue;
		case OP_GE: out->i[l] = fl ? x >= y : uns ? ui >= uj : i >= j; continue;
		case OP_EQ: out->i[l] = fl ? x == y : i == j; continue;
		case OP_NE: out->i[l] = fl ? x != y : i != j; continue;
		case OP_AND: out->i[l] = i && j; continue;
		case OP_OR: out->i[l] = i || j; continue;
		default: break;
		}
		if (fl) {
			double v = 0;
			switch (e->op) {
			case OP_ADD: v = x + y; break;
			case OP_SUB: v = x - y; break;
			case OP_MUL: v = x * y; break;
			case OP_DIV: v = x / y; break;
			}
			out->f[l] = round_to(k, v);
			continue;
		}
		uint64_t v = 0;
		switch (e->op) {
		case OP_ADD: v = ui + uj; break;
		case OP_SUB: v = ui - uj; break;
		case OP_MUL: v = ui * uj; break;
		case OP_DIV:
		case OP_MOD:
			if (j == 0)
				return fail(r, e->loc, "integer %s by zero",
				            e->op == OP_DIV ? "division" : "modulo");
			if (uns)
				v = e->op == OP_DIV ? ui / uj : ui % uj;
			else if (i == INT64_MIN && j == -1)
				v = e->op == OP_DIV ? ui : 0;
			else
				v = (uint64_t)(e->op == OP_DIV ? i / j : i % j);
			break;
		}
		out->i[l] = wrap(k, (int64_t)v);
	}
	return true;
}

static void
convert(ElemKind from, ElemKind to, const Val *a, int lanes, Val *out)
{
	for (int l = 0; l < lanes; l++) {
		if (elem_is_float(to)) {
			double v = elem_is_float(from) ? a->f[l]
			         : !elem_is_signed(from) ? (double)(uint64_t)a->i[l] : (double)a->i[l];
			out->f[l] = round_to(to, v);
		} else if (elem_is_float(from)) {
			out->i[l] = to == ET_BOOL ? a->f[l] != 0 : elem_int_from_double(to, a->f[l]);
		} else {
			out->i[l] = wrap(to, a->i[l]);
		}
	}
}

/* Recursion: the parser caps expression depth at IR_MAX_EXPR_DEPTH. */
static bool
eval(Run *r, const PExpr *e, Val *out)
{
	ElemKind k = (ElemKind)e->dt.kind;
	int lanes = e->dt.lanes ? e->dt.lanes : 1;
	switch (e->kind) {
	case E_INT:
		if (elem_is_float(k))
			out->f[0] = round_to(k, (double)e->u.i);
		else
			out->i[0] = wrap(k, e->u.i);
		return true;
	case E_FLOAT:
		out->f[0] = round_to(k, e->u.f);
		return true;
	case E_BOOL:
		out->i[0] = e->u.i != 0;
		return true;
	case E_VAR:
		*out = r->slot[e->u.var->scratch];
		return true;
	case E_LOAD: {
		int64_t off;
		uint32_t n;
		if (!offset(r, e->u.load.buf, e->u.load.idx, e->n, e->loc, &off, &n))
			return false;
		const Tensor *t = r->buf[e->u.load.buf->scratch];
		for (uint32_t l = 0; l < n; l++) {
			if (elem_is_float(t->kind))
				out->f[l] = tensor_get(t, off + l);
			else
				out->i[l] = tensor_get_int(t, off + l);
		}
		return true;
	}
	case E_TEX_LOAD:
		return fail(r, e->loc, "texture2d_load is not supported by the interpreter yet");
	case E_BIN: {
		Val a, b;
		if (!eval(r, e->u.ops.a, &a) || !eval(r, e->u.ops.b, &b))
			return false;
		return binop(r, e, &a, &b, out);
	}
	case E_UN: {
		Val a;
		if (!eval(r, e->u.ops.a, &a))
			return false;
		for (int l = 0; l < lanes; l++) {
			if (e->op == OP_NOT)
				out->i[l] = !a.i[l];
			else if (elem_is_float(k))
				out->f[l] = -a.f[l];
			else
				out->i[l] = wrap(k, (int64_t)(0 - (uint64_t)a.i[l]));
		}
		return true;
	}
	case E_SELECT: {
		Val c, a, b;
		if (!eval(r, e->u.ops.a, &c) || !eval(r, e->u.ops.b, &a) || !eval(r, e->u.ops.c, &b))
			return false;
		bool one = e->u.ops.a->dt.lanes <= 1;
		for (int l = 0; l < lanes; l++) {
			bool t = c.i[one ? 0 : l] != 0;
			out->i[l] = t ? a.i[l] : b.i[l];
			out->f[l] = t ? a.f[l] : b.f[l];
		}
		return true;
	}
	case E_CAST: {
		Val a;
		if (!eval(r, e->u.cast.a, &a))
			return false;
		convert((ElemKind)e->u.cast.a->dt.kind, k, &a, lanes, out);
		return true;
	}
	case E_BROADCAST: {
		Val a;
		if (!eval(r, e->u.cast.a, &a))
			return false;
		for (int l = 0; l < lanes; l++) {
			out->i[l] = a.i[0];
			out->f[l] = a.f[0];
		}
		return true;
	}
	case E_CALL: {
		Val v[3];
		for (uint32_t i = 0; i < e->n && i < 3; i++)
			if (!eval(r, e->u.call.args[i], &v[i]))
				return false;
		const char *fn = e->u.call.fn;
		for (int l = 0; l < lanes; l++) {
			if (elem_is_float(k))
				out->f[l] = round_to(k, intrinsic_f(fn, v[0].f[l], e->n > 1 ? v[1].f[l] : 0,
				                                    e->n > 2 ? v[2].f[l] : 0));
			else
				out->i[l] = wrap(k, intrinsic_i(fn, v[0].i[l], e->n > 1 ? v[1].i[l] : 0,
				                                !elem_is_signed(k)));
		}
		return true;
	}
	}
	return fail(r, e->loc, "internal error: unknown expression");
}

/* ----------------------------------------------------------- statements */

static bool
store(Run *r, const PStmt *s)
{
	int64_t off;
	uint32_t n;
	Val v;
	if (!eval(r, s->u.store.val, &v) ||
	    !offset(r, s->u.store.buf, s->u.store.idx, s->n, s->loc, &off, &n))
		return false;
	Tensor *t = r->buf[s->u.store.buf->scratch];
	for (uint32_t l = 0; l < n; l++) {
		if (elem_is_float(t->kind))
			tensor_set(t, off + l, v.f[l]);
		else
			tensor_set_int(t, off + l, v.i[l]);
	}
	return true;
}

static bool
alloc(Run *r, const PStmt *s)
{
	const PVar *b = s->u.alloc.buf;
	Tensor *t = r->buf[b->scratch];
	if (!t) {
		t = tensor_like_type(b->type);
		if (!t)
			return fail(r, s->loc, "cannot allocate '%%%s'", b->name);
		r->buf[b->scratch] = t;
		r->owned[b->scratch] = true;
	}
	/* Poison: a kernel that reads before it writes gets NaN, not 0. */
	if (elem_is_float(t->kind))
		for (int64_t i = 0; i < t->numel; i++)
			tensor_set(t, i, NAN);
	else if (t->numel)
		memset(t->data, 0x5a, (size_t)t->numel * elem_size(t->kind));
	return true;
}

static bool has_barrier(const PBlock *b);
static bool run_barrier_threads(Run *r, const PStmt *loop);

/* Runs the statements from first to the end of their block, and all that
 * nests in them. */
static bool
exec(Run *r, const PStmt *first)
{
	size_t cap = 64, n = 0;
	Frame *st = xmalloc(cap * sizeof *st);
	st[n++] = (Frame){NULL, first, 0, 0};
	bool ok = true;
	while (ok && n) {
		Frame *f = &st[n - 1];
		if (!f->next) {
			if (f->loop && ++f->cur < f->hi) {
				r->slot[f->loop->u.loop.var->scratch].i[0] = f->cur;
				f->next = f->loop->u.loop.body.first;
			} else {
				n--;
			}
			continue;
		}
		const PStmt *s = f->next;
		f->next = s->next;
		Frame push = {NULL, NULL, 0, 0};
		switch (s->kind) {
		case S_FOR: {
			if (s->fkind == FK_THREAD && strncmp(s->u.loop.thread, "threadIdx", 9) == 0 &&
			    has_barrier(&s->u.loop.body)) {
				ok = run_barrier_threads(r, s);
				continue;
			}
			Val lo, hi;
			if (!(ok = eval(r, s->u.loop.lo, &lo) && eval(r, s->u.loop.hi, &hi)))
				continue;
			if (lo.i[0] >= hi.i[0])
				continue;
			r->slot[s->u.loop.var->scratch].i[0] = lo.i[0];
			push = (Frame){s, s->u.loop.body.first, lo.i[0], hi.i[0]};
			break;
		}
		case S_IF: {
			Val c;
			if (!(ok = eval(r, s->u.cond.cond, &c)))
				continue;
			push.next = s->u.cond.arms[c.i[0] ? 0 : 1].first;
			break;
		}
		case S_KERNEL:
			push.next = s->u.kernel.body.first;
			break;
		case S_LET:
			ok = eval(r, s->u.let.val, &r->slot[s->u.let.var->scratch]);
			continue;
		case S_STORE:
			ok = store(r, s);
			continue;
		case S_ALLOC:
			ok = alloc(r, s);
			continue;
		case S_EVAL: {
			Val v;
			ok = eval(r, s->u.eval, &v);
			continue;
		}
		case S_TEX_STORE:
			ok = fail(r, s->loc, "texture2d_store is not supported by the interpreter yet");
			continue;
		case S_BARRIER:
			ok = fail(r, s->loc, "a barrier is only supported directly in the body of "
			          "threadIdx loops");
			continue;
		}
		if (!push.next)
			continue;
		if (n == cap) {
			cap *= 2;
			st = xrealloc(st, cap * sizeof *st);
		}
		st[n++] = push;
	}
	free(st);
	return ok;
}

static bool
has_barrier(const PBlock *b)
{
	for (const PStmt *s = b->first; s; s = s->next) {
		if (s->kind == S_BARRIER)
			return true;
		/* A perfect nest of thread loops shares the barrier. */
		if (s->kind == S_FOR && s->fkind == FK_THREAD && s == b->first && !s->next)
			return has_barrier(&s->u.loop.body);
	}
	return false;
}

/* Work items of a nest of threadIdx loops, run phase by phase between the
 * barriers of the innermost body; each item keeps its own scalars. */
static bool
run_barrier_threads(Run *r, const PStmt *loop)
{
	const PStmt *nest[3];
	int64_t ext[3];
	int depth = 0;
	for (const PStmt *s = loop; s && s->kind == S_FOR && s->fkind == FK_THREAD && depth < 3;) {
		Val lo, hi;
		if (!eval(r, s->u.loop.lo, &lo) || !eval(r, s->u.loop.hi, &hi))
			return false;
		if (lo.i[0] != 0)
			return fail(r, s->loc, "a thread loop must start at 0");
		nest[depth] = s;
		ext[depth++] = hi.i[0] > 0 ? hi.i[0] : 0;
		const PStmt *b = s->u.loop.body.first;
		s = b && !b->next && b->kind == S_FOR && b->fkind == FK_THREAD ? b : NULL;
	}
	const PBlock *body = &nest[depth - 1]->u.loop.body;
	int64_t items = 1;
	for (int d = 0; d < depth; d++)
		items *= ext[d];
	if (items == 0)
		return true;
	Val *saved = xcalloc((size_t)items * r->nslots, sizeof *saved);
	for (int64_t t = 0; t < items; t++)
		memcpy(&saved[t * r->nslots], r->slot, r->nslots * sizeof *saved);
	bool ok = true;
	const PStmt *seg = body->first;
	for (;;) {
		/* The segment runs up to the next barrier: cut the list there. */
		const PStmt *end = seg;
		while (end && end->kind != S_BARRIER)
			end = end->next;
		PStmt *last = NULL;
		for (const PStmt *s = seg; s && s != end; s = s->next)
			last = (PStmt *)s;
		for (int64_t t = 0; ok && t < items && last; t++) {
			memcpy(r->slot, &saved[t * r->nslots], r->nslots * sizeof *saved);
			int64_t rest = t;
			for (int d = depth; d-- > 0;) {
				r->slot[nest[d]->u.loop.var->scratch].i[0] = rest % ext[d];
				rest /= ext[d];
			}
			/* The cut is temporary: the statement list is the prim's. */
			PStmt *after = last->next;
			last->next = NULL;
			ok = exec(r, seg);
			last->next = after;
			memcpy(&saved[t * r->nslots], r->slot, r->nslots * sizeof *saved);
		}
		if (!ok || !end)
			break;
		seg = end->next;
	}
	free(saved);
	return ok;
}

/* ------------------------------------------------------------------ run */

bool
prim_exec(Ctx *ctx, const Prim *p, Tensor *const *args, uint32_t nargs)
{
	Run r = {.ctx = ctx, .p = p};
	if (nargs != p->nparams) {
		error_at(ctx, p->loc, "@%s takes %u arguments, %u given", p->name,
		         (unsigned)p->nparams, (unsigned)nargs);
		return false;
	}
	uint32_t ns = 0, nb = 0;
	for (uint32_t i = 0; i < p->nparams; i++)
		p->params[i]->scratch = p->params[i]->kind == PV_BUFFER ? nb++ : ns++;
	number_stmts(&p->body, &ns, &nb);
	r.nslots = ns ? ns : 1;
	r.slot = xcalloc(r.nslots, sizeof *r.slot);
	r.nbufs = nb;
	r.buf = xcalloc(nb ? nb : 1, sizeof *r.buf);
	r.owned = xcalloc(nb ? nb : 1, sizeof *r.owned);
	bool ok = true;
	for (uint32_t i = 0; i < p->nparams && ok; i++) {
		const PVar *v = p->params[i];
		const Tensor *t = args[i];
		bool fits = t->kind == v->type->dt.kind && t->rank == v->type->n;
		for (uint32_t d = 0; fits && d < t->rank; d++)
			fits = t->dims[d] == v->type->dims[d];
		if (!fits) {
			char want[128];
			error_at(ctx, p->loc, "@%s: argument %u ('%%%s') does not have the type %s",
			         p->name, (unsigned)i + 1, v->name, type_text(v->type, want, sizeof want));
			ok = false;
			break;
		}
		if (v->kind == PV_BUFFER) {
			r.buf[v->scratch] = args[i];
		} else if (elem_is_float(t->kind)) {
			r.slot[v->scratch].f[0] = tensor_get(t, 0);
		} else {
			r.slot[v->scratch].i[0] = tensor_get_int(t, 0);
		}
	}
	if (ok)
		ok = exec(&r, p->body.first);
	for (uint32_t i = 0; i < nb; i++)
		if (r.owned[i])
			tensor_free(r.buf[i]);
	free(r.slot);
	free(r.buf);
	free(r.owned);
	return ok;
}
