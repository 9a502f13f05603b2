/* wspool.h: reuse of freed workspaces by best fit, per axis (TVM's Pool2D
 * after its fixes for cyclic reallocation, apache/tvm #10938 and #11543).
 *
 * The core knows nothing of OpenCL: an object is a handle from the
 * caller's alloc callback with a kind (objects of different kinds never
 * stand in for each other: an image's channel type), a width and a height
 * (a buffer is bytes x 1).  A request (kind, w, h) gets
 *   1. the free object of its kind whose width and height are both at
 *      least the request's, with the least waste (area over the
 *      request's; ties: the oldest), when there is one; else
 *   2. a free object of its kind grown: released and allocated again as
 *      max(w, its w) x max(h, its h), choosing the one that grows least;
 *      else
 *   3. a new object of the request's size.
 * Objects more than `ratio` times larger or smaller than the request on
 * an axis are not considered (a huge image is not spent on a tiny request,
 * a tiny one not grown into a huge one; TVM's ratio 5).  Growing to the
 * maximum on each axis, never to the latest request's shape, is what ends
 * the thrashing #10938 fixed: requests alternating between a wide and a
 * tall shape grow one object once to hold both, then reuse it.
 */
#ifndef OCL_WSPOOL_H
#define OCL_WSPOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

typedef struct {
	void *obj;
	int kind;
	uint64_t w, h;
	uint64_t bytes;
	bool used;
} WsEnt;

typedef struct {
	/* a new object, NULL when the allocator cannot (out of memory) */
	void *(*alloc)(void *ud, int kind, uint64_t w, uint64_t h);
	void (*release)(void *ud, void *obj);
	void *ud;
	uint64_t ratio;          /* 0: no limit */
	WsEnt *e;
	size_t n, cap;
	/* statistics */
	uint64_t requests, reused, made, grown;
	uint64_t held, peak;     /* bytes of every object, used or free */
} WsPool;

void wspool_init(WsPool *p, void *(*alloc)(void *, int, uint64_t, uint64_t),
               void (*release)(void *, void *), void *ud, uint64_t ratio);

/* An object of kind at least w x h (both above 0), or NULL when the
 * allocator fails even after the pool released its free objects.  unit:
 * bytes per w x h element, for the statistics.  *gw, *gh (may be NULL):
 * the object's real size. */
void *wspool_get(WsPool *p, int kind, uint64_t w, uint64_t h, uint64_t unit, uint64_t *gw,
               uint64_t *gh);

/* Gives obj back for reuse; false when the pool did not hand it out. */
bool wspool_put(WsPool *p, void *obj);

/* Releases every object; the pool may be used again. */
void wspool_clear(WsPool *p);

#endif
