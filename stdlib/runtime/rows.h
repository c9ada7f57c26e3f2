// A stack of rows written at run-time indices (broadcast_rows, update_row): what the
// interpreter's kernels and compiled code share.
#pragma once
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace weft::rt {

// n copies of a row of `rowBytes` bytes, one after another at dst.
inline void fillRows(void* dst, const void* row, size_t rowBytes, int64_t n) {
  for (int64_t r = 0; r < n; ++r) std::memcpy(static_cast<char*>(dst) + size_t(r) * rowBytes, row, rowBytes);
}

// Why n rows of rowBytes cannot be a stack, or "".
inline std::string rowCountError(int64_t n, size_t rowBytes) {
  if (n < 0) return "the row count " + std::to_string(n) + " is negative";
  if (rowBytes && uint64_t(n) > uint64_t(INT64_MAX) / rowBytes) return "the row count " + std::to_string(n) + " is too large";
  return "";
}

// Why row i of a stack of `rows` rows cannot be written, or "".
inline std::string rowIndexError(int64_t i, int64_t rows) {
  if (i >= 0 && i < rows) return "";
  return "row " + std::to_string(i) + " is out of range for " + std::to_string(rows) + " rows";
}

}  // namespace weft::rt
