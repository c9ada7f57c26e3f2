// Elementwise functions, matmul, reductions, where, clip, cast, one_hot.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "../eval/interpreter.h"
#include "../eval/operators.h"
#include "../ops/ops.h"
#include "../eval/args.h"
#include "../values/format.h"
#include "../values/literal.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

// Two tensor arguments under the literal dtype rule of the binary operators.
std::pair<Tensor, Tensor> unified(const ArgReader& r, int i, int j) {
  Value a = r.tensorValue(i), b = r.tensorValue(j);
  if (a.tensor().dtype() != b.tensor().dtype()) unifyDTypes(a, b, (r.name() + "()").c_str());
  return {a.tensor(), b.tensor()};
}

// Python's builtins over Python values: the items of a list, tuple, set or range (`max(losses)`,
// `sum(range(5))`), or several scalar arguments (`min(3, 4)`). A tensor of rank >= 1 is reduced
// instead (`max(x, 1)` is over axis 1, as tf.reduce_max), and so is a single scalar.
std::optional<std::vector<Value>> pythonItems(Interpreter& in, const Args& a) {
  if (a.pos.empty()) return std::nullopt;
  const Value& first = a.pos[0];
  if (first.is(Kind::List) || first.is(Kind::Tuple) || first.is(Kind::Set) || dynamic_cast<RangeObj*>(first.object())) {
    if (a.pos.size() > 1 || !a.kw.empty()) return std::nullopt;  // reported by the tensor form
    std::vector<Value> items;
    in.forEach(first, [&](Value v) { items.push_back(std::move(v)); return false; });
    return items;
  }
  if (a.pos.size() >= 2 && a.kw.empty() && isTensorLike(first) && tensorOf(first, "x").rank() == 0) return a.pos;
  return std::nullopt;
}

bool lessThan(const Value& x, const Value& y) { return truthy(compareOp(ast::CompareOp::Lt, x, y)); }

NativeFn reducer(const char* name, ops::ReduceOp op) {
  return [name, op](Interpreter& in, Args& a) {
    bool python = op == ops::ReduceOp::Sum || op == ops::ReduceOp::Max || op == ops::ReduceOp::Min;
    const bool logical = op == ops::ReduceOp::Any || op == ops::ReduceOp::All;
    // Python's any(items) and all(items): each item's truth, in order, stopping at the first that
    // decides (a tensor of several elements is ambiguous there, as in Python).
    if (logical && !a.pos.empty() && !a.pos[0].isTensor())
      if (auto items = pythonItems(in, a)) {
        const bool decides = op == ops::ReduceOp::Any;
        for (const Value& v : *items)
          if (truthy(v) == decides) return Value(Tensor::scalar<bool>(decides), true);
        return Value(Tensor::scalar<bool>(!decides), true);
      }
    if (auto items = python ? pythonItems(in, a) : std::nullopt) {
      if (op == ops::ReduceOp::Sum) {
        if (items->empty()) return Value(Tensor::scalar<int32_t>(0), true);
        Value acc = (*items)[0];
        for (size_t i = 1; i < items->size(); ++i) acc = binaryOp(ast::BinaryOp::Add, acc, (*items)[i]);
        return acc;
      }
      if (items->empty()) throw WeftError(a.site, std::string(name) + "() of an empty sequence");
      Value best = (*items)[0];
      for (size_t i = 1; i < items->size(); ++i)
        if (op == ops::ReduceOp::Max ? lessThan(best, (*items)[i]) : lessThan((*items)[i], best)) best = (*items)[i];
      return best;
    }
    ArgReader r(a, name, {"x", "axis?", "keepdims?"});
    // axis=[] reduces no axis (NumPy returns x); ops::reduce takes no axes to mean all of them.
    if (r.has(1) && r.axes(1).empty()) return Value(r.tensor(0));
    return Value(ops::reduce(op, r.tensor(0), r.axes(1), r.flag(2, false)));
  };
}

// Python's sorted(items, key=none, reverse=false): a new list, stable, compared with `<`.
Value sorted(Interpreter& in, Args& a) {
  ArgReader r(a, "sorted", {"items", "key?", "reverse?"});
  std::vector<Value> items;
  in.forEach(r.get(0), [&](Value v) { items.push_back(std::move(v)); return false; });
  std::vector<Value> keys = items;
  if (r.has(1))
    for (Value& k : keys) {
      Args ka;
      ka.site = a.site;
      ka.pos.push_back(k);
      k = in.call(r.get(1), ka);
    }
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  bool reverse = r.flag(2, false);
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    return reverse ? lessThan(keys[j], keys[i]) : lessThan(keys[i], keys[j]);
  });
  std::vector<Value> out;
  for (size_t i : order) out.push_back(items[i]);
  return makeList(std::move(out));
}

