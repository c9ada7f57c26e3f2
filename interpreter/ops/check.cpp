#include "check.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "../../grammar/diagnostics.h"

namespace weft::ops {

void fail(const std::string& message) { throw WeftError(message); }

std::string numStr(double v) {
  if (std::isnan(v)) return "nan";  // not printf's "-nan", as the printer shows it
  char buf[32];
  snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the shortest form that reads back exactly.
  for (int prec = 1; prec <= 17; ++prec) {
    char shorter[32];
    snprintf(shorter, sizeof shorter, "%.*g", prec, v);
    if (strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

int normalizeAxis(const char* op, int axis, int rank, const Shape& shape) {
  if (axis < -rank || axis >= rank)
    fail(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for shape " +
         shape.str());
  return axis < 0 ? axis + rank : axis;
}

int normalizeAxis(const char* op, int axis, const Shape& shape) {
  return normalizeAxis(op, axis, shape.rank(), shape);
}

void checkRank(const char* op, int rank) {
  if (rank > rt::kMaxRank)
    fail(std::string(op) + ": the result would have rank " + std::to_string(rank) +
         ", more than the maximum of " + std::to_string(rt::kMaxRank));
}

void checkShape(const char* op, const Shape& shape) {
  for (int64_t d : shape)
    if (d < 0) {
      std::string dims;  // as the user wrote them (str() shows -1 as an unknown dimension)
      for (int64_t x : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(x);
      fail(std::string(op) + ": negative dimension in shape [" + dims + "]");
    }
  checkedSize(op, shape.checkedNumel(), "the element count of shape " + shape.str());
}

int64_t checkedSize(const char* op, std::optional<int64_t> size, const std::string& what) {
  if (!size) fail(std::string(op) + ": " + what + " overflows int64");
  return *size;
}

void checkIntIndices(const char* op, DType t) {
  if (!rt::isInt(t)) fail(std::string(op) + ": indices must be i32 or i64, got " + dtypeStr(t));
}

}  // namespace weft::ops
