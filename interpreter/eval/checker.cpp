#include "checker.h"

#include <functional>
#include <optional>
#include <vector>

#include "../values/objects.h"
#include "stack_bound.h"
#include "suggest.h"

namespace weft {
namespace {

using Scope = std::set<Symbol>;

// `augmented`: whether `x += 1` binds x. It does for the scope (the name is the function's), but
// it cannot be the binding that makes x hold a value: it reads x first.
void bindStmt(const ast::Stmt& st, Scope& s, bool augmented = true);

// Every name a block binds, wherever in it (a name is local to its whole function, as in Python).
void bindBlock(const ast::Block& b, Scope& s, bool augmented = true) {
  for (const auto& st : b) bindStmt(*st, s, augmented);
}
void bindTarget(const ast::Expr& t, Scope& s) {
  if (t.kind == ast::ExprKind::Name) s.insert(static_cast<const ast::Name&>(t).name);
  const std::vector<ast::ExprPtr>* items = nullptr;
  if (t.kind == ast::ExprKind::Tuple) items = &static_cast<const ast::TupleExpr&>(t).items;
  if (t.kind == ast::ExprKind::List) items = &static_cast<const ast::ListExpr&>(t).items;
  if (items)
    for (const auto& i : *items) bindTarget(*i, s);
}
void bindStmt(const ast::Stmt& st, Scope& s, bool augmented) {
  using K = ast::StmtKind;
  switch (st.kind) {
    case K::Assign:
      for (const auto& t : static_cast<const ast::Assign&>(st).targets) bindTarget(*t, s);
      break;
    case K::AugAssign:
      if (augmented) bindTarget(*static_cast<const ast::AugAssign&>(st).target, s);
      break;
    case K::For: {
      auto& f = static_cast<const ast::For&>(st);
      bindTarget(*f.target, s);
      bindBlock(f.body, s, augmented);
      break;
    }
    case K::If: {
      auto& i = static_cast<const ast::If&>(st);
      for (const auto& br : i.branches) bindBlock(br.body, s, augmented);
      bindBlock(i.elseBody, s, augmented);
      break;
    }
    case K::While: bindBlock(static_cast<const ast::While&>(st).body, s, augmented); break;
    case K::With: {
      auto& w = static_cast<const ast::With&>(st);
      if (w.as) s.insert(*w.as);
      bindBlock(w.body, s, augmented);
      break;
    }
    case K::Import: {
      auto& im = static_cast<const ast::Import&>(st);
      s.insert(im.as.value_or(intern(im.module)));
      break;
    }
    case K::FromImport:
      for (const auto& item : static_cast<const ast::FromImport&>(st).items) s.insert(item.as.value_or(item.name));
      break;
    case K::Fn: s.insert(static_cast<const ast::FnDecl&>(st).name); break;
    case K::Module: s.insert(static_cast<const ast::ModuleDecl&>(st).name); break;
    case K::Mesh: s.insert(static_cast<const ast::MeshDecl&>(st).name); break;
    case K::LayoutMap: s.insert(static_cast<const ast::LayoutMapDecl&>(st).name); break;
    default: break;
  }
}

// A value that is never a Variable, whatever it reads: `x += 1` cannot change a name holding one
// in place.
bool neverVariable(const ast::Expr& e) {
  using K = ast::ExprKind;
  switch (e.kind) {
    case K::Int: case K::Float: case K::String: case K::Bool: case K::None: case K::FString: case K::List:
    case K::Tuple: case K::Dict: case K::ListComp: case K::Binary: case K::Unary: case K::Compare: case K::Lambda:
      return true;
    default: return false;
  }
}

// The names that a block's own statements bind to such values only (`count = 0`); a name bound by
// anything else as well, or inside a nested statement, may hold a Variable.
Scope neverVariables(const ast::Block& b) {
  Scope never, other;
  for (const auto& st : b) {
    if (st->kind == ast::StmtKind::Assign && neverVariable(*static_cast<const ast::Assign&>(*st).value))
      for (const auto& t : static_cast<const ast::Assign&>(*st).targets) bindTarget(*t, never);
    else
      bindStmt(*st, other);
  }
  for (Symbol n : other) never.erase(n);
  return never;
}

class NameChecker {
 public:
  NameChecker(const KnownNames& known, Diagnostics& diags, const GlobalCallFn& onGlobalCall)
      : known_(known), diags_(diags), onGlobalCall_(onGlobalCall) {}

