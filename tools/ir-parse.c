/* ir-parse: read a module, verify it, infer its types, print it
 * canonically (see ir-parse(1)). */
#include "driver.h"

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-parse",
		.summary = "verify a module of the irpipe IR and print it in canonical form",
		.run = NULL,
		.needs_main = false,
	};
	return driver_main(&tool, argc, argv, NULL);
}
