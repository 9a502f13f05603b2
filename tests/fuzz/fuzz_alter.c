/* fuzz_alter.c: libFuzzer harness for ir-alter-layout (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 for --layout=NCHW4c, else auto.  Any module may be rejected, but
 * what the pass accepts must verify, re-parse to the same bytes, alter
 * again to them, and plan (the pass plans a copy to find devices, so a
 * module it accepts is one ir-plan-devices accepts).
 */
#include "rewrite/alter_layout.h"
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

static bool
alter_pass(Module *m, const void *o)
{
	return alter_layout(m, o);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	AlterOpts ao = {.mode = (data[0] & 1) ? ALTER_NCHW4C : ALTER_AUTO};
	Ctx *ctx, *c2;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	if (!m || !alter_layout(m, &ao))
		goto out;
	Module *m2 = fuzz_idempotent(m, alter_pass, &ao, "the altered module", &c2);
	fuzz_check(plan_devices(m2, &(PlanOpts){0}) && ir_verify(m2), "the altered module plans");
	module_free(m2);
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
