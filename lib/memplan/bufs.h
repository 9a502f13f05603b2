/* bufs.h: the buffers of @main and their lifetimes, read off the IR,
 * for ir-plan-memory (lib/plan_memory.c), which gives them places, and
 * the verifier, which checks the places written (check.h).
 *
 * Ticks count @main's bindings in program order (walk.h: an if, its then
 * arm, its else arm, what follows).  A buffer lives from the tick of the
 * binding that makes it to the last tick that uses it or anything
 * aliasing it: on_device, tuples, projections, ifs and views of buffers
 * (a reshape, squeeze or expand_dims out of texture scopes) make
 * no buffer of their own, they name their operands' (an if, both arms' yields; a
 * projection of what is not a plain tuple, all of it: conservative).
 * A call of a function makes none either: its body is not planned, so
 * at run time its result is memory the callee's own values got or the
 * buffer of an operand it returns, never a place of @main's plan; it
 * names the operands whose parameters the callee may return (see
 * returned_params), so they live as long as the result is used.
 * A device_copy of a tuple names its operand's buffers too: ir-run copies
 * only tensors, a tuple's fields where a use wants them in the other form.
 * Buffers: the tensor results of operators, lowered calls and copies of
 * tensors (one per tensor field), constants (a read-only pool, all alive
 * throughout), the `global` allocs of called prims (alive at each call:
 * from the first to the last), and with --io the parameters (from tick 0)
 * and the result (to the end).  A buffer in a texture scope is an image instead:
 * images are shared whole across disjoint lifetimes, with equal element
 * type, device and scope, best fit per axis (TVM's TokenAllocator2D).
 */
#ifndef MEMPLAN_BUFS_H
#define MEMPLAN_BUFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "map.h"

/* A buffer's kind: work memory, a constant (a read-only pool, alive
 * throughout) or an image (a texture scope). */
enum { MB_WORK, MB_CONST, MB_IMAGE };

/* One buffer: a tensor (field) of a value of @main, or a global alloc
 * of a prim it calls. */
typedef struct {
	const void *node;     /* Value or PVar */
	uint32_t field;       /* its index in node's places */
	const char *name;
	Loc loc;
	Sym dev, scope;
	bool dev_open, scope_open; /* not written: an on_device may fix them */
	const Value *via;     /* the on_device that fixed them, if one did */
	const Type *type;     /* its tensor */
	uint8_t base_kind;    /* MB_WORK or MB_CONST, whatever the scope */
	ElemKind ek;
	int64_t bytes, wh[2];
	uint32_t start, end;
	uint8_t kind;         /* MB_* */
	bool io;              /* a parameter or the result of @main */
	bool pinned;          /* scope global-<pool> */
	const Attr *cands;    /* candidate_pools of an alloc */
	Loc candloc;
} MBuf;

/* @main's buffers, b[0 .. nb), one node's consecutive, in program
 * order; the rest is the extraction's own. */
typedef struct {
	Module *m;
	MBuf *b;
	uint32_t nb, capb;
	uint32_t *ids;
	uint32_t nids, capids;
	Map names;            /* Names by value */
	uint32_t tick;
	bool ok;
	Func *main;
	Map rets;             /* Rets by callee: returned_params, memoized */
} MBufs;

/* Extracts @main's buffers (with io, its parameters and result too)
 * into x; false (x->main NULL) without a @main.  Free with mbuf_free
 * either way. */
bool mbuf_extract(MBufs *x, Module *m, bool io);
void mbuf_free(MBufs *x);

/* ord[0 .. n), indices of x's buffers, by start, then index. */
void mbuf_sort_by_start(const MBufs *x, uint32_t *ord, size_t n);

/* Pinned scope "global-<pool>": the pool's name, else NULL. */
const char *mbuf_pinned_pool(Sym scope);
/* A pool's alignment (16 unless its attributes say). */
int64_t mbuf_pool_align(const Pool *pl);
/* Whether device dev may use pool pl (its devices attribute). */
bool mbuf_pool_reaches(const Pool *pl, Sym dev);
/* Where b's pin came from, when an on_device put it there: a note. */
void mbuf_note_via(Module *m, const MBuf *b);

#endif
