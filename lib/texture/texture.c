/* texture.c: the texture-scope conventions (see texture.h). */
#include <stdio.h>
#include <string.h>

#include "texture/texture.h"

bool
is_texture_scope(Sym s)
{
	return s && strncmp(s, "texture", 7) == 0 && (s[7] == 0 || s[7] == ':');
}

int
texture_split(Sym scope, uint32_t rank)
{
	if (!is_texture_scope(scope) || rank < 3)
		return -1;
	if (strcmp(scope, "texture") == 0)
		return (int)rank - 2;
	if (strcmp(scope, "texture:weight") == 0)
		return 1;
	if (strcmp(scope, "texture:nhwc") == 0)
		return rank == 3 ? 1 : 2;
	return -1;
}

bool
texture_image(const Type *t, Sym scope, int64_t wh[2], char *why, size_t whysz)
{
	char ty[128];
	wh[0] = wh[1] = 0;
	if (!t || t->kind != TY_TENSOR)
		return snprintf(why, whysz, "an image needs a tensor type"), false;
	if (t->n < 3) {
		snprintf(why, whysz, "an image needs rank 3 or more ([..., rows, columns, 4]), not %s",
		         type_text(t, ty, sizeof ty));
		return false;
	}
	if (t->dims[t->n - 1] != 4) {
		snprintf(why, whysz, "an image's last axis is the RGBA channel, of 4, but %s has %lld",
		         type_text(t, ty, sizeof ty), (long long)t->dims[t->n - 1]);
		return false;
	}
	int s = texture_split(scope, t->n);
	if (s < 0) {
		snprintf(why, whysz, "scope '%s' names no texture convention (texture, texture:weight, "
		         "texture:nhwc)", scope ? scope : "");
		return false;
	}
	/* A zero axis lets the others be large: saturate past 2^31-1. */
	int64_t h = 1, w = 1;
	for (uint32_t i = 0; i + 1 < t->n; i++) {
		int64_t *side = (int)i < s ? &h : &w, d = t->dims[i];
		*side = d && *side > ((int64_t)1 << 40) / d ? ((int64_t)1 << 40) : *side * d;
	}
	wh[0] = w;
	wh[1] = h;
	if (w == 0 || h == 0) {
		snprintf(why, whysz, "image of %s has no texels", type_text(t, ty, sizeof ty));
		return false;
	}
	if (w > INT32_MAX || h > INT32_MAX) {
		snprintf(why, whysz, "image of %s is %lldx%lld texels, past 2^31-1",
		         type_text(t, ty, sizeof ty), (long long)w, (long long)h);
		return false;
	}
	return true;
}
