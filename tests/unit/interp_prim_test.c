/* interp_prim_test: the loop-level interpreter (lib/ref/interp_prim.c) on
 * prims parsed with the real parser: thread-bound loops, accumulators in
 * local allocs, lane runs, integer wrap-around, f16, intrinsics, barriers
 * (and the places a barrier cannot go), errors in words, a statement nest
 * ten thousand deep, and the speed of a lowered convolution.
 * Exit 0 when every check passed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "ref/interp_prim.h"
#include "ir.h"
#include "tensor/tensor.h"

#include "check.h"

/* ------------------------------------------------------------- helpers */

/* A parsed module and its context; NULL module after a parse error. */
typedef struct {
	Ctx *ctx;
	Module *m;
} Mod;

static Mod
parse(int line, const char *src)
{
	Mod md = {ctx_new("interp_prim_test"), NULL};
	size_t len = strlen(src);
	char *text = xmalloc(len + 1);
	memcpy(text, src, len + 1);
	uint16_t file = src_add(md.ctx, "<test>", text, len);
	md.m = ir_parse(md.ctx, file, 0, len);
	checks++;
	if (!md.m) {
		failures++;
		printf("FAIL %s:%d: the module does not parse\n", __FILE__, line);
	}
	return md;
}

static void
mod_free(Mod *md)
{
	if (md->m)
		module_free(md->m);
	ctx_free(md->ctx);
}

static const Prim *
prim(const Mod *md, const char *name)
{
	return md->m ? module_prim(md->m, sym_intern_cstr(md->m, name)) : NULL;
}

/* Runs prim `name` with its diagnostics captured.  want_err NULL: it must
 * succeed; else it must fail with an error containing want_err.  The
 * first captured message goes to *msg when msg is given. */
static bool
run_prim(int line, Mod *md, const char *name, Tensor *const *args, uint32_t nargs,
         const char *want_err)
{
	const Prim *p = prim(md, name);
	checks++;
	if (!p) {
		failures++;
		printf("FAIL %s:%d: no prim @%s\n", __FILE__, line, name);
		return false;
	}
	md->ctx->capture = true;
	bool ok = prim_exec(md->ctx, p, args, nargs, NULL);
	md->ctx->capture = false;
	const char *msg = md->ctx->ncaptured ? md->ctx->captured[0].msg : "";
	if (!want_err && !ok) {
		failures++;
		printf("FAIL %s:%d: @%s failed: %s\n", __FILE__, line, name, msg);
	} else if (want_err && ok) {
		failures++;
		printf("FAIL %s:%d: @%s succeeded; expected an error \"%s\"\n", __FILE__, line, name,
		       want_err);
	} else if (want_err && !strstr(msg, want_err)) {
		failures++;
		printf("FAIL %s:%d: @%s: error \"%s\", expected \"%s\"\n", __FILE__, line, name, msg,
		       want_err);
	} else if (want_err && md->ctx->captured[0].loc.line == 0) {
		failures++;
		printf("FAIL %s:%d: @%s: error \"%s\" has no location\n", __FILE__, line, name, msg);
	}
	ctx_clear_captured(md->ctx);
	return ok;
}

static Tensor *
tens(ElemKind k, uint32_t rank, const int64_t *dims)
{
	Tensor *t = tensor_new(k, rank, dims);
	if (!t) {
		printf("tensor_new failed\n");
		exit(2);
	}
	return t;
}

#define T1(k, a) tens((k), 1, (const int64_t[]){a})
#define T2(k, a, b) tens((k), 2, (const int64_t[]){a, b})
#define T0(k) tens((k), 0, NULL)

static void
free_all(Tensor **t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tensor_free(t[i]);
}

/* ---------------------------------------------------------------- tests */

static void
test_elementwise(void)
{
	Mod md = parse(__LINE__,
	        "device @gpu = gpu(0)\n"
	        "prim @add(%A: f32[16] @gpu, %B: f32[16] @gpu, %C: f32[16] @gpu) {\n"
	        "  kernel @add_k0 {\n"
	        "    for %bx in 0..4 bind(blockIdx.x) {\n"
	        "      for %tx in 0..4 bind(threadIdx.x) {\n"
	        "        let %i: i32 = %bx * 4 + %tx\n"
	        "        %C[%i] = %A[%i] + %B[%i]\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        // a scalar parameter, and bounds that are expressions of it
	        "prim @axpy(%a: f32, %n: i32, %X: f32[8] @gpu, %Y: f32[8] @gpu) {\n"
	        "  for %i in %n - 6..%n {\n"
	        "    %Y[%i] = %a * %X[%i] + %Y[%i]\n"
	        "  }\n"
	        "}\n");
	Tensor *t[3] = {T1(ET_F32, 16), T1(ET_F32, 16), T1(ET_F32, 16)};
	for (int i = 0; i < 16; i++) {
		tensor_set(t[0], i, i * 0.5);
		tensor_set(t[1], i, 100 - i);
		tensor_set(t[2], i, -1);
	}
	run_prim(__LINE__, &md, "add", t, 3, NULL);
	bool good = true;
	for (int i = 0; i < 16; i++)
		good &= tensor_get(t[2], i) == i * 0.5 + 100 - i;
	CHECK(good, "add: C = A + B");
	free_all(t, 3);

	Tensor *u[4] = {T0(ET_F32), T0(ET_I32), T1(ET_F32, 8), T1(ET_F32, 8)};
	tensor_set(u[0], 0, 3);
	tensor_set_int(u[1], 0, 7);
	for (int i = 0; i < 8; i++) {
		tensor_set(u[2], i, i);
		tensor_set(u[3], i, 1);
	}
	run_prim(__LINE__, &md, "axpy", u, 4, NULL);
	good = true;
	for (int i = 0; i < 8; i++)
		good &= tensor_get(u[3], i) == (i >= 1 && i < 7 ? 3.0 * i + 1 : 1);
	CHECK(good, "axpy over %%n-6..%%n");
	/* the type of every argument is checked */
	tensor_free(u[1]);
	u[1] = T0(ET_I64);
	run_prim(__LINE__, &md, "axpy", u, 4, "prim @axpy: argument 2 ('%n') is i64[], expected i32[]");
	tensor_free(u[1]);
	u[1] = T0(ET_I32);
	tensor_free(u[3]);
	u[3] = T1(ET_F32, 4);
	run_prim(__LINE__, &md, "axpy", u, 4, "prim @axpy: argument 4 ('%Y') is f32[4], expected f32[8]");
	run_prim(__LINE__, &md, "axpy", u, 3, "takes 4 arguments, 3 given");
	free_all(u, 4);
	mod_free(&md);
}

