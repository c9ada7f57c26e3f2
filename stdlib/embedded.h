// The stdlib's *.model sources and runtime kernel headers compiled into the binary (embed.cmake).
#pragma once

namespace weft {

struct EmbeddedFile {
  const char* name;  // "nn" for stdlib/nn.model
  const char* text;
};

extern const EmbeddedFile kStdlibFiles[];  // ends with {nullptr, nullptr}
// stdlib/runtime/*.h by file name ("matmul.h"): weft compile copies them beside its output.
extern const EmbeddedFile kRuntimeFiles[];

}  // namespace weft
