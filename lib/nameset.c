/* nameset.c: see nameset.h.  A slot holds the hash beside the pointer, so
 * a probe costs one cache line and a mismatch no string compare. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "nameset.h"

uint32_t
name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

static uint32_t
find_slot(const NameSet *set, const char *s, uint32_t h)
{
	uint32_t i = h & (set->cap - 1);
	while (set->slot[i].s && (set->slot[i].h != h || strcmp(set->slot[i].s, s) != 0))
		i = (i + 1) & (set->cap - 1);
	return i;
}

bool
nameset_has(const NameSet *set, const char *s)
{
	if (!set->cap)
		return false;
	return set->slot[find_slot(set, s, name_hash(s, strlen(s)))].s != NULL;
}

static void
grow(NameSet *set, uint32_t cap)
{
	NameSet old = *set;
	set->cap = cap;
	set->slot = xcalloc(set->cap, sizeof *set->slot);
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.slot[i].s)
			set->slot[find_slot(set, old.slot[i].s, old.slot[i].h)] = old.slot[i];
	free(old.slot);
}

void
nameset_reserve(NameSet *set, uint32_t n)
{
	uint32_t cap = set->cap ? set->cap : 64;
	while ((uint64_t)(set->n + n) * 4 > (uint64_t)cap * 3) /* load at most 3/4 */
		cap *= 2;
	if (cap != set->cap)
		grow(set, cap);
}

bool
nameset_add(NameSet *set, const char *s)
{
	if ((set->n + 1) * 4 > set->cap * 3) {
		NameSet old = *set;
		set->cap = set->cap ? 2 * set->cap : 64;
		set->slot = xcalloc(set->cap, sizeof *set->slot);
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.slot[i].s)
				set->slot[find_slot(set, old.slot[i].s, old.slot[i].h)] = old.slot[i];
		free(old.slot);
	}
	uint32_t h = name_hash(s, strlen(s));
	uint32_t i = find_slot(set, s, h);
	if (set->slot[i].s)
		return false;
	set->slot[i] = (NameSlot){s, h};
	set->n++;
	return true;
}

void
nameset_free(NameSet *set)
{
	free(set->slot);
	memset(set, 0, sizeof *set);
}
