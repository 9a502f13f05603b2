/* rt_program.c: building a device's program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/rt_impl.h"

static char *
program_text(const Program *pg, size_t *len)
{
	size_t n = 0;
	for (const ProgLine *l = pg->first; l; l = l->next)
		n += l->n + 1;
	char *s = xmalloc(n + 1), *p = s;
	for (const ProgLine *l = pg->first; l; l = l->next) {
		memcpy(p, l->s, l->n);
		p += l->n;
		*p++ = '\n';
	}
	*p = 0;
	*len = n;
	return s;
}

/* Whether rd is POCL's, with POCL's kernel cache on (its default). */
static bool
pocl_caches(const RtDev *rd)
{
	const char *k = getenv("POCL_KERNEL_CACHE");
	return strstr(rd->cl.pname, "Portable Computing Language") && !(k && !strcmp(k, "0"));
}

bool
rt_build_program(OclRt *rt, RtDev *rd, const Program *pg)
{
	Ctx *ctx = rt->m->ctx;
	cl_int e;
	cl_device_id id = rd->cl.id;
	size_t len;
	char *src = program_text(pg, &len);
	if (strstr(src, "cl_khr_fp16")) {
		char ext[8192] = "";
		clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
		if (!strstr(ext, "cl_khr_fp16")) {
			error_at(ctx, pg->loc, "the program of @%s computes in f16, but the OpenCL device "
			         "'%s' has no fp16 (cl_khr_fp16)", rd->decl->name, rd->cl.dname);
			free(src);
			return false;
		}
	}
	/* the binary cache first (bincache.h), else from source */
	const char *opts = "";
	char *key = bincache_key(id, src, len, opts), *path;
	rd->prog = bincache_load(&rt->cache, rd->ctx, id, key, opts, &path);
	if (rt->o.stats && path)
		fprintf(rt->o.stats, "ir-run: @%s: program binary cache %s: %s\n", rd->decl->name,
		        rd->prog ? "hit" : "miss", path);
	free(path);
	if (rd->prog) {
		free(key);
		free(src);
		return true;
	}
	const char *srcs[1] = {src};
	rd->prog = clCreateProgramWithSource(rd->ctx, 1, srcs, &len, &e);
	free(src);
	if (!rd->prog) {
		free(key);
		CLERR(rt, pg->loc, e, "cannot load the program of @%s", rd->decl->name);
		return false;
	}
	rt_progress_begin(rt, "ir-run: building the OpenCL program of @%s on '%s' (not in the "
	                  "binary cache)", rd->decl->name, rd->cl.dname);
	e = clBuildProgram(rd->prog, 1, &id, opts, NULL, NULL);
	rt_progress_end(rt);
	/* stored when the run ends (oclrt_free), so that the binary holds
	 * what the driver compiles at the first launches too; but not from
	 * POCL while its own kernel cache is on: asking POCL for the binary
	 * makes it compile every kernel again for any work-group size
	 * (resnet18: 8 s at the end of a 17 s first ir-run), and its cache
	 * alone makes the next run as fast (0.18 s against 0.19) */
	if (e == CL_SUCCESS && pocl_caches(rd)) {
		if (rt->o.stats)
			fprintf(rt->o.stats, "ir-run: @%s: program binary not stored: POCL keeps the "
			        "build and its kernels in its own cache (POCL_KERNEL_CACHE)\n",
			        rd->decl->name);
		free(key);
	} else if (e == CL_SUCCESS) {
		rd->cache_key = key;
	} else {
		free(key);
	}
	if (e != CL_SUCCESS) {
		size_t n = 0;
		clGetProgramBuildInfo(rd->prog, id, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
		char *log = xcalloc(n + 1, 1);
		clGetProgramBuildInfo(rd->prog, id, CL_PROGRAM_BUILD_LOG, n, log, NULL);
		error_at(ctx, pg->loc, "the program of @%s does not build on '%s' of '%s'; the build "
		         "log:\n%s", rd->decl->name, rd->cl.dname, rd->cl.pname, log);
		free(log);
		return false;
	}
	return true;
}
