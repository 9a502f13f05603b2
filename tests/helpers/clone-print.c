/* clone-print: a test helper (not installed).  Reads a module, copies it
 * with module_clone, copies the copy and frees the first copy (so that a
 * node the second shares with it is a use after free under ASan, and one
 * the first shares with the module a double free when the module is
 * freed), and prints the second copy as ir-parse prints the module
 * (tests/clone.bats compares the two on every module of the test suite).
 *
 *   clone-print [--locations] [--split-input-file] FILE
 *
 * With --split-input-file each part between '// -----' lines is a module
 * of its own, printed in its place as ir-parse --split-input-file does
 * (the shared driver's driver_process): one start for many modules.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "../../tools/driver.h"
#include "ir.h"

static bool
clone_print(Module *m, FILE *f, void *st)
{
	Module *c1 = module_clone(m);
	Module *c2 = module_clone(c1);
	module_free(c1);
	ir_print(c2, f, st);
	module_free(c2);
	return true;
}

int
main(int argc, char **argv)
{
	DriverOpts o = {0};
	int a = 1;
	for (; a < argc && argv[a][0] == '-' && argv[a][1]; a++) {
		if (!strcmp(argv[a], "--locations"))
			o.print.locations = true;
		else if (!strcmp(argv[a], "--split-input-file"))
			o.split = true;
		else
			break;
	}
	if (a + 1 != argc) {
		fprintf(stderr, "usage: clone-print [--locations] [--split-input-file] FILE\n");
		return 2;
	}
	size_t len;
	char *text = driver_read_input("clone-print", argv[a], (size_t)1 << 31, &len);
	if (!text)
		return 1;
	const Tool t = {.name = "clone-print", .print = clone_print};
	Ctx *ctx = ctx_new("clone-print");
	bool ok = driver_process(&t, &o, ctx, src_add(ctx, argv[a], text, len), stdout, &o.print);
	ctx_free(ctx);
	return fflush(stdout) || !ok ? 1 : 0;
}
