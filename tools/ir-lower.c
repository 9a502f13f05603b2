/* ir-lower: lower graph-level operators to loop-level prims (see
 * ir-lower(1) and lib/lower/lower.c). */
#include <getopt.h>
#include <stdio.h>

#include "driver.h"
#include "lower/lower.h"

enum { OPT_NO_FUSE = 1000, OPT_NO_TEXTURE, OPT_NO_TILE, OPT_SPLIT_K_KERNEL, OPT_STATS };

static const struct option opts[] = {
	{"no-fuse", no_argument, NULL, OPT_NO_FUSE},
	{"no-texture", no_argument, NULL, OPT_NO_TEXTURE},
	{"no-tile", no_argument, NULL, OPT_NO_TILE},
	{"split-k-kernel", no_argument, NULL, OPT_SPLIT_K_KERNEL},
	{"stats", no_argument, NULL, OPT_STATS},
	{0},
};

static int
on_opt(int code, const char *arg, void *st)
{
	(void)arg;
	LowerOpts *lo = st;
	switch (code) {
	case OPT_NO_FUSE: lo->no_fuse = true; return 0;
	case OPT_NO_TEXTURE: lo->no_texture = true; return 0;
	case OPT_NO_TILE: lo->no_tile = true; return 0;
	case OPT_SPLIT_K_KERNEL: lo->split_k_kernel = true; return 0;
	case OPT_STATS: lo->stats = stderr; return 0;
	}
	return 2;
}

static bool
run(Module *m, void *st)
{
	return lower_module(m, st);
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-lower",
		.summary = "Lower graph-level operators to loop-level prims, fused and scheduled per device",
		.extra_help =
			"      --no-fuse         one prim per operator\n"
			"      --no-texture      keep every buffer in global memory\n"
			"      --no-tile         one element per work item: no register tiles,\n"
			"                        no reductions across a work group\n"
			"      --split-k-kernel  add a split k's slices in a kernel of their own,\n"
			"                        not in each tile's last work group\n"
			"      --stats           print what was lowered and fused to stderr\n",
		.opts = opts,
		.on_opt = on_opt,
		.run = run,
	};
	LowerOpts lo = {0};
	return driver_main(&tool, argc, argv, &lo);
}
