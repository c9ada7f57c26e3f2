// What an export's emission shares with the op families' emit rules: each value's sizes (the op
// table's inference over symbolic sizes, ops::SymbolicSizes, printed as C++ expressions of the
// inputs' sizes), its pointer and its place in the memory plan, the run-time
// checks and workspaces, and the code written so far. function_body.cpp is the driver; each
// family's rules live in their own file (elementwise.cpp, reduce.cpp, matmul.cpp, conv.cpp,
// shape.cpp, indexing.cpp, creation.cpp, state.cpp, control.cpp) and reach it through the op
// table's emit column (emit_rule.h).
#pragma once
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../unit.h"
#include "function_emitter.h"
#include "interpreter/graph/variable_plan.h"
#include "interpreter/ops/symbolic_sizes.h"
#include "memory_plan.h"
#include "op_emit.h"

namespace weft::codegen {

using Dims = std::vector<std::string>;  // a value's sizes: literals, names or expressions

class Emitter {
 public:
  Emitter(const CompileUnit& unit, const ExportGraph& e);
  FunctionCode run();

  // --- what rules read ---
  const graph::TensorType& type(int v) const { return g_.values[size_t(v)]; }
  std::string T(int v) const { return cppType(type(v).dtype); }  // the element type
  std::string ptr(int v) const { return "v" + std::to_string(v); }
  const Dims& dims(int v) const { return dims_[size_t(v)]; }
  std::string numel(int v) const;
  std::string bytes(int v) const;
  std::string shape(int v) const;  // "Shape{...}" of its sizes
  // "mlp.model:12": a node's line, as comments and run-time errors name it.
  std::string where(const graph::Node& n) const;
  [[noreturn]] void unsupported(const graph::Node& n, const std::string& why) const;
  // `return fail("mlp.model:12: " + std::string(MESSAGE));` for a C++ expression MESSAGE.
  std::string fail(const graph::Node& n, const std::string& message) const;

  // --- sizes ---
  // v's sizes, symbolic (a dimension the graph knows is that constant); dims(v) prints them.
  void setSizes(int v, const std::vector<ops::Dim>& d);
  const std::vector<ops::Dim>& sizesOf(int v) const { return sizes_[size_t(v)]; }
  void same(int v, int from) { setSizes(v, sizesOf(from)); }
  void known(const graph::Node& n, int v);  // sizes the graph knows, all of them
  // Each node's result sizes: its rule's sizes step, or (every op with inference) the op
  // table's inference on symbolic sizes, whose requirements become the node's checks.
  void sizes(const graph::Block& b);
  // The C++ expression of a size: a literal or a name, else a variable declared before the code
  // (once per expression).
  std::string print(const ops::Dim& d);
  // The table the sizes are symbols of: a shape as inference takes it, and its results back.
  ops::SymbolicSizes& symbols() { return symbols_; }
  Shape encoded(int v) { return symbols_.encode(sizesOf(v)); }

  // --- memory ---
  void own(int v);           // v needs arena bytes of its own
  void alias(int v, int of); // v is `of`'s bytes
  // Every result owns its bytes, or is computed into the variable it is assigned to, or (an
  // `inPlace` op) takes the bytes of a same-sized input that dies there.
  void ownResults(const graph::Node& n);
  void point(int v, const std::string& expr);  // v's pointer is `expr` (a constant, the state)
  // v's bytes are allocated when its node runs, since its first size (`rows`, a variable the
  // node's code sets) is an input's value (broadcast_rows): `v<v>_heap`, a buffer of the call.
  // Values aliasing it follow its pointer.
  void heap(int v, const std::string& rows);
  bool onHeap(int v) const { return heap_.count(rootOf(v)) > 0; }
  int rootOf(int v) const;  // what v aliases, in the end
  int uses(int v) const { return uses_[size_t(v)]; }  // how many inputs and results name v
  bool loopValue(int v) const { return loopParams_.count(v) > 0; }  // a while body's parameter
  void workspace(const std::string& bytesExpr) { workspaces_.push_back(bytesExpr); }
  // Defines `name` at namespace scope holding t's elements; returns a pointer expression to it.
  std::string constant(const Tensor& t, const std::string& name);
  bool owns(int v) const { return in_.owned[size_t(v)]; }
  bool aliased(int v) const { return in_.aliasOf[size_t(v)] >= 0; }
  // A variable node's state member ("st.dense_kernel").
  std::string variable(const graph::Node& n) const;
  bool copiedRead(const graph::Node& n) const { return vars_.copiedReads.count(&n) > 0; }

  // --- code ---
  std::ostream& code() { return code_; }
  void nodes(const graph::Block& b, const std::string& pad);  // a block's nodes, at this indent
  void need(const std::string& header) { headers_.insert(header); }

 private:
  void inferSizes(const graph::Node& n);
  // A condition the node's inputs must meet when the call runs, and the message when they do not.
  void check(const graph::Node& n, const std::string& cond, const std::string& message);
  void markNode(const graph::Node& n);
  void layout();
  void fuseGroup(const std::vector<const graph::Node*>& group);
  void node(const graph::Node& n, const std::string& pad);

  const CompileUnit& unit_;
  const ExportGraph& e_;
  const graph::Graph& g_;
  ops::SymbolicSizes symbols_;  // active on this thread while the emitter lives
  std::vector<std::vector<ops::Dim>> sizes_;
  std::vector<Dims> dims_;  // sizes_ printed
  std::vector<std::string> ptr_;
  std::vector<bool> constPtr_, declared_;
  PlanInput in_;
  graph::VariablePlan vars_;
  std::vector<int> uses_;  // per value: how many inputs and results name it
  std::set<int> heap_, loopParams_;
  std::map<const graph::Node*, std::vector<std::pair<std::string, std::string>>> checks_;
  std::vector<std::string> workspaces_;
  std::map<int64_t, std::vector<const graph::Node*>> groups_;     // fuse-elementwise groups
  std::map<const graph::Node*, std::vector<const graph::Node*>> fused_;  // by last node: one loop
  std::set<const graph::Node*> skip_;                             // the other nodes of those groups
  std::ostringstream pro_, layout_, code_, constants_;
  std::set<std::string> headers_;
  std::map<std::string, std::string> declaredSizes_;  // a size expression -> its variable
};

// A fuse-elementwise group as one loop over chunks of its elements (elementwise.cpp): `chunked`
// values live only in the loop's chunk buffers; `checks` are (condition, failing statement).
void fusedLoop(Emitter& e, const std::vector<const graph::Node*>& group, const std::set<int>& chunked,
               const std::vector<std::pair<std::string, std::string>>& checks, const std::string& pad);

// --- text shared by the rules ---
bool isLiteral(const std::string& d);
std::string product(const Dims& dims);    // "(v0_d0 * 784)", "0", "12"
std::string shapeList(const Dims& dims);  // "Shape{v0_d0, 784}"
Dims slice(const Dims& d, size_t from, size_t to);
const char* functorOf(ops::OpId op);      // the runtime functor of an elementwise or reduce op
const char* unaryFunctorOf(const graph::Node& n);  // a unary node's: functorOf, or gelu's form
ops::BinaryRule binaryRule(ops::OpId op);
std::string literal(const Tensor& t, int64_t i);  // a C++ literal of element i
int64_t axisAttr(const graph::Node& n, const char* key, int rank);  // a non-negative axis

}  // namespace weft::codegen
