/* interp_code.c: the loop-level interpreter's scalar expressions,
 * compiled once per run of a prim (see interp_prim_impl.h).
 *
 * Each scalar expression a statement evaluates (a loop's bounds, an if's
 * condition, a let's value, a store's value and indices) becomes a tree
 * of CExprs, each holding the function that computes it with the
 * operation and element kind fixed, its operands, and what the tree walk
 * (prim_eval1) would look up in the PExpr on every evaluation: a
 * literal's value, a variable's slot, a load's buffer and indices.  The
 * functions are prim_eval1's cases with those values bound (bin_lane and
 * its kin, inlined), so every result and diagnostic is the tree walk's;
 * what they do not cover (vectors, textures, lane, atomics) goes to
 * prim_eval1 itself.  Lets and loops find their trees by their
 * variable's slot, ifs and stores through a table keyed by the
 * condition or the statement; a loop whose body is scalar lets, stores
 * and ifs of them runs whole through its Leaf (prim_code_leaf).
 * test_operator_conv (68 M multiply-adds) runs in half the time of the
 * tree walk.
 */
#include <stdlib.h>

#include "interp_prim_impl.h"
#include "walk.h"

typedef Lane (*CFn)(Run *r, const CExpr *c);

struct CExpr {
	CFn fn;
	const PExpr *e;          /* what it computes; NULL for a store */
	const CExpr *a, *b, *c;  /* operands */
	Lane lit;                /* a literal's value */
	const Lane *at;          /* a variable's slot or a literal's value: read
	                          * in place by ceval, without a call */
	/* a load or a store: the buffer, its slot and its compiled indices */
	const PVar *buf;
	uint32_t bslot;
	const PIndex *idx;
	struct CIndex *ix;
	uint32_t n;
	Loc loc;
};

/* An index of an access: its tree, element kind and lanes (1 unless a
 * lane run), each read once per evaluation. */
typedef struct CIndex {
	const CExpr *e;
	const Lane *at;          /* e->at: a variable or a literal, read in place */
	ElemKind k;
	uint32_t l;
} CIndex;

struct Code {
	const void **key;        /* open addressing, mask + 1 entries */
	CExpr **val;
	size_t mask;
	PtrVec chunks, arrays;   /* what to free */
	CExpr *next;             /* the current chunk's free nodes */
	const Val *slot;         /* the run's scalars (Run.slot) */
	const CExpr **by_var;    /* by the slot s of a let's or loop's variable:
	                          * the let's value at 2s, the loop's bounds at
	                          * 2s and 2s + 1 (no table lookup) */
	const struct Leaf **leaf; /* by the slot of a loop's variable: its body,
	                          * if a leaf (see Leaf), else NULL */
	size_t left;
};

/* A leaf loop's body: scalar lets, stores and ifs of them only, each
 * with its tree (a let's value, a store's CExpr with its value in a, an
 * if's condition).  prim_code_leaf runs the whole loop over them, without
 * the statement stack, the dispatch on each statement's kind or the table
 * lookup of each store: the innermost loops of a lowered kernel (a
 * product's k, a padded window's column) are where an interpreted run
 * spends its time.  An if is its condition, then its first arm's
 * statements, an L_ELSE, then its second arm's; skip says how many
 * entries follow in the arm (L_IF: the first arm and the L_ELSE; L_ELSE:
 * the second arm). */
enum { L_LET, L_STORE, L_IF, L_ELSE };
enum { LEAF_IF_DEPTH = 4 };   /* ifs within ifs, at most */

typedef struct Leaf {
	uint32_t n;
	struct LeafStmt {
		const CExpr *c;
		uint32_t kind;
		uint32_t slot;   /* a let's variable */
		uint32_t skip;
	} s[];
} Leaf;

#define CODE_CHUNK 256

/* c's value.  The functions return their lane by value (no lane in
 * memory, which the sanitizers would guard on every call); one that fails
 * reports it and sets r->bad, which every caller checks after each
 * operand, so evaluation stops where eval1's would. */
HOT Lane
ceval(Run *r, const CExpr *c)
{
	return c->at ? *c->at : c->fn(r, c);
}

static bool __attribute__((noinline))
c_failed(Run *r)
{
	r->bad = true;
	return false;
}

static Lane
c_fallback(Run *r, const CExpr *c)
{
	Lane v = {0};
	if (!prim_eval1(r, c->e, &v))
		c_failed(r);
	return v;
}

