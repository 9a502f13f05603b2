/* driver_test: the helpers tools/driver.c gives every tool: the parser of
 * their options' numbers, the reader of their whole input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../tools/driver.h"

#include "check.h"

static void
count_ok(const char *s, bool units, uint64_t lo, uint64_t hi, uint64_t want)
{
	uint64_t v = 7;
	bool ok = driver_parse_count(s, units, lo, hi, &v);
	CHECK(ok && v == want, "'%s' (units %d, %llu..%llu): %d %llu, want %llu", s, units,
	      (unsigned long long)lo, (unsigned long long)hi, ok, (unsigned long long)v,
	      (unsigned long long)want);
}

static void
count_bad(const char *s, bool units, uint64_t lo, uint64_t hi)
{
	uint64_t v = 7;
	bool ok = driver_parse_count(s, units, lo, hi, &v);
	CHECK(!ok && v == 7, "'%s' (units %d, %llu..%llu) taken: %llu", s, units,
	      (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)v);
}

static void
test_parse_count(void)
{
	count_ok("0", false, 0, 10, 0);
	count_ok("10", false, 0, 10, 10);
	count_ok("007", false, 0, 10, 7);
	count_ok("18446744073709551615", false, 0, UINT64_MAX, UINT64_MAX);
	count_ok("1K", true, 1, UINT64_MAX, 1024);
	count_ok("3M", true, 1, UINT64_MAX, 3ull << 20);
	count_ok("2G", true, 1, UINT64_MAX, 2ull << 30);
	count_ok("16777215T", true, 1, UINT64_MAX, 16777215ull << 40);
	/* out of lo..hi */
	count_bad("11", false, 0, 10);
	count_bad("0", false, 1, 10);
	count_bad("1K", true, 1, 1023);
	/* not a number */
	count_bad("", false, 0, 10);
	count_bad("-1", false, 0, 10);
	count_bad("+1", false, 0, 10);
	count_bad(" 1", false, 0, 10);
	count_bad("1 ", false, 0, 10);
	count_bad("0x1", false, 0, 10);
	count_bad("K", true, 0, UINT64_MAX);
	/* a unit where none is taken, an unknown or a doubled one */
	count_bad("1K", false, 0, UINT64_MAX);
	count_bad("1X", true, 0, UINT64_MAX);
	count_bad("1k", true, 0, UINT64_MAX);
	count_bad("1KB", true, 0, UINT64_MAX);
	count_bad("1KK", true, 0, UINT64_MAX);
	/* overflow, by digits and by the unit */
	count_bad("18446744073709551616", false, 0, UINT64_MAX);
	count_bad("99999999999999999999", false, 0, UINT64_MAX);
	count_bad("16777216T", true, 0, UINT64_MAX);
}

/* n bytes of a pattern that shows a byte out of place */
static char *
pattern(size_t n)
{
	char *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + i * 7 % 26);
	return p;
}

/* What driver_read_input reports on stderr, into err (NUL-terminated). */
static char *
read_captured(const char *path, size_t max, size_t *len, char *err, size_t errsize)
{
	char tmpl[] = "/tmp/driver_test.XXXXXX";
	int efd = mkstemp(tmpl), saved = dup(2);
	unlink(tmpl);
	fflush(stderr);
	dup2(efd, 2);
	char *text = driver_read_input("t", path, max, len);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t got = pread(efd, err, errsize - 1, 0);
	err[got > 0 ? got : 0] = 0;
	close(efd);
	return text;
}

static void
test_read_file(void)
{
	char path[] = "/tmp/driver_test.XXXXXX";
	int fd = mkstemp(path);
	const size_t n = 200000;   /* more than the first buffer of a pipe's read */
	char *want = pattern(n), err[512];
	CHECK(fd >= 0 && write(fd, want, n) == (ssize_t)n, "cannot write %s", path);
	close(fd);
	size_t len = 0;
	char *text = read_captured(path, n, &len, err, sizeof err);
	CHECK(text && len == n && memcmp(text, want, n) == 0 && text[n] == 0,
	      "a file of %zu bytes, max %zu: %zu read", n, n, text ? len : 0);
	CHECK(!err[0], "a file read: '%s' on stderr", err);
	free(text);
	text = read_captured(path, n - 1, &len, err, sizeof err);
	char msg[512];
	snprintf(msg, sizeof msg, "t: '%s' is too large (%zu bytes at most)\n", path, n - 1);
	CHECK(!text && strcmp(err, msg) == 0, "a file of %zu bytes, max %zu: '%s'", n, n - 1, err);
	free(text);
	unlink(path);
	text = read_captured(path, n, &len, err, sizeof err);
	CHECK(!text && strstr(err, "t: cannot open '") == err, "no file: '%s'", err);
	free(want);
}

/* stdin from a pipe: no size known ahead, read as it comes */
static void
test_read_pipe(size_t n, size_t max)
{
	int p[2];
	if (pipe(p) != 0)
		return;
	char *want = pattern(n), err[512];
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		size_t off = 0;
		while (off < n) {   /* small writes: many short reads */
			ssize_t w = write(p[1], want + off, n - off < 1000 ? n - off : 1000);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	int saved = dup(0);
	dup2(p[0], 0);
	close(p[0]);
	size_t len = 0;
	char *text = read_captured(NULL, max, &len, err, sizeof err);
	dup2(saved, 0);
	close(saved);
	waitpid(pid, NULL, 0);
	if (n <= max)
		CHECK(text && len == n && memcmp(text, want, n) == 0 && text[n] == 0 && !err[0],
		      "stdin of %zu bytes, max %zu: %zu read, '%s'", n, max, text ? len : 0, err);
	else
		CHECK(!text && strstr(err, "t: '<stdin>' is too large (") == err,
		      "stdin of %zu bytes, max %zu: '%s'", n, max, err);
	free(text);
	free(want);
}

int
main(void)
{
	test_parse_count();
	test_read_file();
	test_read_pipe(0, 10);
	test_read_pipe(300000, 300000);
	test_read_pipe(300000, 299999);
	test_read_pipe(300000, 100000);
	printf("driver_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
