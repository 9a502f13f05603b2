/* ir-plan-devices: place every value on a virtual device (see
 * ir-plan-devices(1) and lib/plan/plan_devices.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "plan/plan_devices.h"

enum { OPT_DEFAULT = 1000, OPT_STATS, OPT_MINIMIZE };

static const struct option opts[] = {
	{"default", required_argument, NULL, OPT_DEFAULT},
	{"stats", no_argument, NULL, OPT_STATS},
	{"minimize-copies", no_argument, NULL, OPT_MINIMIZE},
	{0},
};

static int
on_opt(int code, const char *arg, void *st)
{
	PlanOpts *po = st;
	switch (code) {
	case OPT_DEFAULT:
		if (arg[0] != '@' || !arg[1]) {
			fprintf(stderr, "ir-plan-devices: --default takes a device such as @gpu, not '%s'\n", arg);
			return 2;
		}
		po->default_dev = arg + 1;
		return 0;
	case OPT_STATS:
		po->stats = stderr;
		return 0;
	case OPT_MINIMIZE:
		po->minimize_copies = true;
		return 0;
	}
	return 2;
}

static bool
run(Module *m, void *st)
{
	return plan_devices(m, st);
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-plan-devices",
		.summary = "Place every value on a virtual device and insert the copies between them",
		.extra_help =
			"      --default=@dev    use @dev as the default device\n"
			"      --minimize-copies place values no constraint fixes to copy the fewest bytes\n"
			"      --stats           print placements and copies to stderr\n",
		.opts = opts,
		.on_opt = on_opt,
		.run = run,
		.keeps_names = true,
	};
	PlanOpts po = {0};
	return driver_main(&tool, argc, argv, &po);
}
