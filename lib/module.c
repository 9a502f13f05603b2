/* module.c: a module's interned names, hash-consed types and virtual
 * devices, global lookups, and small helpers over attributes and scopes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"

/* Symbols carry a header so a global's definition is found in O(1). */
typedef struct SymHdr SymHdr;
struct SymHdr {
	uint32_t len;
	void *global;        /* Func, Prim, Device or Pool named @sym */
	uint8_t gkind;
};

Module *
module_new(Ctx *ctx)
{
	Module *m = xcalloc(1, sizeof *m);
	m->ctx = ctx;
	m->arena = arena_new();
	m->names = arena_new();
	return m;
}

void
module_free(Module *m)
{
	if (!m)
		return;
	map_free(&m->syms);
	map_free(&m->types);
	map_free(&m->vdevs);
	map_free(&m->plain_ops);
	module_free_places(m);
	arena_free(m->arena);
	arena_free(m->names);
	free(m);
}

Sym
sym_intern(Module *m, const char *s, size_t n)
{
	uint32_t h = map_hash(s, n);
	MapProbe it;
	for (SymHdr *e = map_first(&m->syms, h, &it); e; e = map_next(&it))
		if (e->len == n && memcmp(e + 1, s, n) == 0)
			return (Sym)(e + 1);
	SymHdr *e = arena_alloc(m->arena, sizeof *e + n + 1);
	e->len = (uint32_t)n;
	memcpy(e + 1, s, n);
	((char *)(e + 1))[n] = 0;
	e->global = NULL;
	e->gkind = 0;
	map_add(&m->syms, h, e);
	return (Sym)(e + 1);
}

const char *
module_name(Module *m, const char *s, size_t n)
{
	return arena_strndup(m->names, s, n);
}

Sym
sym_intern_cstr(Module *m, const char *s)
{
	return sym_intern(m, s, strlen(s));
}

/* The global namespace: every @name is one function, prim, device or pool. */
void
sym_set_global(Sym s, int kind, void *obj)
{
	SymHdr *h = (SymHdr *)s - 1;
	h->gkind = (uint8_t)kind;
	h->global = obj;
}

void *
sym_global(Sym s, int *kind)
{
	SymHdr *h = (SymHdr *)s - 1;
	if (kind)
		*kind = h->gkind;
	return h->global;
}

/* ----------------------------------------------------------------- types */

static const struct { const char *name; uint8_t bits, is_float, is_signed; } elems[ET__COUNT] = {
	[ET_BOOL] = {"bool", 1, 0, 0},
	[ET_I8] = {"i8", 8, 0, 1},   [ET_I16] = {"i16", 16, 0, 1},
	[ET_I32] = {"i32", 32, 0, 1}, [ET_I64] = {"i64", 64, 0, 1},
	[ET_U8] = {"u8", 8, 0, 0},   [ET_U16] = {"u16", 16, 0, 0},
	[ET_U32] = {"u32", 32, 0, 0}, [ET_U64] = {"u64", 64, 0, 0},
	[ET_F16] = {"f16", 16, 1, 1}, [ET_F32] = {"f32", 32, 1, 1},
	[ET_F64] = {"f64", 64, 1, 1},
};

const char *elem_name(ElemKind k) { return elems[k].name; }
int elem_bits(ElemKind k) { return elems[k].bits; }
bool elem_is_float(ElemKind k) { return elems[k].is_float; }
bool elem_is_signed(ElemKind k) { return elems[k].is_signed; }

void
elem_int_range(ElemKind k, int64_t *lo, uint64_t *hi)
{
	int b = elems[k].bits;
	if (k == ET_BOOL) {
		*lo = 0;
		*hi = 1;
	} else if (elems[k].is_signed) {
		*hi = (UINT64_C(1) << (b - 1)) - 1;
		*lo = -(int64_t)*hi - 1;
	} else {
		*lo = 0;
		*hi = b == 64 ? UINT64_MAX : (UINT64_C(1) << b) - 1;
	}
}

double
elem_float_max(ElemKind k)
{
	return k == ET_F16 ? 65504.0 : k == ET_F32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
}

/* Whether v rounds to a finite value of float kind k (an infinity or a
 * NaN is itself): below the largest finite value plus half its ulp, the
 * midpoint that rounds (to even) away to infinity.  3.4028235e38, the
 * shortest text of FLT_MAX, is a double just above FLT_MAX. */
