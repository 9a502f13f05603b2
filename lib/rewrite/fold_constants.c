/* fold_constants.c: ir-fold-constants (see ir-fold-constants(1)).
 *
 * Every operator binding whose operands are all constants (a `const`, a
 * literal, or an on_device or device_copy of a constant, which do not
 * change a value) is computed here with the reference kernels (ref_eval,
 * the kernels ir-run --interp runs) and turned, in place, into a `const`
 * binding: it keeps its name, its type, its placement and its location,
 * so a diff of the two modules shows only the bindings folded.  One walk
 * in program order folds chains (a transpose of a layout_transform of a
 * weight), since a binding folded is a constant for those after it; what
 * is left is what cannot be folded, so folding again changes nothing.
 *
 * A split of constants (a tuple) folds through its projections: each
 * `%p = %s.0` becomes the constant of its field.
 *
 * Constants, on_device, device_copy, tuple and split bindings that only
 * folded bindings used are removed: they would otherwise be loaded (and
 * copied) on every run for nothing.  Nothing else is removed, so a value
 * the user left unused stays.
 *
 * A binding is left as it is when its result or an operand is over
 * --max-bytes, or when its kernel refuses the operands (an integer division by zero): such a call may sit
 * in an arm that never runs, and is the run's error to report.
 *
 * The pass is linear: each binding's operands are looked at once, each
 * constant is read at most once (the tensors of a function are kept until
 * its end), and the blocks are swept once at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "gbuild.h"
#include "ops/ops.h"
#include "ref/interp.h"
#include "ref/ref_ops.h"
#include "rewrite/fold_constants.h"
#include "target.h"
#include "tensor/data_path.h"
#include "tensor/npy.h"
#include "tensor/tensor.h"
#include "walk.h"

/* Value.flags bit of this pass: the binding is to be removed. */
#define VF_DEAD VF_PASS_A

typedef struct {
	Module *m;
	const FoldOpts *o;
	bool cpu;             /* every device a cpu (cpus_only) */
	uint64_t max_bytes;
	uint32_t inline_max;
	Func *f;
	uint32_t nvals;
	uint32_t *uses;       /* by Value.scratch: operand and yield uses */
	Tensor **tensors;     /* by Value.scratch: a constant's data, once read */
	Tensor ***splits;     /* by Value.scratch: a split's results, once computed */
	PtrVec blocks;        /* every block of f, for the sweep */
	PtrVec pending;       /* folded constants to write to files */
	PtrVec pending_t;     /* their tensors */
	PtrVec owned;         /* tensors of the weights made in HWIO */
	Block **blockof;      /* by Value.scratch: the block a binding is in */
	GBuild gb;            /* f's: new bindings and their names */
	PtrVec folded_now;    /* every binding folded in f */
	OutGroup *group;      /* where the files of the folded constants go */
	/* --stats */
	uint64_t inlined, files, removed, over, refused, hwio, packed;
} Fold;

/* ------------------------------------------------------------ numbering */

static void
number_and_count(Fold *fd)
{
	Func *f = fd->f;
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nparams; i++)
		f->params[i]->scratch = n++;
	FuncWalk w;
	WalkStep s;
	fwalk_start(&w, f);
	while (fwalk_next(&w, &s))
		if (s.ev == W_BIND)
			s.v->scratch = n++;
	fd->nvals = n;
	fd->uses = xcalloc(n ? n : 1, sizeof *fd->uses);
	fd->tensors = xcalloc(n ? n : 1, sizeof *fd->tensors);
	fd->splits = xcalloc(n ? n : 1, sizeof *fd->splits);
	fd->blockof = xcalloc(n ? n : 1, sizeof *fd->blockof);
	/* uses, and the blocks: the body and every arm */
	ptrvec_push(&fd->blocks, &f->body);
	fwalk_start(&w, f);
	while (fwalk_next(&w, &s)) {
		Value *y = NULL;
		if (s.ev == W_BIND) {
			fd->blockof[s.v->scratch] = s.blk;
			for (uint32_t i = 0; i < s.v->nargs; i++)
				if (s.v->args[i]->kind != VK_LIT)
					fd->uses[s.v->args[i]->scratch]++;
			if (s.v->form == B_IF) {
				ptrvec_push(&fd->blocks, &s.v->u.arms[0]);
				ptrvec_push(&fd->blocks, &s.v->u.arms[1]);
			}
		} else {
			y = s.blk->yield;
		}
		if (y && y->kind != VK_LIT)
			fd->uses[y->scratch]++;
	}
}

