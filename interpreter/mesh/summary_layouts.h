// summary() with layouts (SPEC §5): per variable its layout, shard shape and bytes per device,
// then the total per device. Empty when no variable is sharded, so that the plain Keras table
// stays as Keras prints it.
#pragma once
#include "../values/objects.h"

namespace weft::mesh {

std::string layoutSummary(Interpreter& in, const std::vector<Value>& variables);

}  // namespace weft::mesh
