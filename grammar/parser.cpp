// parseProgram: the pipeline from bytes to AST.
//
//   decode UTF-8 -> lex the whole file (lexing.cpp) -> token checks (friendly repairs) -> bracket and
//   nesting checks -> statement-header checks -> newline filter -> ANTLR parse -> AST builder
//
// The parse is two-stage, as ANTLR recommends for speed: SLL prediction with a bail-out error
// strategy first (fast, no full-context lookahead), and only if that fails a second parse
// with full LL prediction and error recovery, which also reports the errors.
#include "parser.h"

#include <cctype>
#include <mutex>

#include "BailErrorStrategy.h"
#include "DefaultErrorStrategy.h"
#include "WeftParser.h"
#include "ast_builder.h"
#include "atn/ParserATNSimulator.h"
#include "atn/PredictionMode.h"
#include "dfa/DFA.h"
#include "dfa/DFAState.h"
#include "lexing.h"
#include "Exceptions.h"
#include "syntax_errors.h"
#include "token_source.h"

namespace weft {
namespace {

using namespace weft::syntax;

// Size limits that are checked on the raw bytes, before anything else runs.
bool withinLimits(const SourceFile& file, SyntaxErrors& errors) {
  const ParseLimits& limits = parseLimits();
  if (file.text.size() > limits.maxSourceBytes) {
    errors.add({1, 1}, {1, 1},
               "file too large (" + std::to_string(file.text.size()) + " bytes; the limit is " +
                   std::to_string(limits.maxSourceBytes) + ")");
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < file.lineStarts.size(); ++i) {
    size_t end = i + 1 < file.lineStarts.size() ? file.lineStarts[i + 1] - 1 : file.text.size();
    size_t length = end - file.lineStarts[i];
    if (length > limits.maxLineLength) {
      SourcePos at{static_cast<uint32_t>(i + 1), 1};
      errors.add(at, at, "line too long (" + std::to_string(length) + " bytes; the limit is " +
                             std::to_string(limits.maxLineLength) + ")");
      ok = false;
    }
  }
  return ok;
}

// ANTLR 4.9's adaptivePredict allocates a std::function and takes a lock on every call, even
// when the answer is already in the DFA cache; with a prediction at nearly every token that was
// the largest cost of a parse. This walks the cached DFA first, exactly as execATN would, and
// calls ANTLR only when a state is missing or needs more than the cache (full context,
// predicates, errors). Reading the DFA without ANTLR's lock is safe because parses are
// serialised (see parseProgram).
class CachedPredictionSimulator : public antlr4::atn::ParserATNSimulator {
 public:
  using ParserATNSimulator::ParserATNSimulator;

  size_t adaptivePredict(antlr4::TokenStream* input, size_t decision, antlr4::ParserRuleContext* outer) override {
    antlr4::dfa::DFA& dfa = decisionToDFA[decision];
    antlr4::dfa::DFAState* d = dfa.isPrecedenceDfa() ? dfa.getPrecedenceStartState(parser->getPrecedence()) : dfa.s0;
    bool sll = getPredictionMode() == antlr4::atn::PredictionMode::SLL;
    for (ssize_t k = 1; d; ++k) {
      auto edge = d->edges.find(input->LA(k));
      if (edge == d->edges.end() || edge->second == ERROR.get()) break;
      d = edge->second;
      if (d->requiresFullContext && !sll) break;
      if (d->isAcceptState) {
        if (d->predicates.empty()) return d->prediction;
        break;
      }
    }
    return ParserATNSimulator::adaptivePredict(input, decision, outer);
  }
};

// Stage 1: SLL prediction, no error recovery, one top-level statement at a time. Each
// statement's parse tree is turned into AST and freed at once: a whole-file parse tree takes
// about 100 bytes per source character, and allocating and freeing it cost more than parsing.
// Returns false at the first syntax error.
bool parseFast(gen::WeftParser& parser, antlr4::TokenStream& stream, AstBuilder& builder, ast::Program& out) {
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  try {
    while (stream.LA(1) != antlr4::Token::EOF) {
      builder.transformTopLevel(*parser.statement(), out);
      parser.getTreeTracker().reset();
    }
    return true;
  } catch (const antlr4::ParseCancellationException&) {
    return false;
  }
}

// Stage 2, only for a file with syntax errors: the whole program again, with full LL
// prediction and ANTLR's error recovery, every error going to the listener.
void parseWithRecovery(gen::WeftParser& parser, ErrorListener& listener, AstBuilder& builder, ast::Program& out) {
  parser.reset();  // also rewinds the token stream
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
  parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
  parser.addErrorListener(&listener);
  gen::WeftParser::ProgramContext* tree;
  try {
    tree = parser.program();
  } catch (const TooManyErrors&) {
    return;
  }
  std::vector<size_t> errorTokens = listener.errorTokens();
  std::sort(errorTokens.begin(), errorTokens.end());
  builder.transformProgram(*tree, errorTokens, out);
}

}  // namespace

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }
bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Operators and words after which a line continues (must match syntax::isContinuation).
bool continuesLine(std::string_view tok) {
  static constexpr std::string_view kOps[] = {"+", "-", "*", "/", "//", "%", "**", "@", "==", "!=", "<",
                                              "<=", ">", ">=", ",", "=>", "and", "or", "not", "in"};
  for (auto op : kOps)
    if (tok == op) return true;
  return false;
}

