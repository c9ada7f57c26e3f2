#include "plan.h"

#include <ostream>

#include "../eval/args.h"
#include "../eval/interpreter.h"
#include "../ops/ops.h"
#include "../values/format.h"
#include "../ops/check.h"
#include "report_table.h"

namespace weft::mesh {
namespace {

// `with plan() { ... }`: plan mode inside the block; nesting and errors restore the outer mode.
struct PlanObj : OpaqueObj {
  std::vector<bool> saved;
  std::string typeName() const override { return "plan"; }
  std::string repr() const override { return "plan()"; }
  bool isContext() const override { return true; }
  void enter(Interpreter&) override {
    saved.push_back(ops::shapesOnly());
    ops::setShapesOnly(true);
  }
  void exit(Interpreter&) override {
    if (saved.empty()) return;
    ops::setShapesOnly(saved.back());
    saved.pop_back();
  }
};

std::string where(const SourceRange& at) {
  if (!at.valid()) return "";
  return " (" + at.file->path + ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.col) + ")";
}

}  // namespace

Value planBuiltin() {
  return makeBuiltin("plan", [](Interpreter&, Args& a) {
    ArgReader r(a, "plan", {});
    return Value(std::make_shared<PlanObj>());
  });
}

int runPlan(Interpreter& in, const std::string& path, std::ostream& report) {
  bool was = ops::shapesOnly();
  ops::setShapesOnly(true);
  int status = in.runFile(path);
  ops::setShapesOnly(was);
  if (status == 0) printLayoutReport(in, report);
  return status;
}

void printLayoutReport(Interpreter& in, std::ostream& out) {
  State& st = stateOf(in);
  int64_t total = 0;
  int n = 0;
  for (const auto& s : st.all) {
    const LayoutMapObj& map = *s->map;
    out << "layout_map_scope " << ++n << ": " << (map.name.empty() ? "LayoutMap" : "layout map '" + map.name + "'")
        << " on " << map.mesh->describe() << " ("
        << map.mesh->numDevices() << " devices)\n";
    Table t({"Variable", "Shape", "Key", "Layout", "Shard shape", "Bytes/device"});
    int64_t bytes = 0;
    for (const auto& w : st.placed) {
      auto var = w.lock();
      if (!var || var->placement->scope != s) continue;
      const Placement& p = *var->placement;
      const LayoutObj& l = *p.layout;
      int64_t b = bytesPerDevice(*var);
      bytes = ops::checkedSize("the layout report", rt::sizeAdd(bytes, b), "the bytes per device");
      t.add({p.path, typeNameOf(Value(var->value)), p.key >= 0 ? "'" + map.entries[size_t(p.key)].key + "'" : "-",
             l.replicated() ? "replicated" : l.dimsText(), l.shardShape(var->value.shape()).str(), withCommas(b)});
    }
    if (t.empty()) out << " no variable took its layout from it\n";
    else out << t.str() << " Bytes per device: " << withCommas(bytes) << " (" << humanBytes(bytes) << ")\n";
    total = ops::checkedSize("the layout report", rt::sizeAdd(total, bytes), "the bytes per device");
    s->hits.resize(map.entries.size(), 0);
    for (size_t i = 0; i < map.entries.size(); ++i)
      if (!s->hits[i]) out << " Key '" << map.entries[i].key << "'" << where(map.entries[i].at) << " matched no variable\n";
  }
  if (n > 1) out << "Total bytes per device: " << withCommas(total) << " (" << humanBytes(total) << ")\n";
}

}  // namespace weft::mesh
