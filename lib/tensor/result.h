/* result.h: the result of a run, as ir-run hands it out: printed as text
 * or written to .npy files (see ir-run(1)).  Shared by every engine that
 * runs @main: the reference interpreter now, the OpenCL runtime later. */
#ifndef RESULT_H
#define RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tensor.h"
#include "value.h"

/* One line, "f32[2,2] [1.0, 2.0, 3.0, 4.0]", the form of a constant:
 * each float the shortest decimal that reads back to it. */
void tensor_print(FILE *f, const Tensor *t);
/* A tensor as tensor_print does; a tuple one tensor a line, each after
 * its position ("0: ...", a nested tuple's "1.0: ..."). */
void result_print(FILE *f, const RtVal *r);

/* Writes r to path: a tensor to the .npy file path, a tuple to the folder
 * path (made if missing) as 0.npy, 1.npy, ... (a nested tuple's elements
 * as 1.0.npy).  Each file is replaced as outfile.h says; a tuple's files
 * are all written before any replaces its target, so a failure leaves
 * every one as it was (and removes the folder if this call made it).
 * False with the message in err (errsz bytes). */
bool result_write(const RtVal *r, const char *path, char *err, size_t errsz);

#endif
