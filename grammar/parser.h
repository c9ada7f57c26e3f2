// The Weft parser: source text to the typed AST of grammar/ast/, with friendly syntax errors.
#pragma once
#include <cstddef>
#include <memory>
#include <string_view>

#include "ast/stmt.h"
#include "diagnostics.h"
#include "source.h"

namespace weft {

// Parses a whole file. All syntax errors go to diags, in source order (reporting goes on after
// the first); the returned program holds whatever parsed (never null). Statements containing
// a syntax error are left out of it.
std::unique_ptr<ast::Program> parseProgram(std::shared_ptr<const SourceFile> file, Diagnostics& diags);

// For the REPL: true when `text` ends inside an open ( [ { or a triple-quoted string (or a
// normal one whose line ends with a backslash), ends with a trailing binary operator, comma,
// `=>` or backslash, or ends with a decorator line — i.e. more lines are needed. Input that is
// already wrong (an unmatched closer, a string broken by a newline) counts as complete, so the
// parser reports it at once.
bool inputIsIncomplete(std::string_view text);

// The same, for lines typed or piped one at a time: each line is lexed once (again only while a
// string spans lines), so that a long paste takes time linear in its length.
class PendingInput {
 public:
  // Adds the next line (without its newline); true while more lines are needed.
  bool addLine(std::string_view line);

 private:
  std::string tail_;          // lines since the last one that ended outside every string
  bool started_ = false;      // a line was added (the tail then starts after a newline)
  std::vector<size_t> open_;  // brackets open before the tail
  bool wrong_ = false;        // an unmatched closer: complete, the parser reports it
  bool any_ = false;          // a token was seen
  bool continues_ = false;    // the last line ended with an operator or was a decorator
};

// Guards against pathological input; exceeding one is a syntax error, never a crash.
struct ParseLimits {
  int maxNesting = 200;              // brackets, blocks and right-nested operators (`- - x`, `**`)
  size_t maxLineLength = 1 << 20;    // bytes
  // A source file: parsing takes about 2 s per MiB at worst, so a limit that is reached in seconds.
  size_t maxSourceBytes = 8 << 20;
  // Left-nested operations in one expression (`1 + 1 + ...`, `a.b.c...`): each makes the AST one
  // level deeper, and evaluating or freeing it recurses that deep.
  int maxChainLength = 20000;
};
ParseLimits& parseLimits();

}  // namespace weft
