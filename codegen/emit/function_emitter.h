// Emits one export as C++: a class whose call() checks its inputs' sizes, computes every size
// the graph leaves open, lays out its memory plan in one arena, and runs each node as a call of
// the shared kernels (stdlib/runtime/) — never a second copy of their math.
#pragma once
#include <string>
#include <vector>

#include "../unit.h"

namespace weft::codegen {

struct EmittedExport {
  std::string header;  // NAME.h
  std::string source;  // NAME.cpp
  std::string driver;  // NAME_main.cpp
};

// Throws WeftError naming the op and its line when the graph holds what C++ cannot yet express.
EmittedExport emitExport(const CompileUnit& unit, const ExportGraph& e);

// The class of an export: its name in CamelCase ("predict_step" -> "PredictStep"), never reserved.
std::string className(const std::string& name);
// The C++ element type of a dtype: "float", "int32_t", ...
const char* cppType(DType t);
// A C++ string literal of any text (quotes, backslashes and control bytes escaped).
std::string cppString(const std::string& s);

}  // namespace weft::codegen
