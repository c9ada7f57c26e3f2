// load_bytes(path): a file's bytes as an i32 tensor [n] of values 0..255 (TensorFlow's
// tf.io.decode_raw of tf.io.read_file), the input of a character- or byte-level model; and
// decode_bytes(t), the text of such a tensor (a model's samples) safe to print.
#include <cstdio>
#include <vector>

#include "../../grammar/diagnostics.h"
#include "data.h"
#include "data_source.h"

namespace weft::data {

Tensor readBytes(const std::string& path) {
  auto src = ByteSource::open("load_bytes", path);
  std::vector<unsigned char> bytes;
  unsigned char buf[1 << 16];
  for (int64_t n; (n = src->read(buf, sizeof buf)) > 0;) bytes.insert(bytes.end(), buf, buf + n);
  Tensor t = Tensor::empty(DType::I32, Shape{int64_t(bytes.size())});
  for (size_t i = 0; i < bytes.size(); ++i) t.data<int32_t>()[i] = bytes[i];
  return t;
}

// The position of flat element i of `shape`: "[1, 3]".
static std::string positionOf(int64_t i, const Shape& shape) {
  std::string s;
  for (int d = shape.rank() - 1; d >= 0; --d) {
    s = std::to_string(i % shape[d]) + (s.empty() ? "" : ", ") + s;
    i /= shape[d];
  }
  return "[" + s + "]";
}

std::string decodeBytes(const Tensor& t) {
  if (t.dtype() != DType::I32 && t.dtype() != DType::I64)
    throw WeftError("decode_bytes: expects an i32 or i64 tensor of byte values, got " + std::string(rt::dtypeName(t.dtype())));
  // Printable ASCII, newlines and tabs as they are; any other byte as \xNN, so that no control
  // sequence reaches a terminal. A value that is no byte (a token id of -1, or one of a vocabulary
  // past bytes) stands for no text: an error.
  std::string s;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t c = t.asInt(i);
    if (c < 0 || c > 255)
      throw WeftError("decode_bytes: the value " + std::to_string(c) + " at " + positionOf(i, t.shape()) +
                      " is not a byte (0..255)");
    if ((c >= 32 && c < 127) || c == '\n' || c == '\t') s += char(c);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
      s += buf;
    }
  }
  return s;
}

}  // namespace weft::data
