// reshape, transpose, concat, stack, split, squeeze, expand_dims.
#include "../eval/interpreter.h"
#include "../ops/ops.h"
#include "../eval/args.h"
#include "builtins.h"

namespace weft {
namespace {

void def(Env& env, const char* name, NativeFn fn) { env.set(intern(name), makeBuiltin(name, std::move(fn))); }

std::vector<Tensor> tensors(const ArgReader& r, int i) {
  std::vector<Tensor> out;
  for (const Value& v : r.items(i)) out.push_back(tensorFromValue(v, std::nullopt, r.name() + "()"));
  if (out.empty()) r.fail(i, "must not be empty");
  return out;
}

}  // namespace

void registerTensorShaping(Env& env) {
  def(env, "shape", [](Interpreter&, Args& a) {
    ArgReader r(a, "shape", {"x"});
    return Value(ops::shapeOf(r.tensor(0)));
  });
  def(env, "reshape", [](Interpreter&, Args& a) {
    ArgReader r(a, "reshape", {"x", "shape"});
    return Value(ops::reshape(r.tensor(0), r.ints(1)));
  });
  def(env, "broadcast_to", [](Interpreter&, Args& a) {  // NumPy's and TensorFlow's
    ArgReader r(a, "broadcast_to", {"x", "shape"});
    return Value(ops::broadcastTo(r.tensor(0), r.shape(1)));
  });
  def(env, "transpose", [](Interpreter&, Args& a) {
    ArgReader r(a, "transpose", {"x", "perm?"});
    return Value(ops::transpose(r.tensor(0), r.axes(1)));
  });
  def(env, "concat", [](Interpreter&, Args& a) {
    ArgReader r(a, "concat", {"tensors", "axis?"});
    return Value(ops::concat(tensors(r, 0), int(r.integer(1, 0))));
  });
  def(env, "stack", [](Interpreter&, Args& a) {
    ArgReader r(a, "stack", {"tensors", "axis?"});
    return Value(ops::stack(tensors(r, 0), int(r.integer(1, 0))));
  });
  def(env, "split", [](Interpreter&, Args& a) {
    ArgReader r(a, "split", {"x", "sections", "axis?"});
    const Tensor& x = r.tensor(0);
    int axis = int(r.integer(2, 0));
    std::vector<int64_t> sizes;
    if (r.get(1).is(Kind::List) || r.get(1).is(Kind::Tuple)) {
      sizes = r.ints(1);
    } else {
      int64_t n = r.integer(1);
      int ax = axis < 0 ? axis + x.rank() : axis;
      if (ax < 0 || ax >= x.rank()) r.fail(2, "is out of range for shape " + x.shape().str());
      if (n <= 0 || x.shape()[ax] % n != 0)
        r.fail(1, "must divide axis " + std::to_string(axis) + " of shape " + x.shape().str() + " evenly");
      sizes.assign(size_t(n), x.shape()[ax] / n);
    }
    std::vector<Value> parts;
    for (Tensor& t : ops::split(x, sizes, axis)) parts.push_back(Value(std::move(t)));
    return makeList(std::move(parts));
  });
  def(env, "squeeze", [](Interpreter&, Args& a) {
    ArgReader r(a, "squeeze", {"x", "axis?"});
    return Value(ops::squeeze(r.tensor(0), r.axes(1)));
  });
  def(env, "expand_dims", [](Interpreter&, Args& a) {
    ArgReader r(a, "expand_dims", {"x", "axis"});
    return Value(ops::expandDims(r.tensor(0), int(r.integer(1))));
  });
}

}  // namespace weft
