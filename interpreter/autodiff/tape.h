// A gradient tape (TensorFlow's GradientTape): while it records, every op applied (the one funnel
// ops::apply) and every read of a watched variable is written down; gradients() then walks the
// record backwards calling each op's VJP rule (the op table's `vjp` column). The rules call ops,
// so under a graph trace the backward ops are traced into the same graph as the forward ones.
// Tapes nest: an op is recorded by every tape that sees it, so an outer tape records an inner
// one's backward pass too and differentiates it (a gradient of a gradient).
#pragma once
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "../graph/graph.h"
#include "../values/objects.h"

namespace weft::autodiff {

class Tape : public ops::TapeHook, public VariableReadHook {
 public:
  // Records until gradients() or destruction; reads of `vars` are the leaves.
  explicit Tape(std::vector<std::shared_ptr<VariableObj>> vars);
  ~Tape() override;
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // The innermost recording tape, or null.
  static Tape* active();

  // A leaf that is a tensor (grad(f)'s argument): t under a new tape id.
  Tensor watch(const Tensor& t);
  // Whether t depends on a leaf.
  bool live(const Tensor& t) const { return t.tapeId() && live_.count(t.tapeId()); }
  // Stops recording; the gradient of the scalar `value` for each variable (then each watched
  // tensor, in order), none where no gradient reaches it.
  std::vector<std::optional<Tensor>> gradients(const Tensor& value);
  // Whether variable i was read while recording.
  bool wasRead(size_t i) const { return read_[i]; }
  // TensorFlow's GradientTape: from now on every trainable float variable read while recording
  // becomes a leaf too, appended to the variables (no tensor may be watched besides).
  void watchAccessedVariables() { watchAccessed_ = true; }
  // The index of v among the variables, or variableCount() when it is not a leaf.
  size_t variableIndex(const VariableObj& v) const { return indexOf(v); }
  size_t variableCount() const { return vars_.size(); }
  // Stops recording (a GradientTape's `with` block ended); gradients() may follow.
  void stopRecording() { stop(); }

  // Control flow traced in a graph function (eval/graph_control.cpp). A cond's branches are
  // recorded as regions and replayed inside the backward cond node. A while loop's condition and
  // body are regions too, on the block params tagged by loopParams; its last loop value counts
  // the iterations (0, 1, ...), which the backward while loop runs down (docs/training.md). An
  // inner tape's backward cond or while would bypass the outer tapes: regions are refused there.
  void beginRegion();
  struct Region;
  std::shared_ptr<Region> endRegion();
  void cond(const Tensor& pred, std::shared_ptr<Region> branches[2], const std::vector<Tensor> results[2],
            std::vector<Tensor>& outs);
  // A branch's region that runs unconditionally after all (its sibling always fails): its
  // entries join the enclosing region's.
  void inlineRegion(Region& r);
  // Tags a loop block's params; the float ones may carry a gradient.
  void loopParams(std::vector<Tensor>& params);
  void whileLoop(const std::vector<Tensor>& init, std::shared_ptr<Region> regions[2],
                 const std::vector<Tensor> params[2], const Tensor& pred, const std::vector<Tensor>& next,
                 std::vector<Tensor>& outs);

  // ops::TapeHook, VariableReadHook
  void recorded(ops::OpId op, std::span<const Tensor> in, const ops::Attrs& attrs, std::vector<Tensor>& out) override;
  void onRead(VariableObj& v, Tensor& value) override;

  struct Entry;

 private:
  void stop();
  int64_t tag(Tensor& t, bool isLive);
  bool inBranch() const;
  bool anyLive(std::span<const Tensor> in) const;
  // Whether an op on `in` goes on this tape: an input depends on a leaf, or a branch records all.
  bool records(std::span<const Tensor> in) const;
  void push(Entry e);
  size_t indexOf(const VariableObj& v) const;  // in vars_, or vars_.size()
  bool watchesOnRead(const VariableObj& v) const;
  std::vector<std::shared_ptr<VariableObj>> vars_;
  std::vector<bool> read_;
  std::vector<int64_t> watched_;  // tape ids of watched tensors
  std::unordered_map<int64_t, size_t> leafOf_;  // tape id -> source index
  std::unordered_set<int64_t> live_;
  std::shared_ptr<Region> root_;
  std::vector<std::shared_ptr<Region>> regions_;  // regions_[0] is root_
  bool recording_ = true;
  bool watchAccessed_ = false;
  ops::TapeHook* outerTape_;
  VariableReadHook* outerRead_;
  Tape* outer_;
};

}  // namespace weft::autodiff
