/* places.c: the memory plan's places beside the nodes (ir.h, PlaceList):
 * a map keyed by node identity, its lists in the module's arena. */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "map.h"

const PlaceList *
module_places(const Module *m, const void *node)
{
	const Map *map = m->places;
	if (!map)
		return NULL;
	MapProbe pr;
	for (PlaceList *l = map_first(map, map_hash_ptr(node), &pr); l; l = map_next(&pr))
		if (l->node == node)
			return l;
	return NULL;
}

void
module_set_places(Module *m, const void *node, uint32_t n, const Place *p)
{
	PlaceList *l = (PlaceList *)module_places(m, node);
	if (!l) {
		if (!n)
			return;
		if (!m->places)
			m->places = xcalloc(1, sizeof(Map));
		l = arena_alloc(m->arena, sizeof *l);
		l->node = node;
		map_add(m->places, map_hash_ptr(node), l);
	}
	l->n = n;   /* n 0: an empty list, printed as nothing */
	l->p = n ? arena_alloc(m->arena, n * sizeof *p) : NULL;
	if (n)
		memcpy(l->p, p, n * sizeof *p);
}

void
module_each_places(const Module *m, void (*fn)(const PlaceList *, void *), void *st)
{
	const Map *map = m->places;
	if (!map)
		return;
	for (uint32_t i = 0; i < map->cap; i++)
		if (map->slot[i] && ((PlaceList *)map->slot[i])->n)
			fn(map->slot[i], st);
}

void
module_free_places(Module *m)
{
	if (m->places) {
		map_free(m->places);
		free(m->places);
		m->places = NULL;
	}
}
