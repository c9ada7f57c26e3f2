// Where a graph's variables are read and written without copies, for both targets: the C++
// emitter (codegen/emit) and the graph executor. A variable assigned once in the function's top
// block (as an optimizer's step assigns each weight and slot) is read in place while its old value
// is still wanted, and the value assigned to it is computed straight into its storage when no read
// of the old value outlives that computation. Everything else (variables assigned inside a cond or
// while, or more than once) is copied on read and on assignment (the executor: left to its buffers).
#pragma once
#include <map>
#include <set>

#include "graph.h"

namespace weft::graph {

struct VariablePlan {
  std::set<const Node*> copiedReads;  // ReadVariable nodes whose result needs its own bytes
  std::map<int, int> computedInto;    // value -> the variable slot it is computed into
};

VariablePlan planVariables(const Graph& g);

}  // namespace weft::graph
