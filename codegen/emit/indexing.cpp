// Emit rules of getitem and setitem (NumPy basic indexing as strided copies), take (gather) and
// one_hot — calls of stdlib/runtime's copy.h and layout_ops.h. A selection is worked out from the
// input's sizes as C++ expressions, so that indexing compiles when some sizes are open (x[:, 0],
// x[1:] of a batch); its slices are clamped at run time by the same rt::sliceRange as eager code.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/ops/impl.h"

namespace weft::codegen {
namespace {

using graph::Node;
using ops::Subscript;

// What a subscript list selects of a value: its sizes, the offset of its first element and the
// stride of each of its dimensions in the value, all as C++ expressions.
struct Selection {
  Dims shape, strides;
  std::string base = "0";
  bool whole = true;  // all of the value, in order: a view
};

std::string plus(const std::string& a, const std::string& b) { return a == "0" ? b : b == "0" ? a : a + " + " + b; }
std::string times(const std::string& a, const std::string& b) {
  if (a == "0" || b == "0") return "0";
  return a == "1" ? b : b == "1" ? a : "(" + a + ") * (" + b + ")";
}

Selection selectionOf(Emitter& e, const Node& n, int x) {
  const Shape& known = e.type(x).shape;
  const auto subs = ops::decodeSubscripts(n.attrs.ints("subs"));
  Selection sel;
  bool open = false;
  for (int64_t d : known) open = open || d == rt::kUnknownDim;
  if (!open) {  // the interpreter's own rule, on literal sizes
    const ops::impl::Selection s = ops::impl::selection(known, subs);
    for (int a = 0; a < s.shape.rank(); ++a) {
      sel.shape.push_back(std::to_string(s.shape[a]));
      sel.strides.push_back(std::to_string(s.strides[a]));
    }
    sel.base = std::to_string(s.base);
    sel.whole = s.whole;
    return sel;
  }
  const Dims& d = e.dims(x);
  Dims st(d.size(), "1");
  for (size_t a = d.size(); a-- > 1;) st[a - 1] = product(slice(d, a, d.size()));
  int consumed = 0;
  for (const Subscript& s : subs)
    if (s.kind == Subscript::Index || s.kind == Subscript::Range) ++consumed;
  const std::string id = "v" + std::to_string(n.outputs[0]) + "_s";
  size_t k = 0;
  auto keep = [&](const std::string& size, const std::string& stride) {
    sel.shape.push_back(size);
    sel.strides.push_back(stride);
  };
  for (size_t i = 0; i < subs.size(); ++i) {
    const Subscript& s = subs[i];
    const std::string name = id + std::to_string(i);
    switch (s.kind) {
      case Subscript::Index: {
        const std::string at = e.declare(name, s.index < 0 ? d[k] + " + (" + std::to_string(s.index) + ")" : std::to_string(s.index));
        e.check(n, "0 <= " + at + " && " + at + " < " + d[k],
                "\"index " + std::to_string(s.index) + " is out of range for axis " + std::to_string(k) +
                    " of size \" + std::to_string(" + d[k] + ")");
        sel.base = plus(sel.base, times(at, st[k]));
        sel.whole = sel.whole && d[k] == "1";
        ++k;
        break;
      }
      case Subscript::Range: {
        auto opt = [](const std::optional<int64_t>& v) { return std::string(v ? "true, " : "false, ") + std::to_string(v.value_or(0)); };
        const std::string range = name + "_range";
        e.declareRaw("const weft::rt::SliceRange " + range + " = weft::rt::sliceRange(" + d[k] + ", " + opt(s.start) + ", " +
                     opt(s.stop) + ", " + std::to_string(s.step.value_or(1)) + ")");
        e.need("slice.h");
        sel.base = plus(sel.base, "(" + range + ".count > 0 ? " + range + ".start * " + st[k] + " : 0)");
        keep(range + ".count", times(range + ".step", st[k]));
        sel.whole = sel.whole && !s.start && !s.stop && s.step.value_or(1) == 1;
        ++k;
        break;
      }
      case Subscript::NewAxis: keep("1", "0"); break;
      case Subscript::Ellipsis:
        for (int r = 0; r < int(d.size()) - consumed; ++r, ++k) keep(d[k], st[k]);
        break;
    }
  }
  for (; k < d.size(); ++k) keep(d[k], st[k]);
  return sel;
}

void getItemSizes(Emitter& e, const Node& n) {
  const int out = n.outputs[0];
  Selection sel = selectionOf(e, n, n.inputs[0]);
  Dims r;
  for (size_t a = 0; a < sel.shape.size(); ++a) r.push_back(e.dim(out, int(a), sel.shape[a]));
  e.setDims(out, r);
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

// A copy of x with the selection overwritten by the value, broadcast.
void setItemSizes(Emitter& e, const Node& n) { e.same(n.outputs[0], n.inputs[0]); }

void setItemCode(Emitter& e, const Node& n, const std::string& p) {
  const int x = n.inputs[0], value = n.inputs[1], out = n.outputs[0];
  Selection sel = selectionOf(e, n, x);
  // The value's strides broadcast to the selection's sizes: 0 where it has size 1 or no axis.
  const Dims& vd = e.dims(value);
  const Dims vst = rowMajor(vd);
  Dims from(sel.shape.size(), "0");
  for (size_t a = 0; a < vd.size(); ++a) {
    const size_t at = sel.shape.size() - vd.size() + a;
    if (vd[a] == "1") continue;
    if (!isLiteral(vd[a])) e.check(n, vd[a] + " == " + sel.shape[at] + " || " + vd[a] + " == 1", "\"setitem: the value does not broadcast to the selection\"");
    from[at] = vst[a];
  }
  e.code() << p << "copy(" << e.ptr(out) << ", " << e.ptr(x) << ", " << e.bytes(out) << ");\n";
  stridedCopy(e, p, e.ptr(value), from, e.ptr(out) + " + " + sel.base, sel.strides, sel.shape);
}

// take: x's dimensions before the axis, the indices' dimensions, x's after it.
void takeSizes(Emitter& e, const Node& n) {
  const Dims &x = e.dims(n.inputs[0]), &idx = e.dims(n.inputs[1]);
  const size_t axis = size_t(axisAttr(n, "axis", int(x.size())));
  Dims r = slice(x, 0, axis);
  r.insert(r.end(), idx.begin(), idx.end());
  r.insert(r.end(), x.begin() + long(axis) + 1, x.end());
  for (size_t a = 0; a < r.size(); ++a) r[a] = e.dim(n.outputs[0], int(a), r[a]);
  e.setDims(n.outputs[0], r);
}

void takeCode(Emitter& e, const Node& n, const std::string& p) {
  const Dims& x = e.dims(n.inputs[0]);
  const size_t axis = size_t(axisAttr(n, "axis", int(x.size())));
  const std::string outer = product(slice(x, 0, axis)), inner = product(slice(x, axis + 1, x.size()));
  const std::string idx = e.ptr(n.inputs[1]), count = e.numel(n.inputs[1]);
  e.code() << p << "if (std::string why = weft::rt::gatherIndexError(" << idx << ", " << count << ", " << x[axis] << ", "
           << axis << "); !why.empty()) " << e.fail(n, "why") << "\n"
           << p << "weft::rt::gatherKernel(" << e.ptr(n.inputs[0]) << ", " << outer << ", " << x[axis] << ", " << inner << ", "
           << idx << ", " << count << ", " << e.ptr(n.outputs[0]) << ");\n";
}

void oneHotSizes(Emitter& e, const Node& n) {
  Dims r;
  const Dims& d = e.dims(n.inputs[0]);
  for (size_t a = 0; a < d.size(); ++a) r.push_back(e.dim(n.outputs[0], int(a), d[a]));
  r.push_back(std::to_string(n.attrs.i("depth")));
  e.setDims(n.outputs[0], r);
}

void oneHotCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::oneHotKernel(" << e.ptr(n.inputs[0]) << ", " << e.numel(n.inputs[0]) << ", "
           << n.attrs.i("depth") << ", " << e.ptr(n.outputs[0]) << ");\n";
}

}  // namespace

const ops::EmitRule kGetItemRule{"copy.h", getItemSizes, getItemMemory, getItemCode};
const ops::EmitRule kSetItemRule{"copy.h", setItemSizes, nullptr, setItemCode};
const ops::EmitRule kTakeRule{"layout_ops.h", takeSizes, nullptr, takeCode};
const ops::EmitRule kOneHotRule{"layout_ops.h", oneHotSizes, nullptr, oneHotCode};

}  // namespace weft::codegen
