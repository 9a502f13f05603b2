/* alter_layout.c: ir-alter-layout (see alter_layout.h and
 * ir-alter-layout(1)), TVM's ConvertLayout/AlterOpLayout for the Adreno
 * flow: NCHW operators on texture devices into NCHW4c data and OIHW4o
 * weights, which ir-lower puts in images.
 *
 * 1. Placement.  The pass runs before the first ir-plan-devices, so an
 *    operator's device is what planning will give it from the annotations
 *    as written (`on`, on_device, device_copy, the default device): a
 *    copy of the module (module_clone) is planned, and each binding looks
 *    up its device by name in that copy.  One rule for both tools, and no
 *    second, subtly different planner.
 * 2. Rewrite, per function in program order (ANF: operands come first).
 *    Each original value keeps `cur` (what stands for it now), whether cur
 *    is the packed form of an NCHW value, and `alt`, its other form once
 *    someone needed it.  Anchors (conv2d, max/avg/global pooling) pack
 *    whenever their channels allow; followers (elementwise, bias_add, sum
 *    and mean over H and W with keepdims, softmax not over the channels,
 *    concatenate and split of whole texels) pack when an operand is packed
 *    already, so a packed region grows from anchors down chains and stops
 *    where an operator cannot follow.  A tuple only a concatenate reads
 *    waits for it to choose its fields' forms; the projections of a packed
 *    split are packed parts.  Every other use reads the NCHW form:
 *    a layout_transform made once per value, right after its definition
 *    (so it dominates every use), on the device planning gave the value
 *    (`on @dev`: so planning the result keeps every original binding where
 *    it was).  A packed form of a plain value is made the same way.
 *    A user's layout_transform from NCHW4c counts as a packed form for
 *    free, and one to NCHW4c of a packed value is that value: adjacent
 *    inverse transforms cancel, and the dead ones are removed at the end.
 * 3. Channels not a multiple of 4 are padded with zero channels (nn.pad
 *    before the transform in, strided_slice after the one out, pads of
 *    constant weights folded by ir-fold-constants) when at most a quarter
 *    of the padded channels are padding, input channels of a conv2d only
 *    when its data is packed already; else they stay NCHW (a conv2d of an
 *    image's 3 channels reads NCHW data with an OIHW4o weight).  Only
 *    a convolution mixes channels, so only it needs the padding to be 0:
 *    `dirty` tracks where it may not be (a sigmoid of 0 is not 0).
 *
 * Decisions depend only on the operators and what their operands are, not
 * on transforms the pass made, so a second run changes nothing.  New
 * bindings are named after the value they convert (%x_nchw4c, %w_oihw4o,
 * %c_nchw, %b_4c), with _N added only on a clash.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/alter_layout.h"
#include "diag.h"
#include "gbuild.h"
#include "layout.h"
#include "ops/attrs.h"
#include "ops/ops.h"
#include "plan/plan_devices.h"
#include "walk.h"

/* Bindings this pass made (for the dead-transform sweep), and bindings it
 * removes; both cleared before it returns. */
enum { VF_NEW = VF_PASS_A, VF_GONE = VF_PASS_B };

typedef struct {
	Value *cur;          /* what stands for the value now */
	Value *alt;          /* its other form: NCHW4c of a plain value, NCHW of a packed one */
	Value *bias;         /* a 1-d bias reshaped to [1,C/4,1,1,4] */
	Value *bcast;        /* a broadcast operand reshaped to rank 5 */
	Value *wpk;          /* a weight in OIHW4o (padded by wpad[0] outputs, wpad[1] inputs) */
	Value *pzero;        /* a padded packed value's zero-padded form (see dirty) */
	Value *user;         /* the last binding that reads it */
	Value *tail;         /* the last binding inserted after the value */
	const Type *orig;    /* the type it was written with */
	const Device *dev;   /* where planning puts it; NULL: unknown */
	Block *blk;          /* its block; NULL: a parameter */
	uint32_t uses;       /* uses before the rewrite */
	int64_t wpad[2];     /* of wpk */
	bool packed;         /* cur is the NCHW4c form of an NCHW value */
	bool dirty;          /* packed, padded, and the padding channels may not be 0 */
	bool nonproj;        /* read by something else than a projection */
	bool tpacked;        /* a split into packed parts: its projections are packed */
	bool deferred;       /* a tuple only a concatenate reads: that decides its fields */
	bool free_pk;        /* alt is a packed form the user wrote */
} Info;

typedef struct {
	Module *m;
	const AlterOpts *o;
	Module *plan;        /* the planned copy */
	Func *f;
	Info *info;
	uint32_t n;
	GBuild gb;           /* f's: new bindings and their names */
	Value *param_tail;   /* the last binding inserted for a parameter */
	const char *opname;  /* of the binding being rewritten, as written */
	bool ok;
	unsigned npacked, npadded, nkept, nadded, nremoved;
} Alter;

/* ------------------------------------------------------------ helpers */

static Info *
info(Alter *A, const Value *v)
{
	return v && v->kind != VK_LIT && v->scratch < A->n ? &A->info[v->scratch] : NULL;
}

static void
set_int(Module *m, Value *v, const char *key, int64_t i)
{
	Attr a = gb_int(i);
	gb_set_attr(m, v, key, &a);
}

static void
set_str(Module *m, Value *v, const char *key, const char *s)
{
	Attr a = gb_str(m, s);
	gb_set_attr(m, v, key, &a);
}

/* Reports that v, changed or made by the pass, has no type. */
static bool
untyped(Alter *A, Value *v)
{
	error_at(A->m->ctx, v->loc, "ir-alter-layout: internal error: '%%%s' does not type "
	         "after its layout changed", v->name);
	A->ok = false;
	return false;
}

/* Types v again after its operands or attributes changed. */
static bool
retype(Alter *A, Value *v)
{
	return gb_retype(A->m, v) || untyped(A, v);
}

/* A new binding `name = op(arg) {attrs} on @dev` after the definition of
 * def (after what was put there before, so that it dominates every use of
 * def), where dev is def's device as planned: so planning the result
 * places every original binding as it would have before (a use on
 * another device reads a copy, as it did), and a second run decides as
 * the first.  Named after def, with the suffix. */
