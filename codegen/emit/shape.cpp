// Emit rules of the ops that move elements without computing: reshape, expand_dims and squeeze
// (views of their input's bytes), transpose, broadcast_to, concat, stack, split and shape —
// calls of stdlib/runtime's copy.h and layout_ops.h.
#include "emit_rule.h"
#include "emitter.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::OpId;

// --- views ---

void viewMemory(Emitter& e, const Node& n) { e.alias(n.outputs[0], n.inputs[0]); }
void noCode(Emitter&, const Node&, const std::string&) {}

// --- transpose, broadcast_to ---

// A transpose's permutation; none given reverses the axes, as NumPy's.
std::vector<int> permOf(const Node& n, int rank) {
  const auto& given = n.attrs.ints("perm");
  std::vector<int> perm;
  for (int a = 0; a < rank; ++a)
    perm.push_back(given.empty() ? rank - 1 - a : int(given[size_t(a)] < 0 ? given[size_t(a)] + rank : given[size_t(a)]));
  return perm;
}

void transposeCode(Emitter& e, const Node& n, const std::string& p) {
  std::vector<int> perm = permOf(n, e.type(n.inputs[0]).shape.rank());
  e.code() << p << "{\n" << p << "  const int perm[] = {";
  for (size_t a = 0; a < perm.size(); ++a) e.code() << (a ? ", " : "") << perm[a];
  if (perm.empty()) e.code() << "0";
  e.code() << "};\n" << p << "  weft::rt::permuteKernel(" << e.ptr(n.inputs[0]) << ", " << e.shape(n.inputs[0]) << ", perm, "
           << e.ptr(n.outputs[0]) << ");\n" << p << "}\n";
}

void broadcastToCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::broadcastToKernel(" << e.ptr(n.inputs[0]) << ", " << e.shape(n.inputs[0]) << ", "
           << e.ptr(n.outputs[0]) << ", " << e.shape(n.outputs[0]) << ");\n";
}

// --- concat, stack, split: chunks per outer index ---

void chunksCode(Emitter& e, const Node& n, const std::string& p, const std::string& outer, const std::vector<std::string>& chunks) {
  const int out = n.outputs[0];
  e.code() << p << "{\n" << p << "  const " << e.T(out) << "* parts[] = {";
  for (size_t i = 0; i < n.inputs.size(); ++i) e.code() << (i ? ", " : "") << e.ptr(n.inputs[i]);
  e.code() << "};\n" << p << "  const int64_t chunks[] = {";
  for (size_t i = 0; i < chunks.size(); ++i) e.code() << (i ? ", " : "") << chunks[i];
  e.code() << "};\n" << p << "  weft::rt::concatKernel(parts, chunks, " << n.inputs.size() << ", " << outer << ", "
           << e.ptr(out) << ");\n" << p << "}\n";
}

void concatCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& od = e.dims(n.outputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(od.size())));
  std::vector<std::string> chunks;
  for (int i : n.inputs) chunks.push_back(product(slice(e.dims(i), axis, e.dims(i).size())));
  chunksCode(e, n, p, product(slice(od, 0, axis)), chunks);
}

// Each input is one chunk per outer index: concat's kernel.
void stackCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& d = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(d.size()) + 1));
  chunksCode(e, n, p, product(slice(d, 0, axis)),
             std::vector<std::string>(n.inputs.size(), product(slice(d, axis, d.size()))));
}

void splitCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& d = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(d.size())));
  const std::string outer = product(slice(d, 0, axis)), inner = product(slice(d, axis + 1, d.size()));
  int64_t offset = 0;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const int64_t size = n.attrs.ints("sizes")[k];
    e.code() << p << "weft::rt::splitKernel(" << e.ptr(n.inputs[0]) << ", " << outer << ", " << d[axis] << " * " << inner
             << ", " << offset << " * " << inner << ", " << size << " * " << inner << ", " << e.ptr(n.outputs[k]) << ");\n";
    offset += size;
  }
}

// --- shape: the input's sizes as an i64 tensor ---

void shapeOfCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& d = e.dims(n.inputs[0]);
  const std::vector<int64_t> blocks = n.attrs.has("blocks") ? n.attrs.ints("blocks") : std::vector<int64_t>{};
  for (size_t a = 0; a < d.size(); ++a)
    e.code() << p << e.ptr(n.outputs[0]) << "[" << a << "] = " << d[a]
             << (a >= blocks.size() || blocks[a] == 1 ? "" : " * " + std::to_string(blocks[a])) << ";\n";
}

}  // namespace

const ops::EmitRule kReshapeRule{"", nullptr, viewMemory, noCode};
const ops::EmitRule kExpandDimsRule{"", nullptr, viewMemory, noCode};
const ops::EmitRule kSqueezeRule{"", nullptr, viewMemory, noCode};
const ops::EmitRule kRelayoutRule{"", nullptr, viewMemory, noCode};  // one device: the value itself
const ops::EmitRule kTransposeRule{"copy.h", nullptr, nullptr, transposeCode};
const ops::EmitRule kBroadcastToRule{"copy.h", nullptr, nullptr, broadcastToCode};
const ops::EmitRule kConcatRule{"layout_ops.h", nullptr, nullptr, concatCode};
const ops::EmitRule kStackRule{"layout_ops.h", nullptr, nullptr, stackCode};
const ops::EmitRule kSplitRule{"layout_ops.h", nullptr, nullptr, splitCode};
const ops::EmitRule kShapeOfRule{"", nullptr, nullptr, shapeOfCode};

void registerShapeEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::Reshape}, &kReshapeRule);
  ops::setEmit({OpId::Squeeze}, &kSqueezeRule);
  ops::setEmit({OpId::ExpandDims}, &kExpandDimsRule);
  ops::setEmit({OpId::Transpose}, &kTransposeRule);
  ops::setEmit({OpId::BroadcastTo}, &kBroadcastToRule);
  ops::setEmit({OpId::Concat}, &kConcatRule);
  ops::setEmit({OpId::Stack}, &kStackRule);
  ops::setEmit({OpId::Split}, &kSplitRule);
  ops::setEmit({OpId::ShapeOf}, &kShapeOfRule);
  ops::setEmit({OpId::Relayout}, &kRelayoutRule);
}

}  // namespace weft::codegen