bool
elem_float_fits(ElemKind k, double v)
{
	if (!isfinite(v))
		return true;
	double limit = k == ET_F16 ? 65520.0 : k == ET_F32 ? 3.4028235677973366e38 : INFINITY;
	return fabs(v) < limit;
}

bool
dtype_eq(DType a, DType b)
{
	return a.kind == b.kind && a.lanes == b.lanes;
}

bool
dtype_parse(const char *s, size_t n, DType *out)
{
	for (int k = 0; k < ET__COUNT; k++) {
		size_t len = strlen(elems[k].name);
		if (n < len || memcmp(s, elems[k].name, len) != 0)
			continue;
		if (n == len) {
			*out = (DType){(uint8_t)k, 1};
			return true;
		}
		if (s[len] != 'x' || n - len > 3)
			continue;
		int lanes = 0;
		for (size_t i = len + 1; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return false;
			lanes = lanes * 10 + (s[i] - '0');
		}
		if (lanes != 2 && lanes != 3 && lanes != 4 && lanes != 8 && lanes != 16)
			return false;
		*out = (DType){(uint8_t)k, (uint8_t)lanes};
		return true;
	}
	return false;
}

void
dtype_str(DType d, char *buf)
{
	strcpy(buf, elems[d.kind].name);
	if (d.lanes > 1)
		sprintf(buf + strlen(buf), "x%u", (unsigned)d.lanes);
}

const Type *
type_tensor(Module *m, DType dt, uint32_t rank, const int64_t *dims)
{
	uint32_t h = map_mix(map_mix(17, dt.kind | (uint64_t)dt.lanes << 8), rank);
	for (uint32_t i = 0; i < rank; i++)
		h = map_mix(h, (uint64_t)dims[i]);
	MapProbe it;
	for (Type *e = map_first(&m->types, h, &it); e; e = map_next(&it))
		if (e->kind == TY_TENSOR && dtype_eq(e->dt, dt) && e->n == rank &&
			    (rank == 0 || memcmp(e->dims, dims, rank * sizeof *dims) == 0))
				return e;
	Type *t = arena_alloc(m->arena, sizeof *t);
	int64_t *d = arena_alloc(m->arena, rank * sizeof *d + 1);
	if (rank)
		memcpy(d, dims, rank * sizeof *dims);
	t->kind = TY_TENSOR;
	t->dt = dt;
	t->depth = 0;
	t->tensors = 1;
	t->n = rank;
	t->dims = d;
	map_add(&m->types, h, t);
	return t;
}

const Type *
type_tuple(Module *m, uint32_t n, const Type *const *fields)
{
	uint32_t h = map_mix(map_mix(31, 0xfeed), n);
	for (uint32_t i = 0; i < n; i++)
		h = map_mix(h, (uint64_t)(uintptr_t)fields[i]);
	MapProbe it;
	for (Type *e = map_first(&m->types, h, &it); e; e = map_next(&it))
		if (e->kind == TY_TUPLE && e->n == n &&
			    (n == 0 || memcmp(e->fields, fields, n * sizeof *fields) == 0))
				return e;
	Type *t = arena_alloc(m->arena, sizeof *t);
	const Type **f = arena_alloc(m->arena, n * sizeof *f + 1);
	if (n)
		memcpy(f, fields, n * sizeof *fields);
	t->kind = TY_TUPLE;
	t->n = n;
	t->fields = f;
	/* Both saturate: a type past the limits is refused where it is built
	 * (type_over_limits), never walked. */
	uint32_t depth = 0;
	uint64_t tensors = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (fields[i]->depth > depth)
			depth = fields[i]->depth;
		tensors += fields[i]->tensors;
	}
	t->depth = (uint16_t)(depth < UINT16_MAX ? depth + 1 : UINT16_MAX);
	t->tensors = (uint32_t)(tensors < UINT32_MAX ? tensors : UINT32_MAX);
	map_add(&m->types, h, t);
	return t;
}

const Type *
type_scalar(Module *m, ElemKind k)
{
	return type_tensor(m, (DType){(uint8_t)k, 1}, 0, NULL);
}

int64_t
dims_numel(uint32_t rank, const int64_t *dims)
{
	int64_t n = 1;
	for (uint32_t i = 0; i < rank; i++)
		if (__builtin_mul_overflow(n, dims[i], &n))
			return -1;
	return n;
}

int64_t
type_numel(const Type *t)
{
	return dims_numel(t->n, t->dims);
}

