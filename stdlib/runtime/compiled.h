// What generated code needs besides the kernels: a status for errors, aligned buffers (the
// arena its memory plan lays out, the state's variables) and .npy files for weights and the
// driver's inputs and outputs. docs/compiled_code.md describes the API it is part of.
// These headers use include guards, not #pragma once: generated libraries each carry a copy
// of them, and a program that links two such libraries must see each definition once.
#ifndef WEFT_RT_COMPILED_H
#define WEFT_RT_COMPILED_H
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

#include "npy.h"

namespace weft::rt {

// The result of a generated call: ok, or the reason it did nothing.
class Status {
 public:
  Status() = default;
  static Status error(std::string message) {
    Status s;
    s.message_ = message.empty() ? "error" : std::move(message);
    return s;
  }
  bool ok() const { return message_.empty(); }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

// A 64-byte aligned block of bytes that only grows: after the first call of a size, calls of
// that size or smaller allocate nothing.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { std::free(data_); }
  // Returns null when the memory cannot be had.
  char* reserve(size_t bytes) {
    if (bytes <= size_) return data_;
    size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) return nullptr;
    std::free(data_);
    data_ = static_cast<char*>(p);
    size_ = rounded;
    return data_;
  }
  char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

// NumPy broadcasting of one dimension: equal sizes, or one of them 1.
inline bool broadcastDim(int64_t a, int64_t b, int64_t& out) {
  out = a == 1 ? b : a;
  return a == b || a == 1 || b == 1;
}

// Reads a .npy file whose dtype must be `dtype`, into `buffer` (grown to fit); its shape goes to
// `shape`. Returns "" or what is wrong.
// The element count of a shape, or -1 when a size is negative or the count overflows int64.
inline int64_t checkedNumel(const int64_t* shape, int rank) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    if (shape[d] < 0 || __builtin_mul_overflow(n, shape[d], &n)) return -1;
  return n;
}

// The product of sizes that are each non-negative, or -1 when it overflows int64.
inline int64_t checkedProduct(std::initializer_list<int64_t> sizes) {
  int64_t n = 1;
  for (int64_t d : sizes)
    if (__builtin_mul_overflow(n, d, &n)) return -1;
  return n;
}

inline std::string readNpyFile(const char* path, DType dtype, Buffer& buffer, Shape& shape) {
  // Opened without blocking and checked to be a regular file: a FIFO would wait for a writer.
  const int fd = ::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::string("cannot open '") + path + "': " + std::strerror(errno);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ::fcntl(fd, F_SETFL, 0) != 0) {
    ::close(fd);
    return std::string("cannot open '") + path + "': not a regular file";
  }
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    return std::string("cannot open '") + path + "': " + std::strerror(errno);
  }
  std::string why;
  NpyHeader h;
  if (std::fseek(f, 0, SEEK_END) != 0) why = "cannot determine its size";
  const long size = why.empty() ? std::ftell(f) : -1;
  if (why.empty() && (size < 0 || std::fseek(f, 0, SEEK_SET) != 0)) why = "cannot determine its size";
  auto read = [&](void* dst, int64_t n) { return std::fread(dst, 1, size_t(n), f) == size_t(n); };
  if (why.empty()) why = readNpyHeader(read, size, h);
  if (why.empty() && h.dtype != dtype)
    why = std::string("holds ") + dtypeName(h.dtype) + " data, " + dtypeName(dtype) + " is expected";
  char* p = nullptr;
  if (why.empty() && !(p = buffer.reserve(size_t(h.dataBytes) + 1))) why = "it does not fit in memory";
  if (why.empty() && h.dataBytes > 0 && !read(p, h.dataBytes)) why = "cannot read its data";
  std::fclose(f);
  if (!why.empty()) return std::string("cannot load '") + path + "': " + why;
  if (dtype == DType::Bool)
    for (int64_t i = 0; i < h.dataBytes; ++i) p[i] = p[i] != 0;
  shape = h.shape;
  return "";
}

// A driver's count (--time N, --threads N): true when the whole text is a decimal integer.
inline bool parseCount(const char* text, long& out) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno == ERANGE) return false;
  out = value;
  return true;
}

inline std::string writeNpyFile(const char* path, DType dtype, const Shape& shape, const void* data) {
  std::FILE* f = std::fopen(path, "wb");
  if (!f) return std::string("cannot write '") + path + "': " + std::strerror(errno);
  const std::string header = npyHeader(dtype, shape);
  const size_t bytes = size_t(shape.numel()) * dtypeSize(dtype);
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  ok = std::fclose(f) == 0 && ok;
  return ok ? "" : std::string("cannot write '") + path + "'";
}

}  // namespace weft::rt

#endif  // WEFT_RT_COMPILED_H
