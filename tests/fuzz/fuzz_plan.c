/* fuzz_plan.c: libFuzzer harness for ir-plan-devices (make fuzz).
 *
 * The input is a module; its first byte, taken off, picks --default
 * (none, @cpu or @gpu, which the module may not declare: then planning
 * must fail cleanly).  What planning accepts must verify, re-parse to the
 * same bytes, plan again to the same bytes, and plan the same with
 * locations printed and read back (locations change no placement).
 */
#include "plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	static const char *const defaults[] = {NULL, "cpu", "gpu", NULL};
	if (size < 1)
		return 0;
	PlanOpts po = {.default_dev = defaults[data[0] & 3]};
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	if (!m) {
		ctx_free(ctx);
		return 0;
	}
	/* the same module through a located round trip */
	size_t nl;
	char *located = fuzz_print(m, &nl, true);
	if (plan_devices(m, &po)) {
		fuzz_check(ir_verify(m), "the planned module verifies");
		size_t n1, n2, n3;
		char *q1 = fuzz_canonical(m, &n1, "the planned module");
		Ctx *c2;
		Module *m2 = fuzz_parse_text(&c2, q1, n1);
		fuzz_check(plan_devices(m2, &po), "planning the planned module succeeds");
		char *q2 = fuzz_print(m2, &n2, false);
		fuzz_check(n1 == n2 && memcmp(q1, q2, n1) == 0, "planning is idempotent");
		Ctx *c3;
		Module *m3 = fuzz_parse_text(&c3, located, nl);
		fuzz_check(m3 != NULL, "the located module parses");
		fuzz_check(plan_devices(m3, &po), "the located module plans");
		/* both printed with locations: m3's are m's, read back */
		size_t n4;
		char *q4 = fuzz_print(m, &n4, true);
		char *q3 = fuzz_print(m3, &n3, true);
		fuzz_check(n4 == n3 && memcmp(q4, q3, n4) == 0, "locations change no placement");
		free(q4);
		free(q1);
		free(q2);
		free(q3);
		module_free(m2);
		ctx_free(c2);
		module_free(m3);
		ctx_free(c3);
	}
	free(located);
	module_free(m);
	ctx_free(ctx);
	return 0;
}