static Lane
c_leaf(Run *r, const CExpr *c)
{
	(void)r;
	return *c->at;
}

static bool __attribute__((noinline))
c_unbound(Run *r, const CExpr *c)
{
	prim_fail(r, c->loc, "internal error: '%%%s' is used before its alloc ran", c->buf->name);
	return c_failed(r);
}

/* offset() of a compiled access (a scalar one: one lane) into t, the
 * buffer's tensor; -1 when it fails (r->bad). */
HOT int64_t
c_offset(Run *r, const CExpr *c, const Tensor *t)
{
	if (!t)
		return c_unbound(r, c) - 1;
	int64_t o = 0;
	const CIndex *ix = c->ix;
	const int64_t *dims = t->dims;
	for (uint32_t d = 0; d < c->n; d++) {
		Lane v;
		if (ix[d].at) {
			v = *ix[d].at;
		} else {
			v = ix[d].e->fn(r, ix[d].e);
			if (r->bad)
				return -1;
		}
		int64_t i = as_count(ix[d].k, v.i), size = dims[d];
		if (i < 0 || i > size - (int64_t)ix[d].l) {
			prim_index_error(r, c->buf, &c->idx[d], d, ix[d].k, v.i, size, c->loc);
			return c_failed(r) - 1;
		}
		o = o * size + i;
	}
	return o;
}

static Lane
c_load(Run *r, const CExpr *c)
{
	const Tensor *t = r->buf[c->bslot];
	int64_t off = c_offset(r, c, t);
	if (off < 0)
		return (Lane){0};
	return load_lane(t, off);
}

/* a op b, with op and the operands' kind k */
HOT Lane
c_bin_lane(Run *r, const CExpr *c, PBinOp op, ElemKind k)
{
	Lane a = ceval(r, c->a);
	if (r->bad)
		return a;
	Lane b = ceval(r, c->b);
	if (r->bad)
		return b;
	Lane out = {0};
	if (!bin_lane(op, k, a, b, &out)) {
		prim_division_by_zero(r, c->e);
		c_failed(r);
	}
	return out;
}

/* any operation on any kind */
static Lane
c_bin(Run *r, const CExpr *c)
{
	return c_bin_lane(r, c, (PBinOp)c->e->op, (ElemKind)c->e->u.ops.a->dt.kind);
}

/* the operation and the operands' kind fixed */
#define C_BIN(OP, K)                                      \
	static Lane                                       \
	c_##K##_##OP(Run *r, const CExpr *c)              \
	{                                                 \
		return c_bin_lane(r, c, OP, K);           \
	}
#define C_BIN_OPS(X, K)                                                    \
	X(OP_ADD, K) X(OP_SUB, K) X(OP_MUL, K) X(OP_DIV, K) X(OP_MOD, K)   \
	X(OP_LT, K) X(OP_LE, K) X(OP_GT, K) X(OP_GE, K) X(OP_EQ, K) X(OP_NE, K)
C_BIN_OPS(C_BIN, ET_F32)
C_BIN_OPS(C_BIN, ET_I32)
C_BIN_OPS(C_BIN, ET_I64)
#define C_BIN_ENTRY(OP, K) [OP] = c_##K##_##OP,
static const CFn c_bin_f32[OP_NE + 1] = {C_BIN_OPS(C_BIN_ENTRY, ET_F32)};
static const CFn c_bin_i32[OP_NE + 1] = {C_BIN_OPS(C_BIN_ENTRY, ET_I32)};
static const CFn c_bin_i64[OP_NE + 1] = {C_BIN_OPS(C_BIN_ENTRY, ET_I64)};

static Lane
c_un(Run *r, const CExpr *c)
{
	Lane a = ceval(r, c->a);
	if (r->bad)
		return a;
	return un_lane((PBinOp)c->e->op, (ElemKind)c->e->dt.kind, a);
}

static Lane
c_select(Run *r, const CExpr *c)
{
	Lane cond = ceval(r, c->a);
	if (r->bad)
		return cond;
	Lane a = ceval(r, c->b);
	if (r->bad)
		return a;
	Lane b = ceval(r, c->c);
	return cond.i ? a : b;
}

static Lane
c_cast(Run *r, const CExpr *c)
{
	Lane a = ceval(r, c->a);
	if (r->bad)
		return a;
	return convert_lane((ElemKind)c->e->u.cast.a->dt.kind, (ElemKind)c->e->dt.kind, a);
}

