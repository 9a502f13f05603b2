/* intrin.c: the table of loop-level intrinsics (intrin.def) and the lookup
 * of a name, which the parser does once per call it reads.  Everything
 * after the parser knows a call by its IntrinId (PExpr.op).
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static const IntrinDef defs[I__COUNT] = {
#define INTRIN(id, nm, na, fo, cl) [I_##id] = {nm, na, fo, cl},
#include "intrin.def"
#undef INTRIN
};

const IntrinDef *
intrin_def(IntrinId id)
{
	return &defs[id];
}

/* The ids sorted by name, made from intrin.def the first time a name is
 * looked up. */
static uint8_t by_name[I__COUNT];
static bool sorted;

static int
cmp_id(const void *a, const void *b)
{
	return strcmp(defs[*(const uint8_t *)a].name, defs[*(const uint8_t *)b].name);
}

IntrinId
intrin_lookup(const char *name, size_t n)
{
	if (!sorted) {
		for (int i = 0; i < I__COUNT; i++)
			by_name[i] = (uint8_t)i;
		qsort(by_name, I__COUNT, sizeof *by_name, cmp_id);
		sorted = true;
	}
	size_t lo = 0, hi = I__COUNT;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = defs[by_name[mid]].name;
		int r = strncmp(name, s, n);
		if (r == 0)     /* name's n bytes are a prefix of s: equal if s ends */
			r = memchr(name, 0, n) ? -1 : s[n] != 0 ? -1 : 0;
		if (r == 0)
			return (IntrinId)by_name[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return I__COUNT;
}