/* ------------------------------------------------------------ constants */

/* The constant a (an operand) stands for, through on_device and
 * device_copy, or NULL; literals stand for themselves. */
static Value *
const_of(Value *a)
{
	while (a->kind == VK_BIND && (a->form == B_ON_DEVICE || a->form == B_DEVICE_COPY))
		a = a->args[0];
	if (a->kind == VK_LIT || (a->kind == VK_BIND && a->form == B_CONST))
		return a;
	return NULL;
}

static uint64_t
bytes_of(const Type *t)
{
	uint64_t b;
	if (t->kind != TY_TENSOR || t->dt.lanes != 1 ||
	    !tensor_bytes((ElemKind)t->dt.kind, t->n, t->dims, &b))
		return UINT64_MAX;
	return b;
}

/* The operator call binding v computes: v itself, or for a projection
 * of a split (a tuple result), the split; NULL for other forms. */
static Value *
call_of(Value *v)
{
	if (v->form == B_PROJ) {
		Value *t = v->args[0];
		return t->kind == VK_BIND && t->form == B_OP && t->u.op->op && t->type &&
		       t->type->kind == TY_TUPLE ? t : NULL;
	}
	return v->form == B_OP && v->u.op->op && v->type && v->type->kind == TY_TENSOR ? v : NULL;
}

/* Can binding v fold?  Its call's operands' constants go to cs (as many
 * as the reference kernel takes: a tuple operand's fields, for
 * concatenate). */
static bool
foldable(Fold *fd, Value *v, PtrVec *cs)
{
	Value *call = call_of(v);
	if (!call)
		return false;
	cs->n = 0;
	for (uint32_t i = 0; i < call->nargs; i++) {
		Value *a = call->args[i];
		if (a->kind == VK_BIND && a->form == B_TUPLE) {
			for (uint32_t k = 0; k < a->nargs; k++) {
				Value *c = const_of(a->args[k]);
				if (!c)
					return false;
				ptrvec_push(cs, c);
			}
			continue;
		}
		Value *c = const_of(a);
		if (!c)
			return false;
		ptrvec_push(cs, c);
	}
	if ((uint64_t)type_bytes(call->type) > fd->max_bytes)
		goto over;
	for (size_t i = 0; i < cs->n; i++)
		if (bytes_of(((Value *)cs->v[i])->type) > fd->max_bytes)
			goto over;
	return true;
over:
	fd->over++;
	return false;
}

/* The data of constant c (a const binding or a literal), read once; NULL
 * after reporting. */
static Tensor *
const_tensor(Fold *fd, Value *c, Tensor **lit)
{
	if (c->kind == VK_LIT) {
		Tensor *t = tensor_like_type(c->type);
		tensor_set_literal(t, 0, c);
		*lit = t;
		return t;
	}
	if (fd->tensors[c->scratch])
		return fd->tensors[c->scratch];
	const ConstData *cd = c->u.cdata;
	Tensor *t = NULL;
	if (!(c->flags & VF_CONST_FILE)) {
		t = tensor_like_type(c->type);
		tensor_set_inline(t, cd);
	} else if (!fd->o->any_data_path && !data_path_inside(cd->path)) {
		error_at(fd->m->ctx, c->loc, INTERP_OUTSIDE_MSG, c->name, cd->path);
	} else {
		char *path = data_path_resolve(cd->path, fd->o->data_dir, fd->o->input_path);
		char err[512], a[128], b[128];
		NpyFile nf;
		if (!npy_open(&nf, path, err, sizeof err)) {
			error_at(fd->m->ctx, c->loc, "cannot load the constant '%%%s': %s", c->name, err);
		} else if (!tensor_fits(&nf.head, c->type)) {
			error_at(fd->m->ctx, c->loc, "the constant '%%%s' is %s, but '%s' holds %s", c->name,
			         type_text(c->type, a, sizeof a), path, tensor_type_text(&nf.head, b, sizeof b));
			npy_close(&nf);
		} else if (!(t = npy_load(&nf, err, sizeof err))) {
			error_at(fd->m->ctx, c->loc, "cannot load the constant '%%%s': %s", c->name, err);
		}
		free(path);
	}
	fd->tensors[c->scratch] = t;
	return t;
}

