// What the op families' files fill the op table with: each file defines its ops' rows beside
// their kernels (ops/FAMILY.cpp), and op_table.cpp calls every family's when it builds the table.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "../../grammar/diagnostics.h"
#include "op_table.h"

namespace weft::ops {

// The row of `id`, in `family`, with its name and arity from op_list.h, for its family's file to
// fill: attributes, properties, inference, kernel. Each op's row is defined once.
OpDef& defineRow(OpId id, Family family);

// Each family's rows, in the file of that name.
void defineElementwiseRows();  // elementwise.cpp: the unary and binary lists, cast
void defineGeluRows();         // gelu.cpp
void defineReduceRows();       // reduce.cpp: the reduce list, argmax, argmin, kth_largest
void defineMatMulRows();       // matmul.cpp
void defineShapeRows();        // shape_ops.cpp: reshape, transpose, squeeze, expand_dims, shape, relayout
void defineJoinRows();         // join.cpp: concat, stack, split
void defineSelectRows();       // select.cpp: where, clip, one_hot, broadcast_to
void defineIndexingRows();     // indexing.cpp: getitem, setitem, take, broadcast_rows, update_row
void defineCreateRows();       // create.cpp: full, eye, arange, linspace
void defineRandomRows();       // random.cpp
void defineConvRows();         // conv.cpp: conv2d, the pools and their gradients
void defineAttentionRows();    // attention.cpp
void defineLayerNormRows();    // layer_norm.cpp
void defineAdamRows();         // adam.cpp
void defineCollectiveRows();   // collective.cpp
void defineGraphOnlyRows();    // graph_only.cpp: constant, the variables, print, check, cond, while

// The shorthands of the rows' adapters, from (inputs, attributes) to the kernels of impl.h.
namespace rows {

using K = AttrKind;
using In = std::span<const Tensor>;
using Out = std::vector<Tensor>;
using Ty = std::span<const TensorType>;
using Types = std::vector<TensorType>;

inline std::vector<int> intsOf(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }
inline Shape shapeOf(const std::vector<int64_t>& v) {
  Shape s;
  for (int64_t d : v) s.push_back(d);
  return s;
}
// A (height, width) attribute, which a graph's text may hold in any length.
inline std::array<int64_t, 2> pairAttr(OpId op, const Attrs& a, const char* key) {
  const std::vector<int64_t>& v = a.ints(key);
  if (v.size() != 2)
    throw WeftError(std::string(opName(op)) + ": attribute '" + key + "' must hold 2 integers (height, width), got " +
                    std::to_string(v.size()));
  return {v[0], v[1]};
}

}  // namespace rows
}  // namespace weft::ops
