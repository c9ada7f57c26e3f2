// NumPy's .npy files read into and written from tensors; the format and its checks are
// stdlib/runtime/npy.h (shared with generated code). A bad file is a WeftError naming it, never
// a crash.
#pragma once
#include <string>

#include "../values/tensor.h"

namespace weft::saved {

Tensor readNpy(const std::string& path);
// Writes version 1.0 (2.0 if the header needs it), the header padded to 64 bytes as NumPy does.
void writeNpy(const std::string& path, const Tensor& t);

// Creates the folders above `path` that do not exist yet, as tf.saved_model.save does (save,
// save_npy); throws WeftError naming `path` when one cannot be made (a file is in the way).
void makeParentFolders(const std::string& path);

}  // namespace weft::saved
