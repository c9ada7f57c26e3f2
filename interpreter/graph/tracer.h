// The tracer: while a graph function's body runs on symbolic tensors, every op applied to one
// (ops::apply), every variable read and write and every print becomes a node of the graph being
// built. It is the interpreter's own evaluation, so eager and graph code share one semantics.
#pragma once
#include <map>
#include <memory>

#include "../values/objects.h"
#include "graph.h"

namespace weft::graph {

class Tracer : public ops::TraceHook, public VariableAccess {
 public:
  explicit Tracer(std::string name);
  ~Tracer() override;  // uninstalls itself
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The innermost active tracer, or null.
  static Tracer* active();
  // While one lives, code runs eagerly even inside a trace (a layer's build() making weights).
  class Pause {
   public:
    Pause();
    ~Pause();

   private:
    Tracer* tracer_;
    ops::TraceHook* hook_;
    VariableAccess* access_;
    uint32_t epoch_;
  };

  Tensor addInput(const TensorType& t);
  // The graph value of t: its id when symbolic, else a constant node (one per storage).
  int valueOf(const Tensor& t);
  Tensor symbolicOf(int id) const;
  // Appends a node to the current block; returns its outputs as symbolic tensors.
  std::vector<Tensor> emit(ops::OpId op, std::vector<int> inputs, ops::Attrs attrs,
                           const std::vector<TensorType>& outputs, std::vector<Block> blocks = {});
  void print(const std::string& format, const std::vector<Tensor>& args);
  // A check node: when the graph runs and `cond` (a bool scalar) is false, the call fails with
  // `message` at `at` (executor.h, checkFailure).
  void check(const Tensor& cond, const std::string& message, const SourceRange& at);
  // error() in a nested block: a check that always fails, which marks the block failing.
  void fail(const std::string& message, const SourceRange& at);
  // Whether the current block always fails when it runs (error() at its top level), and marks it so.
  bool failing() const { return failing_.back(); }
  void markFailing() { failing_.back() = 1; }

  // Nested blocks (cond branches, loop bodies): begin returns the params as symbolic tensors.
  std::vector<Tensor> beginBlock(const std::vector<TensorType>& params);
  Block endBlock(const std::vector<Tensor>& results);
  // Appends a traced block's nodes to the current block: a branch that runs whenever the call goes
  // on (its sibling always fails). The block has no params.
  void inlineBlock(Block&& b);
  int depth() const { return int(blocks_.size()); }

  // ops::TraceHook
  std::vector<Tensor> record(ops::OpId op, std::span<const Tensor> in, const ops::Attrs& attrs,
                             std::vector<Tensor> inferred) override;
  // VariableAccess
  Tensor read(VariableObj& v) override;
  void write(VariableObj& v, const Tensor& value) override;

  Graph finish(const std::vector<Tensor>& results);
  // The variables behind the graph's slots, in slot order.
  const std::vector<std::shared_ptr<VariableObj>>& variables() const { return vars_; }
  Loc loc;  // where the statement being traced is
  std::string scope;  // the module and name scope path of the code being traced (Node::scope)

 private:
  int slotOf(VariableObj& v);
  Graph graph_;
  std::vector<Block*> blocks_;  // blocks_[0] is graph_.body
  std::vector<char> failing_{0};  // per block of blocks_: whether it always fails
  std::vector<std::unique_ptr<Block>> open_;
  std::map<const void*, int> constants_;
  std::vector<Tensor> keep_;  // the constants' tensors, kept alive while their storage is a key
  std::vector<std::shared_ptr<VariableObj>> vars_;
  Tracer* outer_;
  uint32_t epoch_;  // this trace's number: its symbolic tensors carry it
  uint32_t outerEpoch_;
  ops::TraceHook* outerHook_;
  VariableAccess* outerAccess_;
};

TensorType typeOf(const Tensor& t);

}  // namespace weft::graph
