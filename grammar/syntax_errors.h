// Internal to grammar/: collecting syntax errors and making them readable.
//
// Errors come from three places: token-level checks before parsing (precise, each with a repair
// so parsing can go on), the ANTLR parser (through ErrorListener, which replaces ANTLR's
// "mismatched input ... expecting {...}" with plain words), and the AST builder.
#pragma once
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "BaseErrorListener.h"
#include "DefaultErrorStrategy.h"
#include "diagnostics.h"
#include "token_source.h"

namespace weft::syntax {

// The syntax errors of one file, reported in source order and capped. A parser error is
// dropped when its line or statement already has an error: those are usually cascades.
class SyntaxErrors {
 public:
  explicit SyntaxErrors(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {}
  // `guardsLine`: parser errors on the same line are then taken as cascades and dropped.
  void add(SourcePos begin, SourcePos end, std::string message, bool guardsLine = true);
  void add(const antlr4::Token* t, std::string message) { add(tokenBegin(t), tokenEnd(t), std::move(message)); }
  // An error found by the parser inside the statement whose first token has index `statement`.
  void addParserError(const antlr4::Token* t, std::string message, size_t statement);
  bool full() const { return entries_.size() >= kMaxErrors; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  void truncate(size_t n);  // forgets the errors added after size() was n
  void flushTo(Diagnostics& diags);

 private:
  struct Entry {
    SourcePos begin, end;
    std::string message;
    bool guardsLine;
  };
  static constexpr size_t kMaxErrors = 100;
  std::shared_ptr<const SourceFile> file_;
  std::vector<Entry> entries_;
  std::unordered_set<uint32_t> lines_;
  size_t lastStatement_ = SIZE_MAX;
  bool truncated_ = false;
  SourcePos firstDropped_;
};

// Thrown by ErrorListener to abandon a hopeless parse once the error list is full.
struct TooManyErrors {};

// Replaces ANTLR's console listener on the parser.
class ErrorListener : public antlr4::BaseErrorListener {
 public:
  explicit ErrorListener(SyntaxErrors& errors) : errors_(errors) {}
  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line, size_t col,
                   const std::string& msg, std::exception_ptr e) override;
  // Indexes of the tokens errors were reported at, and of the first tokens of the statements
  // being parsed then: statements around them are not built.
  const std::vector<size_t>& errorTokens() const { return errorTokens_; }

 private:
  SyntaxErrors& errors_;
  std::vector<size_t> errorTokens_;
};

// ANTLR's recovery skips to a token that may follow the rule that failed, which inside a
// statement is often the very next token, so the rest of the line yields a cascade of errors
// (`f a == 1 {` would report `a`, then the `{`, then each `}` of the block). This skips to the
// end of the statement instead: its NEWLINE at the same bracket depth, past the blocks it opens.
class StatementRecovery : public antlr4::DefaultErrorStrategy {
 public:
  void recover(antlr4::Parser* parser, std::exception_ptr e) override;
};

// Stray characters (with hints for `&&`, `||`, `!`), unterminated strings, `def name(`,
// `class Name(Base)` and `else if`: reported, then repaired in place.
void checkTokens(TokenList& tokens, SyntaxErrors& errors);

// Statement headers: `if x = 1 {` (an assignment in a condition becomes `==`) and Python's
// `if x:` (the colon becomes a brace and the block is closed at the end of the line).
void checkBlockHeaders(TokenList& tokens, SyntaxErrors& errors);

}  // namespace weft::syntax
