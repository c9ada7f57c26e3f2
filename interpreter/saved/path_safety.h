// The file names a saved model's manifest gives are untrusted: each must name a regular file
// inside the model's folder. These checks are what keep `../../etc/passwd`, absolute paths and
// symlinks that point out of the folder from being read.
#pragma once
#include <string>

namespace weft::saved {

// Why `rel` is not a relative path of plain components ("is too long"), "" when it is: no empty
// component, no "." or "..", no backslash or control character, at most 255 bytes.
std::string relativeNameProblem(const std::string& rel);

// The path of `rel` inside `dir` (dir/rel), after checking that it exists, that it is a regular
// file and that, with every symlink resolved, it is still inside `dir`. Throws WeftError naming
// dir/rel otherwise.
std::string fileInside(const std::string& dir, const std::string& rel);

// Reads a whole file of at most maxBytes; throws WeftError naming `path` when it cannot be read
// or is larger.
std::string readSmallFile(const std::string& path, size_t maxBytes);

}  // namespace weft::saved
