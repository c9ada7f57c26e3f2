// Reading ONNX files through the reader plugin, and their tensors as Weft tensors.
#pragma once
#include "../values/tensor.h"
#include "model_file.h"

namespace weft::onnx {

// Each throws WeftError naming the path and what is wrong with the file.
ModelFile readModel(const std::string& path);
TensorData readTensorFile(const std::string& path);  // a serialized TensorProto (ONNX's test data)

// ONNX's element types in Weft's: float, double, int32, int64 and bool as they are; the other
// integer types widened to i32 (uint32 and uint64 to i64), float16 and bfloat16 to f32, all
// exactly. Strings and complex numbers are an error naming the tensor.
Tensor toTensor(const TensorData& t);
// The Weft dtype toTensor gives an element type; false when it gives none.
bool weftDType(ElemType t, DType& out);

}  // namespace weft::onnx
