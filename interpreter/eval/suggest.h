// "did you mean ...?" for misspelt names.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace weft {

// Levenshtein distance between two names.
size_t editDistance(const std::string& a, const std::string& b);

// The candidate closest to `name` by edit distance, if close enough to be a likely typo.
std::optional<std::string> closestName(const std::string& name, const std::vector<std::string>& candidates);

// "name 'x' is not defined" with a hint: Keras' and NumPy's dtype names (float32, float16) get
// Weft's dtypes, anything else the closest candidate.
std::string undefinedNameMessage(const std::string& name, const std::vector<std::string>& candidates);

// The valid dtypes as a message lists them.
extern const char* const kDTypeList;

}  // namespace weft
