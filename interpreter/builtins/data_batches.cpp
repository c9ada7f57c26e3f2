// batches(x, y, batch_size, shuffle=true, seed=0): the (xb, yb) pairs of a training loop, made
// lazily one batch at a time, the last one partial as in Keras' fit. x may be a list (or tuple) of
// tensors, the inputs of a model with several: each batch is then a list of their rows, the
// same rows of every input. Each pass over the same
// object shuffles anew (reproducibly, from seed and the pass number), as a tf.data pipeline with
// shuffle(reshuffle_each_iteration=True) does.
// With per_device=true (fit's batches) and an x sharded along its examples (distribute(x,
// Layout.batch_sharded(...))), each batch takes each device's next rows of its own block, with no
// communication, as DTensor's data-parallel input pipelines do: a batch of B examples is B/p rows
// from each of the p blocks (so its examples are not consecutive ones of x), and comes sharded
// the same way. The other tensors (y, more inputs) are split as x is when they are whole.
#include <cstring>
#include <map>
#include <numeric>
#include <random>

#include "../../grammar/diagnostics.h"
#include "../eval/interpreter.h"
#include "../eval/args.h"
#include "../spmd/ranks.h"
#include "../spmd/sharded_tensor.h"
#include "data.h"

namespace weft {
namespace {

struct BatchesObj : OpaqueObj {
  std::vector<Tensor> xs;  // one, or the several inputs
  bool xList = false;      // x was given as a list or tuple: each batch's x is a list too
  Tensor y;
  int64_t batchSize = 0;
  bool shuffle = true;
  int64_t seed = 0;
  int64_t passes = 0;  // iterations started so far
  // Per device (per_device=true, an x split along its examples): the mesh, the mesh dimensions
  // that split the examples (placements per rank), and how many blocks they make.
  struct Split {
    spmd::MeshAxes mesh;
    std::vector<bool> splitsExamples;  // per mesh dimension
    int64_t parts = 1;
    std::shared_ptr<OpaqueObj> meshObject;
    spmd::Placements placements(int rank) const {
      spmd::Placements ps;
      for (bool s : splitsExamples) ps.push_back(s && rank > 0 ? spmd::Placement::s(0) : spmd::Placement::r());
      return ps;
    }
  };
  std::optional<Split> split;

  int64_t count() const { return y.shape()[0]; }
  std::string typeName() const override { return "batches"; }
  std::string repr() const override {
    return "<batches of " + std::to_string(batchSize) + " from " + std::to_string(count()) + " examples" +
           (shuffle ? ", shuffled>" : ">");
  }
  std::optional<int64_t> length() const override { return (count() + batchSize - 1) / batchSize; }

  // Rows `order[from, from + n)` of t, as one tensor.
  static Tensor gather(const Tensor& t, const std::vector<int64_t>& order, int64_t from, int64_t n) {
    Shape shape = t.shape();
    shape[0] = n;
    if (t.isAbstract()) return Tensor::abstract(t.dtype(), shape);
    Tensor out = Tensor::empty(t.dtype(), shape);
    const int64_t rowBytes = t.shape()[0] ? t.bytes() / t.shape()[0] : 0;
    if (rowBytes == 0) return out;
    auto* dst = static_cast<char*>(out.raw());
    const auto* src = static_cast<const char*>(t.raw());
    if (order.empty()) {  // not shuffled: one contiguous piece
      std::memcpy(dst, src + from * rowBytes, size_t(n * rowBytes));
    } else {
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * rowBytes, src + order[size_t(from + i)] * rowBytes, size_t(rowBytes));
    }
    return out;
  }

  // Rows order[from, from + n) of each device's block of t, as one sharded tensor.
  static Tensor gatherBlocks(const Tensor& t, const std::vector<int64_t>& order, int64_t from, int64_t n) {
    const spmd::ShardedTensor& s = *spmd::shardsOf(t);
    std::map<const void*, Tensor> made;  // replicas share a block, and their batch
    std::vector<Tensor> locals;
    for (const Tensor& block : s.locals) {
      if (!spmd::ownsDevice(s.mesh, int64_t(locals.size()))) {  // another rank's
        locals.emplace_back();
        continue;
      }
      auto [it, fresh] = made.try_emplace(block.raw());
      if (fresh) it->second = gather(block, order, from, n);
      locals.push_back(it->second);
    }
    return spmd::fromLocals(s.mesh, s.placements, std::move(locals), s.meshObject);
  }

