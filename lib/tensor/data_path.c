/* data_path.c: see data_path.h. */
#include <stdlib.h>
#include <string.h>

#include "data_path.h"
#include "ir.h"

bool
data_path_inside(const char *path)
{
	if (path[0] == '/' || !path[0])
		return false;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		p += *p == '/';
	}
	return true;
}

char *
data_path_folder(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash)
		return NULL;
	size_t n = slash == path ? 1 : (size_t)(slash - path);  /* "/m.ir": the root */
	char *s = xmalloc(n + 1);
	memcpy(s, path, n);
	s[n] = '\0';
	return s;
}

char *
data_path_resolve(const char *path, const char *data_dir, const char *input_path)
{
	char *beside = NULL;
	const char *dir = NULL;
	if (path[0] != '/')
		dir = data_dir ? data_dir : (beside = data_path_folder(input_path));
	size_t dn = dir ? strlen(dir) : 0, pn = strlen(path);
	char *s = xmalloc(dn + pn + 2);
	if (dir) {
		memcpy(s, dir, dn);
		if (dn && dir[dn - 1] != '/')
			s[dn++] = '/';
	}
	memcpy(s + dn, path, pn + 1);
	free(beside);
	return s;
}
