/* onnx_read.c: the ONNX protobuf in: the model through protoc-c's
 * bindings, tensors as Tensors, node attributes. */
/* madvise(MADV_DONTNEED), which gives a mapped file's pages back; glibc's
 * posix_madvise ignores POSIX_MADV_DONTNEED. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* ------------------------------------------------------------ skeleton */

/* protobuf-c copies every bytes field it unpacks, so the weights would be
 * held twice (the file and the unpacked model) and a third time as the
 * Tensors made of them.  So the model is unpacked from a skeleton: a copy
 * of the file's bytes in which each TensorProto's raw_data is replaced by
 * a stub, a varint field of number STUB_FIELD holding the index of the
 * payload in im->payloads (its offset and length in the file).  onnx_tensor
 * copies a payload straight from the file into its Tensor.  A field of
 * that number in the input is dropped, so every stub is the skeleton's.
 * Field numbers go up to 2^29 - 1; ONNX's are small. */
#define STUB_FIELD 536870911u
#define RAW_DATA_FIELD 9u

static size_t
varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

static uint8_t *
put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

typedef struct {
	uint64_t *sizes;         /* the skeleton's size of each sub-message, pre-order */
	size_t nsizes, capsizes;
	OnxPayload *pl;          /* raw_data payloads, in file order */
	size_t npl, cappl;
	uint8_t *out;            /* the skeleton (the second walk) */
	size_t outlen;           /* its size (the first walk) */
} Skel;

/* One walk over the message in buf, as nesting() walks it: the first
 * (out NULL) measures the skeleton and finds the payloads, the second
 * writes it.  False on a malformed byte: then the file is unpacked as it
 * is, and protobuf-c says what is wrong with it.  nesting() has bounded
 * the depth. */
static bool
skel_walk(Skel *sk, const uint8_t *buf, size_t len)
{
	struct {
		const ProtobufCMessageDescriptor *d;
		const uint8_t *end;
		size_t idx;          /* into sk->sizes */
		size_t taglen;       /* of the key that opened it */
		uint64_t acc;        /* its skeleton size so far */
	} st[ONNX_MAX_DEPTH + 2];
	bool write = sk->out != NULL;
	uint8_t *o = sk->out;
	size_t k = 0, pi = 0;
	int top = 0;
	const uint8_t *p = buf;
	st[0].d = &onnx__model_proto__descriptor;
	st[0].end = buf + len;
	st[0].acc = 0;
	while (top >= 0) {
		if (p >= st[top].end) {
			if (p > st[top].end)
				return false;
			if (top == 0) {
				sk->outlen = st[0].acc;
				break;
			}
			if (!write)
				sk->sizes[st[top].idx] = st[top].acc;
			uint64_t a = st[top].acc;
			top--;
			st[top].acc += st[top + 1].taglen + varint_len(a) + a;
			continue;
		}
		const uint8_t *q = p;
		uint64_t key, v;
		if (!varint(&p, st[top].end, &key))
			return false;
		bool tensor = st[top].d == &onnx__tensor_proto__descriptor;
		uint64_t field = key >> 3;
		switch (key & 7) {
		case 0:
			if (!varint(&p, st[top].end, &v))
				return false;
			break;
		case 1:
			if (st[top].end - p < 8)
				return false;
			p += 8;
			break;
		case 5:
			if (st[top].end - p < 4)
				return false;
			p += 4;
			break;
		case 2: {
			size_t taglen = (size_t)(p - q);
			if (!varint(&p, st[top].end, &v) || v > (uint64_t)(st[top].end - p))
				return false;
			if (tensor && field == RAW_DATA_FIELD) {
				if (!write) {
					OnxPayload *e = &VEC_PUSH(sk->pl, sk->npl, sk->cappl);
					e->off = (size_t)(p - buf);
					e->len = (size_t)v;
				}
				uint64_t skey = (uint64_t)STUB_FIELD << 3;
				st[top].acc += varint_len(skey) + varint_len(pi);
				if (write)
					o = put_varint(put_varint(o, skey), pi);
				pi++;
				p += v;
				continue;
			}
			const ProtobufCFieldDescriptor *f = NULL;
			if (field <= UINT32_MAX)
				f = protobuf_c_message_descriptor_get_field(st[top].d, (unsigned)field);
			if (f && f->type == PROTOBUF_C_TYPE_MESSAGE && !(tensor && field == STUB_FIELD)) {
				if (top + 1 > ONNX_MAX_DEPTH)
					return false;
				if (write) {
					memcpy(o, q, taglen);
					o = put_varint(o + taglen, sk->sizes[k]);
				} else {
					VEC_PUSH(sk->sizes, sk->nsizes, sk->capsizes) = 0;
				}
				top++;
				st[top].d = f->descriptor;
				st[top].end = p + v;
				st[top].idx = k++;
				st[top].taglen = taglen;
				st[top].acc = 0;
				continue;
			}
			p += v;
			break;
		}
		default:
			return false;   /* groups: protobuf-c refuses them */
		}
		if (tensor && field == STUB_FIELD)
			continue;       /* the input's own: dropped */
		st[top].acc += (uint64_t)(p - q);
		if (write) {
			memcpy(o, q, (size_t)(p - q));
			o += p - q;
		}
	}
	return true;
}

