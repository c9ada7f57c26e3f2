// conv2d, max_pool2d, avg_pool2d (Keras' argument conventions), scaled_dot_product_attention
// (PyTorch's), gelu, layer_norm and load_npy / save_npy.
// Paths are relative to the working directory, as in NumPy.
#include "../eval/interpreter.h"
#include "../ops/ops.h"
#include "../values/context.h"
#include "../saved/npy.h"
#include "../spmd/ranks.h"
#include "../values/format.h"
#include "../eval/args.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

// An int n means (n, n); a list or tuple gives (height, width). Positivity is the op's check.
std::array<int64_t, 2> pairArg(const ArgReader& r, int i, std::array<int64_t, 2> dflt) {
  if (!r.has(i)) return dflt;
  std::vector<int64_t> v = r.ints(i);
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() != 2) r.fail(i, "must be an integer or a pair of integers (height, width)");
  return {v[0], v[1]};
}

std::string paddingArg(const ArgReader& r, int i) { return r.has(i) ? r.str(i) : "valid"; }

NativeFn pooling(const char* name, bool isMax) {
  return [name, isMax](Interpreter&, Args& a) {
    ArgReader r(a, name, {"x", "pool_size?", "strides?", "padding?"});
    auto pool = pairArg(r, 1, {2, 2});
    return Value(ops::pool2d(isMax, r.tensor(0), pool, pairArg(r, 2, pool), paddingArg(r, 3)));
  };
}

}  // namespace

void registerNnOps(Env& env) {
  def(env, "conv2d", [](Interpreter&, Args& a) {
    ArgReader r(a, "conv2d", {"x", "kernel", "strides?", "padding?", "dilation?"});
    return Value(ops::conv2d(r.tensor(0), r.tensor(1), pairArg(r, 2, {1, 1}), paddingArg(r, 3),
                             pairArg(r, 4, {1, 1})));
  });
  def(env, "max_pool2d", pooling("max_pool2d", true));
  def(env, "avg_pool2d", pooling("avg_pool2d", false));
  def(env, "scaled_dot_product_attention", [](Interpreter&, Args& a) {
    ArgReader r(a, "scaled_dot_product_attention", {"q", "k", "v", "mask?", "causal?", "scale?"});
    Tensor mask = r.has(3) ? r.tensor(3) : Tensor();
    std::optional<double> scale;
    if (r.has(5)) scale = r.number(5);
    return Value(ops::scaledDotProductAttention(r.tensor(0), r.tensor(1), r.tensor(2), r.has(3) ? &mask : nullptr,
                                                r.boolean(4), scale));
  });
  def(env, "gelu", [](Interpreter&, Args& a) {
    ArgReader r(a, "gelu", {"x", "approximate?"});
    // PyTorch's approximate="tanh" is a string: refused.
    return Value(ops::gelu(r.tensor(0), r.boolean(1, false, "the tanh form")));
  });
  def(env, "layer_norm", [](Interpreter&, Args& a) {
    ArgReader r(a, "layer_norm", {"x", "gamma", "beta", "epsilon?"});
    return Value(ops::layerNorm(r.tensor(0), r.tensor(1), r.tensor(2), r.has(3) ? r.number(3) : 0.001));
  });
  def(env, "load_npy", [](Interpreter&, Args& a) {
    ArgReader r(a, "load_npy", {"path"});
    return Value(saved::readNpy(r.str(0)));
  });
  def(env, "save_npy", [](Interpreter&, Args& a) {
    ArgReader r(a, "save_npy", {"path", "x"});
    // Under mpirun every rank puts the value together (an all-gather, spmd/ranks.h); rank 0 writes.
    const Tensor x = r.tensor(1);
    if (!x.isAbstract()) (void)x.raw();
    if (writesFiles() && spmd::rankIndex() == 0) {
      saved::makeParentFolders(r.str(0));
      saved::writeNpy(r.str(0), x);
    }
    if (!ops::shapesOnly()) spmd::waitForRanks();
    return Value();
  });
}

}  // namespace weft
