#include "suggest.h"

#include <algorithm>
#include <map>

namespace weft {
size_t editDistance(const std::string& a, const std::string& b) {
  // Three rows of the table: two letters swapped ("modle") are one edit, as typing makes them.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    before.swap(prev);
    prev.swap(row);
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
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
    if (d < best && d < name.size()) best = d, found = c;  // not a name with no letter in common
  }
  return found;
}

}  // namespace weft

namespace weft {

const char* const kDTypeList = "f32, f64, i32, i64 and bool (or float32, float64, int32, int64)";

std::string unexpectedKeywordMessage(const std::string& fn, const std::string& key, const std::vector<std::string>& params) {
  std::string msg = fn + "() got an unexpected keyword argument '" + key + "'";
  if (auto s = closestName(key, params)) msg += "; did you mean '" + *s + "'?";
  return msg;
}

std::string noMemberMessage(const std::string& owner, const std::string& member, const std::vector<std::string>& members) {
  std::string msg = "'" + owner + "' has no member '" + member + "'";
  if (auto s = closestName(member, members)) msg += "; did you mean '" + *s + "'?";
  return msg;
}

std::optional<std::string> libraryOfPrefix(const std::string& name) {
  static const std::map<std::string, std::string> kLibraries = {
      {"tf", "TensorFlow's"}, {"tensorflow", "TensorFlow's"}, {"keras", "Keras'"}, {"np", "NumPy's"}, {"numpy", "NumPy's"}};
  auto it = kLibraries.find(name);
  if (it == kLibraries.end()) return std::nullopt;
  return it->second;
}

std::string libraryPrefixMessage(const std::string& prefix, const std::string& member, bool known,
                                 const std::vector<std::string>& candidates) {
  std::string msg = "name '" + prefix + "' is not defined: Weft's builtins are " + *libraryOfPrefix(prefix) +
                    " names without '" + prefix + ".'";
  if (known) return msg + "; write " + member;
  if (auto s = closestName(member, candidates)) return msg + "; did you mean '" + *s + "'?";
  return msg + ", and '" + member + "' is not one";
}

std::string noModuleMessage(const std::string& spec, const std::string& file) {
  std::string msg = "cannot import '" + spec + "': no stdlib module of that name and no file " + file;
  std::string root = spec.substr(0, spec.find('.'));
  if (auto lib = libraryOfPrefix(root)) msg += "; " + *lib + " names need no import: they are Weft's builtins";
  return msg;
}

std::string undefinedNameMessage(const std::string& name, const std::vector<std::string>& candidates) {
  static const char* const kOtherDTypes[] = {"float16", "half", "bfloat16", "float8", "int8", "int16", "uint8",
                                             "uint16", "uint32", "uint64", "complex64", "complex128",
                                             "f16", "bf16", "i8", "i16", "u8", "u16", "u32", "u64"};
  std::string msg = "name '" + name + "' is not defined";
  if (name == "double") return msg + "; did you mean f64 (or float64)?";
  for (const char* d : kOtherDTypes)
    if (name == d) return msg + "; Weft's dtypes are " + kDTypeList;
  if (name == "mnist")  // Keras' other day-one dataset
    return msg + "; Debian packages Fashion-MNIST, not the digits: fashion_mnist(), or load_idx on the digits' files (docs/data.md)";
  if (auto s = closestName(name, candidates)) msg += "; did you mean '" + *s + "'?";
  return msg;
}

}  // namespace weft
