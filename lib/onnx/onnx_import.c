/* onnx_import.c: the graph: its inputs become @main's parameters, its
 * initializers known values, its nodes (in their order, which ONNX makes
 * topological) bindings, its outputs @main's result; and --stats. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "onnx_impl.h"
#include "tensor/npy.h"

/* Opsets of the default domain we read: the operators' versions between
 * them are handled where they differ. */
#define OPSET_MIN 1
#define OPSET_MAX 17

struct OnnxModule {
	Imp im;
};

/* ------------------------------------------------------------ names */

static Name *
name_find(Imp *im, const char *s, bool add)
{
	MapProbe it;
	uint32_t h = map_hash(s, strlen(s));
	for (Name *e = map_first(&im->names, h, &it); e; e = map_next(&it))
		if (strcmp(e->name, s) == 0)
			return e;
	if (!add)
		return NULL;
	Name *e = xcalloc(1, sizeof *e);
	e->name = s;
	map_add(&im->names, h, e);
	return e;
}

Name *
onnx_name_get(Imp *im, const char *s)
{
	return s ? name_find(im, s, false) : NULL;
}

const Onnx__NodeProto *
onnx_sole_user(Imp *im, const char *s, size_t *index)
{
	Name *e = onnx_name_get(im, s);
	if (!e || e->uses != 1 || e->graph_output)
		return NULL;
	*index = e->user;
	return im->model->graph->node[e->user];
}

static bool
is_default_domain(const char *d)
{
	return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

/* ------------------------------------------------------------ --stats */

typedef struct {
	const char *op, *domain;
	size_t count;
	bool ok;
} OpCount;

static int
cmp_opcount(const void *a, const void *b)
{
	const OpCount *x = a, *y = b;
	int c = strcmp(x->domain, y->domain);
	return c ? c : strcmp(x->op, y->op);
}

/* "op types: Add 2 yes, Conv 1 yes, Foo 1 no" (domain-qualified outside
 * the default one), the line --stats prints and an unsupported operator's
 * error repeats. */
static char *
op_types_line(Imp *im)
{
	Onnx__GraphProto *g = im->model->graph;
	OpCount *oc = xcalloc(g->n_node + 1, sizeof *oc);
	size_t n = 0;
	Map seen = {0};
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *nd = g->node[i];
		const char *op = nd->op_type ? nd->op_type : "";
		const char *dom = is_default_domain(nd->domain) ? "" : nd->domain;
		uint32_t h = map_mix(map_hash(op, strlen(op)), map_hash(dom, strlen(dom)));
		MapProbe it;
		OpCount *e;
		for (e = map_first(&seen, h, &it); e; e = map_next(&it))
			if (strcmp(e->op, op) == 0 && strcmp(e->domain, dom) == 0)
				break;
		if (!e) {
			e = &oc[n++];
			e->op = op;
			e->domain = dom;
			e->ok = !*dom && onnx_op_lookup(op, im->opset) != NULL;
			map_add(&seen, h, e);
		}
		e->count++;
	}
	map_free(&seen);
	qsort(oc, n, sizeof *oc, cmp_opcount);
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die_oom();
	fprintf(f, "op types:");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s ", i ? "," : "");
		for (const char *p = oc[i].domain; *p; p++)
			fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
		if (*oc[i].domain)
			fputc(':', f);
		for (const char *p = oc[i].op; *p; p++)
			fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
		fprintf(f, " %zu %s", oc[i].count, oc[i].ok ? "yes" : "no");
	}
	if (!n)
		fprintf(f, " none");
	fclose(f);
	free(oc);
	return buf;
}

/* ------------------------------------------------------------ inputs */

static const char *
shown_name(const char *s)
{
	return s ? s : "";
}

