// C++ text the emit rules share: products of sizes, shape lists, the runtime functor of an
// elementwise op, element literals.
#include <array>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>

#include "emitter.h"
#include "function_emitter.h"

namespace weft::codegen {

using ops::OpId;

bool isLiteral(const std::string& d) {
  return !d.empty() && (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-');
}

std::string product(const Dims& dims) {
  int64_t k = 1;
  std::vector<std::string> terms;
  for (const auto& d : dims) {
    if (isLiteral(d)) k *= std::stoll(d);
    else terms.push_back(d);
  }
  if (k == 0) return "0";
  std::string s = k == 1 && !terms.empty() ? "" : std::to_string(k);
  for (const auto& t : terms) s += (s.empty() ? "" : " * ") + t;
  return terms.empty() || (terms.size() == 1 && k == 1) ? s : "(" + s + ")";
}

std::string shapeList(const Dims& dims) {
  std::string s = "Shape{";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + "}";
}

Dims slice(const Dims& d, size_t from, size_t to) { return Dims(d.begin() + long(from), d.begin() + long(to)); }

namespace {

// op_list.h's functor and dtype-rule columns, by op.
struct ElementwiseColumns {
  std::array<const char*, ops::kOpCount> functor{};
  std::array<ops::BinaryRule, ops::kOpCount> rule{};
  ElementwiseColumns() {
#define WEFT_FUNCTOR(F, Id, N, A, Fn, ...) functor[size_t(OpId::F##Id)] = #Fn;
    WEFT_FOR_EACH_UNARY_OP(WEFT_FUNCTOR)
    WEFT_FOR_EACH_BINARY_OP(WEFT_FUNCTOR)
    WEFT_FOR_EACH_REDUCE_OP(WEFT_FUNCTOR)
#undef WEFT_FUNCTOR
#define WEFT_RULE(F, Id, N, A, Fn, R) rule[size_t(OpId::F##Id)] = ops::BinaryRule::R;
    WEFT_FOR_EACH_BINARY_OP(WEFT_RULE)
#undef WEFT_RULE
  }
};
const ElementwiseColumns& columns() {
  static const ElementwiseColumns c;
  return c;
}

}  // namespace

const char* functorOf(OpId op) { return columns().functor[size_t(op)]; }
const char* unaryFunctorOf(const graph::Node& n) {
  if (n.op == OpId::Gelu) return n.attrs.b("approximate") ? "GeluTanh" : "Gelu";  // stdlib/runtime/gelu.h
  return functorOf(n.op);
}
ops::BinaryRule binaryRule(OpId op) { return columns().rule[size_t(op)]; }

std::string literal(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::F32: {
      float f = t.data<float>()[i];
      if (std::isnan(f)) return "std::numeric_limits<float>::quiet_NaN()";
      if (std::isinf(f)) return f < 0 ? "-std::numeric_limits<float>::infinity()" : "std::numeric_limits<float>::infinity()";
      char buf[64];
      std::snprintf(buf, sizeof buf, "%af", double(f));
      return buf;
    }
    case DType::F64: {
      double f = t.data<double>()[i];
      if (std::isnan(f)) return "std::numeric_limits<double>::quiet_NaN()";
      if (std::isinf(f)) return f < 0 ? "-std::numeric_limits<double>::infinity()" : "std::numeric_limits<double>::infinity()";
      char buf[64];
      std::snprintf(buf, sizeof buf, "%a", f);
      return buf;
    }
    case DType::I32: return t.data<int32_t>()[i] == INT32_MIN ? "INT32_MIN" : std::to_string(t.data<int32_t>()[i]);
    case DType::I64: return t.data<int64_t>()[i] == INT64_MIN ? "INT64_MIN" : std::to_string(t.data<int64_t>()[i]) + "LL";
    case DType::Bool: return t.data<bool>()[i] ? "true" : "false";
  }
  return "0";
}

int64_t axisAttr(const graph::Node& n, const char* key, int rank) {
  int64_t axis = n.attrs.i(key);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace weft::codegen
