#include "ast_builder.h"

#include <algorithm>
#include <charconv>
#include <typeinfo>
#include <unordered_set>

#include "lexing.h"
#include "tree/ErrorNodeImpl.h"
#include "tree/TerminalNodeImpl.h"

namespace weft::syntax {

using antlr4::Token;
using antlr4::tree::ParseTree;
using P = gen::WeftParser;
using namespace weft::ast;

namespace {

// Exact-type test for a rule context. typeid compares type_info addresses first; dynamic_cast
// walks the class hierarchy comparing mangled names at every level.
template <class T>
T* as(ParseTree* t) {
  return t && typeid(*t) == typeid(T) ? static_cast<T*>(t) : nullptr;
}

// The child as a rule context, or null for a token (terminal and error nodes derive from
// ParseTree through a virtual base, so tokens are never cast: they are read from the list).
antlr4::ParserRuleContext* ruleAt(ParseTree* t) {
  if (!t || typeid(*t) == typeid(antlr4::tree::TerminalNodeImpl) || typeid(*t) == typeid(antlr4::tree::ErrorNodeImpl))
    return nullptr;
  return static_cast<antlr4::ParserRuleContext*>(t);
}

P::ExprContext* exprAt(ParseTree* t) {
  antlr4::ParserRuleContext* r = ruleAt(t);
  return r && r->getRuleIndex() == P::RuleExpr ? static_cast<P::ExprContext*>(r) : nullptr;
}

ParseTree* childAt(antlr4::ParserRuleContext* ctx, size_t i) {
  return i < ctx->children.size() ? ctx->children[i] : nullptr;
}

const char* describe(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Int: case ExprKind::Float: case ExprKind::String: case ExprKind::Bool:
    case ExprKind::None: return "a literal";
    case ExprKind::Call: return "a function call";
    case ExprKind::Unary: case ExprKind::Binary: case ExprKind::Compare:
    case ExprKind::Logical: return "an operator expression";
    case ExprKind::Conditional: return "a conditional expression";
    case ExprKind::Lambda: return "a lambda";
    case ExprKind::Dict: return "a dict literal";
    case ExprKind::List: return static_cast<const ListExpr&>(e).isSet ? "a set" : "a list";
    case ExprKind::ListComp: {
      auto& c = static_cast<const ListComp&>(e);
      return c.key ? "a dict comprehension" : c.isSet ? "a set comprehension" : "a list comprehension";
    }
    case ExprKind::FString: return "an f-string";
    case ExprKind::Tuple: return "a tuple";
    default: return "this expression";
  }
}

BinaryOp binaryOp(size_t token) {
  switch (token) {
    case P::PLUS: case P::PLUS_EQ: return BinaryOp::Add;
    case P::MINUS: case P::MINUS_EQ: return BinaryOp::Sub;
    case P::STAR: case P::STAR_EQ: return BinaryOp::Mul;
    case P::SLASH: case P::SLASH_EQ: return BinaryOp::Div;
    case P::DSLASH: case P::DSLASH_EQ: return BinaryOp::FloorDiv;
    case P::PERCENT: case P::PERCENT_EQ: return BinaryOp::Mod;
    case P::POW: case P::POW_EQ: return BinaryOp::Pow;
    case P::AMP: case P::AMP_EQ: return BinaryOp::BitAnd;
    case P::BAR: case P::BAR_EQ: return BinaryOp::BitOr;
    default: return BinaryOp::MatMul;
  }
}

// A comparison operator from its first and last tokens (`not in`, `is not`).
CompareOp compareOp(size_t token, size_t last) {
  switch (token) {
    case P::EQ: return CompareOp::Eq;
    case P::NE: return CompareOp::Ne;
    case P::LT: return CompareOp::Lt;
    case P::LE: return CompareOp::Le;
    case P::GT: return CompareOp::Gt;
    case P::GE: return CompareOp::Ge;
    case P::IN: return CompareOp::In;
    case P::IS: return last == P::NOT ? CompareOp::IsNot : CompareOp::Is;
    default: return CompareOp::NotIn;  // `not in`
  }
}

// The left-associative binary forms, built by transformChain without recursing down the left.
enum class Chain { None, Arith, Compare, And, Or };

Chain chainKind(P::ExprContext* ctx) {
  const std::type_info& t = typeid(*ctx);
  if (t == typeid(P::AddExprContext) || t == typeid(P::MulExprContext) || t == typeid(P::BitAndExprContext) ||
      t == typeid(P::BitOrExprContext))
    return Chain::Arith;
  if (t == typeid(P::CompareExprContext)) return Chain::Compare;
  if (t == typeid(P::AndExprContext)) return Chain::And;
  if (t == typeid(P::OrExprContext)) return Chain::Or;
  return Chain::None;
}

}  // namespace

// ---- helpers ---------------------------------------------------------------------------------

