/* ir-flatten-texture: accesses to images as 2-d texel loads and stores
 * (see ir-flatten-texture(1) and lib/texture/flatten_texture.c). */
#include "driver.h"
#include "texture/flatten_texture.h"

static bool
run(Module *m, void *st)
{
	(void)st;
	return flatten_texture(m);
}

int
main(int argc, char **argv)
{
	static const Tool tool = {
		.name = "ir-flatten-texture",
		.summary = "Turn every access to a buffer in a texture scope into a 2-d texel load or store",
		.run = run,
	};
	return driver_main(&tool, argc, argv, NULL);
}
