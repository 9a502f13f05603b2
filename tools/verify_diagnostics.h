/* verify_diagnostics.h: --verify-diagnostics, the check of a chunk's
 * diagnostics against its expected-error/-warning/-note comments (see
 * ir-parse(1)). */
#ifndef VERIFY_DIAGNOSTICS_H
#define VERIFY_DIAGNOSTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* Every diagnostic captured in ctx must be expected by a comment of the
 * chunk [begin, end) of source `file` (whose first line is first_line),
 * and every one expected must be produced (matched in order: same
 * severity, same line, the message contains the text).  Mismatches and
 * malformed directives are reported as errors (not captured); false then.
 * Consumes the captured diagnostics and stops capturing. */
bool verify_diagnostics(Ctx *ctx, uint16_t file, size_t begin, size_t end, uint32_t first_line);

#endif
