#include "pipeline.h"

#include <set>

#include "interpreter/graph/pipeline.h"

namespace weft::codegen {

void lowerUnit(CompileUnit& unit, const std::string& dumpAfter, std::ostream& dump) {
  std::set<std::string> idents;
  for (const auto& v : unit.variables) idents.insert(v.ident);
  for (auto& e : unit.exports) {
    e.graph = graph::runPipeline(e.graph, graph::Target::Cpp, dumpAfter, &dump);
    for (size_t slot = e.variables.size(); slot < e.graph.variables.size(); ++slot) {
      UnitVariable u;
      u.ident = uniqueIdent("constant_" + std::to_string(unit.variables.size()), idents);
      u.name = u.path = u.ident;
      u.value = e.graph.variables[slot].initial;
      e.graph.variables[slot].name = u.ident;
      e.variables.push_back(int(unit.variables.size()));
      unit.variables.push_back(std::move(u));
    }
  }
}

}  // namespace weft::codegen
