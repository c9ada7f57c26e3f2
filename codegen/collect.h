// Gathers a CompileUnit from a program that has run: traces each export from its signature.
#pragma once
#include "interpreter/eval/interpreter.h"
#include "unit.h"

namespace weft::codegen {

// Throws WeftError (at the export() call) when an export cannot be traced.
CompileUnit collectUnit(Interpreter& interp, const std::string& sourceFile);
// A saved model's signatures (SPEC §8; its functions when it has none), without the source:
// `weft compile SAVED_DIR -o DIR`. Throws WeftError naming the file when the folder is bad.
CompileUnit collectSavedUnit(const std::string& dir);

}  // namespace weft::codegen
