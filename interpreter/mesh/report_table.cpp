#include "report_table.h"

#include <cstdint>
#include <algorithm>
#include <cstdio>

namespace weft::mesh {

std::vector<size_t> Table::widths() const {
  std::vector<size_t> w(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) w[c] = header_[c].size();
  for (const auto& r : rows_)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  return w;
}

size_t Table::width() const {
  size_t n = 1;
  for (size_t w : widths()) n += w + 2;
  return n - 2;
}

std::string Table::str(char rule, size_t ruleWidth) const {
  std::vector<size_t> w = widths();
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = " ";
    for (size_t c = 0; c < cells.size(); ++c) {
      s += cells[c];
      if (c + 1 < cells.size()) s += std::string(w[c] - cells[c].size() + 2, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header_);
  if (rule) out += std::string(std::max(width(), ruleWidth), rule) + "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}


}  // namespace weft::mesh