static void
test_reduction(void)
{
	Mod md = parse(__LINE__,
	        "device @gpu = gpu(0)\n"
	        "prim @dot(%A: f32[8] @gpu, %B: f32[8] @gpu, %S: f32[2] @gpu) {\n"
	        "  kernel @dot_k {\n"
	        "    for %b in 0..2 bind(blockIdx.x) {\n"
	        "      for %t in 0..1 bind(threadIdx.x) {\n"
	        "        alloc %acc: f32[1] @gpu:local\n"
	        "        %acc[0] = 0.0\n"
	        "        for %i in 0..4 {\n"
	        "          let %k = %b * 4 + %i\n"
	        "          %acc[0] = %acc[0] + %A[%k] * %B[%k]\n"
	        "        }\n"
	        "        %S[%b] = %acc[0]\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        // reads before writing see the poison, not 0
	        "prim @poison(%F: f32[1] @gpu, %I: i32[1] @gpu, %U: u8[1] @gpu) {\n"
	        "  alloc %tf: f32[3] @gpu:local\n"
	        "  alloc %ti: i32[3] @gpu:local\n"
	        "  alloc %tu: u8[3] @gpu:local\n"
	        "  %F[0] = %tf[2]\n"
	        "  %I[0] = %ti[1]\n"
	        "  %U[0] = %tu[0]\n"
	        "}\n");
	Tensor *t[3] = {T1(ET_F32, 8), T1(ET_F32, 8), T1(ET_F32, 2)};
	for (int i = 0; i < 8; i++) {
		tensor_set(t[0], i, i + 1);
		tensor_set(t[1], i, i % 2 ? 0.5 : 2);
	}
	run_prim(__LINE__, &md, "dot", t, 3, NULL);
	/* 1*2 + 2*.5 + 3*2 + 4*.5 = 11; 5*2 + 6*.5 + 7*2 + 8*.5 = 31 */
	CHECK(tensor_get(t[2], 0) == 11 && tensor_get(t[2], 1) == 31, "dot: %g %g",
	      tensor_get(t[2], 0), tensor_get(t[2], 1));
	free_all(t, 3);

	Tensor *p[3] = {T1(ET_F32, 1), T1(ET_I32, 1), T1(ET_U8, 1)};
	run_prim(__LINE__, &md, "poison", p, 3, NULL);
	CHECK(isnan(tensor_get(p[0], 0)), "a fresh f32 alloc holds NaN");
	CHECK(tensor_get_int(p[1], 0) == 0x5a5a5a5a, "a fresh i32 alloc holds 0x5a bytes");
	CHECK(tensor_get_int(p[2], 0) == 0x5a, "a fresh u8 alloc holds 0x5a");
	free_all(p, 3);
	mod_free(&md);
}

static void
test_lanes(void)
{
	Mod md = parse(__LINE__,
	        "device @gpu = gpu(0)\n"
	        "prim @vec(%A: f32[2,8] @gpu, %B: f32[2,8] @gpu) {\n"
	        "  for %i in 0..2 {\n"
	        "    %B[%i, 0:4] = %A[%i, 0:4] * broadcast<f32x4>(2.0)\n"
	        "    for %j in 1..2 vectorized {\n"
	        "      let %v: f32x4 = %A[%i, %j * 4:4]\n"
	        "      let %w = max(%v - broadcast<f32x4>(3.0), broadcast<f32x4>(cast<f32>(%i)))\n"
	        "      %B[%i, %j * 4:4] = select(%v > broadcast<f32x4>(5.0), %w, -(%v))\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @vec_oob(%A: f32[2,8] @gpu, %B: f32[2,8] @gpu) {\n"
	        "  %B[1, 6:4] = %A[0, 0:4]\n"
	        "}\n"
	        "prim @vec_int(%A: i32[16] @gpu) {\n"
	        "  let %v: i32x16 = %A[0:16]\n"
	        "  %A[0:16] = %v * %v - broadcast<i32x16>(1)\n"
	        "}\n"
	        "prim @vec_lane(%A: i32[16] @gpu) {\n"
	        "  let %v: i32x16 = %A[0:16]\n"
	        "  %A[0] = lane(%v, 15)\n"
	        "  %A[1] = lane(%v, 0) + lane(%A[4:4], 3)\n"
	        "}\n");
	Tensor *t[2] = {T2(ET_F32, 2, 8), T2(ET_F32, 2, 8)};
	for (int i = 0; i < 16; i++)
		tensor_set(t[0], i, i);
	run_prim(__LINE__, &md, "vec", t, 2, NULL);
	bool good = true;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 8; j++) {
			double a = i * 8 + j, want;
			if (j < 4)
				want = 2 * a;
			else
				want = a > 5 ? fmax(a - 3, i) : -a;
			if (tensor_get(t[1], i * 8 + j) != want) {
				good = false;
				printf("  B[%d,%d] = %g, want %g\n", i, j, tensor_get(t[1], i * 8 + j), want);
			}
		}
	CHECK(good, "lane runs with f32x4 arithmetic, broadcast, select, max");
	run_prim(__LINE__, &md, "vec_oob", t, 2,
	         "lanes 6:4 are out of bounds for axis 1 of '%B' (size 8)");
	free_all(t, 2);

	Tensor *v = T1(ET_I32, 16);
	for (int i = 0; i < 16; i++)
		tensor_set_int(v, i, i - 8);
	run_prim(__LINE__, &md, "vec_int", &v, 1, NULL);
	good = true;
	for (int i = 0; i < 16; i++)
		good &= tensor_get_int(v, i) == (i - 8) * (i - 8) - 1;
	CHECK(good, "i32x16 lanes");
	for (int i = 0; i < 16; i++)
		tensor_set_int(v, i, 100 + i);
	run_prim(__LINE__, &md, "vec_lane", &v, 1, NULL);
	CHECK(tensor_get_int(v, 0) == 115 && tensor_get_int(v, 1) == 100 + 107 &&
	      tensor_get_int(v, 2) == 102, "lane() takes one lane of a vector");
	tensor_free(v);
	mod_free(&md);
}

