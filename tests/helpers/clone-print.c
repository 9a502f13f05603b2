/* clone-print: a test helper (not installed).  Reads a module, copies it
 * with module_clone, copies the copy and frees the first copy (so that a
 * node the second shares with it is a use after free under ASan), and
 * prints the second copy as ir-parse prints the module (tests/clone.bats
 * compares the two on every module of the test suite).
 *
 *   clone-print [--locations] FILE
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "ir.h"

int
main(int argc, char **argv)
{
	PrintOpts po = {0};
	int a = 1;
	if (a < argc && !strcmp(argv[a], "--locations")) {
		po.locations = true;
		a++;
	}
	if (a + 1 != argc) {
		fprintf(stderr, "usage: clone-print [--locations] FILE\n");
		return 2;
	}
	FILE *f = fopen(argv[a], "rb");
	if (!f) {
		fprintf(stderr, "clone-print: cannot open '%s'\n", argv[a]);
		return 1;
	}
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	do {
		VEC_RESERVE(text, len + 4096, cap);
		n = fread(text + len, 1, 4096, f);
		len += n;
	} while (n);
	fclose(f);
	Ctx *ctx = ctx_new("clone-print");
	Module *m = ir_parse(ctx, src_add(ctx, argv[a], text, len), 0, len);
	if (!m) {
		ctx_free(ctx);
		return 1;
	}
	Module *c1 = module_clone(m);
	module_free(m);
	Module *c2 = module_clone(c1);
	module_free(c1);
	ir_print(c2, stdout, &po);
	module_free(c2);
	ctx_free(ctx);
	return fflush(stdout) ? 1 : 0;
}
