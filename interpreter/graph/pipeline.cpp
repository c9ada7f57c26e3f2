#include "pipeline.h"

#include <ostream>
#include <stdexcept>

#include "../../grammar/diagnostics.h"
#include "passes.h"
#include "text.h"
#include "verify.h"

namespace weft::graph {

const std::vector<Pass>& passes() {
  static const std::vector<Pass> list{
      //  name                     pass                      executor  C++
      {"fold-constants", foldConstants, true, true},
      {"forward-variables", forwardVariables, true, true},
      {"common-subexpressions", mergeCommonSubexpressions, true, true},
      // A graph on a mesh (SPEC §7.1): placements and collectives, then each device's program.
      {"propagate-placements", propagatePlacements, true, true},
      {"partition", partition, true, true},
      // The SPMD executor buckets the program it partitions before its devices' executors get it
      // (an executor holds a slot for each value of the graph it is given, and this pass adds some).
      {"bucket-collectives", bucketCollectives, false, true},
      {"fold-transposes", foldTransposes, true, true},
      {"dead-code", removeDeadCode, true, true},
      {"fuse-epilogues", fuseMatmulEpilogues, true, true},
      {"fuse-elementwise", fuseElementwise, true, true},
      {"lift-constants", liftConstants, false, true},  // large constants become weights files
  };
  return list;
}

namespace {

Graph run(const Graph& input, Target target, const std::string& last, std::ostream* dump) {
  Graph g = input;
  for (const Pass& p : passes()) {
    if (!(target == Target::Executor ? p.executor : p.cpp)) continue;
    pollLimits();  // each pass is linear in the graph: between two, a time limit stops it soon
    g = p.run(g);
    try {
      verify(g);
    } catch (const WeftError& e) {  // a pass broke the IR: a bug in Weft, named here
      throw std::logic_error(std::string("the ") + p.name + " pass left a graph that does not verify: " + e.message);
    }
    if (last != p.name) continue;
    if (!dump) break;
    *dump << "// after " << p.name << "\n" << printText(g);
  }
  return g;
}

}  // namespace

Graph runPipeline(const Graph& g, Target target, const std::string& dumpAfter, std::ostream* dump) {
  return run(g, target, dump ? dumpAfter : "", dump);
}

Graph runPipelineUntil(const Graph& g, Target target, const std::string& last) { return run(g, target, last, nullptr); }

}  // namespace weft::graph
