// The memory plan: every value a node computes gets a place in one arena, and values whose
// lifetimes do not overlap share a place (liveness over the graph in program order; a loop's
// values live for the whole loop). Sizes may be known only when a call runs, so a place is a
// slot whose size is the largest of its values', laid out when the call starts.
#pragma once
#include <vector>

#include "interpreter/graph/graph.h"

namespace weft::codegen {

struct PlanInput {
  std::vector<bool> owned;   // per value: it needs arena bytes of its own
  std::vector<int> aliasOf;  // per value: -1, or the value whose bytes it is (a reshape, a loop parameter)
  std::vector<int> inPlace;  // per value: -1, or an input whose bytes it may take when that input dies there
  std::vector<bool> sameSize;  // per value: its inPlace input has exactly its byte size
  // (v, w): v lives at least until w is defined (the inputs of a fused loop, read until its end).
  std::vector<std::pair<int, int>> liveUntil;
};

struct MemoryPlan {
  std::vector<int> slotOf;               // per value: its slot, or -1
  std::vector<std::vector<int>> slots;   // the values of each slot
};

MemoryPlan planMemory(const graph::Graph& g, const PlanInput& in);

}  // namespace weft::codegen