static void
test_integers(void)
{
	Mod md = parse(__LINE__,
	        "device @cpu = cpu(0)\n"
	        "prim @i32ops(%A: i32[4] @cpu, %O: i32[10] @cpu) {\n"
	        "  %O[0] = %A[0] + 1\n"                  // INT_MAX + 1
	        "  %O[1] = %A[1] * %A[1]\n"              // 65536^2
	        "  %O[2] = %A[2] / -1\n"                 // INT_MIN / -1
	        "  %O[3] = %A[3] / 2\n"                  // -7 / 2
	        "  %O[4] = %A[3] % 2\n"                  // -7 % 2
	        "  %O[5] = -(%A[2])\n"                   // -INT_MIN
	        "  %O[6] = abs(%A[2])\n"
	        "  %O[7] = min(%A[3], %A[1])\n"
	        "  %O[8] = cast<i32>(%A[0] < %A[0] + 1)\n" // false: it wrapped
	        "  %O[9] = %A[2] % -1\n"
	        "}\n"
	        "prim @u8ops(%A: u8[2] @cpu, %O: u8[5] @cpu) {\n"
	        "  %O[0] = %A[0] + 10\n"                 // 250 + 10
	        "  %O[1] = %A[1] - 1\n"                  // 0 - 1
	        "  %O[2] = %A[0] * 2\n"
	        "  %O[3] = %A[0] / 7\n"
	        "  %O[4] = max(%A[0], %A[1])\n"
	        "}\n"
	        "prim @u32cmp(%A: u32[2] @cpu, %O: bool[2] @cpu) {\n"
	        "  %O[0] = %A[0] > %A[1]\n"
	        "  %O[1] = %A[0] - %A[1] < %A[1]\n"
	        "}\n"
	        "prim @i64ops(%A: i64[2] @cpu, %O: i64[2] @cpu) {\n"
	        "  %O[0] = %A[0] / -1\n"                 // INT64_MIN / -1
	        "  %O[1] = %A[1] * %A[1]\n"
	        "}\n"
	        "prim @div0(%A: i32[2] @cpu) {\n"
	        "  for %i in 0..2 {\n"
	        "    %A[%i] = 10 / %A[%i]\n"
	        "  }\n"
	        "}\n"
	        "prim @mod0(%A: u16[2] @cpu) {\n"
	        "  %A[0] = %A[0] % %A[1]\n"
	        "}\n");
	Tensor *a = T1(ET_I32, 4), *o = T1(ET_I32, 10);
	int64_t in[4] = {2147483647, 65536, -2147483647 - 1, -7};
	for (int i = 0; i < 4; i++)
		tensor_set_int(a, i, in[i]);
	run_prim(__LINE__, &md, "i32ops", (Tensor *[]){a, o}, 2, NULL);
	int64_t want[10] = {-2147483647 - 1, 0, -2147483647 - 1, -3, -1, -2147483647 - 1,
	                    -2147483647 - 1, -7, 0, 0};
	for (int i = 0; i < 10; i++)
		CHECK(tensor_get_int(o, i) == want[i], "i32 op %d: %lld, want %lld", i,
		      (long long)tensor_get_int(o, i), (long long)want[i]);
	tensor_free(a);
	tensor_free(o);

	Tensor *u = T1(ET_U8, 2), *uo = T1(ET_U8, 5);
	tensor_set_int(u, 0, 250);
	tensor_set_int(u, 1, 0);
	run_prim(__LINE__, &md, "u8ops", (Tensor *[]){u, uo}, 2, NULL);
	int64_t uw[5] = {4, 255, 244, 35, 250};
	for (int i = 0; i < 5; i++)
		CHECK(tensor_get_int(uo, i) == uw[i], "u8 op %d: %lld, want %lld", i,
		      (long long)tensor_get_int(uo, i), (long long)uw[i]);
	tensor_free(u);
	tensor_free(uo);

	Tensor *c = T1(ET_U32, 2), *co = T1(ET_BOOL, 2);
	tensor_set_int(c, 0, 0xffffffffu);
	tensor_set_int(c, 1, 1);
	run_prim(__LINE__, &md, "u32cmp", (Tensor *[]){c, co}, 2, NULL);
	CHECK(tensor_get_int(co, 0) == 1, "u32 0xffffffff > 1");
	CHECK(tensor_get_int(co, 1) == 0, "u32 0xfffffffe < 1 is false");
	tensor_free(c);
	tensor_free(co);

	Tensor *l = T1(ET_I64, 2), *lo = T1(ET_I64, 2);
	tensor_set_int(l, 0, INT64_MIN);
	tensor_set_int(l, 1, (int64_t)1 << 32);
	run_prim(__LINE__, &md, "i64ops", (Tensor *[]){l, lo}, 2, NULL);
	CHECK(tensor_get_int(lo, 0) == INT64_MIN, "i64 INT64_MIN / -1 wraps");
	CHECK(tensor_get_int(lo, 1) == 0, "i64 2^32 * 2^32 wraps to 0");
	tensor_free(l);
	tensor_free(lo);

	Tensor *z = T1(ET_I32, 2);
	tensor_set_int(z, 0, 3);
	tensor_set_int(z, 1, 0);
	run_prim(__LINE__, &md, "div0", &z, 1, "in @div0: integer division by zero");
	CHECK(tensor_get_int(z, 0) == 3, "10 / 3 = 3 stored before the error");
	tensor_free(z);
	Tensor *m = T1(ET_U16, 2);
	tensor_set_int(m, 0, 5);
	run_prim(__LINE__, &md, "mod0", &m, 1, "integer modulo by zero");
	tensor_free(m);
	mod_free(&md);
}