/* The operands in lanes of their own, not an array: an array on the
 * stack costs the sanitizers a guard on every call. */
static Lane
c_call(Run *r, const CExpr *c)
{
	Lane x = ceval(r, c->a), y = {0}, z = {0};
	if (r->bad)
		return x;
	if (c->b) {
		y = ceval(r, c->b);
		if (r->bad)
			return y;
	}
	if (c->c) {
		z = ceval(r, c->c);
		if (r->bad)
			return z;
	}
	return call_lane3((IntrinId)c->e->op, (ElemKind)c->e->dt.kind, x, y, z);
}

static CExpr *
code_node(Code *k)
{
	if (!k->left) {
		k->next = xcalloc(CODE_CHUNK, sizeof *k->next);
		ptrvec_push(&k->chunks, k->next);
		k->left = CODE_CHUNK;
	}
	k->left--;
	return k->next++;
}

static CExpr *compile(Code *k, const PExpr *e);

/* The access to buf at idx (n indices), compiled into c. */
static void
compile_access(Code *k, CExpr *c, const PVar *buf, const PIndex *idx, uint32_t n, Loc loc)
{
	c->buf = buf;
	c->bslot = (uint32_t)buf->scratch;
	c->idx = idx;
	c->n = n;
	c->loc = loc;
	c->ix = xcalloc(n + 1, sizeof *c->ix);
	ptrvec_push(&k->arrays, (void *)c->ix);
	for (uint32_t d = 0; d < n; d++) {
		const CExpr *e = compile(k, idx[d].e);
		c->ix[d] = (CIndex){e, e->at, (ElemKind)idx[d].e->dt.kind, idx[d].lanes ? idx[d].lanes : 1};
	}
}

/* e's tree (recursion: the parser caps expression depth). */
static CExpr *
compile(Code *k, const PExpr *e)
{
	CExpr *c = code_node(k);
	c->e = e;
	c->fn = c_fallback;
	if (e->dt.lanes > 1)
		return c;
	ElemKind kind = (ElemKind)e->dt.kind;
	switch (e->kind) {
	case E_INT:
	case E_FLOAT:
	case E_BOOL:
		c->fn = c_leaf;
		c->lit = literal(e, kind);
		c->at = &c->lit;
		break;
	case E_VAR:
		c->fn = c_leaf;
		c->at = &k->slot[e->u.var->scratch].l[0];
		break;
	case E_LOAD:
		c->fn = c_load;
		compile_access(k, c, e->u.load.buf, e->u.load.idx, e->n, e->loc);
		break;
	case E_BIN: {
		c->a = compile(k, e->u.ops.a);
		c->b = compile(k, e->u.ops.b);
		ElemKind ka = (ElemKind)e->u.ops.a->dt.kind;
		const CFn *fixed = ka == ET_F32 ? c_bin_f32 : ka == ET_I32 ? c_bin_i32 :
		                   ka == ET_I64 ? c_bin_i64 : NULL;
		c->fn = fixed && e->op <= OP_NE ? fixed[e->op] : c_bin;
		break;
	}
	case E_UN:
		c->a = compile(k, e->u.ops.a);
		c->fn = c_un;
		break;
	case E_SELECT:
		c->a = compile(k, e->u.ops.a);
		c->b = compile(k, e->u.ops.b);
		c->c = compile(k, e->u.ops.c);
		c->fn = c_select;
		break;
	case E_CAST:
		c->a = compile(k, e->u.cast.a);
		c->fn = c_cast;
		break;
	case E_CALL:
		if (!lanewise_call(e))
			break;
		c->a = compile(k, e->u.call.args[0]);
		c->b = e->n > 1 ? compile(k, e->u.call.args[1]) : NULL;
		c->c = e->n > 2 ? compile(k, e->u.call.args[2]) : NULL;
		c->fn = c_call;
		break;
	default:
		break;
	}
	return c;
}