/* The file name of the folded data of the binding named name:
 * FUNC.NAME.npy, stable and unique in the module (function names and
 * local names have no '/'). */
static char *
file_name(const Fold *fd, const char *name)
{
	size_t n = strlen(fd->f->name) + strlen(name) + 8;
	char *s = xmalloc(n);
	snprintf(s, n, "%s.%s.npy", fd->f->name, name);
	return s;
}

/* The value of v (foldable, its operands' data in ts), or NULL if the
 * kernel refuses them.  A split is evaluated once for all its projections
 * (fd->splits). */
static Tensor *
eval_call(Fold *fd, Value *v, const PtrVec *ts)
{
	Value *call = call_of(v);
	char err[512];
	if (call == v) {
		Tensor *out = tensor_like_type(v->type);
		if (ref_eval(v->u.op->op, v->u.op->attrs, (Tensor *const *)ts->v, (uint32_t)ts->n, v->type,
		             &out, 1, err, sizeof err))
			return out;
		tensor_free(out);
		return NULL;
	}
	const Type *tt = call->type;
	Tensor **outs = fd->splits[call->scratch];
	if (!outs) {
		outs = xcalloc(tt->n + 1, sizeof *outs); /* NULL-terminated */
		for (uint32_t i = 0; i < tt->n; i++)
			outs[i] = tensor_like_type(tt->fields[i]);
		if (!ref_eval(call->u.op->op, call->u.op->attrs, (Tensor *const *)ts->v, (uint32_t)ts->n,
		              tt, outs, tt->n, err, sizeof err)) {
			for (uint32_t i = 0; i < tt->n; i++)
				tensor_free(outs[i]);
			free(outs);
			return NULL;
		}
		fd->splits[call->scratch] = outs;
	}
	return v->u.index < tt->n ? tensor_copy(outs[v->u.index]) : NULL;
}

/* The data of t, of type ty, for the constant binding named name: inline
 * when small, else the file it goes to (see set_data). */
static ConstData *
const_data(Fold *fd, const char *name, const Type *ty, const Tensor *t)
{
	if ((uint64_t)t->numel > fd->inline_max) {
		char *file = file_name(fd, name);
		ConstData *cd = gb_const_file(fd->m, ty, file);
		free(file);
		return cd;
	}
	ConstData *cd = gb_const_data(fd->m, ty);
	if (elem_is_float(t->kind))
		for (int64_t i = 0; i < t->numel; i++)
			cd->u.f[i] = tensor_get(t, i);
	else
		for (int64_t i = 0; i < t->numel; i++)
			cd->u.i[i] = tensor_get_int(t, i);
	return cd;
}

/* Makes v the constant cd of t: a file is written at the end
 * (fd->pending), once v is known to stay, so an intermediate result
 * folded further leaves no file. */
static void
set_data(Fold *fd, Value *v, ConstData *cd, Tensor *t)
{
	gb_make_const(v, cd);
	if (cd->path) {
		ptrvec_push(&fd->pending, v);
		ptrvec_push(&fd->pending_t, t);
	} else {
		fd->inlined++;
	}
}

/* Turns v into a constant holding t, which it keeps for later folds. */
static void
make_const(Fold *fd, Value *v, Tensor *t)
{
	set_data(fd, v, const_data(fd, v->name, v->type, t), t);
	fd->tensors[v->scratch] = t;
	ptrvec_push(&fd->folded_now, v);
}

/* Writes the files of the folded constants that stay, staged in the
 * group (committed once all are written); false after reporting one that
 * cannot be written. */
static bool
write_pending(Fold *fd)
{
	for (size_t k = 0; k < fd->pending.n; k++) {
		Value *v = fd->pending.v[k];
		if (v->flags & VF_DEAD)
			continue;
		char *path = data_path_resolve(v->u.cdata->path, fd->o->data_dir, fd->o->input_path);
		char err[512];
		bool ok = npy_stage(fd->group, path, fd->pending_t.v[k], OUTFILE_NOFOLLOW, err,
		                    sizeof err);
		if (!ok)
			error_at(fd->m->ctx, v->loc, "cannot write the folded constant '%%%s': %s", v->name, err);
		free(path);
		if (!ok)
			return false;
	}
	return true;
}

/* v no longer uses its operands: those only folded bindings used (and
 * that only carry a constant) go too. */
