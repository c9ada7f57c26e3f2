#include "pipeline.h"

#include <ostream>

#include "interpreter/graph/text.h"
#include "passes/passes.h"

namespace weft::codegen {

const std::vector<std::string>& passNames() {
  static const std::vector<std::string> names{"fold-constants", "forward-variables", "common-subexpressions", "fold-transposes", "dead-code",
                                              "fuse-epilogues", "fuse-elementwise"};
  return names;
}

graph::Graph runPasses(const graph::Graph& input, const std::string& dumpAfter, std::ostream& dump) {
  auto after = [&](const char* pass, const graph::Graph& g) {
    if (dumpAfter == pass) dump << "// after " << pass << "\n" << graph::printText(g);
  };
  graph::Graph g = foldConstants(input);
  after("fold-constants", g);
  g = forwardVariables(g);
  after("forward-variables", g);
  g = mergeCommonSubexpressions(g);
  after("common-subexpressions", g);
  g = foldTransposes(g);
  after("fold-transposes", g);
  g = removeDeadCode(g);
  after("dead-code", g);
  g = fuseMatmulEpilogues(g);
  after("fuse-epilogues", g);
  g = fuseElementwise(g);
  after("fuse-elementwise", g);
  return g;
}

}  // namespace weft::codegen
