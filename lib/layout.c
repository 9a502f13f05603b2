/* layout.c: the layout table and layout arithmetic; see layout.h. */
#include <stdbool.h>
#include <string.h>

#include "layout.h"

static const Layout layouts[] = {
	{"NCHW", 4, "NCHW", 0},
	{"NCHW4c", 5, "NCHWc", 4},
	{"NHWC", 4, "NHWC", 0},
	{"OIHW", 4, "OIHW", 0},
	{"OIHW4o", 5, "OIHWo", 4},
	{"HWIO", 4, "HWIO", 0},
	{"OIHW16o", 5, "OIHWo", 16},
};

const char *const layout_names[] = {"NCHW", "NCHW4c", "NHWC", "OIHW", "OIHW4o", "HWIO", NULL};

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

static bool
is_lower(char ch)
{
	return ch >= 'a' && ch <= 'z';
}

static char
upper(char ch)
{
	return is_lower(ch) ? (char)(ch - 'a' + 'A') : ch;
}

/* Is upper-case axis ax of l split (does its lower-case part appear)? */
static bool
is_split(const Layout *l, char ax)
{
	return l->factor && memchr(l->axes, ax - 'A' + 'a', l->rank) != NULL;
}

int
layout_fit(const Layout *l, const int64_t *dims, uint32_t n, uint32_t *axis)
{
	if (n != l->rank)
		return LAYOUT_RANK;
	for (uint32_t i = 0; i < l->rank; i++)
		if (is_lower(l->axes[i]) && dims[i] != l->factor) {
			*axis = i;
			return LAYOUT_INNER;
		}
	/* layout_dim multiplies a split axis back together: keep that in
	 * range. */
	for (uint32_t i = 0; i < l->rank; i++) {
		int64_t size = 1;
		for (uint32_t j = 0; j < l->rank; j++)
			if (upper(l->axes[j]) == upper(l->axes[i]) &&
			    __builtin_mul_overflow(size, dims[j], &size)) {
				*axis = i;
				return LAYOUT_TOO_LARGE;
			}
	}
	return LAYOUT_FITS;
}

int64_t
layout_dim(const Layout *l, const int64_t *dims, char ax)
{
	int64_t size = 1;
	for (uint32_t i = 0; i < l->rank; i++)
		if (upper(l->axes[i]) == ax)
			size *= dims[i];
	return size;
}

char
layout_shape(const Layout *l, const char *letters, const int64_t *size, int64_t *dims)
{
	for (uint32_t i = 0; i < l->rank; i++) {
		char ax = l->axes[i];
		if (is_lower(ax)) {
			dims[i] = l->factor;
			continue;
		}
		const char *p = strchr(letters, ax);
		int64_t s = p ? size[p - letters] : 1;
		if (is_split(l, ax)) {
			if (s % l->factor != 0)
				return ax;
			s /= l->factor;
		}
		dims[i] = s;
	}
	return 0;
}

/* Where upper-case letter ax stands in letters, or -1: strchr's answer
 * without a call (the reference kernels ask it for every element, and
 * the sanitizers' strchr reads all of letters each time). */
static inline int
letter_at(const char *letters, char ax)
{
	for (int i = 0; letters[i]; i++)
		if (letters[i] == ax)
			return i;
	return -1;
}

int64_t
layout_offset(const Layout *l, const int64_t *dims, const char *letters, const int64_t *idx)
{
	int64_t off = 0;
	for (uint32_t i = 0; i < l->rank; i++) {
		char ax = l->axes[i];
		int at = letter_at(letters, upper(ax));
		int64_t v = at >= 0 ? idx[at] : 0;
		if (is_lower(ax))
			v %= l->factor;
		else if (is_split(l, ax))
			v /= l->factor;
		off = off * dims[i] + v;
	}
	return off;
}

bool
layout_strides(const Layout *l, const int64_t *dims, const char *letters, int64_t *strides)
{
	for (size_t i = 0; letters[i]; i++)
		strides[i] = 0;
	int64_t s = 1;
	for (uint32_t i = l->rank; i-- > 0;) {
		char ax = l->axes[i];
		if (is_lower(ax) || is_split(l, ax))
			return false;
		int at = letter_at(letters, ax);
		if (at >= 0)
			strides[at] += s;
		s *= dims[i];
	}
	return true;
}

void
layout_index(const Layout *l, const int64_t *dims, int64_t off, const char *letters,
             int64_t *idx)
{
	for (size_t i = 0; letters[i]; i++)
		idx[i] = 0;
	/* From the last (fastest) axis: its index is the remainder. */
	for (uint32_t i = l->rank; i-- > 0;) {
		int64_t v = off % dims[i];
		off /= dims[i];
		char ax = l->axes[i];
		int at = letter_at(letters, upper(ax));
		if (at < 0)
			continue;
		if (!is_lower(ax) && is_split(l, ax))
			v *= l->factor;     /* outer part; the inner one adds its own */
		idx[at] += v;
	}
}
