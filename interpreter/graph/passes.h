// Graph-to-graph passes that preserve what a graph computes, one per file in passes/. pipeline.cpp
// lists them in order with the targets each runs for (the executor, before a graph function's
// first call; weft compile).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph.h"

namespace weft::graph {

// Within a block, a read of a variable whose value the block holds (read or assigned before) uses
// that value, and assignments move down to just before the next node that touches the variable.
Graph forwardVariables(const Graph& g);
// A node equal to an earlier one in scope (same op, inputs and attributes) reuses its result.
Graph mergeCommonSubexpressions(const Graph& g);
// matmul of a transposed matrix: the matmul reads the matrix transposed (`transpose_a`,
// `transpose_b` attributes), and the transpose goes unused.
Graph foldTransposes(const Graph& g);
// Nodes without effects whose results nothing uses are removed.
Graph removeDeadCode(const Graph& g);
// Runs of elementwise nodes of one shape become groups (the `fuse` attribute, the group's
// number), each run as one loop over chunks of its elements (fuse_elementwise.cpp).
Graph fuseElementwise(const Graph& g);

// Nodes whose inputs are all constants run once, on the eager kernels, and become constants.
Graph foldConstants(const Graph& g);
// matmul, then a bias add, then an elementwise activation: one matmul node with a `bias` input
// and an `epilogue` attribute, so that the emitter writes the bias before the product
// accumulates and applies the activation in the same pass over the result.
Graph fuseMatmulEpilogues(const Graph& g);
// Constants too large for C++ source (a tensor a function captured) become variable slots that
// hold them (VariableSlot::initial): the generated code's weights files.
Graph liftConstants(const Graph& g);

// One collective a sharded graph needs (SPEC §7.1): where, which, along which mesh dimension,
// the bytes each device sends, and whether it finishes a partial sum (inherent) or changes a
// layout (implicit).
struct PlannedCollective {
  Loc loc;
  ops::OpId op;
  int meshDim;
  int64_t group;
  int64_t bytes;
  bool inherent;
  int value;
  std::string why;  // what the moved value is for: "returned", "for max", "printed", ...
  bool requested = false;  // the program asked for it (relayout, distribute): never implicit
  int64_t block = 0;       // the bytes of one device's block it moves
  int bucket = 0;          // the bucket it travels in (1, 2, ...; bucketCollectives), or 0
};
struct CommPlan {
  std::vector<PlannedCollective> collectives;
};
// Gives every value of a graph on a mesh its placements from the inputs' and the variables'
// and writes the collectives that needs into the graph, before the nodes that need them
// (propagate_placements.cpp): still a program over global values, where a collective changes
// only its value's placements. Without a mesh, the graph as it is.
Graph propagatePlacements(const Graph& g);
// Whether collective `n` of a placed graph moves data: not over a mesh dimension of one device
// (a mesh of one, or a 1 in `mesh m(data=1, model=2)`), where every block is the whole value.
bool movesData(const Node& n);
// The collectives of a placed graph that move data, in program order (what weft check
// --comm-plan prints, and what --no-implicit-comm refuses).
CommPlan commPlanOf(const Graph& g);
// What --no-implicit-comm says of a placed graph named `name`: its first implicit collective
// (a re-layout nobody asked for), or "" when it has none. `weft run` and `weft check` both ask.
std::string implicitCommError(const Graph& placed, const std::string& name);
// Each device's program (partition.cpp): every value of a placed graph gets its local type,
// every op the attributes one device runs it with, and the graph loses its mesh; all devices run
// the same program, on their own blocks. Without a mesh, the graph as it is.
Graph partition(const Graph& g);

// Small all-reduces, reduce-scatters or all-gathers of a partitioned program over the same mesh
// dimension and dtype, none of which waits for another's result, become one collective of their
// blocks packed together (bucket_collectives.cpp). Without them (or on a mesh, or with --no-comm-buckets), the graph as
// it is.
Graph bucketCollectives(const Graph& g);
// The buckets bucketCollectives makes of a partitioned program: each the indices of its members
// among the program's collectives, in commPlanOf's order.
std::vector<std::vector<int>> collectiveBuckets(const Graph& local);

// The values numbered from %0 in the order they are defined, without the ones no node defines
// (the text form's numbering; the passes leave such holes).
Graph renumberValues(const Graph& g);

// Shared by the passes: how many times each value is used (node inputs, block results).
std::vector<int> useCounts(const Graph& g);
// Rewrites every use of a value through `renamed` (old id -> new id).
void renameUses(Block& b, const std::map<int, int>& renamed);
// Whether a node, or any node in its blocks, has an effect (variables, the random stream, print).
bool hasEffect(const Node& n);

}  // namespace weft::graph
