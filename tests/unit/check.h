/* check.h: the unit tests' one assertion, CHECK(cond, printf-args): it
 * counts, and on failure prints where and why but goes on, so that one
 * run shows every failure.  Each test ends with its counts and exits
 * non-zero if failures is. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

static int checks, failures;

#define CHECK(cond, ...)                                                          \
	do {                                                                      \
		checks++;                                                         \
		if (!(cond)) {                                                    \
			failures++;                                               \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
			printf(__VA_ARGS__);                                      \
			printf("\n");                                             \
		}                                                                 \
	} while (0)

#endif
