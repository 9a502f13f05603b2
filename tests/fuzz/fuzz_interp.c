/* fuzz_interp.c: libFuzzer harness for ir-run --interp (make fuzz).
 *
 * The input is a module; its first byte, taken off, holds the options:
 * bit 0 to run it as read, else after ir-plan-devices | ir-lower |
 * ir-plan-devices | ir-flatten-texture (bit 1 --no-fuse); bit 2 with
 * ir-plan-memory's places too (the interpreter then keeps the buffers in
 * host arenas as the plan says).  @main runs on inputs made of the option
 * byte, under a memory limit: it may fail, with a message, but never
 * crash, leak or break the sanitizers' rules.
 *
 * Runs that could take long are skipped, not run: a module naming a
 * constant file (a name could be a FIFO, and reading it would block), a
 * tensor type of more than 4096 elements, a loop nest of more than 2^22
 * iterations or with bounds that are not literals.
 */
#include "texture/flatten_texture.h"
#include "lower/lower.h"
#include "plan/plan_devices.h"
#include "memplan/plan_memory.h"
#include "ref/interp.h"
#include "walk.h"

#include "fuzz_common.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size);

enum { FUZZ_INTERP_NUMEL = 4096, FUZZ_INTERP_DEPTH = 64 };
#define FUZZ_INTERP_NEST ((int64_t)1 << 22)

/* Whether every tensor type of m is small and every loop nest of its
 * prims short, with literal bounds. */
static bool
fuzz_interp_small(const Module *m)
{
	/* the module's hash-consed types (module.c's table): every tensor
	 * type any value or buffer has is there */
	for (uint32_t i = 0; i < m->types.cap; i++) {
		const Type *t = m->types.slot[i];
		if (!t || t->kind != TY_TENSOR)
			continue;
		int64_t n = 1;
		for (uint32_t d = 0; d < t->n; d++)
			if (t->dims[d] < 0 || (t->dims[d] && n > FUZZ_INTERP_NUMEL / t->dims[d]))
				return false;
			else
				n *= t->dims[d];
	}
	for (Prim *p = m->prims; p; p = p->next) {
		/* cost[d]: iterations of the loops around a statement of depth d */
		int64_t cost[FUZZ_INTERP_DEPTH + 2];
		cost[1] = 1;
		PrimWalk w;
		PWalkStep st;
		pwalk_start(&w, &p->body);
		while (pwalk_next(&w, &st)) {
			if (st.ev != PW_STMT)
				continue;
			const PStmt *s = st.s;
			if (st.depth > FUZZ_INTERP_DEPTH) {
				pwalk_free(&w);
				return false;
			}
			int64_t c = cost[st.depth];
			if (s->kind == S_FOR) {
				if (s->u.loop.lo->kind != E_INT || s->u.loop.hi->kind != E_INT) {
					pwalk_free(&w);
					return false;
				}
				int64_t e;
				if (__builtin_sub_overflow(s->u.loop.hi->u.i, s->u.loop.lo->u.i, &e) ||
				    e > FUZZ_INTERP_NEST || (e > 0 && c > FUZZ_INTERP_NEST / e)) {
					pwalk_free(&w);
					return false;
				}
				c = e > 0 ? c * e : c;
			}
			cost[st.depth + 1] = c;
		}
	}
	return true;
}

int
FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	for (size_t i = 0; i + 5 <= len; i++)
		if (memcmp(text + i, "file=", 5) == 0)
			return 0;
	Ctx *ctx;
	Module *m = fuzz_parse_text(&ctx, text, len);
	Interp *in = NULL;
	Tensor *ts[64];
	InterpInput inputs[64];
	uint32_t ninputs = 0;
	if (!m)
		goto out;
	if (!(opt & 1)) {
		size_t n;
		char *t = fuzz_print(m, &n, false);
		int known = fuzz_known_lower_defect(t, n);
		free(t);
		LowerOpts lo = {.no_fuse = opt & 2};
		/* the stages' own defects are their harnesses' to find */
		if (known != FUZZ_LOWER_OK || !plan_devices(m, &(PlanOpts){0}) ||
		    !lower_module(m, &lo) || !ir_verify(m) || !plan_devices(m, &(PlanOpts){0}) ||
		    !ir_verify(m) || !flatten_texture(m) || !ir_verify(m))
			goto out;
	}
	if ((opt & 4) && !plan_memory(m, &(MemPlanOpts){.algo = MP_BEST}))
		goto out;
	Func *main = module_func(m, sym_intern_cstr(m, "main"));
	if (!main || main->nparams > 64 || !fuzz_interp_small(m))
		goto out;
	for (uint32_t i = 0; i < main->nparams; i++) {
		const Value *p = main->params[i];
		Tensor *t = p->type ? tensor_like_type(p->type) : NULL;
		if (!t)
			continue;        /* a tuple: the run says it is missing */
		for (int64_t k = 0; k < t->numel; k++)
			tensor_set(t, k, (double)((k * (opt | 1) + i) % 7) - 3.0);
		ts[ninputs] = t;
		inputs[ninputs++] = (InterpInput){.name = p->name, .tensor = t};
	}
	in = interp_new(m);
	InterpOpts io = {
		.data_dir = "/nonexistent", .inputs = inputs, .ninputs = ninputs,
		.max_call_depth = 16, .max_memory = (uint64_t)16 << 20,
	};
	const RtVal *r = interp_run_main(in, &io);
	(void)r;
out:
	interp_free(in);
	for (uint32_t i = 0; i < ninputs; i++)
		tensor_free(ts[i]);
	module_free(m);
	ctx_free(ctx);
	return 0;
}
