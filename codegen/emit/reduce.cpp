// Emit rules of the reductions (sum, mean, max, ..., over axes), argmax/argmin and kth_largest:
// calls of stdlib/runtime's reduce.h, arg_reduce.h and kth_largest.h.
#include "emit_rule.h"
#include "emitter.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

// Which axes a node reduces: argmax's one axis, or a reduction's axes (none given: all).
std::vector<bool> reducedAxes(const Node& n, int rank) {
  std::vector<bool> red(size_t(rank), false);
  if (ops::opDef(n.op).family == ops::Family::ArgReduce) {
    red[size_t(axisAttr(n, "axis", rank))] = true;
    return red;
  }
  const auto& axes = n.attrs.ints("axes");
  if (axes.empty()) red.assign(size_t(rank), true);
  for (int64_t a : axes) red[size_t(a < 0 ? a + rank : a)] = true;
  return red;
}

// A mean of integers or bools runs in f64 (reduce.h's intMeanKernel), as eager code does.
bool isIntMean(Emitter& e, const Node& n) { return n.op == OpId::ReduceMean && !rt::isFloat(e.type(n.inputs[0]).dtype); }

// The scratch of reduceKernel and the cast before it (the op table's workspace column).
void reduceMemory(Emitter& e, const Node& n) {
  e.ownResults(n);
  if (isIntMean(e, n)) {
    e.workspace("weft::rt::intMeanWorkspaceElements(" + e.numel(n.inputs[0]) + ") * sizeof(double)");
    return;
  }
  e.workspace("weft::rt::reduceWorkspaceBytes(" + e.numel(n.inputs[0]) + ", " +
              std::to_string(rt::dtypeSize(e.type(n.outputs[0]).dtype)) + ")");
}

void reduceCode(Emitter& e, const Node& n, const std::string& p) {
  std::ostream& code = e.code();
  e.need("unary.h");  // castKernel
  const int out = n.outputs[0], x = n.inputs[0];
  const Dims& d = e.dims(x);
  std::vector<bool> red = reducedAxes(n, int(d.size()));
  Dims count;
  for (size_t a = 0; a < d.size(); ++a)
    if (red[a]) count.push_back(d[a]);
  if (n.op == OpId::ReduceMean && ops::meanShards(n.attrs) != 1) count.push_back(std::to_string(ops::meanShards(n.attrs)));
  std::string src = e.ptr(x);
  const std::string T = e.T(out);
  auto reducedArray = [&] {
    code << p << "  const bool reduced[] = {";
    for (size_t a = 0; a < d.size(); ++a) code << (a ? ", " : "") << (red[a] ? "true" : "false");
    if (d.empty()) code << "false";
    code << "};\n";
  };
  if (isIntMean(e, n)) {
    code << p << "{\n";
    reducedArray();
    code << p << "  if (" << e.numel(out) << " > 0) weft::rt::intMeanKernel(" << src << ", " << shapeList(d)
         << ", reduced, " << e.ptr(out) << ", " << e.numel(out) << ", " << product(count)
         << ", static_cast<double*>(ws));\n"
         << p << "}\n";
    return;
  }
  code << p << "{\n"
       << p << "  " << T << "* scratch = reinterpret_cast<" << T << "*>(static_cast<char*>(ws) + "
       << "weft::rt::reduceCastBytes(" << e.numel(x) << ", sizeof(" << T << ")));\n";
  if (e.type(out).dtype != e.type(x).dtype) {  // sum of bools: cast first, as eager code does
    code << p << "  " << T << "* cast = reinterpret_cast<" << T << "*>(ws);\n"
         << p << "  weft::rt::castKernel(" << src << ", cast, " << e.numel(x) << ");\n";
    src = "cast";
  }
  if (n.op == OpId::ReduceMax || n.op == OpId::ReduceMin)
    code << p << "  if (" << product(count) << " == 0 && " << e.numel(out) << " > 0) "
         << e.fail(n, cppString(std::string(ops::opName(n.op)) + " of an empty tensor")) << "\n";
  reducedArray();
  code << p << "  weft::rt::reduceKernel<weft::rt::" << functorOf(n.op) << ">(" << src << ", " << shapeList(d)
       << ", reduced, " << e.ptr(out) << ", scratch);\n";
  if (n.op == OpId::ReduceMean)
    code << p << "  weft::rt::meanFromSum(" << e.ptr(out) << ", " << e.numel(out) << ", " << product(count) << ");\n";
  code << p << "}\n";
}

void argReduceCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& d = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(d.size())));
  const std::string O = product(slice(d, 0, axis)), R = d[axis], I = product(slice(d, axis + 1, d.size()));
  e.code() << p << "if (" << R << " == 0 && " << O << " * " << I << " > 0) "
           << e.fail(n, cppString(std::string(ops::opName(n.op)) + " of an empty axis")) << "\n"
           << p << "if (" << O << " * " << I << " > 0) weft::rt::argReduceKernel<"
           << (n.op == OpId::ArgMax ? "true" : "false") << ">(" << e.ptr(n.inputs[0]) << ", " << e.ptr(n.outputs[0])
           << ", " << O << ", " << R << ", " << I << ");\n";
}

// k was checked against a known last axis when the graph was traced; an open one is checked here.
void kthLargestCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& d = e.dims(n.inputs[0]);
  const std::string N = d.back(), k = std::to_string(n.attrs.i("k"));
  e.code() << p << "if (" << k << " > " << N << ") "
           << e.fail(n, cppString("kth_largest: k " + k + " is larger than the last axis")) << "\n"
           << p << "if (" << e.numel(n.outputs[0]) << " > 0) weft::rt::kthLargestKernel(" << e.ptr(n.inputs[0]) << ", "
           << e.ptr(n.outputs[0]) << ", " << e.numel(n.outputs[0]) << ", " << N << ", int64_t(" << k << "), static_cast<"
           << e.T(n.outputs[0]) << "*>(ws));\n";
}

// The selection's copy of a row, in the workspace.
void kthLargestMemory(Emitter& e, const Node& n) {
  e.ownResults(n);
  e.workspace("size_t(" + e.dims(n.inputs[0]).back() + ") * " + std::to_string(rt::dtypeSize(e.type(n.outputs[0]).dtype)));
}

}  // namespace

const ops::EmitRule kReduceRule{"reduce.h", nullptr, reduceMemory, reduceCode};
const ops::EmitRule kArgReduceRule{"arg_reduce.h", nullptr, nullptr, argReduceCode};
const ops::EmitRule kKthLargestRule{"kth_largest.h", nullptr, kthLargestMemory, kthLargestCode};

void registerReduceEmitRules() {
  using ops::OpId;
#define WEFT_REDUCE_EMIT(F, Id, ...) ops::setEmit({OpId::F##Id}, &kReduceRule);
  WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_EMIT)
#undef WEFT_REDUCE_EMIT
  ops::setEmit({OpId::ArgMax, OpId::ArgMin}, &kArgReduceRule);
  ops::setEmit({OpId::KthLargest}, &kKthLargestRule);
}

}  // namespace weft::codegen
