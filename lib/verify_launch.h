/* verify_launch.h: checks of ir-codegen-ocl's output (verify_launch.c). */
#ifndef VERIFY_LAUNCH_H
#define VERIFY_LAUNCH_H

#include "ir.h"

/* Kernel k (S_KERNEL with a launch) of prim p; reports and returns false. */
bool verify_launch(Module *m, const Prim *p, PStmt *k);
/* One program per declared device at most. */
bool verify_programs(Module *m);

#endif
