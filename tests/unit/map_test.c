/* map_test: lib/map.h's hash table finds every entry filed, under
 * colliding hashes too, across growth; VEC_PUSH keeps every element as
 * the array grows (run under ASan by make check, which also catches a
 * slot read past the end). */
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "map.h"

#include "check.h"

typedef struct {
	int key, val;
} Ent;

static Ent *
find(const Map *m, uint32_t h, int key)
{
	MapProbe it;
	for (Ent *e = map_first(m, h, &it); e; e = map_next(&it))
		if (e->key == key)
			return e;
	return NULL;
}

int
main(void)
{
	enum { N = 5000 };
	static Ent ents[N];
	Map m = {0};
	CHECK(find(&m, 7, 7) == NULL, "an empty map finds nothing");
	for (int i = 0; i < N; i++) {
		ents[i] = (Ent){i, 3 * i};
		/* every fourth key shares one hash, the rest hash apart */
		uint32_t h = i % 4 ? map_hash(&i, sizeof i) : 42;
		CHECK(find(&m, h, i) == NULL, "key %d is not there before it is added", i);
		map_add(&m, h, &ents[i]);
	}
	CHECK(m.n == N && m.cap >= N * 4 / 3 && (m.cap & (m.cap - 1)) == 0,
	      "%u entries in %u slots: at most 3/4 full, a power of two", m.n, m.cap);
	int found = 0;
	for (int i = 0; i < N; i++) {
		uint32_t h = i % 4 ? map_hash(&i, sizeof i) : 42;
		Ent *e = find(&m, h, i);
		found += e && e->val == 3 * i;
	}
	CHECK(found == N, "%d of %d keys found with their values", found, N);
	int shared = 0;
	MapProbe it;
	for (Ent *e = map_first(&m, 42, &it); e; e = map_next(&it))
		shared++;
	CHECK(shared == N / 4, "the probe for a shared hash yields all %d entries filed under it "
	      "(got %d)", N / 4, shared);
	map_free(&m);
	map_reserve(&m, 100);
	CHECK(m.cap >= 134 && m.n == 0, "map_reserve makes room without adding (cap %u)", m.cap);
	map_free(&m);
	CHECK(map_hash("ab", 2) != map_hash("ba", 2), "the hash depends on the order of bytes");

	int *a = NULL;
	size_t n = 0, cap = 0;
	for (int i = 0; i < 1000; i++)
		VEC_PUSH(a, n, cap) = i * i;
	bool same = n == 1000 && cap >= n;
	for (int i = 0; i < 1000; i++)
		same &= a[i] == i * i;
	CHECK(same, "VEC_PUSH keeps every element as the array grows");
	free(a);
	uint32_t n32 = 0, cap32 = 0;
	double *d = NULL;
	VEC_PUSH(d, n32, cap32) = 2.5;
	CHECK(n32 == 1 && cap32 == 16 && d[0] == 2.5, "VEC_PUSH takes counts of any integer type");
	free(d);
	printf("map_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
