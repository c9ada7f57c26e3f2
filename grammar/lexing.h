// Internal to grammar/: the character level, without ANTLR types — UTF-8 decoding, the lexer,
// string literal escapes, and character descriptions for error messages.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "source.h"

namespace weft::syntax {

struct BadByte {
  SourcePos at;
  unsigned char byte;
};

// Decodes UTF-8 into code points for the lexer. Each invalid byte (also overlong forms and
// surrogates) becomes one space, so later columns are unchanged, and is listed in `bad`.
// A leading byte-order mark becomes a space too.
std::u32string decodeUtf8(std::string_view text, std::vector<BadByte>& bad);

void appendUtf8(std::string& out, char32_t cp);

// One token as the lexer finds it. `type` is a WeftLexer token type; `start` and `length`
// count code points; `line` is 1-based and `col` 0-based, as ANTLR's tokens have them.
struct RawToken {
  size_t type;
  uint32_t length;
  size_t start;
  uint32_t line;
  uint32_t col;
};

// The lexer. It implements exactly the lexer rules of Weft.g4, by hand because ANTLR's C++
// lexer runtime is several times slower (a hash lookup and a lock per character); a unit test
// checks it against the generated WeftLexer. Whitespace, comments and line continuations are
// skipped; anything else unknown is one ERROR_CHAR token. The last token is EOF.
void lexTokens(std::u32string_view text, const std::function<void(const RawToken&)>& emit);

struct LiteralError {
  SourcePos at;
  std::string message;
};

// Decodes a STRING token (quotes included, single or triple) whose first character is at
// `start`: \n \t \\ \" \' and backslash-newline (a continuation). Unknown escapes are errors.
std::string decodeStringLiteral(std::string_view token, SourcePos start,
                                std::vector<LiteralError>& errors);

// `'&'` for a printable character, `U+0000` otherwise; for error messages.
std::string describeChar(char32_t cp);

}  // namespace weft::syntax
