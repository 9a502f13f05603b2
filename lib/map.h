/* map.h: the one hash table of irpipe.
 *
 * A Map files the caller's entries (non-NULL pointers) under 32-bit
 * hashes, and the caller compares keys itself: so one table serves
 * interned names, hash-consed types, the parser's scopes and ir-lower's
 * prim keys, with no callback per probe.  Open addressing with linear
 * probing, at most 3/4 full; entries and hashes sit in two arrays, so a
 * probe that misses reads only the hashes (a million entries: 24 MB).
 * There is no removal: a pass that retires an entry marks it.
 *
 *     MapProbe it;
 *     for (Foo *e = map_first(&m, h, &it); e; e = map_next(&it))
 *             if (same_key(e, key))
 *                     return e;
 *     map_add(&m, h, new_foo);
 */
#ifndef MAP_H
#define MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	void **slot;          /* the entries; NULL = empty */
	uint32_t *hash;       /* each slot's hash */
	uint32_t cap, n;      /* cap: 0 or a power of two */
} Map;

typedef struct {
	const Map *m;
	uint32_t h, i;
} MapProbe;

/* From slot p->i on, the next entry filed under p->h, or NULL. */
static inline void *
map_scan_(MapProbe *p)
{
	const Map *m = p->m;
	for (void *e; (e = m->slot[p->i]); p->i = (p->i + 1) & (m->cap - 1))
		if (m->hash[p->i] == p->h)
			return e;
	return NULL;
}

/* The first entry filed under h (NULL if none); map_next the others. */
static inline void *
map_first(const Map *m, uint32_t h, MapProbe *p)
{
	p->m = m;
	p->h = h;
	if (!m->cap)
		return NULL;
	p->i = h & (m->cap - 1);
	return map_scan_(p);
}

static inline void *
map_next(MapProbe *p)
{
	p->i = (p->i + 1) & (p->m->cap - 1);
	return map_scan_(p);
}

/* Files e under h; the caller has made sure its key is not there yet. */
void map_add(Map *m, uint32_t h, void *e);
/* Makes room for n more entries at once (no rehashing while they come). */
void map_reserve(Map *m, uint32_t n);
/* Frees the table, not the entries (walk m->slot first for those). */
void map_free(Map *m);

/* FNV-1a with a final mix: keys like %1234 differ only in their last
 * bytes, and the table indexes by the low bits. */
uint32_t map_hash(const void *s, size_t n);
/* h with the 8 bytes of v mixed in (for keys of several fields). */
uint32_t map_mix(uint32_t h, uint64_t v);
/* A pointer's hash, for maps keyed by identity. */
static inline uint32_t
map_hash_ptr(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
	return (uint32_t)(x >> 32);
}

#endif
