/* map.c: see map.h. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "map.h"

uint32_t
map_hash(const void *s, size_t n)
{
	const unsigned char *b = s;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

uint32_t
map_mix(uint32_t h, uint64_t v)
{
	uint64_t x = (h ^ v) * 0x9e3779b97f4a7c15u;
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static void
rehash(Map *m, uint32_t cap)
{
	Map old = *m;
	m->cap = cap;
	m->slot = xcalloc(cap, sizeof *m->slot);
	m->hash = xcalloc(cap, sizeof *m->hash);
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.slot[i]) {
			uint32_t j = old.hash[i] & (cap - 1);
			while (m->slot[j])
				j = (j + 1) & (cap - 1);
			m->slot[j] = old.slot[i];
			m->hash[j] = old.hash[i];
		}
	free(old.slot);
	free(old.hash);
}

void
map_reserve(Map *m, uint32_t n)
{
	uint64_t cap = m->cap ? m->cap : 16;
	while (((uint64_t)m->n + n) * 4 > cap * 3) /* at most 3/4 full */
		cap *= 2;
	if (cap > UINT32_MAX / 2 + 1)
		die_oom();
	if (cap != m->cap)
		rehash(m, (uint32_t)cap);
}

void
map_add(Map *m, uint32_t h, void *e)
{
	if (((uint64_t)m->n + 1) * 4 > (uint64_t)m->cap * 3)
		map_reserve(m, 1);
	uint32_t i = h & (m->cap - 1);
	while (m->slot[i])
		i = (i + 1) & (m->cap - 1);
	m->slot[i] = e;
	m->hash[i] = h;
	m->n++;
}

void
map_free(Map *m)
{
	free(m->slot);
	free(m->hash);
	memset(m, 0, sizeof *m);
}
