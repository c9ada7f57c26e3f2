// NumPy's .npy files (format versions 1.0, 2.0 and 3.0): little-endian f4, f8, i4, i8 and b1
// arrays in C order. Anything else (Fortran order, big-endian, other dtypes, a malformed or
// truncated file) is a WeftError naming the file, never a crash: every size read from the file
// is bounded before use. See https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#pragma once
#include <string>

#include "../values/tensor.h"

namespace weft::saved {

Tensor readNpy(const std::string& path);
// Writes version 1.0 (2.0 if the header needs it), the header padded to 64 bytes as NumPy does.
void writeNpy(const std::string& path, const Tensor& t);

}  // namespace weft::saved