static Value *
new_op(Alter *A, Value *def, Value *arg, OpId id, AttrMap *attrs, const char *suffix)
{
	Info *I = info(A, def);
	GBuild *b = &A->gb;
	b->loc = def->loc;
	b->flags = VF_NEW | (def->flags & VF_LOC);
	b->on = I->dev ? vdev_get(A->m, I->dev->name, NULL) : NULL;
	if (def->kind == VK_PARAM)
		gb_at(b, &A->f->body, A->param_tail);
	else
		gb_at(b, I->blk, I->tail ? I->tail : def);
	Value *v = gb_op1(b, gb_name(b, def->name, suffix), id, arg, attrs);
	v->scratch = UINT32_MAX;
	if (def->kind == VK_PARAM)
		A->param_tail = v;
	else
		I->tail = v;
	A->nadded++;
	if (!v->type)
		untyped(A, v);
	return v;
}

static Value *
new_transform(Alter *A, Value *def, Value *arg, const char *src, const char *dst,
              const char *suffix)
{
	GAttr kv[2] = {{"src_layout", gb_str(A->m, src)}, {"dst_layout", gb_str(A->m, dst)}};
	return new_op(A, def, arg, O_LAYOUT_TRANSFORM, gb_attrs(A->m, 2, kv), suffix);
}

static Value *
new_reshape(Alter *A, Value *def, Value *arg, const int64_t *dims, uint32_t n,
            const char *suffix)
{
	GAttr kv = {"newshape", gb_ints(A->m, dims, n)};
	return new_op(A, def, arg, O_RESHAPE, gb_attrs(A->m, 1, &kv), suffix);
}

/* `nn.pad` of arg (of the given rank) by pad[i] zeros after the end of
 * axis i. */
static Value *
new_pad(Alter *A, Value *def, Value *arg, const int64_t *pad, uint32_t rank,
        const char *suffix)
{
	int64_t pw[2 * 8] = {0};
	for (uint32_t i = 0; i < rank; i++)
		pw[2 * i + 1] = pad[i];
	GAttr kv = {"pad_width", gb_ints(A->m, pw, 2 * rank)};
	return new_op(A, def, arg, O_PAD, gb_attrs(A->m, 1, &kv), suffix);
}

/* `strided_slice` of the first n elements of axis 1 of arg. */
static Value *
new_cut(Alter *A, Value *def, Value *arg, int64_t n, const char *suffix)
{
	int64_t one = 1, zero = 0;
	GAttr kv[3] = {{"axes", gb_ints(A->m, &one, 1)}, {"begin", gb_ints(A->m, &zero, 1)},
	               {"end", gb_ints(A->m, &n, 1)}};
	return new_op(A, def, arg, O_STRIDED_SLICE, gb_attrs(A->m, 3, kv), suffix);
}

/* ---------------------------------------------------------- padding */

/* Channels not a multiple of 4 are padded with zero channels to the next
 * one when at most a quarter of the padded channels are padding (3 to 4,
 * 6 to 8, 7 to 8, 9 to 12, ...): the packed form then costs at most 4/3 of
 * the work.  1, 2 and 5 channels stay NCHW. */
static int64_t
round4(int64_t c)
{
	return (c + 3) / 4 * 4;
}

static bool
paddable(int64_t c)
{
	return c > 0 && 3 * round4(c) <= 4 * c;
}

/* The channels of an NCHW value (its type as written). */
static int64_t
chans(Alter *A, const Value *a)
{
	return info(A, (Value *)a)->orig->dims[1];
}

/* ------------------------------------------------------------- forms */

/* What a use that wants a's type as written reads. */
static Value *
orig_form(Alter *A, Value *a)
{
	Info *I = info(A, a);
	if (!I)
		return a;
	if (!I->packed)
		return I->cur;
	if (!I->alt) {
		int64_t C = I->orig->dims[1];
		if (C % 4 == 0) {
			I->alt = new_transform(A, a, I->cur, "NCHW4c", "NCHW", "nchw");
		} else {
			/* padded: unpacked, then the padding channels cut */
			Value *t = new_transform(A, a, I->cur, "NCHW4c", "NCHW", "padded");
			I->alt = new_cut(A, a, t, C, "nchw");
		}
	}
	return I->alt;
}

/* Is a packed form of a at hand without a new transform? */
static bool
has_packed(Alter *A, const Value *a)
{
	const Info *I = info(A, (Value *)a);
	return I && (I->packed || I->free_pk);
}

/* The NCHW4c form of the NCHW value a. */
static Value *
packed_form(Alter *A, Value *a)
{
	Info *I = info(A, a);
	if (I->packed)
		return I->cur;
	if (!I->alt) {
		int64_t C = I->orig->dims[1];
		Value *x = I->cur;
		if (C % 4) {
			int64_t pad[4] = {0, round4(C) - C, 0, 0};
			x = new_pad(A, a, x, pad, 4, "pad");
		}
		I->alt = new_transform(A, a, x, "NCHW", "NCHW4c", "nchw4c");
	}
	return I->alt;
}

/* The packed form of a that a convolution reads: its padding channels
 * must be 0 (the weight's padding is 0, but 0 times an infinity or a NaN
 * is not), so a packed value whose padding may hold something else is
 * unpacked, cut and padded again. */
static Value *
conv_data_form(Alter *A, Value *a)
{
	Info *I = info(A, a);
	if (!I->packed || !I->dirty)
		return packed_form(A, a);
	if (!I->pzero) {
		int64_t C = I->orig->dims[1];
		int64_t pad[4] = {0, round4(C) - C, 0, 0};
		Value *x = new_pad(A, a, orig_form(A, a), pad, 4, "pad");
		I->pzero = new_transform(A, a, x, "NCHW", "NCHW4c", "nchw4c");
	}
	return I->pzero;
}

/* The OIHW weight w padded by po zero output and pi zero input channels,
 * in OIHW4o if pack (one made for other pads is not kept). */
static Value *
weight_form(Alter *A, Value *w, int64_t po, int64_t pi, bool pack)
{
	Info *I = info(A, w);
	if (pack && I->wpk && I->wpad[0] == po && I->wpad[1] == pi)
		return I->wpk;
	Value *x = orig_form(A, w);
	if (po || pi) {
		int64_t pad[4] = {po, pi, 0, 0};
		x = new_pad(A, w, x, pad, 4, "pad");
	}
	if (!pack)
		return x;
	x = new_transform(A, w, x, "OIHW", "OIHW4o", "oihw4o");
	if (!I->wpk) {
		I->wpk = x;
		I->wpad[0] = po;
		I->wpad[1] = pi;
	}
	return x;
}

/* ------------------------------------------------------------ stats */

