/* nameset.c: see nameset.h. */
#include <string.h>

#include "nameset.h"

static const char *
find(const NameSet *set, const char *s, uint32_t h)
{
	MapProbe it;
	for (const char *e = map_first(&set->m, h, &it); e; e = map_next(&it))
		if (strcmp(e, s) == 0)
			return e;
	return NULL;
}

bool
nameset_has(const NameSet *set, const char *s)
{
	return find(set, s, name_hash(s, strlen(s))) != NULL;
}

void
nameset_reserve(NameSet *set, uint32_t n)
{
	map_reserve(&set->m, n);
}

bool
nameset_add(NameSet *set, const char *s)
{
	uint32_t h = name_hash(s, strlen(s));
	if (find(set, s, h))
		return false;
	map_add(&set->m, h, (void *)s);
	return true;
}

void
nameset_free(NameSet *set)
{
	map_free(&set->m);
}