static size_t
code_hash(const Code *k, const void *key)
{
	return (size_t)(((uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15u) >> 32) & k->mask;
}

static void
code_put(Code *k, const void *key, CExpr *c)
{
	size_t i = code_hash(k, key);
	while (k->key[i])
		i = (i + 1) & k->mask;
	k->key[i] = key;
	k->val[i] = c;
}

/* The tree compiled for key (a PExpr, or a store's PStmt), or NULL. */
HOT const CExpr *
code_of_key(const Code *k, const void *key)
{
	for (size_t i = code_hash(k, key); k->key[i]; i = (i + 1) & k->mask)
		if (k->key[i] == key)
			return k->val[i];
	return NULL;
}

HOT const CExpr *
code_of(const Run *r, const void *key)
{
	return code_of_key(r->code, key);
}

/* A root expression, if scalar (else NULL). */
static CExpr *
code_root(Code *k, const PExpr *e)
{
	return e->dt.lanes <= 1 ? compile(k, e) : NULL;
}

/* The entries block's statements take in a Leaf (see Leaf), or -1 if one
 * is not a scalar let or store or an if of them (depth: the ifs around
 * the block).  (Recursion: at most LEAF_IF_DEPTH deep.) */
static int64_t
leaf_size(const PBlock *b, int depth)
{
	int64_t n = 0;
	for (const PStmt *s = b->first; s; s = s->next) {
		if (s->kind == S_LET && s->u.let.val->dt.lanes <= 1) {
			n++;
		} else if (s->kind == S_STORE && s->u.store.val->dt.lanes <= 1) {
			n++;
		} else if (s->kind == S_IF && s->u.cond.cond->dt.lanes <= 1 && depth < LEAF_IF_DEPTH) {
			int64_t a = leaf_size(&s->u.cond.arms[0], depth + 1);
			int64_t e = leaf_size(&s->u.cond.arms[1], depth + 1);
			if (a < 0 || e < 0)
				return -1;
			n += 2 + a + e;
		} else {
			return -1;
		}
	}
	return n;
}

/* Writes b's statements into l from entry at (leaf_size's count of them),
 * returning the entry after them, or 0 where one has no tree.  (As
 * leaf_size.) */
static uint32_t
leaf_fill(Code *k, Leaf *l, const PBlock *b, uint32_t at)
{
	for (const PStmt *s = b->first; s; s = s->next) {
		struct LeafStmt *e = &l->s[at++];
		if (s->kind == S_LET) {
			*e = (struct LeafStmt){k->by_var[2 * s->u.let.var->scratch], L_LET,
			                       (uint32_t)s->u.let.var->scratch, 0};
		} else if (s->kind == S_STORE) {
			*e = (struct LeafStmt){code_of_key(k, s), L_STORE, 0, 0};
		} else {
			*e = (struct LeafStmt){code_of_key(k, s->u.cond.cond), L_IF, 0, 0};
			uint32_t mid = leaf_fill(k, l, &s->u.cond.arms[0], at);
			if (!mid)
				return 0;
			e->skip = mid + 1 - at;
			l->s[mid] = (struct LeafStmt){e->c, L_ELSE, 0, 0};
			uint32_t end = leaf_fill(k, l, &s->u.cond.arms[1], mid + 1);
			if (!end)
				return 0;
			l->s[mid].skip = end - (mid + 1);
			at = end;
		}
		if (!e->c)
			return 0;
	}
	return at;
}

/* loop's body as a Leaf, if it holds nothing but scalar lets, stores and
 * ifs of them (their trees compiled already: prim_code_build makes the
 * leaves last); else NULL. */
static Leaf *
leaf_of(Code *k, const PStmt *loop)
{
	int64_t n = leaf_size(&loop->u.loop.body, 0);
	if (n <= 0 || n > UINT32_MAX / 2)
		return NULL;
	Leaf *l = xcalloc(1, sizeof *l + (size_t)n * sizeof l->s[0]);
	ptrvec_push(&k->arrays, l);
	l->n = (uint32_t)n;
	return leaf_fill(k, l, &loop->u.loop.body, 0) ? l : NULL;
}

/* Compiles the scalar expressions of the statements of body. */
Code *
prim_code_build(const PBlock *body, const Val *slot, uint32_t nslots)
{
	Code *k = xcalloc(1, sizeof *k);
	k->slot = slot;
	k->by_var = xcalloc(2 * (size_t)nslots + 1, sizeof *k->by_var);
	k->leaf = xcalloc((size_t)nslots + 1, sizeof *k->leaf);
	size_t n = 0;
	PrimWalk w;
	pwalk_start(&w, body);
	while (pwalk_next_stmt(&w))
		n++;
	for (k->mask = 15; k->mask < 4 * n; k->mask = 2 * k->mask + 1)
		;
	k->key = xcalloc(k->mask + 1, sizeof *k->key);
	k->val = xcalloc(k->mask + 1, sizeof *k->val);
	pwalk_start(&w, body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));) {
		switch (s->kind) {
		case S_FOR:
			k->by_var[2 * s->u.loop.var->scratch] = code_root(k, s->u.loop.lo);
			k->by_var[2 * s->u.loop.var->scratch + 1] = code_root(k, s->u.loop.hi);
			break;
		case S_IF:
			if (s->u.cond.cond->dt.lanes <= 1)
				code_put(k, s->u.cond.cond, compile(k, s->u.cond.cond));
			break;
		case S_LET:
			k->by_var[2 * s->u.let.var->scratch] = code_root(k, s->u.let.val);
			break;
		case S_STORE:
			if (s->u.store.val->dt.lanes <= 1) {
				CExpr *c = code_node(k);
				c->a = compile(k, s->u.store.val);
				compile_access(k, c, s->u.store.buf, s->u.store.idx, s->n, s->loc);
				code_put(k, s, c);
			}
			break;
		default:
			break;
		}
	}
	/* every tree is compiled now: the leaf loops can take theirs */
	pwalk_start(&w, body);
	for (PStmt *s; (s = pwalk_next_stmt(&w));)
		if (s->kind == S_FOR)
			k->leaf[s->u.loop.var->scratch] = leaf_of(k, s);
	return k;
}

