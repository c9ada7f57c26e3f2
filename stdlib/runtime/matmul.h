// Matrix multiplication on row-major buffers. Floats go straight to Eigen's GEMM on Maps (no
// copies; Eigen picks a coefficient-wise product for tiny sizes); integers use a simple i-k-j
// loop with wrapping arithmetic (no UB on overflow). Batches broadcast as in NumPy.
#pragma once
#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "scalar_math.h"
#include "strided.h"

namespace weft::rt {

// c[m, n] = a[m, k] @ b[k, n], all contiguous row-major.
template <class T>
void gemm(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(c, 0, size_t(m * n) * sizeof(T));
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const Mat> A(a, m, k), B(b, k, n);
    Eigen::Map<Mat> C(c, m, n);
    if (n == 1) {
      C.col(0).noalias() = A * B.col(0);  // GEMV: Eigen's general product would pack first
    } else {
      C.noalias() = A * B;
    }
  } else {
    std::memset(c, 0, size_t(m * n) * sizeof(T));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) {
        const T av = a[i * k + p];
        const T* brow = b + p * n;
        T* crow = c + i * n;
        for (int64_t j = 0; j < n; ++j) crow[j] = wrapAdd(crow[j], wrapMul(av, brow[j]));
      }
  }
}

// Batched: a has batch shape `ab` of [m, k] matrices, b batch shape `bb` of [k, n]; c gets the
// broadcast batch shape `cb` (the caller has checked that ab and bb broadcast to cb).
template <class T>
void batchedMatmul(const T* a, const Shape& ab, const T* b, const Shape& bb, T* c, const Shape& cb,
                   int64_t m, int64_t k, int64_t n) {
  const int64_t batch = cb.numel();
  if (batch == 0) return;
  // One shared right-hand matrix and an unbroadcast left side ([B, M, K] @ [K, N]): a single
  // GEMM of B*M rows, the usual dense-layer case.
  if (bb.numel() == 1 && ab.numel() == batch) return gemm(a, b, c, batch * m, k, n);
  if (ab == bb) {
    for (int64_t i = 0; i < batch; ++i) gemm(a + i * m * k, b + i * k * n, c + i * m * n, m, k, n);
    return;
  }
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcastStrides(ab, cb, sa);
  broadcastStrides(bb, cb, sb);
  const int64_t* strides[2] = {sa, sb};
  auto L = makeLoop<2>(cb, strides);
  forEachOuter(L, L.rank, [&](const int64_t* off, int64_t i) {
    gemm(a + off[0] * m * k, b + off[1] * k * n, c + i * m * n, m, k, n);
  });
}

}  // namespace weft::rt
