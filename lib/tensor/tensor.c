/* tensor.c: runtime tensors and IEEE half-precision conversions. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tensor.h"

size_t
elem_size(ElemKind k)
{
	switch (k) {
	case ET_BOOL: case ET_I8: case ET_U8: return 1;
	case ET_I16: case ET_U16: case ET_F16: return 2;
	case ET_I32: case ET_U32: case ET_F32: return 4;
	case ET_I64: case ET_U64: case ET_F64: return 8;
	default: return 0;
	}
}

bool
tensor_bytes(ElemKind k, uint32_t rank, const int64_t *dims, uint64_t *bytes)
{
	for (uint32_t i = 0; i < rank; i++)
		if (dims[i] < 0)
			return false;
	int64_t n = dims_numel(rank, dims), b;
	if (n < 0 || __builtin_mul_overflow(n, (int64_t)elem_size(k), &b))
		return false;
	*bytes = (uint64_t)b;
	return true;
}

Tensor *
tensor_new(ElemKind k, uint32_t rank, const int64_t *dims)
{
	size_t es = elem_size(k);
	uint64_t bytes;
	if (es == 0 || rank > TENSOR_MAX_RANK || !tensor_bytes(k, rank, dims, &bytes) ||
	    bytes > SIZE_MAX)
		return NULL;
	int64_t n = (int64_t)(bytes / es);
	Tensor *t = xcalloc(1, sizeof *t);
	t->kind = k;
	t->rank = rank;
	if (rank)
		memcpy(t->dims, dims, rank * sizeof dims[0]);
	t->numel = n;
	t->data = n ? xcalloc((size_t)n, es) : NULL;
	return t;
}

Tensor *
tensor_like_type(const Type *t)
{
	if (!t || t->kind != TY_TENSOR || t->dt.lanes != 1 || t->dt.kind >= ET__COUNT)
		return NULL;
	return tensor_new((ElemKind)t->dt.kind, t->n, t->dims);
}

void
tensor_free(Tensor *t)
{
	if (!t)
		return;
	free(t->data);
	free(t);
}

void
tensor_poison(Tensor *t)
{
	if (!t->numel)
		return;
	size_t es = elem_size(t->kind), n = (size_t)t->numel * es;
	if (!elem_is_float(t->kind)) {
		memset(t->data, 0x5a, n);
		return;
	}
	/* One NaN, then copies of what is done, doubling. */
	tensor_set(t, 0, NAN);
	for (size_t done = es; done < n; done *= 2)
		memcpy((char *)t->data + done, t->data, done < n - done ? done : n - done);
}

/* ------------------------------------------------------------ memory */

bool
mem_take(MemBudget *mb, uint64_t bytes, char *why, size_t n)
{
	if (!mb || !mb->limit)
		return true;
	uint64_t left = mb->used < mb->limit ? mb->limit - mb->used : 0;
	if (bytes > left) {
		snprintf(why, n, "more than the %llu bytes left of the %llu that --max-memory allows",
		         (unsigned long long)left, (unsigned long long)mb->limit);
		return false;
	}
	mb->used += bytes;
	return true;
}

void
mem_give(MemBudget *mb, uint64_t bytes)
{
	if (mb && mb->limit)
		mb->used -= bytes < mb->used ? bytes : mb->used;
}

