/* fuzz_fold.c: libFuzzer harness for ir-fold-constants (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 --no-weight-layouts, bit 1 --max-bytes=64, bit 2 every result in
 * a file (--inline-max=0).  Constant files are looked for, and written,
 * in a folder that does not exist, so nothing touches the disk: a module
 * that needs a file is rejected.  Any module may be rejected, but what
 * the pass accepts must verify, re-parse to the same bytes and fold
 * again to them.
 */
#include "rewrite/fold_constants.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

static bool
fold_pass(Module *m, const void *o)
{
	return fold_constants(m, o);
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	FoldOpts o = {
		.data_dir = "/nonexistent/irpipe-fuzz",
		.weight_layouts = !(data[0] & 1),
		.max_bytes = data[0] & 2 ? 64 : 0,
		.inline_max = 0,
		.inline_max_set = data[0] & 4,
	};
	Ctx *ctx, *c2;
	Module *m = fuzz_parse_text(&ctx, (const char *)data + 1, size - 1);
	if (!m || !fold_constants(m, &o))
		goto out;
	module_free(fuzz_idempotent(m, fold_pass, &o, "the folded module", &c2));
	ctx_free(c2);
out:
	module_free(m);
	ctx_free(ctx);
	return 0;
}
