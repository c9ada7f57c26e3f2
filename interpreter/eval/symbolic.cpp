// Keras' functional API: calling a module on symbolic tensors runs it on shapes alone and records
// the call, so that Model(inputs, outputs) can replay the graph on real data.
#include <map>

#include "../values/format.h"
#include "interpreter.h"
#include "operators.h"

namespace weft {

bool holdsSymbolic(const Value& v) {
  if (dynamic_cast<SymbolicTensor*>(v.object())) return true;
  if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    for (const Value& item : v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items)
      if (holdsSymbolic(item)) return true;
  }
  return false;
}

Value mapSymbolic(const Value& v, const std::function<Value(const Value&)>& f) {
  if (dynamic_cast<SymbolicTensor*>(v.object())) return f(v);
  if (v.is(Kind::List) || v.is(Kind::Tuple)) {
    std::vector<Value> items;
    for (const Value& item : v.is(Kind::List) ? v.as<ListObj>()->items : v.as<TupleObj>()->items)
      items.push_back(mapSymbolic(item, f));
    return v.is(Kind::List) ? makeList(std::move(items)) : makeTuple(std::move(items));
  }
  return v;
}

Value Interpreter::callModuleSymbolic(ModuleObj& m, Args& args) {
  Value* found = m.attrs->findLocal(intern("call"));
  if (!found) throw WeftError(args.site, "module '" + m.name + "' (" + m.typeName + ") is not callable: it has no fn call");
  Value callFn = *found;
  auto node = std::make_shared<SymbolicTensor>();
  node->layer = Value(m.shared_from_this());
  node->inputs = args.pos;
  node->kwargs = args.kw;
  node->nodeIndex = m.symbolicCalls++;
  bool batchIsNone = false;
  Args shapes;  // the same call on shape-only tensors
  shapes.site = args.site;
  shapes.kw = args.kw;
  for (const Value& a : args.pos)
    shapes.pos.push_back(mapSymbolic(a, [&](const Value& t) {
      auto* sym = static_cast<SymbolicTensor*>(t.object());
      batchIsNone |= sym->batchIsNone;
      return Value(sym->spec);
    }));
  if (!m.built) buildModule(m, args.pos[0], args.site);
  Value out = call(callFn, shapes);
  if (!isTensorLike(out))
    throw WeftError(args.site, "layer '" + m.name + "' returned " + aTypeName(out) +
                                   "; a layer in a functional model must return a tensor");
  const Tensor& t = tensorOf(out, "output");
  node->spec = Tensor::abstract(t.dtype(), t.shape());
  node->batchIsNone = batchIsNone;
  m.outputShape = t.shape();
  m.batchFixed = !batchIsNone;
  return Value(node);
}

std::optional<Value> Interpreter::symbolicOperator(const std::string& op, const Value& a, const Value& b,
                                                  const SourceRange& at) {
  if (!dynamic_cast<SymbolicTensor*>(a.object()) && !dynamic_cast<SymbolicTensor*>(b.object())) return std::nullopt;
  // Keras' names of the operations, counted with the layers' (an Add layer and a `+` in one
  // model are `add` and `add_1`).
  static const std::map<std::string, std::string> kNames = {
      {"+", "add"}, {"-", "subtract"}, {"*", "multiply"}, {"/", "true_divide"}, {"//", "floor_divide"},
      {"%", "mod"}, {"**", "power"}, {"@", "matmul"}, {"neg", "negative"}};
  Args args;
  args.site = at;
  args.pos = {makeStr(op), a, b, makeStr(uniqueModuleName(kNames.at(op)))};
  return call(preludeValue("_keras_operator", at), args);
}

}  // namespace weft