static void __attribute__((format(printf, 4, 5)))
stat_line(Alter *A, const Value *v, const Device *dev, const char *fmt, ...)
{
	if (!A->o->stats)
		return;
	fprintf(A->o->stats, "ir-alter-layout: @%s %%%s: %s on @%s: ", A->f->name, v->name,
	        A->opname, dev ? dev->name : "?");
	va_list ap;
	va_start(ap, fmt);
	vfprintf(A->o->stats, fmt, ap);
	va_end(ap);
	fputc('\n', A->o->stats);
}

/* --layout=auto packs cpus too.  Measured (POCL, one thread, CPU ms per
 * inference of whole torchvision models at 224x224 after
 * ir-fold-constants, NCHW / NCHW4c, bench/models_cpu.sh, interleaved,
 * load 5-7 on 2 cores): resnet18 37.3 / 37.8, mobilenet_v2 14.0 / 9.0,
 * squeezenet1_1 11.2 / 9.9, efficientnet_b0 37.8 / 19.0, densenet121
 * 91 / 80, googlenet 37.9 / 36.4: packed as fast or faster on all six
 * (ir-alter-layout(1)). */
static bool
packing_device(Alter *A, const Device *dev)
{
	return A->o->mode == ALTER_NCHW4C || (dev && (dev->texture || dev->kind == DK_CPU));
}

/* --stats: the rule for each cpu, once. */
static void
note_cpus(Alter *A)
{
	if (A->o->mode != ALTER_AUTO || !A->o->stats)
		return;
	for (const Device *d = A->m->devices; d; d = d->next)
		if (d->kind == DK_CPU && !d->texture)
			fprintf(A->o->stats, "ir-alter-layout: @%s is a cpu: packed, where whole models "
			        "ran as fast or faster (resnet18 37.3 / 37.8 ms, densenet121 91 / 80 "
			        "in NCHW / NCHW4c)\n", d->name);
}

static bool
is_float(const Type *t)
{
	return t && t->kind == TY_TENSOR && elem_is_float(t->dt.kind);
}

static bool
is_nchw(const Type *t)
{
	return t && t->kind == TY_TENSOR && t->n == 4;
}

/* Keeps v as written (stats say why with fmt). */
static void __attribute__((format(printf, 4, 5)))
keep(Alter *A, Value *v, const Device *dev, const char *fmt, ...)
{
	for (uint32_t i = 0; i < v->nargs; i++)
		v->args[i] = orig_form(A, v->args[i]);
	A->nkept++;
	if (!A->o->stats)
		return;
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	stat_line(A, v, dev, "%s", buf);
}

/* Keeps v in NCHW on a device that --layout=auto does not pack (a gpu
 * without images: buffers there are NCHW's), and says why. */
static void
keep_device(Alter *A, Value *v, const Device *dev)
{
	keep(A, v, dev, "kept NCHW: @%s has no textures", dev ? dev->name : "?");
}

/* Keeps v when its device or type rule out packing; true if it did. */
static bool
kept_for_device(Alter *A, Value *v, const Device *dev)
{
	if (!packing_device(A, dev)) {
		keep_device(A, v, dev);
		return true;
	}
	if (!is_float(v->type)) {
		keep(A, v, dev, "kept NCHW: not floating-point");
		return true;
	}
	return false;
}

/* ---------------------------------------------------------- operators */

static void
all_orig(Alter *A, Value *v)
{
	for (uint32_t i = 0; i < v->nargs; i++)
		v->args[i] = orig_form(A, v->args[i]);
}

static void
mark_packed(Alter *A, Value *v)
{
	Info *I = info(A, v);
	I->packed = true;
	A->npacked++;
}

static void
alter_conv(Alter *A, Value *v, const Device *dev)
{
	OpCx c;
	ConvAttrs ca;
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	if (kept_for_device(A, v, dev))
		return;
	if (!conv2d_attrs(&c, &ca)) {
		keep(A, v, dev, "kept: attributes not understood");
		return;
	}
	if (strcmp(ca.dl->name, "NCHW") || strcmp(ca.kl->name, "OIHW") || strcmp(ca.ol->name, "NCHW")) {
		keep(A, v, dev, "kept: layouts %s, %s, %s, not NCHW, OIHW, NCHW", ca.dl->name,
		     ca.kl->name, ca.ol->name);
		return;
	}
	if (!info(A, v->args[0]) || !info(A, v->args[1])) {
		keep(A, v, dev, "kept NCHW: a literal operand");
		return;
	}
	const Type *dt = info(A, v->args[0])->orig, *wt = info(A, v->args[1])->orig;
	int64_t C = dt->dims[1], O = wt->dims[0];
	/* Grouped convolutions are not padded: the groups would move.  Data
	 * that is not packed yet is read as it is, not padded: an image's 3
	 * channels padded to 4 ran slower, on POCL (the first conv2d of
	 * resnet18 at 112x112: 57 ms against 40) and on an H100 (resnet18 at
	 * 224x224: 49 ms against 41), than the conv2d reading NCHW data. */
	bool padc = C % 4 && ca.groups == 1 && paddable(C) && has_packed(A, v->args[0]);
	bool pado = O % 4 && ca.groups == 1 && paddable(O);
	bool pc = C % 4 == 0 || padc, po = O % 4 == 0 || pado;
	const char *whyc = ca.groups != 1 ? ", and a grouped convolution is not padded" :
	                   !paddable(C) ? ", and padding would waste over a quarter" :
	                   ", and not packed yet: read as it is";
	const char *whyo = ca.groups != 1 ? ", and a grouped convolution is not padded" :
	                   ", and padding would waste over a quarter";
	if (!pc && !po) {
		keep(A, v, dev, "kept NCHW: %lld input channels, not a multiple of 4%s; %lld output "
		     "channels, not a multiple of 4%s", (long long)C, whyc, (long long)O, whyo);
		return;
	}
	Value *d = pc ? conv_data_form(A, v->args[0]) : orig_form(A, v->args[0]);
	Value *w = weight_form(A, v->args[1], pado ? round4(O) - O : 0, padc ? round4(C) - C : 0, po);
	v->args[0] = d;
	v->args[1] = w;
	if (pc)
		set_str(A->m, v, "data_layout", "NCHW4c");
	if (po)
		set_str(A->m, v, "kernel_layout", "OIHW4o");
	set_str(A->m, v, "out_layout", po ? "NCHW4c" : "NCHW");
	if (attr_get(v->u.op->attrs, "channels"))
		set_int(A->m, v, "channels", po ? round4(O) : O);  /* the padded output channels */
	if (!retype(A, v))
		return;
	if (po)
		mark_packed(A, v);
	else
		A->npacked++;
	A->npadded += padc || pado;
	char din[80] = "", dout[80] = "";
	if (padc)
		snprintf(din, sizeof din, " (%lld channels padded to %lld)", (long long)C,
		         (long long)round4(C));
	if (pado)
		snprintf(dout, sizeof dout, " (%lld channels padded to %lld, cut where it is read "
		         "in NCHW)", (long long)O, (long long)round4(O));
	if (pc && po)
		stat_line(A, v, dev, "packed: NCHW4c data%s, OIHW4o weight, NCHW4c result%s", din, dout);
	else if (po)
		stat_line(A, v, dev, "packed: OIHW4o weight, NCHW4c result%s; data kept NCHW: "
		          "%lld channels, not a multiple of 4%s", dout, (long long)C, whyc);
	else
		stat_line(A, v, dev, "packed: NCHW4c data%s; weight and result kept NCHW: "
		          "%lld output channels, not a multiple of 4%s", din, (long long)O, whyo);
}

