#include "names.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <unordered_set>

#include "grammar/shown_text.h"

namespace weft::codegen {
namespace {

const std::unordered_set<std::string>& reserved() {
  static const std::unordered_set<std::string> names = [] {
    std::unordered_set<std::string> s;
    std::istringstream text(
#include "reserved_names.inc"
        // C++'s keywords and alternative tokens; targets CMake reserves; the generated code's own.
        " alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t"
        " char32_t class compl concept const consteval constexpr constinit const_cast continue co_await"
        " co_return co_yield decltype default delete do double dynamic_cast else enum explicit export"
        " extern false final float for friend goto if import inline int long module mutable namespace new"
        " noexcept not not_eq nullptr operator or or_eq override private protected public register"
        " reinterpret_cast requires return short signed sizeof static static_assert static_cast struct"
        " switch template this thread_local throw true try typedef typeid typename union unsigned using"
        " virtual void volatile wchar_t while xor xor_eq"
        " all clean depend edit_cache help install package package_source preinstall rebuild_cache test"
        " Eigen Shape State std weft weft_runtime_kernels weft_runtime_headers main load save random_key random_counter storage_"
        " kDefaultWeightsDir");
    for (std::string n; text >> n;) s.insert(n);
    return s;
  }();
  return names;
}

}  // namespace

std::string identifier(const std::string& text) {
  std::string s;
  for (char c : text) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  // A name that starts with "__" or "_" and a capital is the compiler's (__LINE__, _Pragma,
  // __x86_64__, __attribute__): its leading underscores go.
  const size_t lead = s.find_first_not_of('_');
  if (lead > 1 || (lead == 1 && std::isupper(static_cast<unsigned char>(s[1])))) s.erase(0, std::min(lead, s.size()));
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  // Identifiers name files too (NAME_main.cpp, weights/IDENT.npy): they stay well inside a file
  // name's 255 bytes, with room for the suffixes and for uniqueIdent's.
  if (s.size() > kMaxIdentifier) s.resize(kMaxIdentifier);
  return s;
}

bool reservedName(const std::string& id) { return reserved().count(id) > 0; }

std::string cppName(const std::string& text) {
  std::string s = identifier(text);
  return reservedName(s) ? s + "_" : s;
}

std::string namespaceName(const std::string& stem) {
  std::string s = identifier(stem);
  if (s[0] == '_') s = "model" + s;
  return reservedName(s) ? s + "_" : s;
}

std::string commentText(const std::string& text) {
  std::string raw;
  for (char c : text) {
    if (c == '\\') raw += '\\';
    raw += c;
  }
  return shownText(raw);
}

std::string literalText(const std::string& text) {
  std::string out;
  for (char c : shownText(text)) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

std::string foldedName(std::string name) {
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string uniqueIdent(const std::string& text, std::set<std::string>& taken) {
  const std::string base = cppName(text);
  std::string id = base;
  for (int k = 1; !taken.insert(foldedName(id)).second; ++k) id = base + "_" + std::to_string(k);
  return id;
}

}  // namespace weft::codegen
