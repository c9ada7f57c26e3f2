// Modules (SPEC §5): construction, names, lazy build, calling, and walking their variables.
#include <algorithm>
#include <optional>
#include <set>
#include <unordered_set>

#include "../../grammar/shown_text.h"
#include "../graph/tracer.h"
#include "../values/format.h"
#include "hooks.h"
#include "interpreter.h"
#include "operators.h"

namespace weft {
namespace {

// Keras' to_snake_case: `DemoModule` -> `demo_module`, `MLPBlock` -> `mlp_block`,
// `Conv2D` -> `conv2d`. Two passes: `_` before an upper-case letter that starts a lower-case
// run (and is not first), then `_` between a lower-case and an upper-case letter.
std::string snakeCase(const std::string& s) {
  auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  std::string a;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && upper(s[i]) && i + 1 < s.size() && lower(s[i + 1])) a += '_';
    a += s[i];
  }
  std::string b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i > 0 && upper(a[i]) && lower(a[i - 1])) b += '_';
    b += upper(a[i]) ? char(a[i] - 'A' + 'a') : a[i];
  }
  return b;
}

}  // namespace

void Interpreter::clearModuleNames() { nameCounters_.clear(); }

std::string Interpreter::uniqueModuleName(const std::string& typeName) {
  std::string base = snakeCase(typeName);
  int n = nameCounters_[base]++;
  return n == 0 ? base : base + "_" + std::to_string(n);
}

void Interpreter::adopt(ModuleObj* owner, const std::string& key, const Value& v) {
  // Containers are walked with a worklist, each one once, and a path is spelled out only for what
  // is adopted: a list that holds itself, or one nested a million deep, costs its size, not more.
  struct Step {
    size_t parent;  // index into steps; SIZE_MAX for the root
    std::string name;
  };
  std::vector<Step> steps{{SIZE_MAX, key}};
  auto pathOf = [&](size_t i) {
    std::vector<const std::string*> parts;
    for (; i != SIZE_MAX; i = steps[i].parent) parts.push_back(&steps[i].name);
    std::string p = *parts.back();
    for (auto it = parts.rbegin() + 1; it != parts.rend(); ++it) p += "." + **it;
    return p;
  };
  std::vector<std::pair<size_t, Value>> work{{0, v}};
  std::unordered_set<const Object*> seen;
  const auto ownerRef = std::static_pointer_cast<ModuleObj>(owner->shared_from_this());
  while (!work.empty()) {
    const size_t at = work.back().first;  // not a structured binding: the lambda below uses it
    Value x = std::move(work.back().second);
    work.pop_back();
    switch (x.kind()) {
      case Kind::Variable: {
        auto* var = x.as<VariableObj>();
        if (var->ownerModule()) break;
        var->owner = ownerRef;
        var->keyInOwner = pathOf(at);
        if (!owner->trainable) var->trainable = false;  // created under a frozen layer, as in Keras
        if (!var->named) var->name = (var->scope.empty() ? owner->name : var->scope) + "/" + var->keyInOwner;
        evalHooks().variableAdopted(*this, *var);  // a lazily built weight may now find its layout
        break;
      }
      case Kind::Module: {
        auto* m = x.as<ModuleObj>();
        if (m->parentModule() || m == owner) break;
        bool ancestor = false;  // a module holding one of its ancestors: no cycle of paths
        for (const ModuleObj* a = owner; a && !ancestor; a = a->parentModule()) ancestor = a == m;
        if (ancestor) break;
        m->parent = ownerRef;
        m->keyInParent = pathOf(at);
        break;
      }
      case Kind::List:
      case Kind::Tuple:
      case Kind::Dict: {
        if (!seen.insert(x.object()).second) break;
        // Pushed last to first, so that items are adopted in order (the first path names a value).
        auto push = [&](std::string name, const Value& item) {
          steps.push_back({at, std::move(name)});
          work.emplace_back(steps.size() - 1, item);
        };
        size_t from = work.size();
        if (x.is(Kind::Dict)) {
          for (const auto& [k, item] : x.as<DictObj>()->entries) push(toStr(k), item);
        } else {
          const auto& items = x.is(Kind::List) ? x.as<ListObj>()->items : x.as<TupleObj>()->items;
          for (size_t i = 0; i < items.size(); ++i) push(std::to_string(i), items[i]);
        }
        std::reverse(work.begin() + std::ptrdiff_t(from), work.end());
        break;
      }
      default: break;
    }
  }
}

