/* nameset.h: a set of local names, for "unique per function" checks and
 * for making new names that do not collide. */
#ifndef NAMESET_H
#define NAMESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *s;       /* NULL = empty */
	uint32_t h;          /* its hash, compared before the bytes */
} NameSlot;

typedef struct {
	NameSlot *slot;      /* open addressing, linear probing */
	uint32_t cap, n;
} NameSet;

/* FNV-1a with a final mix: names like %1234 differ only in their last
 * bytes, and tables index by the low bits. */
uint32_t name_hash(const char *s, size_t n);

/* Adds s (not copied: it must outlive the set); false if already there. */
bool nameset_add(NameSet *set, const char *s);
bool nameset_has(const NameSet *set, const char *s);
/* Makes room for n names at once (no rehashing while they are added). */
void nameset_reserve(NameSet *set, uint32_t n);
void nameset_free(NameSet *set);

#endif
