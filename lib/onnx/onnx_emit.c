/* onnx_emit.c: writing @main's bindings: values, their IR names, the
 * constants (inline when small, else a .npy file), and error messages
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

const char *
onnx_ref(Imp *im, Val *v)
{
	if (v->ir)
		return v->ir;
	char ty[1024], e[64];
	const char *nm = onnx_take_name(im, v->hint);
	size_t len = strlen(nm) + 2;
	v->ir = xmalloc(len);
	snprintf(v->ir, len, "%%%s", nm);
	ptrvec_push(&im->strs, v->ir);
	if (!v->k) {
		/* a value no node made: the caller reported it */
		fprintf(im->out, "  %s = undefined\n", v->ir);
		return v->ir;
	}
	onnx_type_str(v->kind, v->rank, v->dims, ty, sizeof ty);
	if (inlinable(im, v->k)) {
		fprintf(im->out, "  %s: %s = const %s ", v->ir, ty, ty);
		if (v->rank == 0) {
			elem_text(v->k, 0, e, sizeof e);
			fprintf(im->out, "%s\n", e);
			return v->ir;
		}
		for (int64_t i = 0; i < v->k->numel; i++) {
			elem_text(v->k, i, e, sizeof e);
			fprintf(im->out, "%s%s", i ? ", " : "[", e);
		}
		fprintf(im->out, "]\n");
		return v->ir;
	}
	DataFile *f = &VEC_PUSH(im->files, im->nfiles, im->capfiles);
	len = strlen(nm) + 5;
	f->file = xmalloc(len);
	snprintf(f->file, len, "%s.npy", nm);
	f->t = v->k;
	fprintf(im->out, "  %s: %s = const %s file=\"%s\"\n", v->ir, ty, ty, f->file);
	return v->ir;
}

Val *
onnx_emit(Imp *im, const char *hint, ElemKind k, uint32_t rank, const int64_t *dims,
          const char *fmt, ...)
{
	char ty[1024];
	for (uint32_t i = 0; i < rank && !im->too_large; i++)
		if (dims[i] < 0 || dims[i] > ((int64_t)1 << 40)) {
			onnx_fail(im, "its result %s has a dimension larger than the IR allows (2^40)",
			          onnx_type_str(k, rank, dims, ty, sizeof ty));
			im->too_large = true;
		}
	Val *v = onnx_val_new(im, hint, k, rank, dims);
	const char *nm = onnx_take_name(im, hint);
	size_t len = strlen(nm) + 2;
	v->ir = xmalloc(len);
	snprintf(v->ir, len, "%%%s", nm);
	ptrvec_push(&im->strs, v->ir);
	fprintf(im->out, "  %s: %s = ", v->ir, onnx_type_str(k, rank, dims, ty, sizeof ty));
	va_list ap;
	va_start(ap, fmt);
	vfprintf(im->out, fmt, ap);
	va_end(ap);
	fputc('\n', im->out);
	return v;
}
