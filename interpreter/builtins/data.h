// The data helpers of SPEC §6 (docs/data.md): file readers that the builtins load_csv, load_idx and
// fashion_mnist call, also used by the unit tests and the fuzz target. Every failure is a
// WeftError "FN: ... 'PATH' ..." naming the file (and line, for CSV); sizes read from a file are
// bounded by the file's real size before anything is allocated.
#pragma once
#include <optional>
#include <string>

#include "../values/env.h"
#include "../values/tensor.h"

namespace weft::data {

// An IDX file (the format of MNIST and Fashion-MNIST), gzip-compressed or not: u8, i8, i16 and
// i32 elements give an i32 tensor, f32 and f64 their own. `as` converts to another dtype and
// `divisor` divides each element (fashion_mnist's images: f32, by 255). `fn` names the builtin.
Tensor readIdx(const std::string& path, const std::string& fn = "load_idx", std::optional<DType> as = {},
               double divisor = 1.0);

struct CsvOptions {
  std::optional<char> delimiter = ',';  // none: any run of spaces and tabs, as NumPy's default
  int64_t skipHeader = 0;               // lines skipped first (NumPy's skip_header / skiprows)
  DType dtype = DType::F32;
};
// A text file of numbers, one row per line: a [rows, columns] tensor. Blank lines are skipped;
// rows must all have the same number of values.
Tensor readCsv(const std::string& path, const CsvOptions& options);
// A file's bytes as an i32 tensor [n] of values 0..255 (data_text.cpp).
Tensor readBytes(const std::string& path);
// The text of a tensor of byte values, printable: other bytes as \xNN escapes (data_text.cpp).
std::string decodeBytes(const Tensor& t);

}  // namespace weft::data

namespace weft {
void registerDataFiles(Env& env);    // load_csv, load_idx, load_bytes (data_csv.cpp, data_idx.cpp, data_text.cpp)
void registerBatches(Env& env);      // batches (data_batches.cpp)
void registerFashionMnist(Env& env); // fashion_mnist (data_fashion_mnist.cpp)
}  // namespace weft
