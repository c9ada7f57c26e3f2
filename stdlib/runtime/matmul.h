// Matrix multiplication on row-major buffers. Floats go to the GEMM library the plan picks for the
// shape (gemm_libraries.h: OpenBLAS, BLIS, or Eigen's GEMM on the buffers, no copies, a
// coefficient-wise product for tiny sizes as Eigen picks); integers use a simple i-k-j loop with
// wrapping arithmetic (no UB on overflow). Batches broadcast as in NumPy.
#ifndef WEFT_RT_MATMUL_H
#define WEFT_RT_MATMUL_H
#include <Eigen/Core>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "gemm_libraries.h"
#include "instances.h"
#include "scalar_math.h"
#include "strided.h"

namespace weft::rt {

// Eigen's blocked GEMM packs panels of both operands into buffers it would allocate on every
// product past 128 KiB. This blocking hands it the caller's workspace instead, so that generated
// code, whose memory plan owns every byte, allocates nothing per call. It mirrors what
// Eigen::internal::gemm_blocking_space computes for a row-major destination (the product is run
// transposed: B^T A^T), so eager and compiled products take the same path and agree bit for bit.
template <class T>
class GemmBlocking : public Eigen::internal::level3_blocking<T, T> {
 public:
  GemmBlocking(int64_t m, int64_t k, int64_t n) {
    Eigen::Index mc = n, nc = m, kc = k;
    Eigen::internal::computeProductBlockingSizes<T, T, 1>(kc, mc, nc, Eigen::Index(1));
    this->m_mc = mc, this->m_nc = nc, this->m_kc = kc;
  }
  int64_t elements() const { return int64_t(this->m_kc) * (this->m_mc + this->m_nc); }
  void attach(T* workspace) {
    this->m_blockA = workspace;
    this->m_blockB = workspace + int64_t(this->m_kc) * this->m_mc;
  }
};

// Products Eigen runs without its blocked GEMM (nothing to pack): a vector on either side, or a
// product small enough for its coefficient-wise path.
inline bool gemmIsDirect(int64_t m, int64_t k, int64_t n) { return m == 1 || n == 1 || k + m + n < 20; }

// The workspace gemm() needs for these sizes, in bytes (0 when it packs nothing).
template <class T>
int64_t gemmWorkspaceBytes(int64_t m, int64_t k, int64_t n) {
  if (!std::is_floating_point_v<T> || m == 0 || n == 0 || k == 0 || gemmIsDirect(m, k, n)) return 0;
  return GemmBlocking<T>(m, k, n).elements() * int64_t(sizeof(T)) + 64;  // + alignment
}

namespace detail {
// Eigen's blocked product of row-major C with A and B each row-major or, transposed, column-major.
template <class T, int AOrder, int BOrder>
void blockedProduct(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, GemmBlocking<T>& blocking) {
  const Eigen::Index lda = AOrder == Eigen::RowMajor ? k : m, ldb = BOrder == Eigen::RowMajor ? n : k;
  Eigen::internal::general_matrix_matrix_product<Eigen::Index, T, AOrder, false, T, BOrder, false, Eigen::RowMajor,
                                                 1>::run(m, n, k, a, lda, b, ldb, c, 1, n, T(1), blocking, nullptr);
}
}  // namespace detail

// c[m, n] = a[m, k] @ b[k, n] (+ c, when `accumulate`: a bias already in c), all contiguous
// row-major; with `transA` a holds the [k, m] matrix whose transpose is used, with `transB` b
// holds [n, k] (a gradient's x^T @ g and g @ w^T, without copying a transpose). `workspace`
// holds gemmWorkspaceBytes<T>(m, k, n) bytes (Eigen packs into it; the other libraries pack in
// their own buffers), or is null: then Eigen's packing buffers are allocated here. gemmOn runs
// the product on `lib`; gemm on the library gemmPlan() picks for the shape.
template <class T>
void gemmOn(GemmLib lib, const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, void* workspace = nullptr,
            bool accumulate = false, bool transA = false, bool transB = false) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (!accumulate) std::memset(c, 0, size_t(m * n) * sizeof(T));
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      if (lib != GemmLib::Eigen && libraryGemm(lib, a, b, c, m, k, n, accumulate, transA, transB)) return;
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    Eigen::Map<Mat> C(c, m, n);
    if (gemmIsDirect(m, k, n)) {
      auto product = [&](const auto& A, const auto& B) {
        if (n == 1) {  // GEMV: Eigen's general product would pack first
          if (accumulate) C.col(0).noalias() += A * B.col(0);
          else C.col(0).noalias() = A * B.col(0);
        } else if (accumulate) {
          C.noalias() += A * B;
        } else {
          C.noalias() = A * B;
        }
      };
      Eigen::Map<const Mat> A(a, m, k), B(b, k, n);
      Eigen::Map<const ColMat> At(a, m, k), Bt(b, k, n);
      if (transA && transB) product(At, Bt);
      else if (transA) product(At, B);
      else if (transB) product(A, Bt);
      else product(A, B);
      return;
    }
    GemmBlocking<T> blocking(m, k, n);
    std::unique_ptr<T[]> own;
    void* ws = workspace;
    if (!ws) {
      own.reset(new T[size_t(blocking.elements()) + 64 / sizeof(T)]);
      ws = own.get();
    }
    blocking.attach(reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(ws) + 63) & ~uintptr_t(63)));
    if (!accumulate) std::memset(c, 0, size_t(m * n) * sizeof(T));
    constexpr int R = Eigen::RowMajor, Cm = Eigen::ColMajor;
    if (transA && transB) detail::blockedProduct<T, Cm, Cm>(a, b, c, m, k, n, blocking);
    else if (transA) detail::blockedProduct<T, Cm, R>(a, b, c, m, k, n, blocking);
    else if (transB) detail::blockedProduct<T, R, Cm>(a, b, c, m, k, n, blocking);
    else detail::blockedProduct<T, R, R>(a, b, c, m, k, n, blocking);
  } else {
    if (!accumulate) std::memset(c, 0, size_t(m * n) * sizeof(T));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p) {
        const T av = transA ? a[p * m + i] : a[i * k + p];
        T* crow = c + i * n;
        for (int64_t j = 0; j < n; ++j) crow[j] = wrapAdd(crow[j], wrapMul(av, transB ? b[j * k + p] : b[p * n + j]));
      }
  }
}

