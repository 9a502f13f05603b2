/* dot.c: a module as Graphviz DOT (see dot.h and ir-dot(1)).
 *
 * Nodes are numbered n0, n1, ... in program order (parameters, bindings
 * as walk.h visits them, the result; then the prims), so the output
 * depends on the module alone.  Clusters have numeric ids too; every
 * name, scope and string goes into a quoted label through dot_esc(), which
 * passes printable ASCII and writes every other byte as \xNN, so any
 * module gives valid DOT (and valid UTF-8).
 *
 * Each function is walked a few times (numbering, then the nodes of each
 * device's cluster, then the edges): linear in its size times the number
 * of devices plus one, which is small. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dot/dot.h"
#include "dot/dot_draw.h"
#include "ops/ops.h"
#include "walk.h"


/* ------------------------------------------------------------ strings */

void
dot_esc_n(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\\\x%02x", c);  /* shown as \xNN */
	}
}

void
dot_esc(FILE *f, const char *s)
{
	dot_esc_n(f, s ? s : "?", s ? strlen(s) : 1);
}

void
dot_vdev(FILE *f, const VDev *vd)
{
	fputc('@', f);
	dot_esc(f, vd->dev);
	if (vd->scope) {
		fputc(':', f);
		dot_esc(f, vd->scope);
	}
}

void
dot_type(FILE *f, const Type *t)
{
	char buf[160];
	if (t)
		dot_esc(f, type_text(t, buf, sizeof buf));
	else
		fputs("?", f);
}

/* One attribute value; lists one level deep (a nested list is "[...]"),
 * strings cut at 40 bytes: a label, not a dump. */
static void
attr_val(FILE *f, const Attr *a, bool top)
{
	switch (a->kind) {
	case AT_INT: fprintf(f, "%" PRId64, a->u.i); break;
	case AT_BOOL: fputs(a->u.i ? "true" : "false", f); break;
	case AT_FLOAT: ir_print_double(f, a->u.f); break;
	case AT_SYM: fputc('@', f); dot_esc(f, a->u.sym); break;
	case AT_STR:
		fputs("\\\"", f);
		dot_esc_n(f, a->u.s, a->n < 40 ? a->n : 40);
		fputs(a->n > 40 ? "...\\\"" : "\\\"", f);
		break;
	case AT_LIST:
		if (!top) {
			fputs("[...]", f);
			break;
		}
		fputc('[', f);
		for (uint32_t i = 0; i < a->n && i < 8; i++) {
			if (i)
				fputc(',', f);
			attr_val(f, &a->u.list[i], false);
		}
		fputs(a->n > 8 ? ",...]" : "]", f);
		break;
	}
}

static void
dot_attrs(FILE *f, const AttrMap *am)
{
	for (uint32_t i = 0; am && i < am->n; i++) {
		fputs(i ? ", " : "\\n", f);
		dot_esc(f, am->e[i].key);
		fputc('=', f);
		attr_val(f, &am->e[i].val, true);
	}
}

/* ------------------------------------------------------------- groups */

/* The cluster of a placement: 0 none, 1 + the device's index. */
uint32_t
dot_group_of(const Dot *d, const VDev *vd)
{
	if (!vd)
		return 0;
	for (uint32_t i = 0; i < d->ndevs; i++)
		if (d->devs[i] == vd->dev)
			return i + 1;
	return 0;
}

/* device_copy nodes stand between the device clusters, in none. */
uint32_t
dot_value_group(const Dot *d, const Value *v)
{
	if (v->kind == VK_BIND && v->form == B_DEVICE_COPY)
		return 0;
	return dot_group_of(d, v->vd);
}

/* A node number (+1) for the next node, or 0 once --max-nodes is spent. */
uint32_t
dot_take(Dot *d)
{
	if (d->o->max_nodes && d->next >= d->o->max_nodes) {
		d->folded++;
		return 0;
	}
	return ++d->next;
}

/* ------------------------------------------------------------- prims */

static int
pk_cmp(const void *a, const void *b)
{
	const struct PrimKernels *x = a, *y = b;
	return x->p < y->p ? -1 : x->p > y->p;
}