Value Interpreter::constructModule(ModuleTypeObj& type, Args& args) {
  auto m = std::make_shared<ModuleObj>();
  m->typeName = type.name;
  evalHooks().moduleCreated(*this, *m);  // remembers an active layout_map_scope
  // Every module accepts Keras' layer keywords `name=`, `input_shape=` and `trainable=`,
  // unless it declares a parameter of that name itself.
  Value nameArg, inputShapeArg, trainableArg;
  for (auto [key, slot] : {std::pair{"name", &nameArg}, {"input_shape", &inputShapeArg}, {"trainable", &trainableArg}}) {
    bool declared = false;
    for (const auto& p : type.decl->params) declared |= symbolName(p.name) == key;
    if (declared) continue;
    for (auto it = args.kw.begin(); it != args.kw.end(); ++it) {
      if (symbolName(it->first) != key) continue;
      *slot = std::move(it->second);
      args.kw.erase(it);
      break;
    }
  }
  if (!nameArg.isNone() && !nameArg.is(Kind::Str)) throw WeftError(args.site, type.name + "(): name must be a string");
  m->inputShape = inputShapeArg;
  std::shared_ptr<Env> params =
      bindParams(type.name, type.decl->params, type.defaults, type.hasDefault, args, type.closure);
  // Keras' `def __init__(self, name=None): super().__init__(name=name)`: a declared `name`
  // parameter holding a string names the module too.
  if (Value* declared = params->findLocal(intern("name")); declared && declared->is(Kind::Str)) nameArg = *declared;
  m->name = nameArg.isNone() ? uniqueModuleName(type.name) : nameArg.as<StrObj>()->text;
  if (std::optional<size_t> at = firstControl(m->name))
    throw WeftError(args.site, type.name + "(): name " + controlCharacterReason(m->name, *at));
  params->set(intern("self"), Value(m));
  m->attrs = std::make_shared<Env>(params);
  trackEnv(params);
  trackEnv(m->attrs);
  try {
    Frame frame;
    if (execBlock(type.decl->body, m->attrs, frame) == Flow::Return)
      throw WeftError(type.decl->nameRange, "a module body cannot return");
  } catch (WeftError& e) {
    e.traceback.push_back({type.name, e.unwindAt.valid() ? e.unwindAt : e.at});
    e.unwindAt = args.site;
    throw;
  }
  for (const auto& [k, v] : m->attrs->entries()) {
    adopt(m.get(), symbolName(k), v);
    // Methods are named after their module type in tracebacks: "Dense.call".
    if (v.is(Kind::Function) && v.as<FunctionObj>()->closure == m->attrs && v.as<FunctionObj>()->name == symbolName(k))
      v.as<FunctionObj>()->name = type.name + "." + symbolName(k);
  }
  if (!trainableArg.isNone()) setTrainable(m.get(), truthy(trainableArg));
  // Keras builds a layer given input_shape= at once, outside a Sequential too: its weights exist
  // before its first call. (The input shape is a list of sizes; a Sequential's Input is not.)
  if ((inputShapeArg.is(Kind::List) || inputShapeArg.is(Kind::Tuple)) && m->attrs->findLocal(intern("build"))) {
    std::vector<Value> dims{Value()};  // the batch dimension: None
    for (const Value& d : inputShapeArg.is(Kind::List) ? inputShapeArg.as<ListObj>()->items
                                                       : inputShapeArg.as<TupleObj>()->items)
      dims.push_back(d);
    buildModule(*m, makeList(std::move(dims)), args.site);
  }
  return Value(m);
}

void Interpreter::buildModule(ModuleObj& m, const Value& input, const SourceRange& site) {
  // Copies, not pointers into the attribute table: build() adds attributes and may move it.
  Value* b = m.attrs->findLocal(intern("build"));
  if (!b) {
    m.built = true;
    return;
  }
  Value build = *b;
  Args buildArgs;
  buildArgs.site = site;
  if (isTensorLike(input) || input.is(Kind::Opaque)) {
    // Keras passes the input shape with None for the batch dimension of a symbolic input.
    auto* sym = dynamic_cast<SymbolicTensor*>(input.object());
    const Tensor& t = sym ? sym->spec : tensorOf(input, "input");
    std::vector<Value> dims;
    for (int i = 0; i < t.rank(); ++i)
      dims.push_back(i == 0 && sym && sym->batchIsNone ? Value()
                                                       : makeInt(t.shape()[i]));
    buildArgs.pos.push_back(makeList(std::move(dims)));
  } else {
    buildArgs.pos.push_back(input);
  }
  m.built = true;  // set first: a build() that calls the module must not build again
  graph::Tracer::Pause eager;  // weights are made with real values, also on a graph's first trace
  call(build, buildArgs);
}