SourceRange AstBuilder::range(const Token* first, const Token* last) const {
  if (!first) return {};
  SourcePos b = tokenBegin(first);
  SourcePos e = last && last->getTokenIndex() >= first->getTokenIndex() ? tokenEnd(last) : tokenEnd(first);
  return {file_, b, e};
}

SourceRange AstBuilder::range(const Token* t) const { return range(t, t); }

const Token* AstBuilder::tokenAfter(const Token* t) const {
  size_t i = t->getTokenIndex() + 1;
  return i < tokens_.size() ? &tokens_[i] : t;
}

SourceRange AstBuilder::range(antlr4::ParserRuleContext* ctx) const {
  return ctx ? range(ctx->start, ctx->stop) : SourceRange{};
}

void AstBuilder::error(const SourceRange& at, std::string message) { errors_.add(at.begin, at.end, std::move(message)); }

ExprPtr AstBuilder::missing(antlr4::ParserRuleContext* ctx) { return node<NoneLit>(range(ctx)); }

void AstBuilder::checkTarget(const Expr& e, const char* what) {
  switch (e.kind) {
    case ExprKind::Name: case ExprKind::Attribute: case ExprKind::Index:
      return;
    case ExprKind::Tuple:
      for (auto& item : static_cast<const TupleExpr&>(e).items) checkTarget(*item, what);
      return;
    case ExprKind::List:
      if (static_cast<const ListExpr&>(e).isSet) break;
      for (auto& item : static_cast<const ListExpr&>(e).items) checkTarget(*item, what);
      return;
    default: break;
  }
  error(e.range, std::string(what) + describe(e));
}

std::string AstBuilder::decodeString(const Token* t) {
  std::vector<LiteralError> problems;
  std::string value = decodeStringLiteral(t->getText(), tokenBegin(t), problems);
  for (auto& p : problems) errors_.add(p.at, {p.at.line, p.at.col + 1}, std::move(p.message));
  return value;
}

Symbol AstBuilder::transformName(P::NameContext* ctx) { return intern(ctx && ctx->start ? ctx->start->getText() : ""); }

// ---- statements ------------------------------------------------------------------------------

void AstBuilder::transformProgram(P::ProgramContext& ctx, const std::vector<size_t>& errorTokens, Program& out) {
  for (P::StatementContext* s : ctx.statement()) {
    if (!s->start || !s->stop) continue;
    size_t first = s->start->getTokenIndex(), last = s->stop->getTokenIndex();
    auto err = std::lower_bound(errorTokens.begin(), errorTokens.end(), first);
    if (err != errorTokens.end() && *err <= last) continue;
    if (StmtPtr stmt = transformStatement(*s)) out.body.push_back(std::move(stmt));
  }
}

void AstBuilder::transformTopLevel(P::StatementContext& ctx, Program& out) {
  if (StmtPtr stmt = transformStatement(ctx)) out.body.push_back(std::move(stmt));
}

StmtPtr AstBuilder::transformStatement(P::StatementContext& ctx) {
  if (!ctx.start) return nullptr;
  switch (ctx.start->getType()) {
    case P::PASS: return node<Pass>(range(ctx.start));
    case P::BREAK: return node<Break>(range(ctx.start));
    case P::CONTINUE: return node<Continue>(range(ctx.start));
    default: break;
  }
  antlr4::ParserRuleContext* rc = ruleAt(childAt(&ctx, 0));
  if (!rc) return nullptr;
  switch (rc->getRuleIndex()) {
    case P::RuleExprStmt: return transformExprStmt(static_cast<P::ExprStmtContext&>(*rc));
    case P::RuleReturnStmt: return transformReturnStmt(static_cast<P::ReturnStmtContext&>(*rc));
    case P::RuleAssertStmt: return transformAssertStmt(static_cast<P::AssertStmtContext&>(*rc));
    case P::RuleImportStmt: return transformImportStmt(static_cast<P::ImportStmtContext&>(*rc));
    case P::RuleFromImportStmt: return transformFromImportStmt(static_cast<P::FromImportStmtContext&>(*rc));
    case P::RuleMeshDecl: return transformMeshDecl(static_cast<P::MeshDeclContext&>(*rc));
    case P::RuleIfStmt: return transformIfStmt(static_cast<P::IfStmtContext&>(*rc));
    case P::RuleForStmt: return transformForStmt(static_cast<P::ForStmtContext&>(*rc));
    case P::RuleWhileStmt: return transformWhileStmt(static_cast<P::WhileStmtContext&>(*rc));
    case P::RuleWithStmt: return transformWithStmt(static_cast<P::WithStmtContext&>(*rc));
    case P::RuleFnDecl: return transformFnDecl(static_cast<P::FnDeclContext&>(*rc));
    case P::RuleModuleDecl: return transformModuleDecl(static_cast<P::ModuleDeclContext&>(*rc));
    case P::RuleLayoutMapDecl: return transformLayoutMapDecl(static_cast<P::LayoutMapDeclContext&>(*rc));
    default: return nullptr;
  }
}

