#include "npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>

#include "../../grammar/diagnostics.h"

namespace weft::saved {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";  // 6 bytes, then the major and minor version
constexpr int64_t kMaxHeader = 1 << 20;  // NumPy itself refuses headers over 10,000 bytes

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw WeftError("cannot load '" + path + "': " + why);
}

struct Header {
  std::string descr;
  bool fortran = false;
  Shape shape;
  bool hasDescr = false, hasOrder = false, hasShape = false;
};

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This parser accepts exactly that grammar (any key order, either quote, optional trailing comma).
class HeaderParser {
 public:
  HeaderParser(std::string_view s, const std::string& path) : s_(s), path_(path) {}

  Header parse() {
    Header h;
    expect('{', "'{' at the start");
    while (!eat('}')) {
      std::string key = quoted();
      expect(':', "':' after '" + key + "'");
      if (key == "descr") h.descr = quoted(), h.hasDescr = true;
      else if (key == "fortran_order") h.fortran = boolean(), h.hasOrder = true;
      else if (key == "shape") h.shape = tuple(), h.hasShape = true;
      else fail("unknown key '" + key + "'");
      if (!eat(',')) {
        expect('}', "',' or '}' after the value of '" + key + "'");
        break;
      }
    }
    skipSpace();
    if (i_ != s_.size()) fail("unexpected text after the closing '}'");
    if (!h.hasDescr || !h.hasOrder || !h.hasShape) fail("it needs 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { bad(path_, "malformed header: " + why); }
  void skipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skipSpace();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c, const std::string& what) {
    if (!eat(c)) fail("expected " + what);
  }
  std::string quoted() {
    skipSpace();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("expected a quoted string");
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string_view::npos || end - i_ > 64) fail("unterminated or overlong string");
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skipSpace();
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    fail("'fortran_order' must be True or False");
  }
  Shape tuple() {
    expect('(', "'(' before the shape");
    Shape shape;
    while (!eat(')')) {
      skipSpace();
      if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("the shape must hold non-negative integers");
      int64_t v = 0;
      for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_) {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) fail("a dimension is too large");
        v = v * 10 + (s_[i_] - '0');
      }
      if (shape.rank() == rt::kMaxRank)
        bad(path_, "the array has more than " + std::to_string(rt::kMaxRank) + " dimensions, Weft's maximum");
      shape.push_back(v);
      if (!eat(',')) {
        expect(')', "',' or ')' in the shape");
        break;
      }
    }
    return shape;
  }

  std::string_view s_;
  const std::string& path_;
  size_t i_ = 0;
};

DType dtypeOfDescr(const std::string& d, const std::string& path) {
  if (d == "<f4") return DType::F32;
  if (d == "<f8") return DType::F64;
  if (d == "<i4") return DType::I32;
  if (d == "<i8") return DType::I64;
  if (d == "|b1" || d == "<b1") return DType::Bool;
  if (d.size() == 3 && d[0] == '>' && (d == ">f4" || d == ">f8" || d == ">i4" || d == ">i8"))
    bad(path, "big-endian data ('" + d + "') is not supported (convert it with a.astype('<" + d.substr(1) + "'))");
  bad(path, "unsupported dtype '" + d + "' (Weft reads <f4, <f8, <i4, <i8 and |b1)");
}

const char* descrOf(DType t) {
  switch (t) {
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::Bool: return "|b1";
  }
  return "?";
}

std::string tupleStr(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.rank(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.rank() == 1 ? ",)" : ")");
}

uint32_t littleEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

}  // namespace

