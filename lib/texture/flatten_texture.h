/* flatten_texture.h: N-d accesses to images become 2-d texel accesses
 * (ir-flatten-texture, TVM's TextureFlatten). */
#ifndef FLATTEN_TEXTURE_H
#define FLATTEN_TEXTURE_H

#include "ir.h"

/* In every prim, every load and store of a buffer in a texture scope
 * (parameters and allocs) becomes texture2d_load / texture2d_store at the
 * texel the scope's convention gives (texture.h), a one-channel read a
 * lane of the texel; texture allocs get their image2d[W, H].  Each image
 * is checked against its device's image2d_max.  Prims without textures
 * are not changed, and a flattened module flattens to itself.  Reports
 * errors through m->ctx and returns false on failure. */
bool flatten_texture(Module *m);

#endif
