/* test_attrs.h: attribute maps built in place, for the unit tests that
 * call the operators' shape rules and kernels without a parsed module. */
#ifndef TEST_ATTRS_H
#define TEST_ATTRS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir.h"

/* An attribute map built in place; keys sorted by the caller's order is
 * not needed (attr_get searches). */
typedef struct {
	AttrEntry e[16];
	Attr lists[16][8];
	AttrMap m;
} Attrs;

static inline Attr *
a_add(Attrs *a, const char *key)
{
	AttrEntry *e = &a->e[a->m.n];
	memset(e, 0, sizeof *e);
	e->key = key;
	a->m.e = a->e;
	a->m.n++;
	return &e->val;
}

static inline void
a_int(Attrs *a, const char *key, int64_t v)
{
	Attr *x = a_add(a, key);
	x->kind = AT_INT;
	x->u.i = v;
}

static inline void
a_num(Attrs *a, const char *key, double v)
{
	Attr *x = a_add(a, key);
	x->kind = AT_FLOAT;
	x->u.f = v;
}

static inline void
a_bool(Attrs *a, const char *key, bool v)
{
	Attr *x = a_add(a, key);
	x->kind = AT_BOOL;
	x->u.i = v;
}

static inline void
a_str(Attrs *a, const char *key, const char *s)
{
	Attr *x = a_add(a, key);
	x->kind = AT_STR;
	x->u.s = s;
	x->n = (uint32_t)strlen(s);
}

static inline void
a_ints(Attrs *a, const char *key, uint32_t n, const int64_t *v)
{
	uint32_t slot = a->m.n;
	Attr *x = a_add(a, key);
	x->kind = AT_LIST;
	x->n = n;
	x->u.list = a->lists[slot];
	for (uint32_t i = 0; i < n; i++) {
		a->lists[slot][i].kind = AT_INT;
		a->lists[slot][i].u.i = v[i];
	}
}

#endif
