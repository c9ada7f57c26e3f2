// How values print (SPEC §2): a float as Python's repr at its dtype's precision, a tensor as
// nested lists shortened past 1000 elements, as NumPy does. The interpreter's print and the print
// nodes of generated code both call these, so their output is the same text.
#pragma once
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dtype.h"
#include "shape.h"

namespace weft::rt {
namespace format_detail {

// Python's repr layout for a shortest digit string: fixed between 1e-4 and 1e16, else scientific.
inline std::string layoutDigits(bool negative, const std::string& digits, int exp10) {
  std::string out = negative ? "-" : "";
  int n = int(digits.size());
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      out += "0." + std::string(size_t(-exp10 - 1), '0') + digits;
    } else if (exp10 + 1 >= n) {
      out += digits + std::string(size_t(exp10 + 1 - n), '0') + ".0";
    } else {
      out += digits.substr(0, size_t(exp10 + 1)) + "." + digits.substr(size_t(exp10 + 1));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  char buf[16];
  std::snprintf(buf, sizeof buf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
  return out + buf;
}

template <class F>
std::string shortest(F v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);  // "-1.2345e+08"
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find('e');
  std::string mant = s.substr(0, e);
  int exp10 = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  return layoutDigits(neg, digits, exp10);
}

constexpr int64_t kSummaryThreshold = 1000;  // as NumPy: past this, show 3 items at each edge
constexpr int64_t kEdgeItems = 3;

}  // namespace format_detail

// Shortest round-trip text in Python's layout: 6.0, 0.1, 1e-07, nan, -inf.
inline std::string formatFloat(double v, DType dtype) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return dtype == DType::F32 ? format_detail::shortest(float(v)) : format_detail::shortest(v);
}

// Element i of a buffer of this dtype.
inline std::string formatElement(const void* data, DType dtype, int64_t i) {
  switch (dtype) {
    case DType::F32: return formatFloat(static_cast<const float*>(data)[i], DType::F32);
    case DType::F64: return formatFloat(static_cast<const double*>(data)[i], DType::F64);
    case DType::I32: return std::to_string(static_cast<const int32_t*>(data)[i]);
    case DType::I64: return std::to_string(static_cast<const int64_t*>(data)[i]);
    case DType::Bool: return static_cast<const bool*>(data)[i] ? "true" : "false";
  }
  return "?";
}

namespace format_detail {
inline void formatAxis(const void* data, DType dtype, const Shape& s, int axis, int64_t offset, bool summarize,
                       std::string& out) {
  int64_t stride = 1;
  for (int i = axis + 1; i < s.rank(); ++i) stride *= s[i];
  out += '[';
  int64_t n = s[axis];
  for (int64_t i = 0; i < n; ++i) {
    if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
      out += ", ...";
      i = n - kEdgeItems - 1;
      continue;
    }
    if (i) out += ", ";
    if (axis + 1 == s.rank())
      out += formatElement(data, dtype, offset + i);
    else
      formatAxis(data, dtype, s, axis + 1, offset + i * stride, summarize, out);
  }
  out += ']';
}
}  // namespace format_detail

// A tensor's text: a scalar as its element, else nested lists.
inline std::string formatTensor(const void* data, DType dtype, const Shape& shape) {
  if (shape.rank() == 0) return formatElement(data, dtype, 0);
  std::string out;
  // Counted with empty rows too: zeros([10**12, 0]) holds nothing but would print 10**12 `[]`.
  int64_t places = 1;
  for (int64_t d : shape)
    places = places > format_detail::kSummaryThreshold ? places : places * std::max<int64_t>(d, 1);
  format_detail::formatAxis(data, dtype, shape, 0, 0, places > format_detail::kSummaryThreshold, out);
  return out;
}

}  // namespace weft::rt
