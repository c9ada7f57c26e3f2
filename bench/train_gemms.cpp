// The GEMMs of one train step of the MLP 784-512-512-10 alone, hand-written with Eigen (f32,
// row-major, one thread): the three forward products, the two input gradients and the three
// weight gradients (x^T @ g and g @ w^T read transposed in place). A train step cannot be faster
// than its products; bench/train.py sets Weft's compiled step beside this floor.
// Usage: bench_train_gemms [reps=11] [iters=100] [batch=64]
// Prints one line per repetition (microseconds per step's GEMMs), then "median_us <value>".
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 11;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const int B = argc > 3 ? std::atoi(argv[3]) : 64;
  const int D0 = 784, D1 = 512, D2 = 512, D3 = 10;
  std::mt19937 g(0);
  std::normal_distribution<float> d(0.0f, 1.0f);
  auto randn = [&](int r, int c) {
    Mat m(r, c);
    for (int i = 0; i < m.size(); ++i) m.data()[i] = d(g) * 0.05f;
    return m;
  };
  Mat x = randn(B, D0), w1 = randn(D0, D1), w2 = randn(D1, D2), w3 = randn(D2, D3);
  Mat h1(B, D1), h2(B, D2), y(B, D3), gy = randn(B, D3), g2(B, D2), g1(B, D1);
  Mat dw1(D0, D1), dw2(D1, D2), dw3(D2, D3);

  auto step = [&] {
    h1.noalias() = x * w1;
    h2.noalias() = h1 * w2;
    y.noalias() = h2 * w3;
    dw3.noalias() = h2.transpose() * gy;
    g2.noalias() = gy * w3.transpose();
    dw2.noalias() = h1.transpose() * g2;
    g1.noalias() = g2 * w2.transpose();
    dw1.noalias() = x.transpose() * g1;
  };

  for (int i = 0; i < 10; ++i) step();
  std::vector<double> per;
  double sink = 0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      step();
      sink += dw1(i % D0, 0);
    }
    auto t1 = std::chrono::steady_clock::now();
    per.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / iters);
    std::printf("%.3f\n", per.back());
  }
  std::sort(per.begin(), per.end());
  std::printf("median_us %.3f\n", per[per.size() / 2]);
  return sink == 12345.678 ? 1 : 0;  // keeps the products from being optimised away
}
