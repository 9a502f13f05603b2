/* ctypes.c: strings, C types and identifiers for the OpenCL generator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocl/ocl_impl.h"

void
str_putn(Str *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = vec_cap(b->cap, b->n + n + 1, 1);
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void
str_puts(Str *b, const char *s)
{
	str_putn(b, s, strlen(s));
}

void
str_printf(Str *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		str_putn(b, small, (size_t)n);
		return;
	}
	char *big = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	str_putn(b, big, (size_t)n);
	free(big);
}

void
str_free(Str *b)
{
	free(b->s);
	*b = (Str){0};
}

static const char *const scalar_names[ET__COUNT] = {
	[ET_BOOL] = "bool", [ET_I8] = "char", [ET_I16] = "short", [ET_I32] = "int",
	[ET_I64] = "long", [ET_U8] = "uchar", [ET_U16] = "ushort", [ET_U32] = "uint",
	[ET_U64] = "ulong", [ET_F16] = "float", [ET_F32] = "float", [ET_F64] = "double",
};

const char *
ocl_ctype(DType dt, char *buf)
{
	const char *base = scalar_names[dt.kind];
	/* a vector of bools is what a vector comparison gives: int lanes */
	if (dt.kind == ET_BOOL && dt.lanes > 1)
		base = "int";
	if (dt.lanes > 1)
		snprintf(buf, 16, "%s%u", base, (unsigned)dt.lanes);
	else
		snprintf(buf, 16, "%s", base);
	return buf;
}

const char *
ocl_mtype(ElemKind k, char *buf)
{
	if (k == ET_F16)
		return "half";
	if (k == ET_BOOL)
		return "uchar";
	return ocl_ctype((DType){k, 1}, buf);
}

/* Names an IR local may not keep: C and OpenCL C keywords, types and
 * qualifiers, and the built-ins the generator calls. */
static const char *const reserved[] = {
	"auto", "bool", "break", "case", "char", "const", "constant", "continue",
	"default", "do", "double", "else", "enum", "extern", "float", "for",
	"global", "goto", "half", "if", "image2d_t", "inline", "int", "kernel",
	"local", "long", "private", "read_only", "register", "restrict", "return",
	"sampler_t", "short", "signed", "sizeof", "static", "struct", "switch",
	"typedef", "uchar", "uint", "ulong", "union", "unsigned", "ushort", "void",
	"volatile", "while", "write_only", "read_write", "size_t", "barrier",
	"abs", "ceil", "exp", "fabs", "floor", "fma", "fmax", "fmin", "fmod", "log",
	"max", "min", "pow", "rsqrt", "select", "sqrt", "tanh", "NAN", "INFINITY",
	"get_global_id", "get_group_id", "get_local_id", "read_imagef",
	"write_imagef", "vload_half", "vstore_half",
};

void
ocl_local_name(Str *b, const char *name)
{
	bool clash = !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')) ||
	             strncmp(name, "v_", 2) == 0 || strncmp(name, "irp_", 4) == 0 ||
	             strncmp(name, "vload", 5) == 0 || strncmp(name, "vstore", 6) == 0 ||
	             strncmp(name, "convert_", 8) == 0;
	for (size_t i = 0; !clash && i < sizeof reserved / sizeof *reserved; i++)
		clash = strcmp(name, reserved[i]) == 0;
	if (clash)
		str_puts(b, "v_");
	str_puts(b, name);
}

void
ocl_kernel_name(Str *b, const char *name)
{
	for (const char *c = name; *c; c++)
		str_putn(b, *c == '.' ? "_" : c, 1);
}

/* Two spaces a level, up to 32 levels: deeper nests stay at that column
 * so that the C stays linear in the size of the prim. */
void
ocl_indent(Gen *g, Str *b)
{
	for (int i = 0; i < g->depth && i < 32; i++)
		str_puts(b, "  ");
}

bool
ocl_is_texture(const PVar *v)
{
	return v->kind == PV_BUFFER && v->vd && v->vd->scope &&
	       strncmp(v->vd->scope, "texture", 7) == 0 &&
	       (v->vd->scope[7] == 0 || v->vd->scope[7] == ':');
}

/* Private and __local arrays cannot hold half without cl_khr_fp16: f16
 * there is kept as float, like every f16 value in flight. */
static bool
on_chip(const PVar *v)
{
	const char *sc = v->vd ? v->vd->scope : NULL;
	return sc && (strcmp(sc, "local") == 0 || strcmp(sc, "shared") == 0);
}

bool
ocl_half_mem(const PVar *v)
{
	return v->type->dt.kind == ET_F16 && !on_chip(v);
}

const char *
ocl_buf_type(const PVar *v, char *buf)
{
	if (v->type->dt.kind == ET_F16 && on_chip(v))
		return "float";
	return ocl_mtype((ElemKind)v->type->dt.kind, buf);
}
