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

void reshapeSizes(Emitter& e, const Node& n) {
  const int out = n.outputs[0], x = n.inputs[0];
  const auto& target = n.attrs.ints("shape");
  Dims known;
  for (int64_t t : target)
    if (t != -1) known.push_back(std::to_string(t));
  Dims r;
  for (size_t a = 0; a < target.size(); ++a) {
    if (target[a] != -1) {
      r.push_back(std::to_string(target[a]));
      continue;
    }
    const std::string k = product(known);
    r.push_back(e.dim(out, int(a), k == "0" ? "0" : "(" + e.numel(x) + ") / " + k));
  }
  e.setDims(out, r);
  e.check(n, product(r) + " == " + e.numel(x),
          "\"reshape: \" + std::to_string(" + e.numel(x) + ") + \" elements do not fit the new shape\"");
}

void expandDimsSizes(Emitter& e, const Node& n) {
  Dims r = e.dims(n.inputs[0]);
  r.insert(r.begin() + axisAttr(n, "axis", int(r.size()) + 1), "1");
  e.setDims(n.outputs[0], r);
}

// The graph's type says which dimensions remain; the others must be 1.
void squeezeSizes(Emitter& e, const Node& n) {
  const Dims& d = e.dims(n.inputs[0]);
  const auto& axes = n.attrs.ints("axes");
  Dims r;
  for (size_t a = 0; a < d.size(); ++a) {
    bool drop = axes.empty() && d[a] == "1";
    for (int64_t x : axes) drop = drop || (x < 0 ? x + int64_t(d.size()) : x) == int64_t(a);
    if (!drop) r.push_back(d[a]);
    else if (d[a] != "1") e.check(n, d[a] + " == 1", "\"squeeze: a squeezed dimension is not 1\"");
  }
  if (int(r.size()) != e.type(n.outputs[0]).shape.rank()) e.unsupported(n, "which dimensions it drops is known only at run time");
  e.setDims(n.outputs[0], r);
}

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

void transposeSizes(Emitter& e, const Node& n) {
  const Dims& d = e.dims(n.inputs[0]);
  std::vector<int> perm = permOf(n, int(d.size()));
  Dims r;
  for (size_t a = 0; a < perm.size(); ++a) r.push_back(e.dim(n.outputs[0], int(a), d[size_t(perm[a])]));
  e.setDims(n.outputs[0], r);
}

void transposeCode(Emitter& e, const Node& n, const std::string& p) {
  std::vector<int> perm = permOf(n, e.type(n.inputs[0]).shape.rank());
  e.code() << p << "{\n" << p << "  const int perm[] = {";
  for (size_t a = 0; a < perm.size(); ++a) e.code() << (a ? ", " : "") << perm[a];
  if (perm.empty()) e.code() << "0";
  e.code() << "};\n" << p << "  weft::rt::permuteKernel(" << e.ptr(n.inputs[0]) << ", " << e.shape(n.inputs[0]) << ", perm, "
           << e.ptr(n.outputs[0]) << ");\n" << p << "}\n";
}

// The target's sizes are in the graph's type.
void broadcastToSizes(Emitter& e, const Node& n) { e.broadcast(n, n.outputs[0], n.inputs); }

void broadcastToCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::broadcastToKernel(" << e.ptr(n.inputs[0]) << ", " << e.shape(n.inputs[0]) << ", "
           << e.ptr(n.outputs[0]) << ", " << e.shape(n.outputs[0]) << ");\n";
}

// --- concat, stack, split: chunks per outer index ---

void concatSizes(Emitter& e, const Node& n) {
  const int out = n.outputs[0], rank = e.type(out).shape.rank();
  const int64_t axis = axisAttr(n, "axis", rank);
  Dims r;
  for (int a = 0; a < rank; ++a) {
    if (a == axis) {
      std::string expr;
      for (int i : n.inputs) expr += (expr.empty() ? "" : " + ") + e.dims(i)[size_t(a)];
      r.push_back(e.dim(out, a, "(" + expr + ")"));
      continue;
    }
    r.push_back(e.dim(out, a, e.dims(n.inputs[0])[size_t(a)]));
    for (int i : n.inputs)
      if (e.dims(i)[size_t(a)] != r.back())
        e.check(n, e.dims(i)[size_t(a)] + " == " + r.back(), "\"concat: the inputs' sizes differ off the axis\"");
  }
  e.setDims(out, r);
}

// Stacked inputs have one shape; the result has a new axis of their count.
void stackSizes(Emitter& e, const Node& n) {
  const int out = n.outputs[0];
  const Dims& first = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(first.size()) + 1));
  Dims r;
  for (size_t a = 0; a < first.size(); ++a) {
    r.push_back(e.dim(out, int(a < axis ? a : a + 1), first[a]));
    for (int i : n.inputs)
      if (e.dims(i)[a] != r.back())
        e.check(n, e.dims(i)[a] + " == " + r.back(), "\"stack: the inputs' shapes differ\"");
  }
  r.insert(r.begin() + long(axis), std::to_string(n.inputs.size()));
  e.setDims(out, r);
}

// The split axis's sizes are attributes; the other sizes are the input's.
void splitSizes(Emitter& e, const Node& n) {
  const Dims& d = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(d.size())));
  const auto& parts = n.attrs.ints("sizes");
  int64_t total = 0;
  for (int64_t s : parts) total += s;
  if (d[axis] != std::to_string(total))
    e.check(n, d[axis] + " == " + std::to_string(total),
            "\"split: sizes adding up to " + std::to_string(total) + " do not fit a dimension of \" + std::to_string(" + d[axis] + ")");
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    Dims r;
    for (size_t a = 0; a < d.size(); ++a) r.push_back(a == axis ? std::to_string(parts[k]) : e.dim(n.outputs[k], int(a), d[a]));
    e.setDims(n.outputs[k], r);
  }
}

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

void shapeOfSizes(Emitter& e, const Node& n) { e.known(n, n.outputs[0]); }

void shapeOfCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& d = e.dims(n.inputs[0]);
  for (size_t a = 0; a < d.size(); ++a) e.code() << p << e.ptr(n.outputs[0]) << "[" << a << "] = " << d[a] << ";\n";
}

}  // namespace

const ops::EmitRule kReshapeRule{"", reshapeSizes, viewMemory, noCode};
const ops::EmitRule kExpandDimsRule{"", expandDimsSizes, viewMemory, noCode};
const ops::EmitRule kSqueezeRule{"", squeezeSizes, viewMemory, noCode};
const ops::EmitRule kTransposeRule{"copy.h", transposeSizes, nullptr, transposeCode};
const ops::EmitRule kBroadcastToRule{"copy.h", broadcastToSizes, nullptr, broadcastToCode};
const ops::EmitRule kConcatRule{"layout_ops.h", concatSizes, nullptr, concatCode};
const ops::EmitRule kStackRule{"layout_ops.h", stackSizes, nullptr, stackCode};
const ops::EmitRule kSplitRule{"layout_ops.h", splitSizes, nullptr, splitCode};
const ops::EmitRule kShapeOfRule{"", shapeOfSizes, nullptr, shapeOfCode};

}  // namespace weft::codegen
