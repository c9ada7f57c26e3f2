// Emit rules of a stack of rows written at run-time indices. broadcast_rows' row count is an
// input's value, so its bytes come from the heap when it runs (Emitter::heap) rather than the
// arena laid out at the call's start; update_row writes its row in place when its first input
// dies there (a loop value filled row by row), so a loop of n iterations writes n rows, not n
// stacks. Calls of stdlib/runtime's rows.h.
#include "emit_rule.h"
#include "emitter.h"

namespace weft::codegen {
namespace {

using graph::Node;

std::string rowsOf(int v) { return "v" + std::to_string(v) + "_rows"; }  // "v...": no input's name

void broadcastRowsSizes(Emitter& e, const Node& n) {
  std::vector<ops::Dim> dims{ops::Dim::symbol(rowsOf(n.outputs[0]))};
  for (const ops::Dim& d : e.sizesOf(n.inputs[0])) dims.push_back(d);
  e.setSizes(n.outputs[0], dims);
}

void broadcastRowsMemory(Emitter& e, const Node& n) { e.heap(n.outputs[0], rowsOf(n.outputs[0])); }

void broadcastRowsCode(Emitter& e, const Node& n, const std::string& p) {
  const int x = n.inputs[0], out = n.outputs[0];
  const std::string rows = rowsOf(out), heap = e.ptr(out) + "_heap";
  e.code() << p << rows << " = int64_t(" << e.ptr(n.inputs[1]) << "[0]);\n"
           << p << "if (std::string why = weft::rt::rowCountError(" << rows << ", " << e.bytes(x) << "); !why.empty()) "
           << e.fail(n, "\"broadcast_rows: \" + why") << "\n"
           << p << heap << ".resize(size_t(" << rows << ") * " << e.bytes(x) << " + 1);\n"
           << p << e.ptr(out) << " = reinterpret_cast<" << e.T(out) << "*>(" << heap << ".data());\n"
           << p << "weft::rt::fillRows(" << e.ptr(out) << ", " << e.ptr(x) << ", " << e.bytes(x) << ", " << rows << ");\n";
}

// In place when the stack dies here and is a loop's own value or bytes this call computed.
void updateRowMemory(Emitter& e, const Node& n) {
  const int x = n.inputs[0];
  if (e.uses(x) == 1 && (e.loopValue(x) || e.owns(x) || e.onHeap(x))) e.alias(n.outputs[0], x);
  else e.own(n.outputs[0]);
}

void updateRowCode(Emitter& e, const Node& n, const std::string& p) {
  const int x = n.inputs[0], row = n.inputs[1], out = n.outputs[0];
  if (!e.aliased(out) && e.onHeap(x))
    e.unsupported(n, "it writes a stack of rows that other nodes read too (a copy of a size known only at run time)");
  const std::string rows = e.dims(x)[0];
  e.code() << p << "if (std::string why = weft::rt::rowIndexError(int64_t(" << e.ptr(n.inputs[2]) << "[0]), " << rows
           << "); !why.empty()) " << e.fail(n, "\"update_row: \" + why") << "\n"
           << p << "copy(" << e.ptr(out) << ", " << e.ptr(x) << ", " << e.bytes(out) << ");\n"
           << p << "copy(" << e.ptr(out) << " + int64_t(" << e.ptr(n.inputs[2]) << "[0]) * " << e.numel(row) << ", "
           << e.ptr(row) << ", " << e.bytes(row) << ");\n";
}

}  // namespace

const ops::EmitRule kBroadcastRowsRule{"rows.h", broadcastRowsSizes, broadcastRowsMemory, broadcastRowsCode};
const ops::EmitRule kUpdateRowRule{"rows.h", nullptr, updateRowMemory, updateRowCode};

void registerRowsEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::BroadcastRows}, &kBroadcastRowsRule);
  ops::setEmit({OpId::UpdateRow}, &kUpdateRowRule);
}

}  // namespace weft::codegen
