/* gbuild_test: the graph builder (gbuild.h) makes what the parser makes.
 * A function built through it, with a binding of each form an importer
 * writes (parameters, inline and file constants, operator calls with
 * attributes of every kind, literals, a split's projection, a tuple and
 * the result), prints as the same function written as text and parsed
 * prints, and verifies.  Then the pieces a pass uses: fresh names, an
 * attribute map edited (sorted, locations kept, keys removed), a binding
 * linked in after another, a call the type rules refuse. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "gbuild.h"
#include "ir.h"

#include "check.h"

static const char device[] = "device @cpu = cpu(0)\n";

/* The function built below, as text. */
static const char text[] =
	"device @cpu = cpu(0)\n"
	"fn @main(%x: f32[1,4,2,2], %n: i64[2]) {\n"
	"  %c = const f32[4] [1.0, 2.0, 3.0, -4.5]\n"
	"  %f = const f32[2] file=\"main.f.npy\"\n"
	"  %b = nn.bias_add(%x, %c) {axis=1}\n"
	"  %t = layout_transform(%b) {src_layout=\"NCHW\", dst_layout=\"NCHW4c\"}\n"
	"  %r = reshape(%x) {newshape=[1, 16]}\n"
	"  %m = mean(%x) {axis=[2, 3], keepdims=true}\n"
	"  %k = clip(%m) {a_min=0.0, a_max=6.0}\n"
	"  %a = add(%k, 0.5)\n"
	"  %s = split(%x) {axis=1, indices_or_sections=2}\n"
	"  %s_0 = %s.0\n"
	"  %q = cast(%s_0) {dtype=\"f16\"}\n"
	"  %g = add(%n, 1)\n"
	"  %o = (%r, %q, %t, %a, %f, %g, true)\n"
	"  return %o\n"
	"}\n";

static Module *
parse(Ctx *ctx, const char *name, const char *s)
{
	size_t n = strlen(s);
	char *t = xmalloc(n + 1);
	memcpy(t, s, n + 1);
	return ir_parse(ctx, src_add(ctx, name, t, n), 0, n);
}

static char *
printed(const Module *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ir_print(m, f, NULL);
	fclose(f);
	return buf;
}

static Module *
build(Ctx *ctx)
{
	Module *m = parse(ctx, "<device>", device);
	if (!m)
		return NULL;
	GBuild b;
	Func *f = gb_func(&b, m, "main");
	CHECK(f && m->funcs == f, "a new function");
	CHECK(!gb_func(&(GBuild){0}, m, "cpu"), "@cpu is taken by the device");
	const Type *xt = type_tensor(m, (DType){ET_F32, 1}, 4, (int64_t[]){1, 4, 2, 2});
	Value *x = gb_param(&b, gb_name(&b, "x", NULL), xt);
	Value *n = gb_param(&b, gb_name(&b, "n", NULL),
	                    type_tensor(m, (DType){ET_I64, 1}, 1, (int64_t[]){2}));
	const Type *ct = type_tensor(m, (DType){ET_F32, 1}, 1, (int64_t[]){4});
	ConstData *cd = gb_const_data(m, ct);
	CHECK(cd->count == 4 && cd->u.f, "room for 4 floats");
	double cv[4] = {1, 2, 3, -4.5};
	memcpy(cd->u.f, cv, sizeof cv);
	Value *c = gb_const(&b, gb_name(&b, "c", NULL), ct, cd);
	const Type *ft = type_tensor(m, (DType){ET_F32, 1}, 1, (int64_t[]){2});
	Value *fc = gb_const(&b, gb_name(&b, "f", NULL), ft, gb_const_file(m, ft, "main.f.npy"));
	CHECK(fc->flags & VF_CONST_FILE, "a file constant");
	Value *bi = gb_op2(&b, gb_name(&b, "b", NULL), O_BIAS_ADD, x, c,
	                   gb_attrs(m, 1, &(GAttr){"axis", gb_int(1)}));
	Value *t = gb_op1(&b, gb_name(&b, "t", NULL), O_LAYOUT_TRANSFORM, bi,
	                  gb_attrs(m, 2, (GAttr[]){{"src_layout", gb_str(m, "NCHW")},
	                                           {"dst_layout", gb_str(m, "NCHW4c")}}));
	Value *r = gb_op1(&b, gb_name(&b, "r", NULL), O_RESHAPE, x,
	                  gb_attrs(m, 1, &(GAttr){"newshape", gb_ints(m, (int64_t[]){1, 16}, 2)}));
	Value *mn = gb_op1(&b, gb_name(&b, "m", NULL), O_MEAN, x,
	                   gb_attrs(m, 2, (GAttr[]){{"axis", gb_ints(m, (int64_t[]){2, 3}, 2)},
	                                            {"keepdims", gb_bool(true)}}));
	Value *k = gb_op1(&b, gb_name(&b, "k", NULL), O_CLIP, mn,
	                  gb_attrs(m, 2, (GAttr[]){{"a_min", gb_float(0)}, {"a_max", gb_float(6)}}));
	Value *a = gb_op2(&b, gb_name(&b, "a", NULL), O_ADD, k, gb_lit_float(&b, 0.5), NULL);
	Value *s = gb_op1(&b, gb_name(&b, "s", NULL), O_SPLIT, x,
	                  gb_attrs(m, 2, (GAttr[]){{"axis", gb_int(1)},
	                                           {"indices_or_sections", gb_int(2)}}));
	CHECK(s->type && s->type->kind == TY_TUPLE && s->type->n == 2, "split typed as a tuple");
	CHECK(!gb_proj(&b, "no", s, 2), "no field 2");
	Value *s0 = gb_proj(&b, gb_name(&b, "s", "0"), s, 0);
	Value *q = gb_op1(&b, gb_name(&b, "q", NULL), O_CAST, s0,
	                  gb_attrs(m, 1, &(GAttr){"dtype", gb_str(m, "f16")}));
	Value *g = gb_op2(&b, gb_name(&b, "g", NULL), O_ADD, n, gb_lit_int(&b, 1), NULL);
	Value *fields[7] = {r, q, t, a, fc, g, gb_lit_bool(&b, true)};
	Value *o = gb_tuple(&b, gb_name(&b, "o", NULL), 7, fields);
	gb_return(&b, o);
	CHECK(b.bad == 0, "every call typed (%u refused)", b.bad);
	CHECK(f->ret_type == o->type && o->type->n == 7, "the result's type");
	gb_done(&b);
	return m;
}