  void checkProgram(const ast::Program& p) {
    Scope globals;
    bindBlock(p.body, globals);
    Scope never = neverVariables(p.body);
    scopes_.push_back({&globals, &never, "global"});
    block(p.body);
  }

 private:
  // `self.x = ...` anywhere in a module's methods makes `x` an attribute.
  void bindSelfAttrs(const ast::Block& b, Scope& s) {
    for (const auto& st : b) {
      if (st->kind == ast::StmtKind::Assign)
        for (const auto& t : static_cast<const ast::Assign&>(*st).targets)
          if (t->kind == ast::ExprKind::Attribute) s.insert(static_cast<const ast::Attribute&>(*t).name);
      if (st->kind == ast::StmtKind::Fn) bindSelfAttrs(static_cast<const ast::FnDecl&>(*st).body, s);
      if (st->kind == ast::StmtKind::If)
        for (const auto& br : static_cast<const ast::If&>(*st).branches) bindSelfAttrs(br.body, s);
      if (st->kind == ast::StmtKind::For) bindSelfAttrs(static_cast<const ast::For&>(*st).body, s);
    }
  }

  // A scope, and which of its names hold no Variable (null where that is not known).
  struct ScopeInfo {
    const Scope* names;
    const Scope* neverVariable;
    const char* whose;  // "global", "module attribute", ...: for messages
  };

  // The function whose body is being walked, and which of its names may hold a value so far.
  struct FunctionState {
    std::string name;
    size_t scope;    // its locals' index in scopes_
    Scope assigned;  // its parameters and the names it binds other than by `x += ...`
    Scope bound;     // those some path may have bound by now (a loop's body binds before it, for later turns)
  };

  bool visible(Symbol n) const {
    for (const ScopeInfo& s : scopes_)
      if (s.names->count(n)) return true;
    return known_.contains(n);
  }

  // The index in scopes_ of the innermost scope below `end` binding n, or nullopt.
  std::optional<size_t> innermost(Symbol n, size_t end) const {
    for (size_t i = end; i-- > 0;)
      if (scopes_[i].names->count(n)) return i;
    return std::nullopt;
  }

  void use(const ast::Name& n) {
    if (!visible(n.name)) {
      std::vector<std::string> cands;
      for (const ScopeInfo& s : scopes_)
        for (Symbol x : *s.names) cands.push_back(symbolName(x));
      for (Symbol x : known_.all()) cands.push_back(symbolName(x));  // the builtins and the prelude too
      diags_.error(n.range, undefinedNameMessage(symbolName(n.name), cands));
      return;
    }
    FunctionState* f = place_.fn;
    if (f && innermost(n.name, scopes_.size()) == f->scope && f->assigned.count(n.name) && !f->bound.count(n.name)) {
      bool outer = innermost(n.name, f->scope).has_value() || known_.contains(n.name);
      diags_.error(n.range, readBeforeAssignmentMessage(f->name, symbolName(n.name), outer));
      f->bound.insert(n.name);  // one error per name
    }
  }

  // `tf.math.reduce_mean` with tf bound nowhere: reported as TensorFlow's name for a builtin.
  bool libraryPrefix(const ast::Attribute& a) {
    const ast::Expr* root = a.object.get();
    while (root->kind == ast::ExprKind::Attribute) root = static_cast<const ast::Attribute&>(*root).object.get();
    if (root->kind != ast::ExprKind::Name) return false;
    Symbol prefix = static_cast<const ast::Name&>(*root).name;
    if (visible(prefix) || !libraryOfPrefix(symbolName(prefix))) return false;
    std::vector<std::string> builtins;
    for (Symbol x : known_.all()) builtins.push_back(symbolName(x));
    diags_.error(root->range,
                 libraryPrefixMessage(symbolName(prefix), symbolName(a.name), known_.contains(a.name), builtins));
    return true;
  }

  // `tf.reduce_meen` through a namespace the program does not bind itself (tf, keras): each name
  // of the chain is checked as a member. True when one is not (it is reported).
  bool namespaceMember(const ast::Attribute& a) {
    std::vector<const ast::Attribute*> chain;  // outermost first
    const ast::Expr* root = &a;
    for (; root->kind == ast::ExprKind::Attribute; root = static_cast<const ast::Attribute&>(*root).object.get())
      chain.push_back(static_cast<const ast::Attribute*>(root));
    if (root->kind != ast::ExprKind::Name) return false;
    Symbol prefix = static_cast<const ast::Name&>(*root).name;
    for (const ScopeInfo& s : scopes_)
      if (s.names->count(prefix)) return false;
    const Value* v = known_.value(prefix);
    for (auto it = chain.rbegin(); it != chain.rend() && v && v->is(Kind::Namespace); ++it) {
      auto* ns = v->as<NamespaceObj>();
      v = ns->env->findLocal((*it)->name);
      if (v) continue;
      diags_.error((*it)->nameRange, noMemberMessage(ns->name, symbolName((*it)->name), ns->memberNames()));
      return true;
    }
    return false;
  }

