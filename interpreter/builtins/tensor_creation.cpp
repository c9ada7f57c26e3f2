// zeros, ones, full, eye, arange, linspace, tensor, seed and the `random` namespace.
#include <cmath>

#include "../eval/interpreter.h"
#include "../ops/ops.h"
#include "../eval/args.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

// An op-level `seed=n` (TensorFlow's, Keras'): the op draws from the stream of seed n, so the same
// seed gives the same numbers wherever the call is (eager, graph or compiled), and the global
// stream is left as it was.
std::optional<int64_t> seedArg(const ArgReader& r, int i) {
  return r.has(i) ? std::optional<int64_t>(r.integer(i)) : std::nullopt;
}

NativeFn filled(const char* name, double value) {
  return [name, value](Interpreter&, Args& a) {
    ArgReader r(a, name, {"shape", "dtype?"});
    return Value(ops::full(r.shape(0), value, r.dtype(1, DType::F32)));
  };
}

NativeFn filledLike(const char* name, double value) {
  return [name, value](Interpreter&, Args& a) {
    ArgReader r(a, name, {"x", "dtype?"});
    const Tensor& x = r.tensor(0);
    return Value(ops::full(x.shape(), value, r.dtype(1, x.dtype())));
  };
}

}  // namespace

void registerTensorCreation(Env& env) {
  def(env, "zeros", filled("zeros", 0));
  def(env, "ones", filled("ones", 1));
  def(env, "zeros_like", filledLike("zeros_like", 0));
  def(env, "ones_like", filledLike("ones_like", 1));
  def(env, "full", [](Interpreter&, Args& a) {
    ArgReader r(a, "full", {"shape", "value", "dtype?"});
    return Value(ops::full(r.shape(0), r.number(1), r.dtype(2, r.tensor(1).dtype())));
  });
  def(env, "eye", [](Interpreter&, Args& a) {
    ArgReader r(a, "eye", {"n", "m?", "dtype?"});
    int64_t n = r.integer(0);
    if (n < 0) r.fail(0, "must not be negative");
    return Value(ops::eye(n, r.integer(1, n), r.dtype(2, DType::F32)));
  });
  def(env, "arange", [](Interpreter&, Args& a) {
    ArgReader r(a, "arange", {"start", "stop?", "step?", "dtype?"});
    double start = 0, stop, step = r.number(2, 1);
    if (r.has(1)) start = r.number(0), stop = r.number(1);
    else stop = r.number(0);
    // As NumPy: integers in, i32 out; any float in, f32 out.
    bool anyFloat = rt::isFloat(r.tensor(0).dtype()) || (r.has(1) && rt::isFloat(r.tensor(1).dtype())) ||
                    (r.has(2) && rt::isFloat(r.tensor(2).dtype()));
    if (step == 0) r.fail(2, "cannot be zero");
    return Value(ops::arange(start, stop, step, r.dtype(3, anyFloat ? DType::F32 : DType::I32)));
  });
  def(env, "linspace", [](Interpreter&, Args& a) {
    ArgReader r(a, "linspace", {"start", "stop", "num", "dtype?"});
    int64_t num = r.integer(2);
    if (num < 0) r.fail(2, "must not be negative");
    return Value(ops::linspace(r.number(0), r.number(1), num, r.dtype(3, DType::F32)));
  });
  NativeFn tensor = [](Interpreter&, Args& a) {
    ArgReader r(a, "tensor", {"data", "dtype?"});
    std::optional<DType> dt;
    if (r.has(1)) dt = r.dtype(1, DType::F32);
    return Value(tensorFromValue(r.get(0), dt, "tensor()"));
  };
  def(env, "tensor", tensor);
  def(env, "constant", tensor);
  def(env, "seed", [](Interpreter&, Args& a) {
    ArgReader r(a, "seed", {"n"});
    ops::seed(uint64_t(r.integer(0)));
    return Value();
  });

  auto random = std::make_shared<Env>();
  def(*random, "normal", [](Interpreter&, Args& a) {
    ArgReader r(a, "random.normal", {"shape", "mean?", "stddev?", "dtype?", "seed?"});
    double sd = r.number(2, 1);
    if (sd < 0) r.fail(2, "must not be negative");
    return Value(ops::randomNormal(r.shape(0), r.number(1, 0), sd, r.dtype(3, DType::F32), seedArg(r, 4)));
  });
  // Keras' truncated normal: values past two standard deviations are drawn again.
  def(*random, "truncated_normal", [](Interpreter&, Args& a) {
    ArgReader r(a, "random.truncated_normal", {"shape", "mean?", "stddev?", "dtype?", "seed?"});
    double sd = r.number(2, 1);
    if (sd < 0) r.fail(2, "must not be negative");
    DType dt = r.dtype(3, DType::F32);
    if (!rt::isFloat(dt)) r.fail(3, "must be a float dtype");
    return Value(ops::randomTruncatedNormal(r.shape(0), r.number(1, 0), sd, dt, seedArg(r, 4)));
  });
  def(*random, "uniform", [](Interpreter&, Args& a) {
    ArgReader r(a, "random.uniform", {"shape", "minval?", "maxval?", "dtype?", "seed?"});
    return Value(ops::randomUniform(r.shape(0), r.number(1, 0), r.number(2, 1), r.dtype(3, DType::F32), seedArg(r, 4)));
  });
  // tf.random.categorical, a composite in Weft (stdlib/attention.model) over random.uniform, so
  // that it traces and compiles as that op does; a copy named for the builtin names it in errors.
  def(*random, "categorical", [](Interpreter& in, Args& a) {
    Value f = in.preludeValue("_random_categorical", a.site);
    if (!f.is(Kind::Function)) throw WeftError(a.site, "internal error: _random_categorical is missing from the prelude");
    auto named = std::make_shared<FunctionObj>(*f.as<FunctionObj>());
    named->name = "random.categorical";
    return in.call(Value(std::move(named)), a);
  });
  env.set(intern("random"), Value(std::make_shared<NamespaceObj>("random", random)));
}

}  // namespace weft