// Skips a string literal starting at text[i]. Returns the index after it, or npos when the
// text ends inside it; `needsMore` says whether more lines could complete it (a triple-quoted
// string, or a normal one whose line ends with a backslash).
size_t skipString(std::string_view text, size_t i, bool& needsMore) {
  char q = text[i];
  bool triple = text.substr(i, 3) == std::string(3, q);
  size_t j = i + (triple ? 3 : 1);
  bool escapedNewline = false;
  while (j < text.size()) {
    char c = text[j];
    if (c == '\\') {
      escapedNewline = j + 1 >= text.size() || text[j + 1] == '\n' || text.substr(j + 1, 2) == "\r\n";
      j += text.substr(j + 1, 2) == "\r\n" ? 3 : 2;
      continue;
    }
    escapedNewline = false;
    if (triple ? text.substr(j, 3) == std::string(3, q) : c == q) return j + (triple ? 3 : 1);
    if (!triple && c == '\n') { needsMore = false; return std::string_view::npos; }
    ++j;
  }
  needsMore = triple || escapedNewline;
  return std::string_view::npos;
}

// Whether the last line holding code starts with a decorator, which needs the `fn` below it.
bool endsWithDecorator(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    size_t start = text.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = text.substr(start, end - start);
    size_t k = line.find_first_not_of(" \t\r\f");
    if (k != std::string_view::npos && line[k] != '#') return line[k] == '@';
    if (start == 0) break;
    end = start - 1;
  }
  return false;
}

}  // namespace

bool inputIsIncomplete(std::string_view text) {
  std::string brackets;
  std::string_view last;  // the last significant token
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (isSpace(c)) { ++i; continue; }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '\\') {
      size_t j = text.find_first_not_of(" \t\r", i + 1);
      if (j == std::string_view::npos) return true;  // a trailing backslash joins the next line
      if (text[j] == '\n') { i = j + 1; continue; }
      last = text.substr(i++, 1);  // a stray backslash: the parser will report it
      continue;
    }
    if (c == '"' || c == '\'') {
      bool needsMore = false;
      size_t j = skipString(text, i, needsMore);
      if (j == std::string_view::npos) return needsMore;
      last = text.substr(i, j - i);
      i = j;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      brackets.push_back(c);
      last = text.substr(i++, 1);
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      char open = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (brackets.empty() || brackets.back() != open) return false;  // the parser reports it
      brackets.pop_back();
      last = text.substr(i++, 1);
      continue;
    }
    size_t j = i + 1;
    if (isWordChar(c) || (c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      while (j < text.size() && (isWordChar(text[j]) || text[j] == '.' ||
                                 ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E') &&
                                  std::isdigit(static_cast<unsigned char>(c)))))
        ++j;
    } else {
      static constexpr std::string_view kLong[] = {"**=", "//=", "...", "**", "//", "==", "!=", "<=", ">=",
                                                   "=>", "->", "+=", "-=", "*=", "/=", "%=", "@="};
      for (auto op : kLong)
        if (text.substr(i, op.size()) == op) { j = i + op.size(); break; }
    }
    last = text.substr(i, j - i);
    i = j;
  }
  if (!brackets.empty()) return true;
  return continuesLine(last) || endsWithDecorator(text);
}

ParseLimits& parseLimits() {
  static ParseLimits limits;
  return limits;
}

std::unique_ptr<ast::Program> parseProgram(std::shared_ptr<const SourceFile> file, Diagnostics& diags) {
  auto program = std::make_unique<ast::Program>();
  program->file = file;
  SyntaxErrors errors(file);
  if (!withinLimits(*file, errors)) {
    errors.flushTo(diags);
    return program;
  }

  std::vector<BadByte> badBytes;
  Utf32InputStream input(decodeUtf8(file->text, badBytes), file->path);
  for (size_t i = 0; i < badBytes.size(); ++i) {
    const BadByte& b = badBytes[i];
    if (i > 0 && badBytes[i - 1].at.line == b.at.line && badBytes[i - 1].at.col + 1 == b.at.col) continue;  // a run
    static const char* hex = "0123456789abcdef";
    errors.add(b.at, b.at, std::string("invalid UTF-8 byte 0x") + hex[b.byte >> 4] + hex[b.byte & 15]);
  }
  WeftTokenSource source(input);
  TokenList tokens = lexAll(input, source);
  // The DFA cache of the generated parser is shared by all parses; one parse at a time.
  static std::mutex parsing;
  std::lock_guard<std::mutex> lock(parsing);
  checkTokens(tokens, errors);
  bool parseable = checkBrackets(tokens, errors, parseLimits());
  checkBlockHeaders(tokens, errors);  // its errors are worth reporting even if parsing cannot go on
  if (parseable) {
    filterNewlines(tokens);
    TokenArrayStream stream(tokens, source);
    gen::WeftParser parser(&stream);
    parser.removeErrorListeners();
    auto* original = parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
    parser.setInterpreter(new CachedPredictionSimulator(&parser, original->atn, original->decisionToDFA,
                                                        original->getSharedContextCache()));  // deletes original
    AstBuilder builder(file, tokens, errors);
    size_t before = errors.size();
    if (!parseFast(parser, stream, builder, *program)) {
      program->body.clear();
      errors.truncate(before);  // the builder's errors come again from the second parse
      ErrorListener listener(errors);
      parseWithRecovery(parser, listener, builder, *program);
    }
  }
  errors.flushTo(diags);
  return program;
}

}  // namespace weft
