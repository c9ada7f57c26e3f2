// Internal to grammar/: the token stream between the lexer and the ANTLR parser.
//
// The whole file is lexed up front into a TokenList; the passes below check it (bracket
// balance, nesting depth) and rewrite it (newline filtering) before ANTLR parses it. Working on
// the list, not inside the parser, keeps the grammar free of newline hacks and lets the depth
// guard run before ANTLR's recursive descent could overflow the stack. Tokens are stored by
// value in one array — ANTLR's own streams allocate each token separately, which costs more
// than the parse itself on large files.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ANTLRInputStream.h"
#include "Token.h"
#include "TokenSource.h"
#include "TokenStream.h"
#include "parser.h"
#include "source.h"

namespace weft::syntax {

class SyntaxErrors;
class WeftToken;

// Holds the decoded text; returns token text by re-encoding UTF-8 directly (ANTLR's default
// goes through std::wstring_convert, which is slow and throws on bad input).
class Utf32InputStream : public antlr4::ANTLRInputStream {
 public:
  Utf32InputStream(std::u32string text, std::string name);
  std::u32string_view text() const { return _data; }
  std::string getText(const antlr4::misc::Interval& interval) override;
  std::string getSourceName() const override { return name_; }

 private:
  std::string name_;
};

// What every token points back to: the text and the factory ANTLR's error recovery uses to
// make up missing tokens. Never asked for tokens itself.
class WeftTokenSource : public antlr4::TokenSource {
 public:
  explicit WeftTokenSource(Utf32InputStream& input) : input_(input) {}
  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return 0; }
  size_t getCharPositionInLine() override { return 0; }
  antlr4::CharStream* getInputStream() override { return &input_; }
  std::string getSourceName() override { return input_.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken>* getTokenFactory() override;
  // The final token list: a token's index is its offset in it.
  void setTokens(const WeftToken* first) { first_ = first; }
  const WeftToken* firstToken() const { return first_; }

 private:
  Utf32InputStream& input_;
  const WeftToken* first_ = nullptr;
};

// One token, 48 bytes, stored by value in a TokenList.
class WeftToken final : public antlr4::Token {
 public:
  WeftToken(size_t type, size_t start, size_t length, SourcePos at, WeftTokenSource* source)
      : source_(source), start_(static_cast<uint32_t>(start)), type_(packType(type)),
        length_(static_cast<uint32_t>(length)), line_(at.line), col_(at.col - 1) {}
  std::string getText() const override;
  size_t getType() const override { return type_ == kEof ? EOF : type_; }
  size_t getLine() const override { return line_; }
  size_t getCharPositionInLine() const override { return col_; }
  size_t getChannel() const override { return DEFAULT_CHANNEL; }
  size_t getTokenIndex() const override {
    return source_->firstToken() ? static_cast<size_t>(this - source_->firstToken()) : INVALID_INDEX;
  }
  size_t getStartIndex() const override { return start_; }
  size_t getStopIndex() const override { return size_t(start_) + length_ - 1; }
  antlr4::TokenSource* getTokenSource() const override { return source_; }
  antlr4::CharStream* getInputStream() const override { return source_->getInputStream(); }
  std::string toString() const override { return getText(); }

  size_t length() const { return length_; }  // in code points; 0 for a token the passes made up
  void setType(size_t type) { type_ = packType(type); }
  void setText(const char* literal) { text_ = literal; }  // a repair: `==` for `=`, `fn` for `def`

 private:
  static constexpr uint32_t kEof = UINT32_MAX;
  static uint32_t packType(size_t type) { return type == EOF ? kEof : static_cast<uint32_t>(type); }
  WeftTokenSource* source_;
  const char* text_ = nullptr;
  uint32_t start_, type_, length_, line_, col_;
};

using TokenList = std::vector<WeftToken>;
constexpr size_t kDropped = antlr4::Token::INVALID_TYPE;  // a token a pass removes
void removeDropped(TokenList& tokens);

// The parser's view of the final TokenList.
class TokenArrayStream : public antlr4::TokenStream {
 public:
  TokenArrayStream(TokenList& tokens, WeftTokenSource& source);
  antlr4::Token* LT(ssize_t k) override;
  antlr4::Token* get(size_t index) const override { return &tokens_[index]; }
  antlr4::TokenSource* getTokenSource() const override { return &source_; }
  std::string getText(const antlr4::misc::Interval& interval) override;
  std::string getText() override;
  std::string getText(antlr4::RuleContext* ctx) override;
  std::string getText(antlr4::Token* start, antlr4::Token* stop) override;
  void consume() override;
  size_t LA(ssize_t i) override;
  ssize_t mark() override { return 0; }
  void release(ssize_t) override {}
  size_t index() override { return p_; }
  void seek(size_t index) override { p_ = std::min(index, tokens_.size() - 1); }
  size_t size() override { return tokens_.size(); }
  std::string getSourceName() const override { return source_.getSourceName(); }

 private:
  TokenList& tokens_;
  WeftTokenSource& source_;
  size_t p_ = 0;
};

// Position of a token's first and last character (1-based, columns in code points).
SourcePos tokenBegin(const antlr4::Token* t);
SourcePos tokenEnd(const antlr4::Token* t);

// Lexes the whole input (see lexTokens); the list ends with EOF. A zero-length NEWLINE is put
// before each '}' and before EOF, so the newline filter only ever removes tokens and can work
// in place; it keeps them where a statement needs its end.
TokenList lexAll(Utf32InputStream& input, WeftTokenSource& source);

// Checks bracket pairing and nesting depth. Errors are reported and repaired so parsing can go
// on and find the errors further down: a stray closer is removed, `(a ]` becomes `(a )`, and a
// missing closer is inserted where the indentation suggests (see closingPoint). Returns false
// when parsing cannot go on: nesting over the limits, or a repair that did not work out.
bool checkBrackets(TokenList& tokens, SyntaxErrors& errors, const ParseLimits& limits);

// The newline filter, in place: drops NEWLINE inside ( ) [ ] and after a trailing operator or
// comma, collapses runs, turns ';' into NEWLINE, drops the NEWLINE between '}' and elif/else,
// and keeps exactly one NEWLINE before each '}' and at EOF where a statement ends there.
// Expects balanced brackets.
void filterNewlines(TokenList& tokens);

// A made-up zero-length token at the position of `anchor` (a NEWLINE placeholder, a '}').
WeftToken syntheticToken(const WeftToken& anchor, size_t type, const char* text);

// Token kinds the passes reason about.
bool isOperandEnd(size_t type);       // a token an expression can end with
bool isContinuation(size_t type);     // a line ending with it continues on the next line

// For the unit tests: "" when the hand-written lexer and the generated WeftLexer agree on
// `text` (types and positions of all tokens), else the first difference.
std::string compareWithAntlrLexer(std::string_view text);

}  // namespace weft::syntax
