/* arena_test: arena_mark/arena_release give back what was allocated after
 * the mark, across chunks, and leave what came before intact (run under
 * ASan by make check, which also catches a chunk freed twice or leaked). */
#include <string.h>

#include "ir.h"

#include "check.h"

int
main(void)
{
	Arena *a = arena_new();
	char *keep = arena_alloc(a, 100);
	memset(keep, 'k', 100);
	for (int round = 0; round < 3; round++) {
		char *before = arena_alloc(a, 8);
		ArenaMark m = arena_mark(a);
		/* enough to open several chunks past the mark */
		for (int i = 0; i < 64; i++)
			memset(arena_alloc(a, 50000), 'x', 50000);
		arena_release(a, m);
		CHECK(arena_alloc(a, 8) == before + 8, "round %d: the first allocation after release "
		      "reuses the space after the mark", round);
		bool intact = true;
		for (int i = 0; i < 100; i++)
			intact &= keep[i] == 'k';
		CHECK(intact, "round %d: what came before the mark is intact", round);
	}
	ArenaMark empty = arena_mark(a);
	arena_release(a, empty);
	Arena *fresh = arena_new();
	ArenaMark none = arena_mark(fresh);
	arena_alloc(fresh, 1 << 20);
	arena_release(fresh, none);
	CHECK(arena_mark(fresh).chunk == NULL, "releasing to the mark of an empty arena frees every chunk");
	arena_free(fresh);
	arena_free(a);
	printf("arena_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
