// NumPy's .npy format (versions 1.0, 2.0 and 3.0): little-endian f4, f8, i4, i8 and b1 arrays in
// C order, read by the interpreter's load_npy and by generated code (its weights, its driver's
// inputs). Anything else (Fortran order, big-endian, other dtypes, a malformed or truncated
// header) is an error text, never a crash: every size read from the file is bounded before use.
// See https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#ifndef WEFT_RT_NPY_H
#define WEFT_RT_NPY_H
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "dtype.h"
#include "shape.h"

namespace weft::rt {

struct NpyHeader {
  DType dtype = DType::F32;
  Shape shape;
  int64_t dataOffset = 0;  // where the data starts in the file
  int64_t dataBytes = 0;   // what the shape needs; the file holds exactly that after dataOffset
};

namespace npy_detail {

constexpr char kMagic[] = "\x93NUMPY";   // 6 bytes, then the major and minor version
constexpr int64_t kMaxHeader = 1 << 20;  // NumPy itself refuses headers over 10,000 bytes

inline std::string tupleStr(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.rank() == 1 ? ",)" : ")");
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This parser accepts exactly that grammar (any key order, either quote, optional trailing comma).
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}
  std::string error;  // set by the first failure
  std::string descr;
  bool fortran = false;
  Shape shape;

  bool parse() {
    bool hasDescr = false, hasOrder = false, hasShape = false;
    if (!expect('{', "'{' at the start")) return false;
    while (!eat('}')) {
      std::string key;
      if (!quoted(key) || !expect(':', "':' after '" + key + "'")) return false;
      if (key == "descr") {
        if (!quoted(descr)) return false;
        hasDescr = true;
      } else if (key == "fortran_order") {
        if (!boolean(fortran)) return false;
        hasOrder = true;
      } else if (key == "shape") {
        if (!tuple()) return false;
        hasShape = true;
      } else {
        return fail("unknown key '" + key + "'");
      }
      if (!eat(',')) {
        if (!expect('}', "',' or '}' after the value of '" + key + "'")) return false;
        break;
      }
    }
    skipSpace();
    if (i_ != s_.size()) return fail("unexpected text after the closing '}'");
    if (!hasDescr || !hasOrder || !hasShape) return fail("it needs 'descr', 'fortran_order' and 'shape'");
    return true;
  }

 private:
  bool fail(const std::string& why) {
    if (error.empty()) error = "malformed header: " + why;
    return false;
  }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skipSpace();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool expect(char c, const std::string& what) { return eat(c) || fail("expected " + what); }
  bool quoted(std::string& out) {
    skipSpace();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return fail("expected a quoted string");
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string_view::npos || end - i_ > 64) return fail("unterminated or overlong string");
    out = std::string(s_.substr(i_, end - i_));
    i_ = end + 1;
    return true;
  }
  bool boolean(bool& out) {
    skipSpace();
    if (s_.substr(i_, 4) == "True") return i_ += 4, out = true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, out = false, true;
    return fail("'fortran_order' must be True or False");
  }
  bool tuple() {
    if (!expect('(', "'(' before the shape")) return false;
    while (!eat(')')) {
      skipSpace();
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return fail("the shape must hold non-negative integers");
      int64_t v = 0;
      for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_) {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return fail("a dimension is too large");
        v = v * 10 + (s_[i_] - '0');
      }
      if (shape.rank() == kMaxRank) {
        error = "the array has more than " + std::to_string(kMaxRank) + " dimensions, Weft's maximum";
        return false;
      }
      shape.push_back(v);
      if (!eat(',')) {
        if (!expect(')', "',' or ')' in the shape")) return false;
        break;
      }
    }
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

