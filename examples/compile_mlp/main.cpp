// Calls the compiled classifier from a C++ program of one's own: load the weights, call with
// plain buffers and their sizes, check the status. Build: see CMakeLists.txt beside this file.
#include <cstdio>
#include <vector>

#include "classify.h"

int main() {
  std::shared_ptr<classifier::State> state;
  if (weft::rt::Status s = classifier::State::load(classifier::kDefaultWeightsDir, state); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  classifier::Classify classify(state);

  // Four images: a gradient, its reverse, all dark, all bright.
  const int64_t n = 4;
  std::vector<float> images(size_t(n) * 28 * 28);
  for (int64_t i = 0; i < 28 * 28; ++i) {
    images[size_t(i)] = float(i) / (28 * 28);
    images[size_t(28 * 28 + i)] = 1.0f - float(i) / (28 * 28);
    images[size_t(2 * 28 * 28 + i)] = 0.0f;
    images[size_t(3 * 28 * 28 + i)] = 1.0f;
  }
  const int64_t shape[3] = {n, 28, 28};
  std::vector<float> probs(size_t(n) * 10);
  int64_t probsShape[2];
  if (weft::rt::Status s = classify.call(images.data(), shape, probs.data(), int64_t(probs.size()), probsShape); !s) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  for (int64_t i = 0; i < probsShape[0]; ++i) {
    int best = 0;
    float total = 0;
    for (int c = 0; c < 10; ++c) {
      total += probs[size_t(i * 10 + c)];
      if (probs[size_t(i * 10 + c)] > probs[size_t(i * 10 + best)]) best = c;
    }
    std::printf("image %lld: class %d (p = %.3f; the probabilities sum to %.3f)\n", (long long)i, best,
                probs[size_t(i * 10 + best)], total);
    if (total < 0.999f || total > 1.001f) return 1;
  }
  // A wrong size is an error that names the input, never undefined behaviour.
  const int64_t wrong[3] = {n, 28, 27};
  weft::rt::Status s = classify.call(images.data(), wrong, probs.data(), int64_t(probs.size()), probsShape);
  std::printf("wrong size: %s\n", s.message().c_str());
  return s.ok() ? 1 : 0;
}
