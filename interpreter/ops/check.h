// Validation helpers shared by the op families: every user mistake becomes a WeftError whose
// message names the op, the axis and the shapes involved.
#pragma once
#include <optional>
#include <string>

#include "../values/tensor.h"

namespace weft::ops {

[[noreturn]] void fail(const std::string& message);

inline std::string dtypeStr(DType t) { return rt::dtypeName(t); }
// A double as the user wrote it: 2, 0.5, 1e-07 (not std::to_string's 2.000000).
std::string numStr(double v);

// Maps a possibly negative axis into [0, rank) for `shape`, or fails:
// "sum: axis 2 is out of range for shape [2, 3]".
int normalizeAxis(const char* op, int axis, const Shape& shape);
// The same for an axis of a tensor of rank `rank` (expand_dims and stack: rank + 1 positions).
int normalizeAxis(const char* op, int axis, int rank, const Shape& shape);

// Fails when a result would have more than rt::kMaxRank dimensions.
void checkRank(const char* op, int rank);

// Fails if a dimension is negative, or the element count overflows int64:
// "full: negative dimension in shape [2, -1]".
void checkShape(const char* op, const Shape& shape);

// The result of checked size arithmetic (rt::sizeAdd, rt::sizeMul), or fails naming the op and
// what overflowed: "concat: the size along axis 0 of shapes [9223372036854775807] and [2] overflows int64".
int64_t checkedSize(const char* op, std::optional<int64_t> size, const std::string& what);

// Fails unless indices of dtype t are i32 or i64.
void checkIntIndices(const char* op, DType t);

}  // namespace weft::ops