Block AstBuilder::transformBlock(P::BlockContext* ctx) {
  Block body;
  if (!ctx) return body;
  for (ParseTree* child : ctx->children)
    if (auto* s = as<P::StatementContext>(child))
      if (StmtPtr stmt = transformStatement(*s)) body.push_back(std::move(stmt));
  return body;
}

StmtPtr AstBuilder::transformExprStmt(P::ExprStmtContext& ctx) {
  std::vector<P::ExprListContext*> lists;  // targets and value, in order
  P::AugOpContext* aug = nullptr;
  for (ParseTree* child : ctx.children) {
    if (auto* list = as<P::ExprListContext>(child)) lists.push_back(list);
    else if (auto* op = as<P::AugOpContext>(child)) aug = op;
  }
  if (aug) {
    auto n = node<AugAssign>(range(&ctx));
    n->target = transformExprList(lists.empty() ? nullptr : lists[0]);
    n->op = binaryOp(aug->start->getType());
    n->value = transformExprList(lists.size() > 1 ? lists[1] : nullptr);
    ExprKind k = n->target->kind;
    if (k != ExprKind::Name && k != ExprKind::Attribute && k != ExprKind::Index)
      error(n->target->range, "'" + aug->start->getText() + "' can only update a name, an attribute or an index, not " +
                                  describe(*n->target));
    return n;
  }
  if (lists.size() == 1) {
    auto n = node<ExprStmt>(range(&ctx));
    n->expr = transformExprList(lists[0]);
    return n;
  }
  auto n = node<Assign>(range(&ctx));
  for (size_t i = 0; i + 1 < lists.size(); ++i) {
    n->targets.push_back(transformExprList(lists[i]));
    checkTarget(*n->targets.back(), "cannot assign to ");
  }
  n->value = transformExprList(lists.empty() ? nullptr : lists.back());
  return n;
}

StmtPtr AstBuilder::transformReturnStmt(P::ReturnStmtContext& ctx) {
  auto n = node<Return>(range(&ctx));
  if (ctx.exprList()) n->value = transformExprList(ctx.exprList());
  return n;
}

StmtPtr AstBuilder::transformAssertStmt(P::AssertStmtContext& ctx) {
  auto n = node<Assert>(range(&ctx));
  std::vector<P::ExprContext*> e = ctx.expr();
  n->condition = transformExpr(e.empty() ? nullptr : e[0]);
  if (e.size() > 1) n->message = transformExpr(e[1]);
  return n;
}

std::string AstBuilder::transformDottedName(P::DottedNameContext& ctx) {
  std::string out;
  for (P::NameContext* part : ctx.name()) out += (out.empty() ? "" : ".") + part->start->getText();
  return out;
}

StmtPtr AstBuilder::transformImportStmt(P::ImportStmtContext& ctx) {
  auto n = node<Import>(range(&ctx));
  if (ctx.dottedName()) n->module = transformDottedName(*ctx.dottedName());
  else if (ctx.STRING()) n->module = decodeString(ctx.STRING()->getSymbol()), n->isPath = true;
  if (ctx.name()) n->as = transformName(ctx.name());
  return n;
}

StmtPtr AstBuilder::transformFromImportStmt(P::FromImportStmtContext& ctx) {
  auto n = node<FromImport>(range(&ctx));
  if (ctx.dottedName()) n->module = transformDottedName(*ctx.dottedName());
  else if (ctx.STRING()) n->module = decodeString(ctx.STRING()->getSymbol()), n->isPath = true;
  if (!ctx.importItems()) return n;
  for (P::ImportItemContext* item : ctx.importItems()->importItem()) {
    FromImport::Item it;
    it.name = transformName(item->name(0));
    if (item->AS()) it.as = transformName(item->name(1));
    it.range = range(item);
    n->items.push_back(std::move(it));
  }
  return n;
}

StmtPtr AstBuilder::transformMeshDecl(P::MeshDeclContext& ctx) {
  auto n = node<MeshDecl>(range(&ctx));
  n->name = transformName(ctx.name());
  for (P::MeshDimContext* d : ctx.meshDim()) {
    MeshDecl::Dim dim;
    dim.name = transformName(d->name());
    dim.size = transformExpr(d->expr());
    dim.range = range(d);
    n->dims.push_back(std::move(dim));
  }
  return n;
}

StmtPtr AstBuilder::transformIfStmt(P::IfStmtContext& ctx) {
  auto n = node<If>(range(&ctx));
  std::vector<P::ExprContext*> conditions = ctx.expr();
  std::vector<P::BlockContext*> blocks = ctx.block();
  for (size_t i = 0; i < conditions.size(); ++i)
    n->branches.push_back({transformExpr(conditions[i]), transformBlock(i < blocks.size() ? blocks[i] : nullptr)});
  if (ctx.ELSE() && blocks.size() > conditions.size()) {
    n->elseBody = transformBlock(blocks.back());
    n->hasElse = true;
  }
  return n;
}

