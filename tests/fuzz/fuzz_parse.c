/* fuzz_parse.c: libFuzzer harness for the parser, verifier, printer and
 * device planner (make fuzz).
 *
 * Any input may be rejected, but what is accepted must hold the
 * toolchain's promises: printing is canonical (print, parse, print gives
 * the same bytes), planning produces a module that verifies and re-parses,
 * and planning is idempotent.  A broken promise aborts, so libFuzzer
 * keeps the input.
 */
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, (const char *)data, size);
	if (!m) {
		ctx_free(ctx);
		return 0;
	}
	size_t n1, n2;
	free(fuzz_canonical(m, &n1, "the parsed module"));

	if (plan_devices(m, &(PlanOpts){0})) {
		fuzz_check(ir_verify(m), "the planned module verifies");
		char *q1 = fuzz_canonical(m, &n1, "the planned module");
		Ctx *ctx3;
		Module *m3 = fuzz_parse_text(&ctx3, q1, n1);
		fuzz_check(plan_devices(m3, &(PlanOpts){0}), "planning the planned module succeeds");
		char *q2 = fuzz_print(m3, &n2, false);
		fuzz_check(n1 == n2 && memcmp(q1, q2, n1) == 0, "planning is idempotent");
		free(q1);
		free(q2);
		module_free(m3);
		ctx_free(ctx3);
	}
	module_free(m);
	ctx_free(ctx);
	return 0;
}