/* The entries of am as "key=kind key=kind ...". */
static void
keys(const AttrMap *am, char *buf, size_t n)
{
	buf[0] = 0;
	for (uint32_t i = 0; am && i < am->n; i++) {
		size_t o = strlen(buf);
		snprintf(buf + o, n - o, "%s%s=%d", i ? " " : "", am->e[i].key, am->e[i].val.kind);
	}
}

static void
test_attrs(Module *m)
{
	char got[256];
	AttrMap *am = gb_attrs(m, 3, (GAttr[]){{"b", gb_int(1)}, {"a", gb_float(2)},
	                                      {"c", gb_sym(m, "cpu")}});
	keys(am, got, sizeof got);
	CHECK(!strcmp(got, "a=1 b=0 c=5"), "sorted: %s", got);
	CHECK(am->e[2].val.u.sym == sym_intern_cstr(m, "cpu"), "an interned sym");
	CHECK(am->e[0].key == sym_intern_cstr(m, "a"), "interned keys");
	am->e[1].loc = (Loc){7, 3, 0};
	am->e[1].val.loc = (Loc){7, 5, 0};
	Attr s = gb_str(m, "x");
	AttrMap *set = gb_attrs_set(m, am, "b", &s);
	keys(set, got, sizeof got);
	CHECK(!strcmp(got, "a=1 b=2 c=5"), "b replaced: %s", got);
	CHECK(set->e[1].loc.line == 7 && set->e[1].val.loc.col == 5, "b keeps where it was written");
	keys(am, got, sizeof got);
	CHECK(!strcmp(got, "a=1 b=0 c=5"), "the old map unchanged: %s", got);
	Attr l = gb_list(m, (Attr[]){gb_int(1), gb_ints(m, (int64_t[]){2, 3}, 2)}, 2);
	set = gb_attrs_set(m, set, "bb", &l);
	keys(set, got, sizeof got);
	CHECK(!strcmp(got, "a=1 b=2 bb=4 c=5"), "bb put in order: %s", got);
	CHECK(set->e[2].val.u.list[1].u.list[1].u.i == 3, "a nested list");
	set = gb_attrs_set(m, set, "a", NULL);
	set = gb_attrs_set(m, set, "zz", NULL);
	keys(set, got, sizeof got);
	CHECK(!strcmp(got, "b=2 bb=4 c=5"), "a removed, zz not there: %s", got);
	set = gb_attrs_set(m, NULL, "z", &s);
	keys(set, got, sizeof got);
	CHECK(!strcmp(got, "z=2"), "into an empty map: %s", got);
	CHECK(gb_attrs(m, 0, NULL) == NULL, "no entries: no map");
	Attr nul = gb_strn(m, "a\0b", 3);
	CHECK(nul.n == 3 && nul.u.s[2] == 'b' && nul.u.s[3] == 0, "a string with a NUL byte");
}

/* A pass's edits: names, a binding after another, attributes, retyping,
 * a literal of a given type, a refused call. */
