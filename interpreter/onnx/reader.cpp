// Loads the reader plugin on the first ONNX file a process reads (model_file.h says why).
#include "reader.h"

#include "export.h"

#include <dlfcn.h>

#include <cstring>

#include "../../grammar/diagnostics.h"

namespace weft::onnx {
namespace {

const ReaderApi& api() {
#ifdef WEFT_ONNX_READER
  static const ReaderApi* loaded = [] {
    void* h = dlopen(WEFT_ONNX_READER, RTLD_NOW | RTLD_LOCAL);
    if (!h) throw WeftError(std::string("cannot load Weft's ONNX reader: ") + dlerror());
    auto entry = reinterpret_cast<const ReaderApi* (*)()>(dlsym(h, "weft_onnx_reader_api"));
    if (!entry) throw WeftError("Weft's ONNX reader '" WEFT_ONNX_READER "' has no entry point");
    return entry();
  }();
  return *loaded;
#else
  throw WeftError("this Weft was built without ONNX support (install libonnx-dev and libprotobuf-dev, then build again)");
#endif
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

template <class From, class To>
void widen(const std::string& bytes, To* out) {
  const size_t n = bytes.size() / sizeof(From);
  for (size_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, bytes.data() + i * sizeof(From), sizeof(From));
    out[i] = To(v);
  }
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f) bits = sign | 0x7f800000 | (mant << 13);  // inf, nan
  else if (exp != 0) bits = sign | ((exp + 112) << 23) | (mant << 13);
  else if (mant == 0) bits = sign;
  else {  // subnormal: normalise
    exp = 113;
    while (!(mant & 0x400)) mant <<= 1, --exp;
    bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// bfloat16 is the top half of a float's bits.
float bfloatToFloat(uint16_t h) {
  const uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

ModelFile readModel(const std::string& path) {
  ModelFile m;
  if (std::string e = api().readModel(path, m); !e.empty()) throw WeftError(quoted(path) + ": " + e);
  return m;
}

TensorData readTensorFile(const std::string& path) {
  TensorData t;
  if (std::string e = api().readTensor(path, t); !e.empty()) throw WeftError(quoted(path) + ": " + e);
  return t;
}

void writeModel(const ModelFile& m, const std::string& path) {
  if (std::string e = api().writeModel(m, path); !e.empty()) throw WeftError(quoted(path) + ": " + e);
}

bool weftDType(ElemType t, DType& out) {
  switch (t) {
    case ElemType::Float: case ElemType::Float16: case ElemType::BFloat16: out = DType::F32; return true;
    case ElemType::Double: out = DType::F64; return true;
    case ElemType::Int32: case ElemType::Int8: case ElemType::Uint8: case ElemType::Int16: case ElemType::Uint16:
      out = DType::I32; return true;
    case ElemType::Int64: case ElemType::Uint32: case ElemType::Uint64: out = DType::I64; return true;
    case ElemType::Bool: out = DType::Bool; return true;
    case ElemType::Undefined: case ElemType::String: case ElemType::Complex64: case ElemType::Complex128: return false;
  }
  return false;
}

Tensor toTensor(const TensorData& t) {
  DType dtype;
  const std::string label = t.name.empty() ? "a tensor" : "tensor '" + t.name + "'";
  if (!weftDType(t.type, dtype))
    throw WeftError(label + " has element type " + elemTypeName(t.type) + ", which Weft has no dtype for");
  if (t.dims.size() > size_t(rt::kMaxRank))
    throw WeftError(label + " has rank " + std::to_string(t.dims.size()) + "; Weft's tensors have at most " +
                    std::to_string(rt::kMaxRank) + " dimensions");
  Shape shape;
  for (int64_t d : t.dims) shape.push_back(d);
  Tensor out = Tensor::empty(dtype, shape);  // checks the size against the memory limits
  void* data = out.raw();
  switch (t.type) {
    case ElemType::Float: case ElemType::Double: case ElemType::Int32: case ElemType::Int64: case ElemType::Bool:
      std::memcpy(data, t.bytes.data(), size_t(out.bytes()));
      break;
    case ElemType::Int8: widen<int8_t>(t.bytes, static_cast<int32_t*>(data)); break;
    case ElemType::Uint8: widen<uint8_t>(t.bytes, static_cast<int32_t*>(data)); break;
    case ElemType::Int16: widen<int16_t>(t.bytes, static_cast<int32_t*>(data)); break;
    case ElemType::Uint16: widen<uint16_t>(t.bytes, static_cast<int32_t*>(data)); break;
    case ElemType::Uint32: widen<uint32_t>(t.bytes, static_cast<int64_t*>(data)); break;
    case ElemType::Uint64: {  // beyond i64 it would wrap
      widen<uint64_t>(t.bytes, static_cast<int64_t*>(data));
      for (int64_t i = 0; i < out.numel(); ++i)
        if (static_cast<int64_t*>(data)[i] < 0) throw WeftError(label + " holds a uint64 beyond i64's range");
      break;
    }
    case ElemType::Float16: case ElemType::BFloat16: {
      auto* f = static_cast<float*>(data);
      for (int64_t i = 0; i < out.numel(); ++i) {
        uint16_t h;
        std::memcpy(&h, t.bytes.data() + 2 * i, 2);
        f[i] = t.type == ElemType::Float16 ? halfToFloat(h) : bfloatToFloat(h);
      }
      break;
    }
    case ElemType::Undefined: case ElemType::String: case ElemType::Complex64: case ElemType::Complex128: break;
  }
  return out;
}

}  // namespace weft::onnx
