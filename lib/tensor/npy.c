/* npy.c: NumPy .npy files (see npy.h and numpy/lib/format.py).
 *
 * Layout: the magic "\x93NUMPY", the format version (2 bytes), the header
 * length (2 bytes little-endian in 1.0, 4 bytes in 2.0/3.0), the header (a
 * Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape':
 * (2, 3), }), then the elements in C order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "outfile.h"

/* numpy refuses headers above 10000 bytes by default; ours hold at most 64
 * dimensions, but a hand-made file may pad generously. */
#define NPY_MAX_HEADER (1u << 20)

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* "path: message" into err; returns false. */
static bool __attribute__((format(printf, 4, 5)))
fail(char *err, size_t errsz, const char *path, const char *fmt, ...)
{
	if (!err || errsz == 0)
		return false;
	int n = snprintf(err, errsz, "%s: ", path);
	if (n >= 0 && (size_t)n < errsz) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errsz - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool
host_little_endian(void)
{
	const uint16_t one = 1;
	uint8_t b;
	memcpy(&b, &one, 1);
	return b == 1;
}

/* Reverses the bytes of each of n elements of es bytes. */
static void
swap_bytes(void *buf, size_t n, size_t es)
{
	uint8_t *p = buf;
	for (size_t i = 0; i < n; i++, p += es)
		for (size_t j = 0; j < es / 2; j++) {
			uint8_t x = p[j];
			p[j] = p[es - 1 - j];
			p[es - 1 - j] = x;
		}
}

/* "(2, 3)", "(3,)", "()" as Python writes a tuple. */
static const char *
shape_text(const int64_t *dims, uint32_t rank, char *buf, size_t n)
{
	size_t len = (size_t)snprintf(buf, n, "(");
	for (uint32_t i = 0; i < rank && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%lld", i ? ", " : "",
		                        (long long)dims[i]);
	if (len < n)
		snprintf(buf + len, n - len, rank == 1 ? ",)" : ")");
	return buf;
}

/* ------------------------------------------------------------- dtypes */

static const struct {
	ElemKind k;
	char kind;              /* numpy's kind character */
	const char *descr;      /* as we write it */
} npy_types[] = {
	{ET_BOOL, 'b', "|b1"}, {ET_I8, 'i', "|i1"}, {ET_U8, 'u', "|u1"},
	{ET_I16, 'i', "<i2"}, {ET_U16, 'u', "<u2"}, {ET_I32, 'i', "<i4"}, {ET_U32, 'u', "<u4"},
	{ET_I64, 'i', "<i8"}, {ET_U64, 'u', "<u8"}, {ET_F16, 'f', "<f2"}, {ET_F32, 'f', "<f4"},
	{ET_F64, 'f', "<f8"},
};
#define N_NPY_TYPES (sizeof npy_types / sizeof npy_types[0])

/* The element kind of descr d, or a message in msg and false. */
static bool
descr_kind(const char *d, ElemKind *k, char *msg, size_t msgsz)
{
	size_t len = strlen(d);
	char bo = len ? d[0] : 0;
	char kind = len > 1 ? d[1] : 0;
	if (kind == 'O') {
		snprintf(msg, msgsz, "object arrays ('%s') are not supported", d);
		return false;
	}
	bool digits = len >= 3;
	for (size_t i = 2; i < len; i++)
		digits = digits && d[i] >= '0' && d[i] <= '9';
	if (!strchr("<>|=", bo) || !bo || !digits || len > 4) {
		snprintf(msg, msgsz, "unsupported dtype '%s'", d);
		return false;
	}
	int size = atoi(d + 2);
	for (size_t i = 0; i < N_NPY_TYPES; i++) {
		if (npy_types[i].kind != kind || (int)elem_size(npy_types[i].k) != size)
			continue;
		/* '=' is the byte order of the machine that wrote it: ours. */
		bool big = bo == '>' || (bo == '=' && !host_little_endian());
		if (big) {
			snprintf(msg, msgsz, "big-endian arrays ('%s') are not supported", d);
			return false;
		}
		if (bo == '|' && size > 1) {
			snprintf(msg, msgsz, "unsupported dtype '%s' (no byte order for a "
			         "%d-byte type)", d, size);
			return false;
		}
		*k = npy_types[i].k;
		return true;
	}
	snprintf(msg, msgsz, "unsupported dtype '%s' (irpipe reads b1, i1-i8, u1-u8, "
	         "f2, f4, f8)", d);
	return false;
}

/* ------------------------------------------------------------- header */

typedef struct {
	char descr[64];
	bool fortran;
	uint32_t rank;
	int64_t dims[TENSOR_MAX_RANK];
} NpyHeader;

typedef struct {
	const char *p, *end;
	char *msg;
	size_t msgsz;
} Scan;

static void
skip_ws(Scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool
bad(Scan *s, const char *what)
{
	snprintf(s->msg, s->msgsz, "malformed header: %s", what);
	return false;
}

/* Skips blanks, then takes character ch if it is next. */
static bool
take(Scan *s, char ch)
{
	skip_ws(s);
	if (s->p < s->end && *s->p == ch) {
		s->p++;
		return true;
	}
	return false;
}

/* A quoted string without escapes into out. */
static bool
scan_str(Scan *s, char *out, size_t outsz)
{
	skip_ws(s);
	if (s->p >= s->end || (*s->p != '\'' && *s->p != '"'))
		return false;
	char q = *s->p++;
	size_t n = 0;
	while (s->p < s->end && *s->p != q) {
		if (*s->p == '\\' || *s->p == 0 || n + 1 >= outsz)
			return false;
		out[n++] = *s->p++;
	}
	if (s->p >= s->end)
		return false;
	s->p++;
	out[n] = 0;
	return true;
}

static bool
scan_word(Scan *s, const char *w)
{
	skip_ws(s);
	size_t n = strlen(w);
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return false;
	s->p += n;
	return true;
}

/* A shape tuple: (), (3,), (2, 3), with Python 2's 3L allowed. */
static bool
scan_shape(Scan *s, NpyHeader *h)
{
	if (!take(s, '('))
		return bad(s, "'shape' is not a tuple");
	h->rank = 0;
	if (take(s, ')'))
		return true;
	for (;;) {
		skip_ws(s);
		if (s->p >= s->end || *s->p < '0' || *s->p > '9')
			return bad(s, "'shape' holds something other than non-negative integers");
		int64_t v = 0;
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
			if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s->p - '0', &v)) {
				snprintf(s->msg, s->msgsz, "a dimension of the shape is too large");
				return false;
			}
			s->p++;
		}
		if (s->p < s->end && *s->p == 'L')
			s->p++;
		if (h->rank == TENSOR_MAX_RANK) {
			snprintf(s->msg, s->msgsz, "arrays of more than %d dimensions are not supported",
			         TENSOR_MAX_RANK);
			return false;
		}
		h->dims[h->rank++] = v;
		if (take(s, ')')) {
			if (h->rank == 1)   /* Python's (3) is 3, not a tuple */
				return bad(s, "'shape' is not a tuple (write (3,) for one dimension)");
			return true;
		}
		if (!take(s, ','))
			return bad(s, "expected ',' or ')' in 'shape'");
		if (take(s, ')'))
			return true;
	}
}

