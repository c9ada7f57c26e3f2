// Expression nodes. Each kind has an ExprKind tag so the evaluator dispatches with one switch.
#pragma once
#include <optional>

#include "node.h"
#include "type.h"

namespace weft::ast {

enum class ExprKind {
  Int, Float, String, Bool, None, Name, Attribute, Index, Call, Unary, Binary, Compare,
  Logical, Conditional, Lambda, List, Tuple, Dict, ListComp, FString,
  Slice,     // only inside Index::items
  Ellipsis,  // only inside Index::items
};

struct Expr : Node {
  explicit Expr(ExprKind k) : kind(k) {}
  const ExprKind kind;
};
using ExprPtr = Ptr<Expr>;

struct IntLit : Expr {
  IntLit() : Expr(ExprKind::Int) {}
  int64_t value = 0;
};

struct FloatLit : Expr {
  FloatLit() : Expr(ExprKind::Float) {}
  double value = 0;
};

struct StringLit : Expr {
  StringLit() : Expr(ExprKind::String) {}
  std::string value;  // escapes already decoded
};

struct BoolLit : Expr {
  BoolLit() : Expr(ExprKind::Bool) {}
  bool value = false;
};

struct NoneLit : Expr {
  NoneLit() : Expr(ExprKind::None) {}
};

struct Name : Expr {
  Name() : Expr(ExprKind::Name) {}
  Symbol name = 0;
};

struct Attribute : Expr {
  Attribute() : Expr(ExprKind::Attribute) {}
  ExprPtr object;
  Symbol name = 0;
  SourceRange nameRange;
};

// `a[:, 1:3]`: lower, upper and step are each optional.
struct Slice : Expr {
  Slice() : Expr(ExprKind::Slice) {}
  ExprPtr lower, upper, step;
};

struct EllipsisExpr : Expr {
  EllipsisExpr() : Expr(ExprKind::Ellipsis) {}
};

struct Index : Expr {
  Index() : Expr(ExprKind::Index) {}
  ExprPtr object;
  std::vector<ExprPtr> items;  // expressions, Slice or EllipsisExpr; `a[i, j]` has two items
};

struct Argument {
  std::optional<Symbol> keyword;  // `axis=1`
  ExprPtr value;
  SourceRange range;
};

struct Call : Expr {
  Call() : Expr(ExprKind::Call) {}
  ExprPtr callee;
  std::vector<Argument> args;  // positional ones first (the builder checks)
};

enum class UnaryOp { Neg, Pos, Not };

struct Unary : Expr {
  Unary() : Expr(ExprKind::Unary) {}
  UnaryOp op = UnaryOp::Neg;
  ExprPtr operand;
};

// BitAnd and BitOr are `&` and `|`: a set's intersection and union, a bool tensor's and/or.
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, BitAnd, BitOr };
const char* binaryOpText(BinaryOp op);

struct Binary : Expr {
  Binary() : Expr(ExprKind::Binary) {}
  BinaryOp op = BinaryOp::Add;
  ExprPtr lhs, rhs;
};

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot };
const char* compareOpText(CompareOp op);

// `a < b <= c` is one node with operands {a, b, c} and ops {Lt, Le}, as in Python.
struct Compare : Expr {
  Compare() : Expr(ExprKind::Compare) {}
  std::vector<ExprPtr> operands;
  std::vector<CompareOp> ops;
};

struct Logical : Expr {
  Logical() : Expr(ExprKind::Logical) {}
  bool isAnd = true;  // `and`; else `or`
  ExprPtr lhs, rhs;
};

struct Conditional : Expr {
  Conditional() : Expr(ExprKind::Conditional) {}
  ExprPtr condition, thenValue, elseValue;
};

struct Param {
  Symbol name = 0;
  Ptr<TypeExpr> type;  // optional annotation
  ExprPtr defaultValue;  // optional
  SourceRange range;
};

// `fn(x, y) => x * y`
struct Lambda : Expr {
  Lambda() : Expr(ExprKind::Lambda) {}
  std::vector<Param> params;
  ExprPtr body;
};

// `[a, b]`, or the set `{a, b}` (isSet).
struct ListExpr : Expr {
  ListExpr() : Expr(ExprKind::List) {}
  std::vector<ExprPtr> items;
  bool isSet = false;
};

struct TupleExpr : Expr {
  TupleExpr() : Expr(ExprKind::Tuple) {}
  std::vector<ExprPtr> items;
};

struct DictExpr : Expr {
  DictExpr() : Expr(ExprKind::Dict) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> entries;
};

// `[element for target in iterable if condition ...]`, clauses nesting left to right as in Python.
struct ListComp : Expr {
  ListComp() : Expr(ExprKind::ListComp) {}
  struct Clause {
    ExprPtr target, iterable;
    std::vector<ExprPtr> conditions;
  };
  ExprPtr element;  // a dict comprehension's value
  ExprPtr key;      // a dict comprehension's key ({k: v for ...}); null for a list or a set
  bool isSet = false;  // `{x for ...}`
  std::vector<Clause> clauses;
};

// f"loss {l:.4f}": text parts, and values with a format spec (Python's mini-language).
struct FString : Expr {
  FString() : Expr(ExprKind::FString) {}
  struct Part {
    std::string text;  // when value is null
    ExprPtr value;
    std::string spec;
    char conversion = 0;  // 'r' (repr) or 's' (str), applied before the spec: `{x!r}`
  };
  std::vector<Part> parts;
};

}  // namespace weft::ast
