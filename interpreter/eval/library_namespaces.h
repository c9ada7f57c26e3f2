// The namespaces `tf` and `keras`: TensorFlow's and Keras' spellings of Weft's own objects.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../values/env.h"

namespace weft {

// Binds `tf` and `keras` in the prelude, whose names (and their parent's) they hold.
void defineLibraryNamespaces(Env& prelude);

// What `import tensorflow as tf`, `import keras` or `from tensorflow.keras import layers` names:
// that namespace, or none when the spec names no library.
// An error for a part that is no namespace (`tensorflow.contrib`).
Value libraryNamespace(Env& prelude, const std::string& importSpec);
// The names that namespace holds, without the prelude (weft check's import checks); nullopt
// when the spec names no library.
std::optional<std::vector<std::string>> libraryNamespaceMembers(const std::string& importSpec);

}  // namespace weft