static void
drop_uses(Fold *fd, uint32_t nargs, Value *const *args)
{
	PtrVec work = {0};
	for (uint32_t i = 0; i < nargs; i++)
		ptrvec_push(&work, args[i]);
	while (work.n) {
		Value *a = work.v[--work.n];
		if (a->kind != VK_BIND || --fd->uses[a->scratch] != 0)
			continue;
		/* a split whose projections all folded goes too */
		bool split = a->form == B_OP && a->type && a->type->kind == TY_TUPLE;
		if (a->form != B_CONST && a->form != B_ON_DEVICE && a->form != B_DEVICE_COPY &&
		    a->form != B_TUPLE && !split)
			continue;
		a->flags |= VF_DEAD;
		fd->removed++;
		/* its data is needed no more: a long chain of large constants
		 * holds only what is still used */
		tensor_free(fd->tensors[a->scratch]);
		fd->tensors[a->scratch] = NULL;
		Tensor **sp = fd->splits[a->scratch];
		for (uint32_t k = 0; sp && sp[k]; k++)
			tensor_free(sp[k]);
		free(sp);
		fd->splits[a->scratch] = NULL;
		for (uint32_t i = 0; i < a->nargs; i++)
			ptrvec_push(&work, a->args[i]);
	}
	ptrvec_free(&work);
}

/* ----------------------------------------------------------- exponents */

/* power(%x, %e) with %e an inline constant of one finite element that
 * does not widen the result (x has the result's shape) reads the literal
 * instead
 * (`power(%x, 2.0)`): ir-lower turns small integer exponents and 0.5
 * into multiplications or sqrt, where an exponent in a buffer is a pow()
 * per element (LayerNorm's power by 2, as ONNX exports it).  %e goes
 * when nothing else uses it.  False after reporting. */
static bool
inline_exponent(Fold *fd, Value *v)
{
	if (v->form != B_OP || !v->u.op->op || v->u.op->op->id != O_POWER || v->nargs != 2 ||
	    !v->type || v->type->kind != TY_TENSOR)
		return true;
	Value *x = v->args[0], *e = v->args[1], *c = const_of(e);
	if (!c || c->kind == VK_LIT || x->kind == VK_LIT || !x->type || x->type->kind != TY_TENSOR ||
	    x->type->n != v->type->n ||
	    memcmp(x->type->dims, v->type->dims, v->type->n * sizeof *v->type->dims) != 0 ||
	    type_numel(c->type) != 1 || (c->flags & VF_CONST_FILE) || c->scratch >= fd->nvals)
		return true;
	Tensor *lit = NULL;
	Tensor *t = const_tensor(fd, c, &lit); /* (inline: it cannot fail) */
	if (!t)
		return false;
	ElemKind k = (ElemKind)c->type->dt.kind;
	double d = elem_is_float(k) ? tensor_get(t, 0) : 0;
	if (k == ET_BOOL || !isfinite(d))
		return true;
	fd->gb.loc = e->loc;
	v->args[1] = gb_lit_typed(&fd->gb, k, d, elem_is_float(k) ? 0 : tensor_get_int(t, 0));
	drop_uses(fd, 1, &e);
	return true;
}

/* ------------------------------------------------------ weight layouts */

/* The string attribute key of v, or dflt when it is not given. */
static const char *
str_attr(const Value *v, const char *key, const char *dflt)
{
	const Attr *a = v->u.op->attrs ? attr_get(v->u.op->attrs, key) : NULL;
	return a && a->kind == AT_STR ? a->u.s : dflt;
}

/* t (OIHW) as HWIO. */
static Tensor *
to_hwio(const Tensor *t)
{
	int64_t O = t->dims[0], I = t->dims[1], KH = t->dims[2], KW = t->dims[3];
	int64_t dims[4] = {KH, KW, I, O};
	Tensor *r = tensor_new(t->kind, 4, dims);
	size_t es = elem_size(t->kind);
	const char *src = t->data;
	char *dst = r->data;
	int64_t k = 0;
	for (int64_t o = 0; o < O; o++)
		for (int64_t i = 0; i < I; i++)
			for (int64_t y = 0; y < KH; y++)
				for (int64_t x = 0; x < KW; x++, k++)
					memcpy(dst + (size_t)(((y * KW + x) * I + i) * O + o) * es, src + (size_t)k * es, es);
	return r;
}

/* t, read as [N,K] (N its first axis, K the rest), packed in panels of P
 * units, [N/P,K,P], as a tensor of the given rank and dims. */
