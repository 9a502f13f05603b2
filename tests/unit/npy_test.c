/* npy_test: lib/tensor/npy.c.  Every element type round-trips through npy_write
 * and npy_read in a temporary directory; the files have numpy's layout;
 * hand-made bad files (Fortran order, big-endian, truncated, bad magic,
 * object and unknown dtypes, overflowing shapes) are refused with clear
 * messages.  When a python3 with numpy is found, files also cross over to
 * numpy and back.  Exit 0 when every check passed. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tensor/npy.h"
#include "tensor/tensor.h"

#include "check.h"

static char dir[256];

static const char *
path_in(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", dir, name);
	return buf;
}

static const ElemKind all_kinds[] = {
	ET_BOOL, ET_I8, ET_I16, ET_I32, ET_I64, ET_U8, ET_U16, ET_U32, ET_U64,
	ET_F16, ET_F32, ET_F64,
};
#define NKINDS (sizeof all_kinds / sizeof all_kinds[0])

static const char *const descrs[] = {
	"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8",
};

/* Fills t with values that use each type's range: negatives, extremes,
 * i64/u64 beyond 2^53, float specials. */
static void
fill(Tensor *t)
{
	for (int64_t i = 0; i < t->numel; i++) {
		if (elem_is_float(t->kind)) {
			static const double f[] = {0.0, -0.0, 1.5, -2.25, 1e-7, 65504.0, INFINITY,
			                           -INFINITY, NAN, 6.0e-8, 3.14159, -1e4};
			tensor_set(t, i, f[i % 12]);
		} else {
			uint64_t u = UINT64_C(0x0123456789abcdef) * (uint64_t)(i + 1) ^ (uint64_t)i << 60;
			int64_t v;
			u = i % 3 == 2 ? ~u : u;
			memcpy(&v, &u, sizeof v);
			tensor_set_int(t, i, v);
		}
	}
}

static bool
same_tensor(const Tensor *a, const Tensor *b)
{
	if (a->kind != b->kind || a->rank != b->rank || a->numel != b->numel)
		return false;
	for (uint32_t i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return a->numel == 0 || memcmp(a->data, b->data, (size_t)a->numel * elem_size(a->kind)) == 0;
}

/* The whole file, malloc'd; *n its size. */
static unsigned char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	fclose(f);
	*n = len;
	return buf;
}

/* Writes a .npy file by hand: version major.0 with header text hdr (padded
 * as numpy does unless raw), then datalen bytes of data. */
static void
write_raw(const char *path, int major, const char *hdr, const void *data, size_t datalen)
{
	FILE *f = fopen(path, "wb");
	size_t hl = strlen(hdr), pre = major == 1 ? 10 : 12;
	size_t pad = (64 - (pre + hl + 1) % 64) % 64, hlen = hl + pad + 1;
	fwrite("\x93NUMPY", 1, 6, f);
	putc(major, f);
	putc(0, f);
	putc((int)(hlen & 0xff), f);
	putc((int)((hlen >> 8) & 0xff), f);
	if (major != 1) {
		putc(0, f);
		putc(0, f);
	}
	fwrite(hdr, 1, hl, f);
	for (size_t i = 0; i < pad; i++)
		putc(' ', f);
	putc('\n', f);
	if (datalen)
		fwrite(data, 1, datalen, f);
	fclose(f);
}

/* npy_read of path fails with a message holding want (and the path). */
static void
expect_error(const char *name, const char *want)
{
	char p[512], err[512];
	path_in(name, p, sizeof p);
	Tensor *t = npy_read(p, err, sizeof err);
	CHECK(!t, "%s: read succeeded, expected an error with \"%s\"", name, want);
	tensor_free(t);
	if (!t) {
		CHECK(strstr(err, want) != NULL, "%s: error \"%s\" lacks \"%s\"", name, err, want);
		CHECK(strncmp(err, p, strlen(p)) == 0 && err[strlen(p)] == ':',
		      "%s: error \"%s\" does not start with the path", name, err);
	}
}