int64_t
type_bytes(const Type *t)
{
	if (t->kind == TY_TUPLE) {
		int64_t s = 0;
		for (uint32_t i = 0; i < t->n; i++)
			s += type_bytes(t->fields[i]);
		return s;
	}
	int bits = elem_bits(t->dt.kind);
	return type_numel(t) * t->dt.lanes * (bits < 8 ? 1 : bits / 8);
}

const char *
type_over_limits(const Type *t)
{
	if (t->depth > IR_MAX_TYPE_DEPTH)
		return "tuple types nest deeper than " IR_STR(IR_MAX_TYPE_DEPTH);
	if (t->tensors > IR_MAX_TYPE_TENSORS)
		return "a tuple type holds more than " IR_STR(IR_MAX_TYPE_TENSORS) " tensors";
	return NULL;
}

static void
tensor_type_print(FILE *f, const Type *t)
{
	/* Hot in the printer: no printf. */
	char buf[24 * 65 + 16], *b = buf;
	dtype_str(t->dt, b);
	b += strlen(b);
	*b++ = '[';
	for (uint32_t i = 0; i < t->n; i++) {
		if (i)
			*b++ = ',';
		char tmp[24];
		int k = 0;
		uint64_t d = (uint64_t)t->dims[i];
		do
			tmp[k++] = (char)('0' + d % 10);
		while ((d /= 10));
		while (k)
			*b++ = tmp[--k];
	}
	*b++ = ']';
	fwrite(buf, 1, (size_t)(b - buf), f);
}

/* The verifier keeps types within IR_MAX_TYPE_DEPTH, but an error message
 * may print one a level past it, and the printer must not trust its input:
 * an explicit stack, on the heap past the limit. */
void
type_print(FILE *f, const Type *t)
{
	if (t->kind != TY_TUPLE) {
		tensor_type_print(f, t);
		return;
	}
	struct frame { const Type *t; uint32_t i; } st0[IR_MAX_TYPE_DEPTH + 2], *st = st0;
	size_t cap = sizeof st0 / sizeof *st0, sp = 0;
	st[sp++] = (struct frame){t, 0};
	fputc('(', f);
	while (sp) {
		struct frame *top = &st[sp - 1];
		if (top->i == top->t->n) {
			fputs(top->t->n == 1 ? ",)" : ")", f);
			sp--;
			continue;
		}
		if (top->i)
			fputs(", ", f);
		const Type *c = top->t->fields[top->i++];
		if (c->kind != TY_TUPLE) {
			tensor_type_print(f, c);
			continue;
		}
		if (sp == cap) {
			cap *= 2;
			if (st == st0) {
				st = xmalloc(cap * sizeof *st);
				memcpy(st, st0, sizeof st0);
			} else {
				st = xrealloc(st, cap * sizeof *st);
			}
		}
		st[sp++] = (struct frame){c, 0};
		fputc('(', f);
	}
	if (st != st0)
		free(st);
}

const char *
type_text(const Type *t, char *buf, size_t n)
{
	FILE *f = fmemopen(buf, n, "w");
	if (!f) {
		snprintf(buf, n, "?");
		return buf;
	}
	type_print(f, t);
	fclose(f);
	buf[n - 1] = 0;
	return buf;
}

/* ---------------------------------------------------------------- vdevs */

const VDev *
vdev_get(Module *m, Sym dev, Sym scope)
{
	uint32_t h = map_mix(map_hash_ptr(dev), (uint64_t)(uintptr_t)scope);
	MapProbe it;
	for (VDev *e = map_first(&m->vdevs, h, &it); e; e = map_next(&it))
		if (e->dev == dev && e->scope == scope)
			return e;
	VDev *v = arena_alloc(m->arena, sizeof *v);
	v->dev = dev;
	v->scope = scope;
	map_add(&m->vdevs, h, v);
	return v;
}