StmtPtr AstBuilder::transformForStmt(P::ForStmtContext& ctx) {
  auto n = node<For>(range(&ctx));
  n->target = ctx.forTarget() ? transformForTarget(*ctx.forTarget()) : missing(&ctx);
  checkTarget(*n->target, "a loop variable must be a name or a tuple of names, not ");
  n->iterable = transformExpr(ctx.expr());
  n->body = transformBlock(ctx.block());
  return n;
}

ExprPtr AstBuilder::transformForTarget(P::ForTargetContext& ctx) {
  std::vector<P::PostfixContext*> parts = ctx.postfix();
  if (parts.size() == 1 && ctx.COMMA().empty()) return transformPostfix(parts[0]);
  auto t = node<TupleExpr>(range(&ctx));
  for (P::PostfixContext* p : parts) t->items.push_back(transformPostfix(p));
  return t;
}

StmtPtr AstBuilder::transformWhileStmt(P::WhileStmtContext& ctx) {
  auto n = node<While>(range(&ctx));
  n->condition = transformExpr(ctx.expr());
  n->body = transformBlock(ctx.block());
  return n;
}

StmtPtr AstBuilder::transformWithStmt(P::WithStmtContext& ctx) {
  auto n = node<With>(range(&ctx));
  n->context = transformExpr(ctx.expr());
  if (ctx.name()) n->as = transformName(ctx.name());
  n->body = transformBlock(ctx.block());
  return n;
}

StmtPtr AstBuilder::transformFnDecl(P::FnDeclContext& ctx) {
  auto n = node<FnDecl>(range(&ctx));
  for (P::DecoratorContext* d : ctx.decorator()) n->decorators.push_back(transformDecorator(*d));
  n->name = transformName(ctx.name());
  n->nameRange = range(ctx.name());
  n->params = transformParamList(ctx.paramList());
  if (ctx.typeExpr()) n->returnType = transformTypeExpr(*ctx.typeExpr());
  n->body = transformBlock(ctx.block());
  return n;
}

Decorator AstBuilder::transformDecorator(P::DecoratorContext& ctx) {
  Decorator d;
  const Token* last = ctx.RPAREN() ? ctx.RPAREN()->getSymbol() : ctx.dottedName() ? ctx.dottedName()->stop : ctx.start;
  d.range = range(ctx.start, last);
  if (!ctx.dottedName()) {
    d.expr = missing(&ctx);
    return d;
  }
  std::vector<P::NameContext*> parts = ctx.dottedName()->name();
  auto first = node<Name>(range(parts[0]));
  first->name = transformName(parts[0]);
  ExprPtr e = std::move(first);
  for (size_t i = 1; i < parts.size(); ++i) {
    auto a = node<Attribute>(range(parts[0]->start, parts[i]->stop));
    a->object = std::move(e);
    a->name = transformName(parts[i]);
    a->nameRange = range(parts[i]);
    e = std::move(a);
  }
  if (ctx.LPAREN()) {
    auto call = node<Call>(range(ctx.dottedName()->start, last));
    call->callee = std::move(e);
    call->args = transformArgList(ctx.argList());
    e = std::move(call);
  }
  d.expr = std::move(e);
  return d;
}

std::vector<Param> AstBuilder::transformParamList(P::ParamListContext* ctx) {
  std::vector<Param> params;
  if (!ctx) return params;
  std::unordered_set<Symbol> seen;
  bool sawDefault = false;
  for (P::ParamContext* p : ctx->param()) {
    params.push_back(transformParam(*p));
    const Param& param = params.back();
    if (!seen.insert(param.name).second) error(param.range, "duplicate parameter '" + symbolName(param.name) + "'");
    if (param.defaultValue) sawDefault = true;
    else if (sawDefault)
      error(param.range, "parameter '" + symbolName(param.name) + "' without a default follows one with a default");
  }
  return params;
}

Param AstBuilder::transformParam(P::ParamContext& ctx) {
  Param p;
  p.name = transformName(ctx.name());
  if (ctx.typeExpr()) p.type = transformTypeExpr(*ctx.typeExpr());
  if (ctx.expr()) p.defaultValue = transformExpr(ctx.expr());
  p.range = range(&ctx);
  return p;
}

namespace {
void dropLeadingSelf(std::vector<Param>& params) {
  static const Symbol self = intern("self");
  if (!params.empty() && params[0].name == self && !params[0].type && !params[0].defaultValue) params.erase(params.begin());
}
}  // namespace

