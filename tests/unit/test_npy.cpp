// .npy reading and writing: round trips of every dtype, byte-identical output to NumPy's, and
// a WeftError naming the file (never a crash) for each kind of bad or damaged file.
#include <filesystem>
#include <fstream>
#include <random>

#include <sys/stat.h>
#include <unistd.h>

#include "scratch_dir.h"
#include "interpreter/saved/npy.h"
#include "test_ops_util.h"

using namespace weft;
using namespace weft::testutil;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(WEFT_SOURCE_DIR) + "/tests/fixtures/";

std::string scratch(const std::string& name) { return testutil::scratchPath(name).string(); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

// A v1.0 file with the given header dict (padded like NumPy's) and raw data bytes.
std::string npyBytes(const std::string& dict, const std::string& data, char major = 1) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + major + '\0';
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  if (major > 1) out += std::string(2, '\0');
  return out + header + data;
}

// The error text of loading `bytes` from a file named `name`.
std::string loadError(const std::string& name, const std::string& bytes) {
  const std::string path = scratch(name);
  spit(path, bytes);
  return errorOf([&] { saved::readNpy(path); });
}

}  // namespace

TEST_CASE("npy round trips every dtype, scalars and empty arrays") {
  std::vector<Tensor> cases = {
      iota({2, 3, 4}),
      iota({5}, DType::F64),
      i32({2, 2}, {-1, 2, 2147483647, -2147483647 - 1}),
      make<int64_t>({3}, {int64_t(1) << 40, -7, 0}),
      make<bool>({2, 2}, {true, false, false, true}),
      Tensor::scalar(2.5),
      Tensor::zeros(DType::F32, {0, 3}),
  };
  for (const Tensor& t : cases) {
    CAPTURE(t.shape().str());
    saved::writeNpy(scratch("rt.npy"), t);
    Tensor back = saved::readNpy(scratch("rt.npy"));
    REQUIRE(back.dtype() == t.dtype());
    REQUIRE(back.shape() == t.shape());
    CHECK(std::memcmp(back.raw(), t.raw(), size_t(t.bytes())) == 0);
    CHECK(slurp(scratch("rt.npy")).size() % 64 == size_t(t.bytes()) % 64);  // the data is 64-byte aligned
  }
}

