// Times Weft's conv2d op (ops::conv2d: checks, output allocation, the kernel of
// stdlib/runtime/conv.h) on one NHWC workload; bench/conv_bench.py runs it beside PyTorch's conv2d.
// With OP `input` or `filter`, its gradient op instead (conv2d_backprop_input or _filter,
// stdlib/runtime/conv_grad.h) for the same workload.
// Usage: bench_conv [reps=11] [iters=20] [N H W C KH KW COUT STRIDE PADDING OP]
//   defaults: 8 32 32 32 3 3 32 1 same forward
// Prints one line per repetition (milliseconds per conv), then "median_ms <value>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "interpreter/ops/ops.h"
#include "stdlib/gemm_choice.h"

using namespace weft;

int main(int argc, char** argv) {
  weft::gemm::installPlanner();  // the gradients' GEMMs run where weft would run them
  auto arg = [&](int i, int64_t dflt) { return argc > i ? std::atoll(argv[i]) : dflt; };
  const int reps = int(arg(1, 11)), iters = int(arg(2, 20));
  const int64_t n = arg(3, 8), h = arg(4, 32), w = arg(5, 32), c = arg(6, 32);
  const int64_t kh = arg(7, 3), kw = arg(8, 3), cout = arg(9, 32), stride = arg(10, 1);
  const std::string padding = argc > 11 ? argv[11] : "same";
  const std::string op = argc > 12 ? argv[12] : "forward";

  ops::seed(0);
  Tensor x = ops::randomNormal(Shape{n, h, w, c}, 0, 1, DType::F32);
  Tensor k = ops::randomNormal(Shape{kh, kw, c, cout}, 0, 0.1, DType::F32);
  Tensor dy = ops::randomNormal(ops::conv2d(x, k, {stride, stride}, padding, {1, 1}).shape(), 0, 1, DType::F32);
  auto conv = [&] {
    if (op == "input") return ops::conv2dBackpropInput(dy, k, {h, w}, {stride, stride}, padding, {1, 1});
    if (op == "filter") return ops::conv2dBackpropFilter(x, dy, {kh, kw}, {stride, stride}, padding, {1, 1});
    return ops::conv2d(x, k, {stride, stride}, padding, {1, 1});
  };

  double sink = 0;
  // Warm caches, the kernel's workspace and malloc: each call allocates its output, and glibc
  // takes 10-20 calls of freeing a 0.5-1 MB block before it stops returning it to the system
  // (each return costs a page fault per 4 KB on the next call). PyTorch's side runs in a process
  // that is already warm; a steady state here is what a running program sees.
  for (int i = 0; i < 50; ++i) sink += conv().asDouble(0);
  std::vector<double> per;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) sink += conv().asDouble(i);
    auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / iters);
    std::printf("%.4f\n", per.back());
  }
  std::sort(per.begin(), per.end());
  std::printf("median_ms %.4f\n", per[per.size() / 2]);
  return sink == 12345.678 ? 1 : 0;  // keeps the results observable
}