  // `x += v` of a name the function does not assign otherwise changes the x it sees outside,
  // which only a Variable's `+=` and `-=` do (exec.cpp); a name bound outside to values alone
  // (`count = 0`) cannot hold one.
  void augmentOuter(const ast::AugAssign& a) {
    FunctionState* f = place_.fn;
    if (!f || a.target->kind != ast::ExprKind::Name) return;
    Symbol n = static_cast<const ast::Name&>(*a.target).name;
    if (f->assigned.count(n)) return;  // its own: use() checks the read
    std::optional<size_t> i = innermost(n, f->scope);
    if (!i && !known_.contains(n)) {
      diags_.error(a.target->range, readBeforeAssignmentMessage(f->name, symbolName(n), false));
    } else if (i && ((a.op != ast::BinaryOp::Add && a.op != ast::BinaryOp::Sub) ||
                     (scopes_[*i].neverVariable && scopes_[*i].neverVariable->count(n)))) {
      diags_.error(a.target->range,
                   augmentedOuterMessage(f->name, symbolName(n), ast::binaryOpText(a.op), scopes_[*i].whose));
    }
  }

  void params(const std::vector<ast::Param>& ps, Scope& s) {
    for (const auto& p : ps) {
      if (p.defaultValue) expr(*p.defaultValue);
      s.insert(p.name);
    }
  }

  void withScope(ScopeInfo s, const std::function<void()>& body) {
    scopes_.push_back(s);
    body();
    scopes_.pop_back();
  }

  // Where a statement is: `return` needs a function and `break` a loop of the same function (a
  // loop around the call does not count).
  struct Place {
    bool inFunction = false, inLoop = false;
    FunctionState* fn = nullptr;  // none in a module body, a lambda or at top level
  };
  void within(Place p, const std::function<void()>& body) {
    Place saved = place_;
    place_ = p;
    body();
    place_ = saved;
  }

  void block(const ast::Block& b) {
    for (const auto& st : b) {
      stmt(*st);
      if (place_.fn) bindStmt(*st, place_.fn->bound, false);
    }
  }

