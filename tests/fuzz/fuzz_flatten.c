/* fuzz_flatten.c: libFuzzer harness for ir-flatten-texture (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 to flatten it as read, else after ir-plan-devices | ir-lower |
 * ir-plan-devices (with bit 1 --no-fuse), the pipeline of
 * ir-flatten-texture(1).  Any module may be rejected, but what the pass
 * accepts must verify, re-parse to the same bytes and flatten again to
 * them.
 */
#include "texture/flatten_texture.h"
#include "lower/lower.h"
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

static bool
flatten_pass(Module *m, const void *o)
{
	(void)o;
	return flatten_texture(m);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	bool lower_first = !(data[0] & 1);
	LowerOpts lo = {.no_fuse = data[0] & 2};
	Ctx *ctx, *c2;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	size_t n1;
	if (!m)
		goto out;
	if (lower_first) {
		if (!plan_devices(m, &(PlanOpts){0}))
			goto out;
		char *t = fuzz_print(m, &n1, false);
		int known = fuzz_known_lower_defect(t, n1);
		free(t);
		/* lowering's own defects are fuzz_lower's to find */
		if (known != FUZZ_LOWER_OK || !lower_module(m, &lo) || !ir_verify(m) ||
		    !plan_devices(m, &(PlanOpts){0}) || !ir_verify(m))
			goto out;
	}
	if (!flatten_texture(m))
		goto out;
	module_free(fuzz_idempotent(m, flatten_pass, NULL, "the flattened module", &c2));
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
