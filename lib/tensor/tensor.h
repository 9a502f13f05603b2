/* tensor.h: a tensor on the host, and IEEE half precision conversions:
 * the values of the reference interpreter, of constant folding and of
 * ir-run's inputs and results (lib/tensor/ sits below every user).
 *
 * A Tensor is dense, C order (last axis fastest), one element type without
 * vector lanes, its data malloc'd.  It needs no Module: the interpreter
 * moves values between operators, .npy files and the command line.
 *
 * Element values cross the API as doubles (tensor_get, tensor_set), which
 * is exact for every element of every type except i64/u64 values beyond
 * 2^53; tensor_get_int and tensor_set_int move integer elements exactly.
 */
#ifndef TENSOR_H
#define TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

#define TENSOR_MAX_RANK IR_MAX_RANK

typedef struct {
	ElemKind kind;
	uint32_t rank;
	int64_t dims[TENSOR_MAX_RANK];
	int64_t numel;       /* product of dims; 1 for rank 0 */
	void *data;          /* numel elements, C order, malloc'd; NULL if numel == 0 */
} Tensor;

/* Bytes per element: bool is 1 byte (0 or 1). */
size_t elem_size(ElemKind k);

/* A zeroed tensor.  NULL when k is not an element kind, rank exceeds
 * TENSOR_MAX_RANK, a dimension is negative, or the byte size overflows.
 * Running out of memory exits (xmalloc). */
Tensor *tensor_new(ElemKind k, uint32_t rank, const int64_t *dims);
/* A zeroed tensor of a TY_TENSOR type with lanes 1; NULL otherwise (tuple,
 * vector element, or as tensor_new). */
Tensor *tensor_like_type(const Type *t);
void tensor_free(Tensor *t);                 /* NULL is fine */
/* True if t has exactly the tensor type ty (element kind, no vector
 * lanes, shape). */
bool tensor_fits(const Tensor *t, const Type *ty);
/* "f32[2,3]", as type_text spells the matching type, into buf (n bytes). */
const char *tensor_type_text(const Tensor *t, char *buf, size_t n);
/* A copy of t, data included. */
Tensor *tensor_copy(const Tensor *t);

/* Fills t with a poison that code reading what it never wrote shows:
 * NaN for floats, 0x5a bytes for integers and bool. */
void tensor_poison(Tensor *t);

/* The bytes of the data of a tensor of kind k and shape dims, into *bytes;
 * false if a dimension is negative or the size overflows 64 bits. */
bool tensor_bytes(ElemKind k, uint32_t rank, const int64_t *dims, uint64_t *bytes);

/* A limit on the bytes of tensor data a run holds at once (ir-run
 * --max-memory), checked before each allocation so a tensor too large is
 * refused with a message instead of exhausting the machine. */
typedef struct {
	uint64_t limit;      /* bytes; 0: none */
	uint64_t used;
} MemBudget;

/* Takes bytes from mb (NULL: no limit); false, taking nothing, if they do
 * not fit, with "more than the N bytes left of the M that --max-memory
 * allows" in why (n bytes). */
bool mem_take(MemBudget *mb, uint64_t bytes, char *why, size_t n);
/* Gives back bytes taken. */
void mem_give(MemBudget *mb, uint64_t bytes);
/* The default limit: the machine's physical memory, or less where a
 * resource limit (RLIMIT_AS, RLIMIT_DATA) says so. */
uint64_t mem_default_limit(void);

/* Element i (0 <= i < numel) as a double; f16 is converted exactly, bool
 * is 0 or 1. */
double tensor_get(const Tensor *t, int64_t i);
/* Stores v into element i, converting as C does: floats round to nearest
 * (f16: round to nearest even, overflow to infinity), integers truncate
 * toward zero, bool is v != 0.  Where C leaves the conversion undefined
 * (a value out of the integer type's range) it saturates to the type's
 * minimum or maximum, and NaN becomes 0 (bool: 1, as NaN != 0). */
void tensor_set(Tensor *t, int64_t i, double v);

/* Integer and bool elements, exactly: the value sign- or zero-extended to
 * 64 bits (u64 keeps its bits, so values above INT64_MAX read negative).
 * Float elements: as elem_int_from_double(ET_I64, tensor_get(t, i)). */
int64_t tensor_get_int(const Tensor *t, int64_t i);
/* Stores the low bits of v (two's complement wrap-around, as a conversion
 * to an unsigned type of that width); bool stores v != 0; float elements
 * get v converted to the float type. */
void tensor_set_int(Tensor *t, int64_t i, int64_t v);
/* Element i set to the number a literal operand (VK_LIT) stands for:
 * integers exactly (a u64 above INT64_MAX too); in a float element through
 * a double, as lowering writes the literal. */
void tensor_set_literal(Tensor *t, int64_t i, const Value *lit);
/* An inline constant's elements (a const without file=), as many as both
 * hold. */
void tensor_set_inline(Tensor *t, const ConstData *cd);

/* v converted to integer kind k as tensor_set does (truncation toward
 * zero, saturation, NaN -> 0), returned sign- or zero-extended like
 * tensor_get_int.  For float kinds: (int64_t) of the saturated value. */
int64_t elem_int_from_double(ElemKind k, double v);

/* IEEE 754 binary16.  The conversions to half round to nearest, ties to
 * even, once (from a double as well as from a float); values too large
 * become infinity, small ones subnormals or zero (with their sign); NaN
 * stays a quiet NaN, keeping the sign and the high payload bits.  The
 * conversions from half are exact. */
uint16_t f16_from_float(float f);
uint16_t f16_from_double(double d);
float f16_to_float(uint16_t h);
double f16_to_double(uint16_t h);

#endif
