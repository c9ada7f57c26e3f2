#include "fused_loop.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "../../stdlib/runtime/binary.h"
#include "../../stdlib/runtime/gelu.h"
#include "../../stdlib/runtime/thread_pool.h"
#include "../../stdlib/runtime/unary.h"

namespace weft::graph {
namespace {

using ops::OpId;

constexpr int64_t kChunk = 256;

template <class F, class T>
void unaryStep(const void* x, void* out, int64_t n) {
  rt::unaryKernel<F>(static_cast<const T*>(x), static_cast<T*>(out), n);
}
template <class F, class T, class R>
void binaryStep(const void* a, int64_t sa, const void* b, int64_t sb, void* out, int64_t n) {
  rt::binaryRow<F>(static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, static_cast<R*>(out), n);
}
template <class S, class D>
void castStep(const void* x, void* out, int64_t n) {
  rt::castKernel(static_cast<const S*>(x), static_cast<D*>(out), n);
}

// The kernel of a step of a group of floats T whose operands have dtype `in` and result `out`:
// arithmetic of T (gelu's form its attribute's), a comparison of T into bool, a cast between T
// and bool; or false.
template <class T>
bool kernels(const Node& n, DType in, DType out, void (*&unary)(const void*, void*, int64_t),
             void (*&binary)(const void*, int64_t, const void*, int64_t, void*, int64_t)) {
  const DType t = rt::DTypeOf<T>::value;
  const OpId op = n.op;
  switch (op) {
#define WEFT_UNARY(F, Id, N, A, Fn, Rule) \
  case OpId::F##Id:                       \
    if (ops::UnaryRule::Rule == ops::UnaryRule::Logical || in != t || out != t) return false; \
    unary = unaryStep<rt::Fn, T>;         \
    return true;
    WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY)
#undef WEFT_UNARY
#define WEFT_BINARY(F, Id, N, A, Fn, Rule)                                                            \
  case OpId::F##Id:                                                                                   \
    if (ops::BinaryRule::Rule == ops::BinaryRule::Logical || in != t) return false;                   \
    if (ops::BinaryRule::Rule == ops::BinaryRule::Compare) {                                          \
      binary = binaryStep<rt::Fn, T, bool>;                                                           \
      return out == DType::Bool;                                                                      \
    }                                                                                                 \
    binary = binaryStep<rt::Fn, T, T>;                                                                \
    return out == t;
    WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY)
#undef WEFT_BINARY
    // Not a step of a fused loop: the other families' lists give every op a case, no default.
    WEFT_FOR_EACH_REDUCE_OP(WEFT_OP_CASE)
    WEFT_FOR_EACH_OTHER_OP(WEFT_OP_CASE)
    WEFT_FOR_EACH_GRAPH_ONLY_OP(WEFT_OP_CASE)
      if (op == OpId::Gelu) {
        unary = n.attrs.b("approximate") ? unaryStep<rt::GeluTanh, T> : unaryStep<rt::Gelu, T>;
        return in == t && out == t;
      }
      if (op != OpId::Cast) break;
      if (in == DType::Bool && out == t) unary = castStep<bool, T>;
      else if (in == t && out == DType::Bool) unary = castStep<T, bool>;
      else return false;
      return true;
  }
  return false;
}

}  // namespace

FusedLoop::FusedLoop(const Graph& g, std::vector<const Node*> members, const std::vector<int>& uses)
    : members_(std::move(members)) {
  // The group's float dtype: the first its values have (the others are bool, or it is not run).
  dtype_ = DType::Bool;
  for (const Node* n : members_)
    for (const auto* values : {&n->inputs, &n->outputs})
      for (int v : *values)
        if (dtype_ == DType::Bool) dtype_ = g.values[size_t(v)].dtype;
  if (dtype_ != DType::F32 && dtype_ != DType::F64) return;
  // Linear in the group's size (a chain of 300,000 adds is one group): hashed lookups, and a
  // scratch row is reused once the value in it has had its last use inside the group.
  std::unordered_map<int, int> scratchOf;  // the values made inside the group: their scratch row, or -1
  std::unordered_map<int, int> usesInside;
  std::unordered_set<int> external;
  for (const Node* n : members_)
    for (int i : n->inputs) ++usesInside[i];
  std::vector<int> freeRows;
  int rows = 0;
  for (const Node* n : members_) {
    Step s;
    const DType in = g.values[size_t(n->inputs[0])].dtype;
    bool ok = n->outputs.size() == 1;
    if (ok) {
      const DType out = g.values[size_t(n->outputs[0])].dtype;
      ok = dtype_ == DType::F32 ? kernels<float>(*n, in, out, s.unary, s.binary)
                                : kernels<double>(*n, in, out, s.unary, s.binary);
    }
    for (size_t k = 0; ok && k < n->inputs.size(); ++k) {
      const int i = n->inputs[k];
      ok = g.values[size_t(i)].dtype == in;
      s.inputs[k] = i;
      const auto made = scratchOf.find(i);
      if (made != scratchOf.end()) s.inputScratch[k] = made->second;
      else if (external.insert(i).second) externals_.push_back(i);
      if (k == 0) s.externalInput = made == scratchOf.end();
    }
    if (!ok) return;
    s.output = n->outputs[0];
    if (n == members_.back() || uses[size_t(s.output)] > usesInside[s.output]) {
      outputs_.push_back(s.output);
      outputDtypes_.push_back(g.values[size_t(s.output)].dtype);
    } else if (!freeRows.empty()) {
      s.scratch = freeRows.back();
      freeRows.pop_back();
    } else {
      s.scratch = rows++;
    }
    // The output's row is taken before the inputs' rows are let go: a step never writes a row it reads.
    for (size_t k = 0; k < n->inputs.size(); ++k)
      if (s.inputScratch[k] >= 0 && --usesInside[n->inputs[k]] == 0) freeRows.push_back(s.inputScratch[k]);
    scratchOf[s.output] = s.scratch;
    steps_.push_back(s);
  }
  scratch_ = Tensor::empty(dtype_, Shape{std::max(1, rows) * kChunk});
  spares_.resize(outputs_.size());
  operands_.resize(steps_.size());
  valid_ = true;
}

