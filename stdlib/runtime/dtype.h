// Element types, shared by the interpreter and generated code.
#ifndef WEFT_RT_DTYPE_H
#define WEFT_RT_DTYPE_H
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace weft::rt {

enum class DType : uint8_t { F32, F64, I32, I64, Bool };

inline constexpr size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: return 4;
    case DType::F64: return 8;
    case DType::I32: return 4;
    case DType::I64: return 8;
    case DType::Bool: return 1;
  }
  return 1;
}

inline constexpr const char* dtypeName(DType t) {
  switch (t) {
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::Bool: return "bool";
  }
  return "?";
}

inline std::optional<DType> dtypeFromName(std::string_view s) {
  if (s == "f32") return DType::F32;
  if (s == "f64") return DType::F64;
  if (s == "i32") return DType::I32;
  if (s == "i64") return DType::I64;
  if (s == "bool") return DType::Bool;
  return std::nullopt;
}

inline constexpr bool isFloat(DType t) { return t == DType::F32 || t == DType::F64; }
inline constexpr bool isInt(DType t) { return t == DType::I32 || t == DType::I64; }

template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::F64; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };

// Calls f with a value of the C++ type of `t`: dispatch(t, [&](auto tag) { using T = decltype(tag); ... }).
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
  switch (t) {
    case DType::F32: return f(float{});
    case DType::F64: return f(double{});
    case DType::I32: return f(int32_t{});
    case DType::I64: return f(int64_t{});
    case DType::Bool: return f(bool{});
  }
  return f(float{});
}

}  // namespace weft::rt

#endif  // WEFT_RT_DTYPE_H
