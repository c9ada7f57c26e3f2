// The VJP rules of the primitive ops (the op table's `vjp` column, op_table.h), one file per op
// family. Each rule is built from ops, so a gradient runs eagerly, traces into a graph and
// compiles like any other code.
#pragma once
#include "../ops/op_table.h"

namespace weft::autodiff {

// Fills the op table's `vjp` column, family by family; the top level calls it once at startup
// (weft::installBuiltins, interpreter/builtins/builtins.h).
void registerVjpRules();

// The rule of ops whose results are piecewise constant in their inputs, or not differentiable
// (comparisons, argmax, floor, creation, random): no gradient flows through them.
ops::VjpResult noGradient(const ops::VjpArgs& a);

// Each family's file registers its ops' rules (ops::setVjp).
void registerElementwiseVjps();  // elementwise.cpp: the unary and binary lists, gelu
void registerReductionVjps();    // reductions.cpp: the reductions, argmax, argmin, kth_largest
void registerMatMulVjps();       // matmul.cpp
void registerShapeVjps();        // shape_ops.cpp: cast, the layout ops, shape
void registerIndexingVjps();     // indexing.cpp: where, clip, indexing, take, one_hot, the rows
void registerConvVjps();         // conv.cpp: conv2d, the pools and their gradients
void registerAttentionVjps();    // attention.cpp
void registerLayerNormVjps();    // layer_norm.cpp
void registerCollectiveVjps();   // collective.cpp: the collectives, relayout
void registerNoGradientVjps();   // no_gradient.cpp: creation, random, adam_update

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
