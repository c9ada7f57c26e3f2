// The shape of every user-facing error: FILE:LINE:COL, the line, a caret.
#include <doctest/doctest.h>

#include "grammar/diagnostics.h"

using namespace weft;

TEST_CASE("a diagnostic names the place and underlines it") {
  auto file = std::make_shared<SourceFile>("m.model", "x = 1\ny = x + zz\n");
  Diagnostic d{Severity::Error, SourceRange{file, {2, 9}, {2, 10}}, "name 'zz' is not defined"};
  CHECK(formatDiagnostic(d) ==
        "m.model:2:9: error: name 'zz' is not defined\n"
        "  y = x + zz\n"
        "          ^~\n");
}

TEST_CASE("columns count code points, not bytes") {
  auto file = std::make_shared<SourceFile>("u.model", "s = \"é\" + q\n");
  Diagnostic d{Severity::Error, SourceRange{file, {1, 11}, {1, 11}}, "bad"};
  CHECK(formatDiagnostic(d) == "u.model:1:11: error: bad\n  s = \"é\" + q\n            ^\n");
}

TEST_CASE("a runtime error prints its traceback innermost last, folding repeats") {
  auto file = std::make_shared<SourceFile>("t.model", "a\nb\nc\n");
  WeftError e(SourceRange{file, {3, 1}, {3, 1}}, "boom");
  e.traceback.push_back({"inner", SourceRange{file, {3, 1}, {3, 1}}});
  e.traceback.push_back({"inner", SourceRange{file, {3, 1}, {3, 1}}});
  e.traceback.push_back({"<main>", SourceRange{file, {1, 1}, {1, 1}}});
  CHECK(e.format() ==
        "t.model:3:1: error: boom\n  c\n  ^\n"
        "traceback (most recent call last):\n"
        "  t.model:1:1: in <main>\n"
        "  t.model:3:1: in inner\n"
        "  [previous line repeated 1 more times]\n");
}
