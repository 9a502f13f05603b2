/* fuzz_lower.c: libFuzzer harness for ir-lower (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 --no-fuse, bit 1 --no-tile, bit 2 --no-texture, bit 3 to lower
 * the module as read instead of after ir-plan-devices.  Any module may be
 * rejected, but what ir-lower accepts must verify and re-parse to the
 * same bytes, and so must ir-plan-devices of it, which must then be
 * idempotent, and ir-flatten-texture after that: the pipeline of
 * ir-lower(1) and ir-flatten-texture(1).
 */
#include "texture/flatten_texture.h"
#include "lower/lower.h"
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

static bool
lower_plan_pass(Module *m, const void *o)
{
	return plan_devices(m, o);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	LowerOpts lo = {.no_fuse = data[0] & 1, .no_tile = data[0] & 2, .no_texture = data[0] & 4};
	bool plan_first = !(data[0] & 8);
	Ctx *ctx, *c2;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	size_t n1, n2;
	if (!m || (plan_first && !plan_devices(m, &(PlanOpts){0})))
		goto out;
	char *t = fuzz_print(m, &n1, false);
	int known = fuzz_known_lower_defect(t, n1);
	free(t);
	if (known == FUZZ_LOWER_NOT || !lower_module(m, &lo))
		goto out;
	if (known == FUZZ_LOWER_UNCHECKED) {
		/* crashes and sanitizer reports only */
		(void)ir_verify(m);
		free(fuzz_print(m, &n1, false));
		goto out;
	}
	fuzz_check(ir_verify(m), "the lowered module verifies");
	free(fuzz_canonical(m, &n1, "the lowered module"));
	if (plan_devices(m, &(PlanOpts){0})) {
		Module *m2 = fuzz_idempotent(m, lower_plan_pass, &(PlanOpts){0},
		                             "the lowered module, planned", &c2);
		if (flatten_texture(m2)) {
			fuzz_check(ir_verify(m2), "the flattened module verifies");
			free(fuzz_canonical(m2, &n2, "the flattened module"));
		}
		module_free(m2);
		ctx_free(c2);
	} else {
		/* after planning, lowering and planning again must succeed */
		fuzz_check(!plan_first, "planning a planned, lowered module succeeds");
	}
out:
	if (m)
		module_free(m);
	ctx_free(ctx);
	return 0;
}
