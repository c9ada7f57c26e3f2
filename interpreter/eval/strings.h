// Python's string methods (`s.split()`, `", ".join(xs)`, `"{:.2f}".format(x)`, ...) and its
// printf-style `%` formatting ("%d/%d" % (i, n)).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../values/objects.h"

namespace weft {

class Interpreter;

// The method `name` of string `self`, or nullopt when strings have none of that name.
std::optional<Value> stringMethod(Interpreter& in, const Value& self, const std::string& name);
std::vector<std::string> stringMethodNames();  // for "did you mean"

// `format % args`: a tuple gives one value per conversion, anything else is the one value.
Value percentFormat(const std::string& format, const Value& args);

}  // namespace weft