/* Parses the dict literal h[0..n). */
static bool
parse_header(const char *text, size_t n, NpyHeader *h, char *msg, size_t msgsz)
{
	Scan s = {text, text + n, msg, msgsz};
	bool have_descr = false, have_fortran = false, have_shape = false;
	if (!take(&s, '{'))
		return bad(&s, "it does not start with '{'");
	while (!take(&s, '}')) {
		char key[32];
		if (!scan_str(&s, key, sizeof key))
			return bad(&s, "expected a quoted key");
		if (!take(&s, ':'))
			return bad(&s, "expected ':' after a key");
		if (strcmp(key, "descr") == 0 && !have_descr) {
			skip_ws(&s);
			if (s.p < s.end && *s.p == '[') {
				snprintf(msg, msgsz, "structured dtypes are not supported");
				return false;
			}
			if (!scan_str(&s, h->descr, sizeof h->descr))
				return bad(&s, "'descr' is not a dtype string");
			have_descr = true;
		} else if (strcmp(key, "fortran_order") == 0 && !have_fortran) {
			if (scan_word(&s, "True"))
				h->fortran = true;
			else if (scan_word(&s, "False"))
				h->fortran = false;
			else
				return bad(&s, "'fortran_order' is not True or False");
			have_fortran = true;
		} else if (strcmp(key, "shape") == 0 && !have_shape) {
			if (!scan_shape(&s, h))
				return false;
			have_shape = true;
		} else {
			snprintf(msg, msgsz, "malformed header: unexpected or repeated key '%s'", key);
			return false;
		}
		if (!take(&s, ',')) {
			if (!take(&s, '}'))
				return bad(&s, "expected ',' or '}' after a value");
			break;
		}
	}
	skip_ws(&s);
	if (s.p != s.end)
		return bad(&s, "text after the closing '}'");
	if (!have_descr || !have_fortran || !have_shape) {
		snprintf(msg, msgsz, "malformed header: key '%s' is missing",
		         !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
		return false;
	}
	return true;
}

/* --------------------------------------------------------------- read */

static uint32_t
le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The header of nf->f into nf; false with the message in err. */
static bool
read_header(NpyFile *nf, char *err, size_t errsz)
{
	FILE *f = nf->f;
	const char *path = nf->path;
	unsigned char pre[12];
	size_t got = fread(pre, 1, 10, f);
	if (ferror(f))
		return fail(err, errsz, path, "read error: %s", strerror(errno));
	size_t cmp = got < 6 ? got : 6;
	if (memcmp(pre, npy_magic, cmp) != 0 || got == 0)
		return fail(err, errsz, path, "not a .npy file (bad magic)");
	if (got < 10)
		return fail(err, errsz, path, "truncated .npy header");
	unsigned major = pre[6], minor = pre[7];
	uint32_t hlen;
	long start = 10;
	if (major == 1 && minor == 0) {
		hlen = (uint32_t)pre[8] | (uint32_t)pre[9] << 8;
	} else if ((major == 2 || major == 3) && minor == 0) {
		if (fread(pre + 10, 1, 2, f) != 2)
			return fail(err, errsz, path, "truncated .npy header");
		hlen = le32(pre + 8);
		start = 12;
	} else {
		return fail(err, errsz, path, "unsupported .npy format version %u.%u (1.0, 2.0 and "
		            "3.0 are read)", major, minor);
	}
	if (hlen > NPY_MAX_HEADER)
		return fail(err, errsz, path, "the .npy header is too large (%lu bytes)",
		            (unsigned long)hlen);
	char *text = xmalloc(hlen + 1);
	if (fread(text, 1, hlen, f) != hlen) {
		free(text);
		return fail(err, errsz, path, "truncated .npy header");
	}
	text[hlen] = 0;
	NpyHeader h;
	memset(&h, 0, sizeof h);
	char msg[256];
	bool ok = parse_header(text, hlen, &h, msg, sizeof msg);
	free(text);
	if (!ok)
		return fail(err, errsz, path, "%s", msg);
	ElemKind k;
	if (!descr_kind(h.descr, &k, msg, sizeof msg))
		return fail(err, errsz, path, "%s", msg);
	if (h.fortran)
		return fail(err, errsz, path, "Fortran-ordered arrays are not supported (save a "
		            "C-ordered copy: numpy.ascontiguousarray)");
	char st[1600];
	shape_text(h.dims, h.rank, st, sizeof st);
	uint64_t bytes;
	if (!tensor_bytes(k, h.rank, h.dims, &bytes) || bytes > SIZE_MAX || bytes > INT64_MAX)
		return fail(err, errsz, path, "shape %s is too large", st);
	memcpy(nf->descr, h.descr, sizeof nf->descr);
	nf->head.kind = k;
	nf->head.rank = h.rank;
	memcpy(nf->head.dims, h.dims, sizeof h.dims);
	nf->head.numel = (int64_t)(bytes / elem_size(k));
	nf->bytes = bytes;
	/* A regular file says its length: check it before anything is
	 * allocated for the data (a 16-byte file may claim a terabyte). */
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
		uint64_t have = (uint64_t)sb.st_size > (uint64_t)start + hlen
		              ? (uint64_t)sb.st_size - (uint64_t)start - hlen : 0;
		if (have < bytes)
			return fail(err, errsz, path, "truncated: shape %s of '%s' needs %llu bytes of data, "
			            "the file has %llu", st, h.descr, (unsigned long long)bytes,
			            (unsigned long long)have);
		if (have > bytes)
			return fail(err, errsz, path, "the file is longer than shape %s of '%s' needs "
			            "(%llu bytes of data)", st, h.descr, (unsigned long long)bytes);
	}
	return true;
}

