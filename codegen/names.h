// Names in generated code (SPEC §9): what a program or a saved model names — a file's stem, a
// folder, an export, a variable's path, an input — as C++ identifiers that build wherever they
// land, and any text as a generated comment or string literal carries it. Text is never code.
#pragma once
#include <set>
#include <string>

namespace weft::codegen {

// The longest identifier made from a name: it also names files.
inline constexpr size_t kMaxIdentifier = 200;
// A C++ identifier from any text: other characters become '_', a leading digit gets one too;
// leading underscores go where they would start a name the compiler reserves ("__LINE__" ->
// "LINE__", "_Pragma" -> "Pragma"); past kMaxIdentifier characters it is cut.
std::string identifier(const std::string& text);
// Whether generated code cannot take the identifier as a name of its own: a C++ keyword, a name
// its headers declare at global scope or define as a macro ("log", "NULL", "linux"), a header its
// -I folder would shadow ("math"), a target CMake reserves ("test"), or a name the generated
// code itself uses ("State", "Shape", "std").
bool reservedName(const std::string& id);
// identifier(text), with '_' appended when it is reserved: "log" -> "log_", "NULL" -> "NULL_".
std::string cppName(const std::string& text);
// A name as a file system that ignores case compares it (macOS's, Windows'): in lower case.
std::string foldedName(std::string name);
// cppName(text), made unique among `taken` (which it joins), folded names: "dense_kernel",
// "dense_kernel_1"; "W" after "w" is "W_1", since each also names a file (weights/IDENT.npy).
std::string uniqueIdent(const std::string& text, std::set<std::string>& taken);
// The namespace of a program's code: cppName of its file stem or folder, with "model" before a
// leading digit or '_' ("1" -> "model_1").
std::string namespaceName(const std::string& stem);
// Text as a `//` or `#` comment carries it: control characters escaped (a newline would end the
// comment), and backslashes (one before a newline would continue it).
std::string commentText(const std::string& text);
// Text that lands both in a comment and inside a C++ string literal (a node's source file, in its
// comment and its error messages): control characters escaped, then backslashes and quotes, so
// that the literal holds the escapes themselves.
std::string literalText(const std::string& text);

}  // namespace weft::codegen
