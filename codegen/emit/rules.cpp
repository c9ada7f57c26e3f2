// The emit column: the rule of every primitive. The switch has no default, so a new op in
// op_list.h is a -Wswitch warning here (an error in CI's -Werror build) until it has a rule.
#include <mutex>

#include "emit_rule.h"
#include "interpreter/ops/op_table.h"

namespace weft::codegen {
namespace {

using ops::OpId;

const ops::EmitRule* emitRule(OpId op) {
  switch (op) {
#define WEFT_UNARY_EMIT(F, Id, ...) case OpId::F##Id:
    WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_EMIT)
#undef WEFT_UNARY_EMIT
    return &kUnaryRule;
#define WEFT_BINARY_EMIT(F, Id, ...) case OpId::F##Id:
    WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_EMIT)
#undef WEFT_BINARY_EMIT
    return &kBinaryRule;
#define WEFT_REDUCE_EMIT(F, Id, ...) case OpId::F##Id:
    WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_EMIT)
#undef WEFT_REDUCE_EMIT
    return &kReduceRule;
    case OpId::MatMul: return &kMatMulRule;
    case OpId::ArgMax:
    case OpId::ArgMin: return &kArgReduceRule;
    case OpId::KthLargest: return &kKthLargestRule;
    case OpId::Cast: return &kCastRule;
    case OpId::Gelu: return &kGeluRule;
    case OpId::Reshape: return &kReshapeRule;
    case OpId::Squeeze: return &kSqueezeRule;
    case OpId::ExpandDims: return &kExpandDimsRule;
    case OpId::Transpose: return &kTransposeRule;
    case OpId::BroadcastTo: return &kBroadcastToRule;
    case OpId::Concat: return &kConcatRule;
    case OpId::Stack: return &kStackRule;
    case OpId::Split: return &kSplitRule;
    case OpId::Where:
    case OpId::Clip: return &kTernaryRule;
    case OpId::OneHot: return &kOneHotRule;
    case OpId::GetItem: return &kGetItemRule;
    case OpId::SetItem: return &kSetItemRule;
    case OpId::Take: return &kTakeRule;
    case OpId::BroadcastRows: return &kBroadcastRowsRule;
    case OpId::UpdateRow: return &kUpdateRowRule;
    case OpId::Full:
    case OpId::Eye:
    case OpId::Arange:
    case OpId::Linspace: return &kCreationRule;
    case OpId::RandomNormal:
    case OpId::RandomUniform:
    case OpId::RandomTruncatedNormal: return &kRandomRule;
    case OpId::Conv2D: return &kConvRule;
    case OpId::MaxPool2D:
    case OpId::AvgPool2D: return &kPoolRule;
    case OpId::Conv2DBackpropInput:
    case OpId::Conv2DBackpropFilter: return &kConvGradRule;
    case OpId::MaxPool2DGrad:
    case OpId::AvgPool2DGrad:
    case OpId::MaxPool2DGradGrad: return &kPoolGradRule;
    case OpId::Attention:
    case OpId::AttentionGrad: return &kAttentionRule;
    case OpId::LayerNorm:
    case OpId::LayerNormGrad: return &kLayerNormRule;
    case OpId::AdamUpdate: return &kAdamUpdateRule;
    case OpId::ShapeOf: return &kShapeOfRule;
    case OpId::Relayout: return &kRelayoutRule;
    case OpId::AllReduce:
    case OpId::AllGather:
    case OpId::ReduceScatter:
    case OpId::AllToAll:
    case OpId::LocalSlice: return &kCollectiveRule;
    case OpId::Constant: return &kConstantRule;
    case OpId::ReadVariable: return &kReadVariableRule;
    case OpId::AssignVariable: return &kAssignVariableRule;
    case OpId::Print: return &kPrintRule;
    case OpId::Check: return &kCheckRule;
    case OpId::Cond: return &kCondRule;
    case OpId::While: return &kWhileRule;
  }
  return nullptr;
}

}  // namespace

void registerEmitRules() {
  static std::once_flag once;
  std::call_once(once, [] { ops::setEmitRules(emitRule); });
}

}  // namespace weft::codegen
