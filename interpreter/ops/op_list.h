// Every primitive op of Weft, its id (OpId), its name in graph text and its input count: X(Family,
// Id, "name", arity, ...), arity -1 variadic. Everything else an op is, its row says (op_table.h),
// filled by its family's file (ops/FAMILY.cpp) and by its rules in the layers above. The
// elementwise and reduce lists add the columns every member has: the runtime functor
// (stdlib/runtime) and, for elementwise ops, the dtype rule.
#pragma once
#include <string>

namespace weft::ops {

// Which dtypes a unary op accepts; its result has the input's dtype.
enum class UnaryRule {
  Float,    // f32, f64 ("exp is not defined for i32")
  Numeric,  // f32, f64, i32, i64
  Logical,  // bool only
};

// Which dtypes a binary op accepts (both operands equal) and what it returns.
enum class BinaryRule {
  Arith,    // numeric -> same dtype
  IntDiv,   // numeric -> same; integer division by zero is an error (// and %)
  Power,    // numeric -> same; a negative integer exponent is an error
  TrueDiv,  // numeric -> float: i32 -> f32, i64 -> f64
  Order,    // any dtype -> same (maximum, minimum)
  Compare,  // any dtype -> bool
  Logical,  // bool -> bool
};

// X(Family, Id, "name", arity, runtime functor, rule)
#define WEFT_FOR_EACH_UNARY_OP(X)                 \
  X(Unary, Neg, "neg", 1, Neg, Numeric)           \
  X(Unary, Abs, "abs", 1, Abs, Numeric)           \
  X(Unary, Exp, "exp", 1, Exp, Float)             \
  X(Unary, Log, "log", 1, Log, Float)             \
  X(Unary, Sqrt, "sqrt", 1, Sqrt, Float)          \
  X(Unary, Rsqrt, "rsqrt", 1, Rsqrt, Float)       \
  X(Unary, Tanh, "tanh", 1, Tanh, Float)          \
  X(Unary, Sigmoid, "sigmoid", 1, Sigmoid, Float) \
  X(Unary, Relu, "relu", 1, Relu, Numeric)        \
  X(Unary, Erf, "erf", 1, Erf, Float)             \
  X(Unary, Sin, "sin", 1, Sin, Float)             \
  X(Unary, Cos, "cos", 1, Cos, Float)             \
  X(Unary, Floor, "floor", 1, Floor, Float)       \
  X(Unary, Ceil, "ceil", 1, Ceil, Float)          \
  X(Unary, Round, "round", 1, Round, Float)       \
  X(Unary, Sign, "sign", 1, Sign, Numeric)        \
  X(Unary, Not, "not", 1, Not, Logical)           \
  X(Unary, Log1p, "log1p", 1, Log1p, Float)       \
  X(Unary, Expm1, "expm1", 1, Expm1, Float)       \
  X(Unary, Square, "square", 1, Square, Numeric)

// X(Family, Id, "name", arity, runtime functor, rule)
#define WEFT_FOR_EACH_BINARY_OP(X)                        \
  X(Binary, Add, "add", 2, Add, Arith)                    \
  X(Binary, Sub, "sub", 2, Sub, Arith)                    \
  X(Binary, Mul, "mul", 2, Mul, Arith)                    \
  X(Binary, Div, "div", 2, Div, TrueDiv)                  \
  X(Binary, FloorDiv, "floordiv", 2, FloorDiv, IntDiv)    \
  X(Binary, Mod, "mod", 2, Mod, IntDiv)                   \
  X(Binary, Pow, "pow", 2, Pow, Power)                    \
  X(Binary, Maximum, "maximum", 2, Maximum, Order)        \
  X(Binary, Minimum, "minimum", 2, Minimum, Order)        \
  X(Binary, Eq, "eq", 2, Eq, Compare)                     \
  X(Binary, Ne, "ne", 2, Ne, Compare)                     \
  X(Binary, Lt, "lt", 2, Lt, Compare)                     \
  X(Binary, Le, "le", 2, Le, Compare)                     \
  X(Binary, Gt, "gt", 2, Gt, Compare)                     \
  X(Binary, Ge, "ge", 2, Ge, Compare)                     \
  X(Binary, And, "and", 2, And, Logical)                  \
  X(Binary, Or, "or", 2, Or, Logical)

// X(Family, Id, "name", arity, runtime reducer)
#define WEFT_FOR_EACH_REDUCE_OP(X)      \
  X(Reduce, Sum, "sum", 1, SumR)        \
  X(Reduce, Mean, "mean", 1, SumR)      \
  X(Reduce, Max, "max", 1, MaxR)        \
  X(Reduce, Min, "min", 1, MinR)        \
  X(Reduce, Prod, "prod", 1, ProdR)     \
  X(Reduce, Any, "any", 1, AnyR)        \
  X(Reduce, All, "all", 1, AllR)

// The other ops with a kernel: X(Family, Id, "name", arity). Family is empty, so OpId is just Id;
// each op's row says what it computes.
#define WEFT_FOR_EACH_OTHER_OP(X)                    \
  X(, MatMul, "matmul", 2)                           \
  X(, ArgMax, "argmax", 1)                           \
  X(, ArgMin, "argmin", 1)                           \
  X(, KthLargest, "kth_largest", 1)                  \
  X(, Cast, "cast", 1)                               \
  X(, Reshape, "reshape", 1)                         \
  X(, Transpose, "transpose", 1)                     \
  X(, BroadcastTo, "broadcast_to", 1)                \
  X(, Concat, "concat", -1)                          \
  X(, Stack, "stack", -1)                            \
  X(, Split, "split", 1)                             \
  X(, Squeeze, "squeeze", 1)                         \
  X(, ExpandDims, "expand_dims", 1)                  \
  X(, Where, "where", 3)                             \
  X(, Clip, "clip", 3)                               \
  X(, OneHot, "one_hot", 1)                          \
  X(, GetItem, "getitem", 1)                         \
  X(, SetItem, "setitem", 2)                         \
  X(, Take, "take", 2)                               \
  X(, BroadcastRows, "broadcast_rows", 2)            \
  X(, UpdateRow, "update_row", 3)                    \
  X(, Full, "full", 0)                               \
  X(, Eye, "eye", 0)                                 \
  X(, Arange, "arange", 0)                           \
  X(, Linspace, "linspace", 0)                       \
  X(, RandomNormal, "random_normal", 0)              \
  X(, RandomUniform, "random_uniform", 0)            \
  X(, RandomTruncatedNormal, "random_truncated_normal", 0) \
  X(, Conv2D, "conv2d", 2)                           \
  X(, MaxPool2D, "max_pool2d", 1)                    \
  X(, AvgPool2D, "avg_pool2d", 1)                    \
  X(, Conv2DBackpropInput, "conv2d_backprop_input", 2)   \
  X(, Conv2DBackpropFilter, "conv2d_backprop_filter", 2) \
  X(, MaxPool2DGrad, "max_pool2d_grad", 2)               \
  X(, AvgPool2DGrad, "avg_pool2d_grad", 1)               \
  X(, MaxPool2DGradGrad, "max_pool2d_grad_grad", 2)      \
  X(, Attention, "scaled_dot_product_attention", -1)     \
  X(, AttentionGrad, "scaled_dot_product_attention_grad", -1) \
  X(, LayerNorm, "layer_norm", 3)                    \
  X(, LayerNormGrad, "layer_norm_grad", 3)           \
  X(, Gelu, "gelu", 1)                               \
  X(, AdamUpdate, "adam_update", 8)                  \
  X(, ShapeOf, "shape", 1)                           \
  X(, AllReduce, "all_reduce", 1)                    \
  X(, AllGather, "all_gather", 1)                    \
  X(, ReduceScatter, "reduce_scatter", 1)            \
  X(, AllToAll, "all_to_all", 1)                     \
  X(, LocalSlice, "local_slice", 1)                  \
  X(, Relayout, "relayout", 1)

// The ops that exist only in graphs, with neither inference nor kernel: X(Family, Id, "name", arity).
#define WEFT_FOR_EACH_GRAPH_ONLY_OP(X)               \
  X(, Constant, "constant", 0)                       \
  X(, ReadVariable, "read_variable", 0)              \
  X(, AssignVariable, "assign_variable", 1)          \
  X(, Print, "print", -1)                            \
  X(, Check, "check", 1)                             \
  X(, Cond, "cond", -1)                              \
  X(, While, "while", -1)

// The ops with a kernel, then every op.
#define WEFT_FOR_EACH_KERNEL_OP(X) \
  WEFT_FOR_EACH_UNARY_OP(X)        \
  WEFT_FOR_EACH_BINARY_OP(X)       \
  WEFT_FOR_EACH_REDUCE_OP(X)       \
  WEFT_FOR_EACH_OTHER_OP(X)
#define WEFT_FOR_EACH_OP(X)   \
  WEFT_FOR_EACH_KERNEL_OP(X)  \
  WEFT_FOR_EACH_GRAPH_ONLY_OP(X)

// `case OpId::Id:` for each op of a list: a switch handling the graph-only ops itself names the
// others with WEFT_FOR_EACH_KERNEL_OP(WEFT_OP_CASE), so that -Wswitch still sees every op.
#define WEFT_OP_CASE(F, Id, ...) case OpId::F##Id:

// OpId::UnaryNeg, OpId::BinaryAdd, OpId::ReduceSum, OpId::MatMul, ...
enum class OpId {
#define WEFT_OP_ENUM(F, Id, ...) F##Id,
  WEFT_FOR_EACH_OP(WEFT_OP_ENUM)
#undef WEFT_OP_ENUM
};

#define WEFT_OP_COUNT(...) +1
inline constexpr int kOpCount = 0 WEFT_FOR_EACH_OP(WEFT_OP_COUNT);
#undef WEFT_OP_COUNT

const char* opName(OpId op);
// The builtin function of an elementwise op, or nullptr when it has none (operators only: `-x`,
// `a + b`, `a < b`, ...): unary ops by their name, logical ones with the prefix NumPy uses
// (`logical_not`); binary ops whose call form is the usual spelling (`maximum`, `minimum`,
// `pow`, `logical_and`, `logical_or`). builtins/tensor_math.cpp registers these.
std::string builtinName(OpId op);
int opArity(OpId op);  // -1: variadic

}  // namespace weft::ops
