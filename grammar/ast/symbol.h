// Interned identifiers: names compare and hash as integers in the interpreter's hot paths.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace weft {

using Symbol = uint32_t;

Symbol intern(std::string_view name);
const std::string& symbolName(Symbol s);

}  // namespace weft
