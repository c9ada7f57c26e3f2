#include "scope.h"

#include <exception>

#include "../eval/args.h"
#include "../eval/interpreter.h"
#include "../eval/suggest.h"
#include "../ops/ops.h"
#include "../spmd/sharded_tensor.h"
#include "../values/format.h"

namespace weft::mesh {

State& stateOf(Interpreter& in) {
  std::shared_ptr<void>& s = in.layoutState();
  if (!s) s = std::make_shared<State>();
  return *static_cast<State*>(s.get());
}

namespace {

template <class T>
std::weak_ptr<T> weakOf(T& obj) {
  return std::static_pointer_cast<T>(obj.shared_from_this());
}

std::shared_ptr<Scope> scopeOf(const VariableObj& var) {
  for (const ModuleObj* m = var.ownerModule(); m; m = m->parentModule())
    if (m->layoutScope) return m->layoutScope;
  return var.placement ? var.placement->createdIn : nullptr;
}

// The object path below the outermost module of the chain constructed in `s`.
std::string pathIn(const VariableObj& var, const Scope* s) {
  const ModuleObj* owner = var.ownerModule();
  if (!owner) return var.name;
  const ModuleObj* root = nullptr;
  for (const ModuleObj* m = owner; m; m = m->parentModule())
    if (m->layoutScope.get() == s) root = m;
  if (!root) return var.path();
  std::string p = var.keyInOwner;
  for (const ModuleObj* m = owner; m != root; m = m->parentModule()) p = m->keyInParent + "." + p;
  return p;
}

std::string keyPlace(const SourceRange& at) {
  if (!at.valid()) return "";
  return " (" + at.file->path + ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.col) + ")";
}

void warnUnmatched(Interpreter& in, Scope& s, const char* when) {
  in.out().flush();
  s.hits.resize(s.map->entries.size(), 0);
  std::vector<std::string> paths;  // of the scope's variables, to suggest a misspelt key's fix
  for (const auto& w : stateOf(in).placed)
    if (auto v = w.lock(); v && v->placement->scope.get() == &s) paths.push_back(v->placement->path);
  for (size_t i = 0; i < s.map->entries.size(); ++i) {
    if (s.hits[i]) continue;
    const auto& e = s.map->entries[i];
    std::string msg = "layout map key '" + e.key + "' matched no variable " + when;
    if (auto near = closestName(e.key, paths)) msg += "; did you mean '" + *near + "'?";
    in.err() << formatDiagnostic({Severity::Warning, e.at, msg});
  }
  in.err().flush();
}

bool hasUnbuiltModules(const Scope& s) {
  for (const auto& w : s.modules)
    if (auto m = w.lock(); m && !m->built && m->attrs->findLocal(intern("build"))) return true;
  return false;
}

void resolvePending(Interpreter& in, Scope& s) {
  std::vector<std::weak_ptr<VariableObj>> pending;
  pending.swap(s.pending);
  for (const auto& w : pending) {
    auto var = w.lock();
    if (!var || var->placement->resolved) continue;
    auto eff = scopeOf(*var);
    if (eff && !eff->ended) {  // it belongs to an enclosing scope that is still open
      if (eff.get() != &s) eff->pending.push_back(w);
      continue;
    }
    resolve(in, *var);
  }
}

}  // namespace

void moduleCreated(Interpreter& in, ModuleObj& m) {
  State& st = stateOf(in);
  if (st.active.empty()) return;
  m.layoutScope = st.active.back();
  st.active.back()->modules.push_back(weakOf(m));
}

void variableCreated(Interpreter& in, VariableObj& var) {
  // Variable(distribute(x, layout)) keeps its initial value's layout, as DTensor's DVariable does;
  // a layout map has no say over it.
  std::shared_ptr<LayoutObj> given = spmd::shardsOf(var.value) ? tensorLayout(var.value) : nullptr;
  // A plan runs on shapes alone: a variable's initial value keeps only its type.
  if (ops::shapesOnly() && !var.value.isAbstract()) var.value = Tensor::abstract(var.value.dtype(), var.value.shape());
  if (given) {
    var.placement = std::make_shared<Placement>();
    var.placement->resolved = true;
    place(var, std::move(given));
    return;
  }
  State& st = stateOf(in);
  if (st.active.empty()) return;
  var.placement = std::make_shared<Placement>();
  var.placement->createdIn = st.active.back();
  st.active.back()->pending.push_back(weakOf(var));
}

