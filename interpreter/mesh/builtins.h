// Mesh, Layout, UNSHARDED, LayoutMap, layout_map_scope and plan: the prelude's layout API.
#pragma once
#include "../eval/env.h"

namespace weft::mesh {

void registerBuiltins(Env& env);

}  // namespace weft::mesh
