// Name scopes: the stack behind variable names and the grouping of graph nodes (interpreter.h).
#include "../graph/tracer.h"
#include "interpreter.h"

namespace weft {

Interpreter::ScopeGuard::ScopeGuard(Interpreter& in, NameScope s) : in_(&in) { in_->pushScope(std::move(s)); }
Interpreter::ScopeGuard::~ScopeGuard() {
  if (in_) in_->popScope();
}

std::optional<Interpreter::ScopeGuard> Interpreter::methodScope(const FunctionObj& fn) {
  std::optional<ScopeGuard> guard;
  Value* self = fn.closure ? fn.closure->find(intern("self")) : nullptr;
  if (!self || !self->is(Kind::Module)) return guard;
  auto* m = self->as<ModuleObj>();
  if (scopes_.empty() || scopes_.back().module != m) guard.emplace(*this, NameScope{m->name, m, false});
  return guard;
}

void Interpreter::pushScope(NameScope s) {
  scopes_.push_back(std::move(s));
  if (auto* t = graph::Tracer::active()) t->scope = graphScope();
}

void Interpreter::popScope() {
  scopes_.pop_back();
  if (auto* t = graph::Tracer::active()) t->scope = graphScope();
}

std::string Interpreter::variableScope() const {
  std::string path;
  for (const NameScope& s : scopes_)
    if (s.explicitScope) path += (path.empty() ? "" : "/") + s.name;
  return path;
}

std::string Interpreter::graphScope() const {
  std::string path;
  const ModuleObj* last = nullptr;
  for (const NameScope& s : scopes_) {
    if (s.module && s.module == last) continue;  // `with self.name_scope` inside its own method
    path += (path.empty() ? "" : "/") + s.name;
    last = s.module;
  }
  return path;
}

}  // namespace weft