/* The parameter of graph input vi, or NULL after reporting. */
static Val *
graph_input(Imp *im, const Onnx__ValueInfoProto *vi)
{
	const char *name = shown_name(vi->name);
	const Onnx__TypeProto *tp = vi->type;
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
		return onnx_fail(im, "input '%s' is not a tensor", name);
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	ElemKind k;
	int32_t et = tt->has_elem_type ? tt->elem_type : 0;
	if (!onnx_elem(et, &k))
		return onnx_fail(im, "input '%s' has element type %s, which the IR does not have", name,
		                 onnx_type_name(et));
	OnnxShape *fix = NULL;
	for (size_t i = 0; i < im->o->nshapes; i++)
		if (strcmp(im->o->shapes[i].name, name) == 0)
			fix = &im->o->shapes[i];
	int64_t dims[MAX_RANK];
	uint32_t rank;
	const Onnx__TensorShapeProto *sh = tt->shape;
	if (fix) {
		fix->used = true;
		if (sh && sh->n_dim != fix->rank)
			return onnx_fail(im, "--shape gives input '%s' rank %u, the model rank %zu", name,
			                 fix->rank, sh->n_dim);
		for (uint32_t i = 0; sh && i < fix->rank; i++) {
			const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
			if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
			    d->dim_value != fix->dims[i])
				return onnx_fail(im, "--shape gives input '%s' size %lld on axis %u, the model "
				                 "%lld", name, (long long)fix->dims[i], i,
				                 (long long)d->dim_value);
		}
		rank = fix->rank;
		memcpy(dims, fix->dims, rank * sizeof *dims);
	} else {
		if (!sh)
			return onnx_fail(im, "input '%s' has no shape; give one with --shape %s=D,D,...",
			                 name, name);
		if (sh->n_dim > MAX_RANK)
			return onnx_fail(im, "input '%s' has rank %zu, more than %d", name, sh->n_dim,
			                 MAX_RANK);
		rank = (uint32_t)sh->n_dim;
		for (uint32_t i = 0; i < rank; i++) {
			const Onnx__TensorShapeProto__Dimension *d = sh->dim[i];
			if (d->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
				const char *p = d->value_case ==
				                ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
				                d->dim_param ? d->dim_param : "";
				return onnx_fail(im, "input '%s' has a dynamic dimension %u%s%s%s; fix its "
				                 "shape with --shape %s=D,D,...", name, i, *p ? " ('" : "",
				                 p, *p ? "')" : "", name);
			}
			if (d->dim_value < 0 || d->dim_value > ((int64_t)1 << 40))
				return onnx_fail(im, "input '%s' has dimension %u of size %lld", name, i,
				                 (long long)d->dim_value);
			dims[i] = d->dim_value;
		}
	}
	if (onnx_shape_numel(rank, dims) > MAX_NUMEL)
		return onnx_fail(im, "input '%s' has more than 2^48 elements", name);
	return onnx_param(im, name, k, rank, dims);
}

/* ------------------------------------------------------------ nodes */

/* Binds the ONNX name e to v, which then lives as long as e is read. */
static void
bind(Name *e, Val *v)
{
	e->val = v;
	size_t until = e->graph_output ? SIZE_MAX : e->uses ? e->user : 0;
	if (until > v->live_until)
		v->live_until = until;
}

/* Reports n's operator as one the import does not map: at all, or not at
 * the model's opset (its form there differs from the one mapped). */
static void
unsupported(Imp *im, const Onnx__NodeProto *n)
{
	bool dflt = is_default_domain(n->domain);
	int since = dflt ? onnx_op_since(n->op_type) : -1;
	if (since > im->opset)
		onnx_fail(im, "operator %s is supported from opset %d (its older form differs)",
		          n->op_type, since);
	else
		onnx_fail(im, "operator %s%s%s is not supported", dflt ? "" : n->domain, dflt ? "" : ":",
		          n->op_type ? n->op_type : "");
}

/* After node idx, the data known at import that no later node reads and
 * the module does not name (a weight folded into another: transposed,
 * reshaped, a BatchNormalization absorbed) is freed, so the weights are
 * not held twice until the end. */
static void
release_dead(Imp *im, size_t idx)
{
	const Onnx__NodeProto *n = im->model->graph->node[idx];
	for (size_t i = 0; i < n->n_input; i++) {
		Name *e = n->input[i] && *n->input[i] ? onnx_name_get(im, n->input[i]) : NULL;
		Val *v = e ? e->val : NULL;
		if (v && v->k && !v->ir && v->live_until <= idx) {
			tensor_free(v->k);
			v->k = NULL;
		}
	}
}

