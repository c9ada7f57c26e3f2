// Writes a CompileUnit as a folder of C++ (SPEC §9): per export NAME.h and NAME.cpp (and, with
// --main, NAME_main.cpp), PROGRAM_state.h/.cpp holding the variables every export shares,
// weights/*.npy, the kernel headers in weft_runtime/, and a CMakeLists.txt.
#pragma once
#include <string>

#include "../unit.h"

namespace weft::codegen {

struct EmitOptions {
  bool main = false;   // the NAME_main drivers
  bool force = false;  // write into a folder that holds other files
};

// Throws WeftError for an export C++ cannot hold, or a folder it may not write into.
void writeUnit(const CompileUnit& unit, const std::string& dir, const EmitOptions& options);

}  // namespace weft::codegen
