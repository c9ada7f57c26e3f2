// The stdlib's *.model sources compiled into the binary (see embed.cmake).
#pragma once

namespace weft {

struct EmbeddedFile {
  const char* name;  // "nn" for stdlib/nn.model
  const char* text;
};

extern const EmbeddedFile kStdlibFiles[];  // ends with {nullptr, nullptr}

}  // namespace weft