bool
npy_open(NpyFile *nf, const char *path, char *err, size_t errsz)
{
	memset(nf, 0, sizeof *nf);
	nf->path = path;
	nf->f = fopen(path, "rb");
	if (!nf->f)
		return fail(err, errsz, path, "%s", strerror(errno));
	if (!read_header(nf, err, errsz)) {
		npy_close(nf);
		return false;
	}
	return true;
}

void
npy_close(NpyFile *nf)
{
	if (nf->f)
		fclose(nf->f);
	nf->f = NULL;
}

Tensor *
npy_load(NpyFile *nf, char *err, size_t errsz)
{
	FILE *f = nf->f;
	const char *path = nf->path;
	char st[1600];
	shape_text(nf->head.dims, nf->head.rank, st, sizeof st);
	Tensor *t = tensor_new(nf->head.kind, nf->head.rank, nf->head.dims);
	if (!t) {
		fail(err, errsz, path, "shape %s is too large", st);
		npy_close(nf);
		return NULL;
	}
	size_t bytes = (size_t)nf->bytes;
	size_t n = bytes ? fread(t->data, 1, bytes, f) : 0;
	bool ok = false;
	if (ferror(f))
		fail(err, errsz, path, "read error: %s", strerror(errno));
	else if (n < bytes)
		fail(err, errsz, path, "truncated: shape %s of '%s' needs %zu bytes of data, the "
		     "file has %zu", st, nf->descr, bytes, n);
	else if (fgetc(f) != EOF)
		fail(err, errsz, path, "the file is longer than shape %s of '%s' needs (%zu bytes "
		     "of data)", st, nf->descr, bytes);
	else
		ok = true;
	npy_close(nf);
	if (!ok) {
		tensor_free(t);
		return NULL;
	}
	size_t es = elem_size(t->kind);
	if (es > 1 && !host_little_endian())
		swap_bytes(t->data, (size_t)t->numel, es);
	if (t->kind == ET_BOOL)
		for (int64_t i = 0; i < t->numel; i++)
			((uint8_t *)t->data)[i] = ((uint8_t *)t->data)[i] != 0;
	return t;
}