static void
test_round_trips(void)
{
	static const int64_t shapes[][3] = {{2, 3, 0}, {7, 0, 0}, {0, 4, 0}, {1, 1, 5}};
	static const uint32_t ranks[] = {2, 1, 2, 3};
	for (size_t s = 0; s < 5; s++)
		for (size_t k = 0; k < NKINDS; k++) {
			/* s == 4: rank 0 */
			uint32_t rank = s < 4 ? ranks[s] : 0;
			Tensor *t = tensor_new(all_kinds[k], rank, s < 4 ? shapes[s] : NULL);
			fill(t);
			char p[512], err[512], name[64];
			snprintf(name, sizeof name, "rt_%s_%zu.npy", elem_name(all_kinds[k]), s);
			path_in(name, p, sizeof p);
			bool ok = npy_write(p, t, err, sizeof err);
			CHECK(ok, "write %s: %s", name, err);
			Tensor *r = ok ? npy_read(p, err, sizeof err) : NULL;
			CHECK(r, "read %s: %s", name, ok ? err : "not written");
			if (r)
				CHECK(same_tensor(t, r), "%s: round trip changed the tensor", name);
			/* numpy's layout: magic, 1.0, header to a multiple of 64. */
			size_t n;
			unsigned char *b = slurp(p, &n);
			if (b && n >= 10) {
				size_t hlen = b[8] | (size_t)b[9] << 8;
				CHECK(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0, "%s: magic/version", name);
				CHECK((10 + hlen) % 64 == 0, "%s: data starts at %zu", name, 10 + hlen);
				CHECK(b[10 + hlen - 1] == '\n', "%s: header does not end in a newline", name);
				CHECK(n == 10 + hlen + (size_t)t->numel * elem_size(t->kind),
				      "%s: file size %zu", name, n);
				char want[160], shape[64];
				if (rank == 0)
					snprintf(shape, sizeof shape, "()");
				else if (rank == 1)
					snprintf(shape, sizeof shape, "(%lld,)", (long long)t->dims[0]);
				else if (rank == 2)
					snprintf(shape, sizeof shape, "(%lld, %lld)", (long long)t->dims[0],
					         (long long)t->dims[1]);
				else
					snprintf(shape, sizeof shape, "(%lld, %lld, %lld)", (long long)t->dims[0],
					         (long long)t->dims[1], (long long)t->dims[2]);
				snprintf(want, sizeof want, "{'descr': '%s', 'fortran_order': False, "
				         "'shape': %s, }", descrs[k], shape);
				CHECK(hlen >= strlen(want) && memcmp(b + 10, want, strlen(want)) == 0,
				      "%s: header is not %s", name, want);
			} else {
				CHECK(false, "%s: cannot read the file back", name);
			}
			free(b);
			tensor_free(r);
			tensor_free(t);
		}
	/* Overwriting an existing file replaces it. */
	char p[512], err[512];
	path_in("rt_f32_0.npy", p, sizeof p);
	int64_t d = 2;
	Tensor *t = tensor_new(ET_I16, 1, &d);
	tensor_set(t, 1, -7);
	CHECK(npy_write(p, t, err, sizeof err), "overwrite: %s", err);
	Tensor *r = npy_read(p, err, sizeof err);
	CHECK(r && same_tensor(t, r), "overwrite: not the new tensor");
	tensor_free(r);
	tensor_free(t);
}

