// The data readers of SPEC §6 (interpreter/builtins/data.h): IDX files plain and gzipped, CSV
// files, and a clear WeftError naming the file (and line) for every kind of hostile file —
// truncated or corrupt gzip, huge declared dimensions, wrong magic, ragged rows, non-numbers.
#include <zlib.h>

#include <cmath>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "scratch_dir.h"
#include "interpreter/builtins/data.h"
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& name) { return testutil::scratchPath(name).string(); }

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

std::string gzip(const std::string& bytes) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, uLong(bytes.size())) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = uInt(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string be32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

// An IDX header: type code and dimensions.
std::string idxHeader(unsigned char type, std::vector<uint32_t> dims) {
  std::string h = {'\0', '\0', char(type), char(dims.size())};
  for (uint32_t d : dims) h += be32(d);
  return h;
}

std::string idxError(const std::string& name, const std::string& bytes) {
  const std::string path = scratch(name);
  spit(path, bytes);
  return errorOf([&] { data::readIdx(path); });
}

std::string csvError(const std::string& name, const std::string& text, data::CsvOptions o = {}) {
  const std::string path = scratch(name);
  spit(path, text);
  return errorOf([&] { data::readCsv(path, o); });
}

}  // namespace

TEST_CASE("IDX files of every element type, plain and gzipped") {
  std::string u8 = idxHeader(0x08, {2, 3}) + std::string("\x00\x01\x02\x7f\x80\xff", 6);
  for (bool gz : {false, true}) {
    CAPTURE(gz);
    spit(scratch("u8.idx"), gz ? gzip(u8) : u8);
    Tensor t = data::readIdx(scratch("u8.idx"));
    REQUIRE(t.dtype() == DType::I32);
    REQUIRE(t.shape() == Shape{2, 3});
    CHECK(std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + 6) == std::vector<int32_t>{0, 1, 2, 127, 128, 255});
  }
  spit(scratch("i8.idx"), idxHeader(0x09, {2}) + "\xff\x05");
  CHECK(data::readIdx(scratch("i8.idx")).data<int32_t>()[0] == -1);
  spit(scratch("i16.idx"), idxHeader(0x0B, {1}) + "\xfe\xff");
  CHECK(data::readIdx(scratch("i16.idx")).data<int32_t>()[0] == -257);
  spit(scratch("i32.idx"), idxHeader(0x0C, {1}) + be32(0x80000000u));
  CHECK(data::readIdx(scratch("i32.idx")).data<int32_t>()[0] == INT32_MIN);
  spit(scratch("f32.idx"), idxHeader(0x0D, {1}) + be32(0x3fc00000u));
  Tensor f = data::readIdx(scratch("f32.idx"));
  CHECK(f.dtype() == DType::F32);
  CHECK(f.data<float>()[0] == 1.5f);
  spit(scratch("f64.idx"), idxHeader(0x0E, {}) + be32(0x40040000u) + be32(0));
  Tensor d = data::readIdx(scratch("f64.idx"));
  CHECK(d.dtype() == DType::F64);
  CHECK(d.rank() == 0);
  CHECK(d.data<double>()[0] == 2.5);
  // Scaled to f32 as fashion_mnist's images are.
  spit(scratch("u8.idx"), u8);
  Tensor s = data::readIdx(scratch("u8.idx"), "fashion_mnist", DType::F32, 255.0);
  CHECK(s.data<float>()[5] == 1.0f);
  CHECK(s.data<float>()[3] == float(127 / 255.0));
  // Concatenated gzip members are one file, as gunzip reads them.
  spit(scratch("two.gz"), gzip(u8.substr(0, 7)) + gzip(u8.substr(7)));
  CHECK(data::readIdx(scratch("two.gz")).data<int32_t>()[5] == 255);
  // A zero dimension: no data.
  spit(scratch("empty.idx"), idxHeader(0x08, {0, 28}));
  CHECK(data::readIdx(scratch("empty.idx")).shape() == Shape{0, 28});
}