bool FusedLoop::run(std::vector<Tensor>& slots, const std::vector<char>& inPlace) {
  if (!valid_) return false;
  // The group's size: its operands broadcast; each is of that shape or a single element.
  Shape shape;
  bool first = true;
  for (int e : externals_) {
    const Tensor& t = slots[size_t(e)];
    if (t.numel() == 1 && t.rank() == 0) continue;
    if (first) shape = t.shape(), first = false;
    else if (t.shape() != shape) return false;
  }
  for (int e : externals_) {
    const Tensor& t = slots[size_t(e)];
    if (t.shape() != shape && !(t.numel() == 1 && t.rank() <= shape.rank())) return false;
  }
  const int64_t total = shape.numel();
  for (const Step& s : steps_)  // a unary step of a single element would not fill the chunk
    if (s.unary && total != 1 && s.externalInput && slots[size_t(s.inputs[0])].numel() == 1) return false;
  for (size_t k = 0; k < outputs_.size(); ++k) {
    Tensor& t = slots[size_t(outputs_[k])];
    const DType dtype = outputDtypes_[k];
    if ((t.ownsStorage() || inPlace[size_t(outputs_[k])]) && t.shape() == shape && t.dtype() == dtype) continue;
    // Its last buffer is held elsewhere (a variable it was assigned to): take the one before it,
    // which that assignment let go, and keep this one for the next call — two buffers in turn
    // rather than an allocation per call.
    Tensor& spare = spares_[k];
    if (spare.ownsStorage() && spare.shape() == shape && spare.dtype() == dtype) {
      std::swap(t, spare);
    } else {
      spare = t;
      t = Tensor::empty(dtype, shape);
    }
  }
  // A scratch row holds a chunk of the float dtype, so also one of bools.
  const size_t rowBytes = size_t(kChunk) * rt::dtypeSize(dtype_);
  auto operand = [&](int v, int row) -> Operand {
    if (row >= 0) return {nullptr, 1, 0, row};
    char* p = static_cast<char*>(slots[size_t(v)].raw());
    if (slots[size_t(v)].numel() == 1 && total != 1) return {p, 0, 0, -1};
    return {p, 1, rt::dtypeSize(slots[size_t(v)].dtype()), -1};
  };
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    operands_[k] = {operand(s.inputs[0], s.inputScratch[0]),
                    s.inputs[1] >= 0 ? operand(s.inputs[1], s.inputScratch[1]) : Operand{},
                    operand(s.output, s.scratch)};
  }
  // Blocks of chunks on the thread pool, each thread with scratch rows of its own (the same
  // chunks at any thread count: every element's result depends on that element alone).
  const size_t scratchBytes = size_t(scratch_.numel()) * rt::dtypeSize(dtype_);
  rt::ThreadPool* pool = rt::currentPool();
  rt::parallelFor(rt::chunkCount(total, rt::kElementwiseBlock), [&](int64_t block, int worker) {
    char* rows = worker == 0 ? static_cast<char*>(scratch_.raw()) : pool->scratch(worker).data();
    auto at = [&](const Operand& o, int64_t i0) { return o.row >= 0 ? rows + size_t(o.row) * rowBytes : o.at + size_t(i0) * o.esize; };
    const int64_t end = std::min(total, (block + 1) * rt::kElementwiseBlock);
    for (int64_t i0 = block * rt::kElementwiseBlock; i0 < end; i0 += kChunk) {
      const int64_t m = std::min(kChunk, end - i0);
      for (size_t k = 0; k < steps_.size(); ++k) {
        const auto& [a, b, o] = operands_[k];
        if (steps_[k].unary) steps_[k].unary(at(a, i0), at(o, i0), m);
        else steps_[k].binary(at(a, i0), a.stride, at(b, i0), b.stride, at(o, i0), m);
      }
    }
  }, scratchBytes);
  return true;
}

}  // namespace weft::graph
