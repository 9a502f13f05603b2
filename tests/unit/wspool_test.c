/* wspool_test: the workspace pool's core (lib/ocl/wspool.c) with a fake
 * allocator: reuse, best fit per axis, growth to the maximum on each axis,
 * no thrashing on alternating shapes, kinds kept apart, the size ratio,
 * and an allocator that runs out. */
#include <stdlib.h>

#include "ir.h"
#include "ocl/wspool.h"

#include "check.h"

/* Objects are numbered from 1; a budget of area makes alloc fail. */
typedef struct {
	int live, allocs, releases;
	uint64_t area, budget;       /* budget 0: no limit */
	uint64_t w[256], h[256];
	int next;
} Fake;

static void *
fake_alloc(void *ud, int kind, uint64_t w, uint64_t h)
{
	(void)kind;
	Fake *f = ud;
	if (f->budget && f->area + w * h > f->budget)
		return NULL;
	int id = ++f->next;
	f->w[id] = w;
	f->h[id] = h;
	f->area += w * h;
	f->live++;
	f->allocs++;
	return (void *)(intptr_t)id;
}

static void
fake_release(void *ud, void *obj)
{
	Fake *f = ud;
	int id = (int)(intptr_t)obj;
	f->area -= f->w[id] * f->h[id];
	f->live--;
	f->releases++;
}

static int
id(void *o)
{
	return (int)(intptr_t)o;
}

