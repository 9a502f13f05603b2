/* suggest.h: "did you mean" for a name that names nothing.
 *
 * Every unknown-name error (an operator, an attribute, a device, a
 * parameter given to --input) offers the known names to a Suggest and
 * prints its note: `note: did you mean 'nn.relu'?`.  One rule for all:
 * the distance is the optimal-string-alignment edit distance (an insertion,
 * a deletion, a substitution or a swap of two neighbours is one edit),
 * compared without case first (so `X` finds `x`), with case to break ties;
 * a candidate is taken within min(2, n/4) edits of a name of n bytes: a
 * name of 3 or fewer only differs in case (@gpu is no typo of @cpu), one
 * of 4 to 7 by one edit (nn.rleu), longer ones by two; among equals, the
 * first offered.
 */
#ifndef SUGGEST_H
#define SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

typedef struct {
	const char *name;   /* the name that was not found, n bytes */
	size_t n;
	const char *best;   /* the closest candidate so far, or NULL */
	unsigned dist, dist_case;
} Suggest;

void suggest_init(Suggest *s, const char *name, size_t n);
/* Considers one known name (NUL-terminated; kept by pointer). */
void suggest_offer(Suggest *s, const char *cand);
/* The closest known name, or NULL when none is close enough. */
const char *suggest_best(const Suggest *s);
/* Prints "did you mean 'PREFIX<best>'?" as a note at loc (prefix "@" for
 * globals, "%" for values, "" for plain names) when there is a best;
 * returns whether it printed. */
bool suggest_note(const Suggest *s, Ctx *ctx, Loc loc, const char *prefix);
/* The closest of a NULL-terminated list. */
const char *suggest_closest(const char *name, size_t n, const char *const *cands);
/* suggest_note for the closest of a NULL-terminated list. */
bool suggest_note_among(Ctx *ctx, Loc loc, const char *name, size_t n,
                        const char *const *cands, const char *prefix);

/* The distance above, case-sensitive or not; a large number when either
 * name is longer than SUGGEST_MAX_LEN (no typo of a known name). */
enum { SUGGEST_MAX_LEN = 64 };
unsigned suggest_distance(const char *a, size_t na, const char *b, size_t nb, bool fold_case);

#endif
