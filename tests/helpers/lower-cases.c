/* lower-cases: a test helper (not installed).  Writes the modules of
 * tests/unit/lower_test.c, each with each of its devices, as DIR/NAME.ir
 * files, so the codegen tests (tests/codegen.bats) run them through the
 * tools and build their OpenCL C.  The cases are read from lower_test.c
 * itself, so a case added there is generated here too.
 *
 *   lower-cases DIR
 */
#define main lower_test_main
int lower_test_main(void);
#include "../unit/lower_test.c"
#undef main

static const char *const dev_names[] = {"cpu", "gpu", "tex"};

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: lower-cases DIR\n");
		return 2;
	}
	_Static_assert(sizeof devices / sizeof *devices == 3, "one name per device of lower_test.c");
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		for (size_t d = 0; d < 3; d++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/case%02zu.%s.ir", argv[1], c, dev_names[d]);
			FILE *f = fopen(path, "w");
			if (!f || fprintf(f, "%s%s", devices[d], cases[c]) < 0 || fclose(f) != 0) {
				fprintf(stderr, "lower-cases: cannot write '%s'\n", path);
				return 1;
			}
		}
	return 0;
}
