/* nameset.c: see nameset.h. */
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
	while (set->s[i] && (set->h[i] != h || strcmp(set->s[i], s) != 0))
		i = (i + 1) & (set->cap - 1);
	return i;
}

bool
nameset_has(const NameSet *set, const char *s)
{
	if (!set->cap)
		return false;
	return set->s[find_slot(set, s, name_hash(s, strlen(s)))] != NULL;
}

bool
nameset_add(NameSet *set, const char *s)
{
	if ((set->n + 1) * 2 > set->cap) {
		NameSet old = *set;
		set->cap = set->cap ? 2 * set->cap : 64;
		set->s = xcalloc(set->cap, sizeof *set->s);
		set->h = xcalloc(set->cap, sizeof *set->h);
		for (uint32_t i = 0; i < old.cap; i++)
			if (old.s[i]) {
				uint32_t j = find_slot(set, old.s[i], old.h[i]);
				set->s[j] = old.s[i];
				set->h[j] = old.h[i];
			}
		free(old.s);
		free(old.h);
	}
	uint32_t h = name_hash(s, strlen(s));
	uint32_t i = find_slot(set, s, h);
	if (set->s[i])
		return false;
	set->s[i] = s;
	set->h[i] = h;
	set->n++;
	return true;
}

void
nameset_free(NameSet *set)
{
	free(set->s);
	free(set->h);
	memset(set, 0, sizeof *set);
}
