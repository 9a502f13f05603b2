/* fuzz_smoke.h: what fuzz_smoke_test.c (the IR harnesses) and
 * fuzz_onnx_smoke_test.c (the ONNX one) share: reading an input file,
 * the seeds of their deterministic mutants, and the line that names the
 * input a harness aborted on. */
#ifndef FUZZ_SMOKE_H
#define FUZZ_SMOKE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What runs now, for the message when a harness aborts. */
static char current[512];
static const char *abort_says;   /* what the message says before current */
static int saved_err = -1;       /* stderr, while a test silences fd 2 */

static void
on_abort(int sig)
{
	(void)sig;
	if (saved_err >= 0)
		dup2(saved_err, 2);
	ssize_t w = write(2, abort_says, strlen(abort_says));
	w += write(2, current, strlen(current));
	w += write(2, "\n", 1);
	(void)w;
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
}

/* From here on an abort first prints says, then current. */
static void
smoke_on_abort(const char *says)
{
	abort_says = says;
	signal(SIGABRT, on_abort);
}

/* The file at path, read after `lead` bytes left free for the caller (an
 * option byte); *n is its length.  NULL if it cannot be opened. */
static uint8_t *
smoke_slurp(const char *path, size_t lead, size_t *n)
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
			buf = realloc(buf, lead + cap);
		}
		size_t k = fread(buf + lead + *n, 1, cap - *n, f);
		*n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	return buf;
}

/* The seed of the next round of mutants: the same sequence on every run. */
static uint32_t
smoke_next_seed(uint32_t seed)
{
	return seed * 1103515245u + 12345u;
}

#endif
