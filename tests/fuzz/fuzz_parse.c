/* fuzz_parse.c: libFuzzer harness for the parser, verifier, printer and
 * device planner (make fuzz).
 *
 * Any input may be rejected, but nothing may crash, leak or misbehave
 * under the sanitizers, and what is accepted must hold the toolchain's
 * promises: printing is canonical (print, parse, print gives the same
 * bytes), planning produces a module that verifies and re-parses, and
 * planning is idempotent.  A broken promise aborts, so libFuzzer keeps
 * the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "plan_devices.h"

static FILE *
devnull(void)
{
	static FILE *f; /* diagnostics are not the point here */
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

/* Prints m into a fresh malloc'd string. */
static char *
print_module(const Module *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	ir_print(m, f, &(PrintOpts){0});
	fclose(f);
	return buf;
}

/* Parses text (copied) in a context of its own. */
static Module *
parse_text(Ctx **ctx, const char *text, size_t len)
{
	*ctx = ctx_new("fuzz");
	(*ctx)->err = devnull();
	char *copy = malloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = 0;
	uint16_t file = src_add(*ctx, "fuzz.ir", copy, len);
	return ir_parse(*ctx, file, 0, len);
}

static void
check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz: broken promise: %s\n", what);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Ctx *ctx;
	Module *m = parse_text(&ctx, (const char *)data, size);
	if (!m) {
		ctx_free(ctx);
		return 0;
	}
	size_t n1, n2;
	char *p1 = print_module(m, &n1);
	Ctx *ctx2;
	Module *m2 = parse_text(&ctx2, p1, n1);
	check(m2 != NULL, "the printed module parses");
	char *p2 = print_module(m2, &n2);
	check(n1 == n2 && memcmp(p1, p2, n1) == 0, "printing is canonical");
	module_free(m2);
	ctx_free(ctx2);
	free(p2);

	if (plan_devices(m, &(PlanOpts){0})) {
		check(ir_verify(m), "the planned module verifies");
		char *q1 = print_module(m, &n1);
		Ctx *ctx3;
		Module *m3 = parse_text(&ctx3, q1, n1);
		check(m3 != NULL, "the planned module parses");
		check(plan_devices(m3, &(PlanOpts){0}), "planning the planned module succeeds");
		char *q2 = print_module(m3, &n2);
		check(n1 == n2 && memcmp(q1, q2, n1) == 0, "planning is idempotent");
		free(q1);
		free(q2);
		module_free(m3);
		ctx_free(ctx3);
	}
	free(p1);
	module_free(m);
	ctx_free(ctx);
	return 0;
}
