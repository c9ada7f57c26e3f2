#include "syntax_errors.h"

#include <algorithm>

#include "WeftParser.h"
#include "lexing.h"

namespace weft::syntax {

using antlr4::Token;
using gen::WeftParser;

void SyntaxErrors::add(SourcePos begin, SourcePos end, std::string message, bool guardsLine) {
  if (full()) {
    if (!truncated_) firstDropped_ = begin;
    truncated_ = true;
    return;
  }
  if (guardsLine) lines_.insert(begin.line);
  entries_.push_back({begin, end, std::move(message), guardsLine});
}

void SyntaxErrors::addParserError(const Token* t, std::string message, size_t statement) {
  SourcePos b = tokenBegin(t);
  bool cascade = lines_.count(b.line) || (statement != SIZE_MAX && statement == lastStatement_);
  lastStatement_ = statement;
  if (!cascade) add(b, tokenEnd(t), std::move(message));
}

void SyntaxErrors::truncate(size_t n) {
  if (n >= entries_.size()) return;
  entries_.resize(n);
  lines_.clear();
  for (const Entry& e : entries_)
    if (e.guardsLine) lines_.insert(e.begin.line);
  truncated_ = false;
}

void SyntaxErrors::flushTo(Diagnostics& diags) {
  std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.begin.line != b.begin.line ? a.begin.line < b.begin.line : a.begin.col < b.begin.col;
  });
  for (auto& e : entries_) diags.error({file_, e.begin, e.end}, std::move(e.message));
  if (truncated_)
    diags.error({file_, firstDropped_, firstDropped_},
                "too many syntax errors; only the first " + std::to_string(kMaxErrors) + " are shown");
  entries_.clear();
}

// ---- parser errors ---------------------------------------------------------------------

namespace {

bool canStartExpr(size_t t) {
  switch (t) {
    case WeftParser::NAME: case WeftParser::MESH: case WeftParser::ON: case WeftParser::MODULE:
    case WeftParser::LAYOUT_MAP: case WeftParser::INT: case WeftParser::FLOAT: case WeftParser::STRING:
    case WeftParser::TRUE: case WeftParser::FALSE: case WeftParser::NONE: case WeftParser::LPAREN:
    case WeftParser::LBRACK: case WeftParser::LBRACE: case WeftParser::MINUS: case WeftParser::PLUS:
    case WeftParser::NOT: case WeftParser::FN:
      return true;
    default:
      return false;
  }
}

bool canStartStatement(size_t t) {
  switch (t) {
    case WeftParser::IF: case WeftParser::FOR: case WeftParser::WHILE: case WeftParser::WITH:
    case WeftParser::AT: case WeftParser::RETURN: case WeftParser::ASSERT: case WeftParser::IMPORT:
    case WeftParser::FROM: case WeftParser::PASS: case WeftParser::BREAK: case WeftParser::CONTINUE:
      return true;
    default:
      return canStartExpr(t);
  }
}

// At most `max` characters (code points) of s, with "..." when cut.
std::string shorten(const std::string& s, size_t max = 24) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (++n > max) return s.substr(0, i) + "...";
  }
  return s;
}

std::string describe(const Token* t) {
  switch (t->getType()) {
    case Token::EOF: return "end of file";
    case WeftParser::NEWLINE: return t->getText() == ";" ? "';'" : "end of line";
    case WeftParser::STRING: return "string " + shorten(t->getText());
    default: return "'" + shorten(t->getText()) + "'";
  }
}

bool has(const antlr4::misc::IntervalSet& set, size_t type) { return set.contains(type); }

