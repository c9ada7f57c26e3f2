// Tab completion: names in scope, attributes after `.`, commands after `:`. It never runs user
// code: a dotted prefix is resolved only through lookups without side effects.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "line_reader.h"

namespace weft {
class Interpreter;
}

namespace weft::repl {

// `commandNames` are spelt with their colon (":help").
Completion completeLine(Interpreter& interp, const std::vector<std::string>& commandNames, std::string_view line,
                        size_t cursor);

}  // namespace weft::repl