/* Whether a follower of C channels can pack: a multiple of 4, or padded
 * when an operand is packed already (padding a value only to run one
 * operator packed would cost more than it saves).  Keeps v if not. */
static bool
follower_chans(Alter *A, Value *v, const Device *dev, int64_t C, bool packed_operand)
{
	if (C % 4 == 0 || (paddable(C) && packed_operand))
		return true;
	if (!paddable(C))
		keep(A, v, dev, "kept NCHW: %lld channels, not a multiple of 4, and padding "
		     "would waste over a quarter", (long long)C);
	else
		keep(A, v, dev, "kept NCHW: %lld channels, not a multiple of 4, and no operand "
		     "is packed", (long long)C);
	return false;
}

/* Marks v packed, with dirty padding channels if dirty; its stats line. */
static void
packed_as(Alter *A, Value *v, const Device *dev, bool dirty, const char *how)
{
	mark_packed(A, v);
	Info *I = info(A, v);
	int64_t C = I->orig->dims[1];
	I->dirty = dirty && C % 4;
	A->npadded += C % 4 != 0;
	if (C % 4)
		stat_line(A, v, dev, "packed: NCHW4c%s, %lld channels padded to %lld", how,
		          (long long)C, (long long)round4(C));
	else
		stat_line(A, v, dev, "packed: NCHW4c%s", how);
}

/* Whether the padding channels of a's packed form may not be 0. */
static bool
dirty(Alter *A, const Value *a)
{
	const Info *I = info(A, (Value *)a);
	return I && I->packed && I->dirty;
}

static void
alter_pool(Alter *A, Value *v, const Device *dev)
{
	OpCx c;
	PoolAttrs pa = {0};
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	if (kept_for_device(A, v, dev))
		return;
	if (!pool2d_attrs(&c, &pa) || strcmp(pa.l->name, "NCHW")) {
		keep(A, v, dev, "kept: layout %s, not NCHW", pa.l ? pa.l->name : "?");
		return;
	}
	if (!info(A, v->args[0])) {
		keep(A, v, dev, "kept NCHW: a literal operand");
		return;
	}
	if (!follower_chans(A, v, dev, chans(A, v->args[0]), has_packed(A, v->args[0])))
		return;
	bool d = dirty(A, v->args[0]);
	v->args[0] = packed_form(A, v->args[0]);
	set_str(A->m, v, "layout", "NCHW4c");
	if (attr_get(v->u.op->attrs, "out_layout"))
		set_str(A->m, v, "out_layout", "NCHW4c");
	if (!retype(A, v))
		return;
	/* each channel pooled alone: zero channels stay 0 */
	packed_as(A, v, dev, d, "");
}

/* The rank-5 form of an operand of an elementwise operator whose NCHW
 * result has C channels, or NULL when it has none; with make false, only
 * whether it has one (a non-NULL dummy).  Operands with C channels are
 * padded with zero channels as the result is. */
static Value *
operand_form(Alter *A, Value *a, int64_t C, bool make)
{
	Info *I = info(A, a);
	if (!I)
		return a;                      /* a literal: a scalar */
	const Type *t = I->orig;
	if (t->kind != TY_TENSOR || t->n > 4)
		return NULL;
	if (t->n == 0)
		return make ? orig_form(A, a) : a;
	int64_t s[4] = {1, 1, 1, 1};
	for (uint32_t i = 0; i < t->n; i++)
		s[4 - t->n + i] = t->dims[i];
	if (t->n == 4 && s[1] == C)
		return make ? packed_form(A, a) : a;
	if (s[1] != 1 && s[1] != C)
		return NULL;
	if (!make)
		return a;
	if (I->bcast)
		return I->bcast;
	Value *x = orig_form(A, a);
	int64_t C4 = round4(C);
	if (s[1] == 1) {
		/* one channel: the lanes broadcast */
		int64_t d[5] = {s[0], 1, s[2], s[3], 1};
		I->bcast = new_reshape(A, a, x, d, 5, "4c");
	} else if (s[0] == 1 && s[2] == 1 && s[3] == 1) {
		/* the channels alone ([C], [C,1,1], ...): a reshape */
		if (C % 4) {
			int64_t pad[4] = {0};
			pad[t->n - 3] = C4 - C;
			x = new_pad(A, a, x, pad, t->n, "pad");
		}
		int64_t d[5] = {1, C4 / 4, 1, 1, 4};
		I->bcast = new_reshape(A, a, x, d, 5, "4c");
	} else {
		/* channels and more, of rank 3 ([C,H,W]): made NCHW, then packed */
		x = new_reshape(A, a, x, s, 4, "4d");
		if (C % 4) {
			int64_t pad[4] = {0, C4 - C, 0, 0};
			x = new_pad(A, a, x, pad, 4, "pad");
		}
		I->bcast = new_transform(A, a, x, "NCHW", "NCHW4c", "nchw4c");
	}
	return I->bcast;
}

/* Whether an operand broadcasts something else than 0 into the padding
 * channels: a scalar or one channel does, a value of C channels is padded
 * with zeros (or is dirty itself). */
static bool
operand_dirty(Alter *A, Value *a, int64_t C)
{
	const Info *I = info(A, a);
	if (!I)
		return true;
	if (I->packed)
		return I->dirty;
	const Type *t = I->orig;
	return (t->n >= 3 ? t->dims[t->n - 3] : 1) != C;
}