std::string position(const Token* t) {
  SourcePos p = tokenBegin(t);
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

// "',' or ')'" for up to three expected tokens; empty when there are more.
std::string listExpected(const antlr4::misc::IntervalSet& set, const antlr4::dfa::Vocabulary& vocab) {
  std::vector<std::string> names;
  for (ssize_t t : set.toList()) {
    size_t type = static_cast<size_t>(t);
    switch (type) {
      case WeftParser::MESH: case WeftParser::ON: case WeftParser::MODULE: case WeftParser::LAYOUT_MAP:
        if (has(set, WeftParser::NAME)) continue;  // soft keywords: covered by "a name"
        break;
      default: break;
    }
    switch (type) {
      case WeftParser::NAME: names.push_back("a name"); break;
      case WeftParser::INT: names.push_back("an integer"); break;
      case WeftParser::FLOAT: names.push_back("a number"); break;
      case WeftParser::STRING: names.push_back("a string"); break;
      case WeftParser::NEWLINE: names.push_back("end of line"); break;
      case Token::EOF: names.push_back("end of file"); break;
      case WeftParser::NONE: names.push_back("'none'"); break;  // two spellings, so no literal name
      case WeftParser::FSTRING_START: names.push_back("an f-string"); break;  // f-string parts have no literal
      case WeftParser::FSTRING_TEXT: names.push_back("f-string text"); break;
      case WeftParser::FSTRING_OPEN: names.push_back("'{'"); break;
      case WeftParser::FSTRING_SPEC: names.push_back("a format spec"); break;
      case WeftParser::FSTRING_CLOSE: names.push_back("'}'"); break;
      case WeftParser::FSTRING_END: names.push_back("the end of the f-string"); break;
      default: names.push_back(vocab.getLiteralName(type)); break;
    }
  }
  if (names.empty() || names.size() > 3) return {};
  std::string out = names[0];
  for (size_t i = 1; i < names.size(); ++i) out += (i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// Whether the token before `bad` needs an expression after it (`f(1, *)`, `x = )`), even if
// the parser, having taken the comma as a trailing one, expects a closer instead.
bool expectsOperand(antlr4::Parser& parser, const Token* bad) {
  size_t i = bad->getTokenIndex();
  if (i == 0 || i == INVALID_INDEX) return false;
  size_t prev = parser.getTokenStream()->get(i - 1)->getType();
  switch (prev) {
    case WeftParser::ASSIGN: case WeftParser::PLUS_EQ: case WeftParser::MINUS_EQ: case WeftParser::STAR_EQ:
    case WeftParser::SLASH_EQ: case WeftParser::DSLASH_EQ: case WeftParser::PERCENT_EQ: case WeftParser::POW_EQ:
    case WeftParser::AT_EQ: case WeftParser::AMP_EQ: case WeftParser::BAR_EQ: case WeftParser::LPAREN: case WeftParser::LBRACK: case WeftParser::COLON:
      return true;
    default:
      return isContinuation(prev);
  }
}

bool endsWithExpression(antlr4::ParserRuleContext* statement) {
  if (statement->children.empty()) return false;
  auto* first = dynamic_cast<antlr4::ParserRuleContext*>(statement->children[0]);
  if (!first) return false;
  size_t r = first->getRuleIndex();
  return r == WeftParser::RuleExprStmt || r == WeftParser::RuleReturnStmt || r == WeftParser::RuleAssertStmt;
}

std::string parserMessage(antlr4::Parser& parser, const Token* bad, const std::string& antlrMsg) {
  antlr4::ParserRuleContext* ctx = parser.getContext();
  size_t rule = ctx ? ctx->getRuleIndex() : SIZE_MAX;
  size_t type = bad->getType();
  antlr4::misc::IntervalSet expected;
  try {
    expected = parser.getExpectedTokens();
  } catch (...) {
  }
  std::string found = describe(bad);
  bool atStatement = rule == WeftParser::RuleProgram || rule == WeftParser::RuleBlock || rule == WeftParser::RuleStatement;

  if ((type == WeftParser::ELSE || type == WeftParser::ELIF) && atStatement)
    return "'" + bad->getText() + "' without a matching 'if'";
  if (rule == WeftParser::RuleBlock && has(expected, WeftParser::LBRACE) && !has(expected, WeftParser::RBRACE)) {
    if (type == WeftParser::NEWLINE && parser.getTokenStream()->LA(2) == WeftParser::LBRACE)
      return "the '{' that opens a block must be on the same line as its statement";
    return "expected '{' to open a block, found " + found;
  }
  if (rule == WeftParser::RuleFnDecl && has(expected, WeftParser::FN) && has(expected, WeftParser::AT))
    return "a decorator must be followed by a function (`fn name(...) { ... }`), found " + found;
  if (rule == WeftParser::RuleBlock && !canStartStatement(type))
    return "expected '}' to close the block opened at " + position(ctx->start);
  if (!canStartExpr(type) && !atStatement && (has(expected, WeftParser::INT) || expectsOperand(parser, bad)))
    return "expected an expression";
  if (rule == WeftParser::RuleStatement && has(expected, WeftParser::NEWLINE))
    return "unexpected " + found + "; expected " +
           (endsWithExpression(ctx) ? "an operator or " : "") + "the end of the statement";
  if (atStatement) return "unexpected " + found;
  if (type == WeftParser::FOR && has(expected, WeftParser::RPAREN))  // Python's sum(x for x in xs)
    return "generator expressions are not supported; write a list comprehension, `[e for x in xs]`";
  bool inList = has(expected, WeftParser::RPAREN) || has(expected, WeftParser::RBRACK) || has(expected, WeftParser::RBRACE);
  if (inList && canStartExpr(type) && !has(expected, type)) return "unexpected " + found + "; is a ',' missing before it?";
  std::string names = listExpected(expected, parser.getVocabulary());
  if (names.empty()) return "unexpected " + found;
  if (antlrMsg.rfind("missing ", 0) == 0) return "expected " + names + " before " + found;
  if (antlrMsg.rfind("extraneous ", 0) == 0) return "unexpected " + found + "; expected " + names;
  return "expected " + names + ", found " + found;
}

// The first token of the innermost statement being parsed, to report one error per statement.
size_t statementStart(antlr4::ParserRuleContext* ctx) {
  for (; ctx; ctx = dynamic_cast<antlr4::ParserRuleContext*>(ctx->parent))
    if (ctx->getRuleIndex() == WeftParser::RuleStatement && ctx->start) return ctx->start->getTokenIndex();
  return SIZE_MAX;
}

int bracketDelta(size_t type) {
  switch (type) {
    case WeftParser::LPAREN: case WeftParser::LBRACK: case WeftParser::LBRACE: return 1;
    case WeftParser::RPAREN: case WeftParser::RBRACK: case WeftParser::RBRACE: return -1;
    default: return 0;
  }
}

}  // namespace

void StatementRecovery::recover(antlr4::Parser* parser, std::exception_ptr) {
  antlr4::TokenStream* in = parser->getTokenStream();
  // As ANTLR does: failing twice at the same place and state, move on by one token.
  if (lastErrorIndex == static_cast<int>(in->index()) && lastErrorStates.contains(parser->getState()))
    parser->consume();
  lastErrorIndex = static_cast<int>(in->index());
  lastErrorStates.add(parser->getState());
  // Brackets opened since the statement began; in a statement list, junk is skipped from here.
  antlr4::ParserRuleContext* ctx = parser->getContext();
  size_t from = in->index();
  if (ctx && ctx->getRuleIndex() != WeftParser::RuleBlock && ctx->getRuleIndex() != WeftParser::RuleProgram)
    from = std::min(from, statementStart(ctx));
  int depth = 0;
  for (size_t i = from; i < in->index(); ++i) depth += bracketDelta(in->get(i)->getType());
  for (size_t t; (t = in->LA(1)) != Token::EOF; parser->consume()) {
    if (depth <= 0 && (t == WeftParser::NEWLINE || t == WeftParser::RBRACE)) break;
    depth += bracketDelta(t);
  }
}

namespace {

// In the REPL a line that starts with ':' inside an open bracket is code (`xs[1` then `:3]`), not
// a command, as Python's REPL reads every continuation line as code; where it is wrong as code it
// was most likely meant as a command (`:quit`), which the message then says.
std::string replCommandNote(antlr4::Parser& parser, const Token* bad) {
  if (bad->getType() != WeftParser::COLON || bad->getInputStream()->getSourceName() != "<repl>") return "";
  antlr4::TokenStream* in = parser.getTokenStream();
  for (size_t i = bad->getTokenIndex(); i-- > 0;) {
    const Token* prev = in->get(i);
    if (prev->getLine() != bad->getLine()) break;
    if (prev->getChannel() == Token::DEFAULT_CHANNEL) return "";  // the ':' does not start its line
  }
  return " (inside an open bracket a line starting with ':' is code; REPL commands are read at the '>>> ' prompt)";
}

}  // namespace

void ErrorListener::syntaxError(antlr4::Recognizer* recognizer, Token* offending, size_t, size_t,
                                const std::string& msg, std::exception_ptr) {
  auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
  if (!parser || !offending) return;  // the lexer cannot fail: ERROR_CHAR takes any character
  size_t statement = statementStart(parser->getContext());
  errorTokens_.push_back(offending->getTokenIndex());
  if (statement != SIZE_MAX) errorTokens_.push_back(statement);
  if (errors_.full()) throw TooManyErrors{};
  errors_.addParserError(offending, parserMessage(*parser, offending, msg) + replCommandNote(*parser, offending),
                         statement);
}

}  // namespace weft::syntax

// ---- token-level checks -----------------------------------------------------------------

namespace weft::syntax {
namespace {

size_t typeAt(const TokenList& tokens, size_t i) { return i < tokens.size() ? tokens[i].getType() : Token::EOF; }

bool isNameToken(size_t type) {
  return type == WeftParser::NAME || type == WeftParser::MESH || type == WeftParser::ON ||
         type == WeftParser::MODULE || type == WeftParser::LAYOUT_MAP;
}

// C's `&&` and `||` (two `&` or `|` tokens side by side): reported, then read as `and` / `or`.
void doubledOperator(TokenList& tokens, size_t i, SyntaxErrors& errors) {
  WeftToken& t = tokens[i];
  WeftToken* next = i + 1 < tokens.size() ? &tokens[i + 1] : nullptr;
  if (!next || next->getType() != t.getType() || next->getStartIndex() != t.getStartIndex() + 1) return;
  bool amp = t.getType() == WeftParser::AMP;
  errors.add(tokenBegin(&t), tokenEnd(next), amp ? "'&&' is written 'and' in Weft" : "'||' is written 'or' in Weft");
  t.setType(amp ? WeftParser::AND : WeftParser::OR);
  next->setType(kDropped);
}

// A character no token starts with: reported, then retyped (`!` to `not`) or dropped.
void strayCharacter(TokenList& tokens, size_t i, SyntaxErrors& errors) {
  WeftToken& t = tokens[i];
  char32_t c = static_cast<Utf32InputStream*>(t.getInputStream())->text()[t.getStartIndex()];
  if (c == U'!') {
    errors.add(&t, "'!' is written 'not' in Weft");
    t.setType(WeftParser::NOT);
    return;
  }
  std::string what = c == 0 ? "unexpected NUL character (U+0000)" : "unexpected character " + describeChar(c);
  if (c == U'?') what += "; a conditional expression is written `a if condition else b`";
  else if (c == U'\\') what += ": outside a string, a backslash must end the line";
  else if (c == U'\u201C' || c == U'\u201D' || c == U'\u2018' || c == U'\u2019') what += "; strings use plain quotes \" or '";
  else if (c >= 0x80) what += "; names use only ASCII letters, digits and '_'";
  errors.add(&t, what);
  t.setType(kDropped);
}

// Python's `lambda x, y: e` (parameters, then a colon): reported with Weft's spelling; the parser's
// errors on the line are then taken as its cascade.
void lambdaHeader(const TokenList& tokens, size_t i, SyntaxErrors& errors) {
  std::string params;
  size_t j = i + 1;
  for (; isNameToken(typeAt(tokens, j)) || typeAt(tokens, j) == WeftParser::COMMA; ++j)
    params += tokens[j].getType() == WeftParser::COMMA ? ", " : tokens[j].getText();
  if (typeAt(tokens, j) != WeftParser::COLON) return;
  errors.add(&tokens[i], "Weft has no 'lambda': `lambda " + params + ": e` is written `fn(" + params + ") => e`");
}

// Python's `class Name(Base):`: a layer or model is a `module`, whose parentheses hold the
// constructor's parameters, not base classes; the bases are dropped so the header parses on.
void pythonClass(TokenList& tokens, size_t i, SyntaxErrors& errors) {
  const std::string name = tokens[i + 1].getText();
  errors.add(&tokens[i], "'class' is not a Weft keyword; a layer or model is declared with 'module', its "
                         "constructor's parameters in the parentheses (no base class): `module " + name +
                         "(units=4) { ... }`, with methods `fn call(x) { ... }`");
  tokens[i].setType(WeftParser::MODULE);
  tokens[i].setText("module");
  if (typeAt(tokens, i + 2) != WeftParser::LPAREN) return;
  int depth = 0;
  for (size_t j = i + 2; j < tokens.size() && tokens[j].getType() != WeftParser::NEWLINE; ++j) {
    const size_t type = tokens[j].getType();
    depth += type == WeftParser::LPAREN ? 1 : type == WeftParser::RPAREN ? -1 : 0;
    tokens[j].setType(kDropped);
    if (depth == 0) return;
  }
}

}  // namespace

void checkTokens(TokenList& tokens, SyntaxErrors& errors) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    WeftToken& t = tokens[i];
    switch (t.getType()) {
      case WeftParser::ERROR_CHAR:
        if (i > 0 && tokens[i - 1].getType() == kDropped && tokens[i - 1].getStopIndex() + 1 == t.getStartIndex())
          t.setType(kDropped);  // one error for a run of stray characters
        else
          strayCharacter(tokens, i, errors);
        break;
      case WeftParser::AMP: case WeftParser::BAR:
        doubledOperator(tokens, i, errors);
        break;
      case WeftParser::UNTERMINATED_STRING:
        errors.add(tokenBegin(&t), tokenBegin(&t), "unterminated string");
        t.setText(t.getText()[0] == '"' ? "\"\"" : "''");  // parse on as an empty string
        t.setType(WeftParser::STRING);
        break;
      case WeftParser::UNTERMINATED_TRIPLE:  // the rest of the file is inside the string
        errors.add(&t, "unterminated string");
        t.setText("\"\"");
        t.setType(WeftParser::STRING);
        for (size_t k = i + 1; k + 2 < tokens.size(); ++k) tokens[k].setType(kDropped);  // keep NEWLINE, EOF
        break;
      case WeftParser::NAME:
        if (isNameToken(typeAt(tokens, i + 1)) && typeAt(tokens, i + 2) == WeftParser::LPAREN && t.getText() == "def") {
          errors.add(&t, "'def' is not a Weft keyword; functions are declared with 'fn'");
          t.setType(WeftParser::FN);
          t.setText("fn");
        } else if (isNameToken(typeAt(tokens, i + 1)) && t.getText() == "class") {
          pythonClass(tokens, i, errors);
        } else if (t.getText() == "lambda") {
          lambdaHeader(tokens, i, errors);
        }
        break;
      case WeftParser::ELSE:
        if (typeAt(tokens, i + 1) == WeftParser::IF) {
          errors.add(tokenBegin(&t), tokenEnd(&tokens[i + 1]), "'else if' is written 'elif'");
          t.setType(WeftParser::ELIF);
          t.setText("elif");
          tokens[i + 1].setType(kDropped);
        }
        break;
      default:
        break;
    }
  }
  removeDropped(tokens);
}

