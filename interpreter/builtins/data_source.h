// Bytes from a data file, read in bounded pieces: a regular file as it is, or a gzip file
// (detected by its magic bytes, not its name) inflated through zlib. Every error is a WeftError
// "FN: cannot load 'PATH': WHY"; nothing is read past what the caller asks for, and no size is
// taken from the file without a bound (docs/data.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace weft::data {

class ByteSource {
 public:
  // Opens `path` (a regular file only: a FIFO or a device could block or never end). `fn` names
  // the builtin in messages.
  static std::unique_ptr<ByteSource> open(const std::string& fn, const std::string& path);
  virtual ~ByteSource() = default;

  // Reads up to n bytes into buf; returns how many (0 only at the end of the data).
  virtual int64_t read(void* buf, int64_t n) = 0;
  // Reads exactly n bytes or fails with "the file ends inside WHAT".
  void readExactly(void* buf, int64_t n, const std::string& what);
  // Fails unless the data ends here ("N unexpected bytes after WHAT").
  void expectEnd(const std::string& what);
  // An upper bound on the bytes the data can hold: the file's size, or for gzip the most that
  // deflate can expand it to (1032 to 1).
  virtual int64_t maxBytes() const = 0;
  virtual bool compressed() const = 0;

  [[noreturn]] void fail(const std::string& why) const;
  const std::string& path() const { return path_; }

 protected:
  ByteSource(std::string fn, std::string path) : fn_(std::move(fn)), path_(std::move(path)) {}
  std::string fn_, path_;
};

// Reads a regular file that must exist; `fn` names the builtin in messages. Throws WeftError.
// Returns the open descriptor and the file's size.
int openRegularFile(const std::string& fn, const std::string& path, int64_t& size);

}  // namespace weft::data
