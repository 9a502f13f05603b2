/* onnx_read.c: the ONNX protobuf in: the model through protoc-c's
 * bindings, tensors as Tensors, node attributes. */
#include <stdlib.h>
#include <string.h>

#include "onnx_impl.h"

/* ------------------------------------------------------------ nesting */

static bool
varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

/* The deepest nesting of messages in buf, read as `desc`, by the wire
 * format and an explicit stack: protobuf-c's unpacking recurses once per
 * level, and an ONNX graph can nest (a graph in a node's attribute) as deep
 * as the file says.  Stops at the first malformed byte: unpacking reports
 * that.  Returns the depth reached, at most limit + 1. */
static int
nesting(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc, int limit)
{
	struct {
		const ProtobufCMessageDescriptor *d;
		const uint8_t *end;
	} st[ONNX_MAX_DEPTH + 2];
	int top = 0, deepest = 1;
	const uint8_t *p = buf;
	st[0].d = desc;
	st[0].end = buf + len;
	while (top >= 0) {
		if (p >= st[top].end) {
			p = st[top].end;
			top--;
			continue;
		}
		uint64_t key, v;
		if (!varint(&p, st[top].end, &key))
			return deepest;
		switch (key & 7) {
		case 0:
			if (!varint(&p, st[top].end, &v))
				return deepest;
			break;
		case 1:
			if (st[top].end - p < 8)
				return deepest;
			p += 8;
			break;
		case 5:
			if (st[top].end - p < 4)
				return deepest;
			p += 4;
			break;
		case 2: {
			if (!varint(&p, st[top].end, &v) || v > (uint64_t)(st[top].end - p))
				return deepest;
			const ProtobufCFieldDescriptor *f = NULL;
			if (key >> 3 <= UINT32_MAX)
				f = protobuf_c_message_descriptor_get_field(st[top].d,
				                                            (unsigned)(key >> 3));
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
				if (top + 1 >= limit)
					return limit + 1;
				top++;
				st[top].d = f->descriptor;
				st[top].end = p + v;
				if (top + 1 > deepest)
					deepest = top + 1;
			} else {
				p += v;
			}
			break;
		}
		default:
			return deepest;   /* groups: protobuf-c refuses them */
		}
	}
	return deepest;
}

Onnx__ModelProto *
onx_unpack(Imp *im, const uint8_t *buf, size_t len)
{
	if (nesting(buf, len, &onnx__model_proto__descriptor, ONNX_MAX_DEPTH) > ONNX_MAX_DEPTH)
		return fail(im, "not an ONNX model: messages nest more than %d deep",
		            ONNX_MAX_DEPTH);
	Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
	if (!m)
		return fail(im, "not an ONNX model (the protobuf does not parse as a ModelProto)");
	return m;
}

/* ------------------------------------------------------------ types */

bool
onx_elem(int32_t dt, ElemKind *k)
{
	switch (dt) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: *k = ET_F32; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: *k = ET_U8; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *k = ET_I8; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: *k = ET_U16; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: *k = ET_I16; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *k = ET_I32; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: *k = ET_I64; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: *k = ET_BOOL; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: *k = ET_F16; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: *k = ET_F64; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *k = ET_U32; return true;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: *k = ET_U64; return true;
	default: return false;
	}
}

const char *
onx_type_name(int32_t dt)
{
	static const char *const names[] = {
		"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64",
		"STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64",
		"COMPLEX128", "BFLOAT16",
	};
	if (dt >= 0 && (size_t)dt < sizeof names / sizeof *names)
		return names[dt];
	return "an unknown type";
}

/* ------------------------------------------------------------ tensors */