static bool
map_node(Imp *im, size_t idx)
{
	const Onnx__NodeProto *n = im->model->graph->node[idx];
	im->node = n;
	im->node_index = idx;
	if (im->absorbed[idx]) {
		/* folded into an earlier node, which computed its output */
		Name *e = n->n_output && n->output[0] ? onnx_name_get(im, n->output[0]) : NULL;
		if (e)
			bind(e, im->absorbed[idx]);
		return true;
	}
	const OpMap *m = is_default_domain(n->domain) ? onnx_op_lookup(n->op_type, im->opset) : NULL;
	if (!m)
		return unsupported(im, n), false;
	im->op = m;
	if (im->opset < 7 && !onnx_legacy_ok(im, n))
		return false;
	if (n->n_input > 4096 || n->n_output > 65536)
		return onnx_fail(im, "too many inputs or outputs"), false;
	Val **in = xcalloc(n->n_input + 1, sizeof *in);
	Val **out = xcalloc(n->n_output + 1, sizeof *out);
	bool ok = true;
	for (size_t i = 0; i < n->n_input && ok; i++) {
		if (!n->input[i] || !*n->input[i])
			continue;   /* an optional input left out */
		Name *e = onnx_name_get(im, n->input[i]);
		if (!e || !e->val)
			ok = onnx_fail(im, "its input '%s' is not computed before it", n->input[i]) != NULL;
		else
			in[i] = e->val;
	}
	if (ok && (n->n_input < (size_t)m->min_in || (m->min_in > 0 && !in[0])))
		ok = onnx_fail(im, "needs %d inputs, %zu given", m->min_in, n->n_input) != NULL;
	for (int i = 0; ok && i < m->min_in; i++)
		if (!in[i])
			ok = onnx_fail(im, "input %d is missing", i) != NULL;
	if (ok && n->n_output == 0)
		ok = onnx_fail(im, "has no output") != NULL;
	if (ok)
		ok = m->map(im, n, in, n->n_input, out, n->n_output) && !im->too_large;
	for (size_t i = 0; ok && i < n->n_output; i++) {
		if (!n->output[i] || !*n->output[i])
			continue;
		Name *e = onnx_name_get(im, n->output[i]);
		if (!out[i])
			ok = onnx_fail(im, "output %zu is not supported", i) != NULL;
		else if (e->val)
			ok = onnx_fail(im, "output '%s' is computed twice", n->output[i]) != NULL;
		else
			bind(e, out[i]);
		if (ok && !out[i]->onnx)
			out[i]->onnx = n->output[i];
	}
	free(in);
	free(out);
	return ok;
}

/* ------------------------------------------------------------ import */

static bool
find_opset(Imp *im)
{
	bool found = false;
	for (size_t i = 0; i < im->model->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = im->model->opset_import[i];
		if (is_default_domain(o->domain) && o->has_version) {
			im->opset = o->version;
			found = true;
		}
	}
	if (!found)
		return onnx_fail(im, "the model imports no opset of the default domain"), false;
	if (im->opset < OPSET_MIN || im->opset > OPSET_MAX)
		return onnx_fail(im, "opset %lld is not supported (%d to %d are)", (long long)im->opset,
		                 OPSET_MIN, OPSET_MAX), false;
	return true;
}

/* Counts the uses of every name; false if a node's output is named twice. */
static bool
index_names(Imp *im)
{
	Onnx__GraphProto *g = im->model->graph;
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name)
			name_find(im, g->initializer[i]->name, true);
	for (size_t i = 0; i < g->n_input; i++)
		if (g->input[i]->name)
			name_find(im, g->input[i]->name, true);
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		for (size_t j = 0; j < n->n_input; j++)
			if (n->input[j] && *n->input[j]) {
				Name *e = name_find(im, n->input[j], true);
				if (!e->uses)
					e->first_user = i;
				e->uses++;
				e->user = i;
			}
		for (size_t j = 0; j < n->n_output; j++)
			if (n->output[j] && *n->output[j])
				name_find(im, n->output[j], true)->producer = i + 1;
	}
	for (size_t i = 0; i < g->n_output; i++) {
		if (!g->output[i]->name)
			continue;
		Name *e = name_find(im, g->output[i]->name, true);
		e->uses++;
		e->graph_output = true;
	}
	return true;
}

/* The model's unpacked messages, its opset and its names indexed; with
 * --stats the opset and the op types; an unsupported operator is
 * reported first, before any other node's problem, with the line that
 * lists them all.  False after reporting. */
static bool
read_model(Imp *im, const uint8_t *buf, size_t len)
{
	if (!(im->model = onnx_unpack(im, buf, len)))
		return false;
	Onnx__GraphProto *g = im->model->graph;
	if (!g)
		return onnx_fail(im, "the model has no graph"), false;
	if (!find_opset(im))
		return false;
	index_names(im);
	char *ops = op_types_line(im);
	if (im->o->stats)
		fprintf(im->o->stats, "%s: opset %lld, %zu nodes\n%s\n", im->path,
		        (long long)im->opset, g->n_node, ops);
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		if (!is_default_domain(n->domain) || !onnx_op_lookup(n->op_type, im->opset)) {
			im->node = n;
			im->node_index = i;
			unsupported(im, n);
			note_at(im->diag, (Loc){0}, "%s", ops);
			free(ops);
			return false;
		}
	}
	free(ops);
	im->node = NULL;
	return true;
}

