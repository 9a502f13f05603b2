/* onnx_import.h: an ONNX model in, one module of the IR out (see
 * ir-import-onnx(1)).
 *
 * The import happens in memory: onnx_import builds the module (lib/gbuild.h),
 * verified, and the list of .npy files it names, and writes nothing, so a
 * failed import leaves no file behind; the tool writes the data with the
 * module.  This header does not expose protobuf-c: only
 * lib/onnx/ sees the generated bindings.
 */
#ifndef ONNX_IMPORT_H
#define ONNX_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "outfile.h"

/* --shape NAME=D,D,...: the shape an input of the graph gets. */
typedef struct {
	const char *name;
	uint32_t rank;
	int64_t dims[IR_MAX_RANK];
	bool used;              /* set by the import: the graph has that input */
} OnnxShape;

typedef struct {
	const char *path;              /* the model's name in messages */
	const char *dir;               /* the model file's folder, where its
	                                * external data files are read (see
	                                * onnx_external.c); NULL: refused */
	const char *const *devices;    /* --device declarations; none: @cpu */
	size_t ndevices;
	OnnxShape *shapes;             /* --shape */
	size_t nshapes;
	FILE *stats;                   /* --stats: where to print, or NULL */
	int64_t inline_max;            /* constants of at most this many elements
	                                * are written inline */
	bool mapped;                   /* buf is a private read-only mmap of the
	                                * file: the import gives back the pages
	                                * of the weights it has copied
	                                * (madvise), so that they are held once */
} OnnxOpts;

typedef struct OnnxModule OnnxModule;

/* The module of the model in buf, or NULL after reporting on stderr
 * ("PATH: error: ..."). */
OnnxModule *onnx_import(const uint8_t *buf, size_t len, const OnnxOpts *o);
/* Its module, verified, which the caller then owns and frees (module_free)
 * before om: its Ctx is om's. */
Module *onnx_module_take(OnnxModule *om);
/* Writes every .npy file the module names into dir (NULL: the current
 * folder), staged in g (outfile.h) to be committed with the module: none
 * replaces a file until all are written, and a symlink in dir is replaced,
 * never written through.  False with "path: message" in err (the caller
 * then discards g). */
bool onnx_stage_data(const OnnxModule *om, const char *dir, OutGroup *g, char *err,
                     size_t errsz);
void onnx_module_free(OnnxModule *om);

#endif
