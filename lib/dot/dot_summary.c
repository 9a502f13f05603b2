/* dot_summary.c: ir-dot --summary, a function drawn so that a model of
 * hundreds of operators reads at a glance (see ir-dot(1)).
 *
 * Three folds, over the bindings of the function's body in program order
 * (constants left out: they are the weights, one per operator; the
 * bindings in an if's arms are part of the if):
 *
 *   1. Blocks.  A binding is a cut when no edge jumps over it: every
 *      value defined before it is used at it or before.  The bindings
 *      after one cut up to the next are a block with one way in (the
 *      cut before it) and one way out (its last binding): a residual
 *      block, an inception block, or one operator of a plain chain.
 *   2. Repeats.  Consecutive blocks that are the same (bindings of the
 *      same forms and operators, operands at the same places, the same
 *      attributes and types but for channels) are drawn once, in a
 *      cluster labelled with how many times they repeat.
 *   3. Chains.  A binding whose one computed operand is used by it alone
 *      joins that operand's node: conv2d, bias_add and relu are one node
 *      listing the three.
 *
 * Each step is a sweep over the bindings, and two blocks are compared only
 * when adjacent, so the view is linear in the function's size; nothing
 * recurses (nested ifs are walked by walk.h).  Numbering is program order,
 * as in the full view. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dot/dot_draw.h"
#include "ops/ops.h"
#include "walk.h"

#define NONE UINT32_MAX

/* What an operand is: a literal, parameter or constant (a leaf: drawn
 * with its user, or not at all), or the index of a drawn binding. */
enum { REF_LIT = NONE - 3, REF_PARAM, REF_CONST };

/* A line of a chain's label: k of one operator in a row. */
typedef struct {
	const Value *v;
	uint32_t k;
} OpRun;

/* A repeat: count times the same period blocks, from block seg on. */
typedef struct {
	uint32_t seg, period, count;
	uint32_t group;    /* the device group of what is drawn, 0 if several */
} Run;

typedef struct {
	Dot *d;
	const Func *fn;
	uint32_t fi;
	/* The function's bindings but constants, in program order; a
	 * binding's scratch is its index + 1 (a binding in an if's arms: the
	 * if's), a constant's 0. */
	Value **b;
	uint32_t n;
	uint32_t *uses;    /* uses by other bindings and the return */
	uint32_t *reach;   /* the last binding using it (n: the return) */
	uint32_t *ncomp;   /* operands that are bindings (each time written) */
	uint32_t *src;     /* the last of them */
	/* Blocks: seg_start[k] .. seg_start[k + 1] - 1. */
	uint32_t *seg_start, nseg;
	Run *runs;
	uint32_t nruns;
	uint32_t *run;     /* per binding: its run + 1, 0: none */
	uint32_t *rep;     /* the binding drawn for it (itself, or its twin in the run's first block) */
	uint32_t *head;    /* the first binding of its chain */
	uint32_t *next;    /* the next binding of its chain, NONE at the end */
	uint32_t *node;    /* per chain head: its node (+1, 0: folded) */
	/* Operands of bindings inside an if's arms (and their yields) that
	 * are outside the if: if i's are refs[ref_at[i] .. ref_at[i + 1]). */
	Value **refs;
	size_t nrefs, caprefs;
	uint32_t *ref_at;
	uint32_t *nested;  /* per if: bindings in its arms */
	OpRun *lines;      /* a chain's label, built */
	size_t caplines;
} Sum;

/* ------------------------------------------------------------ operands */

static uint32_t
ref(const Value *a)
{
	if (a->kind == VK_LIT)
		return REF_LIT;
	if (a->kind == VK_PARAM)
		return REF_PARAM;
	return a->scratch ? a->scratch - 1 : REF_CONST;
}

static bool
is_index(uint32_t r)
{
	return r < REF_LIT;
}

/* Forms that chain; copies, notes and ifs stand alone. */
static bool
chains(const Value *v)
{
	return v->form == B_OP || v->form == B_CALL || v->form == B_CALL_LOWERED ||
	       v->form == B_TUPLE || v->form == B_PROJ;
}

