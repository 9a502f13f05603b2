/* ir-alter-layout: NCHW operators on texture devices into the packed
 * NCHW4c / OIHW4o forms (see ir-alter-layout(1) and lib/rewrite/alter_layout.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rewrite/alter_layout.h"
#include "driver.h"

enum { OPT_LAYOUT = 1000, OPT_STATS };

static const struct option opts[] = {
	{"layout", required_argument, NULL, OPT_LAYOUT},
	{"stats", no_argument, NULL, OPT_STATS},
	{0},
};

static int
on_opt(int code, const char *arg, void *st)
{
	AlterOpts *ao = st;
	switch (code) {
	case OPT_LAYOUT:
		if (!strcmp(arg, "auto"))
			ao->mode = ALTER_AUTO;
		else if (!strcmp(arg, "NCHW4c"))
			ao->mode = ALTER_NCHW4C;
		else if (!strcmp(arg, "none"))
			ao->mode = ALTER_NONE;
		else {
			fprintf(stderr, "ir-alter-layout: --layout must be auto, NCHW4c or none, "
			        "not '%s'\n", arg);
			return 2;
		}
		return 0;
	case OPT_STATS:
		ao->stats = stderr;
		return 0;
	}
	return 2;
}

static bool
run(Module *m, void *st)
{
	return alter_layout(m, st);
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-alter-layout",
		.summary = "Rewrite NCHW operators on texture devices into packed NCHW4c/OIHW4o forms",
		.extra_help =
			"      --layout=MODE     auto (pack on texture devices, the default),\n"
			"                        NCHW4c (pack on every device) or none\n"
			"      --stats           print what was packed and what was kept, and why,\n"
			"                        to stderr\n",
		.opts = opts,
		.on_opt = on_opt,
		.run = run,
	};
	AlterOpts ao = {.mode = ALTER_AUTO};
	return driver_main(&tool, argc, argv, &ao);
}
