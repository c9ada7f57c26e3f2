// The graph passes of weft compile, in order (SPEC §9, ARCHITECTURE.md rule 7).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "interpreter/graph/graph.h"

namespace weft::codegen {

// The passes' names, for --dump-after.
const std::vector<std::string>& passNames();
// Runs every pass; after the one named `dumpAfter` (if any) prints the graph's text to `dump`.
graph::Graph runPasses(const graph::Graph& g, const std::string& dumpAfter, std::ostream& dump);

}  // namespace weft::codegen
