// The character-level GPT (gpt_exports.model) trained and sampled from C++ alone: reads Debian's
// fortunes, takes STEPS Adam steps of the generated TrainStep on random windows of the training
// files, then generates BYTES bytes after a prompt with the generated Generate (its KV cache in
// the state: each call computes one position) and Sample. Prints the loss, the median time per
// train step and the generation's tokens per second, each also in CPU time (the process's, all
// its threads: other work on a shared machine does not count; the first step, which sizes the
// memory arena, left out). Build: see CMakeLists.txt.
//   char_gpt_compiled [--corpus DIR] [--steps N] [--bytes N] [--samples N] [--batch B] [--context T]
// --samples N generates N texts after the prompt (the cache emptied before each; the first is
// printed), so that the tokens per second cover enough positions to time.
// B and T must be the sizes gpt_exports.model was compiled with (32 and 128); the prompt and the
// bytes generated fit in T (the cache's length).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "generate.h"
#include "restart.h"
#include "sample.h"
#include "train_step.h"

namespace {

const char* const kTrainFiles[] = {"art", "computers", "cookie", "definitions", "drugs", "education", "food",
                                   "fortunes", "goedel", "humorists", "kids", "law", "linux", "literature", "love",
                                   "magic", "medicine", "men-women", "miscellaneous", "news", "people", "pets",
                                   "platitudes", "politics", "riddles", "science", "songs-poems", "sports",
                                   "startrek", "work"};

bool append(const std::string& path, std::string& text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s (the corpus is Debian's fortunes: sudo apt-get install fortunes)\n", path.c_str());
    return false;
  }
  text.append(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The process's CPU time in ms.
double cpuMs() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

int fail(const weft::rt::Status& s) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus = "/usr/share/games/fortunes/";
  long steps = 200, bytes = 200, samples = 1, batch = 32, context = 128;
  bool known = argc % 2 == 1;  // options and their values
  for (int i = 1; known && i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--corpus")) corpus = std::string(argv[i + 1]) + "/";
    else if (!std::strcmp(argv[i], "--steps")) steps = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--bytes")) bytes = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--samples")) samples = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--batch")) batch = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--context")) context = std::atol(argv[i + 1]);
    else known = false;
  }
  if (!known || steps < 0 || bytes < 0 || samples < 0 || batch <= 0 || context <= 0) {
    std::fprintf(stderr, "usage: %s [--corpus DIR] [--steps N] [--bytes N] [--samples N] [--batch B] [--context T]\n",
                 argv[0]);
    return 2;
  }
  std::string text, prompt;
  for (const char* name : kTrainFiles)
    if (!append(corpus + name, text)) return 1;
  if (!append(corpus + "wisdom", prompt)) return 1;
  prompt.resize(std::min<size_t>(prompt.size(), size_t(std::min(16L, context / 2))));
  if (text.size() <= size_t(context) + 1) return std::fprintf(stderr, "the corpus is too small\n"), 1;

  std::shared_ptr<gpt_exports::State> state;
  if (weft::rt::Status s = gpt_exports::State::load(gpt_exports::kDefaultWeightsDir, state); !s) return fail(s);
  gpt_exports::TrainStep train(state);
  gpt_exports::Generate generate(state);
  gpt_exports::Restart restart(state);
  gpt_exports::Sample sample(state);

  // Training: windows of context + 1 bytes at random offsets, inputs and the next byte of each.
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<size_t> offset(0, text.size() - size_t(context) - 1);
  std::vector<int32_t> x(size_t(batch * context)), y(x.size());
  const int64_t shape[2] = {batch, context};
  std::vector<double> times;
  double stepsCpu = 0;
  for (long step = 1; step <= steps; ++step) {
    for (long b = 0; b < batch; ++b) {
      const size_t o = offset(rng);
      for (long t = 0; t < context; ++t) {
        x[size_t(b * context + t)] = static_cast<unsigned char>(text[o + size_t(t)]);
        y[size_t(b * context + t)] = static_cast<unsigned char>(text[o + size_t(t) + 1]);
      }
    }
    float loss = 0;
    int64_t lossShape[1];
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpuMs();
    if (weft::rt::Status s = train.call(x.data(), shape, y.data(), shape, &loss, 1, lossShape); !s) return fail(s);
    if (step > 1) stepsCpu += cpuMs() - c0;
    times.push_back(msSince(t0));
    if (step % 20 == 0 || step == steps) std::printf("step %ld/%ld: loss %.4f\n", step, steps, loss);
  }
  if (!times.empty()) {
    std::nth_element(times.begin(), times.begin() + long(times.size() / 2), times.end());
    std::printf("train step: %.2f ms (median of %zu)", times[times.size() / 2], times.size());
    if (steps > 1) std::printf(", %.2f ms of CPU (mean of steps 2-%ld)", stepsCpu / double(steps - 1), steps);
    std::printf("\n");
  }

  // Generation: the prompt's bytes go through the cache one at a time, then each sampled byte.
  int32_t position = 0, token = 0;
  int64_t one[2] = {1, 1}, logitsShape[3], tokenShape[1], positionShape[1];
  std::vector<float> logits(256);
  const long total = std::min<long>(long(prompt.size()) + bytes, context);
  double generating = 0, generatingCpu = 0;
  for (long text = 0; text < samples; ++text) {
    if (weft::rt::Status s = restart.call(&position, 1, positionShape); !s) return fail(s);
    std::string out = prompt;
    for (long i = 0; i + 1 < total; ++i) {
      token = static_cast<unsigned char>(out[size_t(i)]);
      auto t0 = std::chrono::steady_clock::now();
      const double c0 = cpuMs();
      if (weft::rt::Status s = generate.call(&token, one, logits.data(), 256, logitsShape); !s) return fail(s);
      generatingCpu += cpuMs() - c0;
      generating += msSince(t0);
      if (i + 1 < long(out.size())) continue;  // still in the prompt
      const int64_t logitsRow[2] = {1, 256};
      int32_t next = 0;
      if (weft::rt::Status s = sample.call(logits.data(), logitsRow, &next, 1, tokenShape); !s) return fail(s);
      out.push_back(char(next));
    }
    if (text == 0) std::printf("sampled: %s\n", out.c_str());
  }
  if (samples > 0 && total > 1)
    std::printf("generate: %.0f tokens/s (%ld positions, one call each), %.0f per second of CPU\n",
                double(samples * (total - 1)) / (generating / 1000.0), samples * (total - 1),
                double(samples * (total - 1)) / (generatingCpu / 1000.0));
  return 0;
}
