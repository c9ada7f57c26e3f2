// Names and text on their way to terminals and generated code: control characters found and
// shown escaped; any name a C++ identifier that no header, keyword or generated name takes.
#include <doctest/doctest.h>

#include "codegen/emit/function_emitter.h"
#include "codegen/names.h"
#include "grammar/shown_text.h"

using namespace weft;
using namespace weft::codegen;

TEST_CASE("control characters are shown as escapes, everything else as it is") {
  CHECK(shownText("a\x1b[31mb") == "a\\x1b[31mb");
  CHECK(shownText(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(shownText("x\ny\tz\x7f") == "x\\x0ay\\x09z\\x7f");
  CHECK(shownText("x\ny\tz", true) == "x\ny\tz");
  CHECK(shownText("\xc2\x9b" "2J") == "\\u009b2J");  // C1 CSI
  CHECK(shownText("\xff" "a") == "\\xffa");          // no UTF-8 character
  CHECK(shownText("é ü 日本 */ \" \\ ${x} `y`") == "é ü 日本 */ \" \\ ${x} `y`");
}

TEST_CASE("the first control character is found, with a reason naming it") {
  CHECK(!firstControl("plain/name.0"));
  CHECK(!firstControl("é"));
  CHECK(firstControl("ab\ncd") == size_t(2));
  CHECK(firstControl("\t") == size_t(0));
  CHECK(firstControl("a\xc2\x85") == size_t(1));
  CHECK(controlCharacterReason("ab\ncd", 2) == "contains a control character (\\x0a at byte 2)");
  CHECK(controlCharacterReason("a\xfe", 1) == "contains a byte of no UTF-8 character (\\xfe at byte 1)");
}

TEST_CASE("names clashing with C, C++, CMake or the generated code get an underscore") {
  for (const char* n : {"log", "exp2", "rand", "new", "class", "NULL", "EOF", "errno", "stdin", "assert", "linux",
                        "unix", "math", "test", "all", "std", "weft", "Eigen", "State", "Shape", "main", "load"})
    CHECK(cppName(n) == std::string(n) + "_");
  for (const char* n : {"predict", "x", "kernel", "dense_1", "shape", "mlp", "train_step"}) CHECK(cppName(n) == n);
  CHECK(cppName("dense/kernel") == "dense_kernel");
  CHECK(cppName("1x") == "_1x");
  CHECK(className("shape") == "Shape_");
  CHECK(className("NULL") == "NULL_");
  CHECK(className("predict_step") == "PredictStep");
  CHECK(className("_5") == "Export5");
  CHECK(className("__") == "Export");
}

TEST_CASE("names the compiler reserves lose their leading underscores") {
  // Its macros and keywords start with "__" or "_" and a capital: as a member or a parameter,
  // __LINE__ would be a number and _Pragma an operator.
  CHECK(cppName("__LINE__") == "LINE__");
  CHECK(cppName("__cplusplus") == "cplusplus");
  CHECK(cppName("_Pragma") == "Pragma");
  CHECK(cppName("__attribute__") == "attribute__");
  CHECK(cppName("_GNU_SOURCE") == "GNU_SOURCE");
  CHECK(cppName("__") == "_");
  CHECK(cppName("_x") == "_x");
  CHECK(cppName("_1") == "_1");
  CHECK(cppName("a__b") == "a__b");
  CHECK(namespaceName("__FILE__") == "FILE__");
  CHECK(namespaceName("__linux__") == "linux__");
  CHECK(cppName("__linux") == "linux_");  // then the macro linux
}

TEST_CASE("names too long for a file name are cut, and stay unique") {
  const std::string longName(300, 'n');
  CHECK(cppName(longName) == std::string(kMaxIdentifier, 'n'));
  CHECK(namespaceName(longName + ".x").size() == kMaxIdentifier);
  std::set<std::string> taken;
  CHECK(uniqueIdent(longName, taken) == std::string(kMaxIdentifier, 'n'));
  CHECK(uniqueIdent(longName + "m", taken) == std::string(kMaxIdentifier, 'n') + "_1");
}

TEST_CASE("identifiers differing only in case are made unique: they name files") {
  std::set<std::string> taken;
  CHECK(uniqueIdent("w", taken) == "w");
  CHECK(uniqueIdent("W", taken) == "W_1");
  CHECK(uniqueIdent("Dense/Kernel", taken) == "Dense_Kernel");
  CHECK(uniqueIdent("dense/kernel", taken) == "dense_kernel_1");
  CHECK(uniqueIdent("w_1", taken) == "w_1_1");
}

TEST_CASE("a program's namespace is readable for any file or folder name") {
  CHECK(namespaceName("mlp") == "mlp");
  CHECK(namespaceName("1") == "model_1");
  CHECK(namespaceName("_x") == "model_x");
  CHECK(namespaceName("log") == "log_");
  CHECK(namespaceName("new") == "new_");
  CHECK(namespaceName("my model-2") == "my_model_2");
  CHECK(namespaceName("") == "model_");
}

TEST_CASE("text in generated comments and literals cannot end them") {
  CHECK(commentText("x\n#error y") == "x\\x0a#error y");
  CHECK(commentText("ends in \\") == "ends in \\\\");
  CHECK(commentText("*/ \" ${x}") == "*/ \" ${x}");
  CHECK(literalText("a\"b\\c\nd") == "a\\\"b\\\\c\\\\x0ad");
}
