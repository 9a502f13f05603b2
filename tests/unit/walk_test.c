/* walk_test: the loop-level walker of walk.h visits a prim's statements
 * in preorder (a body before the statements after it, a then arm before
 * the else arm) and reports each block's end with its owner, arm and
 * depth; and it walks a nest deeper than any C stack would take. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"
#include "walk.h"

#include "check.h"

static const char text[] =
	"device @cpu = cpu(0)\n"
	"prim @p(%A: f32[4] @cpu, %B: f32[4] @cpu) {\n"
	"  kernel @p_k0 {\n"
	"    for %i in 0..4 {\n"
	"      if %i < 2 {\n"
	"        %B[%i] = %A[%i]\n"
	"      } else {\n"
	"        let %t = %A[%i] + 1.0\n"
	"        %B[%i] = %t\n"
	"      }\n"
	"    }\n"
	"  }\n"
	"}\n";

int
main(void)
{
	Ctx *ctx = ctx_new("walk_test");
	size_t n = strlen(text);
	char *t = xmalloc(n + 1);
	memcpy(t, text, n + 1);
	Module *m = ir_parse(ctx, src_add(ctx, "<walk>", t, n), 0, n);
	CHECK(m && m->prims, "the prim parses");
	if (!m || !m->prims)
		return 1;
	/* S kind depth | E owner-kind arm depth (owner -1: the root) */
	char got[256] = "", step[32];
	PrimWalk w;
	PWalkStep s;
	pwalk_start(&w, &m->prims->body);
	while (pwalk_next(&w, &s)) {
		if (s.ev == PW_STMT)
			snprintf(step, sizeof step, "S%d.%d ", s.s->kind, s.depth);
		else
			snprintf(step, sizeof step, "E%d.%d.%d ", s.s ? s.s->kind : -1, s.arm, s.depth);
		strncat(got, step, sizeof got - strlen(got) - 1);
	}
	char want[256];
	snprintf(want, sizeof want, "S%d.1 S%d.2 S%d.3 S%d.4 E%d.0.4 S%d.4 S%d.4 E%d.1.4 E%d.0.3 E%d.0.2 E-1.0.1 ",
	         S_KERNEL, S_FOR, S_IF, S_STORE, S_IF, S_LET, S_STORE, S_IF, S_FOR, S_KERNEL);
	CHECK(strcmp(got, want) == 0, "steps\n  got  %s\n  want %s", got, want);

	/* A nest of 100000 ifs: an explicit stack, no recursion. */
	enum { DEPTH = 100000 };
	PStmt *st = xcalloc(DEPTH, sizeof *st);
	for (int i = 0; i < DEPTH; i++) {
		st[i].kind = S_IF;
		if (i + 1 < DEPTH)
			st[i].u.cond.arms[0].first = st[i].u.cond.arms[0].last = &st[i + 1];
	}
	PBlock root = {&st[0], &st[0]};
	int stmts = 0, ends = 0, deepest = 0;
	pwalk_start(&w, &root);
	while (pwalk_next(&w, &s)) {
		stmts += s.ev == PW_STMT;
		ends += s.ev == PW_BLOCK_END;
		if (s.depth > deepest)
			deepest = s.depth;
	}
	CHECK(stmts == DEPTH && ends == DEPTH + 1 && deepest == DEPTH + 1,
	      "a deep nest: %d statements, %d block ends, depth %d", stmts, ends, deepest);
	free(st);
	module_free(m);
	ctx_free(ctx);
	printf("walk_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
