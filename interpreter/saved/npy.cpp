#include "npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/npy.h"

namespace weft::saved {
namespace {

static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw WeftError("cannot load '" + path + "': " + why);
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
  rt::NpyHeader h;
  auto read = [&](void* dst, int64_t n) { return bool(in.read(static_cast<char*>(dst), n)); };
  if (std::string why = rt::readNpyHeader(read, fileSize, h); !why.empty()) bad(path, why);

  Tensor t;
  try {
    t = Tensor::empty(h.dtype, h.shape);
  } catch (const WeftError& e) {
    bad(path, e.message);
  }
  if (h.dataBytes > 0 && !in.read(static_cast<char*>(t.raw()), h.dataBytes)) bad(path, "cannot read its data");
  if (h.dtype == DType::Bool) {  // any nonzero byte is true; only 0 and 1 are valid bools in C++
    auto* bytes = static_cast<unsigned char*>(t.raw());
    for (int64_t i = 0; i < h.dataBytes; ++i) bytes[i] = bytes[i] != 0;
  }
  return t;
}

void writeNpy(const std::string& path, const Tensor& t) {
  if (t.isAbstract()) throw WeftError("cannot save '" + path + "': the tensor has no data (it is abstract)");
  const std::string pre = rt::npyHeader(t.dtype(), t.shape());

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
  std::string_view parts[] = {pre, {static_cast<const char*>(t.raw()), size_t(t.bytes())}};
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

void makeParentFolders(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).lexically_normal().parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  if (std::filesystem::is_directory(parent, ec)) return;
  std::filesystem::create_directories(parent, ec);
  if (ec || !std::filesystem::is_directory(parent, ec))
    throw WeftError("cannot save '" + path + "': cannot create its parent folder '" + parent.string() + "'" +
                    (ec ? ": " + ec.message() : ""));
}

}  // namespace weft::saved