static void
test_bounds(void)
{
	Mod md = parse(__LINE__,
	        "device @cpu = cpu(0)\n"
	        "prim @rows(%A: f32[2,4] @cpu, %O: f32[2] @cpu) {\n"
	        "  for %i in 0..2 {\n"
	        "    for %j in 0..8 {\n"
	        "      %O[%i] = %A[%i, %j]\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @neg(%A: f32[4] @cpu) {\n"
	        "  %A[-1] = 0.0\n"
	        "}\n"
	        "prim @store_oob(%A: f32[4] @cpu, %n: u64) {\n"
	        "  %A[%n] = 1.0\n"
	        "}\n"
	        "prim @tex(%X: f32[1,1,2,2,4] @cpu:texture, %O: f32[4] @cpu) {\n"
	        "  %O[0:4] = texture2d_load(%X, 0, 1)\n"
	        "}\n"
	        "prim @tex_store(%X: f32[1,1,2,2,4] @cpu:texture) {\n"
	        "  texture2d_store(%X, 0, 1, broadcast<f32x4>(1.0))\n"
	        "}\n"
	        "prim @tex_oob(%X: f32[1,1,2,2,4] @cpu:texture, %O: f32[4] @cpu) {\n"
	        "  %O[0:4] = texture2d_load(%X, 2, 0)\n"
	        "}\n");
	Tensor *a = T2(ET_F32, 2, 4), *o = T1(ET_F32, 2);
	run_prim(__LINE__, &md, "rows", (Tensor *[]){a, o}, 2,
	         "in @rows: index 4 is out of bounds for axis 1 of '%A' (size 4)");
	run_prim(__LINE__, &md, "neg", &o, 1, "expected");   /* wrong shape: f32[2] */
	Tensor *f = T1(ET_F32, 4);
	run_prim(__LINE__, &md, "neg", &f, 1, "index -1 is out of bounds for axis 0 of '%A' (size 4)");
	Tensor *n = T0(ET_U64);
	tensor_set_int(n, 0, -2);
	run_prim(__LINE__, &md, "store_oob", (Tensor *[]){f, n}, 2,
	         "index 18446744073709551614 is out of bounds for axis 0 of '%A' (size 4)");
	/* an image 2 wide, 2 high: texel (0, 1) is elements 8..11 */
	Tensor *x = tens(ET_F32, 5, (const int64_t[]){1, 1, 2, 2, 4});
	for (int64_t k = 0; k < 16; k++)
		tensor_set(x, k, (double)k);
	run_prim(__LINE__, &md, "tex", (Tensor *[]){x, f}, 2, NULL);
	checks++;
	if (tensor_get(f, 0) != 8 || tensor_get(f, 3) != 11) {
		failures++;
		printf("FAIL %s:%d: texture2d_load(%%X, 0, 1) read %g..%g, not 8..11\n", __FILE__,
		       __LINE__, tensor_get(f, 0), tensor_get(f, 3));
	}
	run_prim(__LINE__, &md, "tex_store", &x, 1, NULL);
	checks++;
	if (tensor_get(x, 7) != 7 || tensor_get(x, 8) != 1 || tensor_get(x, 11) != 1 ||
	    tensor_get(x, 12) != 12) {
		failures++;
		printf("FAIL %s:%d: texture2d_store(%%X, 0, 1, ...) wrote elsewhere than 8..11\n",
		       __FILE__, __LINE__);
	}
	run_prim(__LINE__, &md, "tex_oob", (Tensor *[]){x, f}, 2,
	         "texel x 2 is out of bounds for '%X', an image 2 wide and 2 high");
	tensor_free(a);
	tensor_free(o);
	tensor_free(f);
	tensor_free(n);
	tensor_free(x);
	mod_free(&md);
}

/* A loop of scalar lets and stores, and ifs of them, only (interp_code.c's
 * leaf loops, run without the statement stack), short and long: each
 * iteration's statements in order, a let read by the stores after it, a
 * store read back by a later statement, an index running backwards, a 2-d
 * access whose row an outer variable picks, ifs within ifs taking each
 * arm, and an index out of bounds (in an if's arm too) stopping the loop
 * where it happens, what the iterations before it stored kept. */
static void
test_leaf_loops(void)
{
	Mod md = parse(__LINE__,
	        "device @cpu = cpu(0)\n"
	        "prim @leaf(%A: f32[16] @cpu, %O: f32[16] @cpu, %P: f32[16] @cpu, %n: i32) {\n"
	        "  for %i in 0..%n {\n"
	        "    let %v: f32 = %A[%i] * 2.0\n"
	        "    %O[%i] = %v + 1.0\n"
	        "    %P[15 - %i] = %O[%i] + %v\n"
	        "  }\n"
	        "}\n"
	        "prim @guard(%A: f32[16] @cpu, %O: f32[16] @cpu) {\n"
	        "  for %i in 0..16 {\n"
	        "    let %x: i32 = %i - 2\n"
	        "    if %x >= 0 && %x < 12 {\n"
	        "      if %x < 6 {\n"
	        "        %O[%i] = %A[%x]\n"
	        "      } else {\n"
	        "        %O[%i] = 0.0 - %A[%x]\n"
	        "      }\n"
	        "    } else {\n"
	        "      %O[%i] = 0.5\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @guard_oob(%A: f32[16] @cpu, %O: f32[16] @cpu) {\n"
	        "  for %i in 0..16 {\n"
	        "    if %i > 3 {\n"
	        "      %O[%i] = %A[%i + 4]\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @rows(%A: f32[16] @cpu, %M: f32[3,8] @cpu) {\n"
	        "  for %j in 0..2 {\n"
	        "    for %i in 0..8 {\n"
	        "      %M[%j + 1, 7 - %i] = %A[%j * 8 + %i] + %M[0, %i * 1]\n"
	        "    }\n"
	        "  }\n"
	        "}\n");
	Tensor *a = T1(ET_F32, 16), *o = T1(ET_F32, 16), *p = T1(ET_F32, 16), *n = T0(ET_I32);
	for (int64_t k = 0; k < 16; k++)
		tensor_set(a, k, (double)k);
	for (int64_t len = 6; len <= 16; len += 10) {
		tensor_set_int(n, 0, len);
		run_prim(__LINE__, &md, "leaf", (Tensor *[]){a, o, p, n}, 4, NULL);
		checks++;
		int64_t last = len - 1;
		if (tensor_get(o, last) != 2 * last + 1 || tensor_get(p, 15 - last) != 4 * last + 1 ||
		    tensor_get(p, 15) != 1) {
			failures++;
			printf("FAIL %s:%d: %lld iterations stored O[last] %g, P[15 - last] %g, P[15] %g\n",
			       __FILE__, __LINE__, (long long)len, tensor_get(o, last), tensor_get(p, 15 - last),
			       tensor_get(p, 15));
		}
	}
	for (int64_t k = 0; k < 16; k++)
		tensor_set(p, k, -1);
	tensor_set_int(n, 0, 18);
	run_prim(__LINE__, &md, "leaf", (Tensor *[]){a, o, p, n}, 4,
	         "index 16 is out of bounds for axis 0 of '%A' (size 16)");
	checks++;
	if (tensor_get(p, 0) != 61) {
		failures++;
		printf("FAIL %s:%d: the iterations before the failing one stored P[0] %g, not 61\n",
		       __FILE__, __LINE__, tensor_get(p, 0));
	}
	run_prim(__LINE__, &md, "guard", (Tensor *[]){a, o}, 2, NULL);
	bool ok = true;
	for (int64_t i = 0; i < 16; i++) {
		double want = i < 2 || i >= 14 ? 0.5 : i < 8 ? (double)(i - 2) : -(double)(i - 2);
		ok &= tensor_get(o, i) == want;
	}
	checks++;
	if (!ok) {
		failures++;
		printf("FAIL %s:%d: a leaf loop's ifs within ifs took the wrong arms\n", __FILE__, __LINE__);
	}
	for (int64_t k = 0; k < 16; k++)
		tensor_set(o, k, -1);
	run_prim(__LINE__, &md, "guard_oob", (Tensor *[]){a, o}, 2,
	         "index 16 is out of bounds for axis 0 of '%A' (size 16)");
	checks++;
	if (tensor_get(o, 3) != -1 || tensor_get(o, 11) != 15 || tensor_get(o, 12) != -1) {
		failures++;
		printf("FAIL %s:%d: an if's store before the failing iteration: O[3] %g, O[11] %g, "
		       "O[12] %g, not -1, 15, -1\n", __FILE__, __LINE__, tensor_get(o, 3),
		       tensor_get(o, 11), tensor_get(o, 12));
	}
	Tensor *m = T2(ET_F32, 3, 8);
	for (int64_t k = 0; k < 8; k++)
		tensor_set(m, k, 100 * (double)k);
	run_prim(__LINE__, &md, "rows", (Tensor *[]){a, m}, 2, NULL);
	bool good = true;
	for (int64_t j = 0; j < 2; j++)
		for (int64_t i = 0; i < 8; i++)
			good &= tensor_get(m, (j + 1) * 8 + 7 - i) == (double)(j * 8 + i) + 100 * (double)i;
	checks++;
	if (!good) {
		failures++;
		printf("FAIL %s:%d: @rows stored elsewhere than M[j + 1, 7 - i]\n", __FILE__, __LINE__);
	}
	tensor_free(a);
	tensor_free(o);
	tensor_free(p);
	tensor_free(n);
	tensor_free(m);
	mod_free(&md);
}