StmtPtr AstBuilder::transformModuleDecl(P::ModuleDeclContext& ctx) {
  auto n = node<ModuleDecl>(range(&ctx));
  n->name = transformName(ctx.name());
  n->nameRange = range(ctx.name());
  n->params = transformParamList(ctx.paramList());
  n->body = transformBlock(ctx.block());
  // Python's explicit `self` (`fn call(self, x)`, `module M(self, units)` for `__init__`) is the
  // module itself, which Weft's methods already see as `self`: a leading one is dropped.
  dropLeadingSelf(n->params);
  for (const StmtPtr& st : n->body)
    if (st->kind == StmtKind::Fn) dropLeadingSelf(static_cast<FnDecl&>(*st).params);
  return n;
}

StmtPtr AstBuilder::transformLayoutMapDecl(P::LayoutMapDeclContext& ctx) {
  auto n = node<LayoutMapDecl>(range(&ctx));
  n->name = transformName(ctx.name(0));
  n->mesh = transformName(ctx.name(1));
  n->meshRange = range(ctx.name(1));
  for (P::LayoutEntryContext* e : ctx.layoutEntry()) n->entries.push_back(transformLayoutEntry(*e));
  return n;
}

LayoutMapDecl::Entry AstBuilder::transformLayoutEntry(P::LayoutEntryContext& ctx) {
  LayoutMapDecl::Entry entry;
  if (ctx.STRING()) {
    // A key is a regular expression: an escape strings do not know (`\.`) stays as written, so
    // that SPEC §7's "d2\..*" means what it says.
    std::vector<LiteralError> kept;
    entry.key = decodeStringLiteral(ctx.STRING()->getText(), tokenBegin(ctx.STRING()->getSymbol()), kept);
    entry.keyRange = range(ctx.STRING()->getSymbol());
  }
  for (P::LayoutDimContext* d : ctx.layoutDim()) {
    bool unsharded = d->NONE() || (d->name() && d->name()->start->getText() == "_");
    entry.dims.push_back(unsharded ? std::nullopt : std::optional<Symbol>(transformName(d->name())));
    entry.dimRanges.push_back(range(d));
  }
  return entry;
}

Ptr<TypeExpr> AstBuilder::transformTypeExpr(P::TypeExprContext& ctx) {
  auto t = node<TypeExpr>(range(&ctx));
  t->base = ctx.NAME() ? ctx.NAME()->getText() : "none";
  t->hasDims = ctx.LBRACK() != nullptr;
  for (P::TypeDimContext* d : ctx.typeDim()) t->dims.push_back(transformTypeDim(*d));
  return t;
}

std::optional<int64_t> AstBuilder::transformTypeDim(P::TypeDimContext& ctx) {
  if (!ctx.INT()) return std::nullopt;  // None
  if (ctx.MINUS()) {
    error(range(&ctx), "a dimension size cannot be negative; use None for a dimension of any size");
    return std::nullopt;
  }
  ExprPtr size = transformLiteral(ctx.INT()->getSymbol());
  return static_cast<IntLit&>(*size).value;
}

// ---- expressions -----------------------------------------------------------------------------

ExprPtr AstBuilder::transformExprList(P::ExprListContext* ctx) {
  if (!ctx) return missing(nullptr);
  if (ctx->children.size() == 1) return transformExpr(exprAt(ctx->children[0]));  // no comma
  auto t = node<TupleExpr>(range(ctx));
  for (ParseTree* child : ctx->children)
    if (P::ExprContext* e = exprAt(child)) t->items.push_back(transformExpr(e));
  return t;
}

ExprPtr AstBuilder::transformExpr(P::ExprContext* ctx) {
  if (!ctx) return missing(nullptr);
  const std::type_info& type = typeid(*ctx);
  if (type == typeid(P::PrimaryExprContext)) return transformPostfix(ctx);
  if (chainKind(ctx) != Chain::None) return transformChain(ctx);
  if (type == typeid(P::PowerExprContext)) return transformPower(static_cast<P::PowerExprContext&>(*ctx));
  if (type == typeid(P::UnaryExprContext))
    return transformUnary(*ctx, ctx->start->getType() == P::MINUS ? UnaryOp::Neg : UnaryOp::Pos);
  if (type == typeid(P::NotExprContext)) return transformUnary(*ctx, UnaryOp::Not);
  if (type == typeid(P::CondExprContext)) return transformCond(static_cast<P::CondExprContext&>(*ctx));
  if (type == typeid(P::LambdaExprContext)) return transformLambda(static_cast<P::LambdaExprContext&>(*ctx));
  return missing(ctx);
}