const char *
scope_canonical(const char *s, size_t n, size_t *outn, char *buf, size_t bufsz)
{
	static const struct { const char *alias, *canon; } fixed[] = {
		{"global.texture", "texture"},
		{"global.texture-weight", "texture:weight"},
		{"global.texture-nhwc", "texture:nhwc"},
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		if (strlen(fixed[i].alias) == n && memcmp(s, fixed[i].alias, n) == 0) {
			*outn = strlen(fixed[i].canon);
			return fixed[i].canon;
		}
	/* global.NAME is global-NAME; but global.-NAME stays as written:
	 * global--NAME is not a scope the lexer reads back */
	if (n > 7 && memcmp(s, "global.", 7) == 0 && s[7] != '-' && n < bufsz) {
		memcpy(buf, s, n);
		buf[6] = '-';
		*outn = n;
		return buf;
	}
	*outn = n;
	return s;
}

/* --------------------------------------------------------------- globals */

Value *
value_new(Module *m, ValueKind kind, uint32_t nargs)
{
	Value *v = arena_alloc(m->arena, sizeof *v + nargs * sizeof(Value *));
	v->kind = (uint8_t)kind;
	v->nargs = nargs;
	return v;
}

double
lit_int_double(const Value *lit)
{
	return (lit->flags & VF_LIT_U64) ? (double)(uint64_t)lit->u.i : (double)lit->u.i;
}

const Type *
lit_default_type(Module *m, const Value *lit)
{
	ElemKind k = (lit->flags & VF_LIT_BOOL) ? ET_BOOL : (lit->flags & VF_LIT_FLOAT) ? ET_F32
	           : (lit->flags & VF_LIT_U64) ? ET_U64
	           : (lit->u.i >= INT32_MIN && lit->u.i <= INT32_MAX) ? ET_I32 : ET_I64;
	return type_scalar(m, k);
}

const char *
global_kind_name(int kind)
{
	static const char *names[] = {"nothing", "function", "prim", "device", "pool"};
	return names[kind];
}

const OpCall *
module_opcall(Module *m, const OpDef *op, AttrMap *attrs)
{
	if (attrs || !op) {
		OpCall *c = arena_alloc(m->arena, sizeof *c);
		c->op = op;
		c->attrs = attrs;
		return c;
	}
	uint32_t h = map_hash_ptr(op);
	MapProbe it;
	for (OpCall *e = map_first(&m->plain_ops, h, &it); e; e = map_next(&it))
		if (e->op == op)
			return e;
	OpCall *c = arena_alloc(m->arena, sizeof *c);
	c->op = op;
	map_add(&m->plain_ops, h, c);
	return c;
}

void
value_set_copy(Module *m, Value *v, const VDev *src, const VDev *dst)
{
	CopyEnds *e = arena_alloc(m->arena, sizeof *e);
	e->src = src;
	e->dst = dst;
	v->form = B_DEVICE_COPY;
	v->u.copy = e;
}

Device *
module_device(const Module *m, Sym name)
{
	int k;
	void *g = sym_global(name, &k);
	(void)m;
	return k == GK_DEVICE ? g : NULL;
}

Pool *
module_pool(const Module *m, Sym name)
{
	int k;
	void *g = sym_global(name, &k);
	(void)m;
	return k == GK_POOL ? g : NULL;
}

Func *
module_func(const Module *m, Sym name)
{
	int k;
	void *g = sym_global(name, &k);
	(void)m;
	return k == GK_FUNC ? g : NULL;
}

Prim *
module_prim(const Module *m, Sym name)
{
	int k;
	void *g = sym_global(name, &k);
	(void)m;
	return k == GK_PRIM ? g : NULL;
}

Device *
module_default_device(const Module *m)
{
	if (m->default_dev)
		return module_device(m, m->default_dev);
	return m->devices;
}

Device *
prim_placed_device(const Module *m, const Prim *p)
{
	for (uint32_t i = 0; i < p->nparams; i++)
		if (p->params[i]->kind == PV_BUFFER && p->params[i]->vd)
			return module_device(m, p->params[i]->vd->dev);
	for (const PStmt *s = p->body.first; s; s = s->next)
		if (s->kind == S_ALLOC && s->u.alloc.buf->vd)
			return module_device(m, s->u.alloc.buf->vd->dev);
	return NULL;
}

Device *
module_host_device(const Module *m)
{
	if (m->host_dev)
		return module_device(m, m->host_dev);
	for (Device *d = m->devices; d; d = d->next)
		if (d->kind == DK_CPU)
			return d;
	return module_default_device(m);
}

const Attr *
attr_get(const AttrMap *m, const char *key)
{
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < m->n; i++)
		if (strcmp(m->e[i].key, key) == 0)
			return &m->e[i].val;
	return NULL;
}

bool
attr_true(const AttrMap *m, const char *key)
{
	const Attr *a = attr_get(m, key);
	return a && a->kind == AT_BOOL && a->u.i;
}
