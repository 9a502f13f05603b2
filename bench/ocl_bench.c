/* ocl-bench: times one prim's generated kernels on POCL through the
 * OpenCL API, until ir-run launches kernels itself (make bench).
 *
 *   ocl-bench [--copy | --vs-cl=FILE.cl,KERNEL,GX,GY,LX,LY[,OPTIONS]]
 *             FILE.ocl.ir PRIM RUNS GFLOP
 *
 * FILE is ir-codegen-ocl's output.  Every buffer parameter and prim-level
 * alloc of @PRIM gets a buffer of its type's size (random floats); the
 * kernels are launched in order, as their launches say; one call of the
 * prim is warmed up, then RUNS calls are timed.  Prints min, median and
 * max milliseconds and GFLOP/s for GFLOP per call, and on stderr
 * "ocl-bench: RUNS runs, median T ms, min T ms" (as ir-run --repeat).
 *
 * --copy: for a memory-bound prim, a float4 buffer copy moving as many
 * bytes as the prim's parameters hold (read + written; research/perf.md
 * §4's ceiling for memory-bound kernels on POCL) is timed call by call
 * alternating with the prim, so that both see the same load on a shared
 * machine; prints both in GB/s and the median of the per-pair ratios.
 *
 * --vs-cl: likewise against a hand-written kernel (KERNEL of FILE.cl,
 * built with OPTIONS, launched on GX x GY items in groups of LX x LY,
 * given the prim's parameter buffers in order), in GFLOP/s: how close
 * the generated code comes to a hand translation (bench/gemm_blk.cl).
 *
 * OCL_BENCH_PLATFORM=NAME takes the first device of the platform whose
 * name contains NAME (default: POCL's); bench/h100.sh times the NVIDIA
 * platform so.  Buffers in a texture scope get RGBA images of their
 * flattened size instead.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "ir.h"
#include "texture/texture.h"

static double
now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return buf;
}

#define CHECK(x, what) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { \
	fprintf(stderr, "ocl-bench: %s failed (OpenCL error %d)\n", what, e_); exit(1); } } while (0)

int
main(int argc, char **argv)
{
	bool copy = argc > 1 && strcmp(argv[1], "--copy") == 0;
	const char *vs = argc > 1 && strncmp(argv[1], "--vs-cl=", 8) == 0 ? argv[1] + 8 : NULL;
	argv += copy || vs;
	argc -= copy || vs;
	if (argc != 5) {
		fprintf(stderr, "usage: ocl-bench [--copy | --vs-cl=FILE.cl,KERNEL,GX,GY,LX,LY[,OPTIONS]] "
		        "FILE.ocl.ir PRIM RUNS GFLOP\n");
		return 2;
	}
	int runs = atoi(argv[3]);
	double gflop = atof(argv[4]);
	size_t len;
	char *text = slurp(argv[1], &len);
	if (!text || runs < 1) {
		fprintf(stderr, "ocl-bench: cannot read '%s'\n", argv[1]);
		return 2;
	}
	Ctx *ctx = ctx_new("ocl-bench");
	Module *m = ir_parse(ctx, src_add(ctx, argv[1], text, len), 0, len);
	if (!m)
		return 1;
	Prim *p = module_prim(m, sym_intern_cstr(m, argv[2]));
	if (!p || !p->nparams || !p->params[0]->vd) {
		fprintf(stderr, "ocl-bench: no prim @%s with buffers\n", argv[2]);
		return 1;
	}
	Program *pg = m->programs;
	while (pg && pg->dev != p->params[0]->vd->dev)
		pg = pg->next;
	if (!pg) {
		fprintf(stderr, "ocl-bench: no program for @%s (run ir-codegen-ocl)\n", p->params[0]->vd->dev);
		return 1;
	}
	size_t srclen = 0;
	for (ProgLine *l = pg->first; l; l = l->next)
		srclen += l->n + 1;
	char *src = malloc(srclen + 1), *w = src;
	for (ProgLine *l = pg->first; l; l = l->next) {
		memcpy(w, l->s, l->n);
		w += l->n;
		*w++ = '\n';
	}
	*w = 0;

	cl_uint np;
	CHECK(clGetPlatformIDs(0, NULL, &np), "clGetPlatformIDs");
	cl_platform_id *ids = calloc(np, sizeof *ids), plat = NULL;
	CHECK(clGetPlatformIDs(np, ids, NULL), "clGetPlatformIDs");
	const char *want = getenv("OCL_BENCH_PLATFORM");
	if (!want || !*want)
		want = "Portable Computing Language";
	for (cl_uint i = 0; i < np && !plat; i++) {
		char name[256] = "";
		clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
		if (strstr(name, want))
			plat = ids[i];
	}
	if (!plat) {
		fprintf(stderr, "ocl-bench: no platform named like '%s'\n", want);
		return 1;
	}
	cl_device_id dev;
	CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
	cl_int err;
	cl_context cx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK(err, "clCreateContext");
	cl_command_queue q = clCreateCommandQueue(cx, dev, 0, &err);
	CHECK(err, "clCreateCommandQueue");
	const char *srcs[] = {src};
	cl_program prog = clCreateProgramWithSource(cx, 1, srcs, &srclen, &err);
	CHECK(err, "clCreateProgramWithSource");
	if (clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL) != CL_SUCCESS) {
		char log[1 << 14] = "";
		clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
		fprintf(stderr, "ocl-bench: the program does not build:\n%s\n", log);
		return 1;
	}

	/* a buffer per parameter and prim-level alloc, found by PVar */
	PVar *vars[256];
	cl_mem mems[256];
	size_t nv = 0;
	for (uint32_t i = 0; i < p->nparams && nv < 256; i++)
		vars[nv++] = p->params[i];
	for (PStmt *s = p->body.first; s && nv < 256; s = s->next)
		if (s->kind == S_ALLOC)
			vars[nv++] = s->u.alloc.buf;
	srand(1);
	for (size_t i = 0; i < nv; i++) {
		size_t bytes = (size_t)type_bytes(vars[i]->type);
		float *init = malloc(bytes + 4);
		for (size_t k = 0; k < bytes / 4; k++)
			init[k] = (float)rand() / RAND_MAX - 0.5f;
		int64_t wh[2] = {0, 0};
		char why[160];
		if (vars[i]->vd && vars[i]->vd->scope && is_texture_scope(vars[i]->vd->scope) &&
		    texture_image(vars[i]->type, vars[i]->vd->scope, wh, why, sizeof why)) {
			cl_image_format f = {CL_RGBA, CL_FLOAT};
			cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = (size_t)wh[0],
			                   .image_height = (size_t)wh[1]};
			mems[i] = clCreateImage(cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, &d, init,
			                        &err);
		} else {
			mems[i] = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, init,
			                         &err);
		}
		CHECK(err, "clCreateBuffer/Image");
		free(init);
	}
	cl_kernel ks[64];
	const Launch *ls[64];
	size_t nk = 0;
	for (PStmt *s = p->body.first; s && nk < 64; s = s->next) {
		if (s->kind != S_KERNEL || !s->u.kernel.launch)
			continue;
		char name[256];
		snprintf(name, sizeof name, "%s", s->u.kernel.name);
		for (char *c = name; *c; c++)
			if (*c == '.')
				*c = '_';
		ks[nk] = clCreateKernel(prog, name, &err);
		CHECK(err, "clCreateKernel");
		ls[nk] = s->u.kernel.launch;
		for (uint32_t a = 0; a < ls[nk]->nargs; a++) {
			size_t j = 0;
			while (j < nv && vars[j] != ls[nk]->args[a])
				j++;
			if (j == nv || vars[j]->kind != PV_BUFFER) {
				fprintf(stderr, "ocl-bench: argument %%%s is not a buffer\n", ls[nk]->args[a]->name);
				return 1;
			}
			CHECK(clSetKernelArg(ks[nk], a, sizeof(cl_mem), &mems[j]), "clSetKernelArg");
		}
		nk++;
	}
	/* the reference kernel: for --copy a float4 copy of half the
	 * parameters' bytes (read, and as many written) */
	cl_kernel ck = NULL;
	size_t cg[2] = {1, 1}, cl[2] = {64, 1};
	double pbytes = 0;
	if (copy) {
		for (uint32_t i = 0; i < p->nparams; i++)
			pbytes += (double)type_bytes(p->params[i]->type);
		cg[0] = (size_t)(pbytes / 2 / 16 / 64) * 64;
		if (cg[0] == 0)
			cg[0] = 64;
		static const char *csrc = "__kernel void copy4(__global const float4 *restrict a, "
		                          "__global float4 *restrict b) { size_t i = get_global_id(0); b[i] = a[i]; }";
		cl_program cp = clCreateProgramWithSource(cx, 1, &csrc, NULL, &err);
		CHECK(err, "clCreateProgramWithSource");
		CHECK(clBuildProgram(cp, 1, &dev, "-cl-std=CL1.2", NULL, NULL), "clBuildProgram (copy)");
		ck = clCreateKernel(cp, "copy4", &err);
		CHECK(err, "clCreateKernel");
		for (int a = 0; a < 2; a++) {
			cl_mem mb = clCreateBuffer(cx, CL_MEM_READ_WRITE, cg[0] * 16, NULL, &err);
			CHECK(err, "clCreateBuffer");
			float zero = 0;
			CHECK(clEnqueueFillBuffer(q, mb, &zero, sizeof zero, 0, cg[0] * 16, 0, NULL, NULL),
			      "clEnqueueFillBuffer");
			CHECK(clSetKernelArg(ck, (cl_uint)a, sizeof mb, &mb), "clSetKernelArg");
		}
	} else if (vs) {
		char file[512], kname[128], opts[512] = "-cl-std=CL1.2 ";
		int n = 0;
		if (sscanf(vs, "%511[^,],%127[^,],%zu,%zu,%zu,%zu%n", file, kname, &cg[0], &cg[1], &cl[0], &cl[1], &n) < 6) {
			fprintf(stderr, "ocl-bench: --vs-cl=FILE.cl,KERNEL,GX,GY,LX,LY[,OPTIONS]\n");
			return 2;
		}
		if (vs[n] == ',')
			snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "%s", vs + n + 1);
		size_t hl;
		char *hsrc = slurp(file, &hl);
		if (!hsrc) {
			fprintf(stderr, "ocl-bench: cannot read '%s'\n", file);
			return 2;
		}
		hsrc[hl] = 0;
		const char *hs[] = {hsrc};
		cl_program hp = clCreateProgramWithSource(cx, 1, hs, &hl, &err);
		CHECK(err, "clCreateProgramWithSource");
		CHECK(clBuildProgram(hp, 1, &dev, opts, NULL, NULL), "clBuildProgram (--vs-cl)");
		ck = clCreateKernel(hp, kname, &err);
		CHECK(err, "clCreateKernel (--vs-cl)");
		for (uint32_t a = 0; a < p->nparams; a++)
			CHECK(clSetKernelArg(ck, a, sizeof(cl_mem), &mems[a]), "clSetKernelArg (--vs-cl)");
	}
	double *t = calloc((size_t)runs, sizeof *t), *tc = calloc((size_t)runs, sizeof *tc);
	double *ratio = calloc((size_t)runs, sizeof *ratio);
	for (int r = -1; r < runs; r++) {
		double t0 = now();
		for (size_t k = 0; k < nk; k++) {
			size_t g[3], lo[3];
			for (int a = 0; a < 3; a++)
				g[a] = (size_t)ls[k]->global[a], lo[a] = (size_t)ls[k]->local[a];
			CHECK(clEnqueueNDRangeKernel(q, ks[k], 3, NULL, g, lo, 0, NULL, NULL),
			      "clEnqueueNDRangeKernel");
		}
		CHECK(clFinish(q), "clFinish");
		double t1 = now();
		if (ck) {
			CHECK(clEnqueueNDRangeKernel(q, ck, 2, NULL, cg, cl, 0, NULL, NULL), "clEnqueueNDRangeKernel");
			CHECK(clFinish(q), "clFinish");
		}
		if (r >= 0) {
			t[r] = t1 - t0;
			tc[r] = now() - t1;
			/* the prim's speed over the reference's (per byte for the
			 * copy, which may move a few bytes less) */
			ratio[r] = copy ? (tc[r] / (double)(cg[0] * 32)) / (t[r] / pbytes) : tc[r] / t[r];
		}
	}
	/* each kernel alone, to stderr: where the time goes */
	for (size_t k = 0; k < nk; k++) {
		double *tk = calloc((size_t)runs, sizeof *tk);
		size_t g[3], lo[3];
		for (int a = 0; a < 3; a++)
			g[a] = (size_t)ls[k]->global[a], lo[a] = (size_t)ls[k]->local[a];
		for (int r = 0; r < runs; r++) {
			double t0 = now();
			CHECK(clEnqueueNDRangeKernel(q, ks[k], 3, NULL, g, lo, 0, NULL, NULL),
			      "clEnqueueNDRangeKernel");
			CHECK(clFinish(q), "clFinish");
			tk[r] = now() - t0;
		}
		qsort(tk, (size_t)runs, sizeof *tk, cmp_double);
		fprintf(stderr, "  kernel %zu: median %.3f ms\n", k, tk[runs / 2] * 1e3);
		free(tk);
	}
	qsort(t, (size_t)runs, sizeof *t, cmp_double);
	double med = t[runs / 2];
	fprintf(stderr, "ocl-bench: %d runs, median %.3f ms, min %.3f ms\n", runs, med * 1e3, t[0] * 1e3);
	if (ck) {
		qsort(tc, (size_t)runs, sizeof *tc, cmp_double);
		qsort(ratio, (size_t)runs, sizeof *ratio, cmp_double);
		if (copy)
			printf("%-8s %9.1f GB/s   float4 copy %9.1f GB/s", argv[2], pbytes / med * 1e-9,
			       (double)(cg[0] * 32) / tc[runs / 2] * 1e-9);
		else
			printf("%-8s %9.1f GFLOP/s   hand kernel %9.1f GFLOP/s", argv[2], gflop / med,
			       gflop / tc[runs / 2]);
		printf("   paired ratio %.2fx [%.2f-%.2f]\n", ratio[runs / 2], ratio[0], ratio[runs - 1]);
		return 0;
	}
	printf("%-8s %9.3f %9.3f %9.3f %9.1f %9.1f %9.1f\n", argv[2], t[0] * 1e3, med * 1e3,
	       t[runs - 1] * 1e3, gflop / t[runs - 1], gflop / med, gflop / t[0]);
	return 0;
}
