/* ocl_impl.h: private to lib/ocl (codegen.c, kernel.c, emit_expr.c,
 * emit_stmt.c, ctypes.c). */
#ifndef OCL_IMPL_H
#define OCL_IMPL_H

#include <stdarg.h>

#include "diag.h"
#include "ir.h"

/* A growable string. */
typedef struct {
	char *s;
	size_t n, cap;
} Str;
void str_putn(Str *b, const char *s, size_t n);
void str_puts(Str *b, const char *s);
void str_printf(Str *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void str_free(Str *b);

/* A texel read once per scope (TVM's SSA texel reuse): the read's text and
 * the temporary that holds it, valid until its block ends. */
typedef struct {
	char *key;
	char *name;
	int depth;
} Texel;

/* Marks on PVar.scratch while a kernel is generated. */
enum {
	OV_READ = 1,         /* a buffer or image read in the kernel */
	OV_WRITTEN = 2,      /* stored into */
	OV_ARG = 4,          /* prim parameter or prim-level alloc */
	OV_USED = 8,         /* used by the kernel */
	OV_IMAGE = 16,       /* in a texture scope */
	OV_TEX_ACCESS = 32,  /* reached by texture2d_load/store */
	OV_NDACCESS = 64,    /* reached by an N-d load or store */
	OV_PRIVATE = 128,    /* a `local` alloc of the kernel */
	OV_VEC_SEEN = 256,   /* ... read or written as whole rows of its last axis */
	OV_VEC_BAD = 512,    /* ... read or written as a shorter or unaligned run */
	OV_VECARR = 1024,    /* ... so declared as an array of vectors (rows) */
};

/* One kernel being generated. */
typedef struct {
	Module *m;
	Ctx *ctx;
	const Prim *prim;
	PStmt *kernel;
	const Device *dev;
	Str *out;             /* the program's text: lines end in '\n' */
	Str pre;              /* statements hoisted before the current one */
	int depth;            /* C block depth (1: the kernel body) */
	int ntemps;
	Texel *texels;
	size_t ntexels, captexels;
	bool ok;
	bool uses_f64;
	unsigned f16_round;   /* bit n: irp_f16 of n lanes is called (1 << 1: scalar) */
	unsigned erf_lanes;   /* bit n: irp_erf of n float lanes is called (1 << 1: scalar) */
	bool reads_images;
	bool full_unroll;     /* unrolled loops written out, not #pragma unroll */
	/* a let of a texel read: the read is the let, named let_name */
	const PExpr *let_root;
	const char *let_name;
} Gen;

/* The C spelling of an element type (lanes from dt): "float4", "int".
 * f16 values are computed as float (POCL has no cl_khr_fp16), each result
 * of f16 arithmetic rounded to f16 by irp_f16 as the interpreter rounds it;
 * buffers of f16 hold half and are read and written with vload_half /
 * vstore_half. */
const char *ocl_ctype(DType dt, char *buf);
/* The type of a buffer element in memory: "half" for f16, "uchar" for
 * bool (OpenCL kernels take no bool pointers), else ocl_ctype. */
const char *ocl_mtype(ElemKind k, char *buf);
/* A buffer of f16 in memory read and written with vload_half/vstore_half
 * (global memory); and the C type of v's elements in memory. */
bool ocl_half_mem(const PVar *v);
const char *ocl_buf_type(const PVar *v, char *buf);
/* A valid, readable C identifier for the IR local name (prefixed with v_
 * where it would clash with C, OpenCL or the generator's own names). */
void ocl_local_name(Str *b, const char *name);
/* The C function name of a kernel: its name, '.' as '_'. */
void ocl_kernel_name(Str *b, const char *name);

/* Appends the C text of e to b; hoisted reads go to g->pre. */
void ocl_expr(Gen *g, Str *b, PExpr *e);
/* The row-major linear element index of idx into buf, into b. */
void ocl_linear_index(Gen *g, Str *b, const PVar *buf, const PIndex *idx, uint32_t n);
/* A run of lanes shorter than buf's last axis at a constant offset that
 * is a multiple of its length (a part of a row of an array of vectors):
 * the offset over the length; -1 for any other access. */
int64_t ocl_row_part(const PVar *buf, const PIndex *idx, uint32_t n);
/* The statements of a block at C depth g->depth, with an explicit stack. */
void ocl_block(Gen *g, PBlock *b);

void ocl_indent(Gen *g, Str *b);
/* The definitions of the f16 rounding helpers g->f16_round names, into b. */
void ocl_f16_helpers(const Gen *g, Str *b);
/* The definitions of the float erf helpers g->erf_lanes names, into b. */
void ocl_erf_helpers(const Gen *g, Str *b);
bool ocl_is_texture(const PVar *v);

#define OCL_ERR(g, loc, ...) ((g)->ok = false, error_at((g)->ctx, (loc), __VA_ARGS__))

#endif