TEST_CASE("hostile IDX files are errors naming the file") {
  CHECK(idxError("e.idx", "") == "load_idx: cannot load '" + scratch("e.idx") + "': the file ends inside its magic number");
  CHECK(idxError("magic.idx", "PK\x03\x04") ==
        "load_idx: cannot load '" + scratch("magic.idx") + "': not an IDX file (it starts with 0x50 0x4b, not two zero bytes)");
  CHECK(idxError("type.idx", idxHeader(0x0A, {1}) + "x").find("unknown IDX element type 0x0a") != std::string::npos);
  CHECK(idxError("rank.idx", idxHeader(0x08, {1, 1, 1, 1, 1, 1, 1, 1, 1}) + "x").find("9 dimensions; Weft's maximum is 8") !=
        std::string::npos);
  CHECK(idxError("dims.idx", idxHeader(0x08, {7, 7})).find("the file ends inside its dimensions") == std::string::npos);
  CHECK(idxError("cut.idx", std::string("\0\0\x08\x02\0\0", 6)).find("the file ends inside its dimensions") != std::string::npos);
  // Huge declared dimensions: refused from the file's size before anything is allocated.
  CHECK(idxError("huge.idx", idxHeader(0x0D, {0xffffffffu, 0xffffffffu, 0xffffffffu}) + "abcd") ==
        "load_idx: cannot load '" + scratch("huge.idx") +
            "': the header declares [4294967295, 4294967295, 4294967295] f32 elements (more than 2**63 bytes) but only 4 "
            "bytes follow it");
  CHECK(idxError("big.gz", gzip(idxHeader(0x08, {60000, 60000, 28}) + std::string(100, '\0')))
            .find("more than a gzip file of ") != std::string::npos);
  CHECK(idxError("short.idx", idxHeader(0x08, {2, 3}) + "abcd").find("(6 bytes) but only 4 bytes follow it") != std::string::npos);
  CHECK(idxError("long.idx", idxHeader(0x08, {2}) + "abcd") ==
        "load_idx: cannot load '" + scratch("long.idx") + "': 2 unexpected bytes follow the data of shape [2]");
  // Gzip that ends early, is damaged, declares more than it holds, or has a tail.
  const std::string good = gzip(idxHeader(0x08, {100, 100}) + std::string(10000, '\x07'));
  CHECK(idxError("trunc.gz", good.substr(0, good.size() / 2)).find("the gzip data is truncated") != std::string::npos);
  CHECK(idxError("trunc2.gz", good.substr(0, good.size() - 4)).find("the gzip data is truncated") != std::string::npos);
  std::string corrupt = good;
  for (size_t i = 12; i < corrupt.size() - 8; i += 3) corrupt[i] = char(corrupt[i] ^ 0x5a);
  CHECK(idxError("corrupt.gz", corrupt).find("corrupt gzip data") != std::string::npos);
  std::string badCrc = good;
  badCrc[badCrc.size() - 6] ^= 1;
  CHECK(idxError("crc.gz", badCrc).find("corrupt gzip data (incorrect data check)") != std::string::npos);
  CHECK(idxError("less.gz", gzip(idxHeader(0x08, {100, 101}) + std::string(10000, '\x07')))
            .find("the file ends inside its data (10100 bytes declared)") != std::string::npos);
  CHECK(idxError("tail.gz", good + "garbage").find("unexpected bytes after the gzip data") != std::string::npos);
  CHECK(idxError("gzhead.gz", "\x1f\x8b").find("the gzip data is truncated") != std::string::npos);
  // The memory limits hold for what fits in the file.
  const int64_t saved = memoryLimits().maxTensorBytes;
  memoryLimits().maxTensorBytes = 1000;
  CHECK(idxError("limit.idx", idxHeader(0x08, {2000}) + std::string(2000, 'x')).find("for one tensor") != std::string::npos);
  memoryLimits().maxTensorBytes = saved;
  // Not regular files, missing files.
  CHECK(errorOf([] { data::readIdx("/dev/zero"); }) == "load_idx: cannot load '/dev/zero': not a regular file");
  CHECK(errorOf([] { data::readIdx(scratch("")); }).find("it is a directory") != std::string::npos);
  CHECK(errorOf([] { data::readIdx(scratch("none.idx")); }).find("No such file or directory") != std::string::npos);
  const std::string fifo = scratch("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(errorOf([&] { data::readIdx(fifo); }).find("not a regular file") != std::string::npos);
}

TEST_CASE("CSV files: options, comments, blank lines, CRLF, gzip") {
  spit(scratch("a.csv"), "x,y,z\n1, 2.5 ,-3\n\n# a comment\n4e2,+5,inf  # trailing\r\n");
  Tensor t = data::readCsv(scratch("a.csv"), {.skipHeader = 1});
  REQUIRE(t.dtype() == DType::F32);
  REQUIRE(t.shape() == Shape{2, 3});
  CHECK(t.data<float>()[1] == 2.5f);
  CHECK(t.data<float>()[3] == 400.0f);
  CHECK(std::isinf(t.data<float>()[5]));
  spit(scratch("b.tsv"), "1\t2\n3\t4\n");
  Tensor i = data::readCsv(scratch("b.tsv"), {.delimiter = '\t', .dtype = DType::I32});
  CHECK(i.dtype() == DType::I32);
  CHECK(i.data<int32_t>()[3] == 4);
  spit(scratch("c.txt"), "  1   2\t3\n4 5 6");  // whitespace-separated, no final newline
  Tensor w = data::readCsv(scratch("c.txt"), {.delimiter = std::nullopt, .dtype = DType::F64});
  CHECK(w.shape() == Shape{2, 3});
  CHECK(w.data<double>()[5] == 6.0);
  spit(scratch("d.csv.gz"), gzip("1,0\n0,1\n"));
  Tensor g = data::readCsv(scratch("d.csv.gz"), {.dtype = DType::Bool});
  CHECK(g.dtype() == DType::Bool);
  CHECK(g.data<bool>()[3]);
}

TEST_CASE("bad CSV files name the file and line") {
  const std::string p = scratch("ragged.csv");
  CHECK(csvError("ragged.csv", "1,2,3\n4,5,6\n7,8\n") == "load_csv: " + p + ":3: 2 values where line 1 has 3 (rows must have the same length)");
  CHECK(csvError("nan.csv", "1,2\n3,abc\n") == "load_csv: " + scratch("nan.csv") + ":2: column 2: 'abc' is not a number");
  CHECK(csvError("empty_field.csv", "1,,3\n").find(":1: column 2: an empty value is not a number") != std::string::npos);
  CHECK(csvError("int.csv", "1.5\n", {.dtype = DType::I32}).find(":1: column 1: '1.5' is not an integer (dtype i32)") !=
        std::string::npos);
  CHECK(csvError("range.csv", "3000000000\n", {.dtype = DType::I32}).find("is out of range for i32") != std::string::npos);
  CHECK(csvError("bool.csv", "2\n", {.dtype = DType::Bool}).find("is not a bool") != std::string::npos);
  CHECK(csvError("none.csv", "# only a comment\n\n") == "load_csv: cannot load '" + scratch("none.csv") + "': it holds no rows of numbers");
  CHECK(csvError("header.csv", "a,b\n1,2\n").find(":1: column 1: 'a' is not a number") != std::string::npos);
  CHECK(errorOf([] { data::readCsv("/dev/zero", {}); }) == "load_csv: cannot load '/dev/zero': not a regular file");
  // One value past the limits: an error, not an allocation.
  const int64_t saved = memoryLimits().maxTensorBytes;
  memoryLimits().maxTensorBytes = 1000;
  std::string many;
  for (int k = 0; k < 500; ++k) many += "1\n";
  CHECK(csvError("many.csv", many).find("for one value") != std::string::npos);
  std::string wide = "1";
  for (int k = 0; k < 300; ++k) wide += ",1";
  CHECK(csvError("wide.csv", wide + "\n").find("for one value") != std::string::npos);
  memoryLimits().maxTensorBytes = saved;
  // What the reader holds before the tensor exists counts against --max-memory too (a small
  // gzip of many lines must not take gigabytes past it).
  const int64_t savedLive = memoryLimits().maxLiveBytes;
  memoryLimits().maxLiveBytes = liveTensorBytes() + 4000;
  CHECK(csvError("live.csv", many + many).find("for all live values") != std::string::npos);
  memoryLimits().maxLiveBytes = savedLive;
}