/* Numbers the bindings and counts uses, one walk (nested ifs included). */
static void
collect(Sum *s)
{
	FuncWalk w;
	WalkStep st;
	size_t cap = 0;
	uint32_t cur = NONE;  /* the top-level binding the walk is in */
	fwalk_start(&w, s->fn);
	while (fwalk_next(&w, &st)) {
		if (st.ev == W_BIND && st.depth == 1) {
			Value *v = st.v;
			if (v->form == B_CONST) {
				v->scratch = 0;
				continue;
			}
			VEC_PUSH(s->b, s->n, cap) = v;
			v->scratch = s->n;
			cur = s->n - 1;
		} else if (st.ev == W_BIND) {
			st.v->scratch = cur + 1;
		}
	}
	uint32_t n = s->n;
	s->uses = xcalloc(n + 1, sizeof *s->uses);
	s->reach = xcalloc(n + 1, sizeof *s->reach);
	s->ncomp = xcalloc(n + 1, sizeof *s->ncomp);
	s->src = xcalloc(n + 1, sizeof *s->src);
	s->ref_at = xcalloc(n + 2, sizeof *s->ref_at);
	s->nested = xcalloc(n + 1, sizeof *s->nested);
	/* Second walk: the uses, now that every binding has its index. */
	fwalk_start(&w, s->fn);
	cur = NONE;
	while (fwalk_next(&w, &st)) {
		Value *yield = NULL;
		uint32_t at;
		if (st.ev == W_BIND) {
			if (st.depth == 1 && st.v->form == B_CONST)
				continue;
			at = st.v->scratch - 1;
			if (st.depth == 1) {
				cur = at;
				s->ref_at[at] = (uint32_t)s->nrefs;
			} else {
				s->nested[at]++;
			}
		} else if (st.ev == W_ARM_END) {
			at = cur;
			yield = st.v->u.arms[st.arm].yield;
		} else {
			at = n;
			yield = s->fn->body.yield;
		}
		if (st.ev != W_BIND && !yield)
			continue;
		uint32_t na = yield ? 1 : st.v->nargs;
		for (uint32_t i = 0; i < na; i++) {
			Value *a = yield ? yield : st.v->args[i];
			uint32_t r = ref(a);
			if (r == at || r == REF_LIT || r == REF_CONST)
				continue;
			if (st.ev != W_BIND || st.depth > 1) {
				/* From inside an if (or the return): the if's edges. */
				if (at < n)
					VEC_PUSH(s->refs, s->nrefs, s->caprefs) = a;
			} else if (is_index(r)) {
				s->ncomp[at]++;
				s->src[at] = r;
			}
			if (is_index(r)) {
				s->uses[r]++;
				if (s->reach[r] < at)
					s->reach[r] = at;
			}
		}
		if (at < n)
			s->ref_at[at + 1] = (uint32_t)s->nrefs;
	}
}


/* -------------------------------------------------------------- blocks */

/* Splits the bindings into blocks: binding i ends one when no binding
 * before it is used after it (far: the furthest use of any binding
 * before i), so a block's only way in is the binding before it and its
 * only way out its last. */
static void
blocks(Sum *s)
{
	s->seg_start = xcalloc(s->n + 2, sizeof *s->seg_start);
	uint32_t far = 0, start = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (far <= i || i + 1 == s->n) {
			s->seg_start[s->nseg++] = start;
			start = i + 1;
		}
		if (s->reach[i] > far)
			far = s->reach[i];
	}
	s->seg_start[s->nseg] = s->n;
}

/* ------------------------------------------------------------- repeats */

/* A prim's name without the "_N" ir-lower adds to tell prims of one
 * recipe apart: its length. */
