/* wspool.c: workspace reuse by per-axis best fit (wspool.h). */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "ocl/wspool.h"

void
wspool_init(WsPool *p, void *(*alloc)(void *, int, uint64_t, uint64_t),
          void (*release)(void *, void *), void *ud, uint64_t ratio)
{
	memset(p, 0, sizeof *p);
	p->alloc = alloc;
	p->release = release;
	p->ud = ud;
	p->ratio = ratio;
}

/* Whether e is within the ratio of the request on both axes. */
static bool
near(const WsPool *p, const WsEnt *e, uint64_t w, uint64_t h)
{
	if (!p->ratio)
		return true;
	return e->w / w <= p->ratio && w / e->w <= p->ratio && e->h / h <= p->ratio &&
	       h / e->h <= p->ratio;
}

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Products saturate: sizes come from the module. */
static uint64_t
area(uint64_t w, uint64_t h)
{
	uint64_t a;
	return __builtin_mul_overflow(w, h, &a) ? UINT64_MAX : a;
}

static void *
make(WsPool *p, WsEnt *e, int kind, uint64_t w, uint64_t h, uint64_t unit)
{
	void *o = p->alloc(p->ud, kind, w, h);
	if (!o) {
		/* the free objects may be what the device lacks */
		for (size_t i = 0; i < p->n;) {
			if (!p->e[i].used && &p->e[i] != e) {
				p->release(p->ud, p->e[i].obj);
				p->held -= p->e[i].bytes;
				if (e == &p->e[p->n - 1])
					e = &p->e[i];
				p->e[i] = p->e[--p->n];
			} else {
				i++;
			}
		}
		o = p->alloc(p->ud, kind, w, h);
		if (!o) {
			if (e)          /* a grown entry: its object is gone */
				*e = p->e[--p->n];
			return NULL;
		}
	}
	if (!e) {
		if (p->n == p->cap) {
			p->cap = p->cap ? 2 * p->cap : 8;
			p->e = xrealloc(p->e, p->cap * sizeof *p->e);
		}
		e = &p->e[p->n++];
	}
	uint64_t b = area(area(w, h), unit);
	*e = (WsEnt){o, kind, w, h, b, true};
	p->held += b;
	if (p->held > p->peak)
		p->peak = p->held;
	return o;
}

void *
wspool_get(WsPool *p, int kind, uint64_t w, uint64_t h, uint64_t unit, uint64_t *gw, uint64_t *gh)
{
	if (!w)
		w = 1;
	if (!h)
		h = 1;
	p->requests++;
	WsEnt *fit = NULL, *grow = NULL;
	uint64_t fit_waste = UINT64_MAX, grow_add = UINT64_MAX;
	for (size_t i = 0; i < p->n; i++) {
		WsEnt *e = &p->e[i];
		if (e->used || e->kind != kind || !near(p, e, w, h))
			continue;
		uint64_t have = area(e->w, e->h);
		if (e->w >= w && e->h >= h) {
			uint64_t waste = have - area(w, h);
			if (waste < fit_waste)
				fit = e, fit_waste = waste;
		} else {
			uint64_t add = area(max64(w, e->w), max64(h, e->h)) - have;
			if (add < grow_add)
				grow = e, grow_add = add;
		}
	}
	void *o;
	if (fit) {
		fit->used = true;
		p->reused++;
		o = fit->obj;
		w = fit->w;
		h = fit->h;
	} else if (grow) {
		w = max64(w, grow->w);
		h = max64(h, grow->h);
		p->release(p->ud, grow->obj);
		p->held -= grow->bytes;
		o = make(p, grow, kind, w, h, unit);
		if (!o)
			return NULL;
		p->grown++;
	} else {
		o = make(p, NULL, kind, w, h, unit);
		if (!o)
			return NULL;
		p->made++;
	}
	if (gw)
		*gw = w;
	if (gh)
		*gh = h;
	return o;
}

bool
wspool_put(WsPool *p, void *obj)
{
	/* the latest handed out is the likeliest given back */
	for (size_t i = p->n; i-- > 0;)
		if (p->e[i].obj == obj && p->e[i].used) {
			p->e[i].used = false;
			return true;
		}
	return false;
}

void
wspool_clear(WsPool *p)
{
	for (size_t i = 0; i < p->n; i++)
		p->release(p->ud, p->e[i].obj);
	free(p->e);
	p->e = NULL;
	p->n = p->cap = 0;
	p->held = 0;
}