  void stmt(const ast::Stmt& st) {
    using K = ast::StmtKind;
    switch (st.kind) {
      case K::Expr: expr(*static_cast<const ast::ExprStmt&>(st).expr); break;
      case K::Assign: {
        auto& a = static_cast<const ast::Assign&>(st);
        expr(*a.value);
        for (const auto& t : a.targets) target(*t);
        break;
      }
      case K::AugAssign: {
        auto& a = static_cast<const ast::AugAssign&>(st);
        expr(*a.target);
        expr(*a.value);
        augmentOuter(a);
        break;
      }
      case K::If: {
        auto& i = static_cast<const ast::If&>(st);
        for (const auto& br : i.branches) expr(*br.condition), block(br.body);
        block(i.elseBody);
        break;
      }
      case K::For: {
        auto& f = static_cast<const ast::For&>(st);
        expr(*f.iterable);
        if (place_.fn) bindTarget(*f.target, place_.fn->bound), bindBlock(f.body, place_.fn->bound, false);
        within({place_.inFunction, true, place_.fn}, [&] { block(f.body); });
        break;
      }
      case K::While: {
        auto& w = static_cast<const ast::While&>(st);
        expr(*w.condition);
        if (place_.fn) bindBlock(w.body, place_.fn->bound, false);
        within({place_.inFunction, true, place_.fn}, [&] { block(w.body); });
        break;
      }
      case K::Break:
      case K::Continue:
        if (!place_.inLoop)
          diags_.error(st.range, std::string(st.kind == K::Break ? "'break'" : "'continue'") + " outside a loop");
        break;
      case K::Return:
        if (!place_.inFunction) diags_.error(st.range, "'return' outside a function");
        if (auto& v = static_cast<const ast::Return&>(st).value) expr(*v);
        break;
      case K::Assert: {
        auto& a = static_cast<const ast::Assert&>(st);
        expr(*a.condition);
        if (a.message) expr(*a.message);
        break;
      }
      case K::With: {
        auto& w = static_cast<const ast::With&>(st);
        expr(*w.context);
        block(w.body);
        break;
      }
      case K::Fn: {
        auto& f = static_cast<const ast::FnDecl&>(st);
        // A decorator's arguments (`@function(input_signature=[TensorSpec(...)])`) are read
        // where the function is declared; its callee is syntax, not a name (exec.cpp).
        for (const auto& d : f.decorators)
          if (d.expr->kind == ast::ExprKind::Call)
            for (const auto& a : static_cast<const ast::Call&>(*d.expr).args) expr(*a.value);
        Scope local;
        params(f.params, local);
        bindBlock(f.body, local);
        FunctionState state{symbolName(f.name), scopes_.size(), {}, {}};
        for (const auto& p : f.params) state.assigned.insert(p.name), state.bound.insert(p.name);
        bindBlock(f.body, state.assigned, false);
        Scope never = neverVariables(f.body);
        within({true, false, &state},
               [&] { withScope({&local, &never, "enclosing function's"}, [&] { block(f.body); }); });
        break;
      }
      case K::Module: {
        auto& m = static_cast<const ast::ModuleDecl&>(st);
        Scope ps;
        params(m.params, ps);
        ps.insert(intern("self"));
        Scope attrs;
        bindBlock(m.body, attrs);
        bindSelfAttrs(m.body, attrs);
        Scope never = neverVariables(m.body);
        within({}, [&] {
          withScope({&ps, nullptr, "module parameter"}, [&] {
            withScope({&attrs, &never, "module attribute"}, [&] { block(m.body); });
          });
        });
        break;
      }
      case K::Mesh:
        for (const auto& d : static_cast<const ast::MeshDecl&>(st).dims) expr(*d.size);
        break;
      case K::LayoutMap: {
        auto& lm = static_cast<const ast::LayoutMapDecl&>(st);
        if (!visible(lm.mesh)) diags_.error(lm.meshRange, "mesh '" + symbolName(lm.mesh) + "' is not defined");
        break;
      }
      default: break;
    }
  }

  void target(const ast::Expr& t) {
    switch (t.kind) {
      case ast::ExprKind::Attribute: expr(*static_cast<const ast::Attribute&>(t).object); break;
      case ast::ExprKind::Index: {
        auto& ix = static_cast<const ast::Index&>(t);
        expr(*ix.object);
        for (const auto& i : ix.items) expr(*i);
        break;
      }
      case ast::ExprKind::Tuple:
        for (const auto& i : static_cast<const ast::TupleExpr&>(t).items) target(*i);
        break;
      case ast::ExprKind::List:
        for (const auto& i : static_cast<const ast::ListExpr&>(t).items) target(*i);
        break;
      default: break;
    }
  }

