/* ocl_kernel.h: kernel.c's entry, for codegen.c. */
#ifndef OCL_KERNEL_H
#define OCL_KERNEL_H

#include "ocl/ocl_impl.h"

/* Writes kernel k of g->prim to g->out and sets its launch. */
bool ocl_kernel(Gen *g, PStmt *k);

#endif