/* Each prim's kernel names ("@k0, @k1"), for the call_lowered labels. */
static void
collect_kernels(Dot *d)
{
	for (const Prim *p = d->m->prims; p; p = p->next)
		d->npk++;
	d->pk = xcalloc(d->npk ? d->npk : 1, sizeof *d->pk);
	size_t i = 0;
	for (const Prim *p = d->m->prims; p; p = p->next, i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&buf, &len);
		if (!s)
			die_oom();
		PrimWalk w;
		pwalk_start(&w, &p->body);
		uint32_t k = 0;
		for (PStmt *st; (st = pwalk_next_stmt(&w));) {
			if (st->kind != S_KERNEL)
				continue;
			if (k < 6) {
				fputs(k ? ", @" : "@", s);
				dot_esc(s, st->u.kernel.name);
			}
			k++;
		}
		if (k > 6)
			fprintf(s, " and %" PRIu32 " more", k - 6);
		if (fclose(s) != 0)
			die_oom();
		d->pk[i] = (struct PrimKernels){p, buf, (uint32_t)i, 0};
	}
	qsort(d->pk, d->npk, sizeof *d->pk, pk_cmp);
}

static struct PrimKernels *
prim_entry(const Dot *d, const Prim *p)
{
	struct PrimKernels key = {p, NULL, 0, 0};
	return p ? bsearch(&key, d->pk, d->npk, sizeof *d->pk, pk_cmp) : NULL;
}

static const char *
kernels_of(const Dot *d, const Prim *p)
{
	struct PrimKernels *hit = prim_entry(d, p);
	return hit ? hit->names : "";
}

/* ------------------------------------------------------------- nodes */

void
dot_node_start(Dot *d, uint32_t id)
{
	fprintf(d->f, "    n%" PRIu32 " [label=\"", id - 1);
}

static void
dot_placement(FILE *f, const VDev *vd)
{
	if (!vd)
		return;
	fputs("\\non ", f);
	dot_vdev(f, vd);
}

/* "\nin @pool[OFFSET], image2d(ID)[W, H]": where ir-plan-memory put
 * node's buffers, as ir(5) writes it; at most 8 (a tuple's fields), then
 * how many more. */
static void
dot_places(FILE *f, const Module *m, const void *node)
{
	const PlaceList *l = m->places ? module_places(m, node) : NULL;
	if (!l || !l->n)
		return;
	fputs("\\nin ", f);
	for (uint32_t i = 0; i < l->n && i < 8; i++) {
		const Place *p = &l->p[i];
		if (i)
			fputs(", ", f);
		if (p->pool) {
			fputc('@', f);
			dot_esc(f, p->pool);
			fprintf(f, "[%" PRId64 "]", p->offset);
		} else {
			fprintf(f, "image2d(%" PRId64 ")[%" PRId64 ", %" PRId64 "]", p->offset,
			        p->image[0], p->image[1]);
		}
	}
	if (l->n > 8)
		fprintf(f, " and %" PRIu32 " more", l->n - 8);
}

void
dot_param_node(Dot *d, const Value *p, uint32_t i, uint32_t id)
{
	FILE *f = d->f;
	dot_node_start(d, id);
	fputc('%', f);
	dot_esc(f, p->name);
	fprintf(f, "\\nparameter %" PRIu32 "\\n", i);
	dot_type(f, p->type);
	dot_placement(f, p->vd);
	dot_places(f, d->m, p);
	fputs("\", shape=invhouse, style=\"filled\", fillcolor=\"#ffffff\"];\n", f);
}

void
dot_result_node(Dot *d, const Func *fn, uint32_t id)
{
	FILE *f = d->f;
	dot_node_start(d, id);
	fputs("result\\n", f);
	dot_type(f, fn->ret_type);
	dot_placement(f, fn->ret_vd);
	fputs("\", shape=house, style=\"filled\", fillcolor=\"#ffffff\"];\n", f);
}

