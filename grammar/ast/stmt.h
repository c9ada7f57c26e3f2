// Statement and declaration nodes. A program is a list of statements.
#pragma once
#include "expr.h"

namespace weft::ast {

enum class StmtKind {
  Expr, Assign, AugAssign, If, For, While, Break, Continue, Pass, Return, Assert, With,
  Import, FromImport, Fn, Module, Mesh, LayoutMap,
};

struct Stmt : Node {
  explicit Stmt(StmtKind k) : kind(k) {}
  const StmtKind kind;
};
using StmtPtr = Ptr<Stmt>;
using Block = std::vector<StmtPtr>;

struct ExprStmt : Stmt {
  ExprStmt() : Stmt(StmtKind::Expr) {}
  ExprPtr expr;
};

// `x = e`, `a, (b, c) = e`, `obj.attr = e`, `xs[i] = e`, `a = b = e`.
// A target is a Name, Attribute, Index, or a TupleExpr/ListExpr of targets.
struct Assign : Stmt {
  Assign() : Stmt(StmtKind::Assign) {}
  std::vector<ExprPtr> targets;  // more than one for chained `a = b = e`
  ExprPtr value;
};

// `x += e` (also -=, *=, /=). On a name bound to a Variable, += and -= are assign_add/assign_sub.
struct AugAssign : Stmt {
  AugAssign() : Stmt(StmtKind::AugAssign) {}
  ExprPtr target;  // Name, Attribute or Index
  BinaryOp op = BinaryOp::Add;
  ExprPtr value;
};

struct IfBranch {
  ExprPtr condition;
  Block body;
};

struct If : Stmt {
  If() : Stmt(StmtKind::If) {}
  std::vector<IfBranch> branches;  // `if` then each `elif`
  Block elseBody;
  bool hasElse = false;
};

struct For : Stmt {
  For() : Stmt(StmtKind::For) {}
  ExprPtr target;  // a Name or a tuple pattern
  ExprPtr iterable;
  Block body;
};

struct While : Stmt {
  While() : Stmt(StmtKind::While) {}
  ExprPtr condition;
  Block body;
};

struct Break : Stmt {
  Break() : Stmt(StmtKind::Break) {}
};

struct Continue : Stmt {
  Continue() : Stmt(StmtKind::Continue) {}
};

struct Pass : Stmt {
  Pass() : Stmt(StmtKind::Pass) {}
};

struct Return : Stmt {
  Return() : Stmt(StmtKind::Return) {}
  ExprPtr value;  // optional
};

struct Assert : Stmt {
  Assert() : Stmt(StmtKind::Assert) {}
  ExprPtr condition;
  ExprPtr message;  // optional
};

struct With : Stmt {
  With() : Stmt(StmtKind::With) {}
  ExprPtr context;
  std::optional<Symbol> as;
  Block body;
};

// `import nn`, `import nn as n`, `import "path/file.model" as m`
struct Import : Stmt {
  Import() : Stmt(StmtKind::Import) {}
  std::string module;  // "nn" or the quoted path
  bool isPath = false;
  std::optional<Symbol> as;
};

// `from nn import Dense, relu as r`
struct FromImport : Stmt {
  FromImport() : Stmt(StmtKind::FromImport) {}
  std::string module;
  bool isPath = false;
  struct Item {
    Symbol name = 0;
    std::optional<Symbol> as;
    SourceRange range;
  };
  std::vector<Item> items;
};

struct Decorator {
  ExprPtr expr;  // `@function` is a Name; `@function(jit=true)` a Call
  SourceRange range;
};
// `@function` or TensorFlow's spelling `@tf.function`, called with arguments or not.
bool isGraphFunction(const Decorator& d);

struct FnDecl : Stmt {
  FnDecl() : Stmt(StmtKind::Fn) {}
  Symbol name = 0;
  SourceRange nameRange;
  std::vector<Decorator> decorators;
  std::vector<Param> params;
  Ptr<TypeExpr> returnType;  // optional
  Block body;
};

// `module Name(params) { body }`: the body runs at construction.
struct ModuleDecl : Stmt {
  ModuleDecl() : Stmt(StmtKind::Module) {}
  Symbol name = 0;
  SourceRange nameRange;
  std::vector<Param> params;
  Block body;
};

// `mesh grid(batch=2, model=4)`
struct MeshDecl : Stmt {
  MeshDecl() : Stmt(StmtKind::Mesh) {}
  Symbol name = 0;
  struct Dim {
    Symbol name = 0;
    ExprPtr size;
    SourceRange range;
  };
  std::vector<Dim> dims;
};

// `layout_map shard on grid { "d1.kernel": [_, model] ... }`
struct LayoutMapDecl : Stmt {
  LayoutMapDecl() : Stmt(StmtKind::LayoutMap) {}
  Symbol name = 0;
  Symbol mesh = 0;
  SourceRange meshRange;
  struct Entry {
    std::string key;
    SourceRange keyRange;
    std::vector<std::optional<Symbol>> dims;  // nullopt is `_` (unsharded)
    std::vector<SourceRange> dimRanges;
  };
  std::vector<Entry> entries;
};

struct Program {
  std::shared_ptr<const SourceFile> file;
  Block body;
};

}  // namespace weft::ast
