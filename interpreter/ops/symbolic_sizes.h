// Symbolic sizes for the op table's inference column. While a SymbolicSizes lives on a thread,
// a dimension of a TensorType (an int64, as everywhere else) may stand for a Dim: a handle,
// below any size, that the table interns (equal expressions, one handle). The inference
// functions do their size arithmetic and comparisons through the `sizes::` helpers below,
// which compute on known sizes as before, keep rt::kUnknownDim unknown (graphs traced for the
// executor), and on handles build expressions and record what the code must check when it
// runs. So one inference function gives eager results, graph types, and the C++ emitter's size
// expressions and run-time checks (codegen/emit/ prints them).
#pragma once
#include <map>
#include <optional>
#include <vector>

#include "../values/tensor.h"
#include "dim.h"

namespace weft::ops {

// A condition on sizes that a compiled call checks before it runs.
struct SizeRequirement {
  enum Kind {
    Equal,      // a == b
    Broadcast,  // a == b, or either is 1
    BroadcastTo,  // a == b or a == 1 (a broadcasts to b)
    InRange,    // 0 <= a < b (an index into a dimension of size b)
  };
  Kind kind;
  Dim a, b;
};

class SymbolicSizes {
 public:
  SymbolicSizes();  // active on this thread until destroyed (they nest)
  ~SymbolicSizes();
  SymbolicSizes(const SymbolicSizes&) = delete;
  SymbolicSizes& operator=(const SymbolicSizes&) = delete;

  int64_t encode(const Dim& d);      // a constant is itself; an expression, its handle
  Dim decode(int64_t v) const;       // a handle's expression; any other value, that constant
  Shape encode(const std::vector<Dim>& dims);
  std::vector<Dim> decode(const Shape& s) const;
  bool isHandle(int64_t v) const { return v >= kFirst && v < kFirst + int64_t(dims_.size()); }

  void require(SizeRequirement::Kind kind, const Dim& a, const Dim& b);
  // The requirements recorded since the last call, in order, each once.
  std::vector<SizeRequirement> takeRequirements();

  static SymbolicSizes* active();

 private:
  // Handles sit at the bottom of int64, where no size, stride or offset reaches.
  static constexpr int64_t kFirst = INT64_MIN + 1;
  std::vector<Dim> dims_;
  std::map<std::string, int64_t> handles_;  // by the expression's text
  std::vector<SizeRequirement> required_;
  SymbolicSizes* outer_;
};

// The size arithmetic of inference functions. Known sizes compute as plain checked integers
// (nullopt on overflow, as rt::sizeAdd); a handle makes a handle. Where a function takes two
// dimensions, kUnknownDim (graphs traced for the executor) stays unknown; where it takes a plain
// integer (`k`, an index, a step), that integer may be any value.
namespace sizes {

bool symbolic(int64_t d);  // a handle of the active table
std::optional<int64_t> add(int64_t a, int64_t b);
std::optional<int64_t> mul(int64_t a, int64_t b);
int64_t offset(int64_t d, int64_t k);  // d + k
int64_t times(int64_t k, int64_t d);   // k * d
int64_t floorDiv(int64_t a, int64_t b);  // b > 0, both known or symbolic
// Whether two sizes may be equal: known ones equal; a symbolic one (then the code checks a == b).
bool same(int64_t a, int64_t b);
// Whether 0 <= i < n may hold; with a symbolic n or i the code checks it.
bool inRange(int64_t i, int64_t n);
// NumPy's rule for one dimension of two operands; false when they cannot broadcast.
bool broadcast(int64_t a, int64_t b, int64_t& out);
// The element count (kUnknownDim when a size is unknown, nullopt on overflow).
std::optional<int64_t> numel(const Shape& s);
// Row-major strides, in elements.
std::array<int64_t, rt::kMaxRank> strides(const Shape& s);
// An opaque term of the runtime's: `fn(args...)` when an argument is symbolic, else null (the
// caller computes it itself).
std::optional<int64_t> call(const char* fn, const std::vector<int64_t>& args);

}  // namespace sizes

// NumPy broadcasting of two shapes through sizes::broadcast; false if they are incompatible.
bool broadcastShapes(const Shape& a, const Shape& b, Shape& out);
// Whether `from` broadcasts to `to` unchanged (broadcast_to, an assigned value).
bool broadcastsTo(const Shape& from, const Shape& to);

}  // namespace weft::ops
