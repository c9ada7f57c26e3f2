// The VJP rules of the primitive ops (the op table's `vjp` column, op_table.h), one file per op
// family. Each rule is built from ops, so a gradient runs eagerly, traces into a graph and
// compiles like any other code.
#pragma once
#include "../ops/op_table.h"

namespace weft::autodiff {

// The rule of `op` for the op table.
ops::VjpFn vjpRule(ops::OpId op);
// Fills the op table's `vjp` column with vjpRule (ops::setVjpRules); the top level calls it once
// at startup (weft::installBuiltins, interpreter/builtins/builtins.h).
void registerVjpRules();

// The rule of ops whose results are piecewise constant in their inputs, or not differentiable
// (comparisons, argmax, floor, creation, random): no gradient flows through them.
ops::VjpResult noGradient(const ops::VjpArgs& a);

// Per family (elementwise.cpp, reductions.cpp, matmul.cpp, shape_ops.cpp, indexing.cpp, conv.cpp).
ops::VjpFn unaryRule(ops::UnaryOp op);
ops::VjpFn binaryRule(ops::BinaryOp op);
ops::VjpFn reduceRule(ops::ReduceOp op);
ops::VjpResult matmulVjp(const ops::VjpArgs& a);
ops::VjpResult castVjp(const ops::VjpArgs& a);
ops::VjpResult geluVjp(const ops::VjpArgs& a);
ops::VjpResult reshapeVjp(const ops::VjpArgs& a);
ops::VjpResult transposeVjp(const ops::VjpArgs& a);
ops::VjpResult broadcastToVjp(const ops::VjpArgs& a);
ops::VjpResult concatVjp(const ops::VjpArgs& a);
ops::VjpResult stackVjp(const ops::VjpArgs& a);
ops::VjpResult splitVjp(const ops::VjpArgs& a);
ops::VjpResult squeezeVjp(const ops::VjpArgs& a);
ops::VjpResult expandDimsVjp(const ops::VjpArgs& a);
ops::VjpResult whereVjp(const ops::VjpArgs& a);
ops::VjpResult clipVjp(const ops::VjpArgs& a);
ops::VjpResult getItemVjp(const ops::VjpArgs& a);
ops::VjpResult setItemVjp(const ops::VjpArgs& a);
ops::VjpResult takeVjp(const ops::VjpArgs& a);
ops::VjpResult broadcastRowsVjp(const ops::VjpArgs& a);
ops::VjpResult updateRowVjp(const ops::VjpArgs& a);
ops::VjpResult conv2dVjp(const ops::VjpArgs& a);
ops::VjpResult maxPool2dVjp(const ops::VjpArgs& a);
ops::VjpResult avgPool2dVjp(const ops::VjpArgs& a);
ops::VjpResult conv2dBackpropInputVjp(const ops::VjpArgs& a);
ops::VjpResult conv2dBackpropFilterVjp(const ops::VjpArgs& a);
ops::VjpResult maxPool2dGradVjp(const ops::VjpArgs& a);
ops::VjpResult avgPool2dGradVjp(const ops::VjpArgs& a);
ops::VjpResult maxPool2dGradGradVjp(const ops::VjpArgs& a);
ops::VjpResult attentionVjp(const ops::VjpArgs& a);  // attention.cpp
ops::VjpResult attentionGradVjp(const ops::VjpArgs& a);
ops::VjpResult layerNormVjp(const ops::VjpArgs& a);  // layer_norm.cpp
ops::VjpResult layerNormGradVjp(const ops::VjpArgs& a);
ops::VjpResult allReduceVjp(const ops::VjpArgs& a);  // collective.cpp
ops::VjpResult allGatherVjp(const ops::VjpArgs& a);
ops::VjpResult reduceScatterVjp(const ops::VjpArgs& a);
ops::VjpResult allToAllVjp(const ops::VjpArgs& a);
ops::VjpResult localSliceVjp(const ops::VjpArgs& a);
ops::VjpResult relayoutVjp(const ops::VjpArgs& a);

// Helpers shared by the rules (helpers.cpp).
Tensor scalarOf(double v, DType dtype);
// Zeros of t's type; t's shape may have unknown dimensions (a graph value).
Tensor zerosLike(const Tensor& t);
// g broadcast to t's shape (the gradient of a reduction, a broadcast operand).
Tensor broadcastLike(const Tensor& g, const Tensor& t);
// g summed over the dimensions that broadcasting added to an operand of shape `shape`.
Tensor unbroadcast(const Tensor& g, const Shape& shape);
// g reshaped to t's shape (at most one unknown dimension).
Tensor reshapeLike(const Tensor& g, const Tensor& t);
// The float mask (0 or 1, of dtype) of a bool tensor.
Tensor maskOf(const Tensor& b, DType dtype);

}  // namespace weft::autodiff
