/* suggest.c: the closest known name to an unknown one (see suggest.h). */
#include <string.h>

#include "suggest.h"

static char
fold(char c, bool fold_case)
{
	return fold_case && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static unsigned
min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;
	return m < c ? m : c;
}

/* Optimal string alignment: Levenshtein plus the swap of two neighbouring
 * bytes as one edit, over three rows of at most SUGGEST_MAX_LEN + 1. */
unsigned
suggest_distance(const char *a, size_t na, const char *b, size_t nb, bool fold_case)
{
	if (na > SUGGEST_MAX_LEN || nb > SUGGEST_MAX_LEN)
		return 1000;
	unsigned rows[3][SUGGEST_MAX_LEN + 1];
	unsigned *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = (unsigned)j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = (unsigned)i;
		char ai = fold(a[i - 1], fold_case);
		for (size_t j = 1; j <= nb; j++) {
			char bj = fold(b[j - 1], fold_case);
			unsigned d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai != bj));
			if (i > 1 && j > 1 && ai == fold(b[j - 2], fold_case) &&
			    fold(a[i - 2], fold_case) == bj && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		unsigned *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}

void
suggest_init(Suggest *s, const char *name, size_t n)
{
	s->name = name;
	s->n = n;
	s->best = NULL;
	s->dist = s->dist_case = 0;
}

void
suggest_offer(Suggest *s, const char *cand)
{
	size_t nc = strlen(cand);
	unsigned limit = (unsigned)(s->n / 4);
	if (limit > 2)
		limit = 2;
	unsigned d = suggest_distance(s->name, s->n, cand, nc, true);
	if (d > limit)
		return;
	unsigned dc = suggest_distance(s->name, s->n, cand, nc, false);
	if (dc == 0)
		return; /* the name itself: not a suggestion */
	if (s->best && (d > s->dist || (d == s->dist && dc >= s->dist_case)))
		return;
	s->best = cand;
	s->dist = d;
	s->dist_case = dc;
}

const char *
suggest_best(const Suggest *s)
{
	return s->best;
}

bool
suggest_note(const Suggest *s, Ctx *ctx, Loc loc, const char *prefix)
{
	if (!s->best)
		return false;
	note_at(ctx, loc, "did you mean '%s%s'?", prefix, s->best);
	return true;
}

const char *
suggest_closest(const char *name, size_t n, const char *const *cands)
{
	Suggest s;
	suggest_init(&s, name, n);
	for (; cands && *cands; cands++)
		suggest_offer(&s, *cands);
	return s.best;
}

bool
suggest_note_among(Ctx *ctx, Loc loc, const char *name, size_t n, const char *const *cands,
                   const char *prefix)
{
	Suggest s;
	suggest_init(&s, name, n);
	for (; cands && *cands; cands++)
		suggest_offer(&s, *cands);
	return suggest_note(&s, ctx, loc, prefix);
}
