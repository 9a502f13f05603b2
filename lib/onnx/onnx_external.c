/* onnx_external.c: a tensor whose data lies in a file beside the model
 * (TensorProto.data_location EXTERNAL, ONNX's external data).  A protobuf
 * message cannot pass 2 GB, so torch.onnx and onnx.save write the weights
 * of larger models this way: the model names, per tensor, a file by a
 * path relative to the model's folder ("location"), where in it the data
 * starts ("offset", default 0) and how many bytes it takes ("length",
 * default: to the file's end), laid out as raw_data would be.  The path
 * must stay inside the model's folder (no absolute path, no ".."
 * component), as ir-run's data files must by default. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_impl.h"
#include "tensor/data_path.h"

/* A decimal count of bytes, whole, at most 2^62; false otherwise. */
static bool
count(const char *s, uint64_t *v)
{
	uint64_t r = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || r > (UINT64_C(1) << 62) / 10)
			return false;
		r = r * 10 + (uint64_t)(*s - '0');
	}
	*v = r;
	return true;
}

bool
onnx_external(Imp *im, const Onnx__TensorProto *tp, const char *what, void *dst,
              uint64_t bytes)
{
	const char *loc = NULL;
	uint64_t off = 0, len = 0;
	bool has_len = false;
	for (size_t i = 0; i < tp->n_external_data; i++) {
		const Onnx__StringStringEntryProto *e = tp->external_data[i];
		const char *k = e->key ? e->key : "", *v = e->value ? e->value : "";
		if (strcmp(k, "location") == 0)
			loc = v;
		else if (strcmp(k, "offset") == 0 && !count(v, &off))
			return onnx_fail(im, "%s has external data at offset '%s', not a count of bytes",
			                 what, v), false;
		else if (strcmp(k, "length") == 0 && !(has_len = count(v, &len)))
			return onnx_fail(im, "%s has external data of length '%s', not a count of bytes",
			                 what, v), false;
		/* "checksum" (SHA-1, optional) is not checked */
	}
	if (!loc)
		return onnx_fail(im, "%s keeps its data in an external file but names none", what),
		       false;
	if (!im->o->dir)
		return onnx_fail(im, "%s keeps its data in external file '%s', which needs the "
		                 "model read from a file, not standard input", what, loc), false;
	if (!data_path_inside(loc))
		return onnx_fail(im, "%s keeps its data in '%s', outside the model's folder", what,
		                 loc), false;
	if (has_len && len != bytes)
		return onnx_fail(im, "%s has %llu bytes of external data, its type needs %llu",
		                 what, (unsigned long long)len, (unsigned long long)bytes), false;
	size_t n = strlen(im->o->dir) + strlen(loc) + 2;
	char *path = xmalloc(n);
	snprintf(path, n, "%s/%s", im->o->dir, loc);
	/* links are followed, as a model folder of links (a download
	 * cache's) needs; O_NONBLOCK so that a FIFO named there fails
	 * the regular-file check instead of waiting for a writer */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	free(path);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		return onnx_fail(im, "%s keeps its data in '%s', which cannot be read: %s", what, loc,
		                 strerror(err)), false;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return onnx_fail(im, "%s keeps its data in '%s', which is not a regular file", what,
		                 loc), false;
	}
	if (off > (uint64_t)st.st_size || (uint64_t)st.st_size - off < bytes ||
	    (!has_len && (uint64_t)st.st_size - off != bytes)) {
		close(fd);
		return onnx_fail(im, "%s needs %llu bytes at offset %llu of '%s', which has %llu",
		                 what, (unsigned long long)bytes, (unsigned long long)off, loc,
		                 (unsigned long long)st.st_size), false;
	}
	for (uint64_t at = 0; at < bytes;) {
		ssize_t r = pread(fd, (uint8_t *)dst + at, (size_t)(bytes - at), (off_t)(off + at));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int err = r < 0 ? errno : EIO;
			close(fd);
			return onnx_fail(im, "%s: reading '%s': %s", what, loc, strerror(err)), false;
		}
		at += (uint64_t)r;
	}
	close(fd);
	return true;
}
