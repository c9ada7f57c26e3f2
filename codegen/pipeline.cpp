#include "pipeline.h"

#include <set>

#include "grammar/diagnostics.h"
#include "interpreter/graph/pipeline.h"

namespace weft::codegen {

namespace {

// A value's placements on `mesh`, each mesh dimension spelled out (none given: replicated).
spmd::Placements full(const spmd::Placements& ps, const spmd::MeshAxes& mesh) {
  return ps.empty() ? spmd::Placements(size_t(mesh.rank())) : ps;
}

// How a sharded export's inputs, outputs and variables lie on the mesh: the placements the
// pipeline's propagation gives them (the same passes the interpreter's SPMD executor runs).
void recordPlacements(CompileUnit& unit, ExportGraph& e, std::vector<bool>& placed) {
  const graph::Graph g = graph::runPipelineUntil(e.graph, graph::Target::Cpp, "propagate-placements");
  for (int v : g.body.params) {
    e.inputPlacements.push_back(full(g.placementsOf(v), g.mesh));
    e.inputTypes.push_back(g.values[size_t(v)]);
  }
  for (int v : g.body.results) {
    e.outputPlacements.push_back(full(g.placementsOf(v), g.mesh));
    e.outputTypes.push_back(g.values[size_t(v)]);
  }
  for (size_t k = 0; k < e.variables.size(); ++k) {
    UnitVariable& u = unit.variables[size_t(e.variables[k])];
    const spmd::Placements ps = full(g.variables[k].placements, g.mesh);
    if (placed[size_t(e.variables[k])] && u.placements != ps)
      throw WeftError(e.site, "export '" + e.name + "' lays variable '" + u.name + "' out as " +
                                  spmd::placementsText(g.mesh, ps) + " and another export as " +
                                  spmd::placementsText(g.mesh, u.placements) +
                                  ": the exports of one program share one state; give the variable a layout");
    u.placements = ps;
    placed[size_t(e.variables[k])] = true;
  }
}

}  // namespace

void lowerUnit(CompileUnit& unit, const std::string& dumpAfter, std::ostream& dump) {
  std::set<std::string> idents;
  for (const auto& v : unit.variables) idents.insert(foldedName(v.ident));
  std::vector<bool> placed(unit.variables.size(), false);
  for (auto& e : unit.exports) {
    if (!unit.mesh.empty()) recordPlacements(unit, e, placed);
    e.graph = graph::runPipeline(e.graph, graph::Target::Cpp, dumpAfter, &dump);
    for (size_t slot = e.variables.size(); slot < e.graph.variables.size(); ++slot) {
      UnitVariable u;
      u.ident = uniqueIdent("constant_" + std::to_string(unit.variables.size()), idents);
      u.name = u.path = u.ident;
      u.value = e.graph.variables[slot].initial;
      if (!unit.mesh.empty()) u.placements = spmd::Placements(size_t(unit.mesh.rank()));  // every device's copy
      e.graph.variables[slot].name = u.ident;
      e.variables.push_back(int(unit.variables.size()));
      unit.variables.push_back(std::move(u));
    }
  }
}

}  // namespace weft::codegen