static void
test_barriers(void)
{
	Mod md = parse(__LINE__,
	        "device @gpu = gpu(0)\n"
	        // each work item reads its neighbour's value through shared memory
	        "prim @rot(%A: f32[2,8] @gpu, %B: f32[2,8] @gpu) {\n"
	        "  kernel @rot_k {\n"
	        "    for %g in 0..2 bind(blockIdx.x) {\n"
	        "      alloc %T: f32[8] @gpu:shared\n"
	        "      for %t in 0..8 bind(threadIdx.x) {\n"
	        "        let %x = %A[%g, %t] * 2.0\n"
	        "        %T[%t] = %x\n"
	        "        barrier\n"
	        "        let %n = (%t + 1) % 8\n"
	        "        let %y = %T[%n] + %x\n"
	        "        barrier\n"
	        "        %T[%t] = %y\n"
	        "        barrier\n"
	        "        %B[%g, %t] = %T[(%t + 7) % 8]\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        // a 2-d work group (a perfect nest), shared memory allocated in
	        // the work item's body, a private alloc kept across the barrier
	        "prim @flip(%A: f32[2,4] @gpu, %B: f32[2,4] @gpu) {\n"
	        "  kernel @flip_k {\n"
	        "    for %ty in 0..2 bind(threadIdx.y) {\n"
	        "      for %tx in 1..5 bind(threadIdx.x) {\n"
	        "        alloc %S: f32[2,4] @gpu:shared\n"
	        "        alloc %p: f32[1] @gpu:local\n"
	        "        %p[0] = %A[%ty, %tx - 1] + 0.5\n"
	        "        %S[%ty, %tx - 1] = %A[%ty, %tx - 1]\n"
	        "        barrier\n"
	        "        %B[%ty, %tx - 1] = %S[1 - %ty, 4 - %tx] * 10.0 + %p[0]\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        // ir(5)'s example: a sum through work-group memory, then a scaling
	        "prim @sum(%A: f32[64] @gpu, %k: f32, %S: f32[1] @gpu) {\n"
	        "  kernel @sum_k0 {\n"
	        "    for %g in 0..1 bind(blockIdx.x) {\n"
	        "      for %t in 0..64 bind(threadIdx.x) {\n"
	        "        alloc %T: f32[64] @gpu:shared\n"
	        "        %T[%t] = %A[%t]\n"
	        "        barrier\n"
	        "        if %t == 0 {\n"
	        "          %S[0] = 0.0\n"
	        "          for %i in 0..64 unrolled {\n"
	        "            %S[0] = %S[0] + %T[%i]\n"
	        "          }\n"
	        "        }\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "  kernel @sum_k1 {\n"
	        "    for %g1 in 0..1 bind(blockIdx.x) {\n"
	        "      for %t1 in 0..1 bind(threadIdx.x) {\n"
	        "        %S[0] = %S[0] * %k\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        /* each item's vector and scalars kept across barriers (the
	         * interpreter keeps a scalar's first lane, a vector whole) */
	        "prim @vec(%A: f32[32] @gpu, %B: f32[32] @gpu) {\n"
	        "  kernel @k {\n"
	        "    alloc %S: f32[32] @gpu:shared\n"
	        "    for %t in 0..8 bind(threadIdx.x) {\n"
	        "      let %v: f32x4 = %A[%t * 4:4] + broadcast<f32x4>(cast<f32>(%t))\n"
	        "      let %s = cast<f32>(%t) * 100.0\n"
	        "      %S[%t * 4:4] = %v\n"
	        "      barrier\n"
	        "      let %w: f32x4 = %S[(%t + 1) % 8 * 4:4]\n"
	        "      barrier\n"
	        "      %B[%t * 4:4] = %v * broadcast<f32x4>(10.0) + %w + broadcast<f32x4>(%s)\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @in_if(%A: f32[4] @gpu) {\n"
	        "  kernel @k {\n"
	        "    for %t in 0..4 bind(threadIdx.x) {\n"
	        "      if %t < 2 {\n"
	        "        barrier\n"
	        "      }\n"
	        "      %A[%t] = 1.0\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @in_loop(%A: f32[4] @gpu) {\n"
	        "  kernel @k {\n"
	        "    for %t in 0..4 bind(threadIdx.x) {\n"
	        "      %A[%t] = 1.0\n"
	        "      barrier\n"
	        "      for %i in 0..%t {\n"
	        "        barrier\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        /* a shared tile rotated in a serial loop, as the gpu matrix
	         * product's k steps: each step meets at two barriers */
	        "prim @rot_loop(%A: f32[8] @gpu, %B: f32[8] @gpu) {\n"
	        "  kernel @k {\n"
	        "    alloc %S: f32[8] @gpu:shared\n"
	        "    for %t in 0..8 bind(threadIdx.x) {\n"
	        "      alloc %v: f32[1] @gpu:local\n"
	        "      %v[0] = %A[%t]\n"
	        "      for %i in 0..3 {\n"
	        "        for %j in 0..1 unrolled {\n"
	        "          %S[%t] = %v[0]\n"
	        "        }\n"
	        "        barrier\n"
	        "        %v[0] = %S[(%t + 1) % 8] + 1.0\n"
	        "        barrier\n"
	        "      }\n"
	        "      %B[%t] = %v[0]\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @outside(%A: f32[4] @gpu) {\n"
	        "  kernel @k {\n"
	        "    for %b in 0..4 bind(blockIdx.x) {\n"
	        "      %A[%b] = 1.0\n"
	        "      barrier\n"
	        "    }\n"
	        "  }\n"
	        "}\n"
	        "prim @nested(%A: f32[4,4] @gpu) {\n"
	        "  kernel @k {\n"
	        "    for %ty in 0..4 bind(threadIdx.y) {\n"
	        "      let %r = %ty\n"
	        "      for %tx in 0..4 bind(threadIdx.x) {\n"
	        "        %A[%r, %tx] = 1.0\n"
	        "        barrier\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n");
	Tensor *a = T2(ET_F32, 2, 8), *b = T2(ET_F32, 2, 8);
	for (int i = 0; i < 16; i++)
		tensor_set(a, i, i);
	run_prim(__LINE__, &md, "rot", (Tensor *[]){a, b}, 2, NULL);
	bool good = true;
	for (int g = 0; g < 2; g++)
		for (int t = 0; t < 8; t++) {
			/* item t-1 (mod 8) stored 2*A[t-1] + 2*A[t] */
			int p = (t + 7) % 8;
			double want = 2 * (g * 8 + p) + 2 * (g * 8 + (p + 1) % 8);
			good &= tensor_get(b, g * 8 + t) == want;
		}
	CHECK(good, "work items exchange values through shared memory and barriers");
	tensor_free(a);
	tensor_free(b);

	Tensor *fa = T2(ET_F32, 2, 4), *fb = T2(ET_F32, 2, 4);
	for (int i = 0; i < 8; i++)
		tensor_set(fa, i, i + 1);
	run_prim(__LINE__, &md, "flip", (Tensor *[]){fa, fb}, 2, NULL);
	good = true;
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 4; x++) {
			double want = tensor_get(fa, (1 - y) * 4 + (3 - x)) * 10 +
			              tensor_get(fa, y * 4 + x) + 0.5;
			double got = tensor_get(fb, y * 4 + x);
			if (got != want) {
				good = false;
				printf("  flip B[%d,%d] = %g, want %g\n", y, x, got, want);
			}
		}
	CHECK(good, "a 2-d work group with shared and private allocs across a barrier");
	tensor_free(fa);
	tensor_free(fb);

	Tensor *sa = T1(ET_F32, 64), *k = T0(ET_F32), *s = T1(ET_F32, 1);
	for (int i = 0; i < 64; i++)
		tensor_set(sa, i, i);
	tensor_set(k, 0, 0.5);
	run_prim(__LINE__, &md, "sum", (Tensor *[]){sa, k, s}, 3, NULL);
	CHECK(tensor_get(s, 0) == 63 * 64 / 2 * 0.5, "ir(5)'s sum: %g", tensor_get(s, 0));
	Tensor *va = T1(ET_F32, 32), *vb = T1(ET_F32, 32);
	for (int i = 0; i < 32; i++)
		tensor_set(va, i, i);
	run_prim(__LINE__, &md, "vec", (Tensor *[]){va, vb}, 2, NULL);
	good = true;
	for (int t = 0; t < 8; t++)
		for (int l = 0; l < 4; l++) {
			int n = (t + 1) % 8;
			double want = (t * 4 + l + t) * 10.0 + (n * 4 + l + n) + t * 100.0;
			good &= tensor_get(vb, t * 4 + l) == want;
		}
	CHECK(good, "each work item's vector and scalar lets kept across barriers");
	tensor_free(va);
	tensor_free(vb);
	tensor_free(sa);
	tensor_free(k);
	tensor_free(s);

	Tensor *f = T1(ET_F32, 4), *ff = T2(ET_F32, 4, 4);
	run_prim(__LINE__, &md, "in_if", &f, 1, "barrier inside an 'if' is not supported by the interpreter");
	run_prim(__LINE__, &md, "in_loop", &f, 1, "runs 0..0 in one work item and 0..1 in another");
	Tensor *ra = T1(ET_F32, 8), *rb = T1(ET_F32, 8);
	for (int i = 0; i < 8; i++)
		tensor_set(ra, i, i * i);
	run_prim(__LINE__, &md, "rot_loop", (Tensor *[]){ra, rb}, 2, NULL);
	good = true;
	for (int t = 0; t < 8; t++)
		good &= tensor_get(rb, t) == ((t + 3) % 8) * ((t + 3) % 8) + 3;
	CHECK(good, "barriers inside a serial loop: three steps through shared memory");
	tensor_free(ra);
	tensor_free(rb);
	run_prim(__LINE__, &md, "outside", &f, 1, "barrier outside any threadIdx loop");
	run_prim(__LINE__, &md, "nested", &ff, 1, "nested inside the body of another");
	tensor_free(f);
	tensor_free(ff);
	mod_free(&md);
}