/* Whether op's result has dirty padding channels, given its operands'
 * (zeros in, zeros out: relu, clip over 0, cast, sums and products of
 * zeros, erf, hard_swish; anything else may not give 0 for 0). */
static bool
elemwise_dirty(Alter *A, Value *v, int64_t C)
{
	OpId id = v->u.op->op->id;
	bool any = false;
	for (uint32_t i = 0; i < v->nargs; i++)
		if (info(A, v->args[i]) || id != O_MULTIPLY)   /* a number times 0 is 0 */
			any = any || operand_dirty(A, v->args[i], C);
	switch (id) {
	case O_RELU: case O_NEGATIVE: case O_CAST: case O_ADD: case O_SUBTRACT: case O_MULTIPLY:
	case O_MAXIMUM: case O_MINIMUM: case O_ERF: case O_HARD_SWISH:
		return any;
	case O_CLIP: {
		OpCx c;
		double lo, hi;
		opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
		return any || !clip_attrs(&c, &lo, &hi) || lo > 0 || hi < 0;
	}
	default:
		return true;
	}
}

static void
alter_elemwise(Alter *A, Value *v, const Device *dev)
{
	if (kept_for_device(A, v, dev))
		return;
	int64_t C = v->type->dims[1];
	bool any = false;
	for (uint32_t i = 0; i < v->nargs; i++) {
		Value *a = v->args[i];
		const Info *I = info(A, a);
		any = any || (I && is_nchw(I->orig) && I->orig->dims[1] == C && has_packed(A, a));
	}
	if (!follower_chans(A, v, dev, C, any))
		return;
	for (uint32_t i = 0; i < v->nargs; i++) {
		Value *a = v->args[i];
		if (!operand_form(A, a, C, false)) {
			keep(A, v, dev, "kept NCHW: operand %%%s does not broadcast in NCHW4c",
			a->name);
			return;
		}
	}
	if (!any) {
		keep(A, v, dev, "kept NCHW: no operand is packed");
		return;
	}
	bool d = elemwise_dirty(A, v, C);
	for (uint32_t i = 0; i < v->nargs; i++)
		v->args[i] = operand_form(A, v->args[i], C, true);
	if (!retype(A, v))
		return;
	packed_as(A, v, dev, d, "");
}

/* bias_add(x, b) of a packed x is add(x, b as [1,C/4,1,1,4]). */
static void
alter_bias(Alter *A, Value *v, const Device *dev)
{
	OpCx c;
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	if (kept_for_device(A, v, dev))
		return;
	int64_t axis = op_axis(&c);
	if (axis < 0)
		axis += 4;
	int64_t C = v->type->dims[1];
	if (axis != 1) {
		keep(A, v, dev, "kept NCHW: axis %lld is not the channels", (long long)axis);
		return;
	}
	if (!follower_chans(A, v, dev, C, has_packed(A, v->args[0])))
		return;
	if (!has_packed(A, v->args[0])) {
		keep(A, v, dev, "kept NCHW: no operand is packed");
		return;
	}
	Value *b = v->args[1];
	Info *bi = info(A, b);
	bool d = dirty(A, v->args[0]) || !bi;
	v->args[0] = packed_form(A, v->args[0]);
	if (bi) {
		if (!bi->bias) {
			Value *x = orig_form(A, b);
			if (C % 4) {
				int64_t pad = round4(C) - C;
				x = new_pad(A, b, x, &pad, 1, "pad");
			}
			int64_t dd[5] = {1, round4(C) / 4, 1, 1, 4};
			bi->bias = new_reshape(A, b, x, dd, 5, "4c");
		}
		b = bi->bias;
	}
	v->args[1] = b;
	gb_set_op(A->m, v, O_ADD, NULL);
	if (!retype(A, v))
		return;
	packed_as(A, v, dev, d, ", as add");
}

static void
alter_reduce(Alter *A, Value *v, const Device *dev)
{
	OpCx c;
	ReduceAttrs ra;
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	if (kept_for_device(A, v, dev))
		return;
	const Type *xt = info(A, v->args[0]) ? info(A, v->args[0])->orig : NULL;
	if (!is_nchw(xt) || !reduce_attrs(&c, 4, &ra) || !ra.keepdims || ra.red[0] || ra.red[1] ||
	    !(ra.red[2] || ra.red[3])) {
		keep(A, v, dev, "kept NCHW: not a reduction over H and W with keepdims");
		return;
	}
	int64_t C = xt->dims[1];
	if (!follower_chans(A, v, dev, C, has_packed(A, v->args[0])))
		return;
	if (!has_packed(A, v->args[0])) {
		keep(A, v, dev, "kept NCHW: no operand is packed");
		return;
	}
	int64_t ax[2];
	uint32_t n = 0;
	for (int i = 2; i < 4; i++)
		if (ra.red[i])
			ax[n++] = i;
	Attr l = gb_ints(A->m, ax, n);
	gb_set_attr(A->m, v, "axis", &l);
	gb_set_attr(A->m, v, "exclude", NULL);
	bool d = dirty(A, v->args[0]);
	v->args[0] = packed_form(A, v->args[0]);
	if (!retype(A, v))
		return;
	packed_as(A, v, dev, d, "");
}

/* The axis of v (an operator on a value of rank 4) from 0 to 3, or -1. */
static int64_t
axis4(Value *v)
{
	OpCx c;
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	int64_t ax = op_axis(&c);
	if (ax < 0)
		ax += 4;
	return ax >= 0 && ax < 4 ? ax : -1;
}

/* softmax over N, H or W: each channel alone, so the padding channels,
 * if any, hold whatever (exp(0) / n is not 0). */
static void
alter_softmax(Alter *A, Value *v, const Device *dev)
{
	if (kept_for_device(A, v, dev))
		return;
	int64_t ax = axis4(v);
	if (ax == 1) {
		keep(A, v, dev, "kept NCHW: over the channels");
		return;
	}
	Value *x = v->args[0];
	if (!info(A, x) || !follower_chans(A, v, dev, chans(A, x), has_packed(A, x)))
		return;
	if (!has_packed(A, x)) {
		keep(A, v, dev, "kept NCHW: no operand is packed");
		return;
	}
	v->args[0] = packed_form(A, x);
	set_int(A->m, v, "axis", ax);
	if (!retype(A, v))
		return;
	packed_as(A, v, dev, true, "");
}

