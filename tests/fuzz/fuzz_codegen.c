/* fuzz_codegen.c: libFuzzer harness for ir-codegen-ocl (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 to generate code for it as read, else after ir-plan-devices |
 * ir-lower | ir-plan-devices | ir-flatten-texture (bit 1 --no-fuse, bit 2
 * --no-tile), the pipeline of ir-codegen-ocl(1); bit 3 --full-unroll;
 * bit 4 with ir-plan-memory first.  Any module may be rejected, but what
 * code generation accepts must verify, re-parse to the same bytes and
 * generate again to them.  (Whether OpenCL compiles the programs is
 * tests/random_ocl.bats's to see: this harness runs no OpenCL.)
 */
#include "flatten_texture.h"
#include "lower/lower.h"
#include "ocl/ocl.h"
#include "plan_devices.h"
#include "plan_memory.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	OclOpts oo = {.full_unroll = opt & 8};
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	size_t n1, n2;
	if (!m)
		goto out;
	if (!(opt & 1)) {
		char *t = fuzz_print(m, &n1, false);
		int known = fuzz_known_lower_defect(t, n1);
		free(t);
		LowerOpts lo = {.no_fuse = opt & 2, .no_tile = opt & 4};
		/* the earlier stages' defects are their harnesses' to find */
		if (known != FUZZ_LOWER_OK || !plan_devices(m, &(PlanOpts){0}) ||
		    !lower_module(m, &lo) || !ir_verify(m) || !plan_devices(m, &(PlanOpts){0}) ||
		    !ir_verify(m) || !flatten_texture(m) || !ir_verify(m))
			goto out;
	}
	if ((opt & 16) && (!plan_memory(m, &(MemPlanOpts){.algo = MP_BEST}) || !ir_verify(m)))
		goto out;
	if (!ocl_codegen(m, &oo))
		goto out;
	fuzz_check(ir_verify(m), "the generated module verifies");
	char *q1 = fuzz_canonical(m, &n1, "the generated module");
	Ctx *c2;
	Module *m2 = fuzz_parse_text(&c2, q1, n1);
	fuzz_check(ocl_codegen(m2, &oo), "generating code for the generated module succeeds");
	char *q2 = fuzz_print(m2, &n2, false);
	fuzz_check(n1 == n2 && memcmp(q1, q2, n1) == 0, "code generation is idempotent");
	free(q1);
	free(q2);
	module_free(m2);
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
