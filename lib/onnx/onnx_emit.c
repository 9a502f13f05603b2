/* onnx_emit.c: building @main's bindings (lib/gbuild.h): values, their IR
 * names, the constants (inline when small, else a .npy file), attributes,
 * and error messages
 * (through lib/diag, as "MODEL: error: ...": a model has no lines). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "onnx_impl.h"

/* Names longer than this are cut: torch's run to 60 bytes and more. */
#define NAME_MAX_LEN 48

static char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

/* s as a message may show it: at most 80 bytes, non-printing bytes as '?'. */
static const char *
shown(const char *s, char *buf, size_t n)
{
	size_t i = 0;
	for (; s && s[i] && i + 1 < n && i < 80; i++)
		buf[i] = (s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
	buf[i] = 0;
	return buf;
}

/* fmt expanded, malloc'd. */
static char *
vformat(const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, again);
	va_end(again);
	return s;
}

void *
onnx_fail(Imp *im, const char *fmt, ...)
{
	char a[96], b[96], node[256] = "";
	const Onnx__NodeProto *n = im->node;
	if (n && n->name && *n->name)
		snprintf(node, sizeof node, "node '%s' (%s, opset %lld): ", shown(n->name, a, sizeof a),
		         shown(n->op_type, b, sizeof b), (long long)im->opset);
	else if (n)
		snprintf(node, sizeof node, "node %zu (%s, opset %lld): ", im->node_index,
		         shown(n->op_type, b, sizeof b), (long long)im->opset);
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	error_at(im->diag, (Loc){0}, "%s%s", node, msg);
	free(msg);
	return NULL;
}


const char *
onnx_type_str(ElemKind k, uint32_t rank, const int64_t *dims, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "%s[", elem_name(k));
	for (uint32_t i = 0; i < rank && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, i ? ",%lld" : "%lld", (long long)dims[i]);
	if (o < n)
		snprintf(buf + o, n - o, "]");
	return buf;
}

Val *
onnx_val_new(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims)
{
	Val *v = xcalloc(1, sizeof *v);
	v->hint = xstrdup(hint && *hint ? hint : "v");
	v->kind = k;
	v->rank = rank;
	if (rank)
		memcpy(v->dims, dims, rank * sizeof *dims);
	ptrvec_push(&im->vals, v);
	return v;
}

Val *
onnx_val_known(Imp *im, const char *hint, Tensor *t)
{
	Val *v = onnx_val_new(im, hint, t->kind, t->rank, t->dims);
	v->k = t;
	return v;
}

/* ------------------------------------------------------------ names */

static bool
name_taken(const Map *m, const char *s)
{
	MapProbe it;
	for (const char *e = map_first(m, map_hash(s, strlen(s)), &it); e; e = map_next(&it))
		if (strcmp(e, s) == 0)
			return true;
	return false;
}

char *
onnx_take_name(Imp *im, const char *hint)
{
	char base[NAME_MAX_LEN + 1];
	size_t n = 0;
	for (const char *p = hint; *p && n < NAME_MAX_LEN; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!ok)
			c = '_';
		if (c == '_' && (n == 0 || base[n - 1] == '_'))
			continue;   /* no leading or doubled underscores */
		base[n++] = c;
	}
	while (n && base[n - 1] == '_')
		n--;
	if (!n)
		base[n++] = 'v';
	base[n] = 0;
	char buf[NAME_MAX_LEN + 24];
	snprintf(buf, sizeof buf, "%s", base);
	for (unsigned long k = 1; name_taken(&im->taken, buf); k++)
		snprintf(buf, sizeof buf, "%s_%lu", base, k);
	char *s = xstrdup(buf);
	ptrvec_push(&im->strs, s);
	map_add(&im->taken, map_hash(s, strlen(s)), s);
	return s;
}

const char *
onnx_out_hint(Imp *im, size_t i)
{
	const Onnx__NodeProto *n = im->node;
	if (n && i < n->n_output && n->output[i] && *n->output[i])
		return n->output[i];
	return n && n->op_type ? n->op_type : "v";
}

/* ------------------------------------------------------------ constants */

/* Element i of t as the IR writes it into buf; false if it cannot be
 * written inline (inf, nan). */
