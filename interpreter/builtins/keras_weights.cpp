// Keras' weight attributes of every layer and model (docs/layers.md): layer.weights,
// get_weights(), set_weights(list), count_params() and output_shape, and a model's optimizer.
// Read through the evaluator's layerAttr hook (eval/hooks.h), as Keras defines them on its base
// Layer and Model.
#include "../eval/args.h"
#include "../eval/operators.h"
#include "../values/format.h"
#include "keras.h"

namespace weft {
namespace {

// Keras' order: the trainable weights, then the others, each in the order they were made.
std::vector<Value> weightsOf(Interpreter& in, ModuleObj& m) {
  std::vector<Value> all = in.collectVariables(&m), out;
  for (bool trainable : {true, false})
    for (const Value& v : all)
      if (v.as<VariableObj>()->trainable == trainable) out.push_back(v);
  return out;
}

std::string shapeText(const Shape& s) {
  std::string t = "[";
  for (int i = 0; i < s.rank(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

void requireBuilt(const ModuleObj& m, const std::string& what) {
  if (!m.built && m.attrs->findLocal(intern("build")))
    throw WeftError(what + ": layer '" + m.name + "' is not built yet: call it on an input first, or give input_shape= when creating it");
}

Value setWeights(Interpreter& in, Args& a) {
  ArgReader r(a, "set_weights", {"weights"});
  auto& m = *a.self.as<ModuleObj>();
  requireBuilt(m, "set_weights");
  std::vector<Value> given = r.items(0), weights = weightsOf(in, m);
  if (given.size() != weights.size())
    throw WeftError(a.site, "set_weights: " + m.typeName + " '" + m.name + "' has " + std::to_string(weights.size()) +
                                " weight" + (weights.size() == 1 ? "" : "s") + ", got a list of " +
                                std::to_string(given.size()));
  // Every value is checked before any weight changes: a bad list leaves the weights as they were.
  std::vector<Tensor> values;
  for (size_t i = 0; i < given.size(); ++i) {
    auto& var = *weights[i].as<VariableObj>();
    Value v = given[i].is(Kind::Variable) ? Value(readVariable(*given[i].as<VariableObj>())) : given[i];
    if (v.is(Kind::List) || v.is(Kind::Tuple)) v = Value(tensorFromValue(v, var.value.dtype(), "set_weights"));
    if (!v.isTensor())
      throw WeftError(a.site, "set_weights: weight " + std::to_string(i) + " ('" + var.name + "') needs a tensor, got " +
                                  typeNameOf(v));
    Tensor t = v.weak() ? leafAs(v, var.value.dtype()) : v.tensor();
    if (t.shape() != var.value.shape())
      throw WeftError(a.site, "set_weights: weight " + std::to_string(i) + " ('" + var.name + "') has shape " +
                                  shapeText(var.value.shape()) + ", got shape " + shapeText(t.shape()));
    if (t.dtype() != var.value.dtype())
      throw WeftError(a.site, "set_weights: weight " + std::to_string(i) + " ('" + var.name + "') is " +
                                  rt::dtypeName(var.value.dtype()) + ", got " + rt::dtypeName(t.dtype()) + "; use cast");
    values.push_back(std::move(t));
  }
  for (size_t i = 0; i < values.size(); ++i) writeVariable(*weights[i].as<VariableObj>(), values[i]);
  return Value();
}

std::optional<Value> layerAttr(Interpreter& in, const Value& self, ModuleObj& m, const std::string& n) {
  if (n == "weights") return makeList(weightsOf(in, m));
  if (n == "get_weights")
    return makeBuiltin(n, [](Interpreter& in, Args& a) {
      ArgReader r(a, "get_weights", {});
      std::vector<Value> values;
      for (const Value& v : weightsOf(in, *a.self.as<ModuleObj>())) values.push_back(Value(readVariable(*v.as<VariableObj>())));
      return makeList(std::move(values));
    }, self);
  if (n == "set_weights") return makeBuiltin(n, setWeights, self);
  if (n == "count_params")
    return makeBuiltin(n, [](Interpreter& in, Args& a) {
      ArgReader r(a, "count_params", {});
      auto& m = *a.self.as<ModuleObj>();
      requireBuilt(m, "count_params");
      int64_t total = 0;
      for (const Value& v : in.collectVariables(&m)) total += v.as<VariableObj>()->value.numel();
      return makeInt(total);
    }, self);
  if (n == "output_shape") {
    if (!m.outputShape)
      throw WeftError("layer '" + m.name + "' (" + m.typeName + ") has no output shape yet: it has never been called");
    std::vector<Value> dims;
    for (int i = 0; i < m.outputShape->rank(); ++i)
      dims.push_back(i == 0 && !m.batchFixed ? Value() : makeInt((*m.outputShape)[i]));
    return makeList(std::move(dims));
  }
  // Keras' layer.get_config(): the name, whether trainable, the constructor's arguments; the
  // layer's type rebuilds it with from_config.
  if (n == "get_config")
    return makeBuiltin("get_config", [](Interpreter&, Args& a) {
      ArgReader r(a, "get_config", {});
      const auto* mod = a.self.as<ModuleObj>();
      auto config = std::make_shared<DictObj>();
      config->set(makeStr("name"), makeStr(mod->name));
      config->set(makeStr("trainable"), Value(Tensor::scalar<bool>(mod->trainable)));
      addConstructorArgs(*mod, *config);
      return Value(std::move(config));
    }, self);
  // A module with a call is a model to Keras' training API, as a subclassed keras.Model is
  // (whose model.save is an error that names save_weights and save(model, path)).
  const bool model = m.attrs->findLocal(intern("compile")) || m.attrs->findLocal(intern("call"));
  for (const char* method : {"compile", "fit", "evaluate", "predict", "save", "save_weights", "load_weights", "get_layer"})
    if (n == method && model) return trainingMethod(n, self);
  // model.optimizer: what compile() set up (none before), kept beside the model rather than in
  // its attributes so that the optimizer's variables stay out of model.variables.
  if (n == "optimizer" && model) {
    Args a;
    a.pos.push_back(self);
    return in.call(in.preludeValue("_keras_optimizer", SourceRange{}), a);
  }
  return std::nullopt;
}

}  // namespace

void installLayerAttrs(EvalHooks& hooks) { hooks.layerAttr = layerAttr; }

}  // namespace weft
