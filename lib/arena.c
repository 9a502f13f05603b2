/* arena.c: bump allocation for module-lifetime memory, and the few
 * malloc wrappers the rest of lib/ uses. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* Chunks grow geometrically so a million-binding module needs few mallocs,
 * but are capped so the last chunk wastes little. */
enum { CHUNK_MIN = 64 * 1024, CHUNK_MAX = 8 * 1024 * 1024 };

typedef struct Chunk Chunk;
struct Chunk {
	Chunk *prev;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct Arena {
	Chunk *cur;
	size_t next_size;
	size_t total;
};

void
die_oom(void)
{
	fputs("irpipe: out of memory\n", stderr);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		die_oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_oom();
	return p;
}

Arena *
arena_new(void)
{
	Arena *a = xcalloc(1, sizeof *a);
	a->next_size = CHUNK_MIN;
	return a;
}

void
arena_free(Arena *a)
{
	if (!a)
		return;
	for (Chunk *c = a->cur, *p; c; c = p) {
		p = c->prev;
		free(c);
	}
	free(a);
}

/* align: 8 for nodes, 1 for strings, which then pack without padding in
 * an arena of their own (a million names like "123456": 4 MB less). */
static void *
alloc_aligned(Arena *a, size_t n, size_t align)
{
	Chunk *c = a->cur;
	size_t off = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || off > c->size || c->size - off < n) {
		size_t sz = a->next_size;
		if (sz < n)
			sz = n;
		c = xmalloc(sizeof *c + sz);
		c->prev = a->cur;
		c->size = sz;
		c->used = 0;
		a->cur = c;
		a->total += sz;
		if (a->next_size < CHUNK_MAX)
			a->next_size *= 2;
		off = 0;
	}
	void *p = c->data + off;
	c->used = off + n;
	memset(p, 0, n);
	return p;
}

void *
arena_alloc(Arena *a, size_t n)
{
	return alloc_aligned(a, n, 8);
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = alloc_aligned(a, n + 1, 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

size_t
arena_bytes(const Arena *a)
{
	return a->total;
}

size_t
vec_cap(size_t cap, size_t need, size_t sz)
{
	if (cap < 16)
		cap = 16;
	while (cap < need)
		cap *= 2;
	if (cap > SIZE_MAX / 2 / sz)
		die_oom();
	return cap;
}

void
ptrvec_push(PtrVec *pv, void *p)
{
	VEC_PUSH(pv->v, pv->n, pv->cap) = p;
}

void
ptrvec_free(PtrVec *pv)
{
	free(pv->v);
	pv->v = NULL;
	pv->n = pv->cap = 0;
}
