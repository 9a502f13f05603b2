/* driver.h: the command line every ir-* tool shares, so each tool is a
 * thin main: options, read the input, parse, run its pass, verify, print.
 * The options, exit statuses and --verify-diagnostics rules are those of
 * ir-parse(1). */
#ifndef DRIVER_H
#define DRIVER_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "ir.h"

#ifndef IRPIPE_VERSION
#define IRPIPE_VERSION "0.1.0"
#endif

typedef struct DriverOpts DriverOpts;

typedef struct Tool {
	const char *name;            /* "ir-parse" */
	const char *summary;         /* one line for --help */
	/* The tool's own options for --help, one or more lines each ending in
	 * a newline, laid out like the common ones: the option from column 6
	 * ("      --stats"), its description from column 24. */
	const char *extra_help;
	const struct option *opts;   /* extra long options ({0}-terminated), or NULL;
	                              * their codes in 256..0xffff */
	/* One extra option: 0 if fine, 2 after printing a usage error
	 * ("ir-x: ..." on stderr; the driver adds the "Try" line). */
	int (*on_opt)(int code, const char *arg, void *st);
	/* Once every option is read (not after --help or --version), before
	 * the input is: 0 if they go together, 2 after printing a usage
	 * error as on_opt does.  NULL: any combination goes. */
	int (*check_opts)(void *st);
	/* The tool's work on a parsed, verified module; false after reporting
	 * errors.  NULL: the module is printed as parsed. */
	bool (*run)(Module *m, void *st);
	/* A module without a function @main is an error ("no function @main"). */
	bool needs_main;
	/* run keeps local names unique itself (every name it makes is checked
	 * against the function's), so the verification after it skips that
	 * check, a hash of every name: an eighth of ir-plan-devices' time. */
	bool keeps_names;
	/* A tool that consumes the module instead of printing it (ir-run):
	 * called on the parsed, verified module (after run, if any) with the
	 * options (o->input: the input's path, NULL for stdin; o->output:
	 * -o's, NULL for none; o->part: see consume_parts); it writes its own
	 * output (text for the standard output to out) and returns false
	 * after reporting errors.  What goes to stdout is flushed by the
	 * driver, which reports a write error as for every tool. */
	bool (*consume)(Module *m, const DriverOpts *o, FILE *out, void *st);
	/* consume takes --split-input-file (else a usage error): each part's
	 * module is consumed as a module of its own, o->part its number from
	 * 0 (-1 without the option), and the run goes on past a part that
	 * fails, which the driver names by its first line; out is then a
	 * buffer, its parts joined by "// -----" lines, that goes to the
	 * standard output only when every part succeeded. */
	bool consume_parts;
	/* What the tool writes for a module in place of its text
	 * (ir-codegen-ocl --emit=cl: the OpenCL C), to f, which stands where
	 * the module would be printed (-o, the standard output, a part of
	 * --split-input-file's output, the parts joined by "// -----" lines
	 * as modules are); false after reporting errors.  NULL: ir_print. */
	bool (*print)(Module *m, FILE *f, void *st);
	/* Files that run staged (outfile.h) to change with the output: called
	 * once every module was processed and the output written, before -o's
	 * file replaces its target (and, without -o, before the output, held
	 * until then, goes to the standard output: the next tool of a pipe
	 * finds them, and a failed commit leaves the standard output empty), with
	 * ok false when something failed: commit them (ok) or discard them;
	 * false after reporting a failure, and then -o's target is left as it
	 * was.  NULL: nothing is staged. */
	bool (*commit)(bool ok, void *st);
	/* A tool whose input is not IR text (ir-import-onnx's model): called
	 * instead of reading and parsing the input, with the input's path
	 * (NULL: stdin) and -o's (NULL: stdout), it reads the input and
	 * returns the module it made, verified, or NULL after reporting.  Of
	 * the common options such a tool takes only -o, --help and --version
	 * (the others concern IR text and its diagnostics). */
	Module *(*load)(Ctx *ctx, const char *input, const char *output, void *st);
	/* For --help of a tool with load: what it reads and writes, in place
	 * of "Reads FILE, ...", and what a failure rejected ("model"). */
	const char *input_help;
	const char *input_noun;
} Tool;

/* The common options that shape processing (the rest only concern the
 * command line). */
struct DriverOpts {
	PrintOpts print;             /* --locations */
	bool no_verify;              /* --no-verify */
	bool split;                  /* --split-input-file */
	bool keep_going;             /* --keep-going: write the parts that succeeded */
	bool verify_diags;           /* --verify-diagnostics */
	const char *input, *output;  /* for Tool.consume: the paths, NULL for stdin / none */
	int part;                    /* for Tool.consume: the part's number, -1 without split */
};

/* Parses options, reads the input (a file, or - for stdin), and for each
 * module (or each --split-input-file chunk) parses, runs, verifies and
 * prints.  Returns the exit status: 0, 1 (input rejected, or an I/O
 * error), 2 (usage). */
int driver_main(const Tool *t, int argc, char **argv, void *st);

/* Everything driver_main does after reading the input, in one process,
 * for benchmarks and unit tests: source `file` of ctx (from src_add) is
 * split (o->split), each module parsed, run through t->run, verified and
 * printed to out (chunks joined by a "// -----" line).  Returns true when
 * every module succeeded, or under o->verify_diags when every chunk's
 * diagnostics matched its expectations.  On false, out may hold the
 * output of the chunks that succeeded; driver_main discards it. */
bool driver_process(const Tool *t, const DriverOpts *o, Ctx *ctx, uint16_t file,
                    FILE *out, void *st);

/* The whole of file `path` (NULL: stdin), NUL-terminated, its length in
 * *len; NULL after "PROG: cannot open/read 'path': why" on stderr, or
 * "'path' is too large (N GiB at most)" when it holds more than max bytes.
 * Every tool's input, driver_main's and ir-import-onnx's. */
char *driver_read_input(const char *prog, const char *path, size_t max, size_t *len);

/* For a Tool.consume that writes one output of its own (ir-dot's graph):
 * what write puts in f goes to path (NULL:
 * stdout, which driver_main then flushes and checks) as -o writes a
 * module: the file is replaced only when write succeeded (it reports its
 * own errors; a write error it may leave in f's error state) and all was
 * written, with the messages of every tool's -o.  False after reporting. */
bool driver_write(const char *prog, Module *m, const char *path,
                  bool (*write)(Module *m, FILE *f, void *st), void *st);

/* The numbers of the tools' options: decimal digits and nothing else (no
 * sign, blanks or base), with units a K, M, G or T after them for KiB,
 * MiB, GiB or TiB.  True with *out set when s is one in lo..hi; false if
 * it is not one, or overflows 64 bits. */
bool driver_parse_count(const char *s, bool units, uint64_t lo, uint64_t hi, uint64_t *out);

/* An option of tool `tool` that takes a size in bytes above 0 (`opt`,
 * "--max-memory"): 0 with *out set, or 2 after the usage error that
 * Tool.on_opt returns. */
int driver_opt_bytes(const char *tool, const char *opt, const char *arg, uint64_t *out);

#endif