static size_t
prim_stem(const char *name)
{
	size_t n = strlen(name), k = n;
	while (k && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	return k < n && k > 1 && name[k - 1] == '_' ? k - 1 : n;
}

/* Tensor types the same but for dimension 1, the channels of NCHW. */
static bool
same_tensor(const Type *a, const Type *b)
{
	if (a == b)
		return true;  /* hash-consed */
	if (!a || !b || a->kind != TY_TENSOR || b->kind != TY_TENSOR || !dtype_eq(a->dt, b->dt) ||
	    a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (i != 1 && a->dims[i] != b->dims[i])
			return false;
	return true;
}

/* Types the same but for channels: a tuple's tensor fields too (a
 * concatenate's operands), a nested tuple only if identical. */
static bool
same_type(const Type *a, const Type *b)
{
	if (!a || !b || a->kind != TY_TUPLE || b->kind != TY_TUPLE)
		return same_tensor(a, b);
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (!same_tensor(a->fields[i], b->fields[i]))
			return false;
	return true;
}

/* One attribute value; a list's elements compared one level deep (a
 * nested list by its length): no recursion over the user's nesting. */
static bool
same_scalar(const Attr *a, const Attr *b)
{
	if (a->kind != b->kind || a->n != b->n)
		return false;
	switch (a->kind) {
	case AT_INT: case AT_BOOL: return a->u.i == b->u.i;
	case AT_FLOAT: return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) == 0;
	case AT_SYM: return a->u.sym == b->u.sym;
	case AT_STR: return memcmp(a->u.s, b->u.s, a->n) == 0;
	default: return true;  /* a list: its length */
	}
}

static bool
same_attr(const Attr *a, const Attr *b)
{
	if (!same_scalar(a, b))
		return false;
	if (a->kind == AT_LIST)
		for (uint32_t i = 0; i < a->n; i++)
			if (!same_scalar(&a->u.list[i], &b->u.list[i]))
				return false;
	return true;
}

/* Attributes the same but "channels" (which differ from block to block
 * as the types' dimension 1 does); both maps are sorted by key. */
static bool
same_attrs(const AttrMap *a, const AttrMap *b)
{
	uint32_t na = a ? a->n : 0, nb = b ? b->n : 0, i = 0, j = 0;
	for (;;) {
		while (i < na && !strcmp(a->e[i].key, "channels"))
			i++;
		while (j < nb && !strcmp(b->e[j].key, "channels"))
			j++;
		if (i == na || j == nb)
			return i == na && j == nb;
		if (a->e[i].key != b->e[j].key || !same_attr(&a->e[i].val, &b->e[j].val))
			return false;
		i++, j++;
	}
}

/* Operand x of a block from a0 and y of one from b0: the same leaf kind
 * (a literal of the same value), both from before the block, or the same
 * distance into it. */
static bool
same_operand(const Value *x, uint32_t a0, const Value *y, uint32_t b0)
{
	uint32_t rx = ref(x), ry = ref(y);
	if (!is_index(rx) || !is_index(ry)) {
		if (rx != ry)
			return false;
		return rx != REF_LIT || (x->flags == y->flags && x->u.i == y->u.i);
	}
	if (rx < a0 || ry < b0)
		return rx < a0 && ry < b0;
	return rx - a0 == ry - b0;
}

static bool
same_binding(const Value *x, uint32_t a0, const Value *y, uint32_t b0)
{
	if (x->form != y->form || x->nargs != y->nargs || x->vd != y->vd ||
	    !same_type(x->type, y->type))
		return false;
	switch (x->form) {
	case B_OP:
		if (x->u.op->op != y->u.op->op || !same_attrs(x->u.op->attrs, y->u.op->attrs))
			return false;
		break;
	case B_CALL:
		if (x->u.callee != y->u.callee)
			return false;
		break;
	case B_CALL_LOWERED: {
		const char *p = x->u.prim ? x->u.prim->name : "", *q = y->u.prim ? y->u.prim->name : "";
		size_t n = prim_stem(p);
		if (n != prim_stem(q) || memcmp(p, q, n))
			return false;
		break;
	}
	case B_ON_DEVICE:
		if (x->u.target != y->u.target || (x->flags & (VF_BODY | VF_RESULT)) !=
		                                          (y->flags & (VF_BODY | VF_RESULT)))
			return false;
		break;
	case B_DEVICE_COPY:
		if (x->u.copy->src != y->u.copy->src || x->u.copy->dst != y->u.copy->dst)
			return false;
		break;
	case B_PROJ:
		if (x->u.index != y->u.index)
			return false;
		break;
	case B_TUPLE:
		break;
	default:
		return false;  /* an if: its arms are not compared */
	}
	for (uint32_t i = 0; i < x->nargs; i++)
		if (!same_operand(x->args[i], a0, y->args[i], b0))
			return false;
	return true;
}

/* The len bindings from a0 and from b0 the same, operands inside
 * measured from a0 and b0. */
static bool
same_range(const Sum *s, uint32_t a0, uint32_t b0, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (!same_binding(s->b[a0 + i], a0, s->b[b0 + i], b0))
			return false;
	return true;
}

/* Bindings in blocks k .. k + p - 1. */
static uint32_t
span(const Sum *s, uint32_t k, uint32_t p)
{
	return s->seg_start[k + p] - s->seg_start[k];
}

/* How many times the p blocks ending at block e (inclusive) repeat,
 * going back. */
static uint32_t
repeats(const Sum *s, uint32_t e, uint32_t p)
{
	uint32_t c = 1;
	while ((c + 1) * p <= e + 1) {
		uint32_t b = e + 1 - c * p, a = b - p;  /* the next group back: blocks a .. b - 1 */
		uint32_t len = span(s, b, p);
		if (span(s, a, p) != len || !same_range(s, s->seg_start[a], s->seg_start[b], len))
			break;
		c++;
	}
	return c;
}

/* Longest repeat of a period of 1 to MAX_PERIOD blocks (the relu after
 * a residual block is a block of its own, so a residual stage repeats
 * two blocks), found from the end: a block's trailing single operators
 * stay with it.  Each block is compared O(MAX_PERIOD^2) times. */
#define MAX_PERIOD 4

static void
repeats_all(Sum *s)
{
	s->run = xcalloc(s->n + 1, sizeof *s->run);
	s->rep = xcalloc(s->n + 1, sizeof *s->rep);
	for (uint32_t i = 0; i < s->n; i++)
		s->rep[i] = i;
	size_t cap = 0;
	for (uint32_t e = s->nseg; e-- > 0;) {
		uint32_t best = 0, bestp = 0;
		for (uint32_t p = 1; p <= MAX_PERIOD && 2 * p <= e + 1; p++) {
			uint32_t c = repeats(s, e, p);
			if (c > 1 && c * p > best) {
				best = c * p;
				bestp = p;
			}
		}
		if (!best)
			continue;
		uint32_t first = e + 1 - best;
		VEC_PUSH(s->runs, s->nruns, cap) = (Run){first, bestp, best / bestp, 0};
		uint32_t r0 = s->seg_start[first], len = span(s, first, bestp);
		for (uint32_t i = r0; i < s->seg_start[e + 1]; i++) {
			s->run[i] = s->nruns;
			s->rep[i] = r0 + (i - r0) % len;
		}
		e = first;  /* the loop's e-- goes on before the run */
	}
	/* Found from the end: number them in program order. */
	for (uint32_t i = 0; i < s->nruns / 2; i++) {
		Run t = s->runs[i];
		s->runs[i] = s->runs[s->nruns - 1 - i];
		s->runs[s->nruns - 1 - i] = t;
	}
	for (uint32_t i = 0; i < s->n; i++)
		if (s->run[i])
			s->run[i] = s->nruns + 1 - s->run[i];
}

/* -------------------------------------------------------------- chains */

static bool
drawn(const Sum *s, uint32_t i)
{
	return s->rep[i] == i;
}

/* Chains the drawn bindings; the group each run is drawn in. */
static void
chains_all(Sum *s)
{
	Dot *d = s->d;
	s->head = xcalloc(s->n + 1, sizeof *s->head);
	s->next = xcalloc(s->n + 1, sizeof *s->next);
	bool *seen = xcalloc(s->nruns + 1, sizeof *seen);
	for (uint32_t i = 0; i < s->n; i++) {
		s->head[i] = i;
		s->next[i] = NONE;
		if (!drawn(s, i))
			continue;
		const Value *v = s->b[i];
		uint32_t g = dot_value_group(d, v), r = s->run[i];
		if (r) {
			Run *run = &s->runs[r - 1];
			if (!seen[r])
				run->group = g;
			else if (run->group != g)
				run->group = 0;
			seen[r] = true;
		}
		uint32_t u = s->src[i];
		if (chains(v) && s->ncomp[i] == 1 && drawn(s, u) && s->uses[u] == 1 && chains(s->b[u]) &&
		    s->run[u] == r && dot_value_group(d, s->b[u]) == g) {
			s->head[i] = s->head[u];
			s->next[u] = i;
		}
	}
	free(seen);
}

/* -------------------------------------------------------------- labels */

/* name, cut at 40 bytes. */
static void
short_name(FILE *f, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	fputc('%', f);
	if (n > 40) {
		dot_esc_n(f, name, 37);
		fputs("...", f);
	} else {
		dot_esc(f, name);
	}
}

/* Two members of a chain that one label line counts together. */
static bool
same_op(const Value *x, const Value *y)
{
	if (x->form != y->form)
		return false;
	switch (x->form) {
	case B_OP: return x->u.op->op == y->u.op->op;
	case B_CALL: return x->u.callee == y->u.callee;
	case B_CALL_LOWERED: {
		const char *p = x->u.prim->name, *q = y->u.prim->name;
		size_t n = prim_stem(p);
		return n == prim_stem(q) && !memcmp(p, q, n);
	}
	case B_PROJ: return x->u.index == y->u.index;
	default: return true;
	}
}

/* One line: v's operator, callee or prim; "x k" for k of them in a row
 * (their prims' names without ir-lower's "_N"). */
static void
op_line(FILE *f, const Value *v, uint32_t k)
{
	switch (v->form) {
	case B_OP: dot_esc(f, v->u.op->op ? v->u.op->op->name : "?"); break;
	case B_CALL:
		fputc('@', f);
		dot_esc(f, v->u.callee ? v->u.callee->name : "?");
		break;
	case B_CALL_LOWERED: {
		const char *p = v->u.prim ? v->u.prim->name : "?";
		fputc('@', f);
		dot_esc_n(f, p, k > 1 ? prim_stem(p) : strlen(p));
		break;
	}
	case B_TUPLE: fputs("tuple", f); break;
	case B_PROJ: fprintf(f, "field %" PRIu32, v->u.index); break;
	default: break;
	}
	if (k > 1)
		fprintf(f, " x%" PRIu32, k);
}

/* Lines of a chain's label at most: the first MAX_LINES - 3, a line
 * saying how many are left out, the last 2. */
#define MAX_LINES 8

/* The node of chain h: its value's name, one line per operator (runs of
 * one operator as one line), the type it makes. */
static void
chain_node(Sum *s, uint32_t h)
{
	Dot *d = s->d;
	FILE *f = d->f;
	size_t nl = 0;
	const Value *last = NULL;
	for (uint32_t i = h; i != NONE; i = s->next[i]) {
		const Value *v = s->b[i];
		if (nl && same_op(s->lines[nl - 1].v, v))
			s->lines[nl - 1].k++;
		else
			VEC_PUSH(s->lines, nl, s->caplines) = (OpRun){v, 1};
		last = v;
	}
	dot_node_start(d, s->node[h]);
	short_name(f, last->name);
	for (size_t i = 0; i < nl; i++) {
		if (nl > MAX_LINES && i == MAX_LINES - 3) {
			fprintf(f, "\\n(%zu more)", nl - (MAX_LINES - 1));
			i = nl - 3;
			continue;
		}
		fputs("\\n", f);
		op_line(f, s->lines[i].v, s->lines[i].k);
	}
	fputs("\\n", f);
	dot_type(f, last->type);
	fputs("\", shape=box, style=\"filled\", fillcolor=\"#ffffff\"];\n", f);
}

static void
unit_node(Sum *s, uint32_t h)
{
	const Value *v = s->b[h];
	if (!s->node[h])
		return;
	if (chains(v)) {
		chain_node(s, h);
	} else if (v->form == B_IF) {
		FILE *f = s->d->f;
		dot_node_start(s->d, s->node[h]);
		short_name(f, v->name);
		fprintf(f, " = if\\nbindings in its arms: %" PRIu32 "\\n", s->nested[h]);
		dot_type(f, v->type);
		fputs("\", shape=diamond, style=\"filled\", fillcolor=\"#ffffff\"];\n", f);
	} else {
		dot_bind_node(s->d, v, s->node[h]);  /* a copy or an on_device: as drawn in full */
	}
}

/* ------------------------------------------------------------- drawing */

/* The group a chain is drawn in: its run's, or its own. */
static uint32_t
unit_group(const Sum *s, uint32_t h)
{
	return s->run[h] ? s->runs[s->run[h] - 1].group : dot_value_group(s->d, s->b[h]);
}

static void
run_cluster(Sum *s, uint32_t r, uint32_t g)
{
	FILE *f = s->d->f;
	const Run *run = &s->runs[r - 1];
	uint32_t a = s->seg_start[run->seg], e = s->seg_start[run->seg + run->period];
	uint32_t last = s->seg_start[run->seg + run->period * run->count] - 1;
	const char *ind = g ? "      " : "    ";
	fprintf(f, "%ssubgraph cluster_f%" PRIu32 "_r%" PRIu32 " {\n%s  label=\"x%" PRIu32 ": ", ind,
	        s->fi, r - 1, ind, run->count);
	short_name(f, s->b[e - 1]->name);
	fputs(" ... ", f);
	short_name(f, s->b[last]->name);
	fprintf(f, "\\n(the first drawn)\";\n%s  style=\"dashed,rounded\";\n", ind);
	for (uint32_t i = a; i < e; i++)
		if (s->head[i] == i)
			unit_node(s, i);
	fprintf(f, "%s}\n", ind);
}

static void
group_nodes(Sum *s, uint32_t g, uint32_t result)
{
	Dot *d = s->d;
	const Func *fn = s->fn;
	for (uint32_t i = 0; i < fn->nparams; i++)
		if (fn->params[i]->scratch && dot_value_group(d, fn->params[i]) == g)
			dot_param_node(d, fn->params[i], i, fn->params[i]->scratch);
	for (uint32_t i = 0; i < s->n; i++) {
		uint32_t r = s->run[i];
		if (r) {
			/* A run: its first blocks in a cluster, the rest skipped. */
			const Run *run = &s->runs[r - 1];
			if (run->group == g)
				run_cluster(s, r, g);
			i = s->seg_start[run->seg + run->period * run->count] - 1;
		} else if (s->head[i] == i && unit_group(s, i) == g) {
			unit_node(s, i);
		}
	}
	if (result && dot_group_of(d, fn->ret_vd) == g)
		dot_result_node(d, fn, result);
}

/* The node an operand is drawn in: a parameter's, or its chain's (of
 * its twin in a run's first blocks); 0 for a leaf or a folded node. */
static uint32_t
node_of(const Sum *s, const Value *a)
{
	if (a->kind == VK_PARAM)
		return a->scratch;
	uint32_t r = ref(a);
	return is_index(r) ? s->node[s->head[s->rep[r]]] : 0;
}

/* An edge from a to the node to, once per chain: last[] holds, per
 * node of this function (from base), the last node it had an edge to. */
static void
edge_once(Sum *s, const Value *a, uint32_t to, uint32_t *last, uint32_t base)
{
	uint32_t from = node_of(s, a);
	if (!from || !to || from == to || last[from - base] == to)
		return;
	last[from - base] = to;
	dot_edge(s->d, from, to, NULL);
}

static void
edges(Sum *s, uint32_t result, uint32_t base)
{
	uint32_t *last = xcalloc(s->d->next - base + 2, sizeof *last);
	for (uint32_t h = 0; h < s->n; h++) {
		if (s->head[h] != h || !drawn(s, h))
			continue;
		uint32_t to = s->node[h];
		for (uint32_t i = h; i != NONE; i = s->next[i])
			for (uint32_t k = 0; k < s->b[i]->nargs; k++)
				edge_once(s, s->b[i]->args[k], to, last, base);
		for (uint32_t k = s->ref_at[h]; k < s->ref_at[h + 1]; k++)
			edge_once(s, s->refs[k], to, last, base);
	}
	if (s->fn->body.yield)
		edge_once(s, s->fn->body.yield, result, last, base);
	free(last);
}

/* A parameter's scratch: 1 if a drawn binding or the return uses it,
 * else 0. */
static void
mark_params(Sum *s)
{
	for (uint32_t i = 0; i < s->fn->nparams; i++)
		s->fn->params[i]->scratch = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		if (!drawn(s, i))
			continue;
		for (uint32_t k = 0; k < s->b[i]->nargs; k++)
			if (s->b[i]->args[k]->kind == VK_PARAM)
				s->b[i]->args[k]->scratch = 1;
		for (uint32_t k = s->ref_at[i]; k < s->ref_at[i + 1]; k++)
			if (s->refs[k]->kind == VK_PARAM)
				s->refs[k]->scratch = 1;
	}
	Value *y = s->fn->body.yield;
	if (y && y->kind == VK_PARAM)
		y->scratch = 1;
}