  void expr(const ast::Expr& e) {
    using K = ast::ExprKind;
    // The evaluator's bound (eval.cpp), met here first: a chain of 20,000 calls is that many levels.
    if (stackNearlyFull(size_t(256) << 10)) throw WeftError(e.range, kExpressionTooDeep);
    switch (e.kind) {
      case K::Name: use(static_cast<const ast::Name&>(e)); break;
      case K::Attribute: {
        auto& a = static_cast<const ast::Attribute&>(e);
        if (!libraryPrefix(a) && !namespaceMember(a)) expr(*a.object);
        break;
      }
      case K::Index: {
        auto& ix = static_cast<const ast::Index&>(e);
        expr(*ix.object);
        for (const auto& i : ix.items) expr(*i);
        break;
      }
      case K::Slice: {
        auto& s = static_cast<const ast::Slice&>(e);
        for (const ast::Expr* p : {s.lower.get(), s.upper.get(), s.step.get()})
          if (p) expr(*p);
        break;
      }
      case K::Call: {
        auto& c = static_cast<const ast::Call&>(e);
        if (onGlobalCall_ && c.callee->kind == K::Name) {
          Symbol callee = static_cast<const ast::Name&>(*c.callee).name;
          bool local = false;  // scopes_[0] holds the globals
          for (size_t i = 1; i < scopes_.size(); ++i) local |= scopes_[i].names->count(callee) > 0;
          if (!local) onGlobalCall_(c, callee);
        }
        expr(*c.callee);
        for (const auto& a : c.args) expr(*a.value);
        break;
      }
      case K::Unary: expr(*static_cast<const ast::Unary&>(e).operand); break;
      case K::Binary: {
        auto& b = static_cast<const ast::Binary&>(e);
        expr(*b.lhs);
        expr(*b.rhs);
        break;
      }
      case K::Compare:
        for (const auto& o : static_cast<const ast::Compare&>(e).operands) expr(*o);
        break;
      case K::Logical: {
        auto& l = static_cast<const ast::Logical&>(e);
        expr(*l.lhs);
        expr(*l.rhs);
        break;
      }
      case K::Conditional: {
        auto& c = static_cast<const ast::Conditional&>(e);
        expr(*c.condition);
        expr(*c.thenValue);
        expr(*c.elseValue);
        break;
      }
      case K::Lambda: {
        auto& l = static_cast<const ast::Lambda&>(e);
        Scope local;
        params(l.params, local);
        // Its body runs when it is called, after the names around it are bound.
        within({place_.inFunction, place_.inLoop, nullptr},
               [&] { withScope({&local, nullptr, "parameter"}, [&] { expr(*l.body); }); });
        break;
      }
      case K::List:
        for (const auto& i : static_cast<const ast::ListExpr&>(e).items) expr(*i);
        break;
      case K::Tuple:
        for (const auto& i : static_cast<const ast::TupleExpr&>(e).items) expr(*i);
        break;
      case K::Dict:
        for (const auto& [k, v] : static_cast<const ast::DictExpr&>(e).entries) expr(*k), expr(*v);
        break;
      case K::ListComp: {  // its loop variables are its own, as in Python 3
        auto& c = static_cast<const ast::ListComp&>(e);
        Scope local;
        for (const auto& clause : c.clauses) bindTarget(*clause.target, local);
        expr(*c.clauses[0].iterable);  // the first iterable is evaluated outside
        withScope({&local, nullptr, "comprehension"}, [&] {
          for (size_t i = 0; i < c.clauses.size(); ++i) {
            if (i) expr(*c.clauses[i].iterable);
            for (const auto& cond : c.clauses[i].conditions) expr(*cond);
          }
          if (c.key) expr(*c.key);
          expr(*c.element);
        });
        break;
      }
      case K::FString:
        for (const auto& p : static_cast<const ast::FString&>(e).parts)
          if (p.value) expr(*p.value);
        break;
      default: break;
    }
  }

  const KnownNames& known_;
  Diagnostics& diags_;
  const GlobalCallFn& onGlobalCall_;
  std::vector<ScopeInfo> scopes_;
  Place place_;
};

}  // namespace

void bindNames(const ast::Stmt& st, std::set<Symbol>& out) { bindStmt(st, out); }

bool KnownNames::contains(Symbol s) const { return set_ ? set_->count(s) > 0 : scope_->find(s) != nullptr; }

const Value* KnownNames::value(Symbol s) const { return scope_ ? scope_->find(s) : nullptr; }

std::vector<Symbol> KnownNames::all() const {
  if (set_) return {set_->begin(), set_->end()};
  std::vector<Symbol> names;
  for (Env* e = scope_; e; e = e->parent().get())
    for (const auto& [k, v] : e->entries()) names.push_back(k);
  return names;
}

void checkNames(const ast::Program& program, const KnownNames& known, Diagnostics& diags,
                const GlobalCallFn& onGlobalCall) {
  NameChecker(known, diags, onGlobalCall).checkProgram(program);
}

std::string readBeforeAssignmentMessage(const std::string& fn, const std::string& name, bool outer) {
  std::string msg = "'" + name + "' is read before " + fn + "() assigns it: a name that a function assigns is its " +
                    "own throughout it (Python's UnboundLocalError)";
  return outer ? msg + "; to change the outer '" + name + "', keep it in a Variable (" + name + ".assign(...)), or "
                       "return the new value"
               : msg;
}

std::string augmentedOuterMessage(const std::string& fn, const std::string& name, const std::string& op,
                                  const std::string& whose) {
  std::string msg = fn + "() cannot change the " + whose + " '" + name + "' with '" + op + "=': it would make a new '" +
                    name + "' of its own (Python's UnboundLocalError); ";
  if (whose == "module attribute") return msg + "write self." + name + " " + op + "= ...";
  return msg + "keep it in a Variable (" + name + " = Variable(...)), which += and -= change in place, or return the "
               "new value";
}

}  // namespace weft
