#include "path_safety.h"

#include <filesystem>
#include <fstream>

#include "../../grammar/diagnostics.h"

namespace fs = std::filesystem;

namespace weft::saved {

std::string relativeNameProblem(const std::string& rel) {
  if (rel.empty()) return "is empty";
  if (rel.size() > 255) return "is too long";
  if (rel[0] == '/') return "is an absolute path: a saved model names its files relative to its folder";
  for (char c : rel)
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "holds a backslash or a control character";
  size_t start = 0;
  while (start <= rel.size()) {
    size_t end = rel.find('/', start);
    if (end == std::string::npos) end = rel.size();
    std::string part = rel.substr(start, end - start);
    if (part.empty()) return "has an empty component";
    if (part == "." || part == "..") return "leaves the saved model's folder ('" + part + "' component)";
    start = end + 1;
  }
  return "";
}

std::string fileInside(const std::string& dir, const std::string& rel) {
  std::string path = (fs::path(dir) / rel).string();
  std::error_code ec;
  fs::path root = fs::canonical(dir, ec);
  if (ec) throw WeftError("cannot load '" + dir + "': " + ec.message());
  fs::file_status st = fs::symlink_status(path, ec);
  if (ec || !fs::exists(st)) throw WeftError("cannot load '" + path + "': no such file");
  fs::path real = fs::canonical(path, ec);
  if (ec) throw WeftError("cannot load '" + path + "': " + ec.message());
  // Inside: root is a proper prefix of real, component by component.
  auto r = root.begin(), p = real.begin();
  for (; r != root.end(); ++r, ++p)
    if (p == real.end() || *r != *p) throw WeftError("cannot load '" + path + "': it is a symlink to a file outside the saved model's folder");
  if (p == real.end()) throw WeftError("cannot load '" + path + "': it is the saved model's folder itself");
  if (!fs::is_regular_file(real, ec)) throw WeftError("cannot load '" + path + "': not a regular file");
  return path;
}

std::string readSmallFile(const std::string& path, size_t maxBytes) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw WeftError("cannot load '" + path + "': not a regular file");
  uintmax_t size = fs::file_size(path, ec);
  if (ec) throw WeftError("cannot load '" + path + "': " + ec.message());
  if (size > maxBytes)
    throw WeftError("cannot load '" + path + "': " + std::to_string(size) + " bytes, more than the " +
                    std::to_string(maxBytes) + " this file may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw WeftError("cannot load '" + path + "': cannot open it");
  std::string text(size_t(size), '\0');
  in.read(text.data(), std::streamsize(size));
  if (size_t(in.gcount()) != size) throw WeftError("cannot load '" + path + "': read failed");
  return text;
}

}  // namespace weft::saved
