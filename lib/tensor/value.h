/* value.h: a value at run time, what a run of @main gives (the reference
 * interpreter, the executor, the OpenCL walk) and result.h prints or
 * writes: a tensor, or a tuple of values. */
#ifndef VALUE_H
#define VALUE_H

#include <stdint.h>

#include "ir.h"
#include "tensor.h"

typedef struct RtVal RtVal;
struct RtVal {
	const Type *type;
	Tensor *t;            /* TY_TENSOR */
	uint32_t n;           /* TY_TUPLE: fields */
	RtVal **fields;
};

#endif
