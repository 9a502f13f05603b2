/* kernel.c: one kernel as an OpenCL C function and its launch.
 *
 * The kernel's leading perfect nest of launch-bound loops becomes the
 * NDRange: bind(blockIdx.A) loops are work groups and bind(threadIdx.A)
 * loops work items of axis A (x, y, z = 0, 1, 2); on a device without
 * thread bindings, up to three `parallel` loops are the axes in order.
 * What is inside the nest is the body of one work item.  The arguments are
 * the prim's parameters, then its prim-level allocs (workspace buffers and
 * images), that the kernel uses, each in declaration order.
 */
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl_impl.h"
#include "ocl/ocl_kernel.h"
#include "verify_launch.h"
#include "walk.h"

typedef struct {
	PStmt *loop;
	int axis;
	int kind;             /* 0 group (blockIdx), 1 item (threadIdx), 2 parallel */
	int64_t extent;
} Bound;

static bool
literal_int(const PExpr *e, int64_t *v)
{
	if (e->kind != E_INT)
		return false;
	*v = e->u.i;
	return true;
}

static bool
is_shared_alloc(const PStmt *s)
{
	return s->kind == S_ALLOC && s->u.alloc.buf->vd && s->u.alloc.buf->vd->scope &&
	       strcmp(s->u.alloc.buf->vd->scope, "shared") == 0;
}

/* Peels the leading nest of bound loops of k into b (at most 6); returns
 * how many, and the block inside them in *body; *empty when one of them
 * has no iterations. */
static int
peel(Gen *g, PStmt *k, Bound *b, PBlock **body, bool *empty)
{
	PBlock *cur = &k->u.kernel.body;
	int n = 0, nparallel = 0;
	bool seen[2][3] = {{false}};
	for (;;) {
		/* shared allocs may stand beside a bound loop: they are
		 * declared at the top of the kernel anyway */
		PStmt *s = NULL;
		int others = 0;
		for (PStmt *c = cur->first; c; c = c->next)
			if (!is_shared_alloc(c))
				s = c, others++;
		int64_t lo, hi;
		if (!s || others != 1 || s->kind != S_FOR || !literal_int(s->u.loop.lo, &lo) ||
		    !literal_int(s->u.loop.hi, &hi))
			break;
		Bound x = {s, 0, 0, hi - lo};
		if (s->fkind == FK_THREAD) {
			const char *t = s->u.loop.thread;
			if (nparallel)
				break;
			x.kind = t[0] == 'b' ? 0 : 1;
			x.axis = t[strlen(t) - 1] - 'x';
			if (x.axis < 0 || x.axis > 2 || seen[x.kind][x.axis]) {
				OCL_ERR(g, s->loc, "a second loop bound to %s in kernel '@%s'", t,
				        k->u.kernel.name);
				break;
			}
			seen[x.kind][x.axis] = true;
		} else if (s->fkind == FK_PARALLEL && nparallel < 3 && n == 0 + nparallel) {
			x.kind = 2;
			x.axis = nparallel++;
		} else {
			break;
		}
		if (x.extent < 1) {
			/* over an empty tensor: a kernel that does nothing, run
			 * once (OpenCL has no NDRange of size 0) */
			*empty = true;
			x.extent = 1;
		}
		b[n++] = x;
		cur = &s->u.loop.body;
	}
	*body = cur;
	return n;
}

/* The work-group size for `parallel` axis 0: the largest divisor of the
 * extent up to 64 (POCL vectorizes across the items of a group). */
static int64_t
parallel_local(int64_t extent, int64_t max)
{
	int64_t cap = max < 64 ? max : 64;
	for (int64_t d = cap; d > 1; d--)
		if (extent % d == 0)
			return d;
	return 1;
}

/* ------------------------------------------------------------- the scan */

static void
mark(PVar *v, int bits)
{
	if (v && (v->scratch & OV_ARG))
		v->scratch |= (uintptr_t)(bits | OV_USED);
}

/* A private array whose lane runs are all whole rows of its last axis
 * (`%acc[i, 0:16]` of f32[8,16]) becomes an array of vectors, float16
 * acc[8]: LLVM keeps those in registers, where vload16/vstore16 on a
 * float array go through memory (about 7x slower on POCL, bench/).
 * Shorter runs at a constant offset that is a multiple of their length
 * (`%acc[i, 4:4]`, a texel of the row) are parts of a row and keep it so
 * (ocl_row_part): the packed conv2d's cpu tile, whose rows of 16 are
 * stored a texel at a time, ran 2x faster so on POCL. */
static void
check_run(PVar *b, const PIndex *idx, uint32_t n)
{
	if (!b || !(b->scratch & OV_PRIVATE) || !n || !idx[n - 1].lanes)
		return;
	const PIndex *last = &idx[n - 1];
	if ((int64_t)last->lanes == b->type->dims[n - 1] && last->e->kind == E_INT && last->e->u.i == 0)
		b->scratch |= OV_VEC_SEEN;
	else if (ocl_row_part(b, idx, n) < 0)
		b->scratch |= OV_VEC_BAD;
}

