/* fuzz_onnx.c: libFuzzer harness for ir-import-onnx (make fuzz).
 *
 * The input is an ONNX model (protobuf bytes); its first byte, taken off,
 * holds the options: bit 0 a --device line for a gpu with textures,
 * bit 1 to write every constant inline (none to files).  Any model may
 * be rejected (with a message, which goes to stderr: libFuzzer's
 * -close_fd_mask=2 hides it), but the module built of a model the import
 * accepts (verified by the import) must print, parse and verify, print to
 * the same bytes again and plan (ir-plan-devices): ir-import-onnx(1)'s
 * promise.
 */
#include "onnx/onnx_import.h"
#include "plan/plan_devices.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const char *const gpu[] = {"device @gpu = gpu(0) {texture=true}"};
	OnnxOpts o = {
		.path = "fuzz.onnx",
		.devices = data[0] & 1 ? gpu : NULL,
		.ndevices = data[0] & 1 ? 1 : 0,
		.inline_max = data[0] & 2 ? INT64_MAX : 64,
	};
	OnnxModule *om = onnx_import(data + 1, size - 1, &o);
	if (!om)
		return 0;
	size_t n;
	Module *built = onnx_module_take(om);
	char *text = fuzz_canonical(built, &n, "the imported module");
	module_free(built);
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, text, n);
	free(text);
	fuzz_check(plan_devices(m, &(PlanOpts){0}) && ir_verify(m), "the imported module plans");
	module_free(m);
	ctx_free(ctx);
	onnx_module_free(om);
	return 0;
}