/* A tuple that only a concatenate reads waits for it: the concatenate
 * reads its fields packed or as written. */
static bool
defer_tuple(Alter *A, Value *t)
{
	Info *I = info(A, t);
	Value *u = I->user;
	if (I->uses != 1 || !u || u->kind != VK_BIND || u->form != B_OP ||
	    !u->u.op->op || u->u.op->op->id != O_CONCATENATE || u->args[0] != t)
		return false;
	I->deferred = true;
	return true;
}

/* The fields of the deferred tuple t, packed or as written. */
static void
tuple_fields(Alter *A, Value *t, bool pack)
{
	const Type *ft[64], **f = t->nargs <= 64 ? ft : xmalloc(t->nargs * sizeof *f);
	for (uint32_t i = 0; i < t->nargs; i++) {
		t->args[i] = pack ? packed_form(A, t->args[i]) : orig_form(A, t->args[i]);
		f[i] = t->args[i]->type;
	}
	t->type = type_tuple(A->m, t->nargs, f);
	if (pack)
		t->flags &= (uint16_t)~VF_TYPED;
	if (f != ft)
		free(f);
}

/* Why concatenate v of tuple t cannot pack (NULL: it can); *dirt: its
 * padding may not be 0. */
static const char *
concat_kept_why(Alter *A, Value *v, Value *t, int64_t ax, bool *dirt, char *buf, size_t n)
{
	if (!info(A, t) || !info(A, t)->deferred)
		return "kept NCHW: its operand is not a tuple that only it reads";
	if (ax < 0)
		return "kept NCHW: the axis is not understood";
	int64_t C = v->type->dims[1];
	bool any = false, pad = false;
	*dirt = false;
	for (uint32_t i = 0; i < t->nargs; i++) {
		Value *a = t->args[i];
		if (!info(A, a) || !is_nchw(info(A, a)->orig))
			return "kept NCHW: a part is not NCHW";
		int64_t c = chans(A, a);
		if (ax == 1 && c % 4) {
			snprintf(buf, n, "kept NCHW: part %%%s has %lld channels, not a multiple of 4",
			         a->name, (long long)c);
			return buf;
		}
		any = any || has_packed(A, a);
		*dirt = *dirt || dirty(A, a);
	}
	pad = ax != 1 && C % 4;
	if (!any)
		return "kept NCHW: no operand is packed";
	if (pad && !paddable(C)) {
		snprintf(buf, n, "kept NCHW: %lld channels, not a multiple of 4, and padding would "
		         "waste over a quarter", (long long)C);
		return buf;
	}
	return NULL;
}

/* concatenate of NCHW parts: over the channels when each part's channels
 * are a multiple of 4 (a part then is whole texels), over N, H or W when
 * their channels are, or are padded. */
static void
alter_concat(Alter *A, Value *v, const Device *dev)
{
	Value *t = v->args[0];
	if (!is_nchw(v->type)) {
		if (info(A, t) && info(A, t)->deferred)
			tuple_fields(A, t, false);
		all_orig(A, v);
		return;
	}
	int64_t ax = axis4(v);
	bool d = false;
	char buf[200];
	const char *why = !packing_device(A, dev) || !is_float(v->type) ? "" :
	                  concat_kept_why(A, v, t, ax, &d, buf, sizeof buf);
	if (info(A, t) && info(A, t)->deferred)
		tuple_fields(A, t, why == NULL);
	if (why) {
		if (!*why)
			kept_for_device(A, v, dev);
		else
			keep(A, v, dev, "%s", why);
		return;
	}
	set_int(A->m, v, "axis", ax);
	if (!retype(A, v))
		return;
	packed_as(A, v, dev, d, "");
}

/* split of an NCHW value into parts read only by projections: over the
 * channels when each part's channels are a multiple of 4, over N, H or W
 * when the channels are or are padded.  The projections are then the
 * packed parts. */
static void
alter_split(Alter *A, Value *v, const Device *dev)
{
	Value *x = v->args[0];
	Info *xi = info(A, x), *I = info(A, v);
	const Type *xt = xi ? xi->orig : NULL;
	if (!packing_device(A, dev)) {
		keep_device(A, v, dev);
		return;
	}
	if (!is_nchw(xt) || !is_float(xt)) {
		all_orig(A, v);
		return;
	}
	int64_t ax = axis4(v), C = xt->dims[1];
	const Type *rt = v->type;
	if (ax < 0 || rt->kind != TY_TUPLE) {
		keep(A, v, dev, "kept NCHW: the axis is not understood");
		return;
	}
	if (I->nonproj) {
		keep(A, v, dev, "kept NCHW: its tuple is read as a whole");
		return;
	}
	for (uint32_t i = 0; ax == 1 && i < rt->n; i++)
		if (rt->fields[i]->dims[1] % 4) {
			keep(A, v, dev, "kept NCHW: part %u has %lld channels, not a multiple of 4", i,
			     (long long)rt->fields[i]->dims[1]);
			return;
		}
	if (ax != 1 && !follower_chans(A, v, dev, C, has_packed(A, x)))
		return;
	if (!has_packed(A, x)) {
		keep(A, v, dev, "kept NCHW: no operand is packed");
		return;
	}
	bool d = dirty(A, x);
	v->args[0] = packed_form(A, x);
	set_int(A->m, v, "axis", ax);
	const Attr *ios = attr_get(v->u.op->attrs, "indices_or_sections");
	if (ax == 1 && ios && ios->kind == AT_LIST) {
		int64_t idx[64];
		if (ios->n > 64) {
			keep(A, v, dev, "kept NCHW: more than 64 parts");
			return;
		}
		for (uint32_t i = 0; i < ios->n; i++)
			idx[i] = ios->u.list[i].u.i / 4;
		Attr l = gb_ints(A->m, idx, ios->n);
		gb_set_attr(A->m, v, "indices_or_sections", &l);
	}
	if (!retype(A, v))
		return;
	I->tpacked = true;
	I->dirty = d && C % 4;
	A->npacked++;
	A->npadded += C % 4 != 0;
	if (C % 4)
		stat_line(A, v, dev, "packed: NCHW4c parts, %lld channels padded to %lld",
		          (long long)C, (long long)round4(C));
	else
		stat_line(A, v, dev, "packed: NCHW4c parts");
}

