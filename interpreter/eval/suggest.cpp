#include "suggest.h"

#include <algorithm>

namespace weft {
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closestName(const std::string& name, const std::vector<std::string>& candidates) {
  size_t best = std::max<size_t>(1, name.size() / 3) + 1;
  std::optional<std::string> found;
  for (const auto& c : candidates) {
    if (c == name || c.size() > name.size() + best) continue;
    size_t d = editDistance(name, c);
    if (d < best) best = d, found = c;
  }
  return found;
}

}  // namespace weft
