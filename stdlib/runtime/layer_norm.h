// Layer normalisation over the last axis, y = (x - mean) / sqrt(var + eps) * gamma + beta (the
// biased variance, as Keras and PyTorch), and its gradient, for f32 and f64: one kernel each, a
// row at a time, instead of the chain of reductions and elementwise passes the formula traces to.
// The forward pass reads a row twice (mean, then variance) and writes it once; the backward pass
// recomputes the row's statistics from x rather than keeping them.
//
// Layout: x, y, dy, dx [rows, cols] row-major; gamma, beta, dgamma, dbeta [cols]. Every sum has a
// fixed order, whatever the threads: a row's sums run in kLanes interleaved partial sums added in
// turn, and dgamma and dbeta sum blocks of kNormRows rows, then the blocks in order.
#ifndef WEFT_RT_LAYER_NORM_H
#define WEFT_RT_LAYER_NORM_H
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "instances.h"
#include "thread_pool.h"

namespace weft::rt {

namespace layer_norm_detail {

// Rows a chunk of the thread pool takes (and one partial sum of dgamma and dbeta covers).
inline constexpr int64_t kNormRows = 32;
inline constexpr int kLanes = 16;

// The sum of f(0) .. f(n - 1): kLanes interleaved running sums (they vectorise), added in turn.
template <class T, class F>
T laneSum(int64_t n, F f) {
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += f(i + l);
  for (int l = 0; i < n; ++i, ++l) acc[l] += f(i);
  T s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  return s;
}

// A row's mean and 1 / sqrt(variance + eps).
template <class T>
void rowStats(const T* x, int64_t cols, double eps, T& mean, T& rstd) {
  mean = laneSum<T>(cols, [&](int64_t i) { return x[i]; }) / T(cols);
  const T m = mean;
  const T var = laneSum<T>(cols, [&](int64_t i) { return (x[i] - m) * (x[i] - m); }) / T(cols);
  rstd = T(1) / std::sqrt(var + T(eps));
}

}  // namespace layer_norm_detail

template <class T>
void layerNormForward(const T* x, const T* gamma, const T* beta, T* y, int64_t rows, int64_t cols, double eps) {
  using namespace layer_norm_detail;
  if (cols == 0) return;
  parallelRange(rows, kNormRows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * cols;
      T* yr = y + r * cols;
      T mean, rstd;
      rowStats(xr, cols, eps, mean, rstd);
      for (int64_t i = 0; i < cols; ++i) yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
  });
}

// One row of the gradient: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma,
// xhat the normalised x; the row's dy * xhat and dy added to pg and pb (its block's dgamma and
// dbeta). Restrict pointers and plain values: with the statistics behind references, the loops
// do not vectorise.
template <class T>
void layerNormBackwardRow(const T* __restrict x, const T* __restrict gamma, const T* __restrict dy, T* __restrict dx,
                          T* __restrict pg, T* __restrict pb, int64_t cols, double eps) {
  using namespace layer_norm_detail;
  T mean_, rstd_;
  rowStats(x, cols, eps, mean_, rstd_);
  const T mean = mean_, rstd = rstd_;
  const T a = laneSum<T>(cols, [&](int64_t i) { return dy[i] * gamma[i]; }) / T(cols);
  const T b = laneSum<T>(cols, [&](int64_t i) { return dy[i] * gamma[i] * ((x[i] - mean) * rstd); }) / T(cols);
  for (int64_t i = 0; i < cols; ++i) {
    const T xhat = (x[i] - mean) * rstd;
    dx[i] = rstd * (dy[i] * gamma[i] - a - xhat * b);
    pg[i] += dy[i] * xhat;
    pb[i] += dy[i];
  }
}

// The backward pass's workspace: each block's partial dgamma and dbeta.
inline int64_t layerNormBackwardWorkspaceBytes(int64_t rows, int64_t cols, int64_t elementSize) {
  return chunkCount(rows, layer_norm_detail::kNormRows) * 2 * cols * elementSize;
}

// dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy; dx a row at a time.
// `partial` is layerNormBackwardWorkspaceBytes of scratch (compiled code allocates nothing in a
// call: it is the arena's).
template <class T>
void layerNormBackward(const T* x, const T* gamma, const T* dy, T* dx, T* dgamma, T* dbeta, int64_t rows,
                       int64_t cols, double eps, T* partial) {
  using namespace layer_norm_detail;
  const int64_t blocks = chunkCount(rows, kNormRows);
  std::fill(partial, partial + blocks * 2 * cols, T(0));  // per block: dgamma's, then dbeta's
  if (cols > 0)
    parallelFor(blocks, [&](int64_t block, int) {
      T* pg = partial + block * 2 * cols;
      for (int64_t r = block * kNormRows, end = std::min(rows, r + kNormRows); r < end; ++r)
        layerNormBackwardRow(x + r * cols, gamma, dy + r * cols, dx + r * cols, pg, pg + cols, cols, eps);
    });
  std::fill(dgamma, dgamma + cols, T(0));
  std::fill(dbeta, dbeta + cols, T(0));
  for (int64_t block = 0; block < blocks; ++block) {
    const T* pg = partial + block * 2 * cols;
    for (int64_t i = 0; i < cols; ++i) dgamma[i] += pg[i], dbeta[i] += pg[cols + i];
  }
}

// Compiled once, in instances.cpp (for float: the doubles stay where they are used).
WEFT_RT_INSTANCE(void layerNormForward<float>(const float*, const float*, const float*, float*, int64_t, int64_t, double))
WEFT_RT_INSTANCE(void layerNormBackward<float>(const float*, const float*, const float*, float*, float*, float*, int64_t, int64_t, double, float*))

}  // namespace weft::rt

#endif  // WEFT_RT_LAYER_NORM_H