Tensor *
npy_read(const char *path, char *err, size_t errsz)
{
	NpyFile nf;
	return npy_open(&nf, path, err, errsz) ? npy_load(&nf, err, errsz) : NULL;
}

/* -------------------------------------------------------------- write */

static const char *
descr_of(const Tensor *t)
{
	for (size_t i = 0; i < N_NPY_TYPES; i++)
		if (t && npy_types[i].k == t->kind)
			return npy_types[i].descr;
	return NULL;
}

bool
npy_write_stream(FILE *f, const Tensor *t)
{
	const char *descr = descr_of(t);
	if (!descr || t->rank > TENSOR_MAX_RANK || (t->numel > 0 && !t->data)) {
		errno = EINVAL;
		return false;
	}
	char shape[1600], dict[1800];
	shape_text(t->dims, t->rank, shape, sizeof shape);
	int hl = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, "
	                  "'shape': %s, }", descr, shape);
	/* magic (6) + version (2) + length (2) + dict + padding + '\n' */
	size_t total = 10 + (size_t)hl + 1;
	size_t pad = (64 - total % 64) % 64;
	size_t hlen = (size_t)hl + pad + 1;           /* < 65536: rank <= 64 */
	unsigned char pre[10];
	memcpy(pre, npy_magic, 6);
	pre[6] = 1;
	pre[7] = 0;
	pre[8] = (unsigned char)(hlen & 0xff);
	pre[9] = (unsigned char)(hlen >> 8);
	if (fwrite(pre, 1, 10, f) != 10 || fwrite(dict, 1, (size_t)hl, f) != (size_t)hl)
		return false;
	for (size_t i = 0; i < pad; i++)
		if (putc(' ', f) == EOF)
			return false;
	if (putc('\n', f) == EOF)
		return false;
	size_t es = elem_size(t->kind), n = (size_t)t->numel;
	if (n == 0)
		return true;
	if (es == 1 || host_little_endian())
		return fwrite(t->data, es, n, f) == n;
	/* A big-endian host: swap a chunk at a time. */
	unsigned char buf[4096];
	const unsigned char *p = t->data;
	for (size_t done = 0; done < n;) {
		size_t k = sizeof buf / es;
		if (k > n - done)
			k = n - done;
		memcpy(buf, p + done * es, k * es);
		swap_bytes(buf, k, es);
		if (fwrite(buf, es, k, f) != k)
			return false;
		done += k;
	}
	return true;
}