Onnx__ModelProto *
onnx_unpack(Imp *im, const uint8_t *buf, size_t len)
{
	if (nesting(buf, len, &onnx__model_proto__descriptor, ONNX_MAX_DEPTH) > ONNX_MAX_DEPTH)
		return onnx_fail(im, "not an ONNX model: messages nest more than %d deep",
		                 ONNX_MAX_DEPTH);
	Skel sk = {0};
	Onnx__ModelProto *m = NULL;
	if (skel_walk(&sk, buf, len)) {
		/* +1: malloc(0) may give NULL */
		sk.out = xmalloc(sk.outlen + 1);
		skel_walk(&sk, buf, len);
		m = onnx__model_proto__unpack(NULL, sk.outlen, sk.out);
		free(sk.out);
		im->src = buf;
		im->payloads = sk.pl;
		im->npayloads = sk.npl;
	} else {
		m = onnx__model_proto__unpack(NULL, len, buf);
		free(sk.pl);
	}
	free(sk.sizes);
	if (!m)
		return onnx_fail(im, "not an ONNX model (the protobuf does not parse as a ModelProto)");
	return m;
}

/* The payload the skeleton's stub in tp stands for (the last one, as the
 * last raw_data would win): 1 with *data and *len set, 0 if tp has none,
 * -1 if the stub is not one of ours. */
static int
stub_payload(const Imp *im, const Onnx__TensorProto *tp, const uint8_t **data, size_t *len)
{
	int found = 0;
	for (unsigned i = 0; i < tp->base.n_unknown_fields; i++) {
		const ProtobufCMessageUnknownField *u = &tp->base.unknown_fields[i];
		if (u->tag != STUB_FIELD)
			continue;
		const uint8_t *p = u->data;
		uint64_t idx;
		if (u->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT || !varint(&p, u->data + u->len, &idx) ||
		    idx >= im->npayloads)
			return -1;
		*data = im->src + im->payloads[idx].off;
		*len = im->payloads[idx].len;
		found = 1;
	}
	return found;
}

/* Copies n bytes from src; from a payload in a mapped file (from_file), in
 * steps, each step's pages given back once copied, so that at most a step
 * of the file is resident beside the copy.  (Never protobuf-c's memory:
 * MADV_DONTNEED would zero it.) */
static void
copy_out(const Imp *im, void *dst, const uint8_t *src, size_t n, bool from_file)
{
	const size_t step = (size_t)8 << 20;
	if (!from_file || !im->o->mapped) {
		memcpy(dst, src, n);
		return;
	}
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
	/* only pages wholly inside the payload: its neighbours may be read */
	uintptr_t done = ((uintptr_t)src + page - 1) & ~(page - 1);
	for (size_t at = 0; at < n; at += step) {
		size_t c = n - at < step ? n - at : step;
		memcpy((uint8_t *)dst + at, src + at, c);
		uintptr_t end = ((uintptr_t)src + at + c) & ~(page - 1);
		if (end > done) {
			madvise((void *)done, end - done, MADV_DONTNEED);
			done = end;
		}
	}
}

