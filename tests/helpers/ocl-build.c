/* ocl-build: a test helper (not installed).  Builds OpenCL C files with
 * clBuildProgram on the platform named by IRPIPE_OCL_PLATFORM (default
 * "Portable Computing Language", POCL), so tests prove that generated C
 * compiles.  Prints, in words, what failed and the build log.
 *
 *   ocl-build FILE.cl...      exit 0: every file built; 1: one failed;
 *                             2: no such platform or device, or usage
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	*n = len;
	return buf;
}

static cl_platform_id
find_platform(const char *want)
{
	cl_uint n = 0;
	if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0)
		return NULL;
	cl_platform_id *ids = calloc(n, sizeof *ids);
	cl_platform_id found = NULL;
	if (ids && clGetPlatformIDs(n, ids, NULL) == CL_SUCCESS)
		for (cl_uint i = 0; i < n && !found; i++) {
			char name[256] = "";
			clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof name - 1, name, NULL);
			if (strstr(name, want))
				found = ids[i];
		}
	free(ids);
	return found;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ocl-build FILE.cl...\n");
		return 2;
	}
	const char *want = getenv("IRPIPE_OCL_PLATFORM");
	if (!want || !*want)
		want = "Portable Computing Language";
	cl_platform_id plat = find_platform(want);
	if (!plat) {
		fprintf(stderr, "ocl-build: no OpenCL platform named '%s'\n", want);
		return 2;
	}
	cl_device_id dev;
	if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
		fprintf(stderr, "ocl-build: platform '%s' has no device\n", want);
		return 2;
	}
	cl_int err;
	cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (!ctx) {
		fprintf(stderr, "ocl-build: cannot create a context (OpenCL error %d)\n", err);
		return 2;
	}
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		size_t len;
		char *src = slurp(argv[i], &len);
		if (!src) {
			fprintf(stderr, "ocl-build: cannot read '%s'\n", argv[i]);
			rc = 1;
			continue;
		}
		const char *srcs[] = {src};
		cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, &len, &err);
		if (!prog) {
			fprintf(stderr, "ocl-build: %s: cannot create the program (OpenCL error %d)\n",
			        argv[i], err);
			rc = 1;
		} else if ((err = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL)) !=
		           CL_SUCCESS) {
			size_t n = 0;
			clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
			char *log = calloc(n + 1, 1);
			if (log)
				clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
			fprintf(stderr, "ocl-build: %s does not build (OpenCL error %d); the build log:\n%s\n",
			        argv[i], err, log ? log : "");
			free(log);
			rc = 1;
		}
		if (prog)
			clReleaseProgram(prog);
		free(src);
	}
	clReleaseContext(ctx);
	return rc;
}
