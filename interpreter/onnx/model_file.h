// An ONNX model as plain data: what the reader plugin (plugins/onnx_reader) fills from the file's
// protobuf, and all the rest of Weft sees of ONNX. Keeping protobuf in a plugin means a `weft`
// process that imports no model never loads libprotobuf.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace weft::onnx {

// TensorProto.DataType's numbers.
enum class ElemType : int32_t {
  Undefined = 0, Float = 1, Uint8 = 2, Int8 = 3, Uint16 = 4, Int16 = 5, Int32 = 6, Int64 = 7,
  String = 8, Bool = 9, Float16 = 10, Double = 11, Uint32 = 12, Uint64 = 13, Complex64 = 14,
  Complex128 = 15, BFloat16 = 16,
};
inline const char* elemTypeName(ElemType t) {  // as ONNX spells them
  switch (t) {
    case ElemType::Undefined: return "undefined";
    case ElemType::Float: return "float";
    case ElemType::Uint8: return "uint8";
    case ElemType::Int8: return "int8";
    case ElemType::Uint16: return "uint16";
    case ElemType::Int16: return "int16";
    case ElemType::Int32: return "int32";
    case ElemType::Int64: return "int64";
    case ElemType::String: return "string";
    case ElemType::Bool: return "bool";
    case ElemType::Float16: return "float16";
    case ElemType::Double: return "double";
    case ElemType::Uint32: return "uint32";
    case ElemType::Uint64: return "uint64";
    case ElemType::Complex64: return "complex64";
    case ElemType::Complex128: return "complex128";
    case ElemType::BFloat16: return "bfloat16";
  }
  return "unknown";
}


// A tensor's elements, packed little-endian at their element type's size (bool one byte), whether
// the file held them as raw_data, as typed fields or in an external file.
struct TensorData {
  std::string name;
  ElemType type = ElemType::Undefined;
  std::vector<int64_t> dims;
  std::string bytes;
};

struct Dim {
  int64_t size = -1;   // -1: open
  std::string param;   // the symbolic name of an open dimension, when it has one
};

struct ValueInfo {
  std::string name;
  ElemType type = ElemType::Undefined;  // Undefined: not a tensor type (a sequence, an optional)
  bool hasShape = false;
  std::vector<Dim> dims;
};

struct Graph;

struct Attribute {
  enum class Kind { Float, Int, String, Tensor, Graph, Floats, Ints, Strings, Tensors, Graphs, Other };
  std::string name;
  Kind kind = Kind::Other;
  float f = 0;
  int64_t i = 0;
  std::string s;
  TensorData t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
};

struct Node {
  std::string name, opType, domain;
  std::vector<std::string> inputs, outputs;  // "" is an absent optional one
  std::vector<Attribute> attributes;
};

struct Graph {
  std::string name;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<TensorData> initializers;
  std::vector<Node> nodes;
};

struct ModelFile {
  int64_t irVersion = 0;
  std::string producer, producerVersion;
  std::map<std::string, int64_t> opsets;  // domain ("" is ai.onnx) -> version
  Graph graph;
};

// The plugin's entry points. Each returns "" on success, else the error's text (the path is the
// caller's to add).
struct ReaderApi {
  std::string (*readModel)(const std::string& path, ModelFile& out);
  std::string (*readTensor)(const std::string& path, TensorData& out);  // a serialized TensorProto
  std::string (*writeModel)(const ModelFile& model, const std::string& path);
};

}  // namespace weft::onnx
