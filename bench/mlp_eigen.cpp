// Hand-written Eigen MLP 784-512-512-10 forward (relu), f32, row-major, one thread: the anchor
// that Weft's `relu(relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3` is measured against.
// Usage: bench_mlp_eigen [reps=11] [iters=100] [batch=32]
// Prints one line per repetition (microseconds per forward), then "median_us <value>".
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Row = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using MapM = Eigen::Map<Mat>;
using MapR = Eigen::Map<Row>;

static std::vector<float> randn(size_t n, float scale, std::mt19937& g) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g) * scale;
  return v;
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 11;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const int B = argc > 3 ? std::atoi(argv[3]) : 32;
  const int D0 = 784, D1 = 512, D2 = 512, D3 = 10;
  std::mt19937 g(0);
  auto xs = randn(size_t(B) * D0, 1.0f, g);
  auto w1s = randn(size_t(D0) * D1, 0.05f, g), b1s = randn(D1, 0.05f, g);
  auto w2s = randn(size_t(D1) * D2, 0.05f, g), b2s = randn(D2, 0.05f, g);
  auto w3s = randn(size_t(D2) * D3, 0.05f, g), b3s = randn(D3, 0.05f, g);
  std::vector<float> h1s(size_t(B) * D1), h2s(size_t(B) * D2), ys(size_t(B) * D3);
  MapM x(xs.data(), B, D0), w1(w1s.data(), D0, D1), w2(w2s.data(), D1, D2), w3(w3s.data(), D2, D3);
  MapR b1(b1s.data(), D1), b2(b2s.data(), D2), b3(b3s.data(), D3);
  MapM h1(h1s.data(), B, D1), h2(h2s.data(), B, D2), y(ys.data(), B, D3);

  auto forward = [&] {
    h1.noalias() = x * w1;
    h1 = (h1.rowwise() + b1).cwiseMax(0.0f);
    h2.noalias() = h1 * w2;
    h2 = (h2.rowwise() + b2).cwiseMax(0.0f);
    y.noalias() = h2 * w3;
    y.rowwise() += b3;
  };

  for (int i = 0; i < 10; ++i) forward();  // warm caches and Eigen's blocking buffers
  std::vector<double> per;
  double sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      forward();
      sink += ys[i % ys.size()];
    }
    auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / iters);
    std::printf("%.3f\n", per.back());
  }
  std::sort(per.begin(), per.end());
  std::printf("median_us %.3f\n", per[per.size() / 2]);
  std::fprintf(stderr, "checksum %g\n", sink);  // keeps the work observable
}
