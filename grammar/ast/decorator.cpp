#include "stmt.h"

namespace weft::ast {

bool isGraphFunction(const Decorator& d) {
  const Expr* e = d.expr.get();
  if (e->kind == ExprKind::Call) e = static_cast<const Call&>(*e).callee.get();
  if (e->kind == ExprKind::Name) return symbolName(static_cast<const Name&>(*e).name) == "function";
  if (e->kind != ExprKind::Attribute) return false;
  auto& a = static_cast<const Attribute&>(*e);
  return symbolName(a.name) == "function" && a.object->kind == ExprKind::Name &&
         symbolName(static_cast<const Name&>(*a.object).name) == "tf";
}

}  // namespace weft::ast