static bool
elem_text(const Tensor *t, int64_t i, char *buf, size_t n)
{
	switch (t->kind) {
	case ET_BOOL:
		snprintf(buf, n, "%s", tensor_get_int(t, i) ? "true" : "false");
		return true;
	case ET_U64:
		snprintf(buf, n, "%llu", (unsigned long long)tensor_get_int(t, i));
		return true;
	case ET_F16:
	case ET_F32:
	case ET_F64: {
		double d = tensor_get(t, i);
		if (!isfinite(d))
			return false;
		/* the shortest text that reads back to the same element */
		int lo = t->kind == ET_F64 ? 15 : 6, hi = t->kind == ET_F64 ? 17 : 9;
		for (int p = lo; p <= hi; p++) {
			snprintf(buf, n, "%.*g", p, d);
			double back = strtod(buf, NULL);
			if (t->kind == ET_F64 ? back == d
			    : t->kind == ET_F32 ? (float)back == (float)d
			    : f16_from_double(back) == f16_from_double(d))
				break;
		}
		if (!strpbrk(buf, ".e"))
			strncat(buf, ".0", n - strlen(buf) - 1);
		return true;
	}
	default:
		snprintf(buf, n, "%lld", (long long)tensor_get_int(t, i));
		return true;
	}
}

static bool
inlinable(Imp *im, const Tensor *t)
{
	char buf[64];
	if (t->numel > im->o->inline_max || t->numel == 0)
		return false;
	for (int64_t i = 0; i < t->numel; i++)
		if (!elem_text(t, i, buf, sizeof buf))
			return false;
	return true;
}

/* The IR's type of a value of the import. */
const Type *
onnx_type(Imp *im, ElemKind k, uint32_t rank, const int64_t *dims)
{
	return type_tensor(im->m, (DType){.kind = k, .lanes = 1}, rank, dims);
}

/* Names v: "%name" for --stats, the name itself in the module's arena. */
static const char *
name_val(Imp *im, Val *v, const char *hint)
{
	const char *nm = onnx_take_name(im, hint);
	size_t len = strlen(nm) + 2;
	v->ir = xmalloc(len);
	snprintf(v->ir, len, "%%%s", nm);
	ptrvec_push(&im->strs, v->ir);
	return module_name(im->m, nm, strlen(nm));
}

/* The inline data of t, each element as its shortest text reads back
 * (elem_text), so the module holds what the parser would. */
static ConstData *
inline_data(Imp *im, const Tensor *t, const Type *ty)
{
	ConstData *cd = gb_const_data(im->m, ty);
	char e[64];
	for (int64_t i = 0; i < t->numel; i++) {
		elem_text(t, i, e, sizeof e);
		if (elem_is_float(t->kind))
			cd->u.f[i] = strtod(e, NULL);
		else
			cd->u.i[i] = tensor_get_int(t, i);
	}
	return cd;
}

Value *
onnx_ref(Imp *im, Val *v)
{
	if (v->node)
		return v->node;
	const char *nm = name_val(im, v, v->hint);
	const Type *ty = onnx_type(im, v->kind, v->rank, v->dims);
	if (!v->k) {
		/* a value no node made: the caller reported it */
		v->node = gb_undefined(&im->b, nm, ty);
		return v->node;
	}
	if (inlinable(im, v->k)) {
		v->node = gb_const(&im->b, nm, ty, inline_data(im, v->k, ty));
		return v->node;
	}
	DataFile *f = &VEC_PUSH(im->files, im->nfiles, im->capfiles);
	size_t len = strlen(nm) + 5;
	f->file = xmalloc(len);
	snprintf(f->file, len, "%s.npy", nm);
	f->t = v->k;
	v->node = gb_const(&im->b, nm, ty, gb_const_file(im->m, ty, f->file));
	return v->node;
}

Val *
onnx_param(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims)
{
	Val *v = onnx_val_new(im, hint, k, rank, dims);
	v->node = gb_param(&im->b, name_val(im, v, hint), onnx_type(im, k, rank, dims));
	return v;
}

/* A node the builder could not type as the import did: the module would
 * not verify (reported at the end, see onnx_import). */
static Value *
mistyped(Imp *im, const char *name, const Type *ty)
{
	im->mistyped++;
	return gb_undefined(&im->b, name, ty);
}

/* Reports a dimension beyond the IR's 2^40 (once), setting im->too_large. */
static void
check_dims(Imp *im, ElemKind k, uint32_t rank, const int64_t *dims)
{
	char ty[1024];
	for (uint32_t i = 0; i < rank && !im->too_large; i++)
		if (dims[i] < 0 || dims[i] > ((int64_t)1 << 40)) {
			onnx_fail(im, "its result %s has a dimension larger than the IR allows (2^40)",
			          onnx_type_str(k, rank, dims, ty, sizeof ty));
			im->too_large = true;
		}
}

