// Helpers for the op tests: build tensors from literals, read them back, capture error text.
#pragma once
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "grammar/diagnostics.h"
#include "interpreter/ops/ops.h"

namespace weft::testutil {

template <class T>
Tensor make(const Shape& shape, std::vector<T> values) {
  Tensor t = Tensor::empty(rt::DTypeOf<T>::value, shape);
  REQUIRE(int64_t(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

inline Tensor f32(const Shape& shape, std::vector<float> v) { return make<float>(shape, std::move(v)); }
inline Tensor i32(const Shape& shape, std::vector<int32_t> v) { return make<int32_t>(shape, std::move(v)); }

// 0, 1, 2, ... as f32 of the given shape.
inline Tensor iota(const Shape& shape, DType dtype = DType::F32) {
  return ops::reshape(ops::arange(0, double(shape.numel()), 1, dtype),
                      std::vector<int64_t>(shape.begin(), shape.end()));
}

// Seeded normal draws, mean + stddev * N(0, 1), made in f64 and cast to `dtype`.
inline Tensor normal(const Shape& shape, uint32_t seed, DType dtype = DType::F64, double mean = 0, double stddev = 1) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> n(0, 1);
  Tensor t = Tensor::empty(DType::F64, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = mean + stddev * n(gen);
  return ops::cast(t, dtype);
}

template <class T>
std::vector<T> values(const Tensor& t) {
  REQUIRE(t.dtype() == rt::DTypeOf<T>::value);
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

// The message of the WeftError that f throws ("" if it throws none).
template <class F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const WeftError& e) {
    return e.message;
  }
  return "";
}

}  // namespace weft::testutil
