// A scratch folder per unit-test binary run, removed at exit: scratchPath("x.npy").
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace weft::testutil {

inline std::filesystem::path scratchPath(const std::string& name) {
  struct ScratchDir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("weft_unit_tests_" + std::to_string(::getpid()));
    ScratchDir() { std::filesystem::create_directories(path); }
    ~ScratchDir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const ScratchDir dir;
  return dir.path / name;
}

}  // namespace weft::testutil
