/* fuzz_smoke_test: the libFuzzer harnesses of tests/fuzz/ run briefly in
 * make check, so that they build and keep passing between `make fuzz`
 * campaigns.  Each harness gets every .ir file under tests/ and the
 * fuzzers' crash and corpus files, each whole and in a few deterministic
 * mutants (cut short, a byte changed, a line dropped), with each value of
 * the option byte that fuzz_plan, fuzz_lower, fuzz_flatten, fuzz_fold,
 * fuzz_alter, fuzz_memplan, fuzz_codegen and fuzz_interp take first
 * (fuzz_onnx's ONNX models run in fuzz_onnx_smoke_test).
 * A broken promise aborts (so this test fails), as in the fuzzer.  Run
 * from the repository root (tests/run.sh does). */
#include <glob.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ENTRY fuzz_parse_one
#include "../fuzz/fuzz_parse.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_plan_one
#include "../fuzz/fuzz_plan.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_lower_one
#include "../fuzz/fuzz_lower.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_flatten_one
#include "../fuzz/fuzz_flatten.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_fold_one
#include "../fuzz/fuzz_fold.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_alter_one
#include "../fuzz/fuzz_alter.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_memplan_one
#include "../fuzz/fuzz_memplan.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_codegen_one
#include "../fuzz/fuzz_codegen.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_interp_one
#include "../fuzz/fuzz_interp.c"
#undef FUZZ_ENTRY

#include "check.h"
#include "fuzz_smoke.h"

enum { MUTANTS = 4 };   /* rounds of three mutants per file */

/* Runs the harnesses on text, behind each option byte given. */
static void
run_all(const char *text, size_t n, uint32_t opt)
{
	uint8_t *b = malloc(n + 1);
	memcpy(b + 1, text, n);
	char *end = strchr(current, ')');
	if (end)
		snprintf(end + 1, sizeof current - (size_t)(end + 1 - current),
		         " of %zu bytes, option byte %u", n, (unsigned)opt);
	/* FUZZ_SMOKE_DUMP=FILE: each input goes there first, so that the one
	 * a harness aborts on is left for the tools to try */
	const char *dump = getenv("FUZZ_SMOKE_DUMP");
	FILE *f = dump ? fopen(dump, "wb") : NULL;
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	fuzz_parse_one(b + 1, n);
	b[0] = (uint8_t)opt;
	fuzz_plan_one(b, n + 1);
	fuzz_lower_one(b, n + 1);
	fuzz_flatten_one(b, n + 1);
	fuzz_fold_one(b, n + 1);
	fuzz_alter_one(b, n + 1);
	fuzz_memplan_one(b, n + 1);
	fuzz_codegen_one(b, n + 1);
	fuzz_interp_one(b, n + 1);
	free(b);
	checks++;
}

int
main(void)
{
	static const char *const patterns[] = {
		"tests/*/*.ir", "tests/*/*/*.ir", "tests/fuzz/crashes/*", "tests/fuzz/corpus/*",
	};
	smoke_on_abort("fuzz_smoke_test: the input (FUZZ_SMOKE_DUMP=FILE keeps it) was ");
	uint32_t seed = 1;
	size_t files = 0;
	for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++) {
		glob_t g;
		if (glob(patterns[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			size_t n;
			char *t = (char *)smoke_slurp(g.gl_pathv[i], 0, &n);
			if (!t)
				continue;
			files++;
			snprintf(current, sizeof current, "%s (whole)", g.gl_pathv[i]);
			run_all(t, n, (uint32_t)files & 15);
			if (n == 0) {
				free(t);
				continue;
			}
			for (int round = 0; round < MUTANTS; round++) {
				seed = smoke_next_seed(seed);
				size_t at = (seed >> 8) % n;
				snprintf(current, sizeof current, "%s (mutant %d: cut at %zu, byte %zu "
				         "changed, line at %zu dropped)", g.gl_pathv[i], round, at, at, at);
				run_all(t, at, (seed >> 4) & 15);             /* cut short */
				char saved = t[at];
				t[at] = "0]),{}\n%@:-1"[(seed >> 12) % 12];   /* a byte changed */
				run_all(t, n, (seed >> 16) & 15);
				t[at] = saved;
				char *nl = memchr(t + at, '\n', n - at);      /* a line dropped */
				char *prev = NULL;
				for (size_t j = at; j-- > 0 && !prev;)
					prev = t[j] == '\n' ? t + j : NULL;
				if (nl && prev) {
					char *copy = malloc(n);
					size_t cut = (size_t)(nl - prev);
					memcpy(copy, t, (size_t)(prev - t));
					memcpy(copy + (prev - t), nl, n - (size_t)(nl - t));
					run_all(copy, n - cut, (seed >> 20) & 15);
					free(copy);
				}
			}
			free(t);
		}
		globfree(&g);
	}
	CHECK(files >= 50, "found only %zu input files: not run from the repository root?", files);
	printf("fuzz_smoke_test: %zu files, %d runs of each harness, %d failures\n", files, checks,
	       failures);
	return failures != 0;
}
