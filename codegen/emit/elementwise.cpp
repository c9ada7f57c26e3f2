// Emit rules of the elementwise ops (unary, gelu, binary, where/clip, cast) and the fused loop that
// runs a fuse-elementwise group: calls of stdlib/runtime's unary.h and binary.h kernels.
#include "emit_rule.h"
#include "emitter.h"
#include "interpreter/graph/text.h"

namespace weft::codegen {
namespace {

using graph::Node;

// Integer // and %, and ** with an integer exponent, refuse some right operands (a zero
// divisor, a negative exponent) when the call runs.
bool checksIntOperand(const Emitter& e, const Node& n) {
  const ops::BinaryRule rule = binaryRule(n.op);
  return rt::isInt(e.type(n.inputs[1]).dtype) && (rule == ops::BinaryRule::IntDiv || rule == ops::BinaryRule::Power);
}
std::string intOperandCheck(const Emitter& e, const Node& n, const std::string& b, const std::string& count) {
  return "if (std::string why = weft::rt::intOperandError(" + b + ", " + count + ", " +
         (binaryRule(n.op) == ops::BinaryRule::Power ? "true" : "false") + "); !why.empty()) " + e.fail(n, "why");
}

void unaryCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::unaryKernel<weft::rt::" << unaryFunctorOf(n) << ">(" << e.ptr(n.inputs[0]) << ", "
           << e.ptr(n.outputs[0]) << ", " << e.numel(n.outputs[0]) << ");\n";
}

void binaryCode(Emitter& e, const Node& n, const std::string& p) {
  const int a = n.inputs[0], b = n.inputs[1], out = n.outputs[0];
  if (checksIntOperand(e, n)) e.code() << p << intOperandCheck(e, n, e.ptr(b), e.numel(b)) << "\n";
  e.code() << p << "weft::rt::binaryKernel<weft::rt::" << functorOf(n.op) << ">(" << e.ptr(a) << ", " << e.shape(a) << ", "
           << e.ptr(b) << ", " << e.shape(b) << ", " << e.ptr(out) << ", " << e.shape(out) << ");\n";
}

void ternaryCode(Emitter& e, const Node& n, const std::string& p) {
  e.code() << p << "weft::rt::ternaryKernel<weft::rt::" << (n.op == ops::OpId::Where ? "Where" : "Clip") << ">(";
  for (int i : n.inputs) e.code() << e.ptr(i) << ", " << e.shape(i) << ", ";
  e.code() << e.ptr(n.outputs[0]) << ", " << e.shape(n.outputs[0]) << ");\n";
}

// A cast to the same dtype is its input.
void castMemory(Emitter& e, const Node& n) {
  if (e.type(n.outputs[0]).dtype == e.type(n.inputs[0]).dtype) e.alias(n.outputs[0], n.inputs[0]);
  else e.own(n.outputs[0]);
}
void castCode(Emitter& e, const Node& n, const std::string& p) {
  if (!e.aliased(n.outputs[0]))
    e.code() << p << "weft::rt::castKernel(" << e.ptr(n.inputs[0]) << ", " << e.ptr(n.outputs[0]) << ", "
             << e.numel(n.outputs[0]) << ");\n";
}

}  // namespace

const ops::EmitRule kUnaryRule{"unary.h", nullptr, nullptr, unaryCode};
const ops::EmitRule kBinaryRule{"binary.h", nullptr, nullptr, binaryCode};
const ops::EmitRule kTernaryRule{"binary.h", nullptr, nullptr, ternaryCode};
const ops::EmitRule kCastRule{"unary.h", nullptr, castMemory, castCode};
const ops::EmitRule kGeluRule{"gelu.h", nullptr, nullptr, unaryCode};

// Each node of the group is a kernel call on a chunk (a cast's as castKernel's).
void fusedLoop(Emitter& e, const std::vector<const Node*>& group, const std::set<int>& chunked,
               const std::vector<std::pair<std::string, std::string>>& checks, const std::string& p) {
  std::ostream& code = e.code();
  const int out = group.back()->outputs[0];
  code << p << "// fused:";
  for (const Node* n : group) code << " " << ops::opName(n->op);
  code << " -> " << graph::typeText(e.type(out)) << "   (" << e.where(*group.front()) << "-" << group.back()->loc.line
       << ")\n";
  for (const auto& [cond, fail] : checks) code << p << "if (!(" << cond << ")) " << fail << "\n";
  // Blocks of chunks share out on the thread pool, unless an integer operand's check may return
  // from the call (then one loop, in order).
  bool returns = false;
  for (const Node* n : group)
    returns = returns || (ops::opDef(n->op).family == ops::Family::Binary && checksIntOperand(e, *n));
  const std::string q = returns ? p : p + "  ";
  if (returns) {
    code << p << "for (int64_t i0 = 0, total = " << e.numel(out) << ", end = total; i0 < end; i0 += 256) {\n";
  } else {
    code << p << "{\n" << q << "const int64_t total = " << e.numel(out) << ";\n"
         << q << "weft::rt::parallelFor(weft::rt::chunkCount(total, weft::rt::kElementwiseBlock), [&](int64_t block, int) {\n"
         << q << "const int64_t end = std::min(total, (block + 1) * weft::rt::kElementwiseBlock);\n"
         << q << "for (int64_t i0 = block * weft::rt::kElementwiseBlock; i0 < end; i0 += 256) {\n";
  }
  code << q << "  const int64_t m = std::min<int64_t>(256, end - i0);\n";
  auto chunk = [](int v) { return "t" + std::to_string(v); };
  for (const Node* n : group) {
    const int v = n->outputs[0];
    std::string dst = e.ptr(v) + " + i0";
    if (chunked.count(v)) {
      dst = chunk(v);
      code << q << "  alignas(64) " << e.T(v) << " " << dst << "[256];\n";
    }
    auto src = [&](int i) -> std::pair<std::string, std::string> {  // pointer, stride
      if (chunked.count(i)) return {chunk(i), "1"};
      if (e.numel(i) == "1" && e.numel(out) != "1") return {e.ptr(i), "0"};
      return {e.ptr(i) + " + i0", "1"};
    };
    if (n->op == ops::OpId::Cast) {  // its input has the group's size: a cast keeps the shape
      code << q << "  weft::rt::castKernel(" << src(n->inputs[0]).first << ", " << dst << ", m);\n";
      continue;
    }
    if (ops::opDef(n->op).family == ops::Family::Unary) {
      code << q << "  weft::rt::unaryKernel<weft::rt::" << unaryFunctorOf(*n) << ">(" << src(n->inputs[0]).first << ", "
           << dst << ", m);\n";
      continue;
    }
    auto [a, sa] = src(n->inputs[0]);
    auto [b, sb] = src(n->inputs[1]);
    if (checksIntOperand(e, *n)) code << q << "  " << intOperandCheck(e, *n, b, sb == "0" ? "1" : "m") << "\n";
    code << q << "  weft::rt::binaryRow<weft::rt::" << functorOf(n->op) << ">(" << a << ", " << sa << ", " << b << ", "
         << sb << ", " << dst << ", m);\n";
  }
  code << q << "}\n";
  if (!returns) code << p << "  });\n" << p << "}\n";
}

void registerElementwiseEmitRules() {
  using ops::OpId;
#define WEFT_UNARY_EMIT(F, Id, ...) ops::setEmit({OpId::F##Id}, &kUnaryRule);
  WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_EMIT)
#undef WEFT_UNARY_EMIT
#define WEFT_BINARY_EMIT(F, Id, ...) ops::setEmit({OpId::F##Id}, &kBinaryRule);
  WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_EMIT)
#undef WEFT_BINARY_EMIT
  ops::setEmit({OpId::Where, OpId::Clip}, &kTernaryRule);
  ops::setEmit({OpId::Cast}, &kCastRule);
  ops::setEmit({OpId::Gelu}, &kGeluRule);
}

}  // namespace weft::codegen
