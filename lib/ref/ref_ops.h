/* ref_ops.h: reference kernels for every graph-level operator.
 *
 * The oracle that lowered kernels are checked against: deliberately simple
 * loops over logical indices, with the registry's attribute names, defaults
 * and layouts (ops_*.c, ir(5)).
 *
 * Arithmetic:
 *   - Float operands are computed in double and rounded once into the
 *     result type (f16: round to nearest even).  For + - * / and sqrt this
 *     equals computing in the element type itself.
 *   - Integer operands are computed exactly, modulo 2^64, and the result
 *     keeps its low bits: overflow wraps around as in two's complement,
 *     for elementwise ops as for the accumulations of conv2d, dense,
 *     batch_matmul and sum (so an i8 conv with out_dtype i32 equals an i32
 *     accumulator).  Integer divide truncates toward zero (C); INT_MIN / -1
 *     wraps to INT_MIN.  Integer division by zero is an error, reported,
 *     not a crash; so is 0 raised to a negative integer power.  An
 *     integer power is trunc(a^b): 0 for |a| > 1 and b < 0.
 *   - mean, avg_pool2d and global_avg_pool2d divide the exact sum by the
 *     count; on integers that division truncates toward zero.
 *   - maximum, minimum, clip and max_pool2d propagate NaN.
 *   - cast converts as C does (tensor_set): float -> integer truncates,
 *     out-of-range values saturate, NaN becomes 0; integer -> integer
 *     keeps the low bits; to bool is x != 0.
 * Pooling windows (strides, dilation, padding top/left/bottom/right):
 *   - max_pool2d takes the largest element of the window inside the input;
 *     padding never wins.  A window with no element inside the input gives
 *     -inf (floats) or the type's minimum (integers); a kernel that pads
 *     with the lowest finite float differs from this only there.
 *   - avg_pool2d sums the elements inside the input and divides by their
 *     count (count_include_pad=false, the default), or by the number of
 *     window positions inside the padded input (count_include_pad=true;
 *     with ceil_mode, positions past the bottom/right padding do not
 *     count).  A zero count gives 0.
 *   - ceil_mode only changes the output size (as the registry computes
 *     it); windows running past the padded input just have fewer elements.
 */
#ifndef REF_OPS_H
#define REF_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "ops/ops.h"
#include "tensor/tensor.h"

/* Evaluates one call of op with attributes attrs (may be NULL) on args.
 * result is the call's type as the registry inferred it: a tensor type
 * (nouts 1) or, for split, a tuple type of nouts tensor fields; outs[i]
 * was made by tensor_like_type of field i and is overwritten.  A literal
 * operand is a rank-0 tensor of its inferred type; concatenate's one tuple
 * operand arrives as its fields, one per arg.  Returns false with
 * "op: message" in err (errsz bytes) when the operands, attributes or
 * outputs do not fit the operator (its shape rule, ops/shape.h, decides,
 * in the type rule's words), or on an integer division by zero; outs are
 * then partly written. */
bool ref_eval(const OpDef *op, const AttrMap *attrs, Tensor *const *args, uint32_t nargs,
              const Type *result, Tensor **outs, uint32_t nouts, char *err, size_t errsz);

/* True if ref_eval implements op (every registered operator). */
bool ref_supports(const OpDef *op);

#endif
