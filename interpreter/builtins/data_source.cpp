#include "data_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/shape.h"

namespace weft::data {
namespace {

// deflate's best ratio is 1032:1 (zlib's FAQ, "maximum compression factor"); gzip adds a header.
constexpr int64_t kMaxDeflateRatio = 1032;
constexpr size_t kChunk = 1 << 16;

// Reads fd, retrying interrupted calls; -1 on error.
int64_t readFd(int fd, void* buf, int64_t n) {
  for (;;) {
    ssize_t got = ::read(fd, buf, size_t(n));
    if (got < 0 && errno == EINTR) continue;
    return got;
  }
}

class FileSource final : public ByteSource {
 public:
  FileSource(std::string fn, std::string path, int fd, int64_t size, std::string head)
      : ByteSource(std::move(fn), std::move(path)), fd_(fd), size_(size), head_(std::move(head)) {}
  ~FileSource() override { ::close(fd_); }

  int64_t read(void* buf, int64_t n) override {
    int64_t done = 0;
    auto* out = static_cast<char*>(buf);
    // The bytes open() looked at to detect gzip come first.
    while (done < n && headAt_ < head_.size()) out[done++] = head_[headAt_++];
    while (done < n) {
      int64_t got = readFd(fd_, out + done, n - done);
      if (got < 0) fail(std::string("read failed (") + std::strerror(errno) + ")");
      if (got == 0) break;
      done += got;
    }
    return done;
  }
  int64_t maxBytes() const override { return size_; }
  bool compressed() const override { return false; }

 private:
  int fd_;
  int64_t size_;
  std::string head_;
  size_t headAt_ = 0;
};

class GzipSource final : public ByteSource {
 public:
  GzipSource(std::string fn, std::string path, int fd, int64_t size, std::string head)
      : ByteSource(std::move(fn), std::move(path)), fd_(fd), size_(size), in_(kChunk) {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {  // 16: a gzip wrapper, not zlib's
      ::close(fd_);
      fail("zlib could not start");
    }
    std::memcpy(in_.data(), head.data(), head.size());
    z_.next_in = in_.data();
    z_.avail_in = uInt(head.size());
  }
  ~GzipSource() override {
    inflateEnd(&z_);
    ::close(fd_);
  }

  int64_t read(void* buf, int64_t n) override {
    auto* out = static_cast<unsigned char*>(buf);
    int64_t done = 0;
    while (done < n && !ended_) {
      if (z_.avail_in == 0) fillInput();  // at the end, zlib may still hold output
      const uInt want = uInt(std::min<int64_t>(n - done, std::numeric_limits<uInt>::max() / 2));
      z_.next_out = out + done;
      z_.avail_out = want;
      int rc = inflate(&z_, Z_NO_FLUSH);
      done += int64_t(want - z_.avail_out);
      if (rc == Z_STREAM_END) {
        nextMember();
      } else if (rc == Z_BUF_ERROR) {  // no progress: it needs input
        if (eof_ && z_.avail_in == 0) fail("the gzip data is truncated");
      } else if (rc != Z_OK) {
        fail(std::string("corrupt gzip data (") + (z_.msg ? z_.msg : "zlib error " + std::to_string(rc)) + ")");
      }
    }
    return done;
  }
  int64_t maxBytes() const override {
    return rt::sizeMul(size_, kMaxDeflateRatio).value_or(std::numeric_limits<int64_t>::max());
  }
  bool compressed() const override { return true; }

 private:
  bool fillInput() {
    if (eof_) return false;
    if (in_.size() < kChunk) in_.resize(kChunk);
    int64_t got = readFd(fd_, in_.data(), int64_t(in_.size()));
    if (got < 0) fail(std::string("read failed (") + std::strerror(errno) + ")");
    if (got == 0) {
      eof_ = true;
      return false;
    }
    z_.next_in = in_.data();
    z_.avail_in = uInt(got);
    return true;
  }
  // After a member's end: another member may follow (`cat a.gz b.gz` is a valid gzip file);
  // anything else is an error, not ignored, so that a damaged file is not taken for a short one.
  void nextMember() {
    unsigned char magic[2];
    int have = 0;
    while (have < 2) {
      if (z_.avail_in == 0 && !fillInput()) break;
      magic[have++] = *z_.next_in++;
      --z_.avail_in;
    }
    if (have == 0) {
      ended_ = true;
      return;
    }
    if (have < 2 || magic[0] != 0x1f || magic[1] != 0x8b) fail("unexpected bytes after the gzip data");
    if (inflateReset(&z_) != Z_OK) fail("zlib could not restart");
    // Give the magic back to zlib: put it in front of the remaining input.
    std::vector<unsigned char> rest(z_.next_in, z_.next_in + z_.avail_in);
    in_.assign({0x1f, 0x8b});
    in_.insert(in_.end(), rest.begin(), rest.end());
    z_.next_in = in_.data();
    z_.avail_in = uInt(2 + rest.size());
  }

  int fd_;
  int64_t size_;
  std::vector<unsigned char> in_;
  z_stream z_;
  bool eof_ = false, ended_ = false;
};

}  // namespace

void ByteSource::fail(const std::string& why) const {
  throw WeftError(fn_ + ": cannot load '" + path_ + "': " + why);
}

void ByteSource::readExactly(void* buf, int64_t n, const std::string& what) {
  if (read(buf, n) != n) fail("the file ends inside " + what);
}

void ByteSource::expectEnd(const std::string& what) {
  char buf[256];
  int64_t extra = 0;
  // Count a little past the end only: a long tail is reported without reading all of it.
  for (int64_t got; extra < (1 << 20) && (got = read(buf, sizeof buf)) > 0;) extra += got;
  if (extra > 0)
    fail(std::to_string(extra) + (extra >= (1 << 20) ? " or more" : "") + " unexpected bytes follow " + what);
}

int openRegularFile(const std::string& fn, const std::string& path, int64_t& size) {
  auto fail = [&](const std::string& why) { throw WeftError(fn + ": cannot load '" + path + "': " + why); };
  // Non-blocking, so that opening a FIFO cannot wait for a writer; fstat then refuses it.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    fail(dir ? "it is a directory" : "not a regular file");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  size = int64_t(st.st_size);
  return fd;
}

std::unique_ptr<ByteSource> ByteSource::open(const std::string& fn, const std::string& path) {
  int64_t size = 0;
  int fd = openRegularFile(fn, path, size);
  std::string head(2, '\0');
  int64_t got = readFd(fd, head.data(), 2);
  if (got < 0) {
    ::close(fd);
    throw WeftError(fn + ": cannot load '" + path + "': " + std::strerror(errno));
  }
  head.resize(size_t(got));
  if (head.size() == 2 && head[0] == '\x1f' && head[1] == '\x8b')
    return std::unique_ptr<ByteSource>(new GzipSource(fn, path, fd, size, head));
  return std::unique_ptr<ByteSource>(new FileSource(fn, path, fd, size, head));
}

}  // namespace weft::data
