#include "graph.h"

namespace weft::graph {

std::string typeText(const TensorType& t) {
  std::string s = std::string(rt::dtypeName(t.dtype)) + "[";
  for (int i = 0; i < t.shape.rank(); ++i) {
    if (i) s += ", ";
    s += t.shape[i] == rt::kUnknownDim ? std::string("None") : std::to_string(t.shape[i]);
  }
  return s + "]";
}

bool accepts(const TensorType& t, DType dtype, const Shape& actual) {
  if (dtype != t.dtype || actual.rank() != t.shape.rank()) return false;
  for (int i = 0; i < actual.rank(); ++i)
    if (t.shape[i] != rt::kUnknownDim && t.shape[i] != actual[i]) return false;
  return true;
}

}  // namespace weft::graph