namespace {

// `if x` for the message about colon blocks, from the keyword to the token before the colon.
std::string headerText(const WeftToken& keyword, const WeftToken& last) {
  std::string text = keyword.getInputStream()->getText(
      {static_cast<ssize_t>(keyword.getStartIndex()), static_cast<ssize_t>(last.getStopIndex())});
  if (keyword.getType() == WeftParser::FN && text.rfind("def", 0) == 0) text = "fn" + text.substr(3);
  if (text.find('\n') != std::string::npos || text.size() > 40) return keyword.getText() + " ...";
  return text;
}

bool fromPythonClass(const WeftToken& keyword) {
  return keyword.getType() == WeftParser::MODULE &&
         keyword.getInputStream()->getText({static_cast<ssize_t>(keyword.getStartIndex()),
                                            static_cast<ssize_t>(keyword.getStopIndex())}) == "class";
}

bool isHeader(const TokenList& tokens, size_t i, size_t prev) {
  switch (tokens[i].getType()) {
    case WeftParser::IF: return !isOperandEnd(prev);  // not a conditional expression
    case WeftParser::ELSE: return !isOperandEnd(prev) || prev == WeftParser::RBRACE;
    case WeftParser::ELIF: case WeftParser::WHILE: case WeftParser::FOR: case WeftParser::WITH: return true;
    case WeftParser::FN: case WeftParser::MODULE: return isNameToken(typeAt(tokens, i + 1));  // not a lambda
    default: return false;
  }
}

// Checks the header starting with the keyword at i; returns true when it ends with a colon,
// which has then been turned into '{'.
bool checkHeader(TokenList& tokens, size_t i, SyntaxErrors& errors) {
  size_t kw = tokens[i].getType();
  bool condition = kw == WeftParser::IF || kw == WeftParser::ELIF || kw == WeftParser::WHILE;
  int depth = 0;
  size_t end = std::min(tokens.size(), i + 256);  // a header is short; bounds the work on junk
  for (size_t j = i + 1; j < end; ++j) {
    WeftToken& t = tokens[j];
    size_t type = t.getType();
    if (type == WeftParser::LPAREN || type == WeftParser::LBRACK) ++depth;
    else if (type == WeftParser::RPAREN || type == WeftParser::RBRACK) --depth;
    if (depth > 0) continue;
    // A bracket opened before the keyword closes: it was a comprehension's `for` or `if`.
    if (depth < 0 || type == WeftParser::LBRACE || type == WeftParser::RBRACE || type == WeftParser::NEWLINE ||
        type == WeftParser::SEMI || type == Token::EOF)
      return false;
    if (type == WeftParser::ASSIGN && condition) {
      errors.add(&t, "'=' in a condition; did you mean '=='?");
      t.setType(WeftParser::EQ);
      t.setText("==");
    } else if (type == WeftParser::COLON) {
      if (!fromPythonClass(tokens[i]))  // whose error shows the braces already
        errors.add(&t, "blocks use braces: `" + headerText(tokens[i], tokens[j - 1]) + " { ... }`");
      t.setType(WeftParser::LBRACE);
      t.setText("{");
      return true;
    }
  }
  return false;
}

}  // namespace

