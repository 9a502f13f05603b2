/* bincache.h: a cache of built OpenCL program binaries across runs of
 * ir-run, so that a second run of a model does not compile its kernels
 * again.
 *
 * An entry is keyed by everything that decides the binary: the program's
 * source, the platform and device names, the device and driver versions
 * and the build options.  Entries live in $XDG_CACHE_HOME/irpipe (an
 * absolute XDG_CACHE_HOME), else ~/.cache/irpipe, one file per key named
 * by the key's hash; the file holds the whole key text and is used only
 * when it matches, so a hash collision, a truncated or corrupt file or
 * one of another driver is a miss that rebuilds and replaces it, never a
 * failure.  Files are written to a temporary beside them and renamed,
 * so a reader never sees a partial entry.
 */
#ifndef OCL_BINCACHE_H
#define OCL_BINCACHE_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
	char *dir;         /* NULL: no cache (--no-cache, or no home) */
	unsigned hits, misses, stores;
} BinCache;

/* Opens the cache (off: a cache that neither reads nor writes). */
void bincache_open(BinCache *bc, bool off);
void bincache_close(BinCache *bc);

/* The key text of (src, dev, opts): a malloc'd string. */
char *bincache_key(cl_device_id dev, const char *src, size_t len, const char *opts);

/* A program for dev built from the cached binary of key, or NULL (a miss:
 * nothing there, a mismatch, or a binary the driver refuses).  *path gets
 * the entry's file name (malloc'd) either way when the cache is on. */
cl_program bincache_load(BinCache *bc, cl_context ctx, cl_device_id dev, const char *key,
                         const char *opts, char **path);

/* Stores the binary that prog was built into for dev under key; failures are
 * silent (the cache is an optimisation). */
void bincache_store(BinCache *bc, cl_program prog, cl_device_id dev, const char *key);

#endif
