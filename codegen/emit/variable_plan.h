// Where the state's variables are read and written without copies. A variable assigned once in
// the function's top block (as an optimizer's step assigns each weight and slot) is read in place
// while its old value is still wanted, and the value assigned to it is computed straight into its
// storage when no read of the old value outlives that computation. Everything else (variables
// assigned inside a cond or while, or more than once) is copied on read and on assignment.
#pragma once
#include <map>
#include <set>

#include "interpreter/graph/graph.h"

namespace weft::codegen {

struct VariablePlan {
  std::set<const graph::Node*> copiedReads;  // ReadVariable nodes whose result needs its own bytes
  std::map<int, int> computedInto;           // value -> the variable slot it is computed into
};

VariablePlan planVariables(const graph::Graph& g);

}  // namespace weft::codegen
