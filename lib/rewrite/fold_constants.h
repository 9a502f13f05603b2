/* fold_constants.h: ir-fold-constants, graph-level bindings computed at
 * compile time (see ir-fold-constants(1)). */
#ifndef FOLD_CONSTANTS_H
#define FOLD_CONSTANTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "outfile.h"

/* The defaults of the options below. */
#define FOLD_MAX_BYTES_DEFAULT (256ull << 20)
#define FOLD_INLINE_MAX_DEFAULT 64

typedef struct {
	/* Where relative constant files are read from and new ones written
	 * to: data_dir if set, else the folder of input_path if set, else the
	 * current folder (data_path_resolve's rule). */
	const char *data_dir;
	const char *input_path;
	/* --allow-outside-data: a constant's file= may be absolute or hold
	 * '..' (else it is refused: data_path_inside). */
	bool any_data_path;
	/* A binding is folded only when its result and each operand take at
	 * most max_bytes bytes (0: FOLD_MAX_BYTES_DEFAULT). */
	uint64_t max_bytes;
	/* Results of at most inline_max elements are written inline, larger
	 * ones as .npy files; UINT32_MAX: all inline (nothing written). */
	uint32_t inline_max;
	bool inline_max_set;      /* false: FOLD_INLINE_MAX_DEFAULT */
	/* Rewrite conv2d's constant OIHW weights to the HWIO layout that
	 * ir-lower's cpu tile reads without a preparation stage. */
	bool weight_layouts;
	FILE *stats;              /* --stats: a summary; NULL: none */
	/* Where the new .npy files are staged (outfile.h), for the caller
	 * to commit with the module once it is written; NULL: they are
	 * committed together when the pass succeeds.  Either way a failure
	 * replaces none of the user's files.  A file's name in the data
	 * folder is never followed as a symlink: the link is replaced. */
	OutGroup *files;
} FoldOpts;

/* Folds every function of m; false after reporting errors (a constant
 * file that cannot be read, a result that cannot be written). */
bool fold_constants(Module *m, const FoldOpts *o);

#endif