void
dot_bind_node(Dot *d, const Value *v, uint32_t id)
{
	FILE *f = d->f;
	const char *shape = "box", *style = "filled", *extra = "";
	dot_node_start(d, id);
	fputc('%', f);
	dot_esc(f, v->name);
	fputs(" = ", f);
	switch (v->form) {
	case B_OP:
		dot_esc(f, v->u.op->op ? v->u.op->op->name : "?");
		dot_attrs(f, v->u.op->attrs);
		break;
	case B_CALL:
		fputc('@', f);
		dot_esc(f, v->u.callee ? v->u.callee->name : "?");
		shape = "box3d";
		break;
	case B_CALL_LOWERED: {
		fputs("call_lowered @", f);
		dot_esc(f, v->u.prim ? v->u.prim->name : "?");
		const char *k = v->u.prim ? kernels_of(d, v->u.prim) : "";
		if (*k)
			fprintf(f, "\\nkernels: %s", k);  /* escaped when collected */
		shape = "component";
		break;
	}
	case B_ON_DEVICE:
		fputs("on_device -> ", f);
		dot_vdev(f, v->u.target);
		if (!(v->flags & VF_BODY))
			fputs("\\nconstrain_body=false", f);
		if (v->flags & VF_RESULT)
			fputs("\\nconstrain_result=true", f);
		shape = "note";
		style = "filled,dashed";
		break;
	case B_DEVICE_COPY: {
		const VDev *s = v->u.copy->src, *t = v->u.copy->dst;
		fputs("device_copy\\n", f);
		dot_vdev(f, s);
		fputs(" -> ", f);
		dot_vdev(f, t);
		if (v->type && v->type->kind == TY_TENSOR)
			fprintf(f, "\\n%" PRId64 " bytes", type_bytes(v->type));
		/* Between devices red, between scopes of one device orange.  A
		 * box, which Graphviz draws round the box it sized for the
		 * label: its cds arrow is drawn 6pt inside that box at the top
		 * and bottom, and narrows to its tip at the right, so a label
		 * of several lines spilled over it. */
		extra = s->dev != t->dev ? ", color=\"#c0392b\", penwidth=3, fontname=\"Helvetica-Bold\""
		                         : ", color=\"#e67e22\", penwidth=3, fontname=\"Helvetica-Bold\"";
		style = "filled,bold";
		break;
	}
	case B_TUPLE: fputs("tuple", f); break;
	case B_PROJ: fprintf(f, "field %" PRIu32, v->u.index); break;
	case B_CONST:
		fputs("const", f);
		if ((v->flags & VF_CONST_FILE) && v->u.cdata && v->u.cdata->path) {
			fputc(' ', f);
			dot_esc(f, v->u.cdata->path);
		}
		break;
	case B_IF: fputs("if", f); shape = "diamond"; break;
	}
	fputs("\\n", f);
	dot_type(f, v->type);
	dot_placement(f, v->vd);
	dot_places(f, d->m, v);
	fprintf(f, "\", shape=%s, style=\"%s\", fillcolor=\"#ffffff\"%s];\n", shape, style, extra);
}

/* --------------------------------------------------------- functions */

/* Fill colours of the device clusters, by declaration order. */
static const char *const palette[] = {
	"#dbe9f6", "#e3f1dc", "#fbe5d0", "#ece1f3", "#f9f3c9", "#d9f0ee", "#f6dada", "#e6e6e6",
};
#define NPALETTE (sizeof palette / sizeof *palette)

void
dot_device_cluster(Dot *d, uint32_t fi, uint32_t g)
{
	FILE *f = d->f;
	fprintf(f, "    subgraph cluster_f%" PRIu32 "_d%" PRIu32 " {\n      label=\"@", fi, g - 1);
	dot_esc(f, d->devs[g - 1]);
	fprintf(f, "\";\n      style=\"filled,rounded\";\n      fillcolor=\"%s\";\n",
	        palette[(g - 1) % NPALETTE]);
}

/* Numbers fn's parameters, bindings and result; counts per group.
 * Returns the result's node number (+1, 0 when folded). */
static uint32_t
number_func(Dot *d, const Func *fn, uint32_t *count)
{
	for (uint32_t i = 0; i < fn->nparams; i++) {
		Value *p = fn->params[i];
		if ((p->scratch = dot_take(d)))
			count[dot_value_group(d, p)]++;
	}
	FuncWalk w;
	fwalk_start(&w, fn);
	Block *blk;
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		if ((v->scratch = dot_take(d)))
			count[dot_value_group(d, v)]++;
	uint32_t r = dot_take(d);
	if (r)
		count[dot_group_of(d, fn->ret_vd)]++;
	return r;
}

