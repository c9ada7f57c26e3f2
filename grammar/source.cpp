#include "source.h"

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

}  // namespace weft