/* A projection of a packed split is a packed part. */
static void
alter_proj(Alter *A, Value *v)
{
	Info *ti = info(A, v->args[0]);
	if (!ti || !ti->tpacked) {
		all_orig(A, v);
		return;
	}
	v->type = v->args[0]->type->fields[v->u.index];
	v->flags &= (uint16_t)~VF_TYPED;
	info(A, v)->packed = true;
	info(A, v)->dirty = ti->dirty;
}

/* A layout_transform the user wrote: one to NCHW4c of something packed
 * already is that packed value; one from NCHW4c is a packed form of its
 * result for free. */
static void
alter_transform(Alter *A, Value *v, Block *blk)
{
	OpCx c;
	const Layout *src, *dst;
	opcx_init_msg(&c, v->u.op->op, v->u.op->attrs, NULL, 0);
	Value *a = v->args[0];
	Info *ai = info(A, a), *vi = info(A, v);
	if (!ai || !transform_attrs(&c, &src, &dst)) {
		all_orig(A, v);
		return;
	}
	if (!strcmp(src->name, "NCHW") && !strcmp(dst->name, "NCHW4c")) {
		if (ai->packed || ai->free_pk) {
			vi->cur = ai->packed ? ai->cur : ai->alt;   /* cancels */
			return;
		}
		v->args[0] = orig_form(A, a);
		if (!ai->alt && (ai->blk == blk || (!ai->blk && blk == &A->f->body)))
			ai->alt = v;
		return;
	}
	all_orig(A, v);
	if (!strcmp(src->name, "NCHW4c") && !strcmp(dst->name, "NCHW")) {
		vi->alt = v->args[0];
		vi->free_pk = true;
	}
}

/* on_device and device_copy carry a packed value as it is. */
static void
alter_annotation(Alter *A, Value *v)
{
	Info *ai = info(A, v->args[0]);
	if (!ai || !ai->packed) {
		all_orig(A, v);
		return;
	}
	v->args[0] = ai->cur;
	v->type = ai->cur->type;
	v->flags &= (uint16_t)~VF_TYPED;
	info(A, v)->packed = true;
}

static void
alter_binding(Alter *A, Value *v, Block *blk)
{
	const Device *dev = info(A, v)->dev;
	if (v->form == B_ON_DEVICE || v->form == B_DEVICE_COPY) {
		alter_annotation(A, v);
		return;
	}
	if (v->form == B_TUPLE) {
		if (!defer_tuple(A, v))
			all_orig(A, v);
		return;
	}
	if (v->form == B_PROJ) {
		alter_proj(A, v);
		return;
	}
	if (v->form == B_OP && v->u.op->op && v->u.op->op->id == O_SPLIT) {
		A->opname = v->u.op->op->name;
		alter_split(A, v, dev);
		return;
	}
	if (v->form == B_OP && v->u.op->op && v->u.op->op->id == O_CONCATENATE) {
		A->opname = v->u.op->op->name;
		alter_concat(A, v, dev);
		return;
	}
	if (v->form != B_OP || !v->u.op->op || !v->type || v->type->kind != TY_TENSOR) {
		all_orig(A, v);
		return;
	}
	OpId id = v->u.op->op->id;
	A->opname = v->u.op->op->name;
	uint8_t pat = v->u.op->op->pattern;
	if (id == O_CONV2D)
		alter_conv(A, v, dev);
	else if (id == O_MAX_POOL2D || id == O_AVG_POOL2D || id == O_GLOBAL_AVG_POOL2D)
		alter_pool(A, v, dev);
	else if (id == O_LAYOUT_TRANSFORM)
		alter_transform(A, v, blk);
	else if (!is_nchw(v->type))
		all_orig(A, v);
	else if (id == O_BIAS_ADD)
		alter_bias(A, v, dev);
	else if (id == O_SUM || id == O_MEAN)
		alter_reduce(A, v, dev);
	else if (id == O_SOFTMAX)
		alter_softmax(A, v, dev);
	else if (pat == PAT_ELEMWISE || pat == PAT_BROADCAST)
		alter_elemwise(A, v, dev);
	else
		all_orig(A, v);
}

/* ------------------------------------------------------------- devices */

/* The module as ir-plan-devices would place it, or NULL after reporting
 * why it cannot be planned: a copy (module_clone), planned. */
static Module *
planned_copy(Module *m)
{
	Module *c = module_clone(m);
	PlanOpts plo = {0};
	if (!plan_devices(c, &plo)) {
		module_free(c);
		return NULL;
	}
	return c;
}

static void
add_named(Map *byname, Value *v)
{
	if (v->name)
		map_add(byname, name_hash(v->name, strlen(v->name)), v);
}

/* Each value of f gets the device its namesake in the planned copy cf
 * has; an on_device that planning removed, its operand's. */
static void
find_devices(Alter *A, Func *cf, Value **order, uint32_t n)
{
	Map byname = {0};
	if (cf) {
		for (uint32_t i = 0; i < cf->nparams; i++)
			add_named(&byname, cf->params[i]);
		FuncWalk w;
		Block *blk;
		fwalk_start(&w, cf);
		for (Value *v; (v = fwalk_next_binding(&w, &blk));)
			add_named(&byname, v);
	}
	Device *dflt = module_default_device(A->m);
	for (uint32_t i = 0; i < n; i++) {
		Value *v = order[i], *cv = NULL;
		MapProbe it;
		if (cf)
			for (Value *e = map_first(&byname, name_hash(v->name, strlen(v->name)), &it); e;
			     e = map_next(&it))
				if (!strcmp(e->name, v->name)) {
					cv = e;
					break;
				}
		const Device *d = dflt;
		if (cv && cv->vd)
			d = module_device(A->m, sym_intern_cstr(A->m, cv->vd->dev));
		else if (v->kind == VK_BIND && v->form == B_ON_DEVICE && info(A, v->args[0]))
			d = info(A, v->args[0])->dev;
		A->info[v->scratch].dev = d;
	}
	map_free(&byname);
}

/* ----------------------------------------------------------- the sweep */

static bool
removable(const Value *v)
{
	if (v->kind != VK_BIND || v->form != B_OP || !v->u.op->op)
		return false;
	OpId id = v->u.op->op->id;
	return id == O_LAYOUT_TRANSFORM || id == O_RESHAPE || id == O_PAD || id == O_STRIDED_SLICE;
}

static void
count(uint32_t *uses, const Value *a)
{
	if (a && a->kind == VK_BIND && a->scratch != UINT32_MAX)
		uses[a->scratch]++;
}

/* Removes the transforms no one reads any more: those made here, and the
 * user's that a cancellation left unread. */