static Tensor *
panels_of(const Tensor *t, int64_t P, uint32_t rank, const int64_t *dims)
{
	int64_t N = t->dims[0], K = N ? t->numel / N : 0;
	Tensor *r = tensor_new(t->kind, rank, dims);
	size_t es = elem_size(t->kind);
	const char *src = t->data;
	char *dst = r->data;
	for (int64_t n = 0; n < N; n++)
		for (int64_t k = 0; k < K; k++)
			memcpy(dst + (size_t)(((n / P) * K + k) * P + n % P) * es, src + (size_t)(n * K + k) * es, es);
	return r;
}

/* t ([N,K]) packed in panels of P units: [N/P,K,P]. */
static Tensor *
to_panels(const Tensor *t, int64_t P)
{
	int64_t dims[3] = {t->dims[0] / P, t->dims[1], P};
	return panels_of(t, P, 3, dims);
}

/* t (OIHW) in panels of P output channels, [O/P,I,H,W,P] (OIHW<P>o). */
static Tensor *
to_oihw_panels(const Tensor *t, int64_t P)
{
	int64_t dims[5] = {t->dims[0] / P, t->dims[1], t->dims[2], t->dims[3], P};
	return panels_of(t, P, 5, dims);
}

/* Does every declared device run the cpu tiles (no gpu or accel)? */
static bool
cpus_only(const Module *m)
{
	for (const Device *d = m->devices; d; d = d->next)
		if (d->kind != DK_CPU)
			return false;
	return true;
}

/* The panel width P a dense v with the constant weight w is to read w
 * packed in ([N/P,K,P], weight_layout "NC<P>n"), or 0 to leave it: where
 * ir-lower's cpu tile would transpose the weight into those panels on
 * every call (an input of 8 rows or more, its leading axes folded into
 * rows: target_cpu_dense_pack), in a
 * module whose devices are all cpus (a gpu's tiles read [N,K] along k
 * faster than panels). */
static int64_t
dense_panel(const Fold *fd, const Value *v, const Value *w)
{
	const Value *x = v->args[0];
	if (!fd->cpu || strcmp(str_attr(v, "weight_layout", "NC"), "NC") || x->kind == VK_LIT ||
	    !x->type || x->type->kind != TY_TENSOR || x->type->n < 2 || w->type->n != 2 ||
	    x->type->dims[x->type->n - 1] == 0)
		return 0;
	/* the rows: every axis of x but its last (ir-lower folds them) */
	int64_t M = 1;
	for (uint32_t d = 0; d + 1 < x->type->n; d++)
		M *= x->type->dims[d];
	return target_cpu_dense_pack(M, w->type->dims[0]);
}

/* The panel width, 16, of a conv2d's constant weight of O output
 * channels in groups, to be read as OIHW16o, or 0 for HWIO: in a module
 * of cpus only, one group, 16 dividing O (ir-lower's cpu tile then
 * computes 16 channels at a time).  In HWIO a tile's weights lie O
 * floats apart, for 512 channels 2 KiB: they fill a few cache sets and
 * were read again from memory for every row of the output (resnet18's
 * 512-channel 3x3 convs at 7x7 ran at 30 GFLOP/s on POCL, 1 thread; in
 * panels 110, and its convs at 56x56 88 against 105-115). */
static int64_t
conv_panel(const Fold *fd, int64_t groups, int64_t O)
{
	return fd->cpu && groups == 1 && O % 16 == 0 ? 16 : 0;
}

/* Every NCHW conv2d whose OIHW weight is a constant, with output channels
 * per group a multiple of 4 (those ir-lower's cpu tile takes), reads a
 * new constant binding W_hwio of the weight in HWIO instead (W_oihw16o
 * in panels of 16 channels where conv_panel says so), and every
 * dense that dense_panel picks a new constant W_nc<P>n of its weight in
 * panels (weight_layout "NC<P>n"), each made just after W (one per
 * weight, however many calls share it), so the tiles need no transpose
 * stage at inference.  W goes when nothing else uses it. */