static void
test_edit(Ctx *ctx, Module *m)
{
	Func *f = m->funcs;
	GBuild b;
	gb_start(&b, m, f);
	CHECK(!strcmp(gb_name(&b, "x", NULL), "x_1"), "x is a parameter's");
	CHECK(!strcmp(gb_name(&b, "x", NULL), "x_2"), "x_1 taken by the call before");
	CHECK(!strcmp(gb_name(&b, "s", "0"), "s_0_1"), "s_0 is the projection's");
	CHECK(!strcmp(gb_name(&b, "x", "pad"), "x_pad"), "a suffix");
	CHECK(gb_take_name(&b, "mine") && !gb_take_name(&b, "mine"), "a name taken once");
	Value *x = f->params[0], *c = f->body.first;
	gb_at(&b, &f->body, c);
	b.loc = c->loc;
	b.flags = VF_PASS_A;
	b.on = vdev_get(m, sym_intern_cstr(m, "cpu"), NULL);
	Value *p = gb_op1(&b, gb_name(&b, "x", "nchw4c"), O_LAYOUT_TRANSFORM, x,
	                  gb_attrs(m, 2, (GAttr[]){{"src_layout", gb_str(m, "NCHW")},
	                                           {"dst_layout", gb_str(m, "NCHW4c")}}));
	Value *p2 = gb_op1(&b, gb_name(&b, "x", "relu"), O_RELU, p, NULL);
	CHECK(c->next == p && p->next == p2, "linked after %%c, in order");
	CHECK(p->vd == b.on && (p->flags & VF_ON) && (p->flags & VF_PASS_A), "placed, flagged");
	CHECK(p->type && p->type->n == 5 && p->type->dims[4] == 4, "typed NCHW4c");
	p->flags &= (uint16_t)~VF_PASS_A;
	p2->flags &= (uint16_t)~VF_PASS_A;
	Value *last = f->body.last;
	gb_at_end(&b, &f->body);
	b.flags = 0;
	Value *e = gb_op1(&b, gb_name(&b, "e", NULL), O_EXP, x, NULL);
	CHECK(last->next == e && f->body.last == e, "appended");
	/* an attribute changed and the call typed again */
	Value *sm = gb_op1(&b, gb_name(&b, "sm", NULL), O_SOFTMAX, x,
	                   gb_attrs(m, 1, &(GAttr){"axis", gb_int(1)}));
	Attr ax = gb_int(-1);
	gb_set_attr(m, sm, "axis", &ax);
	CHECK(gb_retype(m, sm) == x->type && attr_get(sm->u.op->attrs, "axis")->u.i == -1,
	      "softmax over the last axis");
	gb_set_op(m, sm, O_RELU, NULL);
	CHECK(gb_retype(m, sm) == x->type && sm->u.op->op->id == O_RELU && !sm->u.op->attrs,
	      "made a relu");
	Value *l = gb_lit_typed(&b, ET_F16, 2.0, 0);
	CHECK(l->kind == VK_LIT && (l->flags & VF_LIT_FLOAT) && l->type->dt.kind == ET_F16,
	      "an f16 literal");
	l = gb_lit_typed(&b, ET_U64, 0, -1);
	CHECK((l->flags & VF_LIT_U64) && l->type->dt.kind == ET_U64, "2^64-1 as a u64");
	/* refused: reported through the context (at the attribute, which has
	 * no location), the call untyped */
	ctx->capture = true;
	b.loc = (Loc){3, 1, 1};
	Value *bad = gb_op1(&b, gb_name(&b, "bad", NULL), O_SOFTMAX, x,
	                    gb_attrs(m, 1, &(GAttr){"axis", gb_int(9)}));
	CHECK(!bad->type && b.bad == 1 && ctx->ncaptured == 1 && strstr(ctx->captured[0].msg, "'axis'"),
	      "axis 9 refused (%zu diagnostics, line %u: %s)", ctx->ncaptured,
	      ctx->ncaptured ? ctx->captured[0].loc.line : 0, ctx->ncaptured ? ctx->captured[0].msg : "");
	ctx->capture = false;
	ctx_clear_captured(ctx);
	ctx->nerrors = 0;
	/* the placeholder of a value not made */
	Value *u = gb_undefined(&b, gb_name(&b, "u", NULL), x->type);
	CHECK((u->flags & VF_ERROR) && u->type == x->type, "undefined");
	gb_done(&b);
}

int
main(void)
{
	Ctx *ctx = ctx_new("gbuild_test");
	Module *want = parse(ctx, "<text>", text);
	Module *m = build(ctx);
	CHECK(want && m, "both modules made");
	if (!want || !m)
		return 1;
	char *a = printed(want), *b = printed(m);
	CHECK(!strcmp(a, b), "built as parsed\n--- parsed\n%s--- built\n%s", a, b);
	CHECK(ir_verify(m), "the built module verifies");
	char *c = printed(m);
	CHECK(!strcmp(b, c), "verifying changed nothing");
	free(a);
	free(b);
	free(c);
	test_attrs(m);
	test_edit(ctx, m);
	module_free(m);
	module_free(want);
	ctx_free(ctx);
	printf("gbuild_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
