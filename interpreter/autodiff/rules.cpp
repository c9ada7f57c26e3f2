// The op table's VJP column: which rule each primitive uses.
#include "rules.h"

namespace weft::autodiff {

using ops::OpId;

ops::VjpResult noGradient(const ops::VjpArgs& a) { return ops::VjpResult(a.in.size()); }

void registerVjpRules() { ops::setVjpRules(vjpRule); }

ops::VjpFn vjpRule(OpId op) {
  switch (op) {
#define WEFT_UNARY_RULE(F, Id, ...) \
  case OpId::F##Id: return unaryRule(ops::UnaryOp::Id);
    WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_RULE)
#undef WEFT_UNARY_RULE
#define WEFT_BINARY_RULE(F, Id, ...) \
  case OpId::F##Id: return binaryRule(ops::BinaryOp::Id);
    WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_RULE)
#undef WEFT_BINARY_RULE
#define WEFT_REDUCE_RULE(F, Id, ...) \
  case OpId::F##Id: return reduceRule(ops::ReduceOp::Id);
    WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_RULE)
#undef WEFT_REDUCE_RULE
    case OpId::MatMul: return matmulVjp;
    case OpId::Cast: return castVjp;
    case OpId::Reshape: return reshapeVjp;
    case OpId::Transpose: return transposeVjp;
    case OpId::BroadcastTo: return broadcastToVjp;
    case OpId::Concat: return concatVjp;
    case OpId::Stack: return stackVjp;
    case OpId::Split: return splitVjp;
    case OpId::Squeeze: return squeezeVjp;
    case OpId::ExpandDims: return expandDimsVjp;
    case OpId::Where: return whereVjp;
    case OpId::Clip: return clipVjp;
    case OpId::GetItem: return getItemVjp;
    case OpId::SetItem: return setItemVjp;
    case OpId::Take: return takeVjp;
    case OpId::BroadcastRows: return broadcastRowsVjp;
    case OpId::UpdateRow: return updateRowVjp;
    case OpId::ArgMax:
    case OpId::ArgMin:
    case OpId::KthLargest:
    case OpId::AdamUpdate:
    case OpId::OneHot:
    case OpId::Full:
    case OpId::Eye:
    case OpId::Arange:
    case OpId::Linspace:
    case OpId::RandomNormal:
    case OpId::RandomUniform:
    case OpId::RandomTruncatedNormal:
    case OpId::ShapeOf: return noGradient;
    case OpId::AllReduce: return allReduceVjp;
    case OpId::AllGather: return allGatherVjp;
    case OpId::ReduceScatter: return reduceScatterVjp;
    case OpId::AllToAll: return allToAllVjp;
    case OpId::LocalSlice: return localSliceVjp;
    case OpId::Relayout: return relayoutVjp;
    case OpId::Conv2D: return conv2dVjp;
    case OpId::MaxPool2D: return maxPool2dVjp;
    case OpId::AvgPool2D: return avgPool2dVjp;
    // The gradient ops of conv2d and the pools, for gradients of gradients.
    case OpId::Conv2DBackpropInput: return conv2dBackpropInputVjp;
    case OpId::Conv2DBackpropFilter: return conv2dBackpropFilterVjp;
    case OpId::MaxPool2DGrad: return maxPool2dGradVjp;
    case OpId::AvgPool2DGrad: return avgPool2dGradVjp;
    case OpId::MaxPool2DGradGrad: return maxPool2dGradGradVjp;
    case OpId::Attention: return attentionVjp;
    case OpId::AttentionGrad: return attentionGradVjp;
    case OpId::LayerNorm: return layerNormVjp;
    case OpId::LayerNormGrad: return layerNormGradVjp;
    case OpId::Gelu: return geluVjp;  // elementwise.cpp
    // Graph-only: a tape handles control flow itself (tape.cpp); constants, variables, print and
    // check carry no gradient through an op.
    case OpId::Constant:
    case OpId::ReadVariable:
    case OpId::AssignVariable:
    case OpId::Print:
    case OpId::Check:
    case OpId::Cond:
    case OpId::While: return nullptr;
  }
  return nullptr;
}

}  // namespace weft::autodiff
