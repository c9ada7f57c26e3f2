// Emit rules of getitem and setitem (NumPy basic indexing as strided copies), take (gather) and
// one_hot — calls of stdlib/runtime's copy.h and layout_ops.h. A selection is the interpreter's,
// on symbolic sizes, so that indexing compiles when some sizes are open (x[:, 0], x[1:] of a
// batch); its slices are clamped at run time by the same rt::sliceRange as eager code.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/ops/impl.h"

namespace weft::codegen {
namespace {

using graph::Node;

// What a subscript list selects of a value: the interpreter's own rule (ops::impl::selection)
// on the value's symbolic sizes — its sizes, the offset of its first element and the stride of
// each of its dimensions in the value, printed as C++ expressions.
struct Selection {
  Dims shape, strides;
  std::string base;
  bool whole;  // all of the value, in order: a view
};

Selection selectionOf(Emitter& e, const Node& n, int x) {
  const ops::impl::Selection s = ops::impl::selection(e.encoded(x), ops::decodeSubscripts(n.attrs.ints("subs")));
  e.symbols().takeRequirements();  // the node's sizes step checks them
  e.need("slice.h");                // the sizes of an open slice call its clamp
  Selection sel{{}, {}, e.print(e.symbols().decode(s.base)), s.whole};
  for (int a = 0; a < s.shape.rank(); ++a) {
    sel.shape.push_back(e.print(e.symbols().decode(s.shape[a])));
    sel.strides.push_back(e.print(e.symbols().decode(s.strides[a])));
  }
  return sel;
}

// A selection of all of the input, in order, is the input's bytes.
void getItemMemory(Emitter& e, const Node& n) {
  if (selectionOf(e, n, n.inputs[0]).whole) e.alias(n.outputs[0], n.inputs[0]);
  else e.own(n.outputs[0]);
}

std::string list(const Dims& d) {
  std::string s;
  for (size_t a = 0; a < d.size(); ++a) s += (a ? ", " : "") + d[a];
  return d.empty() ? "0" : s;
}

void stridedCopy(Emitter& e, const std::string& p, const std::string& src, const Dims& from, const std::string& dst,
                 const Dims& to, const Dims& shape) {
  e.code() << p << "{\n" << p << "  const int64_t from[] = {" << list(from) << "}, to[] = {" << list(to) << "};\n"
           << p << "  weft::rt::stridedCopy(" << src << ", from, " << dst << ", to, " << shapeList(shape) << ");\n"
           << p << "}\n";
}

// The result's own strides: row-major over its sizes.
Dims rowMajor(const Dims& shape) {
  Dims st(shape.size(), "1");
  for (size_t a = shape.size(); a-- > 1;) st[a - 1] = product(slice(shape, a, shape.size()));
  return st;
}

void getItemCode(Emitter& e, const Node& n, const std::string& p) {
  Selection sel = selectionOf(e, n, n.inputs[0]);
  if (sel.whole) return;  // a view
  const int out = n.outputs[0];
  stridedCopy(e, p, e.ptr(n.inputs[0]) + " + " + sel.base, sel.strides, e.ptr(out), rowMajor(e.dims(out)), e.dims(out));
}

void setItemCode(Emitter& e, const Node& n, const std::string& p) {
  const int x = n.inputs[0], value = n.inputs[1], out = n.outputs[0];
  Selection sel = selectionOf(e, n, x);
  // The value's strides broadcast to the selection's sizes: 0 where it has size 1 or no axis.
  const Dims& vd = e.dims(value);
  const Dims vst = rowMajor(vd);
  Dims from(sel.shape.size(), "0");
  for (size_t a = 0; a < vd.size(); ++a)
    if (vd[a] != "1") from[sel.shape.size() - vd.size() + a] = vst[a];  // the inference checks they broadcast
  e.code() << p << "copy(" << e.ptr(out) << ", " << e.ptr(x) << ", " << e.bytes(out) << ");\n";
  stridedCopy(e, p, e.ptr(value), from, e.ptr(out) + " + " + sel.base, sel.strides, sel.shape);
}

void takeCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& x = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(x.size())));
  const std::string outer = product(slice(x, 0, axis)), inner = product(slice(x, axis + 1, x.size()));
  const std::string idx = e.ptr(n.inputs[1]), count = e.numel(n.inputs[1]);
  e.code() << p << "if (std::string why = weft::rt::gatherIndexError(" << idx << ", " << count << ", " << x[axis] << ", "
           << axis << (n.attrs.has("ids") && n.attrs.b("ids") ? ", true" : "") << "); !why.empty()) " << e.fail(n, "why") << "\n"
           << p << "weft::rt::gatherKernel(" << e.ptr(n.inputs[0]) << ", " << outer << ", " << x[axis] << ", " << inner << ", "
           << idx << ", " << count << ", " << e.ptr(n.outputs[0]) << ");\n";
}

void oneHotCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::oneHotKernel(" << e.ptr(n.inputs[0]) << ", " << e.numel(n.inputs[0]) << ", "
           << n.attrs.i("depth") << ", " << e.ptr(n.outputs[0]) << ");\n";
}

}  // namespace

const ops::EmitRule kGetItemRule{"copy.h", nullptr, getItemMemory, getItemCode};
const ops::EmitRule kSetItemRule{"copy.h", nullptr, nullptr, setItemCode};
const ops::EmitRule kTakeRule{"layout_ops.h", nullptr, nullptr, takeCode};
const ops::EmitRule kOneHotRule{"layout_ops.h", nullptr, nullptr, oneHotCode};

void registerIndexingEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::OneHot}, &kOneHotRule);
  ops::setEmit({OpId::GetItem}, &kGetItemRule);
  ops::setEmit({OpId::SetItem}, &kSetItemRule);
  ops::setEmit({OpId::Take}, &kTakeRule);
}

}  // namespace weft::codegen
