/* interp_scratch_test: the interpreter numbers a function's values itself,
 * whatever an earlier pass left in Func.scratch and Value.scratch (each
 * pass's own use): a module run in memory after ir-plan-devices and
 * ir-lower read the numbers they left and indexed past its frames (found
 * by tests/fuzz/fuzz_interp.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "ir.h"
#include "ref/interp.h"

static const char *src =
	"device @cpu = cpu(0)\n"
	"fn @main(%x: f32[4]) -> f32[4] {\n"
	"  %a = add(%x, %x)\n"
	"  %b = negative(%a)\n"
	"  return %b\n"
	"}\n";

int
main(void)
{
	Ctx *ctx = ctx_new("interp_scratch_test");
	size_t len = strlen(src);
	char *text = xmalloc(len + 1);
	memcpy(text, src, len + 1);
	Module *m = ir_parse(ctx, src_add(ctx, "<test>", text, len), 0, len);
	CHECK(m != NULL, "the module parses");
	if (!m)
		return 1;
	Func *f = module_func(m, sym_intern_cstr(m, "main"));
	/* what another pass may leave: a count, and numbers of its own */
	f->scratch = 2;
	f->params[0]->scratch = (uintptr_t)1 << 28;
	for (Value *v = f->body.first; v; v = v->next)
		v->scratch = (uintptr_t)1 << 29;
	Tensor *x = tensor_new(ET_F32, 1, (int64_t[]){4});
	for (int i = 0; i < 4; i++)
		tensor_set(x, i, i + 1);
	InterpInput input = {.name = "x", .tensor = x};
	InterpOpts o = {.inputs = &input, .ninputs = 1};
	for (int run = 0; run < 2; run++) {
		Interp *in = interp_new(m);
		const RtVal *r = interp_run_main(in, &o);
		CHECK(r && r->t && r->t->numel == 4, "run %d gives a result", run);
		for (int i = 0; r && r->t && i < 4; i++)
			CHECK(tensor_get(r->t, i) == -2.0 * (i + 1), "run %d element %d: %g", run, i,
			      tensor_get(r->t, i));
		interp_free(in);
	}
	tensor_free(x);
	module_free(m);
	ctx_free(ctx);
	printf("interp_scratch_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
