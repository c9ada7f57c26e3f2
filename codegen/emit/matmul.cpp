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
    e.need("unary.h");
    std::string rows = "(" + e.numel(n.inputs[0]) + ") / std::max<int64_t>(" + k + ", 1)";
    if (k == "0") rows = product(slice(a, 0, a.size() - 1));
    c << p << "{\n" << p << "  const int64_t rows = " << rows << ";\n"
      << p << "  weft::rt::biasMatmul(" << A << ", " << B << ", " << e.ptr(n.inputs[2]) << ", " << C << ", rows, " << k
      << ", " << nn << ", ws);\n";
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

const ops::EmitRule kMatMulRule{"matmul.h", nullptr, memory, code};

void registerMatMulEmitRules() {
  using ops::OpId;
  ops::setEmit({OpId::MatMul}, &kMatMulRule);
}

}  // namespace weft::codegen
