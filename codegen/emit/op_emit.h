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

inline bool isUnary(ops::OpId op) { return int(op) < int(ops::OpId::BinaryAdd); }
inline bool isBinary(ops::OpId op) { return int(op) >= int(ops::OpId::BinaryAdd) && int(op) < int(ops::OpId::ReduceSum); }
inline bool isReduce(ops::OpId op) { return int(op) >= int(ops::OpId::ReduceSum) && int(op) < int(ops::OpId::MatMul); }

// Unary kernels that may write over their input: those whose result at i reads only input i
// while it is computed (exp and sigmoid repair subnormal results afterwards from the input).
inline bool unaryInPlace(ops::OpId op) { return op != ops::OpId::UnaryExp && op != ops::OpId::UnarySigmoid; }
// Elementwise kernels whose result may be written over an input of the same size.
inline bool elementwiseInPlace(ops::OpId op) { return (isUnary(op) && unaryInPlace(op)) || isBinary(op); }

// "F32", for weft::rt::DType::F32.
const char* dtypeEnumName(DType t);

}  // namespace weft::codegen