static bool
weight_layouts(Fold *fd)
{
	Module *m = fd->m;
	Value **made = xcalloc(fd->nvals ? fd->nvals : 1, sizeof *made);
	FuncWalk wk;
	Block *blk;
	fwalk_start(&wk, fd->f);
	for (Value *v; (v = fwalk_next_binding(&wk, &blk));) {
		if (v->form != B_OP || !v->u.op->op || !v->type || v->type->kind != TY_TENSOR ||
		    v->nargs != 2)
			continue;
		OpId id = v->u.op->op->id;
		Value *w = v->args[1];
		if ((id != O_CONV2D && id != O_DENSE) || w->kind != VK_BIND || w->form != B_CONST ||
		    (w->flags & VF_DEAD) || w->scratch >= fd->nvals)
			continue;
		const Type *wt = w->type;
		if (type_numel(wt) == 0 || bytes_of(wt) > fd->max_bytes)
			continue;
		int64_t P = 0, CP = 0;
		if (id == O_CONV2D) {
			const Attr *g = attr_get(v->u.op->attrs ? v->u.op->attrs : &(AttrMap){0}, "groups");
			int64_t groups = g && g->kind == AT_INT && g->u.i > 0 ? g->u.i : 1;
			if (strcmp(str_attr(v, "data_layout", "NCHW"), "NCHW") ||
			    strcmp(str_attr(v, "kernel_layout", "OIHW"), "OIHW") ||
			    strcmp(str_attr(v, "out_layout", "NCHW"), "NCHW") || wt->n != 4 ||
			    (wt->dims[0] / groups) % 4 != 0)
				continue;
			CP = conv_panel(fd, groups, wt->dims[0]);
		} else if (!(P = dense_panel(fd, v, w))) {
			continue;
		}
		char layout[32];
		if (P)
			snprintf(layout, sizeof layout, "NC%lldn", (long long)P);
		Value *nv = made[w->scratch];
		/* (a weight that two convolutions would read in different
		 * layouts stays as it is for the second) */
		if (nv && id == O_CONV2D && (nv->type->n == 5) != (CP != 0))
			continue;
		if (!nv) {
			Tensor *lit = NULL;
			Tensor *t = const_tensor(fd, w, &lit);
			if (!t) {
				free(made);
				return false;
			}
			Tensor *h = P ? to_panels(t, P) : CP ? to_oihw_panels(t, CP) : to_hwio(t);
			ptrvec_push(&fd->owned, h);
			char suffix[32] = "hwio";
			if (P)
				snprintf(suffix, sizeof suffix, "nc%lldn", (long long)P);
			else if (CP)
				strcpy(suffix, "oihw16o");
			fd->packed += P != 0;
			fd->hwio += P == 0;
			/* W_SUFFIX (else W_SUFFIX_1, ...), just after W, where W is */
			GBuild *b = &fd->gb;
			gb_at(b, fd->blockof[w->scratch], w);
			b->loc = w->loc;
			b->flags = w->flags & (VF_ON | VF_LOC);
			const char *name = gb_name(b, w->name, suffix);
			const Type *ht = type_tensor(m, wt->dt, h->rank, h->dims);
			ConstData *cd = const_data(fd, name, ht, h);
			nv = gb_const(b, name, ht, cd);
			nv->vd = w->vd;
			set_data(fd, nv, cd, h);
			fd->inlined -= !cd->path; /* counted apart */
			made[w->scratch] = nv;
		}
		v->args[1] = nv;
		Attr la = gb_str(m, P ? layout : CP ? "OIHW16o" : "HWIO");
		gb_set_attr(m, v, P ? "weight_layout" : "kernel_layout", &la);
		drop_uses(fd, 1, &w);
	}
	free(made);
	return true;
}

