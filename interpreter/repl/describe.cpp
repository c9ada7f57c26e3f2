#include "describe.h"

#include <cmath>
#include <cstdio>

#include "../values/format.h"
#include "../values/objects.h"

namespace weft::repl {
namespace {

// Tensors past this many elements are described by type alone: formatting a large one only to
// cut it would make `:vars` slow.
constexpr int64_t kBriefElements = 64;

std::string oneLine(std::string s, size_t width) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  if (s.size() > width) {
    size_t cut = width;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
    s = s.substr(0, cut) + "...";
  }
  return s;
}

}  // namespace

std::string echoText(const Value& v) {
  if (v.isTensor()) return typeNameOf(v) + " " + formatTensor(v.tensor());
  return toRepr(v);
}

std::string briefText(const Value& v, size_t width) {
  if (v.isTensor()) {
    const Tensor& t = v.tensor();
    if (t.numel() > kBriefElements) return typeNameOf(v);
    return typeNameOf(v) + " " + oneLine(formatTensor(t), width);
  }
  if (v.is(Kind::Variable)) {
    const Tensor& t = v.as<VariableObj>()->value;
    std::string text = "Variable " + typeNameOf(Value(t));
    if (t.numel() <= kBriefElements) text += " " + oneLine(formatTensor(t), width);
    return text;
  }
  std::string type = typeNameOf(v);
  return type + " " + oneLine(toRepr(v), width);
}

std::string formatDuration(double seconds) {
  static const struct {
    double scale;
    const char* unit;
  } units[] = {{1e9, "ns"}, {1e6, "µs"}, {1e3, "ms"}, {1.0, "s"}};
  for (const auto& u : units) {
    double x = seconds * u.scale;
    if (x < 999.5 || u.scale == 1.0) {
      char buf[32];
      int decimals = x < 9.995 ? 2 : x < 99.95 ? 1 : 0;
      if (u.scale == 1e9) decimals = x < 9.995 ? 1 : 0;  // sub-ns digits are noise
      std::snprintf(buf, sizeof buf, "%.*f %s", decimals, x, u.unit);
      return buf;
    }
  }
  return "?";
}

}  // namespace weft::repl
