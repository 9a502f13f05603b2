/* onnx_scatter.c: ScatterND on values known at import.  torchvision's
 * swin transformers build their shifted-window attention mask by
 * assigning to slices of a tensor of zeros (attn_mask[h, w] = count),
 * which torch.onnx writes as ScatterND over constants: computed here like
 * the rest of the shape arithmetic.  The IR has no scatter operator, so a
 * ScatterND of computed values is refused.
 *
 *   out = data; out[indices[i]] (op)= updates[i] for every i, in order,
 *   where indices[i] (the last axis of indices, k long) names a slice of
 *   data of shape data.shape[k:]; op is none (=), add or mul.
 */
#include <string.h>

#include "onnx_impl.h"

bool
onnx_map_scatternd(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)
{
	(void)nout;
	Val *d = in[0], *ix = nin > 1 ? in[1] : NULL, *u = nin > 2 ? in[2] : NULL;
	if (!ix || !u)
		return onnx_fail(im, "needs data, indices and updates"), false;
	if (!d->k || !ix->k || !u->k)
		return onnx_fail(im, "is supported only on values known at import (the IR has no "
		                 "scatter operator)"), false;
	char rb[32];
	const char *red = onnx_attr_str(n, "reduction", "none", rb, sizeof rb);
	int op = strcmp(red, "none") == 0 ? 0 : strcmp(red, "add") == 0 ? 1
	       : strcmp(red, "mul") == 0 ? 2 : -1;
	if (op < 0)
		return onnx_fail(im, "reduction '%s' is not supported (none, add, mul are)", red), false;
	const Tensor *data = d->k, *idx = ix->k, *up = u->k;
	if (elem_is_float(idx->kind) || idx->kind == ET_BOOL || idx->rank == 0)
		return onnx_fail(im, "its indices must be integers of at least one axis"), false;
	if (up->kind != data->kind)
		return onnx_fail(im, "its updates are %s, its data %s", elem_name(up->kind),
		                 elem_name(data->kind)), false;
	int64_t k = idx->dims[idx->rank - 1];
	if (k < 1 || k > (int64_t)data->rank)
		return onnx_fail(im, "an index of %lld entries into data of rank %u", (long long)k,
		                 data->rank), false;
	/* updates: indices.shape[:-1] + data.shape[k:] */
	uint32_t ur = idx->rank - 1 + data->rank - (uint32_t)k;
	bool ok = up->rank == ur;
	for (uint32_t i = 0; ok && i < ur; i++)
		ok = up->dims[i] == (i < idx->rank - 1 ? idx->dims[i]
		                                       : data->dims[k + i - (idx->rank - 1)]);
	if (!ok)
		return onnx_fail(im, "its updates do not have the shape indices.shape[:-1] + "
		                 "data.shape[k:]"), false;
	int64_t slice = 1;
	for (uint32_t i = (uint32_t)k; i < data->rank; i++)
		slice *= data->dims[i];
	Tensor *t = tensor_copy(data);
	if (!t)
		return onnx_fail(im, "cannot fold: too large"), false;
	int64_t nidx = idx->numel / k;
	bool fl = elem_is_float(data->kind);
	for (int64_t i = 0; i < nidx; i++) {
		int64_t at = 0;
		for (int64_t j = 0; j < k; j++) {
			int64_t dim = data->dims[j], v = tensor_get_int(idx, i * k + j);
			if (v < -dim || v >= dim) {
				tensor_free(t);
				return onnx_fail(im, "index %lld is out of range for an axis of %lld",
				                 (long long)v, (long long)dim), false;
			}
			at = at * dim + (v < 0 ? v + dim : v);
		}
		at *= slice;
		for (int64_t e = 0; e < slice; e++) {
			int64_t o = at + e, s = i * slice + e;
			if (fl) {
				double a = tensor_get(t, o), b = tensor_get(up, s);
				tensor_set(t, o, op == 0 ? b : op == 1 ? a + b : a * b);
			} else {
				uint64_t a = (uint64_t)tensor_get_int(t, o), b = (uint64_t)tensor_get_int(up, s);
				tensor_set_int(t, o, (int64_t)(op == 0 ? b : op == 1 ? a + b : a * b));
			}
		}
	}
	out[0] = onnx_val_known(im, onnx_out_hint(im, 0), t);
	return out[0] != NULL;
}