static void
test_f16(void)
{
	Mod md = parse(__LINE__,
	        "device @gpu = gpu(0)\n"
	        "prim @h(%A: f16[4] @gpu, %B: f16[4] @gpu, %C: f16[4] @gpu, %D: f32[1] @gpu) {\n"
	        "  for %i in 0..4 {\n"
	        "    %C[%i] = %A[%i] + %B[%i]\n"
	        "  }\n"
	        "  %D[0] = cast<f32>(exp(%A[0]))\n"
	        "}\n"
	        "prim @h4(%A: f16[8] @gpu) {\n"
	        "  %A[4:4] = %A[0:4] * broadcast<f16x4>(3.0)\n"
	        "}\n");
	Tensor *t[4] = {T1(ET_F16, 4), T1(ET_F16, 4), T1(ET_F16, 4), T1(ET_F32, 1)};
	double a[4] = {1, 65504, 0.1, -2}, b[4] = {ldexp(1, -11), 65504, 0.2, 0.5};
	for (int i = 0; i < 4; i++) {
		tensor_set(t[0], i, a[i]);
		tensor_set(t[1], i, b[i]);
	}
	run_prim(__LINE__, &md, "h", t, 4, NULL);
	CHECK(tensor_get(t[2], 0) == 1, "f16 1 + 2^-11 rounds to even: %.10g", tensor_get(t[2], 0));
	CHECK(isinf(tensor_get(t[2], 1)), "f16 65504 + 65504 overflows");
	double s = f16_to_double(f16_from_double(f16_to_double(f16_from_double(0.1)) +
	                                         f16_to_double(f16_from_double(0.2))));
	CHECK(tensor_get(t[2], 2) == s, "f16 0.1 + 0.2 = %.10g, want %.10g", tensor_get(t[2], 2), s);
	CHECK(tensor_get(t[2], 3) == -1.5, "f16 -2 + 0.5");
	CHECK(tensor_get(t[3], 0) == f16_to_double(f16_from_double(exp(1.0))),
	      "exp in f16, then cast: %.10g", tensor_get(t[3], 0));
	free_all(t, 4);

	Tensor *v = T1(ET_F16, 8);
	for (int i = 0; i < 4; i++)
		tensor_set(v, i, 0.1 * (i + 1));
	run_prim(__LINE__, &md, "h4", &v, 1, NULL);
	bool good = true;
	for (int i = 0; i < 4; i++)
		good &= tensor_get(v, 4 + i) ==
		        f16_to_double(f16_from_double(3 * f16_to_double(f16_from_double(0.1 * (i + 1)))));
	CHECK(good, "f16x4 lanes");
	tensor_free(v);
	mod_free(&md);
}

