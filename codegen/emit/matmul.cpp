// The emit rule of matmul: a GEMM (operands read transposed in place), a batched product whose
// batch dimensions broadcast, or the fused form of fuse-epilogues (bias rows, the product
// accumulated onto them, an activation) — calls of stdlib/runtime's matmul.h.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/ops/attrs.h"

namespace weft::codegen {
namespace {

using graph::Node;

bool transposed(const Node& n) { return n.attrs.has("transpose_a") || n.attrs.has("transpose_b"); }

// A product of matrices with transposed operands: its m, its k on each side, its n.
std::array<std::string, 4> transposedSizes(const Emitter& e, const Node& n) {
  const Dims &a = e.dims(n.inputs[0]), &b = e.dims(n.inputs[1]);
  const ops::MatmulTransposes t = ops::transposes(n.attrs);
  // Without transpose_a, the rows of `a` may be stacked in leading axes: m counts them all.
  const std::string m = t.a ? a[1] : (a.size() == 1 ? std::string("1") : product(slice(a, 0, a.size() - 1)));
  return {m, t.a ? a[0] : a.back(), t.b ? b[1] : b[0], t.b ? b[0] : b[1]};
}

std::string innerCheck(const std::string& k, const std::string& kb) {
  return "\"matmul: inner dimensions differ (\" + std::to_string(" + k + ") + \" and \" + std::to_string(" + kb + ") + \")\"";
}

void sizes(Emitter& e, const Node& n) {
  const int out = n.outputs[0];
  const Dims &a = e.dims(n.inputs[0]), &b = e.dims(n.inputs[1]);
  Dims r;
  if (transposed(n)) {
    const auto [m, k, kb, nn] = transposedSizes(e, n);
    if (k != kb) e.check(n, k + " == " + kb, innerCheck(k, kb));
    if (a.size() > 2)  // rows stacked in leading axes, times a transposed matrix
      for (size_t i = 0; i + 1 < a.size(); ++i) r.push_back(e.dim(out, int(i), a[i]));
    else
      r.push_back(e.dim(out, 0, m));
    r.push_back(e.dim(out, int(r.size()), nn));
    e.setDims(out, r);
    return;
  }
  const bool av = a.size() == 1, bv = b.size() == 1;
  const std::string k = a.back(), kb = bv ? b[0] : b[b.size() - 2];
  if (k != kb) e.check(n, k + " == " + kb, innerCheck(k, kb));
  // Batch dimensions broadcast.
  const int batch = e.type(out).shape.rank() - (av ? 0 : 1) - (bv ? 0 : 1);
  const Dims ab = slice(a, 0, a.size() - (av ? 1 : 2)), bb = slice(b, 0, b.size() - (bv ? 1 : 2));
  for (int i = 0; i < batch; ++i) {
    int ia = i - (batch - int(ab.size())), ib = i - (batch - int(bb.size()));
    std::string x = ia >= 0 ? ab[size_t(ia)] : "1", y = ib >= 0 ? bb[size_t(ib)] : "1";
    std::string expr = x == "1" ? y : (y == "1" || y == x ? x : "std::max<int64_t>(" + x + ", " + y + ")");
    r.push_back(e.dim(out, i, expr));
    if (x != y && x != "1" && y != "1")
      e.check(n, "(" + x + " == " + y + " || " + x + " == 1 || " + y + " == 1)", "\"matmul: batch sizes do not broadcast\"");
  }
  if (!av) r.push_back(e.dim(out, int(r.size()), a[a.size() - 2]));
  if (!bv) r.push_back(e.dim(out, int(r.size()), b.back()));
  e.setDims(out, r);
  if (n.inputs.size() == 3) {  // a fused bias: one row of the result's width
    const Dims& bias = e.dims(n.inputs[2]);
    if (bias.back() != r.back()) e.check(n, bias.back() + " == " + r.back(), "\"matmul: the bias does not fit the result\"");
  }
}

// The op table's workspace column, from the runtime function that computes it.
void memory(Emitter& e, const Node& n) {
  e.ownResults(n);
  const ops::MatmulTransposes t = ops::transposes(n.attrs);
  e.workspace("weft::rt::matmulWorkspaceBytes<" + e.T(n.outputs[0]) + ">(" + e.shape(n.inputs[0]) + ", " +
              e.shape(n.inputs[1]) + ", " + (t.a ? "true" : "false") + ", " + (t.b ? "true" : "false") + ")");
}

void code(Emitter& e, const Node& n, const std::string& p) {
  std::ostream& c = e.code();
  const int out = n.outputs[0];
  const std::string A = e.ptr(n.inputs[0]), B = e.ptr(n.inputs[1]), C = e.ptr(out);
  if (transposed(n)) {
    const auto [m, k, kb, nn] = transposedSizes(e, n);
    const ops::MatmulTransposes t = ops::transposes(n.attrs);
    c << p << "weft::rt::gemm(" << A << ", " << B << ", " << C << ", " << m << ", " << k << ", " << nn << ", ws, false, "
      << (t.a ? "true" : "false") << ", " << (t.b ? "true" : "false") << ");\n";
    return;
  }
  const Dims &a = e.dims(n.inputs[0]), &b = e.dims(n.inputs[1]);
  const std::string m = a.size() == 1 ? "1" : a[a.size() - 2], k = a.back(), nn = b.size() == 1 ? "1" : b.back();
  if (n.inputs.size() == 3) {  // fused: bias rows, the product accumulated onto them, the activation
    e.need("copy.h");
    e.need("unary.h");
    std::string rows = "(" + e.numel(n.inputs[0]) + ") / std::max<int64_t>(" + k + ", 1)";
    if (k == "0") rows = product(slice(a, 0, a.size() - 1));
    c << p << "{\n" << p << "  const int64_t rows = " << rows << ";\n"
      << p << "  weft::rt::broadcastToKernel(" << e.ptr(n.inputs[2]) << ", Shape{" << nn << "}, " << C << ", Shape{rows, "
      << nn << "});\n"
      << p << "  weft::rt::gemm(" << A << ", " << B << ", " << C << ", rows, " << k << ", " << nn << ", ws, true);\n";
    const std::string& act = n.attrs.s("epilogue");
    ops::OpId id;
    if (!act.empty() && ops::findOp(act, id))
      c << p << "  weft::rt::unaryKernel<weft::rt::" << functorOf(id) << ">(" << C << ", " << C << ", rows * " << nn
        << ");\n";
    c << p << "}\n";
    return;
  }
  const Dims& od = e.dims(out);
  const Dims ab = slice(a, 0, a.size() - (a.size() == 1 ? 1 : 2)), bb = slice(b, 0, b.size() - (b.size() == 1 ? 1 : 2));
  const Dims cb = slice(od, 0, od.size() - (a.size() > 1) - (b.size() > 1));
  c << p << "weft::rt::batchedMatmul(" << A << ", " << shapeList(ab) << ", " << B << ", " << shapeList(bb) << ", " << C
    << ", " << shapeList(cb) << ", " << m << ", " << k << ", " << nn << ", ws);\n";
}

}  // namespace

const ops::EmitRule kMatMulRule{"matmul.h", sizes, memory, code};

}  // namespace weft::codegen