Tensor *
onx_tensor(Imp *im, const Onnx__TensorProto *tp, const char *what)
{
	ElemKind k;
	int32_t dt = tp->has_data_type ? tp->data_type : 0;
	if (!onx_elem(dt, &k))
		return fail(im, "%s has element type %s, which the IR does not have", what,
		            onx_type_name(dt));
	if (tp->n_dims > MAX_RANK)
		return fail(im, "%s has rank %zu, more than %d", what, tp->n_dims, MAX_RANK);
	if (tp->has_data_location &&
	    tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		return fail(im, "%s keeps its data in an external file, which is not supported",
		            what);
	if (tp->segment)
		return fail(im, "%s is a segment of a tensor, which is not supported", what);
	for (size_t i = 0; i < tp->n_dims; i++)
		if (tp->dims[i] < 0 || tp->dims[i] > ((int64_t)1 << 40))
			return fail(im, "%s has dimension %zu of size %lld", what, i,
			            (long long)tp->dims[i]);
	/* the data's size against the shape before anything is allocated */
	uint64_t bytes;
	if (!tensor_bytes(k, (uint32_t)tp->n_dims, tp->dims, &bytes) || bytes > SIZE_MAX / 2)
		return fail(im, "%s is too large", what);
	size_t es = elem_size(k), n = (size_t)(bytes / es);
	size_t given;
	const char *field;
	if (tp->has_raw_data) {
		if (tp->raw_data.len != bytes)
			return fail(im, "%s has %zu bytes of raw data, its type needs %llu", what,
			            tp->raw_data.len, (unsigned long long)bytes);
	} else {
		switch (k) {
		case ET_F32: given = tp->n_float_data, field = "float_data"; break;
		case ET_F64: given = tp->n_double_data, field = "double_data"; break;
		case ET_I64: given = tp->n_int64_data, field = "int64_data"; break;
		case ET_U32:
		case ET_U64: given = tp->n_uint64_data, field = "uint64_data"; break;
		default: given = tp->n_int32_data, field = "int32_data"; break;
		}
		if (given != n)
			return fail(im, "%s has %zu values in %s, its shape needs %zu", what, given,
			            field, n);
	}
	Tensor *t = tensor_new(k, (uint32_t)tp->n_dims, tp->dims);
	if (!t)
		return fail(im, "%s is too large", what);
	if (tp->has_raw_data) {
		if (n)
			memcpy(t->data, tp->raw_data.data, n * es); /* little-endian, as ours */
		return t;
	}
	for (size_t i = 0; i < n; i++) {
		switch (k) {
		case ET_F32: ((float *)t->data)[i] = tp->float_data[i]; break;
		case ET_F64: ((double *)t->data)[i] = tp->double_data[i]; break;
		case ET_I64: ((int64_t *)t->data)[i] = tp->int64_data[i]; break;
		case ET_U32:
		case ET_U64: tensor_set_int(t, (int64_t)i, (int64_t)tp->uint64_data[i]); break;
		/* the bits of each half, in int32_data */
		case ET_F16: ((uint16_t *)t->data)[i] = (uint16_t)tp->int32_data[i]; break;
		default: tensor_set_int(t, (int64_t)i, tp->int32_data[i]); break;
		}
	}
	return t;
}

/* ------------------------------------------------------------ attributes */

const Onnx__AttributeProto *
onx_attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

int64_t
attr_int(const Onnx__NodeProto *n, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = onx_attr(n, name);
	return a && a->has_i ? a->i : def;
}

double
attr_float(const Onnx__NodeProto *n, const char *name, double def)
{
	const Onnx__AttributeProto *a = onx_attr(n, name);
	if (a && a->has_f)
		return a->f;
	if (a && a->has_i)
		return (double)a->i;
	return def;
}

const char *
attr_str(const Onnx__NodeProto *n, const char *name, const char *def, char *buf, size_t bufn)
{
	const Onnx__AttributeProto *a = onx_attr(n, name);
	const char *src = def;
	size_t srcn = strlen(def);
	if (a && a->has_s) {
		src = (const char *)a->s.data;
		srcn = a->s.len;
	}
	size_t len = srcn < bufn - 1 ? srcn : bufn - 1;
	if (len)
		memcpy(buf, src, len);
	buf[len] = 0;
	/* an embedded NUL would cut the name short: show it as '?' */
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = '?';
	return buf;
}

long
attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, size_t max)
{
	const Onnx__AttributeProto *a = onx_attr(n, name);
	if (!a)
		return -1;
	for (size_t i = 0; i < a->n_ints && i < max; i++)
		out[i] = a->ints[i];
	return a->n_ints > ((size_t)1 << 30) ? (long)1 << 30 : (long)a->n_ints;
}