int
main(void)
{
	Fake f = {0};
	WsPool p;
	wspool_init(&p, fake_alloc, fake_release, &f, 5);

	/* reuse: a smaller request gets the freed object */
	void *a = wspool_get(&p, 0, 10, 10, 16, NULL, NULL);
	CHECK(a && f.allocs == 1, "first request allocates");
	CHECK(wspool_put(&p, a), "put");
	uint64_t gw, gh;
	void *b = wspool_get(&p, 0, 8, 9, 16, &gw, &gh);
	CHECK(b == a && gw == 10 && gh == 10 && f.allocs == 1 && p.reused == 1,
	      "reused: %d allocs, %llux%llu", f.allocs, (unsigned long long)gw,
	      (unsigned long long)gh);
	/* in use: a second request cannot have it */
	void *c = wspool_get(&p, 0, 8, 9, 16, NULL, NULL);
	CHECK(c && c != a && f.allocs == 2, "an object in use is not handed out twice");
	CHECK(!wspool_put(&p, (void *)(intptr_t)999), "an object the pool did not give is refused");
	wspool_put(&p, b);
	CHECK(!wspool_put(&p, b), "an object given back twice is refused");
	wspool_put(&p, c);
	wspool_clear(&p);
	CHECK(f.live == 0 && p.held == 0, "clear releases everything: %d live", f.live);

	/* per-axis fit: of a wide and a tall image of the same area, a tall
	 * request takes the tall one (an area criterion cannot tell) */
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 5);
	void *wide = wspool_get(&p, 0, 40, 10, 16, NULL, NULL);
	void *tall = wspool_get(&p, 0, 10, 40, 16, NULL, NULL);
	wspool_put(&p, wide);
	wspool_put(&p, tall);
	void *t = wspool_get(&p, 0, 8, 30, 16, NULL, NULL);
	CHECK(t == tall && f.allocs == 2, "8x30 takes the 10x40 image, not the 40x10: %d", id(t));
	void *w2 = wspool_get(&p, 0, 30, 8, 16, NULL, NULL);
	CHECK(w2 == wide && f.allocs == 2, "30x8 takes the 40x10 image: %d", id(w2));
	wspool_put(&p, t);
	wspool_put(&p, w2);
	/* best fit: the least waste among those that fit */
	void *big = wspool_get(&p, 0, 16, 16, 16, NULL, NULL);
	void *mid = wspool_get(&p, 0, 12, 12, 16, NULL, NULL);
	wspool_put(&p, big);
	wspool_put(&p, mid);
	void *m = wspool_get(&p, 0, 10, 10, 16, NULL, NULL);
	CHECK(m == mid, "10x10 takes the 12x12 image, not the 16x16 or 40x10: %d", id(m));
	wspool_put(&p, m);
	wspool_clear(&p);

	/* growth: a request no free object holds replaces the one that grows
	 * least by the maximum of both on each axis */
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 5);
	a = wspool_get(&p, 0, 10, 20, 16, NULL, NULL);
	wspool_put(&p, a);
	b = wspool_get(&p, 0, 20, 10, 16, &gw, &gh);
	CHECK(b && gw == 20 && gh == 20 && p.grown == 1 && f.live == 1 && f.releases == 1,
	      "20x10 after 10x20 grows it to 20x20: %llux%llu, %d live",
	      (unsigned long long)gw, (unsigned long long)gh, f.live);
	CHECK(p.held == 20 * 20 * 16 && p.peak == 20 * 20 * 16, "held %llu bytes",
	      (unsigned long long)p.held);
	wspool_put(&p, b);
	c = wspool_get(&p, 0, 10, 20, 16, NULL, NULL);
	CHECK(c == b && f.allocs == 2, "and 10x20 then reuses the grown image");
	wspool_put(&p, c);
	wspool_clear(&p);

	/* no thrashing: requests alternating between a wide and a tall shape
	 * settle after one growth (TVM #10938: an area criterion reallocated
	 * on every request) */
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 5);
	for (int i = 0; i < 1000; i++) {
		void *o = wspool_get(&p, 0, i % 2 ? 64 : 16, i % 2 ? 16 : 64, 16, NULL, NULL);
		CHECK(o, "alternating request %d", i);
		wspool_put(&p, o);
	}
	CHECK(f.allocs == 2 && p.made == 1 && p.grown == 1 && p.reused == 998 && f.live == 1,
	      "1000 alternating 16x64 / 64x16 requests: %d allocations, %llu reused", f.allocs,
	      (unsigned long long)p.reused);
	wspool_clear(&p);
	/* shapes too far apart for one object (ratio 5) get one each, then
	 * reuse both */
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 5);
	for (int i = 0; i < 1000; i++) {
		void *o = wspool_get(&p, 0, i % 2 ? 256 : 8, i % 2 ? 8 : 256, 16, NULL, NULL);
		wspool_put(&p, o);
	}
	CHECK(f.allocs == 2 && p.made == 2 && p.grown == 0 && p.reused == 998,
	      "1000 alternating 8x256 / 256x8 requests: %d allocations", f.allocs);
	/* and two alive at once in each round, alternating their shapes */
	wspool_clear(&p);
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 5);
	for (int i = 0; i < 500; i++) {
		void *x = wspool_get(&p, 0, i % 2 ? 48 : 12, i % 2 ? 12 : 48, 16, NULL, NULL);
		void *y = wspool_get(&p, 0, i % 2 ? 12 : 48, i % 2 ? 48 : 12, 16, NULL, NULL);
		CHECK(x && y && x != y, "round %d", i);
		wspool_put(&p, x);
		wspool_put(&p, y);
	}
	CHECK(f.allocs <= 4 && f.live == 2, "500 rounds of two swapping shapes: %d allocations",
	      f.allocs);
	wspool_clear(&p);

	/* kinds: an f16 image never stands in for an f32 one */
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 5);
	a = wspool_get(&p, 1, 10, 10, 16, NULL, NULL);
	wspool_put(&p, a);
	b = wspool_get(&p, 2, 10, 10, 8, NULL, NULL);
	CHECK(b != a && f.allocs == 2 && f.live == 2, "another kind allocates anew");
	wspool_put(&p, b);
	/* the ratio: a huge free image is not spent on a tiny request */
	void *huge = wspool_get(&p, 1, 1000, 1000, 16, NULL, NULL);
	wspool_put(&p, huge);
	void *tiny = wspool_get(&p, 1, 100, 100, 16, NULL, NULL);
	CHECK(tiny != huge, "100x100 does not take a free 1000x1000");
	wspool_put(&p, tiny);
	wspool_clear(&p);

	/* buffers: bytes x 1, best fit by size */
	f = (Fake){0};
	wspool_init(&p, fake_alloc, fake_release, &f, 16);
	void *b100 = wspool_get(&p, 0, 100, 1, 1, NULL, NULL);
	void *b300 = wspool_get(&p, 0, 300, 1, 1, NULL, NULL);
	void *b200 = wspool_get(&p, 0, 200, 1, 1, NULL, NULL);
	wspool_put(&p, b100);
	wspool_put(&p, b300);
	wspool_put(&p, b200);
	void *b150 = wspool_get(&p, 0, 150, 1, 1, NULL, NULL);
	CHECK(b150 == b200, "150 bytes take the 200-byte buffer");
	void *b400 = wspool_get(&p, 0, 400, 1, 1, &gw, NULL);
	CHECK(gw == 400 && p.grown == 1 && f.live == 3, "400 bytes grow the 300-byte buffer");
	wspool_put(&p, b150);
	wspool_put(&p, b400);
	wspool_clear(&p);

	/* out of memory: the free objects are released and the request
	 * tried again; NULL when even that fails, the pool still sound */
	f = (Fake){.budget = 1000};
	wspool_init(&p, fake_alloc, fake_release, &f, 0);
	a = wspool_get(&p, 0, 20, 20, 1, NULL, NULL);
	b = wspool_get(&p, 1, 20, 20, 1, NULL, NULL);
	wspool_put(&p, a);
	wspool_put(&p, b);
	c = wspool_get(&p, 2, 25, 25, 1, NULL, NULL);
	CHECK(c && f.live == 1 && p.held == 625, "the free 20x20s make room for a 25x25: %d live",
	      f.live);
	void *d = wspool_get(&p, 2, 30, 30, 1, NULL, NULL);
	CHECK(!d && f.live == 1 && p.held == 625, "no room for a 30x30 beside it");
	wspool_put(&p, c);
	/* growing the free 25x25 to 30x40 does not fit either: it is gone */
	d = wspool_get(&p, 2, 30, 40, 1, NULL, NULL);
	CHECK(!d && f.live == 0 && p.n == 0 && p.held == 0, "a failed growth leaves no entry");
	d = wspool_get(&p, 2, 30, 30, 1, NULL, NULL);
	CHECK(d && f.live == 1, "and the pool still works");
	wspool_put(&p, d);
	wspool_clear(&p);
	CHECK(f.live == 0, "all released");

	printf("wspool_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
