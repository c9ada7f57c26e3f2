// "did you mean ...?" for misspelt names.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace weft {

// Edit distance between two names: insertions, deletions, substitutions and swaps of two adjacent
// letters (the optimal string alignment distance).
size_t editDistance(const std::string& a, const std::string& b);

// The candidate closest to `name` by edit distance, if close enough to be a likely typo.
std::optional<std::string> closestName(const std::string& name, const std::vector<std::string>& candidates);

// "name 'x' is not defined" with a hint: other libraries' dtype names (float16, double) get
// Weft's dtypes, Keras' mnist the dataset there is, anything else the closest candidate.
std::string undefinedNameMessage(const std::string& name, const std::vector<std::string>& candidates);

// "'tf' has no member 'reduce_meen'; did you mean 'reduce_mean'?" of a namespace or an import.
std::string noMemberMessage(const std::string& owner, const std::string& member, const std::vector<std::string>& members);

// "f() got an unexpected keyword argument 'activaton'; did you mean 'activation'?"
std::string unexpectedKeywordMessage(const std::string& fn, const std::string& key, const std::vector<std::string>& params);

// The library whose prefix a name is (`tf` of `tf.reduce_mean`, `keras`, `np`): "TensorFlow's",
// ...; nullopt for other names.
std::optional<std::string> libraryOfPrefix(const std::string& name);

// `tf.math.reduce_mean` where tf is bound nowhere: Weft's builtins are the library's names without
// the prefix. `member` is the last name of the chain; `known`, whether it is a builtin; `candidates`
// the names it may be a misspelling of.
std::string libraryPrefixMessage(const std::string& prefix, const std::string& member, bool known,
                                 const std::vector<std::string>& candidates);

// "cannot import 'tensorflow': no stdlib module of that name and no file ./tensorflow.model", and
// for TensorFlow, Keras or NumPy that their names need no import.
std::string noModuleMessage(const std::string& spec, const std::string& file);

// The valid dtypes as a message lists them.
extern const char* const kDTypeList;

}  // namespace weft
