// The graph passes, in the order they run, and the targets each runs for: the graph executor
// (graph functions, saved models) and the C++ code generator (weft compile). One list, one
// straight line (Halide's Lower.cpp); the graph is verified after every pass, so a pass that
// breaks the IR's rules is caught where it did.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "graph.h"

namespace weft::graph {

enum class Target { Executor, Cpp };

struct Pass {
  const char* name;  // for --dump-after=NAME
  Graph (*run)(const Graph& g);
  bool executor, cpp;  // the targets it runs for
};

// Every pass, in order.
const std::vector<Pass>& passes();

// Runs the target's passes in order, verifying the graph after each; after the one named
// `dumpAfter` (when not empty) prints the graph's text to `dump`.
Graph runPipeline(const Graph& g, Target target, const std::string& dumpAfter = "", std::ostream* dump = nullptr);
// The graph after the passes up to and including `last` (weft graph --dump-after).
Graph runPipelineUntil(const Graph& g, Target target, const std::string& last);

}  // namespace weft::graph
