#include "lexing.h"

#include <cstdio>

#include "WeftLexer.h"

namespace weft::syntax {
namespace {

bool isCont(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the valid UTF-8 sequence at s[i] and its code point, or 0 when s[i] is invalid.
size_t sequenceAt(std::string_view s, size_t i, char32_t& cp) {
  unsigned char b = s[i];
  if (b < 0x80) { cp = b; return 1; }
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) { n = 2; cp = b & 0x1F; }
  else if (b >= 0xE0 && b <= 0xEF) {
    n = 3; cp = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;  // overlong
    if (b == 0xED) hi = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4; cp = b & 0x07;
    if (b == 0xF0) lo = 0x90;  // overlong
    if (b == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  unsigned char second = s[i + 1];
  if (second < lo || second > hi) return 0;
  for (size_t k = 1; k < n; ++k) {
    unsigned char c = s[i + k];
    if (!isCont(c)) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  return n;
}

}  // namespace

std::u32string decodeUtf8(std::string_view text, std::vector<BadByte>& bad) {
  std::u32string out;
  out.reserve(text.size());
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < text.size();) {
    char32_t cp;
    size_t n = sequenceAt(text, i, cp);
    if (n == 0) {
      bad.push_back({{line, col}, static_cast<unsigned char>(text[i])});
      cp = U' ';
      n = 1;
    } else if (cp == 0xFEFF && i == 0) {
      cp = U' ';
    }
    out.push_back(cp);
    if (cp == U'\n') { ++line; col = 1; } else { ++col; }
    i += n;
  }
  return out;
}

void appendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string decodeStringLiteral(std::string_view token, SourcePos start,
                                std::vector<LiteralError>& errors) {
  size_t quote = token.size() >= 6 && (token.substr(0, 3) == "\"\"\"" || token.substr(0, 3) == "'''") ? 3 : 1;
  if (token.size() < 2 * quote) return {};
  std::string_view body = token.substr(quote, token.size() - 2 * quote);
  std::string out;
  out.reserve(body.size());
  SourcePos pos{start.line, start.col + static_cast<uint32_t>(quote)};
  auto advance = [&pos](unsigned char c) {
    if (c == '\n') { ++pos.line; pos.col = 1; }
    else if (!isCont(c)) { ++pos.col; }
  };
  for (size_t i = 0; i < body.size(); ++i) {
    unsigned char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out.push_back(static_cast<char>(c));
      advance(c);
      continue;
    }
    SourcePos at = pos;
    unsigned char e = body[++i];
    advance(c);
    advance(e);
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case '\\': out.push_back('\\'); break;
      case '"': out.push_back('"'); break;
      case '\'': out.push_back('\''); break;
      case '\n': break;  // backslash-newline continues the string on the next line
      case '\r':
        if (i + 1 < body.size() && body[i + 1] == '\n') advance(body[++i]);
        break;
      default: {
        // Name the whole (possibly multi-byte) character after the backslash.
        size_t n = 1;
        while (i + n < body.size() && isCont(static_cast<unsigned char>(body[i + n]))) ++n;
        std::string shown(body.substr(i, n));
        for (size_t k = 1; k < n; ++k) advance(body[i + k]);
        i += n - 1;
        errors.push_back({at, "unknown escape '\\" + shown + "' in string (use '\\\\' for a backslash)"});
        out += "\\" + shown;
      }
    }
  }
  return out;
}

std::string describeChar(char32_t cp) {
  char code[16];
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return code;  // control characters
  std::string s = "'";
  appendUtf8(s, cp);
  s += "'";
  if (cp >= 0x80) s += std::string(" (") + code + ")";  // may look like an ASCII character
  return s;
}


// ---- the lexer ------------------------------------------------------------------------------

namespace {

using L = gen::WeftLexer;

bool isDigit(char32_t c) { return c >= U'0' && c <= U'9'; }
bool isNameStart(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') || c == U'_'; }
bool isNameChar(char32_t c) { return isNameStart(c) || isDigit(c); }
bool isBlank(char32_t c) { return c == U' ' || c == U'\t' || c == U'\f' || c == U'\r'; }

uint32_t keywordOrName(std::u32string_view word) {
  static constexpr std::pair<std::u32string_view, uint32_t> kKeywords[] = {
      {U"module", L::MODULE}, {U"fn", L::FN}, {U"return", L::RETURN}, {U"if", L::IF}, {U"elif", L::ELIF},
      {U"else", L::ELSE}, {U"for", L::FOR}, {U"in", L::IN}, {U"is", L::IS}, {U"while", L::WHILE}, {U"break", L::BREAK},
      {U"continue", L::CONTINUE}, {U"with", L::WITH}, {U"as", L::AS}, {U"import", L::IMPORT},
      {U"from", L::FROM}, {U"true", L::TRUE}, {U"false", L::FALSE}, {U"True", L::TRUE}, {U"False", L::FALSE}, {U"none", L::NONE}, {U"None", L::NONE},
      {U"and", L::AND}, {U"or", L::OR}, {U"not", L::NOT}, {U"mesh", L::MESH}, {U"layout_map", L::LAYOUT_MAP},
      {U"on", L::ON}, {U"assert", L::ASSERT}, {U"pass", L::PASS}};
  if (word.size() <= 10)
    for (auto& [text, type] : kKeywords)
      if (text == word) return type;
  return L::NAME;
}

// EXPONENT : [eE] [+-]? DIGITS — the end of one starting at i, or i when there is none.
size_t exponentEnd(std::u32string_view s, size_t i) {
  if (i >= s.size() || (s[i] != U'e' && s[i] != U'E')) return i;
  size_t k = i + 1;
  if (k < s.size() && (s[k] == U'+' || s[k] == U'-')) ++k;
  if (k >= s.size() || !isDigit(s[k])) return i;
  while (k < s.size() && isDigit(s[k])) ++k;
  return k;
}

// FLOAT or INT starting at i (a digit, or '.' before a digit); sets `end`.
uint32_t number(std::u32string_view s, size_t i, size_t& end) {
  size_t k = i + (s[i] == U'.');
  while (k < s.size() && isDigit(s[k])) ++k;
  if (s[i] == U'.' || (k < s.size() && s[k] == U'.')) {
    if (s[i] != U'.')
      for (++k; k < s.size() && isDigit(s[k]);) ++k;
    end = exponentEnd(s, k);
    return L::FLOAT;
  }
  end = exponentEnd(s, k);
  return end > k ? L::FLOAT : L::INT;
}

uint32_t oneLineString(std::u32string_view s, size_t i, size_t& end);

// A string starting at the quote s[i]; sets `end`. Unterminated ones get their own types.
uint32_t string(std::u32string_view s, size_t i, size_t& end) {
  char32_t q = s[i];
  size_t n = s.size();
  if (i + 2 < n && s[i + 1] == q && s[i + 2] == q) {  // triple-quoted, ended by the first unescaped qqq
    for (size_t k = i + 3; k < n;) {
      if (s[k] == U'\\') { k += 2; continue; }
      if (k + 2 < n && s[k] == q && s[k + 1] == q && s[k + 2] == q) { end = k + 3; return L::STRING; }
      ++k;
    }
    end = i + 3;
    return L::UNTERMINATED_TRIPLE;
  }
  return oneLineString(s, i, end);
}

// A string on one line (or continued by backslash-newlines) starting at the quote s[i].
uint32_t oneLineString(std::u32string_view s, size_t i, size_t& end) {
  char32_t q = s[i];
  size_t n = s.size();
  size_t k = i + 1;
  while (k < n && s[k] != q && s[k] != U'\r' && s[k] != U'\n') {
    if (s[k] == U'\\') {
      if (k + 1 >= n) break;  // a backslash needs a character after it
      k += s[k + 1] == U'\r' && k + 2 < n && s[k + 2] == U'\n' ? 3 : 2;
    } else {
      ++k;
    }
  }
  if (k < n && s[k] == q) { end = k + 1; return L::STRING; }
  end = k;
  return L::UNTERMINATED_STRING;
}

uint32_t punctuation(std::u32string_view s, size_t i, size_t& end) {
  static constexpr std::pair<std::u32string_view, uint32_t> kOps[] = {
      {U"**=", L::POW_EQ}, {U"//=", L::DSLASH_EQ}, {U"...", L::ELLIPSIS}, {U"**", L::POW}, {U"//", L::DSLASH},
      {U"->", L::ARROW}, {U"=>", L::FAT_ARROW}, {U"==", L::EQ}, {U"!=", L::NE}, {U"<=", L::LE}, {U">=", L::GE},
      {U"+=", L::PLUS_EQ}, {U"-=", L::MINUS_EQ}, {U"*=", L::STAR_EQ}, {U"/=", L::SLASH_EQ},
      {U"%=", L::PERCENT_EQ}, {U"@=", L::AT_EQ}, {U"&=", L::AMP_EQ}, {U"|=", L::BAR_EQ}, {U"<", L::LT}, {U">", L::GT}, {U"=", L::ASSIGN},
      {U"+", L::PLUS}, {U"-", L::MINUS}, {U"*", L::STAR}, {U"/", L::SLASH}, {U"%", L::PERCENT}, {U"@", L::AT},
      {U"&", L::AMP}, {U"|", L::BAR},
      {U".", L::DOT}, {U",", L::COMMA}, {U":", L::COLON}, {U";", L::SEMI}, {U"(", L::LPAREN},
      {U")", L::RPAREN}, {U"[", L::LBRACK}, {U"]", L::RBRACK}, {U"{", L::LBRACE}, {U"}", L::RBRACE}};
  for (auto& [text, type] : kOps)
    if (s.substr(i, text.size()) == text) {
      end = i + text.size();
      return type;
    }
  end = i + 1;
  return L::ERROR_CHAR;
}

}  // namespace

void lexTokens(std::u32string_view s, const std::function<void(const RawToken&)>& emit) {
  uint32_t line = 1, col = 0;
  size_t i = 0;
  while (i < s.size()) {
    char32_t c = s[i];
    size_t end = i + 1;
    uint32_t type = 0;  // 0: skipped
    if (c == U'\n' || (c == U'\r' && i + 1 < s.size() && s[i + 1] == U'\n')) {
      type = L::NEWLINE;
      end = i + (c == U'\r' ? 2 : 1);
    } else if (isBlank(c)) {
      while (end < s.size() && isBlank(s[end])) ++end;
    } else if (c == U'#') {
      while (end < s.size() && s[end] != U'\r' && s[end] != U'\n') ++end;
    } else if (c == U'\\') {  // a line continuation, or a stray backslash
      size_t k = end;
      while (k < s.size() && (s[k] == U' ' || s[k] == U'\t')) ++k;
      if (k + 1 < s.size() && s[k] == U'\r' && s[k + 1] == U'\n') end = k + 2;
      else if (k < s.size() && s[k] == U'\n') end = k + 1;
      else type = L::ERROR_CHAR;
    } else if (isNameStart(c)) {
      while (end < s.size() && isNameChar(s[end])) ++end;
      type = keywordOrName(s.substr(i, end - i));
      // `f"..."`: an f-string when a whole one-line string follows (else a name and a string).
      size_t fend;
      if (end == i + 1 && (c == U'f' || c == U'F') && end < s.size() && (s[end] == U'"' || s[end] == U'\'') &&
          oneLineString(s, end, fend) == L::STRING) {
        type = L::FSTRING;
        end = fend;
      }
    } else if (isDigit(c) || (c == U'.' && i + 1 < s.size() && isDigit(s[i + 1]))) {
      type = number(s, i, end);
    } else if (c == U'"' || c == U'\'') {
      type = string(s, i, end);
    } else {
      type = punctuation(s, i, end);
    }
    if (type) emit({type, static_cast<uint32_t>(end - i), i, line, col});
    for (; i < end; ++i) {
      if (s[i] == U'\n') ++line, col = 0;
      else ++col;
    }
  }
  emit({antlr4::Token::EOF, 0, s.size(), line, col});
}

}  // namespace weft::syntax
