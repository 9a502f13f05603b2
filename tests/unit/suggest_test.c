/* suggest_test: lib/suggest.c's distance and its rule for taking a
 * candidate (see suggest.h). */
#include <string.h>

#include "suggest.h"

#include "check.h"

static void
dist(const char *a, const char *b, bool fold_case, unsigned want)
{
	unsigned d = suggest_distance(a, strlen(a), b, strlen(b), fold_case);
	CHECK(d == want, "distance('%s', '%s', fold %d) = %u, want %u", a, b, fold_case, d, want);
}

static void
closest(const char *name, const char *const *cands, const char *want)
{
	const char *got = suggest_closest(name, strlen(name), cands);
	CHECK(want ? got && strcmp(got, want) == 0 : !got, "closest to '%s': '%s', want '%s'", name,
	      got ? got : "(none)", want ? want : "(none)");
}

int
main(void)
{
	dist("", "", false, 0);
	dist("abc", "", false, 3);
	dist("nn.rleu", "nn.relu", false, 1);      /* a swap of neighbours is one edit */
	dist("ca", "abc", false, 3);               /* OSA: no edit of a swapped pair */
	dist("strdes", "strides", false, 1);
	dist("kitten", "sitting", false, 3);
	dist("X", "x", false, 1);
	dist("X", "x", true, 0);
	char big[SUGGEST_MAX_LEN + 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	dist(big, "a", false, 1000);

	static const char *const ops[] = {"nn.relu", "nn.elu", "nn.dense", "add", NULL};
	closest("nn.rleu", ops, "nn.relu");
	closest("nn.frobnicate", ops, NULL);
	static const char *const self[] = {"relu", NULL};
	closest("relu", self, NULL);               /* the name itself is no suggestion */
	static const char *const params[] = {"w", "x", "b", NULL};
	closest("X", params, "x");                 /* case first: not 'w', offered earlier */
	closest("y", params, NULL);                /* a short name only differs in case */
	static const char *const devs[] = {"cpu", NULL};
	closest("gpu", devs, NULL);
	static const char *const two[] = {"gpu0", "gpu1", NULL};
	closest("gpu2", two, "gpu0");              /* among equals, the first offered */
	static const char *const cased[] = {"Abcd", "abce", NULL};
	closest("abcd", cased, "Abcd");            /* 0 edits without case beats 1 */
	static const char *const far[] = {"alignment", NULL};
	closest("alingmnet", far, "alignment");    /* 9 bytes: two edits */
	closest("xyz", NULL, NULL);

	printf("suggest_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