Value Interpreter::callModule(ModuleObj& m, Args& args) {
  for (const Value& a : args.pos)
    if (holdsSymbolic(a)) return callModuleSymbolic(m, args);
  Value* found = m.attrs->findLocal(intern("call"));
  if (!found) throw WeftError(args.site, "module '" + m.name + "' (" + m.typeName + ") is not callable: it has no fn call");
  Value callFn = *found;
  std::optional<ScopeGuard> scope;  // its nodes go in its box of a graph's picture
  if (scopes_.empty() || scopes_.back().module != &m) scope.emplace(*this, NameScope{m.name, &m, false});
  try {
    if (!m.built) {
      if (args.pos.empty()) throw WeftError(args.site, "module '" + m.name + "' needs an input to build from");
      buildModule(m, args.pos[0], args.site);
    }
    Value out = call(callFn, args);
    if (isTensorLike(out)) m.outputShape = tensorOf(out, "output").shape();
    return out;
  } catch (WeftError& e) {
    // An error inside a standard layer's own code is shown at the caller's line: name the layer,
    // unless the message does already (Dense(2147483647): its kernel is too large).
    const bool standardLayer = callFn.is(Kind::Function) && inStdlib(callFn.as<FunctionObj>()->range);
    if (standardLayer && inStdlib(e.at) && e.message.find("'" + m.name) == std::string::npos &&
        e.message.rfind(m.typeName + ":", 0) != 0)
      e.message = "layer '" + m.name + "' (" + m.typeName + "): " + e.message;
    throw;
  }
}

namespace {

// Depth first over a module's attributes (and the lists, tuples and dicts among them), each
// object once, calling visit on every variable and every module below the root.
void walkBelow(ModuleObj* root, const std::function<void(const Value&)>& visit) {
  std::set<const Object*> seen{root};
  std::function<void(const Value&)> walk = [&](const Value& v) {
    if (v.object() && !seen.insert(v.object()).second) return;
    switch (v.kind()) {
      case Kind::Variable: visit(v); return;
      case Kind::Module:
        visit(v);
        for (const auto& [k, item] : v.as<ModuleObj>()->attrs->entries()) walk(item);
        return;
      case Kind::List:
        for (const auto& item : v.as<ListObj>()->items) walk(item);
        return;
      case Kind::Tuple:
        for (const auto& item : v.as<TupleObj>()->items) walk(item);
        return;
      case Kind::Dict:
        for (const auto& [k, item] : v.as<DictObj>()->entries) walk(item);
        return;
      default: return;
    }
  };
  for (const auto& [k, item] : root->attrs->entries()) walk(item);
}

}  // namespace

std::vector<Value> Interpreter::collectVariables(ModuleObj* root) {
  std::vector<Value> out;
  walkBelow(root, [&](const Value& v) {
    if (v.is(Kind::Variable)) out.push_back(v);
  });
  return out;
}

std::vector<Value> Interpreter::collectSubmodules(ModuleObj* root) {
  std::vector<Value> out;
  walkBelow(root, [&](const Value& v) {
    if (v.is(Kind::Module)) out.push_back(v);
  });
  return out;
}

std::vector<Value> Interpreter::childModules(ModuleObj* m) {
  std::vector<Value> out;
  std::set<const Object*> seen{m};
  std::function<void(const Value&)> walk = [&](const Value& v) {
    if (v.object() && !seen.insert(v.object()).second) return;  // each once: a list may hold itself
    if (v.is(Kind::Module)) {
      out.push_back(v);
    } else if (v.is(Kind::List)) {
      for (const auto& item : v.as<ListObj>()->items) walk(item);
    } else if (v.is(Kind::Tuple)) {
      for (const auto& item : v.as<TupleObj>()->items) walk(item);
    } else if (v.is(Kind::Dict)) {
      for (const auto& [k, item] : v.as<DictObj>()->entries) walk(item);
    }
  };
  for (const auto& [k, item] : m->attrs->entries()) walk(item);
  return out;
}

void Interpreter::setTrainable(ModuleObj* root, bool trainable) {
  root->trainable = trainable;
  for (const Value& m : collectSubmodules(root)) m.as<ModuleObj>()->trainable = trainable;
  for (const Value& v : collectVariables(root)) {
    auto* var = v.as<VariableObj>();
    var->trainable = trainable && var->ownTrainable;  // Keras: a frozen variable stays frozen
  }
}

}  // namespace weft
