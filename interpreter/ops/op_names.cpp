// Names and arities of the primitive ops, generated from op_list.h.
#include "ops.h"

namespace weft::ops {
namespace {

struct OpInfo {
  const char* name;
  int arity;
};

constexpr OpInfo kOps[] = {
#define WEFT_OP_INFO(F, Id, Name, Arity, ...) {Name, Arity},
    WEFT_FOR_EACH_OP(WEFT_OP_INFO)
#undef WEFT_OP_INFO
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == kOpCount);

}  // namespace

const char* opName(OpId op) { return kOps[int(op)].name; }

std::string builtinName(OpId op) {
  switch (op) {
#define WEFT_UNARY_NAME(F, Id, Name, A, Fn, Rule)                        \
  case OpId::F##Id:                                                      \
    if (OpId::F##Id == OpId::UnaryNeg) return ""; /* the operator -x */ \
    return UnaryRule::Rule == UnaryRule::Logical ? std::string("logical_") + Name : Name;
    WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_NAME)
#undef WEFT_UNARY_NAME
#define WEFT_BINARY_NAME(F, Id, Name, A, Fn, Rule)                                       \
  case OpId::F##Id:                                                                    \
    if (BinaryRule::Rule == BinaryRule::Logical) return std::string("logical_") + Name; \
    return BinaryRule::Rule == BinaryRule::Order || BinaryRule::Rule == BinaryRule::Power ? Name : "";
    WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_NAME)
#undef WEFT_BINARY_NAME
    // No builtin here for the other families: their lists give every op a case, no default.
    WEFT_FOR_EACH_REDUCE_OP(WEFT_OP_CASE)
    WEFT_FOR_EACH_OTHER_OP(WEFT_OP_CASE)
    WEFT_FOR_EACH_GRAPH_ONLY_OP(WEFT_OP_CASE)
      break;
  }
  return "";
}
int opArity(OpId op) { return kOps[int(op)].arity; }

// The family enums list their members in the same order as OpId, so the mapping is an offset.
OpId opId(UnaryOp op) { return OpId(int(OpId::UnaryNeg) + int(op)); }
OpId opId(BinaryOp op) { return OpId(int(OpId::BinaryAdd) + int(op)); }
OpId opId(ReduceOp op) { return OpId(int(OpId::ReduceSum) + int(op)); }

const char* name(UnaryOp op) { return opName(opId(op)); }
const char* name(BinaryOp op) { return opName(opId(op)); }
const char* name(ReduceOp op) { return opName(opId(op)); }

}  // namespace weft::ops
