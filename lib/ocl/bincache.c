/* bincache.c: OpenCL program binaries cached across runs (bincache.h).
 *
 * An entry file is
 *     "irpipe-bincache 1\n"  magic and format version
 *     u64 key length, key text
 *     u64 binary length, binary
 *     u64 FNV-1a hash of the binary
 * integers little-endian.  The key text ends with the whole source, so a
 * match is exact, not a hash's word.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir.h"
#include "ocl/bincache.h"

static const char magic[] = "irpipe-bincache 1\n";

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

#define FNV0 0xcbf29ce484222325ULL

/* mkdir -p of an absolute path, private to the user. */
static bool
make_dirs(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
		*p = c;
		if (!ok)
			return false;
		if (!c)
			return true;
	}
}

void
bincache_open(BinCache *bc, bool off)
{
	memset(bc, 0, sizeof *bc);
	if (off)
		return;
	/* XDG: a relative XDG_CACHE_HOME is to be ignored */
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *base, *sub;
	if (x && x[0] == '/')
		base = x, sub = "/irpipe";
	else if (home && home[0] == '/')
		base = home, sub = "/.cache/irpipe";
	else
		return;
	size_t n = strlen(base) + strlen(sub) + 1;
	char *d = xmalloc(n);
	snprintf(d, n, "%s%s", base, sub);
	if (!make_dirs(d)) {
		free(d);
		return;
	}
	bc->dir = d;
}

void
bincache_close(BinCache *bc)
{
	free(bc->dir);
	bc->dir = NULL;
}

static void
dev_str(cl_device_id dev, cl_device_info what, char *buf, size_t n)
{
	buf[0] = 0;
	if (clGetDeviceInfo(dev, what, n - 1, buf, NULL) != CL_SUCCESS)
		buf[0] = 0;
	buf[n - 1] = 0;
}

char *
bincache_key(cl_device_id dev, const char *src, size_t len, const char *opts)
{
	char pname[256] = "", dname[256], dver[256], drv[256];
	cl_platform_id plat = NULL;
	if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) == CL_SUCCESS &&
	    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL) != CL_SUCCESS)
		pname[0] = 0;
	pname[sizeof pname - 1] = 0;
	dev_str(dev, CL_DEVICE_NAME, dname, sizeof dname);
	dev_str(dev, CL_DEVICE_VERSION, dver, sizeof dver);
	dev_str(dev, CL_DRIVER_VERSION, drv, sizeof drv);
	const char *fmt = "platform %s\ndevice %s\nversion %s\ndriver %s\noptions %s\nsource\n";
	int h = snprintf(NULL, 0, fmt, pname, dname, dver, drv, opts);
	char *k = xmalloc((size_t)h + len + 1);
	snprintf(k, (size_t)h + 1, fmt, pname, dname, dver, drv, opts);
	memcpy(k + h, src, len);
	k[h + len] = 0;
	return k;
}

static char *
entry_path(const BinCache *bc, const char *key)
{
	size_t n = strlen(bc->dir) + 32;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%016llx.bin", bc->dir,
	         (unsigned long long)fnv(FNV0, key, strlen(key)));
	return p;
}

static bool
read_u64(FILE *f, uint64_t *v)
{
	unsigned char b[8];
	if (fread(b, 1, 8, f) != 8)
		return false;
	*v = 0;
	for (int i = 7; i >= 0; i--)
		*v = *v << 8 | b[i];
	return true;
}

static bool
write_u64(FILE *f, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> 8 * i);
	return fwrite(b, 1, 8, f) == 8;
}

/* The binary of the entry at path when its key is key, else NULL.  Every
 * length is checked against the file's size before it is allocated. */
