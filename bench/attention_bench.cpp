// Times Weft's fused attention (ops::scaledDotProductAttention and its gradient op, the kernels of
// stdlib/runtime/attention.h) forward + backward on [B, H, T, D] f32; bench/attention_bench.py
// runs it beside PyTorch's. Peak memory is the process's (bench_spawn measures it from outside).
// Usage: bench_attention [reps=5] [iters=3] [B H T D] [causal=0]
// Prints one line per repetition (milliseconds per forward + backward), then "median_ms <value>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "interpreter/ops/ops.h"

using namespace weft;

int main(int argc, char** argv) {
  auto arg = [&](int i, int64_t dflt) { return argc > i ? std::atoll(argv[i]) : dflt; };
  const int reps = int(arg(1, 5)), iters = int(arg(2, 3));
  const int64_t b = arg(3, 1), h = arg(4, 4), t = arg(5, 1024), d = arg(6, 64);
  const bool causal = arg(7, 0) != 0;
  ops::seed(0);
  Shape s{b, h, t, d};
  Tensor q = ops::randomNormal(s, 0, 1, DType::F32), k = ops::randomNormal(s, 0, 1, DType::F32);
  Tensor v = ops::randomNormal(s, 0, 1, DType::F32), dout = ops::randomNormal(s, 0, 1, DType::F32);
  double sink = 0;
  auto step = [&] {
    Tensor out = ops::scaledDotProductAttention(q, k, v, nullptr, causal, std::nullopt);
    std::vector<Tensor> g = ops::scaledDotProductAttentionGrad(q, k, v, out, dout, nullptr, causal, std::nullopt);
    sink += g[0].asDouble(0);
  };
  step();
  std::vector<double> per;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) step();
    auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / iters);
    std::printf("%.4f\n", per.back());
  }
  std::sort(per.begin(), per.end());
  std::printf("median_ms %.4f\n", per[per.size() / 2]);
  return sink == 12345.678 ? 1 : 0;
}
