// A group of the fuse-elementwise pass (passes/fuse_elementwise.cpp), run by the executor as one
// loop over chunks of 256 elements, each node a call of the same kernel eager code uses
// (rt::unaryKernel, rt::binaryRow, rt::castKernel) on a chunk in a scratch buffer; blocks of chunks share out on
// the thread pool. Results used only inside the
// group never reach memory; the others are written as the loop goes. Every element goes through
// the same per-element function as in eager code, so the results are the same bits. Groups of
// floats only, with the bools of their comparisons and casts (a gradient's masks); a group
// whose operands do not have its size at run time (an open size that broadcasts) runs node by
// node.
#pragma once
#include <array>
#include <vector>

#include "graph.h"

namespace weft::graph {

class FusedLoop {
 public:
  // `uses`: per value, how many inputs and results name it (useCounts).
  FusedLoop(const Graph& g, std::vector<const Node*> members, const std::vector<int>& uses);
  const std::vector<const Node*>& members() const { return members_; }
  // Runs the group on `slots` (the executor's values); false when it cannot (then nothing ran).
  // An output whose `inPlace` entry is set is written into its slot's storage though another
  // tensor (the variable it is computed into) holds it.
  bool run(std::vector<Tensor>& slots, const std::vector<char>& inPlace);

 private:
  using Unary = void (*)(const void* x, void* out, int64_t n);
  using Binary = void (*)(const void* a, int64_t sa, const void* b, int64_t sb, void* out, int64_t n);
  struct Step {
    Unary unary = nullptr;
    Binary binary = nullptr;
    int inputs[2] = {-1, -1};
    int output = -1;
    int scratch = -1;  // its chunk's scratch row, or -1: written to its tensor
    int inputScratch[2] = {-1, -1};  // an input's scratch row when a step before makes it
    bool externalInput = false;      // its first input comes from outside the group
  };
  // Where a step reads and writes in this call: a scratch row (the same every chunk, in the
  // running thread's scratch), a single element (stride 0), or a tensor advanced by each chunk.
  struct Operand {
    char* at = nullptr;
    int64_t stride = 0;
    size_t esize = 0;  // bytes per element it advances by (0: a single element)
    int row = -1;
  };
  std::vector<const Node*> members_;
  std::vector<Step> steps_;
  std::vector<int> externals_;  // values read from outside the group
  std::vector<int> outputs_;    // values written to tensors
  std::vector<DType> outputDtypes_;
  DType dtype_ = DType::F32;
  bool valid_ = false;
  Tensor scratch_;
  std::vector<Tensor> spares_;  // per output: its buffer before the last (fused_loop.cpp)
  std::vector<std::array<Operand, 3>> operands_;  // per step: its inputs, then its output (kept between calls)
};

}  // namespace weft::graph