/* Every initializer becomes a value known at import. */
static bool
bind_initializers(Imp *im)
{
	Onnx__GraphProto *g = im->model->graph;
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *tp = g->initializer[i];
		char what[160];
		snprintf(what, sizeof what, "initializer '%.100s'", shown_name(tp->name));
		Tensor *t = onnx_tensor(im, tp, what);
		if (!t)
			return false;
		Name *e = name_find(im, shown_name(tp->name), true);
		if (e->val)
			return onnx_fail(im, "initializer '%s' is given twice", shown_name(tp->name)),
			       false;
		bind(e, onnx_val_known(im, shown_name(tp->name), t));
		e->val->onnx = e->name;
	}
	return true;
}

/* The parameters: the inputs that no initializer gives a value; and
 * every --shape names one of them. */
static bool
bind_inputs(Imp *im)
{
	Onnx__GraphProto *g = im->model->graph;
	FILE *st = im->o->stats;
	for (size_t i = 0; i < g->n_input; i++) {
		Name *e = name_find(im, shown_name(g->input[i]->name), true);
		if (e->val && e->val->k)
			continue;
		if (e->val)
			return onnx_fail(im, "input '%s' is given twice", e->name), false;
		Val *v = graph_input(im, g->input[i]);
		if (!v)
			return false;
		bind(e, v);
		v->onnx = e->name;
		if (st) {
			char ty[1024];
			fprintf(st, "input '%s' -> %s: %s\n", e->name, v->ir,
			        onnx_type_str(v->kind, v->rank, v->dims, ty, sizeof ty));
		}
	}
	for (size_t i = 0; i < im->o->nshapes; i++)
		if (!im->o->shapes[i].used)
			return onnx_fail(im, "--shape names '%s', which is not an input of the graph",
			                 im->o->shapes[i].name), false;
	return true;
}

/* The nodes, in order (ONNX makes it topological). */
static bool
map_nodes(Imp *im)
{
	Onnx__GraphProto *g = im->model->graph;
	im->absorbed = xcalloc(g->n_node + 1, sizeof *im->absorbed);
	bool ok = true;
	for (size_t i = 0; i < g->n_node && ok; i++) {
		ok = map_node(im, i);
		if (ok)
			release_dead(im, i);
	}
	im->node = NULL;
	return ok && !im->too_large;
}

/* @main's result: the graph's output, or a tuple of its outputs. */
static bool
build_result(Imp *im)
{
	Onnx__GraphProto *g = im->model->graph;
	if (g->n_output == 0)
		return onnx_fail(im, "the graph has no output"), false;
	Value **res = xcalloc(g->n_output + 1, sizeof *res);
	for (size_t i = 0; i < g->n_output; i++) {
		const char *nm = shown_name(g->output[i]->name);
		Name *e = onnx_name_get(im, nm);
		if (!e || !e->val) {
			free(res);
			return onnx_fail(im, "graph output '%s' is not computed by any node", nm), false;
		}
		res[i] = onnx_ref(im, e->val);
		if (im->o->stats)
			fprintf(im->o->stats, "output '%s' -> %s\n", nm, e->val->ir);
	}
	gb_return(&im->b, g->n_output > 1 ? onnx_tuple(im, "outputs", (uint32_t)g->n_output, res)
	                                  : res[0]);
	free(res);
	return true;
}

/* --stats: how many constants are inline, how many in files. */
static void
print_constant_stats(Imp *im, FILE *st)
{
	size_t inl = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < im->nfiles; i++)
		bytes += (uint64_t)im->files[i].t->numel * elem_size(im->files[i].t->kind);
	for (size_t i = 0; i < im->vals.n; i++) {
		const Val *v = im->vals.v[i];
		inl += v->k && v->ir;
	}
	fprintf(st, "constants: %zu inline, %zu in .npy files (%llu bytes)\n",
	        inl - im->nfiles, im->nfiles, (unsigned long long)bytes);
}

/* The module: the --device declarations (checked by the tool), or the
 * default device, and an empty @main to build; false after reporting. */
