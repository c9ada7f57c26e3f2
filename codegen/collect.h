// Gathers a CompileUnit from a program that has run: traces each export from its signature.
#pragma once
#include "interpreter/eval/interpreter.h"
#include "unit.h"

namespace weft::codegen {

// Throws WeftError (at the export() call) when an export cannot be traced.
CompileUnit collectUnit(Interpreter& interp, const std::string& sourceFile);

}  // namespace weft::codegen
