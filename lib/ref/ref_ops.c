/* ref_ops.c: ref_eval (output checks against the shape rules, dispatch)
 * and what the reference kernels share: messages, accumulators.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_impl.h"

/* ------------------------------------------------------------- dispatch */

/* The kernel of each operator: a switch, so -Wswitch names an operator
 * ops.def gained and this file did not. */
static RefKernel *
kernel_of(OpId id)
{
	switch (id) {
	case O_ADD: case O_SUBTRACT: case O_MULTIPLY: case O_DIVIDE: case O_MAXIMUM:
	case O_MINIMUM: case O_POWER:
		return ref_binary;
	case O_NEGATIVE: case O_RELU: case O_EXP: case O_LOG: case O_SQRT: case O_RSQRT:
	case O_SIGMOID: case O_TANH: case O_ERF: case O_HARD_SIGMOID: case O_HARD_SWISH:
	case O_SIN: case O_COS: case O_ASIN: case O_ACOS: case O_ATAN:
		return ref_unary;
	case O_EQUAL: case O_NOT_EQUAL: case O_LESS: case O_LESS_EQUAL: case O_GREATER:
	case O_GREATER_EQUAL: case O_LOGICAL_AND: case O_LOGICAL_OR: case O_LOGICAL_XOR:
		return ref_compare;
	case O_LOGICAL_NOT: return ref_logical_not;
	case O_WHERE: return ref_where;
	case O_CLIP: return ref_clip;
	case O_CAST: return ref_cast;
	case O_BIAS_ADD: return ref_bias_add;
	case O_SOFTMAX: return ref_softmax;
	case O_LAYER_NORM: return ref_layer_norm;
	case O_SUM: case O_MEAN: case O_MAX: case O_MIN: return ref_reduce;
	case O_ARGMAX: case O_ARGMIN: return ref_argreduce;
	case O_CONV2D: return ref_conv2d;
	case O_DENSE: return ref_dense;
	case O_BATCH_MATMUL: return ref_batch_matmul;
	case O_MAX_POOL2D: case O_AVG_POOL2D: return ref_pool2d;
	case O_GLOBAL_AVG_POOL2D: return ref_global_avg_pool2d;
	case O_RESHAPE: case O_SQUEEZE: case O_EXPAND_DIMS: return ref_copy;
	case O_TRANSPOSE: return ref_transpose;
	case O_LAYOUT_TRANSFORM: return ref_layout_transform;
	case O_CONCATENATE: return ref_concatenate;
	case O_SPLIT: return ref_split;
	case O_STRIDED_SLICE: return ref_strided_slice;
	case O_PAD: return ref_pad;
	case O__COUNT: break;
	}
	return NULL;
}

bool
ref_supports(const OpDef *op)
{
	return op && kernel_of(op->id);
}

/* outs[i] matches field i of the result type. */
static bool
check_outs(RefCx *c, const Type *result, Tensor **outs, uint32_t nouts)
{
	if (!result)
		return ref_fail(c, "no result type given");
	uint32_t want = result->kind == TY_TUPLE ? result->n : 1;
	if (nouts != want)
		return ref_fail(c, "the result type has %u field%s but %u output tensor%s were given",
		                (unsigned)want, want == 1 ? "" : "s", (unsigned)nouts,
		                nouts == 1 ? "" : "s");
	for (uint32_t i = 0; i < nouts; i++) {
		const Type *t = result->kind == TY_TUPLE ? result->fields[i] : result;
		const Tensor *o = outs[i];
		if (t->kind != TY_TENSOR || t->dt.lanes != 1)
			return ref_fail(c, "result field %u is not a tensor of scalar elements",
			                (unsigned)i);
		if (!o)
			return ref_fail(c, "output tensor %u is missing", (unsigned)i);
		bool same = o->kind == (ElemKind)t->dt.kind && o->rank == t->n;
		for (uint32_t k = 0; same && k < t->n; k++)
			same = o->dims[k] == t->dims[k];
		if (!same) {
			char a[256], b[256];
			return ref_fail(c, "output tensor %u is %s%s, but the result type says %s%s",
			                (unsigned)i, elem_name(o->kind),
			                ints_text(o->dims, o->rank, a, sizeof a),
			                elem_name((ElemKind)t->dt.kind),
			                ints_text(t->dims, t->n, b, sizeof b));
		}
	}
	return true;
}

Shape *
ref_shape_of(const Tensor *t, Shape *s)
{
	shape_set(s, (DType){(uint8_t)t->kind, 1}, t->rank, t->dims);
	return s;
}

