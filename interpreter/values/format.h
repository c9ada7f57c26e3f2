// How values print (SPEC §2): floats as Python's repr at their dtype's precision, tensors as
// nested lists, containers as Python prints them.
#pragma once
#include <string>

#include "value.h"

namespace weft {

std::string formatFloat(double v, DType dtype);  // shortest round-trip text, Python's layout
std::string formatTensor(const Tensor& t);
// `print` text: a string is its text.
std::string toStr(const Value& v);
// Inside containers and in the REPL: a string is quoted.
std::string toRepr(const Value& v);
std::string typeNameOf(const Value& v);  // "f32[2, 3]", "list", "Dense", ...
std::string aTypeName(const Value& v);   // with its article, as messages say it: "an f32[]", "a list"
// Text as a print node's format shows it: braces doubled.
std::string escapeBraces(const std::string& text);
// An f-string field: `v` formatted by Python's format spec (".4f", ">8", "+,d"); empty is str(v).
std::string formatWithSpec(const Value& v, const std::string& spec);
std::string withCommas(int64_t n);  // 1,234,567 (Keras' totals)
std::string humanBytes(int64_t n);  // 1.2 MiB

}  // namespace weft