void
prim_code_free(Code *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->chunks.n; i++)
		free(k->chunks.v[i]);
	for (size_t i = 0; i < k->arrays.n; i++)
		free(k->arrays.v[i]);
	ptrvec_free(&k->chunks);
	ptrvec_free(&k->arrays);
	free(k->key);
	free(k->val);
	free(k->by_var);
	free(k->leaf);
	free(k);
}

/* eval1 of e, through c, its compiled tree (NULL: none). */
HOT bool
eval_code(Run *r, const CExpr *c, const PExpr *e, Lane *out)
{
	if (!c)
		return prim_eval1(r, e, out);
	*out = ceval(r, c);
	return !r->bad;
}

bool
prim_code_if(Run *r, const PStmt *s, Lane *out)
{
	return eval_code(r, code_of(r, s->u.cond.cond), s->u.cond.cond, out);
}

bool
prim_code_let(Run *r, const PStmt *s, Lane *out)
{
	return eval_code(r, r->code->by_var[2 * s->u.let.var->scratch], s->u.let.val, out);
}

bool
prim_code_bounds(Run *r, const PStmt *s, Lane *lo, Lane *hi)
{
	const CExpr *const *c = &r->code->by_var[2 * s->u.loop.var->scratch];
	return eval_code(r, c[0], s->u.loop.lo, lo) && eval_code(r, c[1], s->u.loop.hi, hi);
}

/* A store compiled into c: its value, then where it goes. */
HOT bool
c_store(Run *r, const CExpr *c)
{
	int64_t off;
	Lane v = ceval(r, c->a);
	Tensor *t = r->buf[c->bslot];
	if (r->bad || (off = c_offset(r, c, t)) < 0)
		return false;
	store_lane(t, off, v);
	return true;
}

int
prim_code_store(Run *r, const PStmt *s)
{
	const CExpr *c = code_of(r, s);
	if (!c)
		return -1;
	return c_store(r, c);
}

int
prim_code_leaf(Run *r, const PStmt *loop, int64_t lo, int64_t hi, ElemKind kind)
{
	const Leaf *l = r->code->leaf[loop->u.loop.var->scratch];
	if (!l)
		return -1;
	Val *slot = r->slot;
	Lane *var = &slot[loop->u.loop.var->scratch].l[0];
	for (int64_t i = lo; i < hi; i++) {
		var->i = wrap(kind, i);
		for (uint32_t j = 0; j < l->n;) {
			const struct LeafStmt *st = &l->s[j++];
			switch (st->kind) {
			case L_LET:
				slot[st->slot].l[0] = ceval(r, st->c);
				if (r->bad)
					return 0;
				break;
			case L_STORE:
				if (!c_store(r, st->c))
					return 0;
				break;
			case L_IF: {
				Lane c = ceval(r, st->c);
				if (r->bad)
					return 0;
				if (!c.i)
					j += st->skip;   /* to the second arm */
				break;
			}
			default:   /* L_ELSE: the first arm ran */
				j += st->skip;
				break;
			}
		}
	}
	return 1;
}
