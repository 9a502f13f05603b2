/* fuzz_alter.c: libFuzzer harness for ir-alter-layout (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 for --layout=NCHW4c, else auto.  Any module may be rejected, but
 * what the pass accepts must verify, re-parse to the same bytes, alter
 * again to them, and plan (the pass plans a copy to find devices, so a
 * module it accepts is one ir-plan-devices accepts).
 */
#include "alter_layout.h"
#include "plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	AlterOpts ao = {.mode = (data[0] & 1) ? ALTER_NCHW4C : ALTER_AUTO};
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	size_t n1, n2;
	if (!m || !alter_layout(m, &ao))
		goto out;
	fuzz_check(ir_verify(m), "the altered module verifies");
	char *q1 = fuzz_canonical(m, &n1, "the altered module");
	Ctx *c2;
	Module *m2 = fuzz_parse_text(&c2, q1, n1);
	fuzz_check(alter_layout(m2, &ao), "altering the altered module succeeds");
	char *q2 = fuzz_print(m2, &n2, false);
	fuzz_check(n1 == n2 && memcmp(q1, q2, n1) == 0, "altering is idempotent");
	fuzz_check(plan_devices(m2, &(PlanOpts){0}) && ir_verify(m2), "the altered module plans");
	free(q1);
	free(q2);
	module_free(m2);
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
