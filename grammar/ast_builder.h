// Internal to grammar/: turns the ANTLR parse tree into the typed AST of grammar/ast/.
//
// One transformX per grammar rule, each returning the typed node. Checks the grammar leaves
// open (assignment targets, argument order, literal ranges, escapes) are reported here.
// Recursion follows the parse tree except along left-nested chains (`1 + 1 + ...`), which are
// built in a loop, so its depth stays bounded by the nesting guard of checkBrackets.
//
// On hot paths children are found by position and exact type (typeid), not through ANTLR's
// generated accessors: those dynamic_cast every child, and on large files that was the single
// largest cost of building. Tokens are looked up in the token list by index.
#pragma once
#include <memory>
#include <vector>

#include "WeftParser.h"
#include "ast/stmt.h"
#include "syntax_errors.h"

namespace weft::syntax {

class AstBuilder {
  using P = gen::WeftParser;

 public:
  AstBuilder(std::shared_ptr<const SourceFile> file, const TokenList& tokens, SyntaxErrors& errors)
      : file_(std::move(file)), tokens_(tokens), errors_(errors) {}

  // Builds every statement of the program except those containing a parser error (the token
  // indexes in `errorTokens`, ascending).
  void transformProgram(P::ProgramContext& ctx, const std::vector<size_t>& errorTokens, ast::Program& out);
  // Appends one top-level statement (parsed on its own, without errors) to the program.
  void transformTopLevel(P::StatementContext& ctx, ast::Program& out);

 private:
  // statements
  ast::StmtPtr transformStatement(P::StatementContext& ctx);
  ast::Block transformBlock(P::BlockContext* ctx);
  ast::StmtPtr transformExprStmt(P::ExprStmtContext& ctx);
  ast::StmtPtr transformReturnStmt(P::ReturnStmtContext& ctx);
  ast::StmtPtr transformAssertStmt(P::AssertStmtContext& ctx);
  ast::StmtPtr transformImportStmt(P::ImportStmtContext& ctx);
  ast::StmtPtr transformFromImportStmt(P::FromImportStmtContext& ctx);
  ast::StmtPtr transformMeshDecl(P::MeshDeclContext& ctx);
  ast::StmtPtr transformIfStmt(P::IfStmtContext& ctx);
  ast::StmtPtr transformForStmt(P::ForStmtContext& ctx);
  ast::ExprPtr transformForTarget(P::ForTargetContext& ctx);
  ast::StmtPtr transformWhileStmt(P::WhileStmtContext& ctx);
  ast::StmtPtr transformWithStmt(P::WithStmtContext& ctx);
  ast::StmtPtr transformFnDecl(P::FnDeclContext& ctx);
  ast::Decorator transformDecorator(P::DecoratorContext& ctx);
  std::vector<ast::Param> transformParamList(P::ParamListContext* ctx);
  ast::Param transformParam(P::ParamContext& ctx);
  ast::StmtPtr transformModuleDecl(P::ModuleDeclContext& ctx);
  ast::StmtPtr transformLayoutMapDecl(P::LayoutMapDeclContext& ctx);
  ast::LayoutMapDecl::Entry transformLayoutEntry(P::LayoutEntryContext& ctx);
  ast::Ptr<ast::TypeExpr> transformTypeExpr(P::TypeExprContext& ctx);
  std::optional<int64_t> transformTypeDim(P::TypeDimContext& ctx);
  std::string transformDottedName(P::DottedNameContext& ctx);

  // expressions
  ast::ExprPtr transformExprList(P::ExprListContext* ctx);
  ast::ExprPtr transformExpr(P::ExprContext* ctx);
  ast::ExprPtr transformChain(P::ExprContext* ctx);  // left-associative binary operators
  ast::ExprPtr transformPower(P::PowerExprContext& ctx);
  ast::ExprPtr transformUnary(P::ExprContext& ctx, ast::UnaryOp op);
  ast::ExprPtr transformCond(P::CondExprContext& ctx);
  ast::ExprPtr transformLambda(P::LambdaExprContext& ctx);
  ast::ExprPtr transformPostfix(antlr4::ParserRuleContext* ctx);  // postfix, or a primaryExpr
  std::vector<ast::Argument> transformArgList(P::ArgListContext* ctx);
  std::vector<ast::ExprPtr> transformSubscriptList(P::SubscriptListContext* ctx);
  ast::ExprPtr transformSubscript(P::SubscriptContext& ctx);
  ast::ExprPtr transformGroup(P::GroupContext& ctx);
  ast::ExprPtr transformListComp(P::GroupContext& ctx, P::ExprContext* element);
  ast::ExprPtr transformFString(P::FstringContext& ctx);
  ast::ExprPtr transformLiteral(const antlr4::Token* t);
  Symbol transformName(P::NameContext* ctx);

  // helpers
  const antlr4::Token* tokenAfter(const antlr4::Token* t) const;
  void checkTarget(const ast::Expr& e, const char* what);
  std::string decodeString(const antlr4::Token* t);
  SourceRange range(antlr4::ParserRuleContext* ctx) const;
  SourceRange range(const antlr4::Token* t) const;
  SourceRange range(const antlr4::Token* first, const antlr4::Token* last) const;
  void error(const SourceRange& at, std::string message);
  template <class T>
  ast::Ptr<T> node(SourceRange r) {
    auto n = std::make_unique<T>();
    n->range = std::move(r);
    return n;
  }
  ast::ExprPtr missing(antlr4::ParserRuleContext* ctx);  // stands in for a part the parser lost

  std::shared_ptr<const SourceFile> file_;
  const TokenList& tokens_;
  SyntaxErrors& errors_;
};

}  // namespace weft::syntax
