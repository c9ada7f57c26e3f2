// A saved model's loader on arbitrary manifests and graph texts (interpreter/saved/): the input is
// `saved_model.yaml`, optionally followed by a line `#graph` and the text of graphs/addprint.txt;
// the folder also holds a good variables/x.npy. Loading is a WeftError or a model, never a crash,
// and a model that loads prints a manifest that loads again.
#include <filesystem>
#include <fstream>

#include "fuzz_util.h"
#include "grammar/diagnostics.h"
#include "interpreter/saved/npy.h"
#include "interpreter/saved/saved_model.h"

namespace fs = std::filesystem;

namespace {

const fs::path& folder() {
  static const fs::path dir = "/tmp/weft_fuzz_saved_" + std::to_string(getpid());
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  weft::memoryLimits().maxTensorBytes = 64 << 20;
  fs::create_directories(folder() / "variables");
  fs::create_directories(folder() / "graphs");
  weft::saved::writeNpy((folder() / "variables" / "x.npy").string(), weft::Tensor::scalar<float>(6.0f));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input = weft::fuzz::text(data, size);
  const size_t mark = input.find("\n#graph\n");
  write(folder() / "saved_model.yaml", input.substr(0, mark));
  if (mark != std::string::npos) write(folder() / "graphs" / "addprint.txt", input.substr(mark + 8));
  weft::fuzz::withLargeStack([] {
    try {
      weft::saved::SavedModel m = weft::saved::readSavedModel(folder().string());
      // What loaded prints a manifest that loads again, to the same manifest.
      std::string text = weft::saved::writeManifest(m.manifest);
      if (weft::saved::writeManifest(weft::saved::readManifest(text, "again")) != text) __builtin_trap();
    } catch (const weft::WeftError&) {
    }
  });
  return 0;
}