/* out has shape s, element type included. */
static bool
out_is(RefCx *c, const Tensor *out, const Shape *s)
{
	if (out->kind != (ElemKind)s->dt.kind)
		return ref_fail(c, "the operands give a result of element type %s, but the output "
		                "tensor has %s", elem_name((ElemKind)s->dt.kind), elem_name(out->kind));
	bool same = out->rank == s->rank;
	for (uint32_t i = 0; same && i < s->rank; i++)
		same = out->dims[i] == s->dims[i];
	if (same)
		return true;
	char a[256], b[256];
	return ref_fail(c, "the operands give a result of shape %s, but the output tensor has "
	                "shape %s", ints_text(s->dims, s->rank, a, sizeof a),
	                ints_text(out->dims, out->rank, b, sizeof b));
}

/* The operator's shape rule (ops/shape.h) on the operands: it checks them
 * and their attributes as the type rule does, and the outputs must have
 * the shapes it gives, so a kernel reads and writes within its tensors. */
static bool
check_rule(RefCx *c, Tensor *const *args, uint32_t nargs, Tensor **outs, uint32_t nouts)
{
	Shape *in = xmalloc((nargs ? nargs : 1) * sizeof *in), s;
	for (uint32_t i = 0; i < nargs; i++)
		ref_shape_of(args[i], &in[i]);
	bool ok;
	if (c->id == O_SPLIT && nargs == 1) {
		uint32_t axis;
		int64_t *sizes;
		uint32_t n = split_shape(c, &in[0], &axis, &sizes);
		ok = n > 0;
		if (ok && n != nouts)
			ok = ref_fail(c, "splits into %u pieces, but %u outputs were given", (unsigned)n,
			              (unsigned)nouts);
		s = in[0];
		for (uint32_t p = 0; ok && p < n; p++) {
			s.dims[axis] = sizes[p];
			ok = out_is(c, outs[p], &s);
		}
		free(sizes);
	} else {
		ok = op_shape(c, in, nargs, &s) && out_is(c, outs[0], &s);
	}
	free(in);
	return ok;
}

bool
ref_eval(const OpDef *op, const AttrMap *attrs, Tensor *const *args, uint32_t nargs,
         const Type *result, Tensor **outs, uint32_t nouts, char *err, size_t errsz)
{
	RefCx c;
	opcx_init_msg(&c, op, attrs, err, errsz);
	RefKernel *fn = op ? kernel_of(op->id) : NULL;
	if (!fn)
		return ref_fail(&c, "no reference kernel for this operator");
	for (uint32_t i = 0; i < nargs; i++)
		if (!args[i])
			return ref_fail(&c, "operand %u is missing", (unsigned)i + 1);
		else if (args[i]->numel > 0 && !args[i]->data)
			return ref_fail(&c, "operand %u has no data", (unsigned)i + 1);
	if (!check_outs(&c, result, outs, nouts) || !check_rule(&c, args, nargs, outs, nouts))
		return false;
	return fn(&c, args, nargs, outs, nouts);
}

/* ------------------------------------------------------------- messages */

bool
ref_fail(RefCx *c, const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	op_error(c, "%s", buf);
	return false;
}

int64_t
ref_prod(const int64_t *dims, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo; i < hi; i++)
		if (dims[i] == 0)
			return 0;
	int64_t n = dims_numel(hi - lo, dims + lo);
	return n < 0 ? INT64_MAX : n;
}

/* ---------------------------------------------------------- arithmetic */

void
ref_store_int(Tensor *out, int64_t o, uint64_t bits, bool is_unsigned)
{
	switch (out->kind) {
	case ET_F16:
		/* Through double: only values beyond 2^53 round twice, and those
		 * overflow f16 either way. */
		tensor_set(out, o, is_unsigned ? (double)bits : (double)ref_s(bits));
		return;
	case ET_F32:
		((float *)out->data)[o] = is_unsigned ? (float)bits : (float)ref_s(bits);
		return;
	case ET_F64:
		((double *)out->data)[o] = is_unsigned ? (double)bits : (double)ref_s(bits);
		return;
	default:
		tensor_set_int(out, o, ref_s(bits));
		return;
	}
}

void
acc_store(const Acc *a, Tensor *out, int64_t o)
{
	if (a->isint)
		ref_store_int(out, o, a->i, a->uns);
	else
		tensor_set(out, o, a->f);
}

void
acc_store_div(const Acc *a, int64_t n, Tensor *out, int64_t o)
{
	if (!a->isint)
		tensor_set(out, o, a->f / (double)n);
	else if (a->uns)
		ref_store_int(out, o, a->i / (uint64_t)n, true);
	else
		ref_store_int(out, o, ref_u(ref_s(a->i) / n), false);
}
