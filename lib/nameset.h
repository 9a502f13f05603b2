/* nameset.h: a set of local names, for "unique per function" checks and
 * for making new names that do not collide. */
#ifndef NAMESET_H
#define NAMESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map.h"

/* The names are map.h's entries, filed under name_hash. */
typedef struct {
	Map m;
} NameSet;

/* map.h's string hash, under the name the name tables have used. */
static inline uint32_t
name_hash(const char *s, size_t n)
{
	return map_hash(s, n);
}

/* Adds s (not copied: it must outlive the set); false if already there. */
bool nameset_add(NameSet *set, const char *s);
bool nameset_has(const NameSet *set, const char *s);
/* Makes room for n names at once (no rehashing while they are added). */
void nameset_reserve(NameSet *set, uint32_t n);
void nameset_free(NameSet *set);

#endif