inline bool dtypeOfDescr(const std::string& d, DType& t, std::string& error) {
  if (d == "<f4") return t = DType::F32, true;
  if (d == "<f8") return t = DType::F64, true;
  if (d == "<i4") return t = DType::I32, true;
  if (d == "<i8") return t = DType::I64, true;
  if (d == "|b1" || d == "<b1") return t = DType::Bool, true;
  if (d == ">f4" || d == ">f8" || d == ">i4" || d == ">i8")
    error = "big-endian data ('" + d + "') is not supported (convert it with a.astype('<" + d.substr(1) + "'))";
  else
    error = "unsupported dtype '" + d + "' (Weft reads <f4, <f8, <i4, <i8 and |b1)";
  return false;
}

inline const char* descrOf(DType t) {
  switch (t) {
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::Bool: return "|b1";
  }
  return "?";
}

}  // namespace npy_detail

// Reads and checks a file's header. `read(dst, n)` reads the next n bytes of the file and returns
// false when it cannot; `fileSize` is the file's size. Returns "" or what is wrong with the file.
template <class Read>
std::string readNpyHeader(Read&& read, int64_t fileSize, NpyHeader& h) {
  using namespace npy_detail;
  unsigned char pre[12];
  if (fileSize < 10 || !read(pre, 8) || std::memcmp(pre, kMagic, 6) != 0)
    return "not a .npy file (it does not start with \\x93NUMPY)";
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    return "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
           " (1.0, 2.0 and 3.0 are)";
  const int lenBytes = major == 1 ? 2 : 4;  // 2.0 widened the header length; 3.0 allows UTF-8
  if (fileSize < 8 + lenBytes || !read(pre + 8, lenBytes)) return "the file ends inside its preamble";
  int64_t headerLen = 0;
  for (int i = lenBytes - 1; i >= 0; --i) headerLen = headerLen << 8 | pre[8 + i];
  const int64_t dataAt = 8 + lenBytes + headerLen;
  if (headerLen > kMaxHeader) return "the header is too long (" + std::to_string(headerLen) + " bytes)";
  if (dataAt > fileSize)
    return "the file ends inside its header (" + std::to_string(headerLen) + " bytes announced, " +
           std::to_string(fileSize - 8 - lenBytes) + " present)";
  std::string text(size_t(headerLen), '\0');
  if (!read(text.data(), headerLen)) return "cannot read its header";

  HeaderParser p(text);
  if (!p.parse()) return p.error;
  std::string error;
  if (!dtypeOfDescr(p.descr, h.dtype, error)) return error;
  if (p.fortran) return "Fortran-order arrays are not supported (save np.ascontiguousarray(a) instead)";
  const int64_t item = int64_t(dtypeSize(h.dtype));
  // Zeros do not hide huge dimensions: (0, 2**62, 2**62) is refused too, as its strides would wrap.
  std::optional<int64_t> count = p.shape.checkedNumel();
  std::optional<int64_t> bytes = count ? sizeMul(*count, item) : std::nullopt;
  if (!bytes) return "the shape " + tupleStr(p.shape) + " is too large";
  const int64_t need = *bytes, have = fileSize - dataAt;
  if (have < need)
    return "the data is truncated: shape " + tupleStr(p.shape) + " of " + p.descr + " needs " +
           std::to_string(need) + " bytes but " + std::to_string(have) + " follow the header";
  if (have > need) return std::to_string(have - need) + " unexpected bytes follow the data of shape " + tupleStr(p.shape);
  h.shape = p.shape;
  h.dataOffset = dataAt;
  h.dataBytes = need;
  return "";
}

// The preamble and header of a version 1.0 file (2.0 if the header needs it), padded so that the
// data starts at a multiple of 64 bytes, as NumPy does.
inline std::string npyHeader(DType dtype, const Shape& shape) {
  using namespace npy_detail;
  std::string header = std::string("{'descr': '") + descrOf(dtype) +
                       "', 'fortran_order': False, 'shape': " + tupleStr(shape) + ", }";
  const size_t prefix = 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string pre(kMagic, 6);
  pre += char(1), pre += char(0);
  pre += char(header.size() & 0xff), pre += char(header.size() >> 8);  // < 65536: rank <= 8
  return pre + header;
}

}  // namespace weft::rt

#endif  // WEFT_RT_NPY_H