static void
scan_expr(Gen *g, PExpr *root, PtrVec *st)
{
	st->n = 0;
	ptrvec_push(st, root);
	while (st->n) {
		PExpr *e = st->v[--st->n];
		if (e->kind == E_VAR) {
			mark(e->u.var, 0);
		} else if (e->kind == E_LOAD) {
			PVar *b = e->u.load.buf;
			mark(b, OV_READ | OV_NDACCESS);
			check_run(b, e->u.load.idx, e->n);
			if (ocl_is_texture(b))
				OCL_ERR(g, e->loc, "'%%%s' is in %s memory but read as an N-d buffer: the "
				        "module is not flattened (run ir-flatten-texture before ir-codegen-ocl)",
				        b->name, b->vd->scope);
		} else if (e->kind == E_TEX_LOAD) {
			mark(e->u.tex.buf, OV_READ | OV_TEX_ACCESS);
		} else if (e->kind == E_CALL && e->op == I_ATOMIC_ADD) {
			mark(e->u.call.args[0]->u.load.buf, OV_WRITTEN);
		}
		pexpr_push_operands(e, st);
	}
}

/* Marks what kernel k uses; collects its shared allocs and reports
 * thread-bound loops outside the peeled nest. */
static void
scan(Gen *g, PStmt *k, const Bound *b, int nb, PtrVec *shared, PtrVec *privates)
{
	PtrVec ex = {0};
	PrimWalk w;
	pwalk_start(&w, &k->u.kernel.body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		switch (s->kind) {
		case S_FOR: {
			bool peeled = false;
			for (int i = 0; i < nb; i++)
				peeled |= b[i].loop == s;
			if (s->fkind == FK_THREAD && !peeled)
				OCL_ERR(g, s->loc, "the loop bound to %s is not in the leading nest of "
				        "bound loops of kernel '@%s', so it has no NDRange axis",
				        s->u.loop.thread, k->u.kernel.name);
			scan_expr(g, s->u.loop.lo, &ex);
			scan_expr(g, s->u.loop.hi, &ex);
			break;
		}
		case S_IF:
			scan_expr(g, s->u.cond.cond, &ex);
			break;
		case S_LET:
			scan_expr(g, s->u.let.val, &ex);
			break;
		case S_STORE:
			mark(s->u.store.buf, OV_WRITTEN | OV_NDACCESS);
			check_run(s->u.store.buf, s->u.store.idx, s->n);
			if (ocl_is_texture(s->u.store.buf))
				OCL_ERR(g, s->loc, "'%%%s' is in %s memory but stored as an N-d buffer: the "
				        "module is not flattened (run ir-flatten-texture before ir-codegen-ocl)",
				        s->u.store.buf->name, s->u.store.buf->vd->scope);
			for (uint32_t i = 0; i < s->n; i++)
				scan_expr(g, s->u.store.idx[i].e, &ex);
			scan_expr(g, s->u.store.val, &ex);
			break;
		case S_TEX_STORE:
			mark(s->u.tex.buf, OV_WRITTEN | OV_TEX_ACCESS);
			scan_expr(g, s->u.tex.x, &ex);
			scan_expr(g, s->u.tex.y, &ex);
			scan_expr(g, s->u.tex.val, &ex);
			break;
		case S_EVAL:
			scan_expr(g, s->u.eval, &ex);
			break;
		case S_ALLOC:
			if (is_shared_alloc(s))
				ptrvec_push(shared, s->u.alloc.buf);
			if (s->u.alloc.buf->vd && s->u.alloc.buf->vd->scope &&
			    strcmp(s->u.alloc.buf->vd->scope, "local") == 0) {
				s->u.alloc.buf->scratch = OV_PRIVATE;
				ptrvec_push(privates, s->u.alloc.buf);
			}
			break;
		default:
			break;
		}
	}
	ptrvec_free(&ex);
}

/* ---------------------------------------------------------- the kernel */

static void
param_decl(Gen *g, Str *h, PVar *v, const char *kname)
{
	char ty[16];
	if (v->kind == PV_SCALAR) {
		str_printf(h, "const %s ", ocl_ctype(v->type->dt, ty));
	} else if (ocl_is_texture(v)) {
		bool r = v->scratch & OV_READ, w = v->scratch & OV_WRITTEN;
		if (r && w)
			OCL_ERR(g, v->loc, "kernel '@%s' reads and writes the image '%%%s': OpenCL 1.2 "
			        "has no read_write images (write a second buffer instead)", kname, v->name);
		if (v->type->dt.kind != ET_F32 && v->type->dt.kind != ET_F16)
			OCL_ERR(g, v->loc, "image '%%%s' holds %s: images hold f32 or f16 texels", v->name,
			        elem_name((ElemKind)v->type->dt.kind));
		str_puts(h, w ? "__write_only image2d_t " : "__read_only image2d_t ");
	} else {
		/* coherent: read where another work group wrote it in this
		 * launch, so past any cache that does not see that write */
		str_printf(h, "__global %s%s%s *restrict ", v->scratch & OV_WRITTEN ? "" : "const ",
		           attr_true(&v->annots, ANNOT_COHERENT) ? "volatile " : "",
		           ocl_mtype((ElemKind)v->type->dt.kind, ty));
	}
	ocl_local_name(h, v->name);
}

