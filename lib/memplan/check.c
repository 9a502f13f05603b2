/* check.c: see check.h. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "map.h"
#include "memplan/bufs.h"
#include "memplan/check.h"

/* Only for places the check found to end by INT64_MAX. */
static int64_t
range_end(const MBuf *b, const Place *p)
{
	return p->offset + b->bytes;
}

/* Each buffer's place into pp (NULL: none), each place list found into
 * nodes; false after reporting a node with as many places as it has
 * buffers not. */
static bool
match_places(Module *m, const MBufs *x, const Place **pp, Map *nodes)
{
	bool ok = true;
	for (uint32_t i = 0; i < x->nb;) {
		uint32_t e = i + 1;
		while (e < x->nb && x->b[e].node == x->b[i].node)
			e++;
		const PlaceList *l = module_places(m, x->b[i].node);
		if (l && l->n) {
			map_add(nodes, map_hash_ptr(l), (void *)l);
			if (l->n != e - i) {
				error_at(m->ctx, l->p[0].loc, "'%%%s' has %u places for its %u buffers",
				         x->b[i].name, l->n, e - i);
				ok = false;
			} else {
				for (uint32_t k = i; k < e; k++)
					pp[k] = &l->p[k - i];
			}
		}
		i = e;
	}
	return ok;
}

/* b's place *pp alone: an image's large enough; a pool place declared,
 * reachable, aligned and inside.  False after reporting; *pp is then
 * NULL where the place is not fit for the overlap check. */
static bool
check_place(Module *m, const MBuf *b, const Place **pp)
{
	const Place *p = *pp;
	if (b->kind == MB_IMAGE) {
		if (p->pool) {
			error_at(m->ctx, p->loc, "'%%%s' is an image: its place is image2d(id)[width, height]", b->name);
			*pp = NULL;
			return false;
		}
		if (p->image[0] < b->wh[0] || p->image[1] < b->wh[1]) {
			error_at(m->ctx, p->loc, "image %lld of %lldx%lld texels is smaller than '%%%s' (%lldx%lld)",
			         (long long)p->offset, (long long)p->image[0], (long long)p->image[1], b->name,
			         (long long)b->wh[0], (long long)b->wh[1]);
			return false;
		}
		return true;
	}
	if (!p->pool) {
		error_at(m->ctx, p->loc, "'%%%s' is not in a texture scope: its place is @pool[offset]", b->name);
		*pp = NULL;
		return false;
	}
	Pool *pl = module_pool(m, p->pool);
	if (!pl) {
		error_at(m->ctx, p->loc, "'@%s' is not a declared pool", p->pool);
		*pp = NULL;
		return false;
	}
	bool ok = true;
	if (!mbuf_pool_reaches(pl, b->dev)) {
		error_at(m->ctx, p->loc, "pool '@%s' is not accessible from device '@%s' of '%%%s'", p->pool,
		         b->dev, b->name);
		mbuf_note_via(m, b);
		ok = false;
	}
	int64_t al = mbuf_pool_align(pl);
	if (p->offset % al) {
		error_at(m->ctx, p->loc, "offset %lld of '%%%s' is not a multiple of the alignment %lld of '@%s'",
		         (long long)p->offset, b->name, (long long)al, p->pool);
		ok = false;
	}
	if (p->offset > INT64_MAX - b->bytes) {
		/* range_end would overflow: past any pool, and kept out of
		 * the overlap check */
		error_at(m->ctx, p->loc, "'%%%s' (%lld bytes at %lld) ends past the largest offset, 2^63-1",
		         b->name, (long long)b->bytes, (long long)p->offset);
		*pp = NULL;
		return false;
	}
	const Attr *sz = attr_get(&pl->attrs, "size");
	if (sz && sz->kind == AT_INT && range_end(b, p) > sz->u.i) {
		error_at(m->ctx, p->loc, "'%%%s' (%lld bytes at %lld) ends past the %lld bytes of '@%s'", b->name,
		         (long long)b->bytes, (long long)p->offset, (long long)sz->u.i, p->pool);
		ok = false;
	}
	return ok;
}

/* Buffers alive at once: apart in a pool, never one image.  Reports the
 * first clash, and only when nothing was reported before (ok); false
 * then. */
static bool
check_overlaps(Module *m, const MBufs *x, const Place *const *pp, bool ok)
{
	uint32_t *ord = NULL, *act = NULL;
	size_t n = 0, cap = 0, ca = 0, na = 0;
	for (uint32_t i = 0; i < x->nb; i++)
		if (pp[i])
			VEC_PUSH(ord, n, cap) = i;
	mbuf_sort_by_start(x, ord, n);
	for (size_t r = 0; r < n; r++) {
		uint32_t i = ord[r];
		const MBuf *b = &x->b[i];
		size_t w = 0;
		for (size_t a = 0; a < na; a++) {
			uint32_t j = act[a];
			const MBuf *c = &x->b[j];
			if (c->end < b->start)
				continue;
			act[w++] = j;
			const Place *p = pp[i], *q = pp[j];
			bool clash;
			if (p->pool || q->pool)
				clash = p->pool && p->pool == q->pool && p->offset < range_end(c, q) &&
				        q->offset < range_end(b, p) && b->bytes && c->bytes;
			else
				clash = p->offset == q->offset;
			if (clash && ok) {
				if (p->pool)
					error_at(m->ctx, p->loc, "'%%%s' overlaps '%%%s' in '@%s', and both are live at once",
					         b->name, c->name, p->pool);
				else
					error_at(m->ctx, p->loc, "'%%%s' and '%%%s' share image %lld, and both are live at once",
					         b->name, c->name, (long long)p->offset);
				note_at(m->ctx, c->loc, "'%%%s' is defined here", c->name);
				ok = false;
			}
		}
		na = w;
		VEC_PUSH(act, na, ca) = i;
	}
	free(ord);
	free(act);
	return ok;
}

/* Places anywhere but on a buffer of @main (nodes: the lists matched). */
static bool
check_stray_places(Module *m, Map *nodes)
{
	bool ok = true;
	for (uint32_t i = 0; m->places && i < ((Map *)m->places)->cap; i++) {
		const PlaceList *l = ((Map *)m->places)->slot[i];
		if (!l || !l->n)
			continue;
		MapProbe pr;
		bool found = false;
		for (void *e = map_first(nodes, map_hash_ptr(l), &pr); e && !found; e = map_next(&pr))
			found = e == l;
		if (!found) {
			error_at(m->ctx, l->p[0].loc,
			         "a place is only for a buffer of @main: a value it makes, a parameter, "
			         "or a global alloc of a prim it calls");
			ok = false;
		}
	}
	return ok;
}

bool
memplan_check(Module *m)
{
	if (!m->places)
		return true;
	MBufs x;
	if (!mbuf_extract(&x, m, true)) {
		error_at(m->ctx, (Loc){0}, "a memory plan needs a function @main");
		return false;
	}
	const Place **pp = xcalloc((size_t)x.nb + 1, sizeof *pp);
	Map nodes = {0};
	bool ok = match_places(m, &x, pp, &nodes);
	for (uint32_t i = 0; i < x.nb; i++)
		if (pp[i] && !check_place(m, &x.b[i], &pp[i]))
			ok = false;
	ok = check_overlaps(m, &x, pp, ok);
	if (!check_stray_places(m, &nodes))
		ok = false;
	map_free(&nodes);
	free(pp);
	mbuf_free(&x);
	return ok;
}
