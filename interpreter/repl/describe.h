// How the REPL shows values: the echo of an expression, one-line descriptions for `:vars`, and
// durations for `:time`.
#pragma once
#include <string>

#include "../values/value.h"

namespace weft::repl {

// A tensor as its type then its value (`f32[2, 2] [[1.0, 2.0], [3.0, 4.0]]`), anything else as
// its repr.
std::string echoText(const Value& v);
// The type and a value cut to one line of about `width` characters.
std::string briefText(const Value& v, size_t width = 60);
// Three significant digits in ns, µs, ms or s: "812 ns", "1.23 µs", "45.6 ms", "2.00 s".
std::string formatDuration(double seconds);

}  // namespace weft::repl