// NumPy's var and std (ddof=0; TensorFlow's reduce_variance and reduce_std) of a float tensor.
NativeFn spread(const char* name, bool root) {
  return [name, root](Interpreter&, Args& a) {
    ArgReader r(a, name, {"x", "axis?", "keepdims?"});
    const Tensor& x = r.tensor(0);
    if (!rt::isFloat(x.dtype())) r.fail(0, "must be a float tensor (cast it first), not " + typeNameOf(r.get(0)));
    std::vector<int> axes = r.axes(1);
    bool keepdims = r.flag(2, false);
    if (r.has(1) && axes.empty()) return Value(ops::binary(ops::BinaryOp::Sub, x, x));  // axis=[]: no axis, no spread
    Tensor d = ops::binary(ops::BinaryOp::Sub, x, ops::reduce(ops::ReduceOp::Mean, x, axes, true));
    Tensor v = ops::reduce(ops::ReduceOp::Mean, ops::binary(ops::BinaryOp::Mul, d, d), axes, keepdims);
    return Value(root ? ops::unary(ops::UnaryOp::Sqrt, v) : v);
  };
}

// round(x, ndigits=none): of a number (a weak scalar: a literal, x.item()), Python's round: to the
// nearest int, ties to even (round(2.5) is 2), or to ndigits places; of a tensor, TensorFlow's
// elementwise round (NumPy's np.round(x, ndigits) with ndigits).
Value roundValue(Interpreter&, Args& a) {
  ArgReader r(a, "round", {"x", "ndigits?"});
  const Tensor& x = r.tensor(0);
  int64_t digits = r.has(1) ? r.integer(1) : 0;
  double scale = std::pow(10.0, double(digits));
  if (r.get(0).weak() && x.rank() == 0) {
    double v = r.get(0).literal() ? r.get(0).literal()->toDouble() : x.asDouble();
    double rounded = std::nearbyint(v * scale) / scale;  // the default rounding mode: ties to even
    if (r.has(1) && rt::isFloat(x.dtype())) {
      // Python rounds the double's exact value, as printf does: round(2.675, 2) is 2.67.
      if (digits >= 0 && digits <= 340 && std::isfinite(v)) {  // past 340 places no double changes
        char text[1024];  // 309 integer digits, the point and 340 places
        std::snprintf(text, sizeof text, "%.*f", int(digits), v);
        rounded = std::strtod(text, nullptr);
      }
      return Value(Literal::real(rounded));
    }
    if (!std::isfinite(rounded) || std::fabs(rounded) >= 9.2e18)
      r.fail(0, "cannot be rounded to an integer: it is " + Literal::real(v).str());
    return Value(Literal::integer(int64_t(rounded)));
  }
  if (!r.has(1)) return Value(ops::unary(ops::UnaryOp::Round, x));
  Tensor s = Literal::real(scale).as(x.dtype());
  return Value(ops::binary(ops::BinaryOp::Div, ops::unary(ops::UnaryOp::Round, ops::binary(ops::BinaryOp::Mul, x, s)), s));
}

}  // namespace