  std::function<bool(Value&)> iterator() override {
    auto order = std::make_shared<std::vector<int64_t>>();
    const int64_t rows = count() / (split ? split->parts : 1);  // in each block
    if (shuffle) {
      checkValueBytes(rt::sizeMul(rows, 8).value_or(INT64_MAX), "the order of batches()");
      order->resize(size_t(rows));
      std::iota(order->begin(), order->end(), int64_t(0));
      // Fisher-Yates with a generator of fixed definition, so that a seed gives the same batches
      // everywhere (std::shuffle's use of the generator is the library's choice).
      std::seed_seq seq{uint32_t(seed), uint32_t(uint64_t(seed) >> 32), uint32_t(passes), uint32_t(passes >> 32)};
      std::mt19937_64 rng(seq);
      for (int64_t i = rows - 1; i > 0; --i) {
        const uint64_t bound = uint64_t(i) + 1, limit = UINT64_MAX - UINT64_MAX % bound;
        uint64_t r;
        do r = rng(); while (r >= limit);
        std::swap((*order)[size_t(i)], (*order)[size_t(r % bound)]);
      }
    }
    ++passes;
    const int64_t size = batchSize / (split ? split->parts : 1);
    return [xs = xs, xList = xList, y = y, split = split.has_value(), order, size, n = rows, at = int64_t(0)](Value& v) mutable {
      if (at >= n) return false;
      const int64_t take = std::min(size, n - at);
      auto rowsOf = [&](const Tensor& t) { return split ? gatherBlocks(t, *order, at, take) : gather(t, *order, at, take); };
      std::vector<Value> xb;
      for (const Tensor& x : xs) xb.push_back(Value(rowsOf(x)));
      v = makeTuple({xList ? makeList(std::move(xb)) : xb[0], Value(rowsOf(y))});
      at += take;
      return true;
    };
  }
};

// per_device=true: when an x is split along its examples (and along nothing else), every tensor
// is split the same way, and the batch size must split as the examples do.
void splitByDevice(BatchesObj& b, const SourceRange& site) {
  const spmd::ShardedTensor* by = nullptr;
  for (const Tensor& x : b.xs)
    if (const spmd::ShardedTensor* s = spmd::shardsOf(x); s && !by) by = s;
  if (!by) return;
  BatchesObj::Split split{by->mesh, {}, 1, by->meshObject};
  for (size_t k = 0; k < by->placements.size(); ++k) {
    const spmd::Placement& p = by->placements[k];
    if (p.sharded() && p.dim != 0) return;  // split otherwise: batches of the global value
    split.splitsExamples.push_back(p.sharded());
    if (p.sharded()) split.parts *= by->mesh.sizes[k];
  }
  if (split.parts == 1) return;
  if (b.batchSize % split.parts != 0)
    throw WeftError(site, "batches(): batch_size " + std::to_string(b.batchSize) + " does not split into the " +
                              std::to_string(split.parts) + " blocks x's examples are split into on mesh(" +
                              spmd::meshText(split.mesh) + "): make it a multiple of " + std::to_string(split.parts));
  auto place = [&](Tensor& t, const std::string& what) {
    const spmd::Placements ps = split.placements(t.rank());
    if (spmd::shardedAs(t, split.mesh, ps)) return;
    if (std::optional<std::string> why = spmd::misfit(t.shape(), ps, split.mesh))
      throw WeftError(site, "batches(): " + what + " of shape " + t.shape().str() + " cannot be split as x is: " + *why);
    t = spmd::distribute(t, split.mesh, ps, split.meshObject);
  };
  for (size_t i = 0; i < b.xs.size(); ++i) place(b.xs[i], b.xList ? "x[" + std::to_string(i) + "]" : "x");
  place(b.y, "y");
  b.split = std::move(split);
}

}  // namespace

void registerBatches(Env& env) {
  env.set(intern("batches"), makeBuiltin("batches", [](Interpreter&, Args& a) {
            ArgReader r(a, "batches", {"x", "y", "batch_size", "shuffle?", "seed?", "per_device?"});
            auto obj = std::make_shared<BatchesObj>();
            obj->xList = r.get(0).is(Kind::List) || r.get(0).is(Kind::Tuple);
            if (obj->xList) {
              for (const Value& v : r.items(0)) obj->xs.push_back(tensorOf(v, "batches() argument 'x': each input"));
              if (obj->xs.empty()) r.fail(0, "must hold at least one tensor");
            } else {
              obj->xs.push_back(r.tensor(0));
            }
            obj->y = r.tensor(1);
            auto check = [](const Tensor& t, const std::string& what) {
              if (t.isSymbolic()) throw WeftError("batches(): " + what + " is a graph value: batches() runs outside graph functions");
              if (t.rank() == 0) throw WeftError("batches(): " + what + " must have a first dimension of examples, not be a scalar");
            };
            check(obj->y, "y");
            for (size_t i = 0; i < obj->xs.size(); ++i) {
              const Tensor& x = obj->xs[i];
              const std::string what = obj->xList ? "x[" + std::to_string(i) + "]" : "x";
              check(x, what);
              if (x.shape()[0] != obj->y.shape()[0])
                throw WeftError("batches(): x and y must hold the same number of examples, but " + what + " has " +
                                std::to_string(x.shape()[0]) + " (shape " + x.shape().str() + ") and y " +
                                std::to_string(obj->y.shape()[0]) + " (shape " + obj->y.shape().str() + ")");
            }
            obj->batchSize = r.integer(2);
            if (obj->batchSize <= 0) r.fail(2, "must be at least 1, got " + std::to_string(obj->batchSize));
            obj->shuffle = r.flag(3, true);
            obj->seed = r.integer(4, 0);
            if (r.flag(5, false)) splitByDevice(*obj, a.site);
            return Value(std::shared_ptr<Object>(std::move(obj)));
          }));
}

}  // namespace weft