/* intrin.def is the one table: every name finds its own id, an unknown
 * or truncated name finds none. */
static void
test_intrinsic_table(void)
{
	for (int i = 0; i < I__COUNT; i++) {
		const char *nm = intrin_def((IntrinId)i)->name;
		CHECK(intrin_lookup(nm, strlen(nm)) == (IntrinId)i, "intrin_lookup(%s)", nm);
	}
	CHECK(intrin_lookup("fmax", 4) == I__COUNT && intrin_lookup("ma", 2) == I__COUNT &&
	      intrin_lookup("maxi", 3) == I_MAX, "intrin_lookup takes exactly n bytes");
	CHECK(intrin_def(I_FMA)->nargs == 3 && intrin_def(I_EXP)->float_only &&
	      !intrin_def(I_ABS)->float_only, "intrin_def");
}

static void
test_intrinsics(void)
{
	Mod md = parse(__LINE__,
	        "device @cpu = cpu(0)\n"
	        "prim @f(%A: f32[4] @cpu, %O: f32[12] @cpu) {\n"
	        "  let %nan = 0.0 / 0.0\n"
	        "  %O[0] = select(%A[0] < %A[1], %A[0], %A[1])\n"
	        "  %O[1] = min(%nan, 1.0)\n"
	        "  %O[2] = max(1.0, %nan)\n"
	        "  %O[3] = exp(%A[1])\n"
	        "  %O[4] = sigmoid(%A[0])\n"
	        "  %O[5] = rsqrt(%A[2])\n"
	        "  %O[6] = fma(%A[1], %A[2], %A[3])\n"
	        "  %O[7] = pow(%A[2], 0.5) + floor(%A[3]) + ceil(%A[3])\n"
	        "  %O[8] = abs(%A[3]) + tanh(0.0) + log(1.0) + sqrt(%A[2])\n"
	        "  let %big: i32 = 16777217\n"
	        "  %O[9] = cast<f32>(%big)\n"
	        "  %O[10] = min(%A[0], %A[1])\n"
	        "  %O[11] = cast<f32>(cast<f64>(%A[1]) / 3.0)\n"
	        "}\n"
	        "prim @casts(%A: f32[4] @cpu, %I: i32[4] @cpu, %U: u8[4] @cpu, %B: bool[3] @cpu) {\n"
	        "  %I[0] = cast<i32>(%A[0])\n"           // -2.7 -> -2
	        "  %I[1] = cast<i32>(%A[1] * 1e10)\n"    // saturates
	        "  %I[2] = cast<i32>(0.0 / 0.0)\n"       // NaN -> 0
	        "  %I[3] = cast<i32>(cast<u8>(%I[3]))\n" // 300 -> 44
	        "  %U[0] = cast<u8>(%A[2] * 100.0)\n"    // 400 -> 255
	        "  %U[1] = cast<u8>(%A[0])\n"            // -2.7 -> 0
	        "  %U[2] = cast<u8>(cast<bool>(%A[3]))\n"
	        "  %U[3] = cast<u8>(%I[0])\n"            // -2 -> 254
	        "  %B[0] = cast<bool>(2)\n"
	        "  %B[1] = !(%A[0] < 0.0) || %A[1] == 1.0 && false\n"
	        "  %B[2] = select(true, %A[0] != %A[0], true)\n"
	        "}\n");
	Tensor *a = T1(ET_F32, 4), *o = T1(ET_F32, 12);
	float in[4] = {-2.7f, 1.0f, 4.0f, -1.5f};
	for (int i = 0; i < 4; i++)
		tensor_set(a, i, in[i]);
	run_prim(__LINE__, &md, "f", (Tensor *[]){a, o}, 2, NULL);
	double w[12] = {
		(double)-2.7f, NAN, NAN, (double)(float)exp(1.0), (double)(float)(1 / (1 + exp(2.7f))),
		0.5, 2.5, 2 - 2 - 1, 1.5 + 2, 16777216, (double)-2.7f, (double)(float)(1.0 / 3),
	};
	for (int i = 0; i < 12; i++)
		CHECK(isnan(w[i]) ? isnan(tensor_get(o, i)) : tensor_get(o, i) == w[i],
		      "intrinsic %d: %.10g, want %.10g", i, tensor_get(o, i), w[i]);

	Tensor *ti = T1(ET_I32, 4), *tu = T1(ET_U8, 4), *tb = T1(ET_BOOL, 3);
	tensor_set_int(ti, 3, 300);
	run_prim(__LINE__, &md, "casts", (Tensor *[]){a, ti, tu, tb}, 4, NULL);
	int64_t wi[4] = {-2, 2147483647, 0, 44}, wu[4] = {255, 0, 1, 254}, wb[3] = {1, 0, 0};
	for (int i = 0; i < 4; i++) {
		CHECK(tensor_get_int(ti, i) == wi[i], "cast i32 %d: %lld", i, (long long)tensor_get_int(ti, i));
		CHECK(tensor_get_int(tu, i) == wu[i], "cast u8 %d: %lld", i, (long long)tensor_get_int(tu, i));
	}
	for (int i = 0; i < 3; i++)
		CHECK(tensor_get_int(tb, i) == wb[i], "bool %d: %lld", i, (long long)tensor_get_int(tb, i));
	tensor_free(a);
	tensor_free(o);
	tensor_free(ti);
	tensor_free(tu);
	tensor_free(tb);
	mod_free(&md);
}

