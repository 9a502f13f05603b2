/* places.c: the memory plan's places beside the nodes (ir.h, PlaceList):
 * a map keyed by node identity, its lists in the module's arena. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
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

/* a before b in the text: file, line, column; unknown positions last */
static bool
loc_before(Loc a, Loc b)
{
	if (!a.line || !b.line)
		return a.line && !b.line;
	if (a.file != b.file)
		return a.file < b.file;
	return a.line != b.line ? a.line < b.line : a.col < b.col;
}

static void
first_place(const PlaceList *l, void *st)
{
	const Place **first = st;
	for (uint32_t i = 0; i < l->n; i++)
		if (!*first || loc_before(l->p[i].loc, (*first)->loc))
			*first = &l->p[i];
}

bool
module_check_unplanned(Module *m, const char *tool)
{
	const Place *first = NULL;
	module_each_places(m, first_place, &first);
	if (!first)
		return true;
	error_at(m->ctx, first->loc, "the module has a memory plan: run %s before ir-plan-memory", tool);
	return false;
}
