// How values print (SPEC §2): a float as Python's repr at its dtype's precision, a tensor as
// nested lists shortened past 1000 elements, as NumPy does. The interpreter's print and the print
// nodes of generated code both call these, so their output is the same text.
#ifndef WEFT_RT_FORMAT_H
#define WEFT_RT_FORMAT_H
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

// f-string format specs: Python's mini-language [[fill]align][sign][0][width][,|_][.precision][type].
struct FormatSpec {
  char fill = ' ', align = 0, sign = '-', grouping = 0, type = 0;
  bool zero = false;
  int width = 0, precision = -1;
};

// Parses a spec; returns "" or the error.
inline std::string parseFormatSpec(const std::string& s, FormatSpec& p) {
  size_t i = 0;
  const std::string bad = "invalid format spec '" + s + "'";
  auto isAlign = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
  bool tooWide = false;
  auto number = [&] {
    int n = 0;
    for (; i < s.size() && isDigit(s[i]); ++i) {
      n = n * 10 + (s[i] - '0');
      if (n > 10000) tooWide = true;  // no field is that wide: refuse rather than allocate
      if (tooWide) return 0;
    }
    return n;
  };
  if (s.size() >= 2 && isAlign(s[1])) p.fill = s[0], p.align = s[1], i = 2;
  else if (!s.empty() && isAlign(s[0])) p.align = s[0], i = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) p.sign = s[i++];
  if (i < s.size() && s[i] == '0') p.zero = true, ++i;
  p.width = number();
  if (tooWide) return bad;
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) p.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i == s.size() || !isDigit(s[i])) return bad;
    p.precision = number();
    if (tooWide) return bad;
  }
  if (i < s.size()) p.type = s[i++];
  if (i != s.size() || (p.type && std::string("sdfFeEgG%").find(p.type) == std::string::npos)) return bad;
  if (p.zero && !p.align) p.fill = '0', p.align = '=';
  return "";
}

// `body` padded to the spec's width, after `sign` (or between them for '=').
inline std::string padFormatted(const std::string& sign, const std::string& body, const FormatSpec& p, char defaultAlign) {
  int fill = std::max(0, p.width - int(sign.size() + body.size()));
  std::string f(size_t(fill), p.fill);
  switch (p.align ? p.align : defaultAlign) {
    case '<': return sign + body + f;
    case '^': return f.substr(0, f.size() / 2) + sign + body + f.substr(f.size() / 2);
    case '=': return sign + f + body;
    default: return f + sign + body;
  }
}

namespace format_detail {

// Commas (or underscores) between thousands of the integer digits at the start of `digits`.
inline std::string grouped(const std::string& digits, char sep) {
  size_t end = 0;
  while (end < digits.size() && digits[end] >= '0' && digits[end] <= '9') ++end;
  std::string out = digits.substr(0, end);
  for (int i = int(end) - 3; i > 0; i -= 3) out.insert(size_t(i), 1, sep);
  return out + digits.substr(end);
}

inline bool printed(const char* fmt, int precision, double v, std::string& out) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, fmt, precision, v);
  if (n < 0 || size_t(n) >= sizeof buf) return false;
  out = buf;
  return true;
}

}  // namespace format_detail

// Element 0 of a scalar tensor formatted by a spec into `out`; returns "" or the error.
inline std::string formatScalarWithSpec(const void* data, DType dtype, const FormatSpec& p, std::string& out) {
  using namespace format_detail;
  const bool isInt = dtype == DType::I32 || dtype == DType::I64 || dtype == DType::Bool;
  double value = 0;
  int64_t ivalue = 0;
  switch (dtype) {
    case DType::F32: value = *static_cast<const float*>(data); break;
    case DType::F64: value = *static_cast<const double*>(data); break;
    case DType::I32: ivalue = *static_cast<const int32_t*>(data); break;
    case DType::I64: ivalue = *static_cast<const int64_t*>(data); break;
    case DType::Bool: ivalue = *static_cast<const bool*>(data); break;
  }
  if (isInt) value = double(ivalue);
  if (p.type == 's') return "format spec type 's' needs a string, not a number";
  std::string digits;
  if (isInt && (p.type == 0 || p.type == 'd')) {
    if (p.precision >= 0) return "an integer takes no precision in a format spec";
    digits = ivalue < 0 ? std::to_string(ivalue).substr(1) : std::to_string(ivalue);
  } else if (p.type == 'd') {
    return std::string("format spec type 'd' needs an integer, not ") + dtypeName(dtype);
  } else {
    double v = std::fabs(value);
    int prec = p.precision < 0 ? 6 : p.precision;
    bool ok = true;
    if (std::isnan(v)) digits = "nan";
    else if (std::isinf(v)) digits = "inf";
    else if (p.type == 'f' || p.type == 'F') ok = printed("%.*f", prec, v, digits);
    else if (p.type == 'e') ok = printed("%.*e", prec, v, digits);
    else if (p.type == 'E') ok = printed("%.*E", prec, v, digits);
    else if (p.type == 'g') ok = printed("%.*g", std::max(prec, 1), v, digits);
    else if (p.type == 'G') ok = printed("%.*G", std::max(prec, 1), v, digits);
    else if (p.type == '%') ok = printed("%.*f", prec, v * 100, digits), digits += "%";
    else if (p.precision < 0) digits = formatFloat(v, dtype);  // as print shows it
    else {
      ok = printed("%.*g", std::max(prec, 1), v, digits);  // Python: 'g' keeping a ".0"
      if (digits.find_first_of(".e") == std::string::npos) digits += ".0";
    }
    if (!ok) return "a formatted number is too long";
  }
  if (p.grouping) digits = grouped(digits, p.grouping);
  const bool negative = isInt ? ivalue < 0 : std::signbit(value) && !std::isnan(value);
  out = padFormatted(negative ? "-" : p.sign == '+' ? "+" : p.sign == ' ' ? " " : "", digits, p, '>');
  return "";
}

// A tensor's text under a spec (an f-string field of a graph function's print): a scalar as a
// number, anything else as its text padded as a string.
inline std::string formatTensorWithSpec(const void* data, DType dtype, const Shape& shape, const std::string& spec,
                                        std::string& out) {
  FormatSpec p;
  if (std::string why = parseFormatSpec(spec, p); !why.empty()) return why;
  if (shape.rank() == 0 && p.type != 's') return formatScalarWithSpec(data, dtype, p, out);
  if (p.type && p.type != 's') return "format spec '" + spec + "' needs a number, not a tensor";
  if (p.sign != '-' || p.grouping || p.align == '=') return "format spec '" + spec + "' is for numbers, not strings";
  std::string text = formatTensor(data, dtype, shape);
  if (p.precision >= 0 && size_t(p.precision) < text.size()) text.resize(size_t(p.precision));
  out = padFormatted("", text, p, '<');
  return "";
}

}  // namespace weft::rt

#endif  // WEFT_RT_FORMAT_H
