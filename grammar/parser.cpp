// parseProgram: the pipeline from bytes to AST.
//
//   decode UTF-8 -> lex (lexing.cpp) -> token checks with friendly messages and repairs
//   (syntax_errors.cpp) -> bracket and nesting checks -> newline filter (token_source.cpp)
//   -> ANTLR parse -> AST (ast_builder.cpp)
//
// The parse is two-stage, as ANTLR recommends for speed: SLL prediction with a bail-out error
// strategy first, statement by statement; only if that fails, a second parse of the whole file
// with full LL prediction and error recovery, which reports the errors.
#include "parser.h"

#include <mutex>

#include "BailErrorStrategy.h"
#include "Exceptions.h"
#include "WeftParser.h"
#include "ast_builder.h"
#include "atn/ParserATNSimulator.h"
#include "atn/PredictionMode.h"
#include "dfa/DFA.h"
#include "dfa/DFAState.h"
#include "lexing.h"
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
  parser.setErrorHandler(std::make_shared<StatementRecovery>());
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

// Uses the real lexer, so it agrees with the parser on strings, comments and operators.
bool PendingInput::addLine(std::string_view line) {
  using L = gen::WeftParser;
  if (!tail_.empty() || started_) tail_ += '\n';
  started_ = true;
  tail_ += line;
  std::vector<BadByte> bad;
  std::u32string chars = decodeUtf8(tail_, bad);
  std::vector<RawToken> tokens;
  lexTokens(chars, [&](const RawToken& t) {
    if (t.type != L::NEWLINE && t.type != antlr4::Token::EOF) tokens.push_back(t);
  });
  std::vector<size_t> open = open_;
  bool wrong = wrong_;
  for (const RawToken& t : tokens) {
    if (t.type == L::UNTERMINATED_TRIPLE) return true;  // the rest of the text is inside it
    if (wrong) break;
    if (t.type == L::LPAREN || t.type == L::LBRACK || t.type == L::LBRACE) open.push_back(t.type);
    if (t.type == L::RPAREN || t.type == L::RBRACK || t.type == L::RBRACE) {
      size_t opener = t.type == L::RPAREN ? L::LPAREN : t.type == L::RBRACK ? L::LBRACK : L::LBRACE;
      if (open.empty() || open.back() != opener) wrong = true;  // let the parser say so
      else open.pop_back();
    }
  }
  if (!tokens.empty()) {
    const RawToken& last = tokens.back();
    switch (last.type) {  // the tail is kept, to be lexed again with the next line
      case L::UNTERMINATED_STRING:  // goes on only after a backslash-newline
        return !wrong && last.start + last.length == chars.size() && chars.back() == U'\n';
      case L::ERROR_CHAR:  // a trailing backslash
        return !wrong && chars[last.start] == U'\\' && last.start + 1 == chars.size();
      default: break;
    }
    size_t lineStart = tokens.size() - 1;  // a decorator line needs the `fn` below it
    while (lineStart > 0 && tokens[lineStart - 1].line == last.line) --lineStart;
    continues_ = isContinuation(last.type) || tokens[lineStart].type == L::AT;
    any_ = true;
  }
  // The tail ended outside every string: later lines are lexed without it.
  open_ = std::move(open);
  wrong_ = wrong;
  tail_.clear();
  return any_ && !wrong_ && (!open_.empty() || continues_);
}

bool inputIsIncomplete(std::string_view text) {
  PendingInput input;
  bool incomplete = false;
  for (size_t from = 0;;) {
    size_t nl = text.find('\n', from);
    incomplete = input.addLine(text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from));
    if (nl == std::string_view::npos) return incomplete;
    from = nl + 1;
  }
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
