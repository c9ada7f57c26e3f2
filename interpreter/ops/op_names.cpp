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
int opArity(OpId op) { return kOps[int(op)].arity; }

// The family enums list their members in the same order as OpId, so the mapping is an offset.
OpId opId(UnaryOp op) { return OpId(int(OpId::UnaryNeg) + int(op)); }
OpId opId(BinaryOp op) { return OpId(int(OpId::BinaryAdd) + int(op)); }
OpId opId(ReduceOp op) { return OpId(int(OpId::ReduceSum) + int(op)); }

const char* name(UnaryOp op) { return opName(opId(op)); }
const char* name(BinaryOp op) { return opName(opId(op)); }
const char* name(ReduceOp op) { return opName(opId(op)); }

}  // namespace weft::ops