TEST_CASE("npy files written by NumPy load, and Weft writes the same bytes") {
  for (const char* name : {"dense_x", "embedding_ids", "conv_same_f64_y", "gelu_x"}) {
    CAPTURE(name);
    const std::string path = kFixtures + name + ".npy";
    Tensor t = saved::readNpy(path);
    saved::writeNpy(scratch("copy.npy"), t);
    CHECK(slurp(scratch("copy.npy")) == slurp(path));
  }
  Tensor ids = saved::readNpy(kFixtures + "embedding_ids.npy");
  CHECK(ids.dtype() == DType::I32);
  CHECK(values<int32_t>(ids) == std::vector<int32_t>{0, 3, 9, 9, 1, 3});
  // Version 2.0 (4-byte header length), double quotes, any key order, no trailing comma.
  const std::string v2 = npyBytes("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i8\"}",
                                  std::string("\x05\0\0\0\0\0\0\0\xff\xff\xff\xff\xff\xff\xff\xff", 16), 2);
  spit(scratch("v2.npy"), v2);
  CHECK(values<int64_t>(saved::readNpy(scratch("v2.npy"))) == std::vector<int64_t>{5, -1});
  // Any nonzero byte reads as true.
  spit(scratch("bool.npy"), npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\x00\x01\x07", 3)));
  CHECK(values<bool>(saved::readNpy(scratch("bool.npy"))) == std::vector<bool>{false, true, true});
}

TEST_CASE("unsupported and malformed npy files are WeftErrors naming the file") {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight(8, '\0');
  CHECK(loadError("ok.npy", npyBytes(f4, eight)) == "");
  CHECK(loadError("f.npy", npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", eight)) ==
        "cannot load '" + scratch("f.npy") + "': Fortran-order arrays are not supported (save np.ascontiguousarray(a) "
        "instead)");
  CHECK(loadError("be.npy", npyBytes("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", eight)) ==
        "cannot load '" + scratch("be.npy") + "': big-endian data ('>f8') is not supported (convert it with "
        "a.astype('<f8'))");
  CHECK(loadError("u2.npy", npyBytes("{'descr': '<u2', 'fortran_order': False, 'shape': (4,), }", eight))
            .find("unsupported dtype '<u2'") != std::string::npos);
  CHECK(loadError("short.npy", npyBytes(f4, "1234")) ==
        "cannot load '" + scratch("short.npy") + "': the data is truncated: shape (2,) of <f4 needs 8 bytes but 4 "
        "follow the header");
  CHECK(loadError("long.npy", npyBytes(f4, eight + "xx")).find("2 unexpected bytes follow the data") !=
        std::string::npos);
  CHECK(loadError("magic.npy", "PK\x03\x04 not numpy at all").find("not a .npy file") != std::string::npos);
  CHECK(loadError("ver.npy", npyBytes(f4, eight, 4)).find("unsupported .npy format version 4.0") != std::string::npos);
  CHECK(loadError("huge.npy", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                                       eight))
            .find("is too large") != std::string::npos);
  // An empty array whose other dimensions multiply past int64 (issue 14, item 10).
  CHECK(loadError("zero_huge.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904), }", ""))
            .find("is too large") != std::string::npos);
  CHECK(loadError("dim.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                                      eight))
            .find("a dimension is too large") != std::string::npos);
  CHECK(loadError("rank.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }",
                                       "1234"))
            .find("more than 8 dimensions") != std::string::npos);
  CHECK(loadError("neg.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", eight))
            .find("non-negative integers") != std::string::npos);
  CHECK(loadError("key.npy", npyBytes("{'descr': '<f4', 'shape': (2,), }", eight)).find("needs 'descr'") !=
        std::string::npos);
  CHECK(loadError("junk.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", eight))
            .find("malformed header") != std::string::npos);
  std::string lying = npyBytes(f4, eight);
  lying[8] = '\xff', lying[9] = '\x7f';  // a header length past the end of the file
  CHECK(loadError("lying.npy", lying).find("the file ends inside its header") != std::string::npos);
  CHECK(errorOf([] { saved::readNpy(scratch("missing.npy")); }) ==
        "cannot load '" + scratch("missing.npy") + "': No such file or directory");
  CHECK(errorOf([] { saved::readNpy(fs::temp_directory_path().string()); }).find("it is a directory") !=
        std::string::npos);
  CHECK(errorOf([] { saved::writeNpy("/nonexistent-dir/x.npy", iota({2})); }).find("cannot save '/nonexistent-dir/x.npy'") ==
        0);
  // A FIFO with no reader: saving used to block forever (issue 14, item 4).
  const std::string fifo = scratch("fifo.npy");
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(errorOf([&] { saved::writeNpy(fifo, iota({2})); }) == "cannot save '" + fifo + "': not a regular file");
  CHECK(errorOf([&] { saved::readNpy(fifo); }).find("not a regular file") != std::string::npos);
  fs::remove(fifo);
}

TEST_CASE("every truncation and random corruption of an npy file fails cleanly") {
  const std::string good = slurp(kFixtures + "conv_same_f64_x.npy");
  REQUIRE(good.size() > 128);
  for (size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK(loadError("cut.npy", good.substr(0, n)).rfind("cannot load '" + scratch("cut.npy") + "': ", 0) == 0);
  }
  std::mt19937 rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    std::string bytes = good;
    for (int k = 0; k < 3; ++k) bytes[rng() % 128] = char(rng());  // damage the preamble and header
    const std::string path = scratch("fuzz.npy");
    spit(path, bytes);
    try {
      saved::readNpy(path);  // a lucky corruption may still be a valid file
    } catch (const WeftError&) {
    }
  }
}
