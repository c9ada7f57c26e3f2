// A source file held in memory, and the ranges AST nodes and errors point at.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct SourceFile {
  std::string path;  // as the user named it; "<stdin>", "<repl>" or "<stdlib>/nn.model" otherwise
  std::string text;
  std::vector<uint32_t> lineStarts;  // byte offset of each line's first character

  SourceFile(std::string path, std::string text);
  std::string_view line(uint32_t line) const;  // 1-based, without the newline
};

// Reads a file to parse. Only a regular file of at most maxBytes is read: a device, a FIFO or a
// directory could block or never end (`import "/dev/zero"`). Null with the reason in `error`
// ("no such file", "not a regular file", "file too large (...)") otherwise.
std::shared_ptr<SourceFile> readSourceFile(const std::string& path, size_t maxBytes, std::string& error);

// The files graph functions were traced from, by path (the last one read under a path): a
// graph's check node names its place by path and line, and its error shows that source line.
void keepSource(std::shared_ptr<const SourceFile> file);
std::shared_ptr<const SourceFile> keptSource(const std::string& path);

// 1-based line, 1-based column counted in characters (UTF-8 code points).
struct SourcePos {
  uint32_t line = 0;
  uint32_t col = 0;
};

struct SourceRange {
  std::shared_ptr<const SourceFile> file;
  SourcePos begin;
  SourcePos end;  // inclusive position of the last character; equals begin for a point
  bool valid() const { return file != nullptr && begin.line > 0; }
};

}  // namespace weft
