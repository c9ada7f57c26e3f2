// IDX files (http://yann.lecun.com/exdb/mnist/, "the IDX file format"): two zero bytes, an element
// type, the number of dimensions, each dimension as a big-endian u32, then the elements in
// row-major order, big-endian. Gzip-compressed files are read through zlib (data_source.h).
#include <bit>
#include <cstring>
#include <vector>

#include "../../grammar/diagnostics.h"
#include "../eval/interpreter.h"
#include "../eval/args.h"
#include "data.h"
#include "data_source.h"

namespace weft::data {
namespace {

struct ElementType {
  unsigned char code;
  const char* name;
  int bytes;
  DType natural;
};
constexpr ElementType kTypes[] = {
    {0x08, "u8", 1, DType::I32},  {0x09, "i8", 1, DType::I32},  {0x0B, "i16", 2, DType::I32},
    {0x0C, "i32", 4, DType::I32}, {0x0D, "f32", 4, DType::F32}, {0x0E, "f64", 8, DType::F64},
};

uint64_t bigEndian(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}

// One element of type `code` at p as a double (exact for every IDX type).
double element(const unsigned char* p, unsigned char code) {
  switch (code) {
    case 0x08: return p[0];
    case 0x09: return int8_t(p[0]);
    case 0x0B: return int16_t(uint16_t(bigEndian(p, 2)));
    case 0x0C: return int32_t(uint32_t(bigEndian(p, 4)));
    case 0x0D: return std::bit_cast<float>(uint32_t(bigEndian(p, 4)));
    default: return std::bit_cast<double>(bigEndian(p, 8));
  }
}

template <class T>
void convert(const unsigned char* in, int64_t n, const ElementType& type, double divisor, T* out) {
  for (int64_t i = 0; i < n; ++i) {
    double v = element(in + i * type.bytes, type.code);
    if (divisor != 1.0) v /= divisor;
    if constexpr (std::is_same_v<T, bool>) out[i] = v != 0;
    else out[i] = T(v);
  }
}

}  // namespace

Tensor readIdx(const std::string& path, const std::string& fn, std::optional<DType> as, double divisor) {
  auto src = ByteSource::open(fn, path);
  unsigned char magic[4];
  src->readExactly(magic, 4, "its magic number");
  if (magic[0] != 0 || magic[1] != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%02x 0x%02x", magic[0], magic[1]);
    src->fail(std::string("not an IDX file (it starts with ") + hex + ", not two zero bytes)");
  }
  const ElementType* type = nullptr;
  for (const auto& t : kTypes)
    if (t.code == magic[2]) type = &t;
  if (!type) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", magic[2]);
    src->fail(std::string("unknown IDX element type ") + hex + " (0x08, 0x09, 0x0b, 0x0c, 0x0d and 0x0e are)");
  }
  const int rank = magic[3];
  if (rank > rt::kMaxRank)
    src->fail("the file declares " + std::to_string(rank) + " dimensions; Weft's maximum is " +
              std::to_string(rt::kMaxRank));
  unsigned char dims[4 * rt::kMaxRank];
  src->readExactly(dims, 4 * rank, "its dimensions");
  Shape shape;
  for (int i = 0; i < rank; ++i) shape.push_back(int64_t(bigEndian(dims + 4 * i, 4)));

  // The data the header declares must fit in the file (for gzip, in what deflate can expand it
  // to), so that a small hostile file cannot make a huge allocation.
  const int64_t headerBytes = 4 + 4 * rank;
  std::optional<int64_t> count = shape.checkedNumel();
  std::optional<int64_t> need = count ? rt::sizeMul(*count, int64_t(type->bytes)) : std::nullopt;
  const int64_t room = src->maxBytes() - headerBytes;
  if (!need || *need > room) {
    const std::string declared = "the header declares " + shape.str() + " " + type->name + " elements (" +
                                 (need ? std::to_string(*need) + " bytes" : "more than 2**63 bytes") + ")";
    if (src->compressed())
      src->fail(declared + ", more than a gzip file of " + std::to_string(src->maxBytes() / 1032) +
                " bytes can hold");
    src->fail(declared + " but only " + std::to_string(std::max<int64_t>(room, 0)) + " bytes follow it");
  }

  const DType out = as.value_or(type->natural);
  Tensor t;
  try {
    t = Tensor::empty(out, shape);
  } catch (const WeftError& e) {
    src->fail(e.message);
  }
  // Read and convert a bounded piece at a time.
  const int64_t perChunk = std::max<int64_t>(1, (int64_t(1) << 16) / type->bytes);
  std::vector<unsigned char> buf(size_t(perChunk * type->bytes));
  const std::string what = "its data (" + std::to_string(*need) + " bytes declared)";
  for (int64_t at = 0; at < *count; at += perChunk) {
    const int64_t n = std::min(perChunk, *count - at);
    src->readExactly(buf.data(), n * type->bytes, what);
    switch (out) {
      case DType::F32: convert(buf.data(), n, *type, divisor, t.data<float>() + at); break;
      case DType::F64: convert(buf.data(), n, *type, divisor, t.data<double>() + at); break;
      case DType::I32: convert(buf.data(), n, *type, divisor, t.data<int32_t>() + at); break;
      case DType::I64: convert(buf.data(), n, *type, divisor, t.data<int64_t>() + at); break;
      case DType::Bool: convert(buf.data(), n, *type, divisor, t.data<bool>() + at); break;
    }
  }
  src->expectEnd("the data of shape " + shape.str());
  return t;
}

}  // namespace weft::data

namespace weft {

Tensor loadCsvBuiltin(Args& a);  // data_csv.cpp

void registerDataFiles(Env& env) {
  env.set(intern("load_idx"), makeBuiltin("load_idx", [](Interpreter&, Args& a) {
            ArgReader r(a, "load_idx", {"path"});
            return Value(data::readIdx(r.str(0)));
          }));
  env.set(intern("load_csv"), makeBuiltin("load_csv", [](Interpreter&, Args& a) { return Value(loadCsvBuiltin(a)); }));
  env.set(intern("load_bytes"), makeBuiltin("load_bytes", [](Interpreter&, Args& a) {
            ArgReader r(a, "load_bytes", {"path"});
            return Value(data::readBytes(r.str(0)));
          }));
  env.set(intern("decode_bytes"), makeBuiltin("decode_bytes", [](Interpreter&, Args& a) {
            ArgReader r(a, "decode_bytes", {"t"});
            return makeStr(data::decodeBytes(r.tensor(0)));
          }));
}

}  // namespace weft