static unsigned char *
read_entry(const char *path, const char *key, size_t *blen)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *bin = NULL;
	char *k = NULL;
	struct stat st;
	char m[sizeof magic - 1];
	uint64_t klen, n, sum;
	size_t want = strlen(key);
	if (fstat(fileno(f), &st) != 0 || fread(m, 1, sizeof m, f) != sizeof m ||
	    memcmp(m, magic, sizeof m) != 0 || !read_u64(f, &klen) || klen != want)
		goto out;
	k = xmalloc(want);
	/* the binary is what the file holds past the header and before the
	 * checksum: a file too short for a checksum is no entry */
	uint64_t frame = sizeof m + 8 + want + 8 + 8;
	if (fread(k, 1, want, f) != want || memcmp(k, key, want) != 0 || !read_u64(f, &n) ||
	    (uint64_t)st.st_size <= frame || n != (uint64_t)st.st_size - frame)
		goto out;
	bin = xmalloc(n);
	if (fread(bin, 1, n, f) != n || !read_u64(f, &sum) || sum != fnv(FNV0, bin, n)) {
		free(bin);
		bin = NULL;
		goto out;
	}
	*blen = n;
out:
	free(k);
	fclose(f);
	return bin;
}

cl_program
bincache_load(BinCache *bc, cl_context ctx, cl_device_id dev, const char *key, const char *opts,
              char **path)
{
	*path = NULL;
	if (!bc->dir)
		return NULL;
	*path = entry_path(bc, key);
	size_t n = 0;
	unsigned char *bin = read_entry(*path, key, &n);
	cl_program p = NULL;
	if (bin) {
		const unsigned char *bins[1] = {bin};
		cl_int st = CL_SUCCESS, e = CL_SUCCESS;
		p = clCreateProgramWithBinary(ctx, 1, &dev, &n, bins, &st, &e);
		free(bin);
		if (p && (e != CL_SUCCESS || st != CL_SUCCESS ||
		          clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS)) {
			clReleaseProgram(p);
			p = NULL;
		}
	}
	if (p)
		bc->hits++;
	else
		bc->misses++;
	return p;
}

void
bincache_store(BinCache *bc, cl_program prog, cl_device_id dev, const char *key)
{
	if (!bc->dir)
		return;
	/* a program of a context of several devices has a binary for each of
	 * them (built or not): dev's is stored */
	cl_uint nd = 0;
	if (clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof nd, &nd, NULL) != CL_SUCCESS ||
	    nd == 0)
		return;
	cl_device_id *devs = xcalloc(nd, sizeof *devs);
	size_t *sizes = xcalloc(nd, sizeof *sizes);
	unsigned char **bins = xcalloc(nd, sizeof *bins);
	unsigned char *bin = NULL;
	size_t n = 0;
	cl_uint at = nd;
	if (clGetProgramInfo(prog, CL_PROGRAM_DEVICES, nd * sizeof *devs, devs, NULL) == CL_SUCCESS &&
	    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, nd * sizeof *sizes, sizes, NULL) ==
	            CL_SUCCESS)
		for (cl_uint i = 0; i < nd && at == nd; i++)
			if (devs[i] == dev)
				at = i;
	if (at < nd && (n = sizes[at]) > 0) {
		bin = bins[at] = xmalloc(n);
		if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, nd * sizeof *bins, bins, NULL) !=
		    CL_SUCCESS)
			n = 0;
	}
	free(devs);
	free(sizes);
	free(bins);
	if (!n) {
		free(bin);
		return;
	}
	char *path = entry_path(bc, key), *tmp = NULL;
	size_t tl = strlen(path) + 32;
	tmp = xmalloc(tl);
	snprintf(tmp, tl, "%s.tmp%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f)
		goto out;
	size_t kl = strlen(key);
	bool ok = fwrite(magic, 1, sizeof magic - 1, f) == sizeof magic - 1 && write_u64(f, kl) &&
	          fwrite(key, 1, kl, f) == kl && write_u64(f, n) && fwrite(bin, 1, n, f) == n &&
	          write_u64(f, fnv(FNV0, bin, n));
	ok = fclose(f) == 0 && ok;
	if (ok && rename(tmp, path) == 0)
		bc->stores++;
	else
		remove(tmp);
out:
	free(tmp);
	free(path);
	free(bin);
}
