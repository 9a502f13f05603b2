/* interp_plan_test: the reference interpreter honours a memory plan: a
 * planned buffer is a view into its pool's arena, so a plan that puts two
 * buffers alive at once in the same bytes changes the result (the
 * verifier refuses such a plan, so the test sets the places itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "ir.h"
#include "ref/interp.h"

static const char *src =
	"device @cpu = cpu(0)\n"
	"pool @p {size=64}\n"
	"prim @k(%a: f32[4] @cpu:global, %b: f32[4] @cpu:global) {\n"
	"  alloc %t: f32[4] @cpu:global in @p[32]\n"
	"  for %i in 0..4 {\n"
	"    %t[%i] = %a[%i] * 2.0\n"
	"    %b[%i] = %t[%i]\n"
	"  }\n"
	"}\n"
	"fn @main() -> f32[4] {\n"
	"  %x = const f32[4] [1, 2, 3, 4]\n"
	"  %a = negative(%x) in @p[0]\n"
	"  %b = exp(%x) in @p[16]\n"
	"  %k = call_lowered @k(%a)\n"
	"  %c = add(%k, %b)\n"
	"  return %c\n"
	"}\n";

/* Runs src with the binding or alloc named `move` placed at offset `to` of
 * @p (NULL: as written); the result's elements into out. */
static bool
run(const char *move, int64_t to, double out[4])
{
	Ctx *ctx = ctx_new("interp_plan_test");
	size_t len = strlen(src);
	char *text = xmalloc(len + 1);
	memcpy(text, src, len + 1);
	uint16_t file = src_add(ctx, "<test>", text, len);
	Module *m = ir_parse(ctx, file, 0, len);
	bool ok = m != NULL;
	if (ok && move) {
		Func *f = module_func(m, sym_intern_cstr(m, "main"));
		Prim *p = module_prim(m, sym_intern_cstr(m, "k"));
		const void *node = NULL;
		for (Value *v = f->body.first; v; v = v->next)
			if (!strcmp(v->name, move))
				node = v;
		if (!node && !strcmp(move, "t"))
			node = p->body.first->u.alloc.buf;
		Place pl = {sym_intern_cstr(m, "p"), to, {0, 0}, {0, 0, 0}};
		module_set_places(m, node, 1, &pl);
	}
	Interp *in = ok ? interp_new(m) : NULL;
	InterpOpts o = {0};
	const RtVal *r = ok ? interp_run_main(in, &o) : NULL;
	ok = r && r->t && r->t->numel == 4;
	for (int i = 0; ok && i < 4; i++)
		out[i] = tensor_get(r->t, i);
	interp_free(in);
	module_free(m);
	ctx_free(ctx);
	return ok;
}

int
main(void)
{
	double good[4], bad[4];
	CHECK(run(NULL, 0, good), "the planned module runs");
	/* -2x + e^x */
	CHECK(good[0] < -2.0 + 2.72 && good[0] > -2.0 + 2.71, "result %g", good[0]);
	double again[4];
	CHECK(run("b", 48, again) && !memcmp(good, again, sizeof good),
	      "another valid plan gives the same result");
	CHECK(run("b", 0, bad) && memcmp(good, bad, sizeof good),
	      "%%b over %%a while both live changes the result");
	CHECK(run("t", 16, bad) && memcmp(good, bad, sizeof good),
	      "the prim's alloc over %%b while it lives changes the result");
	printf("interp_plan_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