void checkBlockHeaders(TokenList& tokens, SyntaxErrors& errors) {
  TokenList out;  // only filled once a repair needs to insert a token
  int depth = 0;
  std::vector<int> closeAt;  // depths at which a repaired colon block ends with its line
  size_t prev = Token::INVALID_TYPE;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (isHeader(tokens, i, prev) && checkHeader(tokens, i, errors)) closeAt.push_back(depth + 1);
    size_t type = tokens[i].getType();
    if (type == WeftParser::LPAREN || type == WeftParser::LBRACK || type == WeftParser::LBRACE) ++depth;
    if (type == WeftParser::RPAREN || type == WeftParser::RBRACK || type == WeftParser::RBRACE) --depth;
    bool lineEnd = type == WeftParser::NEWLINE || type == WeftParser::SEMI || type == Token::EOF;
    while (lineEnd && !closeAt.empty() && closeAt.back() == depth) {
      if (out.empty()) out.assign(tokens.begin(), tokens.begin() + static_cast<ptrdiff_t>(i));
      out.push_back(syntheticToken(tokens[i], WeftParser::NEWLINE, ""));  // see lexAll
      out.push_back(syntheticToken(tokens[i], WeftParser::RBRACE, "}"));
      closeAt.pop_back();
      --depth;
    }
    prev = type;
    if (!out.empty()) out.push_back(tokens[i]);
  }
  if (!out.empty()) tokens = std::move(out);
}

}  // namespace weft::syntax
