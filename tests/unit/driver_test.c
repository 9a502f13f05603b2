/* driver_test: the helpers tools/driver.c gives every tool: the parser of
 * their options' numbers. */
#include <stdint.h>
#include <string.h>

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

int
main(void)
{
	test_parse_count();
	printf("driver_test: %d checks, %d failures\n", checks, failures);
	return failures != 0;
}