uint64_t
mem_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t lim = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size
	             : (uint64_t)4 << 30;   /* unknown: 4 GiB */
	static const int res[] = {RLIMIT_AS, RLIMIT_DATA};
	for (size_t i = 0; i < sizeof res / sizeof *res; i++) {
		struct rlimit rl;
		if (getrlimit(res[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    (uint64_t)rl.rlim_cur < lim)
			lim = (uint64_t)rl.rlim_cur;
	}
	return lim;
}

/* ------------------------------------------------------------- half */

/* x >= 0 rounded to an integer, ties to even (whatever the FP rounding
 * mode); x < 2^52. */
static double
round_even(double x)
{
	double r = floor(x), d = x - r;   /* exact for x < 2^52 */
	if (d > 0.5 || (d == 0.5 && fmod(r, 2.0) != 0.0))
		r += 1.0;
	return r;
}

uint16_t
f16_from_double(double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
	if (isnan(d))           /* quiet, keeps the top 9 payload bits */
		return (uint16_t)(sign | 0x7e00 | ((bits >> 42) & 0x1ff));
	double a = fabs(d);
	/* 65520 lies halfway between 65504 (the largest half) and 2^16: the
	 * tie goes to the even 2^16, which overflows. */
	if (a >= 65520.0)
		return (uint16_t)(sign | 0x7c00);
	if (a < 0x1p-14) {      /* subnormal: units of 2^-24; 1024 is 2^-14 itself */
		double q = round_even(a * 0x1p24);
		return (uint16_t)(sign | (uint16_t)q);
	}
	int e;
	(void)frexp(a, &e);     /* a in [2^(e-1), 2^e) */
	int E = e - 1;          /* -14 .. 15 */
	double q = round_even(ldexp(a, 10 - E));   /* 1024 .. 2048 */
	if (q == 2048.0) {
		q = 1024.0;
		E++;
	}
	return (uint16_t)(sign | (uint16_t)((E + 15) << 10) | (uint16_t)(q - 1024.0));
}

uint16_t
f16_from_float(float f)
{
	return f16_from_double((double)f);   /* exact widening: one rounding */
}

float
f16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
	if (e == 31) {          /* inf, or NaN with its payload */
		bits = sign | 0x7f800000u | (m << 13);
	} else if (e == 0) {    /* zero or subnormal: m * 2^-24, exact in float */
		float v = (float)m * 0x1p-24f;
		return sign ? -v : v;
	} else {
		bits = sign | ((e + 112) << 23) | (m << 13);
	}
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

double
f16_to_double(uint16_t h)
{
	return (double)f16_to_float(h);
}

/* --------------------------------------------------------- conversions */

int64_t
elem_int_from_double(ElemKind k, double v)
{
	if (k == ET_BOOL)
		return v != 0;          /* as C: NaN != 0, so NaN is true */
	if (isnan(v))
		return 0;
	v = trunc(v);
	int bits = elem_is_float(k) ? 64 : elem_bits(k);
	if (elem_is_signed(k)) {
		double lim = ldexp(1.0, bits - 1);        /* 2^(bits-1), exact */
		if (v < -lim)
			return bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
		if (v >= lim)
			return bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
		return (int64_t)v;
	}
	if (v <= 0)
		return 0;
	if (v >= ldexp(1.0, bits)) {
		uint64_t max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
		int64_t r;
		memcpy(&r, &max, sizeof r);
		return r;
	}
	uint64_t u = (uint64_t)v;
	int64_t r;
	memcpy(&r, &u, sizeof r);
	return r;
}

double
tensor_get(const Tensor *t, int64_t i)
{
	const void *p = t->data;
	switch (t->kind) {
	case ET_BOOL: return ((const uint8_t *)p)[i] != 0;
	case ET_I8: return ((const int8_t *)p)[i];
	case ET_I16: return ((const int16_t *)p)[i];
	case ET_I32: return ((const int32_t *)p)[i];
	case ET_I64: return (double)((const int64_t *)p)[i];
	case ET_U8: return ((const uint8_t *)p)[i];
	case ET_U16: return ((const uint16_t *)p)[i];
	case ET_U32: return ((const uint32_t *)p)[i];
	case ET_U64: return (double)((const uint64_t *)p)[i];
	case ET_F16: return f16_to_double(((const uint16_t *)p)[i]);
	case ET_F32: return ((const float *)p)[i];
	case ET_F64: return ((const double *)p)[i];
	default: return 0;
	}
}

void
tensor_set(Tensor *t, int64_t i, double v)
{
	void *p = t->data;
	switch (t->kind) {
	case ET_F16: ((uint16_t *)p)[i] = f16_from_double(v); return;
	case ET_F32: ((float *)p)[i] = (float)v; return;
	case ET_F64: ((double *)p)[i] = v; return;
	default: tensor_set_int(t, i, elem_int_from_double(t->kind, v)); return;
	}
}

void
tensor_set_literal(Tensor *t, int64_t i, const Value *lit)
{
	if (lit->flags & VF_LIT_FLOAT)
		tensor_set(t, i, lit->u.f);
	else if (elem_is_float(t->kind))
		tensor_set(t, i, lit_int_double(lit));
	else
		tensor_set_int(t, i, lit->u.i);
}

void
tensor_set_inline(Tensor *t, const ConstData *cd)
{
	bool fl = elem_is_float(t->kind);
	for (uint32_t i = 0; i < cd->count && i < t->numel; i++) {
		if (fl)
			tensor_set(t, i, cd->u.f[i]);
		else
			tensor_set_int(t, i, cd->u.i[i]);
	}
}

int64_t
tensor_get_int(const Tensor *t, int64_t i)
{
	const void *p = t->data;
	switch (t->kind) {
	case ET_BOOL: return ((const uint8_t *)p)[i] != 0;
	case ET_I8: return ((const int8_t *)p)[i];
	case ET_I16: return ((const int16_t *)p)[i];
	case ET_I32: return ((const int32_t *)p)[i];
	case ET_I64: return ((const int64_t *)p)[i];
	case ET_U8: return ((const uint8_t *)p)[i];
	case ET_U16: return ((const uint16_t *)p)[i];
	case ET_U32: return ((const uint32_t *)p)[i];
	case ET_U64: {
		int64_t r;
		memcpy(&r, (const uint64_t *)p + i, sizeof r);
		return r;
	}
	default: return elem_int_from_double(ET_I64, tensor_get(t, i));
	}
}

void
tensor_set_int(Tensor *t, int64_t i, int64_t v)
{
	void *p = t->data;
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	/* Signed elements are stored through their unsigned twins: the same
	 * bytes, without implementation-defined conversions. */
	switch (t->kind) {
	case ET_BOOL: ((uint8_t *)p)[i] = v != 0; return;
	case ET_I8: case ET_U8: ((uint8_t *)p)[i] = (uint8_t)u; return;
	case ET_I16: case ET_U16: ((uint16_t *)p)[i] = (uint16_t)u; return;
	case ET_I32: case ET_U32: ((uint32_t *)p)[i] = (uint32_t)u; return;
	case ET_I64: case ET_U64: ((uint64_t *)p)[i] = u; return;
	case ET_F16: ((uint16_t *)p)[i] = f16_from_double((double)v); return;
	case ET_F32: ((float *)p)[i] = (float)v; return;
	case ET_F64: ((double *)p)[i] = (double)v; return;
	default: return;
	}
}

Tensor *
tensor_copy(const Tensor *t)
{
	Tensor *c = tensor_new(t->kind, t->rank, t->dims);
	if (c && t->numel)
		memcpy(c->data, t->data, (size_t)t->numel * elem_size(t->kind));
	return c;
}

bool
tensor_fits(const Tensor *t, const Type *ty)
{
	if (ty->kind != TY_TENSOR || ty->dt.lanes > 1 || t->kind != ty->dt.kind || t->rank != ty->n)
		return false;
	for (uint32_t i = 0; i < t->rank; i++)
		if (t->dims[i] != ty->dims[i])
			return false;
	return true;
}

const char *
tensor_type_text(const Tensor *t, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s[", elem_name(t->kind));
	for (uint32_t i = 0; i < t->rank && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)t->dims[i]);
	if (k < n)
		snprintf(buf + k, n - k, "]");
	return buf;
}
