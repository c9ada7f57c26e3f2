// The context `with name_scope("block") { ... }` and `with self.name_scope { ... }` make, as
// tf.name_scope and tf.Module.name_scope (Interpreter::NameScope).
#pragma once
#include "interpreter.h"

namespace weft {

struct NameScopeObj : OpaqueObj {
  Interpreter::NameScope scope;
  explicit NameScopeObj(Interpreter::NameScope s) : scope(std::move(s)) {}
  std::string typeName() const override { return "name_scope"; }
  std::string repr() const override { return "<name_scope '" + scope.name + "'>"; }
  bool isContext() const override { return true; }
  void enter(Interpreter& in) override { in.pushScope(scope); }
  void exit(Interpreter& in) override { in.popScope(); }
};

}  // namespace weft
