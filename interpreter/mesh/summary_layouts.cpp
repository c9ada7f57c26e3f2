#include "summary_layouts.h"

#include "../ops/check.h"
#include "report_table.h"
#include "scope.h"

namespace weft::mesh {
namespace {

std::string tupleText(const Shape& s) {
  std::string t = "(";
  for (int i = 0; i < s.rank(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.rank() == 1 ? ",)" : ")");
}

}  // namespace

std::string layoutSummary(Interpreter& in, const std::vector<Value>& variables) {
  bool sharded = false;
  for (const Value& v : variables) {
    auto* var = v.as<VariableObj>();
    resolve(in, *var);  // first need: paths are final by the time a summary is asked for
    if (const LayoutObj* l = layoutOf(*var); l && !l->replicated()) sharded = true;
  }
  if (!sharded) return "";
  Table t({"Variable", "Layout", "Shard shape", "Bytes/device"});
  int64_t total = 0;
  std::string meshText;
  for (const Value& v : variables) {
    auto* var = v.as<VariableObj>();
    const LayoutObj* l = layoutOf(*var);
    int64_t bytes = bytesPerDevice(*var);
    total = ops::checkedSize("summary", rt::sizeAdd(total, bytes), "the bytes per device");
    // A variable outside every layout_map_scope is whole on each device that uses it.
    std::string layout = !l ? "-" : l->replicated() ? "replicated" : l->dimsText();
    if (l && meshText.empty()) meshText = l->mesh->repr();
    t.add({var->path(), layout, tupleText(l ? l->shardShape(var->value.shape()) : var->value.shape()),
           withCommas(bytes)});
  }
  size_t width = std::max<size_t>(65, t.width());
  std::string out = t.str('=', width);
  out += std::string(width, '=') + "\n";
  out += "Mesh: " + meshText + "\n";
  out += "Total bytes per device: " + withCommas(total) + " (" + humanBytes(total) + ")\n";
  out += std::string(width, '_') + "\n";
  return out;
}

}  // namespace weft::mesh
