/* fuzz_onnx_smoke_test: tests/fuzz/fuzz_onnx.c (the ir-import-onnx
 * harness) run briefly in make check, as fuzz_smoke_test runs the IR
 * harnesses: on ONNX's own test models (Debian's libonnx-testdata) and on
 * a few deterministic mutants of each (cut short, a bit flipped), with
 * each option byte in turn.  The importer's messages
 * about the models it refuses are silenced.  A broken promise aborts, so
 * this test fails; without the test data it says so and passes. */
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ENTRY fuzz_onnx_one
#include "../fuzz/fuzz_onnx.c"
#undef FUZZ_ENTRY

#include "check.h"
#include "fuzz_smoke.h"

#define TESTDATA "/usr/share/libonnx-testdata/data"
enum { MUTANTS = 4 };

static void
run(uint8_t *b, size_t n, uint32_t opt)
{
	b[0] = (uint8_t)opt;
	fuzz_onnx_one(b, n + 1);
	checks++;
}

int
main(void)
{
	glob_t g;
	if (glob(TESTDATA "/*/*/model.onnx", 0, NULL, &g) != 0) {
		printf("fuzz_onnx_smoke_test: no ONNX test models under " TESTDATA
		       " (libonnx-testdata): nothing run\n");
		return 0;
	}
	smoke_on_abort("fuzz_onnx_smoke_test: the input was ");
	saved_err = dup(2);
	int null = open("/dev/null", O_WRONLY);
	uint32_t seed = 1;
	size_t models = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t n;
		uint8_t *b = smoke_slurp(g.gl_pathv[i], 1, &n);   /* b[0]: the option byte */
		if (!b)
			continue;
		models++;
		dup2(null, 2);
		snprintf(current, sizeof current, "%s (whole)", g.gl_pathv[i]);
		run(b, n, (uint32_t)models & 3);
		for (int r = 0; r < MUTANTS && n; r++) {
			seed = smoke_next_seed(seed);
			size_t at = (seed >> 8) % n;
			snprintf(current, sizeof current, "%s (mutant %d: cut at %zu, then a bit of byte %zu "
			         "flipped)", g.gl_pathv[i], r, at, at);
			run(b, at, (seed >> 4) & 3);
			uint8_t saved = b[1 + at];
			b[1 + at] ^= (uint8_t)(1u << ((seed >> 12) & 7));
			run(b, n, (seed >> 16) & 3);
			b[1 + at] = saved;
		}
		dup2(saved_err, 2);
		free(b);
	}
	globfree(&g);
	close(null);
	CHECK(models >= 100, "found only %zu ONNX models", models);
	printf("fuzz_onnx_smoke_test: %zu models, %d runs, %d failures\n", models, checks, failures);
	return failures != 0;
}
