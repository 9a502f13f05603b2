/* fuzz_common.h: what the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share.
 *
 * Each harness defines LLVMFuzzerTestOneInput; `make fuzz` links it with
 * libFuzzer, and tests/unit/fuzz_smoke_test.c includes every harness into
 * one program that runs them briefly in `make check` (so the helpers are
 * static and each harness names its entry point through FUZZ_ENTRY).
 *
 * Any input may be rejected, but nothing may crash, leak or misbehave
 * under the sanitizers, and what a stage accepts must keep the toolchain's
 * promises; a broken promise aborts, so libFuzzer keeps the input.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "texture/flatten_texture.h"
#include "ir.h"
#include "lower/lower.h"
#include "plan/plan_devices.h"

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
#endif

/* --- switches for open defects of issue 10 ------------------------------
 * While one is 0, the harnesses stop before the stage that gets such an
 * input wrong instead of reporting the known defect again and again.  Set
 * it to 1 once the fix has landed. */
#define FUZZ_LOWER_RANK0 1        /* item 2: rank-0 buffers print as %p[] */
#define FUZZ_LOWER_RANK_ABOVE_16 1 /* item 1: ir-lower's dims[16] */
#define FUZZ_LOWER_SPLIT_ONE 1    /* item 3: a split into one section */
#define FUZZ_LOWER_SPLIT_SCOPE 1  /* item 4: a split result in a non-global scope */
#define FUZZ_LOWER_NO_DEVICE 1    /* item 12: with no device declared, ir-lower
                                     uses an undeclared @cpu (its output fails
                                     to verify, one error per use) */

static inline FILE *
fuzz_devnull(void)
{
	static FILE *f; /* diagnostics are not the point here */
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

/* Prints m into a fresh malloc'd string. */
static inline char *
fuzz_print(const Module *m, size_t *len, bool locations)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		abort();
	ir_print(m, f, &(PrintOpts){.locations = locations});
	fclose(f);
	return buf;
}

/* Parses text (copied) in a context of its own. */
static inline Module *
fuzz_parse_text(Ctx **ctx, const char *text, size_t len)
{
	*ctx = ctx_new("fuzz");
	(*ctx)->err = fuzz_devnull();
	char *copy = malloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = 0;
	uint16_t file = src_add(*ctx, "fuzz.ir", copy, len);
	return ir_parse(*ctx, file, 0, len);
}

static inline void
fuzz_check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz: broken promise: %s\n", what);
		abort();
	}
}

/* The promise every tool's output keeps: it parses, and printing it again
 * gives the same bytes.  Returns the text (malloc'd). */
static inline char *
fuzz_canonical(const Module *m, size_t *n, const char *what)
{
	char *p1 = fuzz_print(m, n, false);
	Ctx *ctx;
	Module *m2 = fuzz_parse_text(&ctx, p1, *n);
	if (!m2)
		fprintf(stderr, "fuzz: %s does not parse:\n%.*s\n", what, (int)*n, p1);
	fuzz_check(m2 != NULL, "the output parses");
	size_t n2;
	char *p2 = fuzz_print(m2, &n2, false);
	fuzz_check(*n == n2 && memcmp(p1, p2, n2) == 0, "printing is canonical");
	free(p2);
	module_free(m2);
	ctx_free(ctx);
	return p1;
}

/* A pass as the harnesses run it: opts are its options. */
typedef bool FuzzPass(Module *m, const void *opts);

/* The promises of a pass that accepted m (what names m, "the folded
 * module"): m verifies and prints canonically, and the pass on m read back
 * succeeds and prints the same bytes.  Returns that second module, in
 * *ctx of its own, for more checks of the caller's (it frees both). */
static inline Module *
fuzz_idempotent(Module *m, FuzzPass *pass, const void *opts, const char *what, Ctx **ctx)
{
	char msg[3][160];
	snprintf(msg[0], sizeof msg[0], "%s verifies", what);
	snprintf(msg[1], sizeof msg[1], "the pass again on %s succeeds", what);
	snprintf(msg[2], sizeof msg[2], "the pass again on %s changes nothing", what);
	fuzz_check(ir_verify(m), msg[0]);
	size_t n1, n2;
	char *q1 = fuzz_canonical(m, &n1, what);
	Module *m2 = fuzz_parse_text(ctx, q1, n1);
	fuzz_check(pass(m2, opts), msg[1]);
	char *q2 = fuzz_print(m2, &n2, false);
	fuzz_check(n1 == n2 && memcmp(q1, q2, n1) == 0, msg[2]);
	free(q1);
	free(q2);
	return m2;
}

/* What a switch above says of a module (its text): FUZZ_LOWER_NOT, do not
 * lower it (ir-lower would crash); FUZZ_LOWER_UNCHECKED, lower it, but its
 * output may break a promise; FUZZ_LOWER_OK. */
enum { FUZZ_LOWER_OK, FUZZ_LOWER_UNCHECKED, FUZZ_LOWER_NOT };

static inline int
fuzz_known_lower_defect(const char *t, size_t n)
{
	int r = FUZZ_LOWER_OK;
	if (!FUZZ_LOWER_NO_DEVICE) {
		bool dev = false;
		for (size_t i = 0; i + 7 < n && !dev; i++)
			dev = memcmp(t + i, "device @", 8) == 0;
		if (!dev)
			r = FUZZ_LOWER_UNCHECKED;
	}
	for (size_t i = 0; i < n; i++) {
		if (!FUZZ_LOWER_RANK0 && t[i] == '[' && i + 1 < n && t[i + 1] == ']')
			r = FUZZ_LOWER_UNCHECKED;
		if (!FUZZ_LOWER_RANK_ABOVE_16 && t[i] == '[') {
			int commas = 0;
			for (size_t j = i + 1; j < n && t[j] != ']' && t[j] != '\n'; j++)
				commas += t[j] == ',';
			if (commas >= 16)
				return FUZZ_LOWER_NOT;
		}
	}
	if (!FUZZ_LOWER_SPLIT_ONE || !FUZZ_LOWER_SPLIT_SCOPE) {
		/* any split, when either is open: a one-section split is a list
		 * or an integer of any spelling, and a scope may reach a split
		 * through any chain of operators */
		for (size_t i = 0; i + 6 < n; i++)
			if (memcmp(t + i, "split(", 6) == 0)
				r = FUZZ_LOWER_UNCHECKED;
	}
	return r;
}

/* m through ir-plan-devices | ir-lower | ir-plan-devices |
 * ir-flatten-texture, each stage's output verified: false where a stage
 * rejects it, or where a switch above says lowering would get it wrong
 * (the earlier stages' defects are their own harnesses' to find). */
static inline bool
fuzz_to_flattened(Module *m, const LowerOpts *lo)
{
	size_t n;
	char *t = fuzz_print(m, &n, false);
	int known = fuzz_known_lower_defect(t, n);
	free(t);
	return known == FUZZ_LOWER_OK && plan_devices(m, &(PlanOpts){0}) && lower_module(m, lo) &&
	       ir_verify(m) && plan_devices(m, &(PlanOpts){0}) && ir_verify(m) &&
	       flatten_texture(m) && ir_verify(m);
}

#endif
