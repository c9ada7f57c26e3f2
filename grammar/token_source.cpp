#include "token_source.h"

#include <algorithm>

#include "CommonTokenFactory.h"
#include "Exceptions.h"
#include "RuleContext.h"
#include "WeftLexer.h"
#include "WeftParser.h"
#include "lexing.h"
#include "syntax_errors.h"

namespace weft::syntax {

using antlr4::Token;
using gen::WeftLexer;
using gen::WeftParser;

Utf32InputStream::Utf32InputStream(std::u32string text, std::string name) : name_(std::move(name)) {
  _data = std::move(text);
  p = 0;
}

std::string Utf32InputStream::getText(const antlr4::misc::Interval& interval) {
  if (interval.a < 0 || interval.b < interval.a) return {};
  size_t from = static_cast<size_t>(interval.a);
  size_t to = std::min(static_cast<size_t>(interval.b) + 1, _data.size());
  std::string out;
  out.reserve(to > from ? to - from : 0);
  for (size_t i = from; i < to; ++i) appendUtf8(out, _data[i]);
  return out;
}

std::unique_ptr<Token> WeftTokenSource::nextToken() {
  return antlr4::CommonTokenFactory::DEFAULT->create(Token::EOF, "");
}

antlr4::TokenFactory<antlr4::CommonToken>* WeftTokenSource::getTokenFactory() {
  return antlr4::CommonTokenFactory::DEFAULT.get();
}

std::string WeftToken::getText() const {
  if (text_) return text_;
  if (getType() == Token::EOF) return "<EOF>";
  return source_->getInputStream()->getText({static_cast<ssize_t>(start_), static_cast<ssize_t>(start_ + length_) - 1});
}

void removeDropped(TokenList& tokens) {
  tokens.erase(std::remove_if(tokens.begin(), tokens.end(), [](const WeftToken& t) { return t.getType() == kDropped; }),
               tokens.end());
}

// ---- the stream the parser reads ------------------------------------------------------------

TokenArrayStream::TokenArrayStream(TokenList& tokens, WeftTokenSource& source) : tokens_(tokens), source_(source) {
  source_.setTokens(tokens_.data());
}

Token* TokenArrayStream::LT(ssize_t k) {
  if (k == 0) return nullptr;
  if (k < 0) return -k <= static_cast<ssize_t>(p_) ? &tokens_[p_ + k] : nullptr;
  return &tokens_[std::min(p_ + static_cast<size_t>(k) - 1, tokens_.size() - 1)];  // EOF repeats
}

size_t TokenArrayStream::LA(ssize_t i) {
  Token* t = LT(i);
  return t ? t->getType() : Token::INVALID_TYPE;
}

void TokenArrayStream::consume() {
  if (tokens_[p_].getType() == Token::EOF) throw antlr4::IllegalStateException("cannot consume EOF");
  ++p_;
}

std::string TokenArrayStream::getText(const antlr4::misc::Interval& interval) {
  std::string out;
  if (interval.a < 0 || interval.b < interval.a) return out;
  for (size_t i = interval.a; i <= static_cast<size_t>(interval.b) && i < tokens_.size(); ++i)
    if (tokens_[i].getType() != Token::EOF) out += tokens_[i].getText();
  return out;
}

std::string TokenArrayStream::getText() { return getText(antlr4::misc::Interval(0LL, static_cast<ssize_t>(tokens_.size()) - 1)); }

std::string TokenArrayStream::getText(antlr4::RuleContext* ctx) { return getText(ctx->getSourceInterval()); }

std::string TokenArrayStream::getText(Token* start, Token* stop) {
  if (!start || !stop) return {};
  return getText(antlr4::misc::Interval(static_cast<ssize_t>(start->getTokenIndex()), static_cast<ssize_t>(stop->getTokenIndex())));
}

// ---- positions and lexing ---------------------------------------------------------------------

SourcePos tokenBegin(const Token* t) {
  return {static_cast<uint32_t>(t->getLine()), static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
}

SourcePos tokenEnd(const Token* t) {
  SourcePos b = tokenBegin(t);
  size_t start = t->getStartIndex(), stop = t->getStopIndex();
  if (start == INVALID_INDEX || stop == INVALID_INDEX || stop < start || stop + 1 == start) return b;
  if (t->getType() == WeftLexer::STRING) {  // only strings span lines
    std::string text = t->getText();
    size_t nl = text.rfind('\n');
    if (nl != std::string::npos) {
      uint32_t col = 0;
      for (size_t i = nl + 1; i < text.size(); ++i) col += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
      return {b.line + static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n')), col};
    }
  }
  return {b.line, b.col + static_cast<uint32_t>(stop - start)};
}

WeftToken syntheticToken(const WeftToken& anchor, size_t type, const char* text) {
  WeftToken t(type, anchor.getStartIndex(), 0, tokenBegin(&anchor), static_cast<WeftTokenSource*>(anchor.getTokenSource()));
  t.setText(text);
  return t;
}

namespace {

// Splits an FSTRING token: FSTRING_START (`f"`), runs of FSTRING_TEXT (`{{` and `}}` each become
// an FSTRING_TEXT of one brace), and for each `{expression=!r:spec}` FSTRING_OPEN, the expression's
// tokens, FSTRING_SPEC (from a top-level `=`, `!r`/`!s` or `:` on, if any; the AST builder reads
// it) and FSTRING_CLOSE; then FSTRING_END. A brace without its partner becomes an ERROR_CHAR,
// reported as a stray character.
void splitFString(std::u32string_view text, const RawToken& r, TokenList& tokens, WeftTokenSource& source) {
  auto add = [&](size_t type, size_t start, size_t length) {
    tokens.emplace_back(type, start, length, SourcePos{r.line, static_cast<uint32_t>(r.col + 1 + (start - r.start))},
                        &source);
  };
  size_t end = r.start + r.length - 1;  // the closing quote
  add(WeftParser::FSTRING_START, r.start, 2);
  size_t i = r.start + 2, textStart = i;
  auto flushText = [&](size_t upTo) {
    if (upTo > textStart) add(WeftParser::FSTRING_TEXT, textStart, upTo - textStart);
  };
  while (i < end) {
    char32_t c = text[i];
    if (c == U'\\') {  // an escape belongs to the text
      i += text[i + 1] == U'\r' ? 3 : 2;
      continue;
    }
    if (c != U'{' && c != U'}') {
      ++i;
      continue;
    }
    flushText(i);
    if (i + 1 < end && text[i + 1] == c) {  // `{{` or `}}`
      add(WeftParser::FSTRING_TEXT, i, 1);
      textStart = i += 2;
      continue;
    }
    // The expression runs to the '}' or ':' outside its own brackets and strings.
    size_t j = i + 1;
    int depth = 0;
    char32_t quote = 0;
    for (; j < end; ++j) {
      char32_t d = text[j];
      if (quote) {
        if (d == U'\\' && j + 1 < end) ++j;
        else if (d == quote) quote = 0;
      } else if (d == U'"' || d == U'\'') {
        quote = d;
      } else if (d == U'(' || d == U'[' || d == U'{') {
        ++depth;
      } else if (d == U')' || d == U']' || d == U'}') {
        if (depth == 0 && d == U'}') break;
        depth = std::max(0, depth - 1);
      } else if (depth == 0 && (d == U':' || (d == U'!' && j + 1 < end && text[j + 1] != U'='))) {
        break;  // a format spec or a conversion; `!=` is an operator
      }
    }
    // `{x=}` and `{x = }` (Python 3.8's self-documenting field): the expression ends before the
    // '=', which is not part of `==`, `!=`, `<=` or `>=`.
    size_t exprEnd = j;
    size_t last = j;
    while (last > i + 1 && (text[last - 1] == U' ' || text[last - 1] == U'\t')) --last;
    if (last > i + 2 && text[last - 1] == U'=' && std::u32string_view(U"=!<>").find(text[last - 2]) == std::u32string_view::npos)
      exprEnd = last - 1;
    size_t close = j;
    while (close < end && text[close] != U'}') ++close;
    if (c == U'}' || close == end) {  // a lone brace
      add(WeftLexer::ERROR_CHAR, i, 1);
      textStart = ++i;
      continue;
    }
    add(WeftParser::FSTRING_OPEN, i, 1);
    size_t exprStart = i + 1;
    lexTokens(text.substr(exprStart, exprEnd - exprStart), [&](const RawToken& e) {
      if (e.type == WeftLexer::NEWLINE || e.type == Token::EOF) return;
      RawToken at{e.type, e.length, e.start + exprStart, r.line, static_cast<uint32_t>(r.col + (e.start + exprStart - r.start))};
      if (e.type == WeftLexer::FSTRING) splitFString(text, at, tokens, source);
      else add(e.type, at.start, at.length);
    });
    if (close > exprEnd) add(WeftParser::FSTRING_SPEC, exprEnd, close - exprEnd);
    add(WeftParser::FSTRING_CLOSE, close, 1);
    textStart = i = close + 1;
  }
  flushText(end);
  add(WeftParser::FSTRING_END, end, 1);
}

}  // namespace

TokenList lexAll(Utf32InputStream& input, WeftTokenSource& source) {
  TokenList tokens;
  tokens.reserve(input.text().size() / 4 + 16);
  lexTokens(input.text(), [&](const RawToken& r) {
    if (r.type == WeftLexer::FSTRING) return splitFString(input.text(), r, tokens, source);
    tokens.emplace_back(r.type, r.start, r.length, SourcePos{r.line, r.col + 1}, &source);
    if (r.type == WeftLexer::RBRACE) {  // room for the NEWLINE ending a statement
      tokens.insert(tokens.end() - 1, syntheticToken(tokens.back(), WeftLexer::NEWLINE, ""));
    } else if (r.type == Token::EOF) {  // the same, placed at the end of the last line for messages
      WeftToken nl = syntheticToken(tokens.back(), WeftLexer::NEWLINE, "");
      if (tokens.size() > 1) {
        const WeftToken& last = tokens[tokens.size() - 2];
        SourcePos end = tokenEnd(&last);
        nl = WeftToken(WeftLexer::NEWLINE, last.getStartIndex() + last.length(), 0,
                       last.getType() == WeftLexer::NEWLINE ? tokenBegin(&last) : SourcePos{end.line, end.col + 1}, &source);
        nl.setText("");
      }
      tokens.insert(tokens.end() - 1, nl);
    }
  });
  return tokens;
}

std::string compareWithAntlrLexer(std::string_view text) {
  std::vector<BadByte> bad;
  Utf32InputStream input(decodeUtf8(text, bad), "<test>");
  std::vector<RawToken> mine;
  lexTokens(input.text(), [&](const RawToken& r) { mine.push_back(r); });
  WeftLexer lexer(&input);
  lexer.removeErrorListeners();
  for (size_t i = 0;; ++i) {
    std::unique_ptr<Token> t = lexer.nextToken();
    auto describe = [](size_t type, size_t start, size_t stop, size_t line, size_t col) {
      return "type " + std::to_string(type) + " [" + std::to_string(start) + ".." + std::to_string(stop) + "] at " +
             std::to_string(line) + ":" + std::to_string(col);
    };
    std::string theirs = describe(t->getType(), t->getStartIndex(), t->getStopIndex(), t->getLine(), t->getCharPositionInLine());
    if (i >= mine.size()) return "token " + std::to_string(i) + ": WeftLexer has " + theirs + ", lexTokens has none";
    const RawToken& m = mine[i];
    std::string ours = describe(m.type, m.start, m.start + m.length - 1, m.line, m.col);
    if (ours != theirs) return "token " + std::to_string(i) + ": WeftLexer has " + theirs + ", lexTokens has " + ours;
    if (t->getType() == Token::EOF) return i + 1 == mine.size() ? "" : "lexTokens has tokens after EOF";
  }
}

// ---- newline filter ---------------------------------------------------------------------------

bool isOperandEnd(size_t type) {
  switch (type) {
    case WeftLexer::NAME: case WeftLexer::MESH: case WeftLexer::ON: case WeftLexer::MODULE:
    case WeftLexer::LAYOUT_MAP: case WeftLexer::INT: case WeftLexer::FLOAT: case WeftLexer::STRING:
    case WeftLexer::TRUE: case WeftLexer::FALSE: case WeftLexer::NONE: case WeftLexer::RPAREN:
    case WeftLexer::RBRACK: case WeftLexer::RBRACE: case WeftLexer::ELLIPSIS: case WeftParser::FSTRING_END:
      return true;
    default:
      return false;
  }
}

bool isContinuation(size_t type) {
  switch (type) {
    case WeftLexer::PLUS: case WeftLexer::MINUS: case WeftLexer::STAR: case WeftLexer::SLASH:
    case WeftLexer::DSLASH: case WeftLexer::PERCENT: case WeftLexer::POW: case WeftLexer::AT:
    case WeftLexer::AMP: case WeftLexer::BAR: case WeftLexer::EQ: case WeftLexer::NE: case WeftLexer::LT: case WeftLexer::LE: case WeftLexer::GT:
    case WeftLexer::GE: case WeftLexer::COMMA: case WeftLexer::FAT_ARROW: case WeftLexer::AND:
    case WeftLexer::OR: case WeftLexer::NOT: case WeftLexer::IN:
      return true;
    default:
      return false;
  }
}

namespace {

// The index of the first token after i that is not a separator.
size_t nextSignificant(const TokenList& tokens, size_t i) {
  while (++i < tokens.size() &&
         (tokens[i].getType() == WeftLexer::NEWLINE || tokens[i].getType() == WeftLexer::SEMI)) {
  }
  return i;
}

// A `{` that opens a dict or set literal rather than a block: blocks follow the end of an
// expression (`if x {`, `fn f() {`, `module M {`) or `else`.
constexpr size_t kLiteralBrace = ~size_t(0);

// Tokens that cannot start an entry of a dict or set literal, so a line of one starting with
// them continues the entry above, as inside Python's braces: `{"a"` then `: 1}`, a leading
// comma, a comprehension's `for` or `if` on a line of its own. (A line ending with `:` goes on
// too: `{"a":` then `1}`.)
bool continuesEntry(size_t type) {
  return type == WeftLexer::COLON || type == WeftLexer::COMMA || type == WeftLexer::FOR || type == WeftLexer::IF ||
         type == WeftLexer::ELSE;
}

}  // namespace

void filterNewlines(TokenList& tokens) {
  std::vector<size_t> open;  // types of the open brackets (kLiteralBrace for a dict or set's)
  size_t prev = Token::INVALID_TYPE;  // the last kept token's type
  size_t kept = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    WeftToken& t = tokens[i];
    size_t type = t.getType();
    switch (type) {
      case WeftLexer::NEWLINE:
      case WeftLexer::SEMI: {
        bool inParens = !open.empty() && open.back() != WeftLexer::LBRACE && open.back() != kLiteralBrace;
        if (t.length() == 0) {  // the placeholder before '}' or EOF: a statement may end here
          if (prev == Token::INVALID_TYPE || prev == WeftLexer::NEWLINE || prev == WeftLexer::LBRACE) continue;
          break;
        }
        if (inParens && type == WeftLexer::NEWLINE) continue;
        if (inParens) break;  // a ';' inside ( ): the parser reports it
        if (prev == Token::INVALID_TYPE || prev == WeftLexer::NEWLINE || prev == WeftLexer::LBRACE) continue;
        if (type == WeftLexer::NEWLINE && isContinuation(prev)) continue;
        if (type == WeftLexer::NEWLINE && !open.empty() && open.back() == kLiteralBrace) {
          if (prev == WeftLexer::COLON) continue;
          const size_t next = nextSignificant(tokens, i);
          if (next < tokens.size() && continuesEntry(tokens[next].getType())) continue;
        }
        if (prev == WeftLexer::RBRACE) {  // `}` NEWLINE `else`: the else belongs to the if above
          size_t next = nextSignificant(tokens, i);
          size_t nextType = next < tokens.size() ? tokens[next].getType() : Token::EOF;
          if (nextType == WeftLexer::ELSE || nextType == WeftLexer::ELIF) {
            i = next - 1;  // drop the whole run of separators
            continue;
          }
        }
        t.setType(WeftLexer::NEWLINE);
        break;
      }
      case WeftLexer::LPAREN: case WeftLexer::LBRACK:
        open.push_back(type);
        break;
      case WeftLexer::LBRACE:
        open.push_back(isOperandEnd(prev) || prev == WeftLexer::ELSE ? type : kLiteralBrace);
        break;
      case WeftLexer::RPAREN: case WeftLexer::RBRACK: case WeftLexer::RBRACE:
        if (!open.empty()) open.pop_back();
        break;
      default:
        break;
    }
    prev = t.getType();
    if (kept != i) tokens[kept] = t;
    ++kept;
  }
  tokens.erase(tokens.begin() + static_cast<ptrdiff_t>(kept), tokens.end());
}

}  // namespace weft::syntax

// ---- brackets and nesting -------------------------------------------------------------------

namespace weft::syntax {
namespace {

// One open bracket (or the statement level, open == nullptr). ANTLR recurses once per bracket
// and once per pending right-nested operator, so those are counted to bound its stack use:
// `tight` are unary +/- and `**` (ended by any other binary operator), `nots` are prefix `not`
// (ended by and/or/if/else), `low` are conditional `if`/`else` and lambda `=>` (ended by a
// separator). `chain` counts left-nested operations, which make the AST deep.
struct Frame {
  const Token* open = nullptr;
  size_t index = 0;    // of `open` in the token list
  bool block = false;  // a '{' opening a block rather than a dict
  int tight = 0, nots = 0, low = 0, chain = 0;
};

// A closer to insert before tokens[before], so that parsing can go on after an unclosed bracket.
struct Repair {
  size_t before;
  size_t type;
};

enum class Scan { Ok, Repair, Fatal };

size_t openerOf(size_t closer) {
  return closer == WeftLexer::RPAREN ? WeftLexer::LPAREN
       : closer == WeftLexer::RBRACK ? WeftLexer::LBRACK : WeftLexer::LBRACE;
}

size_t closerOf(size_t opener) {
  return opener == WeftLexer::LPAREN ? WeftLexer::RPAREN
       : opener == WeftLexer::LBRACK ? WeftLexer::RBRACK : WeftLexer::RBRACE;
}

std::string at(const Token* t) {
  SourcePos p = tokenBegin(t);
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

// Where to close an unclosed ( or [ opened at tokens[open], at the latest before `limit`: at
// the end of the first line followed by one indented no deeper than the opener's line, since
// continuation lines are usually indented more.
size_t closingPoint(const TokenList& tokens, size_t open, size_t limit) {
  size_t first = open;
  while (first > 0 && tokens[first - 1].getLine() == tokens[open].getLine()) --first;
  size_t indent = tokens[first].getCharPositionInLine();
  for (size_t k = open + 1; k < limit; ++k) {
    if (tokens[k].getType() != WeftLexer::NEWLINE) continue;
    size_t next = k + 1;
    while (next < limit && tokens[next].getType() == WeftLexer::NEWLINE) ++next;
    if (next < limit && tokens[next].getCharPositionInLine() <= indent) return k;
    k = next - 1;  // past the blank lines
  }
  return limit;
}

// Closes every frame above frames[keep]; `limit` is where the closers must come at the latest.
void closeFrames(const TokenList& tokens, const std::vector<Frame>& frames, size_t keep, size_t limit,
                 std::vector<Repair>& repairs) {
  std::vector<std::pair<size_t, size_t>> inner;  // (opener index, closing point) of the frames placed
  for (size_t k = frames.size() - 1; k > keep; --k) {
    const Frame& f = frames[k];
    size_t point = f.block ? limit : closingPoint(tokens, f.index, limit);
    for (auto [open, closed] : inner)  // closing after an inner bracket opened: after it closes too
      if (point > open) point = std::max(point, closed);
    repairs.push_back({point, closerOf(f.open->getType())});
    inner.emplace_back(f.index, point);
  }
}

// One pass over the tokens. With `errors` null it only checks (after repairs); else it reports.
Scan scanBrackets(TokenList& tokens, SyntaxErrors* errors, const ParseLimits& limits, std::vector<Repair>& repairs) {
  std::vector<Frame> frames(1);
  int depth = 0;  // open brackets plus pending right-nested operators, over all frames
  Scan result = Scan::Ok;
  size_t prev = Token::INVALID_TYPE;
  const Token* lastReal = nullptr;  // for "missing '}' at end of file"
  auto report = [&](SourcePos b, SourcePos e, std::string message, bool atEnd = false) {
    if (errors) errors->add(b, e, std::move(message), !atEnd);
    result = std::max(result, errors ? Scan::Repair : Scan::Fatal);
  };
  auto reportAt = [&](const Token* t, std::string message) { report(tokenBegin(t), tokenEnd(t), std::move(message)); };
  for (size_t index = 0; index < tokens.size(); ++index) {
    WeftToken& tok = tokens[index];
    const Token* t = &tok;
    size_t type = t->getType();
    Frame* f = &frames.back();
    auto endTight = [&] { depth -= f->tight; f->tight = 0; };
    auto endNots = [&] { endTight(); depth -= f->nots; f->nots = 0; };
    auto endAll = [&] { endNots(); depth -= f->low; f->low = 0; f->chain = 0; };
    bool prefix = !isOperandEnd(prev);
    bool tooLong = false;
    switch (type) {
      case WeftLexer::LPAREN: case WeftLexer::LBRACK: case WeftLexer::LBRACE: {
        if (type != WeftLexer::LBRACE && !prefix) tooLong = ++f->chain > limits.maxChainLength;  // a call, an index
        Frame open;
        open.open = t;
        open.index = index;
        open.block = type == WeftLexer::LBRACE && (!prefix || prev == WeftLexer::ELSE);
        frames.push_back(open);
        ++depth;
        break;
      }
      case WeftLexer::RPAREN: case WeftLexer::RBRACK: case WeftLexer::RBRACE: {
        if (errors && errors->full()) return Scan::Fatal;  // a file of junk: stop early
        size_t i = frames.size();
        while (--i > 0 && frames[i].open->getType() != openerOf(type)) {
        }
        if (i == 0) {  // matches no open bracket
          const Frame& top = frames.back();
          if (top.open && top.open->getType() != WeftLexer::LBRACE) {  // `(a ]`: take it as `)`
            bool paren = top.open->getType() == WeftLexer::LPAREN;
            reportAt(t, "unexpected '" + t->getText() + "'; the '" + top.open->getText() + "' at " + at(top.open) +
                            " is closed with '" + (paren ? ")" : "]") + "'");
            tok.setType(paren ? WeftLexer::RPAREN : WeftLexer::RBRACK);
            tok.setText(paren ? ")" : "]");
            i = frames.size() - 1;
          } else {  // drop it and go on
            reportAt(t, "unexpected '" + t->getText() + "'");
            tok.setType(kDropped);
            continue;
          }
        }
        for (size_t k = frames.size() - 1; k > i; --k) {
          if (frames[k].block) reportAt(t, "expected '}' to close the block opened at " + at(frames[k].open));
          else reportAt(frames[k].open, "unclosed '" + frames[k].open->getText() + "'");
        }
        closeFrames(tokens, frames, i, index, repairs);
        for (size_t k = frames.size(); k-- > i;) depth -= 1 + frames[k].tight + frames[k].nots + frames[k].low;
        frames.resize(i);
        break;
      }
      case WeftLexer::NEWLINE:
        if (f->open && f->open->getType() != WeftLexer::LBRACE) break;  // insignificant inside ( [
        endAll();
        break;
      case WeftLexer::SEMI: case WeftLexer::COMMA: case WeftLexer::COLON:
      case WeftLexer::ASSIGN: case WeftLexer::ARROW: case WeftLexer::PLUS_EQ: case WeftLexer::MINUS_EQ:
      case WeftLexer::STAR_EQ: case WeftLexer::SLASH_EQ: case WeftLexer::DSLASH_EQ:
      case WeftLexer::PERCENT_EQ: case WeftLexer::POW_EQ: case WeftLexer::AT_EQ: case WeftLexer::AMP_EQ:
      case WeftLexer::BAR_EQ:
        endAll();
        break;
      case WeftLexer::POW:
        ++f->tight, ++depth, ++f->chain;
        break;
      case WeftLexer::MINUS: case WeftLexer::PLUS:
        if (prefix) ++f->tight, ++depth;
        else endTight(), ++f->chain;
        break;
      case WeftLexer::NOT:
        if (prefix) ++f->nots, ++depth;
        else endTight(), ++f->chain;  // `not in`
        break;
      case WeftLexer::STAR: case WeftLexer::SLASH: case WeftLexer::DSLASH: case WeftLexer::PERCENT:
      case WeftLexer::AT: case WeftLexer::AMP: case WeftLexer::BAR: case WeftLexer::EQ: case WeftLexer::NE:
      case WeftLexer::LT: case WeftLexer::LE: case WeftLexer::GT: case WeftLexer::GE: case WeftLexer::IN:
        endTight(), ++f->chain;
        break;
      case WeftLexer::AND: case WeftLexer::OR:
        endNots(), ++f->chain;
        break;
      case WeftLexer::IF: case WeftLexer::ELSE: case WeftLexer::FAT_ARROW:
        if (type != WeftLexer::IF || !prefix) endNots(), ++f->low, ++depth;  // not a statement `if`
        break;
      case WeftLexer::DOT:
        ++f->chain;
        break;
      case Token::EOF:  // close what is still open before the NEWLINE placeholder at the end
        for (size_t k = frames.size() - 1; k > 0; --k) {
          const Frame& open = frames[k];
          SourcePos end = lastReal ? tokenEnd(lastReal) : SourcePos{1, 0};
          if (open.block)
            report({end.line, end.col + 1}, {end.line, end.col + 1},
                   "missing '}' at end of file: the block opened at " + at(open.open) + " is not closed", true);
          else
            reportAt(open.open, "unclosed '" + open.open->getText() + "'");
        }
        closeFrames(tokens, frames, 0, index > 0 ? index - 1 : index, repairs);
        frames.resize(1);
        break;
      default:
        break;
    }
    if (depth > limits.maxNesting) {
      bool block = type == WeftLexer::LBRACE && frames.back().block;
      if (errors)
        errors->add(t, std::string(block ? "blocks" : "expression") + " nested too deeply (more than " +
                           std::to_string(limits.maxNesting) + " levels)");
      return Scan::Fatal;
    }
    if (tooLong || frames.back().chain > limits.maxChainLength) {
      if (errors)
        errors->add(t, "expression too long (more than " + std::to_string(limits.maxChainLength) +
                           " operations in a row); split it into several statements");
      return Scan::Fatal;
    }
    if (type != WeftLexer::NEWLINE && type != Token::EOF) lastReal = t;
    prev = type;
  }
  return result;
}

}  // namespace

bool checkBrackets(TokenList& tokens, SyntaxErrors& errors, const ParseLimits& limits) {
  std::vector<Repair> repairs;
  Scan scan = scanBrackets(tokens, &errors, limits, repairs);
  if (scan == Scan::Fatal) return false;
  if (scan == Scan::Repair) {  // insert the missing closers, then check the result quietly
    std::stable_sort(repairs.begin(), repairs.end(), [](const Repair& a, const Repair& b) { return a.before < b.before; });
    TokenList repaired;
    repaired.reserve(tokens.size() + 2 * repairs.size());
    size_t next = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
      for (; next < repairs.size() && repairs[next].before == i; ++next) {
        static const char* text[] = {")", "]", "}"};
        size_t type = repairs[next].type;
        if (type == WeftLexer::RBRACE) repaired.push_back(syntheticToken(tokens[i], WeftLexer::NEWLINE, ""));
        repaired.push_back(syntheticToken(tokens[i], type, text[type == WeftLexer::RPAREN ? 0 : type == WeftLexer::RBRACK ? 1 : 2]));
      }
      repaired.push_back(tokens[i]);
    }
    tokens = std::move(repaired);
    removeDropped(tokens);
    std::vector<Repair> more;
    return scanBrackets(tokens, nullptr, limits, more) == Scan::Ok;
  }
  removeDropped(tokens);
  return true;
}

}  // namespace weft::syntax