/* Every operand was built and typed (a literal is typed by its operator). */
static bool
operands_typed(uint32_t nargs, Value *const *args)
{
	for (uint32_t i = 0; i < nargs; i++)
		if (!args[i] || !(args[i]->type || args[i]->kind == VK_LIT) ||
		    (args[i]->flags & VF_ERROR))
			return false;
	return true;
}

Val *
onnx_emit(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims, OpId id,
          uint32_t nargs, Value *const *args, AttrMap *attrs)
{
	if (dims)
		check_dims(im, k, rank, dims);
	Val *v = onnx_val_new(im, hint, k, dims ? rank : 0, dims);
	const char *nm = name_val(im, v, hint);
	const Type *want = dims ? onnx_type(im, k, rank, dims) : NULL;
	if (im->too_large || !operands_typed(nargs, args)) {
		/* (a node that failed, or an operand that did: nothing to type) */
		want = want ? want : onnx_type(im, k, 0, NULL);
		v->node = im->too_large ? gb_undefined(&im->b, nm, want) : mistyped(im, nm, want);
		return v;
	}
	v->node = gb_op(&im->b, nm, id, nargs, args, attrs);
	const Type *got = v->node->type;
	if (!want && got && got->kind == TY_TENSOR) {
		/* the value is what the operator's rule says it is */
		v->kind = got->dt.kind;
		v->rank = got->n;
		memcpy(v->dims, got->dims, got->n * sizeof *v->dims);
		check_dims(im, v->kind, v->rank, v->dims);
		return v;
	}
	if (!want)
		want = onnx_type(im, k, 0, NULL);   /* (refused: a placeholder) */
	if (got != want) {
		/* the type rule disagrees with the import's shapes, or refused */
		v->node->form = B_TUPLE;
		v->node->nargs = 0;
		v->node->type = want ? want : onnx_type(im, k, 0, NULL);
		v->node->flags |= VF_ERROR;
		im->mistyped++;
	}
	return v;
}

Val *
onnx_emit1(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims, OpId id,
           Val *x, AttrMap *attrs)
{
	Value *a = onnx_ref(im, x);
	return onnx_emit(im, hint, k, rank, dims, id, 1, &a, attrs);
}

Val *
onnx_emit2(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims, OpId id,
           Val *x, Val *y, AttrMap *attrs)
{
	Value *a[2];
	a[0] = onnx_ref(im, x);
	a[1] = onnx_ref(im, y);
	return onnx_emit(im, hint, k, rank, dims, id, 2, a, attrs);
}

Val *
onnx_proj(Imp *im, const char *hint, Value *tuple, uint32_t index)
{
	Val *v = onnx_val_new(im, hint, ET_F32, 0, NULL);
	const char *nm = name_val(im, v, hint);
	Value *p = tuple->type && !(tuple->flags & VF_ERROR) ? gb_proj(&im->b, nm, tuple, index)
	                                                     : NULL;
	if (!p || !p->type || p->type->kind != TY_TENSOR) {
		v->node = mistyped(im, nm, onnx_type(im, ET_F32, 0, NULL));
		return v;
	}
	v->node = p;
	v->kind = p->type->dt.kind;
	v->rank = p->type->n;
	memcpy(v->dims, p->type->dims, v->rank * sizeof *v->dims);
	return v;
}

Value *
onnx_tuple(Imp *im, const char *hint, uint32_t n, Value *const *fields)
{
	const char *nm = onnx_take_name(im, hint);
	return gb_tuple(&im->b, module_name(im->m, nm, strlen(nm)), n, fields);
}

/* ------------------------------------------------------------ attributes */

Attr
onnx_num(double d)
{
	/* as the text "%.17g" reads: an integer unless it has a point, an
	 * exponent or is not finite */
	char buf[40];
	snprintf(buf, sizeof buf, "%.17g", d);
	if (strpbrk(buf, ".eEinN"))
		return gb_float(d);
	return gb_int((int64_t)d);
}

Value *
onnx_lit(Imp *im, double d)
{
	char buf[40];
	snprintf(buf, sizeof buf, "%.17g", d);
	if (strpbrk(buf, ".eEinN"))
		return gb_lit_float(&im->b, d);
	return gb_lit_int(&im->b, (int64_t)d);
}

Attr
onnx_ints(Imp *im, const int64_t *v, size_t n)
{
	return gb_ints(im->m, v, (uint32_t)n);
}

AttrMap *
onnx_attrs(Imp *im, uint32_t n, const GAttr *kv)
{
	return gb_attrs(im->m, n, kv);
}
