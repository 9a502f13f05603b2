/* layout.c: see layout.h. */
#include <string.h>

#include "layout.h"

static const Layout layouts[] = {
	{"NCHW", 4, "NCHW", 0},
	{"NCHW4c", 5, "NCHWc", 4},
	{"NHWC", 4, "NHWC", 0},
	{"OIHW", 4, "OIHW", 0},
	{"OIHW4o", 5, "OIHWo", 4},
};

const char *const layout_names[] = {"NCHW", "NCHW4c", "NHWC", "OIHW", "OIHW4o", NULL};

const Layout *
layout_find(const char *s)
{
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		if (strcmp(s, layouts[i].name) == 0)
			return &layouts[i];
	return NULL;
}

void
layout_logical_axes(const Layout *l, char *out)
{
	size_t k = 0;
	for (uint32_t i = 0; i < l->rank; i++)
		if (l->axes[i] >= 'A' && l->axes[i] <= 'Z')
			out[k++] = l->axes[i];
	out[k] = 0;
}
