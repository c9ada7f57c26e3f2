// batches(x, y, batch_size, shuffle=true, seed=0): the (xb, yb) pairs of a training loop, made
// lazily one batch at a time, the last one partial as in Keras' fit. x may be a list (or tuple) of
// tensors, the inputs of a model with several: each batch is then a list of their rows, the
// same rows of every input. Each pass over the same
// object shuffles anew (reproducibly, from seed and the pass number), as a tf.data pipeline with
// shuffle(reshuffle_each_iteration=True) does.
#include <cstring>
#include <numeric>
#include <random>

#include "../../grammar/diagnostics.h"
#include "../eval/interpreter.h"
#include "../eval/args.h"
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

  std::function<bool(Value&)> iterator() override {
    auto order = std::make_shared<std::vector<int64_t>>();
    if (shuffle) {
      checkValueBytes(rt::sizeMul(count(), 8).value_or(INT64_MAX), "the order of batches()");
      order->resize(size_t(count()));
      std::iota(order->begin(), order->end(), int64_t(0));
      // Fisher-Yates with a generator of fixed definition, so that a seed gives the same batches
      // everywhere (std::shuffle's use of the generator is the library's choice).
      std::seed_seq seq{uint32_t(seed), uint32_t(uint64_t(seed) >> 32), uint32_t(passes), uint32_t(passes >> 32)};
      std::mt19937_64 rng(seq);
      for (int64_t i = count() - 1; i > 0; --i) {
        const uint64_t bound = uint64_t(i) + 1, limit = UINT64_MAX - UINT64_MAX % bound;
        uint64_t r;
        do r = rng(); while (r >= limit);
        std::swap((*order)[size_t(i)], (*order)[size_t(r % bound)]);
      }
    }
    ++passes;
    return [xs = xs, xList = xList, y = y, order, size = batchSize, n = count(), at = int64_t(0)](Value& v) mutable {
      if (at >= n) return false;
      const int64_t take = std::min(size, n - at);
      std::vector<Value> xb;
      for (const Tensor& x : xs) xb.push_back(Value(gather(x, *order, at, take)));
      v = makeTuple({xList ? makeList(std::move(xb)) : xb[0], Value(gather(y, *order, at, take))});
      at += take;
      return true;
    };
  }
};

}  // namespace

void registerBatches(Env& env) {
  env.set(intern("batches"), makeBuiltin("batches", [](Interpreter&, Args& a) {
            ArgReader r(a, "batches", {"x", "y", "batch_size", "shuffle?", "seed?"});
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
            return Value(std::shared_ptr<Object>(std::move(obj)));
          }));
}

}  // namespace weft