/* ------------------------------------------------------------ types */

bool
onnx_elem(int32_t dt, ElemKind *k)
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
onnx_type_name(int32_t dt)
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
onnx_tensor(Imp *im, const Onnx__TensorProto *tp, const char *what)
{
	ElemKind k;
	int32_t dt = tp->has_data_type ? tp->data_type : 0;
	if (!onnx_elem(dt, &k))
		return onnx_fail(im, "%s has element type %s, which the IR does not have", what,
		                 onnx_type_name(dt));
	if (tp->n_dims > MAX_RANK)
		return onnx_fail(im, "%s has rank %zu, more than %d", what, tp->n_dims, MAX_RANK);
	bool external = tp->has_data_location &&
	                tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	if (tp->segment)
		return onnx_fail(im, "%s is a segment of a tensor, which is not supported", what);
	bool has_raw = tp->has_raw_data;
	const uint8_t *raw = tp->raw_data.data;
	size_t rawlen = tp->raw_data.len;
	int stub = stub_payload(im, tp, &raw, &rawlen);
	if (stub < 0)
		return onnx_fail(im, "%s is malformed", what);
	has_raw = has_raw || stub > 0;
	for (size_t i = 0; i < tp->n_dims; i++)
		if (tp->dims[i] < 0 || tp->dims[i] > ((int64_t)1 << 40))
			return onnx_fail(im, "%s has dimension %zu of size %lld", what, i,
			                 (long long)tp->dims[i]);
	/* the data's size against the shape before anything is allocated */
	uint64_t bytes;
	if (!tensor_bytes(k, (uint32_t)tp->n_dims, tp->dims, &bytes) || bytes > SIZE_MAX / 2)
		return onnx_fail(im, "%s is too large", what);
	size_t es = elem_size(k), n = (size_t)(bytes / es);
	size_t given;
	const char *field;
	if (external) {
		Tensor *t = tensor_new(k, (uint32_t)tp->n_dims, tp->dims);
		if (!t)
			return onnx_fail(im, "%s is too large", what);
		if (!onnx_external(im, tp, what, t->data, bytes)) {
			tensor_free(t);
			return NULL;
		}
		return t;
	}
	if (has_raw) {
		if (rawlen != bytes)
			return onnx_fail(im, "%s has %zu bytes of raw data, its type needs %llu", what,
			                 rawlen, (unsigned long long)bytes);
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
			return onnx_fail(im, "%s has %zu values in %s, its shape needs %zu", what, given,
			                 field, n);
	}
	Tensor *t = tensor_new(k, (uint32_t)tp->n_dims, tp->dims);
	if (!t)
		return onnx_fail(im, "%s is too large", what);
	if (has_raw) {
		if (n)
			copy_out(im, t->data, raw, n * es, stub > 0); /* little-endian, as ours */
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
onnx_attr(const Onnx__NodeProto *n, const char *name)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
			return n->attribute[i];
	return NULL;
}

int64_t
onnx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = onnx_attr(n, name);
	return a && a->has_i ? a->i : def;
}

double
onnx_attr_float(const Onnx__NodeProto *n, const char *name, double def)
{
	const Onnx__AttributeProto *a = onnx_attr(n, name);
	if (a && a->has_f)
		return a->f;
	if (a && a->has_i)
		return (double)a->i;
	return def;
}

const char *
onnx_attr_str(const Onnx__NodeProto *n, const char *name, const char *def, char *buf, size_t bufn)
{
	const Onnx__AttributeProto *a = onnx_attr(n, name);
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
onnx_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, size_t max)
{
	const Onnx__AttributeProto *a = onnx_attr(n, name);
	if (!a)
		return -1;
	for (size_t i = 0; i < a->n_ints && i < max; i++)
		out[i] = a->ints[i];
	return a->n_ints > ((size_t)1 << 30) ? (long)1 << 30 : (long)a->n_ints;
}
