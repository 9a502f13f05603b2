/* result.c: results of a run as text and .npy files (see result.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "outfile.h"
#include "result.h"

/* ------------------------------------------------------------- text */

static double
round_f32(double d)
{
	return (double)(float)d;
}

static double
round_f16(double d)
{
	return f16_to_double(f16_from_double(d));
}

/* The shortest decimal that reads back to v in element kind k, spelled as
 * the printer spells floats (10.0, not 1e+01). */
static void
print_float(FILE *f, ElemKind k, double v)
{
	ir_print_float(f, v, k == ET_F16 ? round_f16 : k == ET_F32 ? round_f32 : NULL);
}

void
tensor_print(FILE *f, const Tensor *t)
{
	fprintf(f, "%s[", elem_name(t->kind));
	for (uint32_t i = 0; i < t->rank; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)t->dims[i]);
	fputs("] [", f);
	for (int64_t i = 0; i < t->numel; i++) {
		if (i)
			fputs(", ", f);
		if (elem_is_float(t->kind))
			print_float(f, t->kind, tensor_get(t, i));
		else if (t->kind == ET_BOOL)
			fputs(tensor_get_int(t, i) ? "true" : "false", f);
		else if (t->kind == ET_U64)
			fprintf(f, "%llu", (unsigned long long)tensor_get_int(t, i));
		else
			fprintf(f, "%lld", (long long)tensor_get_int(t, i));
	}
	fputs("]\n", f);
}

/* Tuples nest only as deep as their types, which the parser caps. */
static void
print_value(FILE *f, const RtVal *r, char *path, size_t len, size_t cap)
{
	if (r->type->kind == TY_TENSOR) {
		if (len)
			fprintf(f, "%.*s: ", (int)len, path);
		tensor_print(f, r->t);
		return;
	}
	for (uint32_t i = 0; i < r->n; i++) {
		int k = snprintf(path + len, cap - len, "%s%u", len ? "." : "", (unsigned)i);
		size_t nl = k > 0 && (size_t)k < cap - len ? len + (size_t)k : len;
		print_value(f, r->fields[i], path, nl, cap);
	}
}

void
result_print(FILE *f, const RtVal *r)
{
	char path[1024];
	print_value(f, r, path, 0, sizeof path);
}

/* ------------------------------------------------------------ files */

/* One .npy file written and finished, not yet committed; false with the
 * message in err (the file discarded). */
static bool
stage(OutFile *o, const char *path, const Tensor *t, char *err, size_t errsz)
{
	int e = outfile_open(o, path);
	if (e) {
		snprintf(err, errsz, "cannot %s '%s': %s", o->direct ? "open" : "create", path,
		         strerror(e));
		return false;
	}
	errno = 0;
	if (!npy_write_stream(o->f, t))
		e = errno ? errno : EIO;
	int e2 = outfile_finish(o);
	if (e || e2) {
		snprintf(err, errsz, "write error: '%s': %s", path, strerror(e ? e : e2));
		outfile_discard(o);
		return false;
	}
	return true;
}

/* The tensors of a tuple, depth first, with their file names. */
typedef struct {
	const Tensor **t;
	char **name;
	size_t n, cap;
} Leaves;

static void
leaves(const RtVal *r, Leaves *lv, char *name, size_t len, size_t cap)
{
	if (r->type->kind == TY_TENSOR) {
		if (lv->n == lv->cap) {
			lv->cap = lv->cap ? 2 * lv->cap : 8;
			lv->t = xrealloc(lv->t, lv->cap * sizeof *lv->t);
			lv->name = xrealloc(lv->name, lv->cap * sizeof *lv->name);
		}
		lv->t[lv->n] = r->t;
		lv->name[lv->n] = xmalloc(len + 1);
		memcpy(lv->name[lv->n], name, len);
		lv->name[lv->n++][len] = 0;
		return;
	}
	for (uint32_t i = 0; i < r->n; i++) {
		int k = snprintf(name + len, cap - len, "%s%u", len ? "." : "", (unsigned)i);
		size_t nl = k > 0 && (size_t)k < cap - len ? len + (size_t)k : len;
		leaves(r->fields[i], lv, name, nl, cap);
	}
}

/* Every element staged first, then every one committed: all or none
 * (outfile.h's OutGroup, as the data files of ir-import-onnx and
 * ir-fold-constants). */
static bool
write_tuple(const RtVal *r, const char *dir, char *err, size_t errsz)
{
	Leaves lv = {0};
	char name[1024];
	leaves(r, &lv, name, 0, sizeof name);
	OutGroup g = {0};
	size_t dn = strlen(dir);
	char *first = NULL;
	bool ok = true;
	for (size_t i = 0; ok && i < lv.n; i++) {
		char *path = xmalloc(dn + strlen(lv.name[i]) + 6);
		sprintf(path, "%s/%s.npy", dir, lv.name[i]);
		int e;
		bool direct;
		OutFile *o = outgroup_add(&g, path, 0, &e, &direct);
		if (!o) {
			snprintf(err, errsz, "cannot %s '%s': %s", direct ? "open" : "create", path,
			         strerror(e));
			ok = false;
		} else {
			errno = 0;
			if (!npy_write_stream(o->f, lv.t[i]))
				e = errno ? errno : EIO;
			int e2 = outfile_finish(o);
			if (e || e2) {
				snprintf(err, errsz, "write error: '%s': %s", path, strerror(e ? e : e2));
				ok = false;
			}
		}
		if (i == 0)
			first = path;
		else
			free(path);
	}
	if (!ok) {
		outgroup_discard(&g);
	} else {
		char bad[1024];
		int e = outgroup_commit(&g, bad, sizeof bad);
		if (e) {
			/* A rename failing after others succeeded: too late for
			 * "none", so say so. */
			snprintf(err, errsz, "write error: '%s': %s%s", bad, strerror(e),
			         first && strcmp(bad, first) ? " (the elements before it were written)"
			                                     : "");
			ok = false;
		}
	}
	free(first);
	for (size_t i = 0; i < lv.n; i++)
		free(lv.name[i]);
	free(lv.t);
	free(lv.name);
	return ok;
}

bool
result_write(const RtVal *r, const char *path, char *err, size_t errsz)
{
	struct stat sb;
	if (r->type->kind == TY_TENSOR) {
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			snprintf(err, errsz, "'%s' is a directory; @main returns one tensor, written to "
			         "a .npy file", path);
			return false;
		}
		OutFile o;
		if (!stage(&o, path, r->t, err, errsz))
			return false;
		int e = outfile_commit(&o);
		if (e)
			snprintf(err, errsz, "write error: '%s': %s", path, strerror(e));
		return e == 0;
	}
	bool made = false;
	if (stat(path, &sb) != 0) {
		if (mkdir(path, 0777) != 0) {
			snprintf(err, errsz, "cannot make the directory '%s' for the outputs: %s", path,
			         strerror(errno));
			return false;
		}
		made = true;
	} else if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errsz, "@main returns a tuple, written one file per element to a "
		         "directory; '%s' is not one", path);
		return false;
	}
	bool ok = write_tuple(r, path, err, errsz);
	if (!ok && made)
		rmdir(path);
	return ok;
}