// `a + b - c < d < e and f`: the parse tree nests to the left, as deep as the chain is long, so
// walk down its left spine in a loop and build the nodes bottom-up. Consecutive comparisons
// on the spine merge into one Compare node (`a < b < c`); a parenthesised one is not on it.
ExprPtr AstBuilder::transformChain(P::ExprContext* ctx) {
  std::vector<std::pair<P::ExprContext*, Chain>> spine;
  for (Chain k; ctx && (k = chainKind(ctx)) != Chain::None; ctx = exprAt(childAt(ctx, 0))) spine.emplace_back(ctx, k);
  ExprPtr acc = transformExpr(ctx);
  bool openCompare = false;
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
    auto [c, kind] = *it;
    ExprPtr rhs = transformExpr(exprAt(c->children.back()));
    SourceRange r = range(c);
    if (kind == Chain::Compare) {
      auto* op = as<P::CompOpContext>(childAt(c, 1));
      if (!openCompare) {
        auto cmp = node<Compare>(r);
        cmp->operands.push_back(std::move(acc));
        acc = std::move(cmp);
      }
      auto& cmp = static_cast<Compare&>(*acc);
      cmp.range = std::move(r);
      cmp.operands.push_back(std::move(rhs));
      cmp.ops.push_back(op ? compareOp(op->start->getType(), op->stop->getType()) : CompareOp::Eq);
      openCompare = true;
      continue;
    }
    openCompare = false;
    if (kind == Chain::Arith) {
      auto b = node<Binary>(std::move(r));
      antlr4::ParserRuleContext* left = ruleAt(childAt(c, 0));
      b->op = binaryOp(left && left->stop ? tokenAfter(left->stop)->getType() : size_t{P::PLUS});  // the operator follows it
      b->lhs = std::move(acc);
      b->rhs = std::move(rhs);
      acc = std::move(b);
    } else {
      auto l = node<Logical>(std::move(r));
      l->isAnd = kind == Chain::And;
      l->lhs = std::move(acc);
      l->rhs = std::move(rhs);
      acc = std::move(l);
    }
  }
  return acc;
}

ExprPtr AstBuilder::transformPower(P::PowerExprContext& ctx) {
  auto b = node<Binary>(range(&ctx));
  b->op = BinaryOp::Pow;
  b->lhs = transformExpr(exprAt(childAt(&ctx, 0)));
  b->rhs = transformExpr(exprAt(ctx.children.back()));
  return b;
}

ExprPtr AstBuilder::transformUnary(P::ExprContext& ctx, UnaryOp op) {
  auto u = node<Unary>(range(&ctx));
  u->op = op;
  u->operand = transformExpr(exprAt(ctx.children.back()));
  return u;
}

ExprPtr AstBuilder::transformCond(P::CondExprContext& ctx) {  // then IF condition ELSE else
  auto c = node<Conditional>(range(&ctx));
  c->thenValue = transformExpr(exprAt(childAt(&ctx, 0)));
  c->condition = transformExpr(exprAt(childAt(&ctx, 2)));
  c->elseValue = transformExpr(exprAt(childAt(&ctx, 4)));
  return c;
}

ExprPtr AstBuilder::transformLambda(P::LambdaExprContext& ctx) {
  auto l = node<Lambda>(range(&ctx));
  l->params = transformParamList(as<P::ParamListContext>(childAt(&ctx, 2)));
  l->body = transformExpr(exprAt(ctx.children.back()));
  return l;
}

// `(token | group) trailer*`, from a postfix or a primaryExpr: a loop, however long the chain.
ExprPtr AstBuilder::transformPostfix(antlr4::ParserRuleContext* ctx) {
  if (!ctx || ctx->children.empty()) return missing(ctx);
  auto* group = as<P::GroupContext>(ctx->children[0]);
  auto* fstring = as<P::FstringContext>(ctx->children[0]);
  ExprPtr acc = group ? transformGroup(*group) : fstring ? transformFString(*fstring) : transformLiteral(ctx->start);
  for (size_t i = 1; i < ctx->children.size(); ++i) {
    auto* tr = as<P::TrailerContext>(ctx->children[i]);
    if (!tr) continue;
    SourceRange r = range(ctx->start, tr->stop);
    switch (tr->start->getType()) {
      case P::LPAREN: {
        auto call = node<Call>(std::move(r));
        call->callee = std::move(acc);
        call->args = transformArgList(as<P::ArgListContext>(childAt(tr, 1)));
        acc = std::move(call);
        break;
      }
      case P::LBRACK: {
        auto index = node<Index>(std::move(r));
        index->object = std::move(acc);
        index->items = transformSubscriptList(as<P::SubscriptListContext>(childAt(tr, 1)));
        acc = std::move(index);
        break;
      }
      default: {  // DOT name
        auto attr = node<Attribute>(std::move(r));
        attr->object = std::move(acc);
        attr->name = intern(tr->stop->getText());
        attr->nameRange = range(tr->stop);
        acc = std::move(attr);
      }
    }
  }
  return acc;
}