void registerTensorMath(Env& env) {
  // The elementwise ops' builtins, named by the op table (ops::builtinName).
#define WEFT_UNARY_BUILTIN(F, Id, ...)                                              \
  if (std::string n = ops::builtinName(ops::OpId::F##Id); !n.empty())               \
    def(env, n.c_str(), [n](Interpreter&, Args& a) {                                \
      ArgReader r(a, n, {"x"});                                                     \
      return Value(ops::unary(ops::UnaryOp::Id, r.tensor(0)));                      \
    });
  WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_BUILTIN)
#undef WEFT_UNARY_BUILTIN
  def(env, "round", roundValue);  // the op's builtin, taking Python's numbers and ndigits too
#define WEFT_BINARY_BUILTIN(F, Id, ...)                                             \
  if (std::string n = ops::builtinName(ops::OpId::F##Id); !n.empty())               \
    def(env, n.c_str(), [n](Interpreter&, Args& a) {                                \
      ArgReader r(a, n, {"x", "y"});                                                \
      auto [x, y] = unified(r, 0, 1);                                               \
      return Value(ops::binary(ops::BinaryOp::Id, x, y));                           \
    });
  WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_BUILTIN)
#undef WEFT_BINARY_BUILTIN
  def(env, "matmul", [](Interpreter&, Args& a) {
    ArgReader r(a, "matmul", {"a", "b"});
    auto [x, y] = unified(r, 0, 1);
    return Value(ops::matmul(x, y));
  });
  def(env, "sum", reducer("sum", ops::ReduceOp::Sum));
  def(env, "mean", reducer("mean", ops::ReduceOp::Mean));
  def(env, "max", reducer("max", ops::ReduceOp::Max));
  def(env, "min", reducer("min", ops::ReduceOp::Min));
  def(env, "prod", reducer("prod", ops::ReduceOp::Prod));
  def(env, "sorted", sorted);
  def(env, "any", reducer("any", ops::ReduceOp::Any));
  def(env, "all", reducer("all", ops::ReduceOp::All));
  def(env, "var", spread("var", false));
  def(env, "std", spread("std", true));
  // TensorFlow's names of the reductions: the same functions.
  for (auto [tf, weft] : {std::pair{"reduce_sum", "sum"}, {"reduce_mean", "mean"}, {"reduce_max", "max"},
                          {"reduce_min", "min"}, {"reduce_prod", "prod"}, {"reduce_any", "any"}, {"reduce_all", "all"},
                          {"reduce_variance", "var"}, {"reduce_std", "std"}})
    env.set(intern(tf), *env.findLocal(intern(weft)));
  for (bool isMax : {true, false}) {
    const char* name = isMax ? "argmax" : "argmin";
    def(env, name, [name, isMax](Interpreter&, Args& a) {
      ArgReader r(a, name, {"x", "axis?", "keepdims?"});
      const Tensor& x = r.tensor(0);
      if (r.has(1)) return Value(ops::argReduce(isMax, x, int(r.integer(1)), r.flag(2, false)));
      // No axis: the index into the flattened tensor, as NumPy and PyTorch give.
      Tensor i = ops::argReduce(isMax, ops::reshape(x, {x.numel()}), 0, false);
      return Value(r.flag(2, false) ? ops::reshape(i, std::vector<int64_t>(size_t(x.rank()), 1)) : i);
    });
  }
  // sample_logits's top-k threshold: the k-th largest along the last axis, as [..., 1].
  def(env, "_kth_largest", [](Interpreter&, Args& a) {
    ArgReader r(a, "_kth_largest", {"x", "k"});
    return Value(ops::kthLargest(r.tensor(0), r.integer(1)));
  });
  // Adam's and AdamW's update of a variable and its moments in one pass (stdlib/optimizers.model).
  def(env, "_adam_update", [](Interpreter&, Args& a) {
    ArgReader r(a, "_adam_update", {"w", "g", "m", "s", "alpha", "b1c", "b2c", "eps"});
    std::vector<Tensor> out = ops::adamUpdate(r.tensor(0), r.tensor(1), r.tensor(2), r.tensor(3), r.tensor(4),
                                              r.tensor(5), r.tensor(6), r.tensor(7));
    return makeTuple({Value(out[0]), Value(out[1]), Value(out[2])});
  });
  def(env, "where", [](Interpreter&, Args& a) {
    ArgReader r(a, "where", {"condition", "x", "y"});
    auto [x, y] = unified(r, 1, 2);
    return Value(ops::where(r.tensor(0), x, y));
  });
  def(env, "clip", [](Interpreter&, Args& a) {
    ArgReader r(a, "clip", {"x", "min", "max"});
    Value x = r.tensorValue(0), lo = r.tensorValue(1), hi = r.tensorValue(2);
    if (lo.tensor().dtype() != x.tensor().dtype()) unifyDTypes(x, lo, "clip()");
    if (hi.tensor().dtype() != x.tensor().dtype()) unifyDTypes(x, hi, "clip()");
    return Value(ops::clip(x.tensor(), lo.tensor(), hi.tensor()));
  });
  def(env, "cast", [](Interpreter&, Args& a) {
    ArgReader r(a, "cast", {"x", "dtype"});
    r.tensor(0);  // checks that x is a tensor
    return Value(leafAs(r.get(0), r.dtype(1, DType::F32)));
  });
  def(env, "one_hot", [](Interpreter&, Args& a) {
    ArgReader r(a, "one_hot", {"indices", "depth", "dtype?"});
    int64_t depth = r.integer(1);
    if (depth < 0) r.fail(1, "must not be negative");
    return Value(ops::oneHot(r.tensor(0), depth, r.dtype(2, DType::F32)));
  });
  // _embedding_lookup(table, ids): Embedding's rows, with ids in [0, rows) checked wherever it runs.
  def(env, "_embedding_lookup", [](Interpreter&, Args& a) {
    ArgReader r(a, "_embedding_lookup", {"table", "ids"});
    return Value(ops::takeIds(r.tensor(0), r.tensor(1)));
  });
  // _known(x): whether a tensor's values are known now: false for a graph value being traced and
  // for a shape-only plan's tensor, whose values exist only when the graph runs.
  def(env, "_known", [](Interpreter&, Args& a) {
    ArgReader r(a, "_known", {"x"});
    return Value(Tensor::scalar<bool>(!r.tensor(0).isAbstract()));
  });
}

}  // namespace weft
