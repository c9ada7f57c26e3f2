// Internal to grammar/: turns the ANTLR parse tree into the typed AST of grammar/ast/.
//
// One transformX per grammar rule, each returning the typed node. Checks the grammar leaves
// open (assignment targets, argument order, literal ranges, escapes) are reported here.
// Recursion follows the parse tree except along left-nested chains (`1 + 1 + ...`, `a.b.c`),
// which are built in loops, so depth stays bounded by the nesting guard of checkBrackets.
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
  AstBuilder(std::shared_ptr<const SourceFile> file, SyntaxErrors& errors) : file_(std::move(file)), errors_(errors) {}

  // Builds every statement of the program except those containing a parser error (the token
  // indexes in `errorTokens`, ascending).
  void transformProgram(P::ProgramContext& ctx, const std::vector<size_t>& errorTokens, ast::Program& out);

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
  ast::ExprPtr transformUnary(P::ExprContext& ctx, ast::UnaryOp op, P::ExprContext* operand);
  ast::ExprPtr transformCond(P::CondExprContext& ctx);
  ast::ExprPtr transformLambda(P::LambdaExprContext& ctx);
  ast::ExprPtr transformPostfix(antlr4::ParserRuleContext* ctx);  // postfix, or a primaryExpr
  std::vector<ast::Argument> transformArgList(P::ArgListContext* ctx);
  std::vector<ast::ExprPtr> transformSubscriptList(P::SubscriptListContext* ctx);
  ast::ExprPtr transformSubscript(P::SubscriptContext& ctx);
  ast::ExprPtr transformAtom(P::AtomContext& ctx);
  ast::ExprPtr transformLiteral(antlr4::Token* t);
  Symbol transformName(P::NameContext* ctx);

  // helpers
  void checkTarget(const ast::Expr& e, const char* what);
  std::string decodeString(antlr4::Token* t);
  SourceRange range(antlr4::ParserRuleContext* ctx) const;
  SourceRange range(const antlr4::Token* t) const;
  SourceRange range(const antlr4::Token* first, const antlr4::Token* last) const;
  void error(const SourceRange& at, std::string message);
  template <class T>
  ast::Ptr<T> node(const SourceRange& r) {
    auto n = std::make_unique<T>();
    n->range = r;
    return n;
  }
  ast::ExprPtr missing(antlr4::ParserRuleContext* ctx);  // stands in for a part the parser lost

  std::shared_ptr<const SourceFile> file_;
  SyntaxErrors& errors_;
};

}  // namespace weft::syntax