std::vector<Argument> AstBuilder::transformArgList(P::ArgListContext* ctx) {
  std::vector<Argument> args;
  if (!ctx) return args;
  std::unordered_set<Symbol> keywords;
  for (ParseTree* child : ctx->children) {
    auto* a = as<P::ArgumentContext>(child);
    if (!a) continue;
    Argument arg;
    arg.range = range(a);
    arg.value = transformExpr(exprAt(a->children.back()));
    if (a->children.size() == 3) {  // name ASSIGN expr
      arg.keyword = intern(a->start->getText());
      if (!keywords.insert(*arg.keyword).second)
        error(range(a->start), "keyword argument '" + symbolName(*arg.keyword) + "' is given twice");
    } else if (!keywords.empty()) {
      error(arg.range, "positional argument follows keyword argument");
    }
    args.push_back(std::move(arg));
  }
  return args;
}

std::vector<ExprPtr> AstBuilder::transformSubscriptList(P::SubscriptListContext* ctx) {
  std::vector<ExprPtr> items;
  if (ctx)
    for (ParseTree* child : ctx->children)
      if (auto* s = as<P::SubscriptContext>(child)) items.push_back(transformSubscript(*s));
  return items;
}

// ELLIPSIS, an expression, or a slice `lower? : upper? (: step?)?`: the colons say which
// part each expression is.
ExprPtr AstBuilder::transformSubscript(P::SubscriptContext& ctx) {
  if (ctx.start->getType() == P::ELLIPSIS) return node<EllipsisExpr>(range(&ctx));
  if (ctx.children.size() == 1 && exprAt(ctx.children[0])) return transformExpr(exprAt(ctx.children[0]));
  auto s = node<Slice>(range(&ctx));
  ExprPtr* part[] = {&s->lower, &s->upper, &s->step};
  size_t slot = 0;
  for (ParseTree* child : ctx.children) {
    if (P::ExprContext* e = exprAt(child)) *part[std::min<size_t>(slot, 2)] = transformExpr(e);
    else ++slot;  // a colon
  }
  return s;
}

// `( )` empty tuple, `(e)` just parentheses, `(e,)` and `(a, b)` tuples, `[...]` lists, `{...}`
// dicts (entries with a colon) and sets (without).
ExprPtr AstBuilder::transformGroup(P::GroupContext& ctx) {
  size_t open = ctx.start->getType();
  if (open == P::LBRACE) {
    std::vector<P::DictEntryContext*> entries = ctx.dictEntry();
    bool isDict = entries.empty() || entries[0]->COLON();
    for (P::DictEntryContext* e : entries)
      if (bool(e->COLON()) != isDict)
        error(range(e), isDict ? "a dict entry needs a key and a value, `key: value` (braces without colons make a set)"
                               : "a set takes values only, not `key: value` (braces with colons make a dict)");
    if (!ctx.compFor().empty()) {
      ExprPtr c = transformListComp(ctx, exprAt(entries[0]->children.back()));
      if (isDict) static_cast<ListComp&>(*c).key = transformExpr(exprAt(childAt(entries[0], 0)));
      static_cast<ListComp&>(*c).isSet = !isDict;
      return c;
    }
    if (!isDict) {
      auto set = node<ListExpr>(range(&ctx));
      set->isSet = true;
      for (P::DictEntryContext* e : entries) set->items.push_back(transformExpr(exprAt(childAt(e, 0))));
      return set;
    }
    auto d = node<DictExpr>(range(&ctx));
    for (P::DictEntryContext* e : entries)
      d->entries.emplace_back(transformExpr(exprAt(childAt(e, 0))), transformExpr(exprAt(e->children.back())));
    return d;
  }
  std::vector<P::ExprContext*> items;
  for (ParseTree* child : ctx.children)
    if (P::ExprContext* e = exprAt(child)) items.push_back(e);
  if (!ctx.compFor().empty()) return transformListComp(ctx, items.empty() ? nullptr : items[0]);
  bool comma = ctx.children.size() > items.size() + 2;
  if (open == P::LPAREN && items.size() == 1 && !comma) return transformExpr(items[0]);
  ExprPtr seq = open == P::LPAREN ? ExprPtr(node<TupleExpr>(range(&ctx))) : ExprPtr(node<ListExpr>(range(&ctx)));
  auto& out = open == P::LPAREN ? static_cast<TupleExpr&>(*seq).items : static_cast<ListExpr&>(*seq).items;
  for (P::ExprContext* e : items) out.push_back(transformExpr(e));
  return seq;
}

ExprPtr AstBuilder::transformListComp(P::GroupContext& ctx, P::ExprContext* element) {
  auto c = node<ListComp>(range(&ctx));
  c->element = transformExpr(element);
  for (P::CompForContext* f : ctx.compFor()) {
    ListComp::Clause clause;
    clause.target = f->forTarget() ? transformForTarget(*f->forTarget()) : missing(f);
    checkTarget(*clause.target, "a loop variable must be a name or a tuple of names, not ");
    std::vector<P::ExprContext*> e = f->expr();
    clause.iterable = transformExpr(e.empty() ? nullptr : e[0]);
    for (size_t i = 1; i < e.size(); ++i) clause.conditions.push_back(transformExpr(e[i]));
    c->clauses.push_back(std::move(clause));
  }
  return c;
}

