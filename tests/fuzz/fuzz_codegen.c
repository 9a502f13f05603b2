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
#include "texture/flatten_texture.h"
#include "lower/lower.h"
#include "ocl/ocl.h"
#include "plan/plan_devices.h"
#include "memplan/plan_memory.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

static bool
codegen_pass(Module *m, const void *o)
{
	return ocl_codegen(m, o);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	OclOpts oo = {.full_unroll = opt & 8};
	Ctx *ctx, *c2;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	LowerOpts lo = {.no_fuse = opt & 2, .no_tile = opt & 4};
	if (!m || (!(opt & 1) && !fuzz_to_flattened(m, &lo)))
		goto out;
	if ((opt & 16) && (!plan_memory(m, &(MemPlanOpts){.algo = MP_BEST}) || !ir_verify(m)))
		goto out;
	if (!ocl_codegen(m, &oo))
		goto out;
	module_free(fuzz_idempotent(m, codegen_pass, &oo, "the generated module", &c2));
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