static void
sweep(Alter *A, uint32_t nparams_orig)
{
	(void)nparams_orig;
	PtrVec all = {0}, blocks = {0};
	FuncWalk w;
	WalkStep s;
	ptrvec_push(&blocks, &A->f->body);
	fwalk_start(&w, A->f);
	Block *blk;
	uint32_t n = 0;
	/* remember the original use counts before renumbering */
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		Info *I = info(A, v);
		uint32_t orig = I ? I->uses : 0;
		ptrvec_push(&all, v);
		v->scratch = n++;
		if (orig && removable(v))
			v->flags |= VF_NEW;   /* the user's, read before: may go if now unread */
		if (v->form == B_IF) {
			ptrvec_push(&blocks, &v->u.arms[0]);
			ptrvec_push(&blocks, &v->u.arms[1]);
		}
	}
	for (uint32_t i = 0; i < A->f->nparams; i++)
		A->f->params[i]->scratch = UINT32_MAX;
	uint32_t *uses = xcalloc(n ? n : 1, sizeof *uses);
	fwalk_start(&w, A->f);
	while (fwalk_next(&w, &s)) {
		if (s.ev == W_BIND) {
			for (uint32_t i = 0; i < s.v->nargs; i++)
				count(uses, s.v->args[i]);
		} else {
			count(uses, s.blk->yield);
		}
	}
	for (size_t i = all.n; i-- > 0;) {
		Value *v = all.v[i];
		bool mine = v->flags & VF_NEW;
		v->flags &= (uint16_t)~VF_NEW;
		if (!mine || !removable(v) || uses[i])
			continue;
		v->flags |= VF_GONE;
		if (v->args[0] && v->args[0]->kind == VK_BIND && v->args[0]->scratch != UINT32_MAX)
			uses[v->args[0]->scratch]--;
		if (v->scratch < n)
			A->nremoved++;
	}
	for (size_t i = 0; i < blocks.n; i++) {
		Block *b = blocks.v[i];
		Value *prev = NULL;
		for (Value *v = b->first; v; v = v->next) {
			if (v->flags & VF_GONE)
				continue;
			if (prev)
				prev->next = v;
			else
				b->first = v;
			prev = v;
		}
		if (prev)
			prev->next = NULL;
		else
			b->first = NULL;
		b->last = prev;
	}
	for (size_t i = 0; i < all.n; i++)
		((Value *)all.v[i])->flags &= (uint16_t)~VF_GONE;
	free(uses);
	ptrvec_free(&all);
	ptrvec_free(&blocks);
}

/* -------------------------------------------------------------- driver */

static void
alter_func(Alter *A, Func *f, Func *cf)
{
	A->f = f;
	A->param_tail = NULL;
	gb_start(&A->gb, A->m, f);
	/* program order, with each binding's block */
	PtrVec order = {0}, blks = {0}, ends = {0};
	for (uint32_t i = 0; i < f->nparams; i++) {
		ptrvec_push(&order, f->params[i]);
		ptrvec_push(&blks, NULL);
	}
	ptrvec_push(&ends, &f->body);
	FuncWalk w;
	Block *blk;
	fwalk_start(&w, f);
	for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
		ptrvec_push(&order, v);
		ptrvec_push(&blks, blk);
		if (v->form == B_IF) {
			ptrvec_push(&ends, &v->u.arms[0]);
			ptrvec_push(&ends, &v->u.arms[1]);
		}
	}
	A->n = (uint32_t)order.n;
	A->info = xcalloc(A->n ? A->n : 1, sizeof *A->info);
	for (uint32_t i = 0; i < A->n; i++) {
		Value *v = order.v[i];
		v->scratch = i;
		A->info[i].cur = v;
		A->info[i].orig = v->type;
		A->info[i].blk = blks.v[i];
	}
	for (uint32_t i = 0; i < A->n; i++) {
		Value *v = order.v[i];
		for (uint32_t k = 0; k < v->nargs; k++) {
			Info *I = info(A, v->args[k]);
			if (!I)
				continue;
			I->uses++;
			I->user = v;
			I->nonproj = I->nonproj || v->kind != VK_BIND || v->form != B_PROJ;
		}
	}
	for (size_t i = 0; i < ends.n; i++) {
		Info *I = info(A, ((Block *)ends.v[i])->yield);
		if (I) {
			I->uses++;
			I->nonproj = true;
			I->user = NULL;
		}
	}
	find_devices(A, cf, (Value **)order.v, A->n);
	for (uint32_t i = f->nparams; i < A->n && A->ok; i++)
		alter_binding(A, order.v[i], blks.v[i]);
	for (size_t i = 0; i < ends.n && A->ok; i++) {
		Block *b = ends.v[i];
		b->yield = orig_form(A, b->yield);
	}
	if (A->ok)
		sweep(A, f->nparams);
	for (uint32_t i = 0; i < A->n; i++)
		((Value *)order.v[i])->flags &= (uint16_t)~(VF_NEW | VF_GONE);
	free(A->info);
	A->info = NULL;
	A->n = 0;
	gb_done(&A->gb);
	ptrvec_free(&order);
	ptrvec_free(&blks);
	ptrvec_free(&ends);
}

bool
alter_layout(Module *m, const AlterOpts *o)
{
	if (!module_check_unplanned(m, "ir-alter-layout"))
		return false;
	if (o->mode == ALTER_NONE)
		return true;
	Alter A = {.m = m, .o = o, .ok = true};
	A.plan = planned_copy(m);
	if (!A.plan)
		return false;
	note_cpus(&A);
	Func *cf = A.plan->funcs;
	for (Func *f = m->funcs; f && A.ok; f = f->next) {
		Func *c = cf && !strcmp(cf->name, f->name) ? cf : NULL;
		alter_func(&A, f, c);
		if (cf)
			cf = cf->next;
	}
	module_free(A.plan);
	if (o->stats)
		fprintf(o->stats, "ir-alter-layout: %u operator%s packed (%u with padded channels), "
		        "%u kept; %u layout transform%s, reshape%s, pad%s or cut%s added, %u removed\n",
		        A.npacked, A.npacked == 1 ? "" : "s", A.npadded, A.nkept, A.nadded,
		        A.nadded == 1 ? "" : "s", A.nadded == 1 ? "" : "s", A.nadded == 1 ? "" : "s",
		        A.nadded == 1 ? "" : "s", A.nremoved);
	return A.ok;
}
