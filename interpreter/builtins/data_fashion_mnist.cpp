// fashion_mnist(path=none): Zalando's Fashion-MNIST as Keras' load_data() returns it,
// ((x_train, y_train), (x_test, y_test)), read from Debian's dataset-fashion-mnist files.
#include <filesystem>

#include "../../grammar/diagnostics.h"
#include "../eval/interpreter.h"
#include "../eval/args.h"
#include "data.h"

namespace weft {
namespace {

constexpr const char* kDebianDir = "/usr/share/datasets/fashion-mnist";

// DIR/NAME.gz as Debian ships it, or DIR/NAME (gunzipped by hand); empty when neither exists.
std::string locate(const std::string& dir, const std::string& name) {
  std::error_code ec;
  for (const std::string& p : {dir + "/" + name + ".gz", dir + "/" + name})
    if (std::filesystem::exists(p, ec)) return p;
  return "";
}

}  // namespace

void registerFashionMnist(Env& env) {
  env.set(intern("fashion_mnist"), makeBuiltin("fashion_mnist", [](Interpreter&, Args& a) {
            ArgReader r(a, "fashion_mnist", {"path?"});
            const std::string dir = r.has(0) ? r.str(0) : kDebianDir;
            const char* names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                                   "t10k-labels-idx1-ubyte"};
            std::string paths[4];
            for (int i = 0; i < 4; ++i) {
              paths[i] = locate(dir, names[i]);
              if (paths[i].empty())
                throw WeftError("fashion_mnist(): the Fashion-MNIST files are not in " + dir + " (" + names[i] +
                                ".gz is missing); install Debian's copy with `sudo apt-get install "
                                "dataset-fashion-mnist`");
            }
            std::vector<Value> parts;
            for (int i = 0; i < 4; i += 2) {
              Tensor images = data::readIdx(paths[i], "fashion_mnist", DType::F32, 255.0);
              Tensor labels = data::readIdx(paths[i + 1], "fashion_mnist", DType::I32);
              if (images.rank() != 3 || images.shape()[1] != 28 || images.shape()[2] != 28)
                throw WeftError("fashion_mnist(): '" + paths[i] + "' holds " + images.shape().str() +
                                " values, not [N, 28, 28] images");
              if (labels.rank() != 1 || labels.shape()[0] != images.shape()[0])
                throw WeftError("fashion_mnist(): '" + paths[i + 1] + "' holds " + labels.shape().str() +
                                " labels for " + std::to_string(images.shape()[0]) + " images");
              for (int64_t k = 0; k < labels.numel(); ++k)
                if (labels.data<int32_t>()[k] < 0 || labels.data<int32_t>()[k] > 9)
                  throw WeftError("fashion_mnist(): '" + paths[i + 1] + "' holds the label " +
                                  std::to_string(labels.data<int32_t>()[k]) + ", not one of the classes 0 to 9");
              parts.push_back(makeTuple({Value(images), Value(labels)}));
            }
            return makeTuple(std::move(parts));
          }));
}

}  // namespace weft
