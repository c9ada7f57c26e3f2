// Elementwise functions, matmul, reductions, where, clip, cast, one_hot.
#include "../eval/interpreter.h"
#include "../eval/operators.h"
#include "../ops/ops.h"
#include "args.h"
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

NativeFn reducer(const char* name, ops::ReduceOp op) {
  return [name, op](Interpreter&, Args& a) {
    ArgReader r(a, name, {"x", "axis?", "keepdims?"});
    // `sum([a, b, c])` adds the items, as Python's sum does.
    if (op == ops::ReduceOp::Sum && (r.get(0).is(Kind::List) || r.get(0).is(Kind::Tuple))) {
      std::vector<Value> items = r.items(0);
      if (items.empty()) return Value(Tensor::scalar<int32_t>(0), true);
      Value acc = items[0];
      for (size_t i = 1; i < items.size(); ++i) acc = binaryOp(ast::BinaryOp::Add, acc, items[i]);
      return acc;
    }
    return Value(ops::reduce(op, r.tensor(0), r.axes(1), r.flag(2, false)));
  };
}

}  // namespace

void registerTensorMath(Env& env) {
  const std::pair<const char*, ops::UnaryOp> unaries[] = {
      {"exp", ops::UnaryOp::Exp},     {"log", ops::UnaryOp::Log},         {"sqrt", ops::UnaryOp::Sqrt},
      {"rsqrt", ops::UnaryOp::Rsqrt}, {"abs", ops::UnaryOp::Abs},         {"tanh", ops::UnaryOp::Tanh},
      {"sigmoid", ops::UnaryOp::Sigmoid}, {"relu", ops::UnaryOp::Relu},   {"erf", ops::UnaryOp::Erf},
      {"sin", ops::UnaryOp::Sin},     {"cos", ops::UnaryOp::Cos},         {"floor", ops::UnaryOp::Floor},
      {"ceil", ops::UnaryOp::Ceil},   {"round", ops::UnaryOp::Round},     {"sign", ops::UnaryOp::Sign},
      {"log1p", ops::UnaryOp::Log1p}, {"expm1", ops::UnaryOp::Expm1},     {"square", ops::UnaryOp::Square},
      {"logical_not", ops::UnaryOp::Not},
  };
  for (const auto& [name, op] : unaries) {
    std::string n = name;
    ops::UnaryOp o = op;
    def(env, name, [n, o](Interpreter&, Args& a) {
      ArgReader r(a, n, {"x"});
      return Value(ops::unary(o, r.tensor(0)));
    });
  }
  const std::pair<const char*, ops::BinaryOp> binaries[] = {
      {"maximum", ops::BinaryOp::Maximum}, {"minimum", ops::BinaryOp::Minimum}, {"pow", ops::BinaryOp::Pow},
      {"logical_and", ops::BinaryOp::And}, {"logical_or", ops::BinaryOp::Or},
  };
  for (const auto& [name, op] : binaries) {
    std::string n = name;
    ops::BinaryOp o = op;
    def(env, name, [n, o](Interpreter&, Args& a) {
      ArgReader r(a, n, {"x", "y"});
      auto [x, y] = unified(r, 0, 1);
      return Value(ops::binary(o, x, y));
    });
  }
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
  def(env, "any", reducer("any", ops::ReduceOp::Any));
  def(env, "all", reducer("all", ops::ReduceOp::All));
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
}

}  // namespace weft
