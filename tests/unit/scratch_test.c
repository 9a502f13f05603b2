/* scratch_test: the pass-owned Value flags (VF_PASS_*, ir.h) are zero
 * between passes: after parsing (names that went out of scope), planning
 * (values read, copies made, annotations dropped) and lowering, the
 * verifier accepts the module; and it reports a flag a pass left behind. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "lower/lower.h"
#include "plan/plan_devices.h"

#include "check.h"

static const char text[] =
	"device @cpu = cpu(0)\n"
	"device @gpu = gpu(0)\n"
	"fn @main(%x: f32[4], %c: bool[]) -> f32[4] {\n"
	"  %a = add(%x, 1.0)\n"
	"  %g = on_device(%a, @gpu)\n"
	"  %r = if %c {\n"
	"    %t = multiply(%g, 2.0)\n"
	"    yield %t\n"
	"  } else {\n"
	"    %e = negative(%a)\n"
	"    yield %e\n"
	"  }\n"
	"  %u = on_device(%x, @gpu)\n"
	"  %s = subtract(%r, %x)\n"
	"  return %s\n"
	"}\n";

static Module *
parse(Ctx *ctx)
{
	size_t n = strlen(text);
	char *t = xmalloc(n + 1);
	memcpy(t, text, n + 1);
	return ir_parse(ctx, src_add(ctx, "<scratch>", t, n), 0, n);
}

static unsigned
pass_bits(const Func *f)
{
	unsigned bits = 0;
	for (uint32_t i = 0; i < f->nparams; i++)
		bits |= f->params[i]->flags & VF_PASS_MASK;
	for (const Value *v = f->body.first; v; v = v->next) {
		bits |= v->flags & VF_PASS_MASK;
		for (uint32_t i = 0; i < v->nargs; i++)
			bits |= v->args[i]->flags & VF_PASS_MASK;
	}
	return bits;
}

int
main(void)
{
	Ctx *ctx = ctx_new("scratch_test");
	Module *m = parse(ctx);
	CHECK(m != NULL, "the module parses");
	if (!m)
		return 1;
	CHECK(pass_bits(m->funcs) == 0, "no pass flags after parsing (0x%x)", pass_bits(m->funcs));
	PlanOpts po = {0};
	CHECK(plan_devices(m, &po), "the module plans");
	CHECK(pass_bits(m->funcs) == 0, "no pass flags after planning (0x%x)", pass_bits(m->funcs));
	CHECK(ir_verify(m), "the planned module verifies");
	LowerOpts lo = {0};
	CHECK(lower_module(m, &lo), "the planned module lowers");
	CHECK(pass_bits(m->funcs) == 0, "no pass flags after lowering (0x%x)", pass_bits(m->funcs));
	CHECK(ir_verify(m), "the lowered module verifies");

	/* A flag left behind is an internal error at its value. */
	ctx->capture = true;
	m->funcs->body.first->flags |= VF_PASS_B;
	CHECK(!ir_verify(m), "a pass flag left on a binding fails verification");
	CHECK(ctx->ncaptured > 0 && strstr(ctx->captured[0].msg, "scratch flags"),
	      "the error names the scratch flags: %s", ctx->ncaptured ? ctx->captured[0].msg : "(none)");
	ctx_clear_captured(ctx);
	module_free(m);
	ctx_free(ctx);
	printf("scratch_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