static bool
fold_func(Fold *fd, Func *f)
{
	fd->f = f;
	fd->blocks.n = 0;
	gb_start(&fd->gb, fd->m, f);
	number_and_count(fd);
	bool ok = true;
	PtrVec cs = {0}, ts = {0}, lits = {0};
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; ok && (v = fwalk_next_binding(&w, &blk));) {
		if (!foldable(fd, v, &cs)) {
			ok = inline_exponent(fd, v);
			continue;
		}
		ts.n = 0;
		for (size_t i = 0; i < cs.n && ok; i++) {
			Tensor *lit = NULL;
			Tensor *t = const_tensor(fd, cs.v[i], &lit);
			if (lit)
				ptrvec_push(&lits, lit);
			if (!t)
				ok = false;
			ptrvec_push(&ts, t);
		}
		if (!ok)
			break;
		Tensor *out = eval_call(fd, v, &ts);
		if (out) {
			/* the operands, before make_const forgets them */
			uint32_t nargs = v->nargs;
			Value **args = xmalloc((nargs ? nargs : 1) * sizeof *args);
			memcpy(args, v->args, nargs * sizeof *args);
			make_const(fd, v, out);
			drop_uses(fd, nargs, args);
			free(args);
		} else {
			fd->refused++;
		}
		for (size_t i = 0; i < lits.n; i++)
			tensor_free(lits.v[i]);
		lits.n = 0;
	}
	if (!ok) /* the walk stopped early */
		free(w.st);
	else if (fd->o->weight_layouts)
		ok = weight_layouts(fd);
	/* the counts of what stays */
	for (size_t k = 0; k < fd->pending.n; k++) {
		const Value *v = fd->pending.v[k];
		if (!(v->flags & VF_DEAD))
			fd->files++;
	}
	for (size_t k = 0; k < fd->folded_now.n; k++) {
		const Value *v = fd->folded_now.v[k];
		if ((v->flags & VF_DEAD) && !(v->flags & VF_CONST_FILE))
			fd->inlined--;
	}
	if (ok)
		ok = write_pending(fd);
	fd->pending.n = fd->pending_t.n = 0;
	fd->folded_now.n = 0;
	/* the sweep: unlink what became dead */
	for (size_t k = 0; k < fd->blocks.n; k++) {
		Block *b = fd->blocks.v[k];
		Value **link = &b->first, *last = NULL;
		for (Value *v = b->first; v; v = v->next) {
			if (v->flags & VF_DEAD) {
				v->flags &= (uint16_t)~VF_DEAD;
				continue;
			}
			*link = v;
			link = &v->next;
			last = v;
		}
		*link = NULL;
		b->last = last;
	}
	for (uint32_t i = 0; i < fd->nvals; i++) {
		tensor_free(fd->tensors[i]);
		Tensor **sp = fd->splits[i];
		for (uint32_t k = 0; sp && sp[k]; k++)
			tensor_free(sp[k]);
		free(sp);
	}
	free(fd->splits);
	for (size_t i = 0; i < fd->owned.n; i++)
		tensor_free(fd->owned.v[i]);
	fd->owned.n = 0;
	gb_done(&fd->gb);
	free(fd->blockof);
	free(fd->tensors);
	free(fd->uses);
	ptrvec_free(&cs);
	ptrvec_free(&ts);
	ptrvec_free(&lits);
	return ok;
}

bool
fold_constants(Module *m, const FoldOpts *o)
{
	if (!module_check_unplanned(m, "ir-fold-constants"))
		return false;
	Fold fd = {
		.m = m,
		.o = o,
		.max_bytes = o->max_bytes ? o->max_bytes : FOLD_MAX_BYTES_DEFAULT,
		.inline_max = o->inline_max_set ? o->inline_max : FOLD_INLINE_MAX_DEFAULT,
		.cpu = cpus_only(m),
	};
	OutGroup local = {0};
	fd.group = o->files ? o->files : &local;
	bool ok = true;
	for (Func *f = m->funcs; f && ok; f = f->next)
		ok = fold_func(&fd, f);
	if (!o->files && !ok) {
		outgroup_discard(&local);
	} else if (!o->files) {
		char bad[512];
		int e = outgroup_commit(&local, bad, sizeof bad);
		if (e) {
			error_at(m->ctx, (Loc){0}, "cannot write '%s': %s", bad, strerror(e));
			ok = false;
		}
	}
	ptrvec_free(&fd.blocks);
	ptrvec_free(&fd.pending);
	ptrvec_free(&fd.pending_t);
	ptrvec_free(&fd.owned);
	ptrvec_free(&fd.folded_now);
	if (ok && o->stats)
		fprintf(o->stats,
		        "ir-fold-constants: %llu constant%s folded inline, %llu to files; %llu binding%s "
		        "removed; %llu conv2d weight%s made HWIO or OIHW16o; %llu dense weight%s packed in panels; "
		        "left: %llu over --max-bytes, %llu the kernels refused\n",
		        (unsigned long long)fd.inlined, fd.inlined == 1 ? "" : "s",
		        (unsigned long long)fd.files, (unsigned long long)fd.removed,
		        fd.removed == 1 ? "" : "s", (unsigned long long)fd.hwio, fd.hwio == 1 ? "" : "s",
		        (unsigned long long)fd.packed, fd.packed == 1 ? "" : "s",
		        (unsigned long long)fd.over,
		        (unsigned long long)fd.refused);
	return ok;
}
