// Whether a program uses meshes or layouts: `weft check` runs such a program on shapes alone
// to check its layouts (docs/layouts.md), and only such a program.
#include "../../grammar/ast/stmt.h"
#include "plan.h"

namespace weft::mesh {
namespace {

const char* kLayoutNames[] = {"Mesh", "Layout", "LayoutMap", "layout_map_scope", "UNSHARDED"};

bool exprUses(const ast::Expr* e);

bool exprsUse(const std::vector<ast::ExprPtr>& es) {
  for (const auto& e : es)
    if (exprUses(e.get())) return true;
  return false;
}

bool exprUses(const ast::Expr* e) {
  if (!e) return false;
  using K = ast::ExprKind;
  switch (e->kind) {
    case K::Name: {
      const std::string& n = symbolName(static_cast<const ast::Name*>(e)->name);
      for (const char* l : kLayoutNames)
        if (n == l) return true;
      return false;
    }
    case K::Attribute: return exprUses(static_cast<const ast::Attribute*>(e)->object.get());
    case K::Index: {
      auto* ix = static_cast<const ast::Index*>(e);
      return exprUses(ix->object.get()) || exprsUse(ix->items);
    }
    case K::Slice: {
      auto* s = static_cast<const ast::Slice*>(e);
      return exprUses(s->lower.get()) || exprUses(s->upper.get()) || exprUses(s->step.get());
    }
    case K::Call: {
      auto* c = static_cast<const ast::Call*>(e);
      if (exprUses(c->callee.get())) return true;
      for (const auto& a : c->args)
        if (exprUses(a.value.get())) return true;
      return false;
    }
    case K::Unary: return exprUses(static_cast<const ast::Unary*>(e)->operand.get());
    case K::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      return exprUses(b->lhs.get()) || exprUses(b->rhs.get());
    }
    case K::Logical: {
      auto* b = static_cast<const ast::Logical*>(e);
      return exprUses(b->lhs.get()) || exprUses(b->rhs.get());
    }
    case K::Compare: return exprsUse(static_cast<const ast::Compare*>(e)->operands);
    case K::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      return exprUses(c->condition.get()) || exprUses(c->thenValue.get()) || exprUses(c->elseValue.get());
    }
    case K::Lambda: return exprUses(static_cast<const ast::Lambda*>(e)->body.get());
    case K::List: return exprsUse(static_cast<const ast::ListExpr*>(e)->items);
    case K::Tuple: return exprsUse(static_cast<const ast::TupleExpr*>(e)->items);
    case K::Dict:
      for (const auto& [k, v] : static_cast<const ast::DictExpr*>(e)->entries)
        if (exprUses(k.get()) || exprUses(v.get())) return true;
      return false;
    default: return false;
  }
}

bool blockUses(const ast::Block& b);

bool stmtUses(const ast::Stmt& s) {
  using K = ast::StmtKind;
  switch (s.kind) {
    case K::Mesh:
    case K::LayoutMap: return true;
    case K::Expr: return exprUses(static_cast<const ast::ExprStmt&>(s).expr.get());
    case K::Assign: {
      auto& a = static_cast<const ast::Assign&>(s);
      return exprUses(a.value.get()) || exprsUse(a.targets);
    }
    case K::AugAssign: return exprUses(static_cast<const ast::AugAssign&>(s).value.get());
    case K::If: {
      auto& i = static_cast<const ast::If&>(s);
      for (const auto& br : i.branches)
        if (exprUses(br.condition.get()) || blockUses(br.body)) return true;
      return blockUses(i.elseBody);
    }
    case K::For: {
      auto& f = static_cast<const ast::For&>(s);
      return exprUses(f.iterable.get()) || blockUses(f.body);
    }
    case K::While: {
      auto& w = static_cast<const ast::While&>(s);
      return exprUses(w.condition.get()) || blockUses(w.body);
    }
    case K::Return: return exprUses(static_cast<const ast::Return&>(s).value.get());
    case K::Assert: return exprUses(static_cast<const ast::Assert&>(s).condition.get());
    case K::With: {
      auto& w = static_cast<const ast::With&>(s);
      return exprUses(w.context.get()) || blockUses(w.body);
    }
    case K::Fn: return blockUses(static_cast<const ast::FnDecl&>(s).body);
    case K::Module: return blockUses(static_cast<const ast::ModuleDecl&>(s).body);
    default: return false;
  }
}

bool blockUses(const ast::Block& b) {
  for (const auto& s : b)
    if (stmtUses(*s)) return true;
  return false;
}

}  // namespace

bool usesLayouts(const ast::Program& program) { return blockUses(program.body); }

namespace {

// A top-level `export(...)` statement: weft check traces exports as it traces graph functions.
bool isExportCall(const ast::Stmt& s) {
  if (s.kind != ast::StmtKind::Expr) return false;
  const ast::Expr& e = *static_cast<const ast::ExprStmt&>(s).expr;
  if (e.kind != ast::ExprKind::Call) return false;
  const ast::Expr& callee = *static_cast<const ast::Call&>(e).callee;
  return callee.kind == ast::ExprKind::Name && symbolName(static_cast<const ast::Name&>(callee).name) == "export";
}

bool hasGraphFunction(const ast::Block& b) {
  for (const auto& s : b) {
    if (isExportCall(*s)) return true;
    if (s->kind == ast::StmtKind::Fn) {
      auto& f = static_cast<const ast::FnDecl&>(*s);
      if (!f.decorators.empty() || hasGraphFunction(f.body)) return true;
    }
    if (s->kind == ast::StmtKind::Module && hasGraphFunction(static_cast<const ast::ModuleDecl&>(*s).body))
      return true;
  }
  return false;
}

}  // namespace

bool hasGraphFunctions(const ast::Program& program) { return hasGraphFunction(program.body); }

}  // namespace weft::mesh