void variableAdopted(Interpreter& in, VariableObj& var) {
  if (var.placement && var.placement->resolved) return;
  auto s = scopeOf(var);
  if (!s) return;
  if (!var.placement) var.placement = std::make_shared<Placement>();
  if (s->ended) resolve(in, var);  // built lazily after its scope: its path is final now
  else s->pending.push_back(weakOf(var));
}

void resolve(Interpreter& in, VariableObj& var) {
  if (!var.placement || var.placement->resolved) return;
  auto s = scopeOf(var);
  if (!s) {
    var.placement->resolved = true;
    return;
  }
  const LayoutMapObj& map = *s->map;
  std::string path = pathIn(var, s.get());
  std::string what = "variable '" + path + "' " + typeNameOf(Value(var.value));
  int key = map.lookup(path, what);
  std::shared_ptr<LayoutObj> layout;
  if (key >= 0) {
    // Located where the variable takes its layout (the statement, or the call that built it);
    // the message points at the key, where the fix usually goes.
    const auto& e = map.entries[size_t(key)];
    layout = e.layout;
    if (auto why = layout->misfit(var.value.shape()))
      throw WeftError(what + " cannot take layout " + layout->dimsText() + " of key '" + e.key + "'" +
                      keyPlace(e.at) + " on " + map.mesh->describe() + ": " + *why);
  } else {
    layout = makeLayout(std::vector<std::optional<std::string>>(size_t(var.value.rank())), map.mesh);
  }
  Placement& p = *var.placement;
  p.resolved = true;
  p.scope = s;
  p.path = path;
  p.key = key;
  place(var, layout);
  if (key >= 0) {
    s->hits.resize(map.entries.size(), 0);
    ++s->hits[size_t(key)];
  }
  stateOf(in).placed.push_back(weakOf(var));
}

void enterScope(Interpreter& in, const std::shared_ptr<LayoutMapObj>& map) {
  auto s = std::make_shared<Scope>();
  s->map = map;
  State& st = stateOf(in);
  st.active.push_back(s);
  st.all.push_back(s);
}

void exitScope(Interpreter& in, const LayoutMapObj& map) {
  State& st = stateOf(in);
  auto it = st.active.end();
  while (it != st.active.begin() && (*(it - 1))->map.get() != &map) --it;
  if (it == st.active.begin()) return;
  std::shared_ptr<Scope> s = *(it - 1);
  st.active.erase(it - 1);
  s->ended = true;
  // Leaving because of an error: that error is the one to report.
  if (std::current_exception()) return;
  resolvePending(in, *s);
  if (hasUnbuiltModules(*s)) s->reportAtEnd = true;
  else warnUnmatched(in, *s, "when its scope ended");
}

void finishProgram(Interpreter& in) {
  State& st = stateOf(in);
  for (const auto& s : st.all) {
    if (!s->ended) continue;
    try {
      resolvePending(in, *s);
    } catch (WeftError& e) {  // no statement is running: point at the map's first key
      if (!e.at.valid() && !s->map->entries.empty()) e.at = s->map->entries[0].at;
      throw;
    }
  }
  for (const auto& s : st.all)
    if (s->reportAtEnd) {
      s->reportAtEnd = false;
      warnUnmatched(in, *s, "by the end of the program");
    }
}

Value layoutMapScopeBuiltin() {
  return makeBuiltin("layout_map_scope", [](Interpreter&, Args& a) {
    ArgReader r(a, "layout_map_scope", {"layout_map"});
    if (!dynamic_cast<LayoutMapObj*>(r.get(0).object()))
      r.fail(0, "must be a LayoutMap, not " + typeNameOf(r.get(0)));
    return r.get(0);  // the map is its own context: `with layout_map_scope(lm)` is `with lm`
  });
}

// LayoutMapObj's `with` support lives here, with the scopes it opens.
void mesh::LayoutMapObj::enter(Interpreter& in) {
  mesh::enterScope(in, std::static_pointer_cast<LayoutMapObj>(shared_from_this()));
}
void mesh::LayoutMapObj::exit(Interpreter& in) { mesh::exitScope(in, *this); }

}  // namespace weft::mesh