static const char *const id_fn[] = {"get_group_id", "get_local_id", "get_global_id"};

bool
ocl_kernel(Gen *g, PStmt *k)
{
	const Prim *p = g->prim;
	const char *kname = k->u.kernel.name;
	Bound b[8];
	PBlock *body;
	bool empty = false;
	int nb = peel(g, k, b, &body, &empty);

	/* what the kernel may take, then what it uses */
	PtrVec cand = {0}, shared = {0}, privates = {0};
	for (uint32_t i = 0; i < p->nparams; i++)
		ptrvec_push(&cand, p->params[i]);
	for (PStmt *s = p->body.first; s; s = s->next)
		if (s->kind == S_ALLOC)
			ptrvec_push(&cand, s->u.alloc.buf);
	for (size_t i = 0; i < cand.n; i++)
		((PVar *)cand.v[i])->scratch = OV_ARG;
	scan(g, k, b, nb, &shared, &privates);
	for (size_t i = 0; i < privates.n; i++) {
		PVar *v = privates.v[i];
		const Type *t = v->type;
		int64_t d = t->n ? t->dims[t->n - 1] : 0;
		if ((v->scratch & (OV_VEC_SEEN | OV_VEC_BAD)) == OV_VEC_SEEN &&
		    (d == 2 || d == 4 || d == 8 || d == 16) && t->dt.kind != ET_BOOL)
			v->scratch |= OV_VECARR;
	}

	Launch *l = arena_alloc(g->m->arena, sizeof *l);
	l->loc = k->loc;
	for (int a = 0; a < 3; a++)
		l->global[a] = l->local[a] = 1;
	int64_t maxwg = g->dev ? g->dev->max_work_group_size : 256;
	for (int i = 0; i < nb; i++) {
		int a = b[i].axis;
		l->global[a] *= b[i].extent;
		if (b[i].kind == 1)
			l->local[a] = b[i].extent;
		if (b[i].kind == 2 && a == 0)
			l->local[a] = parallel_local(b[i].extent, maxwg);
	}
	l->args = arena_alloc(g->m->arena, cand.n * sizeof *l->args + 1);
	for (size_t i = 0; i < cand.n; i++)
		if (((PVar *)cand.v[i])->scratch & OV_USED)
			l->args[l->nargs++] = cand.v[i];
	k->u.kernel.launch = l;

	/* the header */
	Str *o = g->out;
	str_printf(o, "// @%s kernel @%s: global [%lld, %lld, %lld], local [%lld, %lld, %lld]\n",
	           p->name, kname, (long long)l->global[0], (long long)l->global[1],
	           (long long)l->global[2], (long long)l->local[0], (long long)l->local[1],
	           (long long)l->local[2]);
	str_printf(o, "__kernel __attribute__((reqd_work_group_size(%lld, %lld, %lld))) void ",
	           (long long)l->local[0], (long long)l->local[1], (long long)l->local[2]);
	ocl_kernel_name(o, kname);
	str_puts(o, "(");
	for (uint32_t i = 0; i < l->nargs; i++) {
		if (i)
			str_puts(o, ", ");
		param_decl(g, o, l->args[i], kname);
	}
	str_puts(o, ") {\n");
	g->depth = 1;
	g->ntemps = 0;        /* names per kernel: a change stays local in diffs */
	char ty[16];
	for (size_t i = 0; i < shared.n; i++) {
		PVar *v = shared.v[i];
		str_printf(o, "  __local %s ", ocl_buf_type(v, ty));
		ocl_local_name(o, v->name);
		str_printf(o, "[%lld];\n", (long long)type_numel(v->type));
	}
	bool reads = false;
	for (uint32_t i = 0; i < l->nargs; i++)
		reads |= ocl_is_texture(l->args[i]) && (l->args[i]->scratch & OV_READ);
	if (reads)
		str_puts(o, "  const sampler_t irp_sampler = CLK_NORMALIZED_COORDS_FALSE | "
		         "CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n");
	for (int i = 0; i < nb; i++) {
		PVar *v = b[i].loop->u.loop.var;
		int64_t lo = b[i].loop->u.loop.lo->u.i;
		str_printf(o, "  const %s ", ocl_ctype(v->type->dt, ty));
		ocl_local_name(o, v->name);
		str_printf(o, " = (%s)%s(%d)", ty, id_fn[b[i].kind], b[i].axis);
		if (lo)
			str_printf(o, " + %lld", (long long)lo);
		str_puts(o, ";\n");
	}
	if (empty)
		str_puts(o, "  /* a loop of the launch has no iterations */\n");
	else
		ocl_block(g, body);
	str_puts(o, "}\n");

	for (size_t i = 0; i < cand.n; i++)
		((PVar *)cand.v[i])->scratch = 0;
	for (size_t i = 0; i < privates.n; i++)
		((PVar *)privates.v[i])->scratch = 0;
	ptrvec_free(&privates);
	ptrvec_free(&cand);
	ptrvec_free(&shared);
	return g->ok;
}
