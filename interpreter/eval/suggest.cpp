#include "suggest.h"

#include <algorithm>
#include <map>

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

namespace weft {

const char* const kDTypeList = "f32, f64, i32, i64 and bool (or \"float32\", \"float64\", \"int32\", \"int64\", \"bool\")";

std::string undefinedNameMessage(const std::string& name, const std::vector<std::string>& candidates) {
  static const std::map<std::string, std::string> kKerasDTypes = {
      {"float32", "f32"}, {"float64", "f64"}, {"double", "f64"}, {"int32", "i32"}, {"int64", "i64"}};
  static const char* const kOtherDTypes[] = {"float16", "half", "bfloat16", "float8", "int8", "int16", "uint8",
                                             "uint16", "uint32", "uint64", "complex64", "complex128",
                                             "f16", "bf16", "i8", "i16", "u8", "u16", "u32", "u64"};
  std::string msg = "name '" + name + "' is not defined";
  if (auto it = kKerasDTypes.find(name); it != kKerasDTypes.end())
    return msg + "; did you mean " + it->second + " (or the string \"" + name + "\")?";
  for (const char* d : kOtherDTypes)
    if (name == d) return msg + "; Weft's dtypes are " + kDTypeList;
  if (auto s = closestName(name, candidates)) msg += "; did you mean '" + *s + "'?";
  return msg;
}

}  // namespace weft