static void
group_nodes(Dot *d, const Func *fn, uint32_t g, uint32_t result)
{
	for (uint32_t i = 0; i < fn->nparams; i++)
		if (fn->params[i]->scratch && dot_value_group(d, fn->params[i]) == g)
			dot_param_node(d, fn->params[i], i, fn->params[i]->scratch);
	FuncWalk w;
	fwalk_start(&w, fn);
	Block *blk;
	for (Value *v; (v = fwalk_next_binding(&w, &blk));)
		if (v->scratch && dot_value_group(d, v) == g)
			dot_bind_node(d, v, v->scratch);
	if (result && dot_group_of(d, fn->ret_vd) == g)
		dot_result_node(d, fn, result);
}

void
dot_edge(Dot *d, uint32_t from, uint32_t to, const char *label)
{
	if (!from || !to)
		return;
	fprintf(d->f, "  n%" PRIu32 " -> n%" PRIu32, from - 1, to - 1);
	if (label)
		fprintf(d->f, " [label=\"%s\"]", label);
	fputs(";\n", d->f);
}

static uint32_t
id_of(const Value *v)
{
	return v && v->kind != VK_LIT ? v->scratch : 0;
}

static void
func_edges(Dot *d, const Func *fn, uint32_t result)
{
	FuncWalk w;
	fwalk_start(&w, fn);
	Block *blk;
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		for (uint32_t i = 0; i < v->nargs; i++)
			dot_edge(d, id_of(v->args[i]), v->scratch, NULL);
		if (v->form == B_IF) {
			dot_edge(d, id_of(v->u.arms[0].yield), v->scratch, "then");
			dot_edge(d, id_of(v->u.arms[1].yield), v->scratch, "else");
		}
	}
	dot_edge(d, id_of(fn->body.yield), result, NULL);
}

static void
func(Dot *d, const Func *fn, uint32_t fi)
{
	FILE *f = d->f;
	uint32_t *count = xcalloc(d->ndevs + 1, sizeof *count);
	uint32_t result = number_func(d, fn, count);
	fprintf(f, "  subgraph cluster_f%" PRIu32 " {\n    label=\"fn @", fi);
	dot_esc(f, fn->name);
	fputs("\";\n    style=\"rounded\";\n", f);
	group_nodes(d, fn, 0, result);
	for (uint32_t g = 1; g <= d->ndevs; g++) {
		if (!count[g])
			continue;
		dot_device_cluster(d, fi, g);
		group_nodes(d, fn, g, result);
		fputs("    }\n", f);
	}
	fputs("  }\n", f);
	func_edges(d, fn, result);
	free(count);
}

/* ------------------------------------------------------ prim clusters */

/* Loads in e, recursively: expression depth is capped by the parser
 * (IR_MAX_EXPR_DEPTH). */
static void
expr_loads(const PExpr *e, PtrVec *out)
{
	if (!e)
		return;
	switch (e->kind) {
	case E_LOAD:
		ptrvec_push(out, e->u.load.buf);
		for (uint32_t i = 0; i < e->n; i++)
			expr_loads(e->u.load.idx[i].e, out);
		break;
	case E_TEX_LOAD:
		ptrvec_push(out, e->u.tex.buf);
		expr_loads(e->u.tex.x, out);
		expr_loads(e->u.tex.y, out);
		break;
	case E_BIN: case E_UN: case E_SELECT:
		expr_loads(e->u.ops.a, out);
		expr_loads(e->u.ops.b, out);
		expr_loads(e->u.ops.c, out);
		break;
	case E_CAST: case E_BROADCAST:
		expr_loads(e->u.cast.a, out);
		break;
	case E_CALL:
		for (uint32_t i = 0; i < e->n; i++)
			expr_loads(e->u.call.args[i], out);
		break;
	default:
		break;
	}
}

