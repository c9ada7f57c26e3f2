// Trains the compiled Fashion-MNIST MLP (trainer.model) from C++ alone: reads Debian's
// dataset-fashion-mnist files, runs 5 epochs of the generated TrainStep over shuffled batches of
// 64, then measures the test accuracy with the generated Predict. Build: see CMakeLists.txt.
//   fashion_mnist_train [--data DIR] [--epochs N] [--save DIR]
// --save writes the trained weights and Adam's slots as .npy files (State::save).
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "predict.h"
#include "train_step.h"

namespace {

// An IDX file (gzip or plain; zlib reads both): its sizes and bytes. Returns "" or what is wrong.
std::string readIdx(const std::string& path, std::vector<int64_t>& dims, std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return "cannot open " + path + " (install Debian's files: sudo apt-get install dataset-fashion-mnist)";
  unsigned char magic[4];
  std::string why;
  if (gzread(f, magic, 4) != 4 || magic[0] || magic[1] || magic[2] != 0x08 || magic[3] < 1 || magic[3] > 3) {
    why = path + " is not an IDX file of unsigned bytes";
  } else {
    int64_t n = 1;
    for (int i = 0; i < magic[3] && why.empty(); ++i) {
      unsigned char b[4];
      if (gzread(f, b, 4) != 4) why = path + " ends inside its header";
      dims.push_back(int64_t(b[0]) << 24 | int64_t(b[1]) << 16 | int64_t(b[2]) << 8 | b[3]);
      n *= dims.back();
    }
    if (why.empty()) {
      bytes.resize(size_t(n));
      if (gzread(f, bytes.data(), unsigned(n)) != int(n)) why = path + " is truncated";
    }
  }
  gzclose(f);
  return why;
}

struct Split {
  std::vector<float> images;  // [n, 784], values in [0, 1]
  std::vector<int32_t> labels;
  int64_t n = 0;
};

std::string load(const std::string& dir, const std::string& prefix, Split& out) {
  std::vector<int64_t> idims, ldims;
  std::vector<unsigned char> ibytes, lbytes;
  std::string why = readIdx(dir + "/" + prefix + "-images-idx3-ubyte.gz", idims, ibytes);
  if (why.empty()) why = readIdx(dir + "/" + prefix + "-labels-idx1-ubyte.gz", ldims, lbytes);
  if (!why.empty()) return why;
  if (idims.size() != 3 || idims[1] != 28 || idims[2] != 28 || ldims.size() != 1 || ldims[0] != idims[0])
    return dir + ": the " + prefix + " files do not hold 28x28 images with one label each";
  out.n = idims[0];
  out.images.resize(ibytes.size());
  for (size_t i = 0; i < ibytes.size(); ++i) out.images[i] = float(ibytes[i]) / 255.0f;
  out.labels.assign(lbytes.begin(), lbytes.end());
  return "";
}

int fail(const std::string& why) {
  std::fprintf(stderr, "fashion_mnist_train: %s\n", why.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dataDir = "/usr/share/datasets/fashion-mnist", saveDir;
  int epochs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--data") dataDir = argv[++i];
    else if (i + 1 < argc && a == "--epochs") epochs = std::atoi(argv[++i]);
    else if (i + 1 < argc && a == "--save") saveDir = argv[++i];
    else return fail("usage: fashion_mnist_train [--data DIR] [--epochs N] [--save DIR]");
  }
  Split train, test;
  if (std::string why = load(dataDir, "train", train); !why.empty()) return fail(why);
  if (std::string why = load(dataDir, "t10k", test); !why.empty()) return fail(why);

  std::shared_ptr<trainer::State> state;
  if (weft::rt::Status s = trainer::State::load(trainer::kDefaultWeightsDir, state); !s) return fail(s.message());
  trainer::TrainStep step(state);
  trainer::Predict predict(state);

  const int64_t batch = 64;
  std::vector<int64_t> order(size_t(train.n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(0);
  std::vector<float> x(size_t(batch) * 784);
  std::vector<int32_t> y(static_cast<size_t>(batch));
  double trainSeconds = 0, stepSeconds = 0;  // the epochs' time, and the part of it in train_step
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    const auto start = std::chrono::steady_clock::now();
    double lossSum = 0;
    int64_t steps = 0;
    for (int64_t first = 0; first < train.n; first += batch, ++steps) {
      const int64_t b = std::min(batch, train.n - first);
      for (int64_t i = 0; i < b; ++i) {
        const int64_t k = order[size_t(first + i)];
        std::memcpy(&x[size_t(i * 784)], &train.images[size_t(k * 784)], 784 * sizeof(float));
        y[size_t(i)] = train.labels[size_t(k)];
      }
      const int64_t xShape[2] = {b, 784}, yShape[1] = {b};
      float loss;
      int64_t lossShape[1];
      const auto called = std::chrono::steady_clock::now();
      if (weft::rt::Status s = step.call(x.data(), xShape, y.data(), yShape, &loss, 1, lossShape); !s)
        return fail(s.message());
      if (!std::isfinite(loss)) return fail("the loss is not finite at epoch " + std::to_string(epoch));
      lossSum += loss;
      stepSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - called).count();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    trainSeconds += seconds;
    std::printf("epoch %d/%d: %lld steps, loss %.4f, %.1f s\n", epoch, epochs, (long long)steps,
                lossSum / double(steps), seconds);
  }

  std::vector<int32_t> classes(size_t(test.n));
  const int64_t testShape[2] = {test.n, 784};
  int64_t classesShape[1];
  if (weft::rt::Status s = predict.call(test.images.data(), testShape, classes.data(), test.n, classesShape); !s)
    return fail(s.message());
  int64_t correct = 0;
  for (int64_t i = 0; i < test.n; ++i) correct += classes[size_t(i)] == test.labels[size_t(i)];
  const double accuracy = double(correct) / double(test.n);
  std::printf("test accuracy %.4f (%lld of %lld); training took %.2f s, %.2f s of it in train_step\n", accuracy,
              (long long)correct, (long long)test.n, trainSeconds, stepSeconds);
  if (!saveDir.empty())
    if (weft::rt::Status s = state->save(saveDir); !s) return fail(s.message());
  return 0;
}