static bool
start_module(Imp *im)
{
	const OnnxOpts *o = im->o;
	char *head;
	size_t hl;
	FILE *h = open_memstream(&head, &hl);
	if (!h)
		die_oom();
	for (size_t i = 0; i < o->ndevices; i++)
		fprintf(h, "%s\n", o->devices[i]);
	if (!o->ndevices)
		fprintf(h, "device @cpu = cpu(0)\n");
	if (fclose(h) != 0)
		die_oom();
	im->mctx = ctx_new(im->path);
	im->mctx->capture = true;
	uint16_t f = src_add(im->mctx, "--device", head, hl);
	im->m = ir_parse(im->mctx, f, 0, hl);
	if (!im->m)
		im->m = module_new(im->mctx);   /* (the tool checked them) */
	if (!gb_func(&im->b, im->m, "main"))
		return onnx_fail(im, "a --device declaration is named @main, the name of the "
		                 "module's function"), false;
	return true;
}

/* The module built verifies (else an internal error: the import's shapes
 * and the type rules disagree). */
static bool
check_module(Imp *im)
{
	if (!im->mistyped && !im->b.bad && verify_module(im->m, true))
		return true;
	onnx_fail(im, "internal: the module made of it does not verify");
	for (size_t i = 0; i < im->mctx->ncaptured; i++)
		note_at(im->diag, (Loc){0}, "%s", im->mctx->captured[i].msg);
	if (im->mistyped)
		note_at(im->diag, (Loc){0}, "%u bindings have another type than the import computed",
		        im->mistyped);
	return false;
}

static bool
run(Imp *im, const uint8_t *buf, size_t len)
{
	if (!read_model(im, buf, len) || !start_module(im))
		return false;
	bool ok = bind_initializers(im) && bind_inputs(im) && map_nodes(im) && build_result(im);
	gb_done(&im->b);
	if (ok && im->o->stats)
		print_constant_stats(im, im->o->stats);
	return ok && check_module(im);
}

OnnxModule *
onnx_import(const uint8_t *buf, size_t len, const OnnxOpts *o)
{
	OnnxModule *om = xcalloc(1, sizeof *om);
	Imp *im = &om->im;
	im->o = o;
	im->path = o->path ? o->path : "<stdin>";
	/* its messages have no line: they are "MODEL: error: ..." */
	im->diag = ctx_new(im->path);
	im->diag->max_errors = 0;   /* an import stops at its first error anyway */
	bool ok = run(im, buf, len);
	im->src = NULL; /* the caller's: the Tensors hold copies */
	if (!ok) {
		onnx_module_free(om);
		return NULL;
	}
	return om;
}

Module *
onnx_module_take(OnnxModule *om)
{
	Module *m = om->im.m;
	om->im.m = NULL;
	return m;
}

bool
onnx_stage_data(const OnnxModule *om, const char *dir, OutGroup *g, char *err, size_t errsz)
{
	const Imp *im = &om->im;
	for (size_t i = 0; i < im->nfiles; i++) {
		const DataFile *f = &im->files[i];
		size_t n = (dir ? strlen(dir) : 0) + strlen(f->file) + 2;
		char *path = xmalloc(n);
		if (dir && *dir)
			snprintf(path, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", f->file);
		else
			snprintf(path, n, "%s", f->file);
		bool ok = npy_stage(g, path, f->t, OUTFILE_NOFOLLOW, err, errsz);
		free(path);
		if (!ok)
			return false;
	}
	return true;
}

void
onnx_module_free(OnnxModule *om)
{
	if (!om)
		return;
	Imp *im = &om->im;
	for (size_t i = 0; i < im->vals.n; i++) {
		Val *v = im->vals.v[i];
		tensor_free(v->k);
		free(v->hint);
		free(v);
	}
	ptrvec_free(&im->vals);
	for (uint32_t i = 0; i < im->names.cap; i++)
		free(im->names.slot[i]);
	map_free(&im->names);
	map_free(&im->taken);
	map_free(&im->files_taken);
	for (size_t i = 0; i < im->strs.n; i++)
		free(im->strs.v[i]);
	ptrvec_free(&im->strs);
	for (size_t i = 0; i < im->nfiles; i++)
		free(im->files[i].file);
	free(im->files);
	free(im->absorbed);
	free(im->payloads);
	ctx_free(im->diag);
	module_free(im->m);
	ctx_free(im->mctx);
	if (im->model)
		onnx__model_proto__free_unpacked(im->model, NULL);
	free(om);
}