/* The buffers s reads (into rd) and writes (into wr). */
static void
stmt_access(const PStmt *s, PtrVec *rd, PtrVec *wr)
{
	switch (s->kind) {
	case S_FOR:
		expr_loads(s->u.loop.lo, rd);
		expr_loads(s->u.loop.hi, rd);
		break;
	case S_IF: expr_loads(s->u.cond.cond, rd); break;
	case S_LET: expr_loads(s->u.let.val, rd); break;
	case S_STORE:
		ptrvec_push(wr, s->u.store.buf);
		for (uint32_t i = 0; i < s->n; i++)
			expr_loads(s->u.store.idx[i].e, rd);
		expr_loads(s->u.store.val, rd);
		break;
	case S_TEX_STORE:
		ptrvec_push(wr, s->u.tex.buf);
		expr_loads(s->u.tex.x, rd);
		expr_loads(s->u.tex.y, rd);
		expr_loads(s->u.tex.val, rd);
		break;
	case S_EVAL: expr_loads(s->u.eval, rd); break;
	default: break;
	}
}

static void
buffer_node(Dot *d, const PVar *v, const char *what, uint32_t id)
{
	FILE *f = d->f;
	dot_node_start(d, id);
	fputc('%', f);
	dot_esc(f, v->name);
	fprintf(f, "\\n%s\\n", what);
	dot_type(f, v->type);
	if (v->vd) {
		fputc(' ', f);
		dot_vdev(f, v->vd);
	}
	dot_attrs(f, &v->annots);  /* candidate_pools and the like */
	dot_places(f, d->m, v);
	fputs("\", shape=cylinder, style=\"filled\", fillcolor=\"#ffffff\"];\n", f);
}

/* Edges between a kernel or the statements outside kernels (node k,
 * stamp kn) and the buffers it touches, once each way: a buffer's scratch
 * is its index in node[] + 1 (0: folded), and seen[] holds per buffer
 * the stamp of the last reader (even) and writer (odd) edge drawn. */
static void
access_edges(Dot *d, uint32_t k, uint32_t kn, PtrVec *rd, PtrVec *wr, uint32_t *seen,
             const uint32_t *node)
{
	for (int dir = 0; dir < 2; dir++) {
		PtrVec *pv = dir ? wr : rd;
		for (size_t i = 0; i < pv->n; i++) {
			PVar *b = pv->v[i];
			if (b->kind != PV_BUFFER || !b->scratch)
				continue;
			uint32_t *sn = &seen[2 * (b->scratch - 1) + (size_t)dir];
			if (*sn == kn)
				continue;
			*sn = kn;
			uint32_t bn = node[b->scratch - 1];
			if (dir)
				dot_edge(d, k, bn, NULL);
			else
				dot_edge(d, bn, k, NULL);
		}
		pv->n = 0;
	}
}

static void
prim(Dot *d, const Prim *p, uint32_t pi, uint32_t *anchor)
{
	FILE *f = d->f;
	fprintf(f, "  subgraph cluster_p%" PRIu32 " {\n    label=\"prim @", pi);
	dot_esc(f, p->name);
	fputs("\";\n    style=\"filled,rounded\";\n    fillcolor=\"#f4f4f4\";\n", f);
	/* Buffers first: parameters, then allocs in program order.  A
	 * buffer's scratch: its index in node[] + 1, or 0 when not drawn. */
	uint32_t *node = NULL;
	size_t nb = 0, cap = 0;
	for (uint32_t i = 0; i < p->nparams; i++) {
		PVar *v = p->params[i];
		v->scratch = 0;
		if (v->kind != PV_BUFFER)
			continue;
		uint32_t id = dot_take(d);
		if (!id)
			continue;
		VEC_PUSH(node, nb, cap) = id;
		v->scratch = nb;
		buffer_node(d, v, "parameter", id);
	}
	PrimWalk w;
	pwalk_start(&w, &p->body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		if (s->kind != S_ALLOC)
			continue;
		PVar *v = s->u.alloc.buf;
		v->scratch = 0;
		uint32_t id = dot_take(d);
		if (!id)
			continue;
		VEC_PUSH(node, nb, cap) = id;
		v->scratch = nb;
		buffer_node(d, v, "alloc", id);
	}
	/* Kernel nodes, and the edges of what each touches. */
	PtrVec rd = {0}, wr = {0};
	uint32_t *seen = xcalloc(2 * nb + 2, sizeof *seen);
	const PStmt *kstmt = NULL;
	uint32_t kernel = 0, kn = 1, body = 0;
	PWalkStep st;
	pwalk_start(&w, &p->body);
	while (pwalk_next(&w, &st)) {
		if (st.ev == PW_BLOCK_END) {
			if (kstmt && st.s == kstmt)
				kstmt = NULL;
			continue;
		}
		PStmt *s = st.s;
		if (s->kind == S_KERNEL && !kstmt) {
			kstmt = s;
			kn++;
			if ((kernel = dot_take(d))) {
				dot_node_start(d, kernel);
				fputs("kernel @", f);
				dot_esc(f, s->u.kernel.name);
				fputs("\", shape=component, style=\"filled\", fillcolor=\"#fff3c4\"];\n", f);
			}
			continue;
		}
		stmt_access(s, &rd, &wr);
		if (!rd.n && !wr.n)
			continue;
		uint32_t at = kernel;
		if (!kstmt) {
			/* Work outside any kernel (a prim before codegen): one node. */
			if (!body && (body = dot_take(d))) {
				dot_node_start(d, body);
				fputs("statements outside kernels\", shape=box, style=\"filled,dashed\", "
				      "fillcolor=\"#ffffff\"];\n", f);
			}
			at = body;
		}
		if (at)
			access_edges(d, at, kstmt ? kn : 1, &rd, &wr, seen, node);
		rd.n = wr.n = 0;
	}
	fputs("  }\n", f);
	/* Calls point at the first parameter buffer, which reads first and
	 * so sits at the top of the cluster; else at the first node. */
	*anchor = nb ? node[0] : kernel ? kernel : body;
	free(seen);
	free(node);
	ptrvec_free(&rd);
	ptrvec_free(&wr);
}