Tensor readNpy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) bad(path, "it is a directory");
  // A FIFO or a device could block or never end.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) bad(path, "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, std::strerror(errno));
  in.seekg(0, std::ios::end);
  const int64_t fileSize = int64_t(in.tellg());
  in.seekg(0);
  if (fileSize < 0 || !in) bad(path, "cannot determine its size");

  unsigned char pre[12];
  if (fileSize < 10 || !in.read(reinterpret_cast<char*>(pre), 8) || std::memcmp(pre, kMagic, 6) != 0)
    bad(path, "not a .npy file (it does not start with \\x93NUMPY)");
  const int major = pre[6], minor = pre[7];
  if (major < 1 || major > 3 || minor != 0)
    bad(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                  " (1.0, 2.0 and 3.0 are)");
  const int lenBytes = major == 1 ? 2 : 4;  // 2.0 widened the header length; 3.0 allows UTF-8
  if (fileSize < 8 + lenBytes || !in.read(reinterpret_cast<char*>(pre + 8), lenBytes))
    bad(path, "the file ends inside its preamble");
  const int64_t headerLen = littleEndian(pre + 8, lenBytes), dataAt = 8 + lenBytes + headerLen;
  if (headerLen > kMaxHeader) bad(path, "the header is too long (" + std::to_string(headerLen) + " bytes)");
  if (dataAt > fileSize)
    bad(path, "the file ends inside its header (" + std::to_string(headerLen) + " bytes announced, " +
                  std::to_string(fileSize - 8 - lenBytes) + " present)");
  std::string text(size_t(headerLen), '\0');
  if (!in.read(text.data(), headerLen)) bad(path, "cannot read its header");

  Header h = HeaderParser(text, path).parse();
  const DType dtype = dtypeOfDescr(h.descr, path);
  if (h.fortran) bad(path, "Fortran-order arrays are not supported (save np.ascontiguousarray(a) instead)");
  const int64_t item = int64_t(rt::dtypeSize(dtype));
  // Zeros do not hide huge dimensions: (0, 2**62, 2**62) is refused too, as its strides would wrap.
  std::optional<int64_t> count = h.shape.checkedNumel();
  std::optional<int64_t> bytes = count ? rt::sizeMul(*count, item) : std::nullopt;
  if (!bytes) bad(path, "the shape " + tupleStr(h.shape) + " is too large");
  const int64_t need = *bytes, have = fileSize - dataAt;
  if (have < need)
    bad(path, "the data is truncated: shape " + tupleStr(h.shape) + " of " + h.descr + " needs " +
                  std::to_string(need) + " bytes but " + std::to_string(have) + " follow the header");
  if (have > need)
    bad(path, std::to_string(have - need) + " unexpected bytes follow the data of shape " + tupleStr(h.shape));

  Tensor t;
  try {
    t = Tensor::empty(dtype, h.shape);
  } catch (const WeftError& e) {
    bad(path, e.message);
  }
  if (need > 0 && !in.read(static_cast<char*>(t.raw()), need)) bad(path, "cannot read its data");
  if (dtype == DType::Bool) {  // any nonzero byte is true; only 0 and 1 are valid bools in C++
    auto* bytes = static_cast<unsigned char*>(t.raw());
    for (int64_t i = 0; i < count; ++i) bytes[i] = bytes[i] != 0;
  }
  return t;
}

void writeNpy(const std::string& path, const Tensor& t) {
  if (t.isAbstract()) throw WeftError("cannot save '" + path + "': the tensor has no data (it is abstract)");
  std::string header = std::string("{'descr': '") + descrOf(t.dtype()) +
                       "', 'fortran_order': False, 'shape': " + tupleStr(t.shape()) + ", }";
  // Pad with spaces and a final newline so that the data starts at a multiple of 64 bytes.
  const size_t prefix = 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string pre(kMagic, 6);
  pre += char(1), pre += char(0);
  pre += char(header.size() & 0xff), pre += char(header.size() >> 8);  // < 65536: rank <= 8

  // Only a regular file is written, as only one is read: a FIFO would block until a reader came.
  // Non-blocking open and fstat, so that a FIFO swapped in after the check cannot block either.
  auto fail = [&](const std::string& why) { throw WeftError("cannot save '" + path + "': " + why); };
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) fail("not a regular file");
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0) fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("not a regular file");
  }
  std::string_view parts[] = {pre, header, {static_cast<const char*>(t.raw()), size_t(t.bytes())}};
  for (std::string_view part : parts)
    while (!part.empty()) {
      ssize_t n = ::write(fd, part.data(), part.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::string why = std::string("write failed (") + std::strerror(errno) + ")";
        ::close(fd);
        fail(why);
      }
      part.remove_prefix(size_t(n));
    }
  if (::close(fd) != 0) fail(std::string("write failed (") + std::strerror(errno) + ")");
}

}  // namespace weft::saved