/* Appends to a growable string. */
typedef struct {
	char *s;
	size_t n, cap;
} Buf;

static void
put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(Buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (k >= 0 && (size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = b->cap * 2 + (size_t)k + 64;
		b->s = xrealloc(b->s, b->cap);
	}
}

/* Ten thousand nested ifs and loops: no C recursion over statements. */
static void
test_deep(void)
{
	enum { DEPTH = 10000 };
	Buf b = {xmalloc(64), 0, 64};
	put(&b, "device @cpu = cpu(0)\nprim @deep(%%A: i32[1] @cpu) {\n");
	for (int i = 0; i < DEPTH; i++) {
		if (i % 2)
			put(&b, "if %%i%d < 2 {\n", i - 1);
		else
			put(&b, "for %%i%d in 0..%d {\n", i, i % 1000 == 0 ? 2 : 1);
	}
	put(&b, "%%A[0] = %%A[0] + 1\n");
	for (int i = 0; i < DEPTH; i++)
		put(&b, "}\n");
	put(&b, "}\n");
	Mod md = parse(__LINE__, b.s);
	free(b.s);
	Tensor *a = T1(ET_I32, 1);
	run_prim(__LINE__, &md, "deep", &a, 1, NULL);
	/* ten loops of two iterations */
	CHECK(tensor_get_int(a, 0) == 1024, "deep nest: %lld", (long long)tensor_get_int(a, 0));
	tensor_free(a);
	mod_free(&md);
}

/* A 3x3 convolution, 16 to 16 channels on 32x32 (2.4M multiply-adds), as
 * a lowering would write it: checked against C, and timed. */
static void
test_conv_speed(void)
{
	Mod md = parse(__LINE__,
	        "device @gpu = gpu(0)\n"
	        "prim @conv(%X: f32[1,16,34,34] @gpu, %W: f32[16,16,3,3] @gpu, %Y: f32[1,16,32,32] @gpu) {\n"
	        "  kernel @conv_k {\n"
	        "    for %b in 0..512 bind(blockIdx.x) {\n"
	        "      for %t in 0..32 bind(threadIdx.x) {\n"
	        "        let %o = %b * 32 + %t\n"
	        "        let %c = %o / 1024\n"
	        "        let %y = %o / 32 % 32\n"
	        "        let %x = %o % 32\n"
	        "        alloc %acc: f32[1] @gpu:local\n"
	        "        %acc[0] = 0.0\n"
	        "        for %r in 0..16 {\n"
	        "          for %ky in 0..3 {\n"
	        "            for %kx in 0..3 unrolled {\n"
	        "              %acc[0] = %acc[0] + %X[0, %r, %y + %ky, %x + %kx] * %W[%c, %r, %ky, %kx]\n"
	        "            }\n"
	        "          }\n"
	        "        }\n"
	        "        %Y[0, %c, %y, %x] = %acc[0]\n"
	        "      }\n"
	        "    }\n"
	        "  }\n"
	        "}\n");
	Tensor *x = tens(ET_F32, 4, (const int64_t[]){1, 16, 34, 34});
	Tensor *w = tens(ET_F32, 4, (const int64_t[]){16, 16, 3, 3});
	Tensor *y = tens(ET_F32, 4, (const int64_t[]){1, 16, 32, 32});
	for (int64_t i = 0; i < x->numel; i++)
		tensor_set(x, i, (double)((i * 7) % 13 - 6) * 0.25);
	for (int64_t i = 0; i < w->numel; i++)
		tensor_set(w, i, (double)((i * 5) % 11 - 5) * 0.125);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_prim(__LINE__, &md, "conv", (Tensor *[]){x, w, y}, 3, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	bool good = true;
	const float *X = x->data, *W = w->data, *Y = y->data;
	for (int c = 0; c < 16; c++)
		for (int yy = 0; yy < 32; yy++)
			for (int xx = 0; xx < 32; xx++) {
				float acc = 0;
				for (int r = 0; r < 16; r++)
					for (int ky = 0; ky < 3; ky++)
						for (int kx = 0; kx < 3; kx++)
							acc = acc + X[(r * 34 + yy + ky) * 34 + xx + kx] *
							            W[((c * 16 + r) * 3 + ky) * 3 + kx];
				good &= Y[(c * 32 + yy) * 32 + xx] == acc;
			}
	CHECK(good, "conv: f32 loop nest equals C's f32 arithmetic");
	printf("interp_prim_test: conv 3x3 16->16 on 32x32 (2.4M MACs) in %.3f s\n", secs);
	tensor_free(x);
	tensor_free(w);
	tensor_free(y);
	mod_free(&md);
}

int
main(void)
{
	test_elementwise();
	test_reduction();
	test_lanes();
	test_integers();
	test_bounds();
	test_leaf_loops();
	test_barriers();
	test_f16();
	test_intrinsic_table();
	test_intrinsics();
	test_deep();
	test_conv_speed();
	printf("interp_prim_test: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
