/* build.h: what grammar actions call to build the module (build.c). */
#ifndef BUILD_H
#define BUILD_H

#include "parse.h"

/* ": TYPE on VDEV" after a name; either part may be absent. */
typedef struct {
	const Type *ty;
	const VDev *vd;
	Loc tyloc, vdloc;
} TypeOn;

typedef struct {
	int kind;         /* ForKind */
	Slice thread;     /* FK_THREAD: "threadIdx.x" */
	Loc loc;
} ForSpec;

/* A number in a constant's data. */
enum { NK_INT, NK_NEGINT, NK_FLOAT, NK_BOOL };
typedef struct NumTok {
	int kind;
	IntTok it;
	double f;
	Loc loc;
} NumTok;

/* lines */
void b_end_line(Parser *p);
void b_recover(Parser *p);
/* A place of a memory plan, kept until the binding, parameter or alloc of
 * the line takes it. */
void b_place(Parser *p, Slice pool, Loc at, IntTok off, Loc oloc);
void b_place_image(Parser *p, Slice kw, Loc at, IntTok id, Loc idloc, IntTok w, Loc wloc,
                   IntTok h, Loc hloc);
void b_loc(Parser *p, StrTok file, IntTok line, Loc lloc, IntTok col, Loc cloc);

/* declarations */
void b_device(Parser *p, Slice name, Loc nloc, Slice kind, Loc kloc, IntTok index,
              Loc iloc, AttrMap *attrs, Loc at);
void b_default(Parser *p, Slice name, Loc nloc, Loc at);
void b_host(Parser *p, Slice name, Loc nloc, Loc at);
void b_pool(Parser *p, Slice name, Loc nloc, AttrMap *attrs, Loc at);

/* graph level */
void b_fn(Parser *p, Slice name, Loc nloc, uint32_t params, TypeOn ret, Loc at);
Value *b_param(Parser *p, Slice name, Loc nloc, const Type *ty, Loc tyloc, const VDev *vd);
void b_binding(Parser *p, Slice name, Loc nloc, TypeOn tyon, Value *rhs);
void b_return(Parser *p, Value *v, Loc at);
void b_yield(Parser *p, Value *v, Loc at);
void b_close(Parser *p, Loc at);
void b_else(Parser *p, Loc at);
Value *b_op(Parser *p, Slice name, Loc at, uint32_t args, AttrMap *attrs);
Value *b_call(Parser *p, Slice callee, Loc at, uint32_t args, int form);
Value *b_on_device(Parser *p, Value *arg, const VDev *vd, int flags, Loc at);
int b_ondev_flag(Parser *p, int flags, Slice name, Loc at, bool val);
Value *b_device_copy(Parser *p, Value *arg, const VDev *src, const VDev *dst, Loc at);
Value *b_tuple(Parser *p, uint32_t args, Loc at);
Value *b_proj(Parser *p, ProjTok pj, Loc at);
uint32_t b_nums_mark(Parser *p);
void b_push_num(Parser *p, NumTok n);
Value *b_const(Parser *p, const Type *ty, Loc tyloc, uint32_t nums, Loc at);
Value *b_const_scalar(Parser *p, const Type *ty, Loc tyloc, NumTok n, Loc at);
Value *b_const_file(Parser *p, const Type *ty, Loc tyloc, Slice key, Loc kloc, StrTok path, Loc at);
Value *b_if(Parser *p, Value *cond, Loc at);
Value *b_use(Parser *p, Slice name, Loc at);
Value *b_lit_int(Parser *p, IntTok v, bool neg, Loc at);
Value *b_lit_float(Parser *p, double v, Loc at);
Value *b_lit_bool(Parser *p, bool v, Loc at);

/* types and placements */
const VDev *b_vdev(Parser *p, Slice dev, Slice scope, Loc at);
const Type *b_tensor_type(Parser *p, Slice elem, Loc at, uint32_t dims);
const Type *b_tuple_type(Parser *p, uint32_t types, Loc at);
const Type *b_scalar_type(Parser *p, Slice elem, Loc at);
void b_push_dim(Parser *p, IntTok v, Loc at);

/* attributes */
AttrMap *b_attrmap(Parser *p, uint32_t entries);
Attr *b_attr_entry(Parser *p, Slice key, Loc kloc, Attr *val);
Attr *b_attr_int(Parser *p, IntTok v, bool neg, Loc at);
Attr *b_attr_float(Parser *p, double v, Loc at);
Attr *b_attr_str(Parser *p, StrTok s, Loc at);
Attr *b_attr_bool(Parser *p, bool v, Loc at);
Attr *b_attr_sym(Parser *p, Slice s, Loc at);
Attr *b_attr_list(Parser *p, uint32_t vals, Loc at);

/* loop level */
void b_prim(Parser *p, Slice name, Loc nloc, uint32_t params, AttrMap *attrs, Loc at);
PVar *b_pparam_scalar(Parser *p, Slice name, Loc nloc, Slice elem, Loc eloc);
PVar *b_pparam_buffer(Parser *p, Slice name, Loc nloc, const Type *ty, Loc tyloc, const VDev *vd);
ForSpec b_for_kind(Parser *p, Slice kind, Loc at, Slice thread);
void b_for(Parser *p, Slice var, Loc vloc, PExpr *lo, PExpr *hi, ForSpec fs, Loc at);
void b_pif(Parser *p, PExpr *cond, Loc at);
void b_let(Parser *p, Slice var, Loc vloc, const Type *ty, PExpr *val, Loc at);
void b_store(Parser *p, Slice buf, Loc at, uint32_t idx, PExpr *val);
/* kw: the word after the device, "image2d" for an image alloc with the
 * dims at mark img; NULL for a plain alloc. */
void b_alloc(Parser *p, Slice var, Loc vloc, const Type *ty, const VDev *vd, const Slice *kw,
             uint32_t img, AttrMap *annots, Loc at);
void b_eval(Parser *p, Slice fn, Loc at, uint32_t args);
void b_barrier(Parser *p, Loc at);
void b_kernel(Parser *p, Slice name, Loc nloc, Loc at, Launch *launch);
Launch *b_launch(Parser *p, Slice kw, Loc kwloc, Slice gkey, Loc gloc, uint32_t gmark,
                 Slice lkey, Loc lloc, uint32_t lmark, Slice akey, Loc aloc, uint32_t amark);
void b_launch_arg(Parser *p, Slice name, Loc at);
void b_program(Parser *p, Slice kw, Loc at, Slice dev, Loc dloc);
void b_cline(Parser *p, Slice text, Loc at);
PExpr *b_e_int(Parser *p, IntTok v, Loc at);
PExpr *b_e_float(Parser *p, double v, Loc at);
PExpr *b_e_bool(Parser *p, bool v, Loc at);
PExpr *b_e_var(Parser *p, Slice name, Loc at);
PExpr *b_e_load(Parser *p, Slice buf, Loc at, uint32_t idx);
PExpr *b_e_call(Parser *p, Slice fn, Loc at, uint32_t args);
PExpr *b_e_cast(Parser *p, Slice fn, Loc at, Slice ty, Loc tyloc, PExpr *a);
PExpr *b_e_un(Parser *p, int op, PExpr *a, Loc at);
PExpr *b_e_bin(Parser *p, int op, PExpr *a, PExpr *b, Loc at);
PIndex *b_index(Parser *p, PExpr *e, IntTok lanes, Loc at);

#endif
