#include "source.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

namespace weft {

SourceFile::SourceFile(std::string p, std::string t) : path(std::move(p)), text(std::move(t)) {
  lineStarts.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') lineStarts.push_back(i + 1);
}

std::string_view SourceFile::line(uint32_t line) const {
  if (line == 0 || line > lineStarts.size()) return {};
  uint32_t b = lineStarts[line - 1];
  uint32_t e = line < lineStarts.size() ? lineStarts[line] - 1 : text.size();
  if (e > b && text[e - 1] == '\r') --e;
  return std::string_view(text).substr(b, e - b);
}

namespace {
std::mutex keptMutex;
std::map<std::string, std::shared_ptr<const SourceFile>>& kept() {
  static std::map<std::string, std::shared_ptr<const SourceFile>> files;
  return files;
}
}  // namespace

void keepSource(std::shared_ptr<const SourceFile> file) {
  std::lock_guard<std::mutex> lock(keptMutex);
  kept()[file->path] = std::move(file);
}

std::shared_ptr<const SourceFile> keptSource(const std::string& path) {
  std::lock_guard<std::mutex> lock(keptMutex);
  auto it = kept().find(path);
  return it == kept().end() ? nullptr : it->second;
}

std::shared_ptr<SourceFile> readSourceFile(const std::string& path, size_t maxBytes, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return error = "no such file", nullptr;
  if (!fs::is_regular_file(status)) return error = "not a regular file", nullptr;
  if (auto size = fs::file_size(path, ec); !ec && size > maxBytes)
    return error = "file too large (" + std::to_string(size) + " bytes; the limit is " + std::to_string(maxBytes) + ")",
           nullptr;
  std::ifstream in(path, std::ios::binary);
  if (!in) return error = "cannot open it", nullptr;
  std::string text;
  char buf[1 << 16];
  while (text.size() <= maxBytes && in) {  // bounded even if the file grows while being read
    in.read(buf, sizeof buf);
    text.append(buf, size_t(in.gcount()));
  }
  if (in.bad()) return error = "read error", nullptr;
  if (text.size() > maxBytes) return error = "file too large (more than " + std::to_string(maxBytes) + " bytes)", nullptr;
  return std::make_shared<SourceFile>(path, std::move(text));
}

}  // namespace weft
