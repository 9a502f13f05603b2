/* driver.h: the command line every ir-* tool shares, so each tool is a
 * thin main: options, read the input, parse, run its pass, verify, print. */
#ifndef DRIVER_H
#define DRIVER_H

#include <getopt.h>
#include <stdbool.h>

#include "ir.h"

typedef struct Tool {
	const char *name;            /* "ir-parse" */
	const char *summary;         /* one line for --help */
	const char *extra_help;      /* the tool's own options, for --help */
	const struct option *opts;   /* extra long options ({0}-terminated), or NULL */
	/* One extra option: 0 if fine, 2 after printing a usage error. */
	int (*on_opt)(int code, const char *arg, void *st);
	/* The tool's work on a parsed, verified module; false after errors. */
	bool (*run)(Module *m, void *st);
} Tool;

/* Parses options, reads the input (a file, or - for stdin), and for each
 * module (or each --split-input-file chunk) parses, runs, verifies and
 * prints.  Returns the exit status: 0, 1 (input rejected), 2 (usage). */
int driver_main(const Tool *t, int argc, char **argv, void *st);

#endif
