// The compiled character-level GPT (examples/char_gpt/gpt_exports.model, a small one) against the
// interpreter (tests/run_char_gpt_compiled.cmake): generate, one byte at a time with its KV cache,
// gives the logits the whole sequence's forward pass gives at each position; a call past the
// context is an error; train_step's losses over 3 steps are the interpreter's (graph functions
// and eager) within 1e-5 relative; steady-state calls allocate nothing.
//   char_gpt_check GRAPH_CASES EAGER_CASES
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "counting_malloc.h"
#include "generate.h"
#include "restart.h"
#include "sample.h"
#include "train_step.h"

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::fprintf(stderr, "char_gpt_check: failed: %s\n", #cond);   \
      return 1;                                                      \
    }                                                                \
  } while (0)

namespace {

struct Array {
  weft::rt::Buffer data;
  weft::rt::Shape shape;
  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
};

bool read(const std::string& path, weft::rt::DType dtype, Array& a) {
  std::string why = weft::rt::readNpyFile(path.c_str(), dtype, a.data, a.shape);
  if (!why.empty()) std::fprintf(stderr, "char_gpt_check: %s\n", why.c_str());
  return why.empty();
}

}  // namespace

int main(int argc, char** argv) {
  CHECK(argc == 3);
  const std::string dirs[2] = {argv[1], argv[2]};
  std::shared_ptr<gpt_exports::State> state;
  CHECK(gpt_exports::State::load(gpt_exports::kDefaultWeightsDir, state).ok());
  gpt_exports::Generate generate(state);
  gpt_exports::Restart restart(state);
  gpt_exports::TrainStep train(state);

  Array ids, logits;
  CHECK(read(dirs[0] + "/ids.npy", weft::rt::DType::I32, ids) && read(dirs[0] + "/logits.npy", weft::rt::DType::F32, logits));
  const int64_t context = ids.shape[1], vocab = logits.shape[2];
  std::vector<float> out(static_cast<size_t>(vocab));
  int64_t outShape[3], one[2] = {1, 1}, positionShape[1];
  int32_t restarted = -1;
  // Twice: the second pass, after restart, reuses the cache the first filled, and is counted.
  double worst = 0;
  for (int pass = 0; pass < 2; ++pass) {
    CHECK(restart.call(&restarted, 1, positionShape).ok() && restarted == 0);
    counting = pass == 1;
    for (int64_t p = 0; p < context; ++p) {
      CHECK(generate.call(ids.as<int32_t>() + p, one, out.data(), vocab, outShape).ok());
      const float* want = logits.as<float>() + p * vocab;
      for (int64_t j = 0; j < vocab; ++j) worst = std::max(worst, double(std::fabs(out[size_t(j)] - want[j])) / std::max(1.0, double(std::fabs(want[j]))));
    }
    counting = false;
  }
  std::printf("generate: %lld positions with the KV cache, largest difference from the full forward pass %.3g\n",
              (long long)context, worst);
  CHECK(worst <= 1e-5);
  std::printf("allocations in %lld steady-state generate calls: %ld\n", (long long)context, allocations);
  CHECK(allocations == 0);
  // Sampling with top_k (its selection copies a row into the workspace): a token of the
  // vocabulary, and no allocation after the first call.
  gpt_exports::Sample sample(state);
  const int64_t row[2] = {1, vocab};
  int64_t tokenShape[1];
  for (int i = 0; i < 20; ++i) {
    int32_t token = -1;
    counting = i > 0;
    CHECK(sample.call(out.data(), row, &token, 1, tokenShape).ok());
    counting = false;
    CHECK(token >= 0 && token < vocab);
  }
  std::printf("allocations in 19 steady-state sample calls: %ld\n", allocations);
  CHECK(allocations == 0);
  // One byte more than the context: an error, and no logits.
  weft::rt::Status past = generate.call(ids.as<int32_t>(), one, out.data(), vocab, outShape);
  CHECK(!past.ok());
  std::printf("past the context: %s\n", past.message().c_str());
  CHECK(restart.call(&restarted, 1, positionShape).ok());

  float loss = 0;
  int64_t lossShape[1];
  for (int i = 0; i < 3; ++i) {
    Array x, y, want[2];
    const std::string n = std::to_string(i);
    CHECK(read(dirs[0] + "/x" + n + ".npy", weft::rt::DType::I32, x) && read(dirs[0] + "/y" + n + ".npy", weft::rt::DType::I32, y));
    for (int m = 0; m < 2; ++m) CHECK(read(dirs[m] + "/loss" + n + ".npy", weft::rt::DType::F32, want[m]));
    counting = i == 2;  // the first two calls size the arena
    CHECK(train.call(x.as<int32_t>(), x.shape.begin(), y.as<int32_t>(), y.shape.begin(), &loss, 1, lossShape).ok());
    counting = false;
    for (int m = 0; m < 2; ++m) {
      const float w = *want[m].as<float>();
      std::printf("train step %d: loss %.7f, %s %.7f\n", i + 1, loss, m ? "eager" : "graph", w);
      CHECK(std::fabs(loss - w) <= 1e-5f * std::fabs(w));
    }
  }
  std::printf("allocations in a steady-state train step: %ld\n", allocations);
  CHECK(allocations == 0);
  return 0;
}