// The text parts are decoded as string literals (the same escapes); `{{` and `}}` arrive as
// one-brace FSTRING_TEXT tokens from token_source.cpp.
ExprPtr AstBuilder::transformFString(P::FstringContext& ctx) {
  auto f = node<FString>(range(&ctx));
  const std::string quote = ctx.start->getText().substr(1);  // `"` or `'`
  for (size_t i = 0; i < ctx.children.size(); ++i) {
    ParseTree* child = ctx.children[i];
    if (P::ExprContext* e = exprAt(child)) {
      FString::Part part;
      part.value = transformExpr(e);
      auto* next = dynamic_cast<antlr4::tree::TerminalNode*>(childAt(&ctx, i + 1));
      // The spec token is `= !r :spec` with each piece optional (token_source.cpp).
      std::string spec = next && next->getSymbol()->getType() == P::FSTRING_SPEC ? next->getText() : "";
      size_t k = 0;
      if (spec[k] == '=') {  // `{x = }`: the field's text as written, '=' and spaces, then repr
        while (++k < spec.size() && (spec[k] == ' ' || spec[k] == '\t')) {}
        const Token* open = static_cast<antlr4::tree::TerminalNode*>(ctx.children[i - 1])->getSymbol();
        std::string label = ctx.start->getInputStream()->getText(
            {static_cast<ssize_t>(open->getStopIndex() + 1), static_cast<ssize_t>(next->getSymbol()->getStartIndex() - 1)});
        label += spec.substr(0, k);
        if (!f->parts.empty() && !f->parts.back().value) f->parts.back().text += label;
        else f->parts.push_back({std::move(label), nullptr, ""});
        part.conversion = 'r';
      }
      if (k + 1 < spec.size() && spec[k] == '!') {
        if (spec[k + 1] != 'r' && spec[k + 1] != 's')
          errors_.add(next->getSymbol(), std::string("a conversion is !r or !s, not !") + spec[k + 1]);
        part.conversion = spec[k + 1];
        k += 2;
      }
      if (k < spec.size()) {
        if (spec[k] != ':') errors_.add(next->getSymbol(), "a field's conversion (!r or !s) ends with ':' or '}'");
        part.spec = spec.substr(k + 1);
        if (spec[0] == '=' && spec.find('!') == std::string::npos) part.conversion = 0;  // `{x=:.2f}` formats x
      }
      f->parts.push_back(std::move(part));
      continue;
    }
    auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(child);
    if (!t || t->getSymbol()->getType() != P::FSTRING_TEXT) continue;
    const Token* tok = t->getSymbol();
    std::vector<LiteralError> problems;
    SourcePos at = tokenBegin(tok);
    std::string text = decodeStringLiteral(quote + tok->getText() + quote, {at.line, at.col - 1}, problems);
    for (auto& p : problems) errors_.add(p.at, {p.at.line, p.at.col + 1}, std::move(p.message));
    if (!f->parts.empty() && !f->parts.back().value) f->parts.back().text += text;
    else f->parts.push_back({std::move(text), nullptr, ""});
  }
  return f;
}

ExprPtr AstBuilder::transformLiteral(const Token* t) {
  SourceRange r = range(t);
  switch (t->getType()) {
    case P::NAME: case P::MESH: case P::ON: case P::MODULE: case P::LAYOUT_MAP: {
      auto n = node<Name>(std::move(r));
      n->name = intern(t->getText());
      return n;
    }
    case P::INT: {
      auto n = node<IntLit>(r);
      std::string text = t->getText();
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n->value);
      if (ec != std::errc() || end != text.data() + text.size())
        error(r, "integer literal " + text + " is too large (the largest is 9223372036854775807)");
      return n;
    }
    case P::FLOAT: {
      auto n = node<FloatLit>(r);
      std::string text = t->getText();
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n->value);
      if (ec == std::errc::result_out_of_range) {
        if (text.find("e-") == std::string::npos && text.find("E-") == std::string::npos)
          error(r, "float literal " + text + " is too large");
        n->value = 0.0;  // underflow, as Python reads 1e-400
      }
      return n;
    }
    case P::STRING: {
      auto n = node<StringLit>(std::move(r));
      n->value = decodeString(t);
      return n;
    }
    case P::TRUE: case P::FALSE: {
      auto n = node<BoolLit>(std::move(r));
      n->value = t->getType() == P::TRUE;
      return n;
    }
    default:
      return node<NoneLit>(std::move(r));
  }
}

}  // namespace weft::syntax
