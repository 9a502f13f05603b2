/* fuzz_plan.c: libFuzzer harness for ir-plan-devices (make fuzz).
 *
 * The input is a module; its first byte, taken off, picks --default
 * (none, @cpu or @gpu, which the module may not declare: then planning
 * must fail cleanly).  What planning accepts must verify, re-parse to the
 * same bytes, plan again to the same bytes, and plan the same with
 * locations printed and read back (locations change no placement).
 */
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

static bool
plan_pass(Module *m, const void *o)
{
	return plan_devices(m, o);
}

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
		Ctx *c2, *c3;
		module_free(fuzz_idempotent(m, plan_pass, &po, "the planned module", &c2));
		ctx_free(c2);
		size_t n3;
		Module *m3 = fuzz_parse_text(&c3, located, nl);
		fuzz_check(m3 != NULL, "the located module parses");
		fuzz_check(plan_devices(m3, &po), "the located module plans");
		/* both printed with locations: m3's are m's, read back */
		size_t n4;
		char *q4 = fuzz_print(m, &n4, true);
		char *q3 = fuzz_print(m3, &n3, true);
		fuzz_check(n4 == n3 && memcmp(q4, q3, n4) == 0, "locations change no placement");
		free(q4);
		free(q3);
		module_free(m3);
		ctx_free(c3);
	}
	free(located);
	module_free(m);
	ctx_free(ctx);
	return 0;
}