/* A dashed edge from each call_lowered to its prim's cluster (to the
 * cluster's anchor node, clipped at the cluster's border): it also ranks
 * each prim below its first call, where the eye looks for it. */
static void
call_edges(Dot *d, const Func *fn)
{
	FuncWalk w;
	fwalk_start(&w, fn);
	Block *blk;
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		if (v->form != B_CALL_LOWERED || !v->scratch)
			continue;
		const struct PrimKernels *e = prim_entry(d, v->u.prim);
		if (!e || !e->anchor)
			continue;
		fprintf(d->f, "  n%" PRIu32 " -> n%" PRIu32 " [lhead=cluster_p%" PRIu32
		        ", style=dashed, color=\"#808080\", arrowhead=empty];\n",
		        v->scratch - 1, e->anchor - 1, e->cluster);
	}
}

/* --------------------------------------------------------------- module */

bool
dot_write(Module *m, const DotOpts *o, FILE *out)
{
	Dot d = {.m = m, .o = o, .f = out};
	for (const Device *dv = m->devices; dv; dv = dv->next)
		d.ndevs++;
	d.devs = xcalloc(d.ndevs + 1, sizeof *d.devs);
	uint32_t i = 0;
	for (const Device *dv = m->devices; dv; dv = dv->next)
		d.devs[i++] = dv->name;
	collect_kernels(&d);
	fputs("// made by ir-dot from an irpipe module; render with: dot -Tsvg\n"
	      "digraph irpipe {\n"
	      "  graph [fontname=\"Helvetica\", compound=true, newrank=true];\n"
	      "  node [fontname=\"Helvetica\", fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9];\n", out);
	i = 0;
	for (const Func *fn = m->funcs; fn; fn = fn->next, i++)
		if (o->summary)
			dot_summary_func(&d, fn, i);
		else
			func(&d, fn, i);
	if (o->prims) {
		for (const Prim *p = m->prims; p; p = p->next)
			prim(&d, p, prim_entry(&d, p)->cluster, &prim_entry(&d, p)->anchor);
		for (const Func *fn = m->funcs; fn; fn = fn->next)
			call_edges(&d, fn);
	}
	if (d.folded)
		fprintf(out, "  folded [label=\"%" PRIu64 " more nodes not drawn (--max-nodes %" PRIu64
		        ")\", shape=note, style=\"filled\", fillcolor=\"#fff3c4\"];\n",
		        d.folded, o->max_nodes);
	fputs("}\n", out);
	for (size_t k = 0; k < d.npk; k++)
		free(d.pk[k].names);
	free(d.pk);
	free(d.devs);
	return fflush(out) == 0 && !ferror(out);
}