static void
test_hand_made(void)
{
	char p[512], err[512];
	const float f6[6] = {1, 2, 3, 4, 5, 6};
	/* Good files numpy may write: 2.0, '=' or '<' on 1-byte types, Python
	 * 2 longs, spaces and key order of older writers. */
	write_raw(path_in("v2.npy", p, sizeof p), 2,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f6, sizeof f6);
	Tensor *t = npy_read(p, err, sizeof err);
	CHECK(t && t->kind == ET_F32 && t->rank == 2 && t->dims[0] == 2 && t->dims[1] == 3 &&
	      tensor_get(t, 5) == 6.0, "version 2.0: %s", t ? "wrong tensor" : err);
	tensor_free(t);
	write_raw(path_in("v3.npy", p, sizeof p), 3,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", f6, sizeof f6);
	t = npy_read(p, err, sizeof err);
	CHECK(t && t->rank == 1 && t->dims[0] == 6, "version 3.0: %s", t ? "wrong tensor" : err);
	tensor_free(t);
	const unsigned char bytes[4] = {0, 1, 2, 255};
	static const struct { const char *descr; ElemKind k; double last; } one_byte[] = {
		{"<i1", ET_I8, -1}, {"=i1", ET_I8, -1}, {"|i1", ET_I8, -1}, {"<u1", ET_U8, 255},
		{"=u1", ET_U8, 255}, {"<b1", ET_BOOL, 1}, {"|b1", ET_BOOL, 1},
	};
	for (size_t i = 0; i < sizeof one_byte / sizeof one_byte[0]; i++) {
		char hdr[128];
		snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (4,), }",
		         one_byte[i].descr);
		write_raw(path_in("b1.npy", p, sizeof p), 1, hdr, bytes, 4);
		t = npy_read(p, err, sizeof err);
		CHECK(t && t->kind == one_byte[i].k && tensor_get(t, 3) == one_byte[i].last &&
		      (t->kind != ET_BOOL || ((unsigned char *)t->data)[2] == 1),
		      "descr %s: %s", one_byte[i].descr, t ? "wrong tensor" : err);
		tensor_free(t);
	}
	write_raw(path_in("py2.npy", p, sizeof p), 1,
	          "{\"shape\":(2L,3L),\"fortran_order\":False,\"descr\":\"=f4\"}", f6, sizeof f6);
	t = npy_read(p, err, sizeof err);
	CHECK(t && t->dims[0] == 2 && t->dims[1] == 3, "Python 2 header: %s",
	      t ? "wrong tensor" : err);
	tensor_free(t);
	write_raw(path_in("scalar.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", f6, 4);
	t = npy_read(p, err, sizeof err);
	CHECK(t && t->rank == 0 && t->numel == 1 && tensor_get(t, 0) == 1.0, "0-d: %s",
	      t ? "wrong tensor" : err);
	tensor_free(t);

	/* Refused. */
	write_raw(path_in("fortran.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f6, sizeof f6);
	expect_error("fortran.npy", "Fortran-ordered arrays are not supported");
	write_raw(path_in("big.npy", p, sizeof p), 1,
	          "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", f6, sizeof f6);
	expect_error("big.npy", "big-endian");
	write_raw(path_in("big1.npy", p, sizeof p), 1,
	          "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }", f6, 6);
	expect_error("big1.npy", "big-endian");
	write_raw(path_in("short.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f6, 20);
	expect_error("short.npy", "truncated");
	write_raw(path_in("long.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", f6, sizeof f6);
	expect_error("long.npy", "longer");
	write_raw(path_in("object.npy", p, sizeof p), 1,
	          "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", f6, 8);
	expect_error("object.npy", "object arrays");
	write_raw(path_in("complex.npy", p, sizeof p), 1,
	          "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", f6, 8);
	expect_error("complex.npy", "unsupported dtype '<c8'");
	write_raw(path_in("str.npy", p, sizeof p), 1,
	          "{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", f6, 12);
	expect_error("str.npy", "unsupported dtype");
	write_raw(path_in("f128.npy", p, sizeof p), 1,
	          "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", f6, 16);
	expect_error("f128.npy", "unsupported dtype");
	write_raw(path_in("struct.npy", p, sizeof p), 1,
	          "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", f6, 4);
	expect_error("struct.npy", "structured");
	write_raw(path_in("overflow.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
	          f6, 4);
	expect_error("overflow.npy", "too large");
	write_raw(path_in("bytes.npy", p, sizeof p), 1,
	          "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }",
	          f6, 4);
	expect_error("bytes.npy", "too large");
	write_raw(path_in("hugedim.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
	          f6, 4);
	expect_error("hugedim.npy", "too large");
	write_raw(path_in("notuple.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (6), }", f6, sizeof f6);
	expect_error("notuple.npy", "malformed header");
	write_raw(path_in("nokey.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'shape': (6,), }", f6, sizeof f6);
	expect_error("nokey.npy", "'fortran_order' is missing");
	write_raw(path_in("extrakey.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", f6, sizeof f6);
	expect_error("extrakey.npy", "unexpected or repeated key 'x'");
	write_raw(path_in("negdim.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", f6, 4);
	expect_error("negdim.npy", "malformed header");
	char hdr[1024];
	int len = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
	for (int i = 0; i < 65; i++)
		len += snprintf(hdr + len, sizeof hdr - (size_t)len, "1, ");
	snprintf(hdr + len, sizeof hdr - (size_t)len, "), }");
	write_raw(path_in("rank65.npy", p, sizeof p), 1, hdr, f6, 4);
	expect_error("rank65.npy", "more than 64 dimensions");
	write_raw(path_in("v9.npy", p, sizeof p), 1,
	          "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f6, 4);
	FILE *f = fopen(p, "r+b");
	fseek(f, 6, SEEK_SET);
	putc(9, f);
	fclose(f);
	expect_error("v9.npy", "unsupported .npy format version 9.0");
	f = fopen(path_in("magic.npy", p, sizeof p), "wb");
	fputs("PK\x03\x04 this is a zip, not a .npy file", f);
	fclose(f);
	expect_error("magic.npy", "bad magic");
	f = fopen(path_in("empty.npy", p, sizeof p), "wb");
	fclose(f);
	expect_error("empty.npy", "bad magic");
	f = fopen(path_in("cut.npy", p, sizeof p), "wb");
	fwrite("\x93NUMPY\x01\x00\x76\x00{'descr'", 1, 17, f);
	fclose(f);
	expect_error("cut.npy", "truncated .npy header");
	f = fopen(path_in("cut2.npy", p, sizeof p), "wb");
	fwrite("\x93NUM", 1, 4, f);
	fclose(f);
	expect_error("cut2.npy", "truncated .npy header");
	expect_error("missing.npy", "No such file");

	/* Writing into a directory that does not exist fails cleanly. */
	path_in("no/such/dir/x.npy", p, sizeof p);
	int64_t d = 1;
	t = tensor_new(ET_F32, 1, &d);
	CHECK(!npy_write(p, t, err, sizeof err) && strstr(err, "temporary"),
	      "write to a missing directory: %s", err);
	tensor_free(t);
}

/* No temporaries are left behind. */
static void
test_no_temporaries(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int left = 0;
	while (dp && (e = readdir(dp)))
		if (strstr(e->d_name, ".tmp."))
			left++;
	if (dp)
		closedir(dp);
	CHECK(left == 0, "%d temporary files left in %s", left, dir);
}

/* ------------------------------------------------------------- numpy */

/* A python3 that imports numpy, or NULL. */
static const char *
find_numpy(void)
{
	static const char *const cands[] = {"python3", "/usr/bin/python3"};
	for (size_t i = 0; i < 2; i++) {
		char cmd[256];
		snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", cands[i]);
		if (system(cmd) == 0)
			return cands[i];
	}
	return NULL;
}

static const char *const np_names[] = {
	"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float16", "float32", "float64",
};

static void
test_numpy(void)
{
	const char *py = find_numpy();
	if (!py) {
		printf("note: no python3 with numpy; numpy interoperability not checked\n");
		return;
	}
	char script[512], cmd[1024], p[512], err[512];
	/* numpy -> us: a[i] = i - 7 (bool: i odd) of each type, shape (3, 5);
	 * and f16 rounding: numpy's float64 -> float16 of many values,
	 * subnormals and ties included, against f16_from_double. */
	snprintf(script, sizeof script, "%s/mk.py", dir);
	FILE *f = fopen(script, "w");
	fprintf(f,
	        "import sys, warnings, numpy as np\n"
	        "warnings.simplefilter('ignore')\n"
	        "np.seterr(all='ignore')\n"
	        "d = sys.argv[1]\n"
	        "for n in %s:\n"
	        "    a = np.arange(15).reshape(3, 5) - 7\n"
	        "    a = (a %% 2 != 0) if n == 'bool' else a.astype(n)\n"
	        "    np.save(d + '/np_' + n + '.npy', a)\n"
	        "rng = np.random.default_rng(1)\n"
	        "h = np.arange(65536, dtype=np.uint32)\n"
	        "lo = h[:-1].astype(np.uint16).view(np.float16).astype(np.float64)\n"
	        "hi = h[1:].astype(np.uint16).view(np.float16).astype(np.float64)\n"
	        "ok = np.isfinite(lo) & np.isfinite(hi) & (np.sign(lo) == np.sign(hi))\n"
	        "mid = ((lo + hi) / 2)[ok]\n"
	        "x = np.concatenate([mid, np.nextafter(mid, 0), np.nextafter(mid, np.inf),\n"
	        "    rng.standard_normal(20000) * 10.0 ** rng.integers(-9, 6, 20000),\n"
	        "    [65504, 65519.99, 65520, 1e6, -1e6, 2.0**-25, 2.0**-26, 3 * 2.0**-26]])\n"
	        "np.save(d + '/np_x.npy', x)\n"
	        "np.save(d + '/np_h.npy', x.astype(np.float16))\n",
	        "['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', "
	        "'uint64', 'float16', 'float32', 'float64']");
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s %s %s", py, script, dir);
	int rc = system(cmd);
	CHECK(rc == 0, "numpy: %s failed", cmd);
	if (rc != 0)
		return;
	for (size_t k = 0; k < NKINDS; k++) {
		char name[64];
		snprintf(name, sizeof name, "np_%s.npy", np_names[k]);
		Tensor *t = npy_read(path_in(name, p, sizeof p), err, sizeof err);
		CHECK(t, "numpy file %s: %s", name, err);
		if (!t)
			continue;
		CHECK(t->kind == all_kinds[k] && t->rank == 2 && t->dims[0] == 3 && t->dims[1] == 5,
		      "numpy file %s: wrong type or shape", name);
		for (int64_t i = 0; i < 15 && t->kind == all_kinds[k]; i++) {
			int64_t want = t->kind == ET_BOOL ? (i - 7) % 2 != 0 : i - 7;
			if (!elem_is_float(t->kind) && !elem_is_signed(t->kind) && t->kind != ET_BOOL)
				want = (int64_t)((uint64_t)want & (elem_bits(t->kind) == 64 ? UINT64_MAX :
				                 (UINT64_C(1) << elem_bits(t->kind)) - 1));
			bool same = elem_is_float(t->kind) ? tensor_get(t, i) == (double)want
			                                   : tensor_get_int(t, i) == want;
			CHECK(same, "numpy file %s: element %lld", name, (long long)i);
		}
		tensor_free(t);
	}
	Tensor *x = npy_read(path_in("np_x.npy", p, sizeof p), err, sizeof err);
	Tensor *h = npy_read(path_in("np_h.npy", p, sizeof p), err, sizeof err);
	CHECK(x && h && x->numel == h->numel, "numpy f16 files: %s", err);
	int bad = 0;
	for (int64_t i = 0; x && h && i < x->numel; i++) {
		uint16_t mine = f16_from_double(tensor_get(x, i)), theirs = ((uint16_t *)h->data)[i];
		if (mine != theirs && bad++ < 5)
			printf("f16 of %.17g: ours 0x%04x, numpy's 0x%04x\n", tensor_get(x, i), mine, theirs);
	}
	CHECK(bad == 0, "f16_from_double differs from numpy on %d of %lld values", bad,
	      x ? (long long)x->numel : 0LL);
	tensor_free(x);
	tensor_free(h);

	/* us -> numpy: the round-trip tensors, checked by numpy. */
	for (size_t k = 0; k < NKINDS; k++) {
		int64_t dims[2] = {3, 5};
		Tensor *t = tensor_new(all_kinds[k], 2, dims);
		for (int64_t i = 0; i < 15; i++)
			if (elem_is_float(all_kinds[k]))
				tensor_set(t, i, (double)(i * 3 - 20));
			else    /* numpy's astype wraps negative values into unsigned types */
				tensor_set_int(t, i, all_kinds[k] == ET_BOOL ? (i % 3 == 0) : i * 3 - 20);
		char name[64];
		snprintf(name, sizeof name, "c_%s.npy", np_names[k]);
		CHECK(npy_write(path_in(name, p, sizeof p), t, err, sizeof err), "%s", err);
		tensor_free(t);
	}
	snprintf(script, sizeof script, "%s/check.py", dir);
	f = fopen(script, "w");
	fprintf(f,
	        "import sys, numpy as np\n"
	        "d = sys.argv[1]\n"
	        "for n in %s:\n"
	        "    a = np.load(d + '/c_' + n + '.npy')\n"
	        "    i = np.arange(15).reshape(3, 5)\n"
	        "    w = (i %% 3 == 0) if n == 'bool' else (i * 3 - 20).astype(n)\n"
	        "    assert a.dtype == np.dtype(n) and a.shape == (3, 5), n\n"
	        "    assert (a == w).all(), n\n",
	        "['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', "
	        "'uint64', 'float16', 'float32', 'float64']");
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s %s %s", py, script, dir);
	CHECK(system(cmd) == 0, "numpy could not load our files (%s)", cmd);
}

/* rm -rf dir, one level deep (all we create). */
static void
cleanup(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char p[512];
	while (dp && (e = readdir(dp)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlink(path_in(e->d_name, p, sizeof p));
	if (dp)
		closedir(dp);
	rmdir(dir);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/npy_test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trips();
	test_hand_made();
	test_no_temporaries();
	test_numpy();
	cleanup();
	printf("npy_test: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
