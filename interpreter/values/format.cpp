#include "format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/format.h"
#include "env.h"
#include "objects.h"

namespace weft {
namespace {

std::string hexEscape(char c) {
  const char* digits = "0123456789abcdef";
  return {'\\', 'x', digits[static_cast<unsigned char>(c) >> 4], digits[c & 15]};
}

std::string quote(const std::string& s) {
  // Python picks single quotes unless the text has one and no double quote.
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == q) out += std::string("\\") + q;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += hexEscape(c);  // never a raw escape sequence
    else out += c;
  }
  return out + q;
}

// The containers being printed, outermost first. A container that holds itself prints as [...]
// (as in Python) instead of recursing until the stack overflows; so does one nested deeper than
// the limit (a loop can build `x = [x]` millions deep).
// Items are counted too: `x = [x, x]` thirty times shares memory but prints 2^30 items.
thread_local std::vector<const Object*> tPrinting;
thread_local int64_t tItemsPrinted = 0;
constexpr size_t kMaxPrintDepth = 1000;
constexpr int64_t kMaxPrintItems = 1'000'000;

struct Printing {
  bool again;
  explicit Printing(const Object* o)
      : again(tPrinting.size() >= kMaxPrintDepth || std::find(tPrinting.begin(), tPrinting.end(), o) != tPrinting.end()) {
    if (tPrinting.empty()) tItemsPrinted = 0;
    tPrinting.push_back(o);
  }
  ~Printing() { tPrinting.pop_back(); }
};

void countItem() {
  if (++tItemsPrinted > kMaxPrintItems)
    throw WeftError("the value is too large to print (more than " + std::to_string(kMaxPrintItems) + " items)");
}

std::string joinItems(const std::vector<Value>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    countItem();
    if (i) out += ", ";
    out += toRepr(items[i]);
  }
  return out;
}

}  // namespace

std::string formatFloat(double v, DType dtype) { return rt::formatFloat(v, dtype); }

std::string formatTensor(const Tensor& t) {
  requireLiveTrace(t);
  if (t.isAbstract()) return "<" + std::string(rt::dtypeName(t.dtype())) + t.shape().str() + ">";
  return rt::formatTensor(t.raw(), t.dtype(), t.shape());
}

std::string toStr(const Value& v) {
  if (v.is(Kind::Str)) return v.as<StrObj>()->text;
  // Printing a variable prints its current value (reading it in an expression reads its value).
  if (v.is(Kind::Variable)) return formatTensor(v.as<VariableObj>()->value);
  return toRepr(v);
}

std::string toRepr(const Value& v) {
  switch (v.kind()) {
    case Kind::None: return "none";
    case Kind::Tensor: return formatTensor(v.tensor());
    case Kind::Str: return quote(v.as<StrObj>()->text);
    case Kind::List: {
      Printing p(v.object());
      return p.again ? "[...]" : "[" + joinItems(v.as<ListObj>()->items) + "]";
    }
    case Kind::Tuple: {
      Printing p(v.object());
      const auto& items = v.as<TupleObj>()->items;
      return p.again ? "(...)" : "(" + joinItems(items) + (items.size() == 1 ? ",)" : ")");
    }
    case Kind::Dict: {
      Printing p(v.object());
      if (p.again) return "{...}";
      std::string out = "{";
      bool first = true;
      for (const auto& [k, val] : v.as<DictObj>()->entries) {
        if (!first) out += ", ";
        first = false;
        countItem();
        out += toRepr(k) + ": " + toRepr(val);
      }
      return out + "}";
    }
    case Kind::Set: {  // as Python: `{1, 2}`, and `set()` when empty (`{}` is a dict)
      const auto& entries = v.as<SetObj>()->entries;
      if (entries.empty()) return "set()";
      std::string out = "{";
      for (size_t i = 0; i < entries.size(); ++i) {
        countItem();
        out += (i ? ", " : "") + toRepr(entries[i].first);
      }
      return out + "}";
    }
    case Kind::Function: return "<fn " + v.as<FunctionObj>()->name + ">";
    case Kind::Builtin: return "<builtin " + v.as<BuiltinObj>()->name + ">";
    case Kind::ModuleType: return "<module type " + v.as<ModuleTypeObj>()->name + ">";
    case Kind::Module: {
      auto* m = v.as<ModuleObj>();
      return "<" + m->typeName + " '" + m->name + "'>";
    }
    case Kind::Variable: {
      auto* var = v.as<VariableObj>();
      std::string out = "<Variable '" + var->name + "' path=" + var->path() + " shape=" +
                        var->value.shape().str() + " dtype=" + rt::dtypeName(var->value.dtype());
      if (!var->trainable) out += " trainable=false";
      if (var->placement && placementHook()) out += placementHook()->layoutRepr(*var);  // from a layout map
      // The value, as tf.Variable's repr shows it (`numpy=`), summarized past 1000 elements as NumPy does.
      if (!var->value.isAbstract()) out += " numpy=" + formatTensor(var->value);
      return out + ">";
    }
    case Kind::Namespace: return "<namespace " + v.as<NamespaceObj>()->name + ">";
    case Kind::DType: return rt::dtypeName(v.dtypeValue());
    case Kind::Opaque: return v.as<OpaqueObj>()->repr();
  }
  return "?";
}

std::string typeNameOf(const Value& v) {
  switch (v.kind()) {
    case Kind::Tensor: return std::string(rt::dtypeName(v.tensor().dtype())) + v.tensor().shape().str();
    case Kind::Module: return v.as<ModuleObj>()->typeName;
    case Kind::Opaque: return v.as<OpaqueObj>()->typeName();
    case Kind::Function:
    case Kind::Builtin: return "function";
    default: return kindName(v.kind());
  }
}

std::string aTypeName(const Value& v) {
  std::string name = typeNameOf(v);
  // f32 and f64 are read "ef": "an f32[]", as "an i32[]" and "an Embedding".
  bool vowel = !name.empty() && (std::string("aeiouAEIOU").find(name[0]) != std::string::npos ||
                                 (name[0] == 'f' && name.size() > 1 && std::isdigit(static_cast<unsigned char>(name[1]))));
  return (vowel ? "an " : "a ") + name;
}

std::string withCommas(int64_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > (n < 0 ? 1 : 0); i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::string humanBytes(int64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(b);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[64];
  snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace weft