bool
npy_stage(OutGroup *g, const char *path, const Tensor *t, int flags, char *err, size_t errsz)
{
	if (!descr_of(t) || t->rank > TENSOR_MAX_RANK || (t->numel > 0 && !t->data))
		return fail(err, errsz, path, "not a valid tensor");
	int e;
	bool direct;
	OutFile *o = outgroup_add(g, path, flags, &e, &direct);
	if (!o)
		return e == EEXIST && (flags & OUTFILE_NOFOLLOW)
		       ? fail(err, errsz, path, "exists and is not a regular file")
		       : e == EISDIR ? fail(err, errsz, path, "is a directory")
		       : direct ? fail(err, errsz, path, "%s", strerror(e))
		       : fail(err, errsz, path, "cannot create a temporary file next to it: %s",
		              strerror(e));
	errno = 0;
	if (!npy_write_stream(o->f, t))
		e = errno ? errno : EIO;
	else
		e = outfile_finish(o);
	return e ? fail(err, errsz, path, "write failed: %s", strerror(e)) : true;
}

bool
npy_write(const char *path, const Tensor *t, char *err, size_t errsz)
{
	if (!descr_of(t) || t->rank > TENSOR_MAX_RANK || (t->numel > 0 && !t->data))
		return fail(err, errsz, path, "not a valid tensor");
	OutFile o;
	int e = outfile_open(&o, path);
	if (e)
		return o.direct ? fail(err, errsz, path, "%s", strerror(e))
		       : fail(err, errsz, path, "cannot create a temporary file next to it: %s",
		              strerror(e));
	errno = 0;
	if (!npy_write_stream(o.f, t)) {
		e = errno ? errno : EIO;
		outfile_discard(&o);
	} else {
		e = outfile_commit(&o);
	}
	return e ? fail(err, errsz, path, "write failed: %s", strerror(e)) : true;
}