template <class T>
void gemm(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, void* workspace = nullptr,
          bool accumulate = false, bool transA = false, bool transB = false) {
  constexpr bool blas = std::is_same_v<T, float> || std::is_same_v<T, double>;
  const GemmLib lib = blas ? gemmPlan().use[gemmClass(m, k, n)] : GemmLib::Eigen;
  gemmOn(lib, a, b, c, m, k, n, workspace, accumulate, transA, transB);
}

// Batched: a has batch shape `ab` of [m, k] matrices, b batch shape `bb` of [k, n]; c gets the
// broadcast batch shape `cb` (the caller has checked that ab and bb broadcast to cb).
template <class T>
void batchedMatmul(const T* a, const Shape& ab, const T* b, const Shape& bb, T* c, const Shape& cb,
                   int64_t m, int64_t k, int64_t n, void* workspace = nullptr) {
  const int64_t batch = cb.numel();
  if (batch == 0) return;
  // One shared right-hand matrix and an unbroadcast left side ([B, M, K] @ [K, N]): a single
  // GEMM of B*M rows, the usual dense-layer case.
  if (bb.numel() == 1 && ab.numel() == batch) return gemm(a, b, c, batch * m, k, n, workspace);
  if (ab == bb) {
    for (int64_t i = 0; i < batch; ++i) gemm(a + i * m * k, b + i * k * n, c + i * m * n, m, k, n, workspace);
    return;
  }
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcastStrides(ab, cb, sa);
  broadcastStrides(bb, cb, sb);
  const int64_t* strides[2] = {sa, sb};
  auto L = makeLoop<2>(cb, strides);
  forEachOuter(L, L.rank, [&](const int64_t* off, int64_t i) {
    gemm(a + off[0] * m * k, b + off[1] * k * n, c + i * m * n, m, k, n, workspace);
  });
}

// The workspace batchedMatmul needs: enough for either way it splits the batch.
template <class T>
int64_t batchedMatmulWorkspaceBytes(int64_t batch, int64_t m, int64_t k, int64_t n) {
  int64_t one = gemmWorkspaceBytes<T>(m, k, n), all = gemmWorkspaceBytes<T>(batch * m, k, n);
  return one > all ? one : all;
}

// The workspace of a product of `a` and `b` (their shapes as stored: with `transA` a holds [k, m],
// with `transB` b holds [n, k]), as the interpreter and generated code both run it: one GEMM
// when an operand is transposed, else batchedMatmul. The caller has checked the shapes.
template <class T>
int64_t matmulWorkspaceBytes(const Shape& a, const Shape& b, bool transA, bool transB) {
  const int64_t k = transA ? a[0] : a.back();
  const int64_t m = a.rank() == 1 ? 1 : transA ? a[1] : a[a.rank() - 2];
  const int64_t n = b.rank() == 1 ? 1 : transB ? b[0] : b.back();
  if (transA || transB) return gemmWorkspaceBytes<T>(transA ? m : a.numel() / (k > 1 ? k : 1), k, n);
  Shape ab, bb, cb;
  for (int i = 0; i + 2 < a.rank(); ++i) ab.push_back(a[i]);
  for (int i = 0; i + 2 < b.rank(); ++i) bb.push_back(b[i]);
  broadcastShapes(ab, bb, cb);
  return batchedMatmulWorkspaceBytes<T>(cb.numel(), m, k, n);
}

// Compiled once, in instances.cpp (for float: the doubles stay where they are used).
WEFT_RT_INSTANCE(void gemmOn<float>(GemmLib, const float*, const float*, float*, int64_t, int64_t, int64_t, void*, bool, bool, bool))

}  // namespace weft::rt

#endif  // WEFT_RT_MATMUL_H
