// The statements of an export's call(): its size checks, the sizes the graph leaves open, the
// memory plan's layout, and one call of a shared kernel per node (function_body.cpp).
#pragma once
#include <set>
#include <string>
#include <vector>

#include "../unit.h"

namespace weft::codegen {

struct FunctionCode {
  std::string constants;  // definitions at namespace scope (the graph's constants)
  std::string body;       // the statements of call()
  std::vector<std::string> inputNames;  // C++ names of the inputs
  std::set<std::string> headers;        // the kernel headers (weft_runtime/...) the body calls
};

FunctionCode emitFunctionBody(const CompileUnit& unit, const ExportGraph& e);

// "F32", for weft::rt::DType::F32.
const char* dtypeEnumName(DType t);

}  // namespace weft::codegen
