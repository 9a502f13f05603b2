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

#define TESTDATA "/usr/share/libonnx-testdata/data"
enum { MUTANTS = 4 };

static char current[512];
static int saved_err = -1;

static void
on_abort(int sig)
{
	(void)sig;
	if (saved_err >= 0)
		dup2(saved_err, 2);
	static const char pre[] = "fuzz_onnx_smoke_test: the input was ";
	ssize_t w = write(2, pre, sizeof pre - 1);
	w += write(2, current, strlen(current));
	w += write(2, "\n", 1);
	(void)w;
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
}

static uint8_t *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t cap = 0;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap + 1);
		}
		size_t k = fread(buf + 1 + *n, 1, cap - *n, f);
		*n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	return buf;    /* the model from buf + 1: buf[0] is the option byte */
}

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
	signal(SIGABRT, on_abort);
	saved_err = dup(2);
	int null = open("/dev/null", O_WRONLY);
	uint32_t seed = 1;
	size_t models = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t n;
		uint8_t *b = slurp(g.gl_pathv[i], &n);
		if (!b)
			continue;
		models++;
		dup2(null, 2);
		snprintf(current, sizeof current, "%s (whole)", g.gl_pathv[i]);
		run(b, n, (uint32_t)models & 3);
		for (int r = 0; r < MUTANTS && n; r++) {
			seed = seed * 1103515245u + 12345u;
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
