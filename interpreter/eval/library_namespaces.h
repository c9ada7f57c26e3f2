// The namespaces `tf` and `keras`: TensorFlow's and Keras' spellings of Weft's own objects.
#pragma once
#include <string>

#include "../values/env.h"

namespace weft {

// Binds `tf` and `keras` in the prelude, whose names (and their parent's) they hold.
void defineLibraryNamespaces(Env& prelude);

// What `import tensorflow as tf`, `import keras` or `from tensorflow.keras import layers` names:
// that namespace, or none when the spec names no library.
Value libraryNamespace(Env& prelude, const std::string& importSpec);

}  // namespace weft