void
dot_summary_func(Dot *d, const Func *fn, uint32_t fi)
{
	Sum s = {.d = d, .fn = fn, .fi = fi};
	collect(&s);
	blocks(&s);
	repeats_all(&s);
	chains_all(&s);
	/* Numbers, in program order: parameters, chains, the result.  A
	 * parameter only folded bindings use (a repeat's weights) is left
	 * out. */
	uint32_t base = d->next + 1;
	uint32_t *count = xcalloc(d->ndevs + 1, sizeof *count);
	mark_params(&s);
	for (uint32_t i = 0; i < fn->nparams; i++)
		if (fn->params[i]->scratch && (fn->params[i]->scratch = dot_take(d)))
			count[dot_value_group(d, fn->params[i])]++;
	s.node = xcalloc(s.n + 1, sizeof *s.node);
	for (uint32_t i = 0; i < s.n; i++)
		if (s.head[i] == i && drawn(&s, i) && (s.node[i] = dot_take(d)))
			count[unit_group(&s, i)]++;
	uint32_t result = dot_take(d);
	if (result)
		count[dot_group_of(d, fn->ret_vd)]++;
	FILE *f = d->f;
	fprintf(f, "  subgraph cluster_f%" PRIu32 " {\n    label=\"fn @", fi);
	dot_esc(f, fn->name);
	fputs("\";\n    style=\"rounded\";\n", f);
	group_nodes(&s, 0, result);
	for (uint32_t g = 1; g <= d->ndevs; g++) {
		if (!count[g])
			continue;
		dot_device_cluster(d, fi, g);
		group_nodes(&s, g, result);
		fputs("    }\n", f);
	}
	fputs("  }\n", f);
	edges(&s, result, base);
	free(s.lines);
	free(count);
	free(s.b);
	free(s.uses);
	free(s.reach);
	free(s.ncomp);
	free(s.src);
	free(s.seg_start);
	free(s.runs);
	free(s.run);
	free(s.rep);
	free(s.head);
	free(s.next);
	free(s.node);
	free(s.refs);
	free(s.ref_at);
	free(s.nested);
}
