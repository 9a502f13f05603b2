/* fuzz_memplan.c: libFuzzer harness for ir-plan-memory (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 to plan it as read, else after ir-plan-devices | ir-lower |
 * ir-plan-devices | ir-flatten-texture, the pipeline of
 * ir-plan-memory(1); bits 1-3 the algorithm (greedy_by_size,
 * greedy_by_conflicts, hill_climb, first fit, best); bit 4 --io.  Any
 * module may be rejected, but what the pass accepts must verify, keep a
 * plan its checker accepts, re-parse to the same bytes and plan again
 * (not always to the same bytes: the second run plans within the pool
 * sizes the first declared, and hill climbing may find another plan of
 * that size).
 */
#include "texture/flatten_texture.h"
#include "lower/lower.h"
#include "memplan/check.h"
#include "memplan/plan_memory.h"
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	MemPlanOpts po = {.algo = (MpAlgo)(((opt >> 1) & 7) % MP__COUNT), .io = opt & 16};
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	size_t n1, n2;
	if (!m || (!(opt & 1) && !fuzz_to_flattened(m, &(LowerOpts){0})))
		goto out;
	if (!plan_memory(m, &po))
		goto out;
	fuzz_check(ir_verify(m), "the planned module verifies");
	fuzz_check(memplan_check(m), "the plan keeps its promises");
	char *q1 = fuzz_canonical(m, &n1, "the memory-planned module");
	Ctx *c2;
	Module *m2 = fuzz_parse_text(&c2, q1, n1);
	fuzz_check(plan_memory(m2, &po), "planning the planned module succeeds");
	fuzz_check(ir_verify(m2) && memplan_check(m2), "the module planned twice verifies");
	if (po.algo != MP_HILL_CLIMB && po.algo != MP_BEST) {
		char *q2 = fuzz_print(m2, &n2, false);
		fuzz_check(n1 == n2 && memcmp(q1, q2, n1) == 0, "memory planning is idempotent");
		free(q2);
	}
	free(q1);
	module_free(m2);
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
