/* ops.h: the graph-level operator registry.
 *
 * Each operator has a name (TVM Relay's), an arity, a fusion pattern (for
 * ir-lower) and a type rule that also checks the call's attributes.  They
 * are listed once, in ops.def; code that treats operators differently
 * switches on the OpId.
 */
#ifndef OPS_H
#define OPS_H

#include "ir.h"

struct OpCx;
struct Shape;

/* TVM's OpPatternKind, in the same order: fusion depends on it. */
typedef enum {
	PAT_ELEMWISE,       /* add, relu, exp: same shape in and out */
	PAT_BROADCAST,      /* add with broadcasting, bias_add */
	PAT_INJECTIVE,      /* reshape, transpose, layout_transform, concatenate */
	PAT_REDUCE,         /* sum, mean, pooling (TVM: pooling is OUT_FUSABLE) */
	PAT_OUT_FUSABLE,    /* conv2d, dense, batch_matmul: elementwise ops fuse after */
	PAT_OPAQUE,         /* softmax, layer_norm, split: never fused (TVM: split is INJECTIVE) */
} OpPattern;

/* O_ADD, O_CONV2D, ...: one per line of ops.def, in its order. */
typedef enum {
#define OP(id, ...) O_##id,
#include "ops.def"
#undef OP
	O__COUNT
} OpId;

struct OpDef {
	OpId id;
	const char *name;          /* "nn.conv2d" */
	uint8_t min_args, max_args;
	uint8_t pattern;           /* OpPattern */
	/* The shape rule (shape.h): reads the attributes, checks the operand
	 * shapes, gives the result's; NULL for split (split_shape). */
	bool (*shape)(struct OpCx *c, const struct Shape *args, uint32_t nargs,
	              struct Shape *out);
	/* The attribute names it takes, sorted, NULL-terminated; any other
	 * name is an error.  NULL: it takes none. */
	const char *const *attrs;
};

/* NULL if no operator has that name. */
const OpDef *op_lookup(const char *name, size_t n);
/* The operator with that id. */
const OpDef *op_def(OpId id);
/* All operators sorted by name, for documentation and tests;
 * NULL-terminated. */
const OpDef *const *op_all(void);

/* Type rule entry point used by the verifier: checks arity, gives literal
 * operands (VK_LIT) their types, then applies the operator's shape rule to
 * the operands' types, reporting at v->loc (or at the offending
 * attribute's loc) through m->ctx; the result type or NULL.  The args of v
 * are already typed. */
const Type *op_infer(Module *m, Value *v);
/* Reports attributes v's operator does not have (with a "did you mean"),
 * whatever its operands; op_infer calls it.  False if there were any. */
bool op_check_attrs(Module *m, const Value *v);

/* True if def takes an attribute named key. */
bool op_has_attr(const OpDef *def, const char *key);

/* True if def gives its operand's elements in their order under another
 * shape (reshape, squeeze, expand_dims): over a buffer in row-major
 * order, a view of the same memory.  ir-lower leaves such a binding as
 * it is where it would be a kernel of its own (a view, no kernel); the
 * tools after it take the binding as naming its operand's buffer. */
bool op_is_view(const OpDef *def);
/* v is a binding of such an operator. */
bool value_is_view(const Value *v);

#endif
