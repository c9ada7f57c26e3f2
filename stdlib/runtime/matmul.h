// Matrix multiplication on row-major buffers. Floats go to the GEMM library the plan picks for the
// shape (gemm_libraries.h: OpenBLAS, BLIS, or Eigen's GEMM on the buffers, no copies, a
// coefficient-wise product for tiny sizes as Eigen picks); integers use a simple i-k-j loop with
// wrapping arithmetic (no UB on overflow). Batches broadcast as in NumPy.
#ifndef WEFT_RT_MATMUL_H
#define WEFT_RT_MATMUL_H
#include <Eigen/Core>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>

#include "gemm_libraries.h"
#include "instances.h"
#include "scalar_math.h"
#include "strided.h"
#include "thread_pool.h"

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

// How gemm() splits a product among threads: c's rows (or, when it is wider than tall, its
// columns) in `chunks` blocks of `size`. Every block packs the other operand again (a few
// percent each), so there are as few as will use the machine: one per core (kSplitWays, the
// machine's and not --threads', so that every thread count runs the same blocks and gets the same
// bits), fewer for a product too small to give each block 2M multiply-adds (tens of
// microseconds, beside a hand-off of a few); each a multiple of 16 wide.
inline const int64_t kSplitWays = std::min<int64_t>(16, std::max<int64_t>(1, int64_t(std::thread::hardware_concurrency())));
struct GemmSplit {
  bool columns = false;
  int64_t size = 0, chunks = 1;
};
inline GemmSplit gemmSplit(int64_t m, int64_t k, int64_t n, int64_t ways = kSplitWays) {
  GemmSplit s;
  s.size = m;
  if (m == 0 || n == 0 || k == 0 || gemmIsDirect(m, k, n)) return s;
  const int64_t chunks = std::min<int64_t>(ways, int64_t(double(m) * double(n) * double(k) / double(1 << 21)));
  if (chunks <= 1) return s;
  s.columns = n > m;
  const int64_t d = s.columns ? n : m;
  s.size = ((d + chunks - 1) / chunks + 15) / 16 * 16;
  s.chunks = (d + s.size - 1) / s.size;
  return s;
}

// The workspace gemm() needs for these sizes, in bytes, for each thread (0 when it packs nothing).
template <class T>
int64_t gemmWorkspaceBytes(int64_t m, int64_t k, int64_t n) {
  if (!std::is_floating_point_v<T> || m == 0 || n == 0 || k == 0 || gemmIsDirect(m, k, n)) return 0;
  const GemmSplit s = gemmSplit(m, k, n);
  const int64_t last = (s.columns ? n : m) - (s.chunks - 1) * s.size;  // Eigen may block it wider
  int64_t elements = 0;
  for (int64_t size : {s.size, last})
    elements = std::max(elements, GemmBlocking<T>(s.columns ? m : size, k, s.columns ? size : n).elements());
  return elements * int64_t(sizeof(T)) + 64;  // + alignment
}

namespace detail {
// Eigen's view of c (column-major: its row i is c's column, its column j c's row) while the
// first kc panel of the product runs: a load returns the start of c — zero, or start[i], a bias
// row — instead of reading c, so that c is not cleared or filled in a pass of its own before the
// kernel. The kernel's arithmetic is unchanged (start + the panel's sum), and so are the bits.
template <class T>
class StartLinear {
 public:
  StartLinear(T* data, const T* start) : data_(data), start_(start) {}
  void prefetch(int i) const { Eigen::internal::prefetch(data_ + i); }
  T& operator()(Eigen::Index i) const { return data_[i] = start_ ? start_[i] : T(0); }
  template <class P>
  P loadPacket(Eigen::Index i) const {
    return start_ ? Eigen::internal::ploadu<P>(start_ + i) : Eigen::internal::pset1<P>(T(0));
  }
  template <class P>
  void storePacket(Eigen::Index i, const P& p) const { Eigen::internal::pstoreu<T, P>(data_ + i, p); }

 private:
  T* data_;
  const T* start_;
};
template <class T>
class StartMapper {
 public:
  using LinearMapper = StartLinear<T>;
  StartMapper(T* data, Eigen::Index stride, const T* start) : data_(data), stride_(stride), start_(start) {}
  LinearMapper getLinearMapper(Eigen::Index i, Eigen::Index j) const {
    return LinearMapper(data_ + i + j * stride_, start_ ? start_ + i : nullptr);
  }
  T& operator()(Eigen::Index i, Eigen::Index j) const { return data_[i + j * stride_] = start_ ? start_[i] : T(0); }
  template <class P>
  P gatherPacket(Eigen::Index i, Eigen::Index) const { return Eigen::internal::pset1<P>(start_ ? start_[i] : T(0)); }
  template <class P>
  void scatterPacket(Eigen::Index i, Eigen::Index j, const P& p) const {
    Eigen::internal::pscatter<T, P>(data_ + i + j * stride_, p, stride_);
  }

 private:
  T* data_;
  Eigen::Index stride_;
  const T* start_;
};

// Eigen's blocked product of row-major C (leading dimension ldc) with A and B each row-major or,
// transposed, column-major (leading dimensions lda, ldb as stored): Eigen's sequential
// general_matrix_matrix_product, run transposed (C^T = B^T A^T, column-major), with its loops and
// blocking, but the first kc panel written over c from `start` (StartMapper) unless `accumulate`.
template <class T, int AOrder, int BOrder>
void blockedProduct(const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t m, int64_t k,
                    int64_t n, GemmBlocking<T>& blocking, bool accumulate, const T* start) {
  namespace ei = Eigen::internal;
  using Index = Eigen::Index;
  using Traits = ei::gebp_traits<T, T>;
  constexpr int LOrder = BOrder == Eigen::RowMajor ? Eigen::ColMajor : Eigen::RowMajor;
  constexpr int ROrder = AOrder == Eigen::RowMajor ? Eigen::ColMajor : Eigen::RowMajor;
  using LhsMapper = ei::const_blas_data_mapper<T, Index, LOrder>;
  using RhsMapper = ei::const_blas_data_mapper<T, Index, ROrder>;
  using ResMapper = ei::blas_data_mapper<T, Index, Eigen::ColMajor, Eigen::Unaligned, 1>;
  const Index rows = n, cols = m, depth = k;
  LhsMapper lhs(b, ldb);
  RhsMapper rhs(a, lda);
  ResMapper res(c, ldc, 1);
  const Index kc = blocking.kc(), mc = std::min<Index>(rows, blocking.mc()), nc = std::min<Index>(cols, blocking.nc());
  ei::gemm_pack_lhs<T, Index, LhsMapper, Traits::mr, Traits::LhsProgress, typename Traits::LhsPacket4Packing, LOrder>
      packLhs;
  ei::gemm_pack_rhs<T, Index, RhsMapper, Traits::nr, ROrder> packRhs;
  ei::gebp_kernel<T, T, Index, ResMapper, Traits::mr, Traits::nr, false, false> gebp;
  ei::gebp_kernel<T, T, Index, StartMapper<T>, Traits::mr, Traits::nr, false, false> gebpStart;
  T* blockA = blocking.blockA();
  T* blockB = blocking.blockB();
  const bool packRhsOnce = mc != rows && kc == depth && nc == cols;
  for (Index i2 = 0; i2 < rows; i2 += mc) {
    const Index amc = std::min(i2 + mc, rows) - i2;
    for (Index k2 = 0; k2 < depth; k2 += kc) {
      const Index akc = std::min(k2 + kc, depth) - k2;
      packLhs(blockA, lhs.getSubMapper(i2, k2), akc, amc);
      for (Index j2 = 0; j2 < cols; j2 += nc) {
        const Index anc = std::min(j2 + nc, cols) - j2;
        if (!packRhsOnce || i2 == 0) packRhs(blockB, rhs.getSubMapper(k2, j2), akc, anc);
        if (k2 == 0 && !accumulate)
          gebpStart(StartMapper<T>(c + i2 + j2 * ldc, ldc, start ? start + i2 : nullptr), blockA, blockB, amc, akc,
                    anc, T(1));
        else
          gebp(res.getSubMapper(i2, j2), blockA, blockB, amc, akc, anc, T(1));
      }
    }
  }
}

// One block of a product, on one thread: as gemmOn below, with leading dimensions; c starts from
// `bias` in each row when it is given (and not `accumulate`).
template <class T>
void gemmBlock(GemmLib lib, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t m, int64_t k,
               int64_t n, void* workspace, bool accumulate, bool transA, bool transB, const T* bias) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    if (lib != GemmLib::Eigen) {
      if (bias)
        for (int64_t i = 0; i < m; ++i) std::memcpy(c + i * ldc, bias, size_t(n) * sizeof(T));
      if (libraryGemm(lib, a, lda, b, ldb, c, ldc, m, k, n, accumulate || bias, transA, transB)) return;
      accumulate = accumulate || bias;
      bias = nullptr;
    }
  GemmBlocking<T> blocking(m, k, n);
  std::unique_ptr<T[]> own;
  void* ws = workspace;
  if (!ws) {
    own.reset(new T[size_t(blocking.elements()) + 64 / sizeof(T)]);
    ws = own.get();
  }
  blocking.attach(reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(ws) + 63) & ~uintptr_t(63)));
  constexpr int R = Eigen::RowMajor, Cm = Eigen::ColMajor;
  if (transA && transB) blockedProduct<T, Cm, Cm>(a, lda, b, ldb, c, ldc, m, k, n, blocking, accumulate, bias);
  else if (transA) blockedProduct<T, Cm, R>(a, lda, b, ldb, c, ldc, m, k, n, blocking, accumulate, bias);
  else if (transB) blockedProduct<T, R, Cm>(a, lda, b, ldb, c, ldc, m, k, n, blocking, accumulate, bias);
  else blockedProduct<T, R, R>(a, lda, b, ldb, c, ldc, m, k, n, blocking, accumulate, bias);
}

// A direct product (gemmIsDirect: nothing to pack) or an integer one, on one thread.
template <class T>
void gemmDirect(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, bool accumulate, bool transA,
                bool transB) {
  if constexpr (std::is_floating_point_v<T>) {
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
    Eigen::Map<Mat> C(c, m, n);
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
}  // namespace detail

// c[m, n] = a[m, k] @ b[k, n] (+ c, when `accumulate`; else + `bias[n]` in each row, when given), all contiguous
// row-major; with `transA` a holds the [k, m] matrix whose transpose is used, with `transB` b
// holds [n, k] (a gradient's x^T @ g and g @ w^T, without copying a transpose). `workspace`
// holds gemmWorkspaceBytes<T>(m, k, n) bytes (Eigen packs into it; the other libraries pack in
// their own buffers), or is null: then Eigen's packing buffers are allocated here. gemmOn runs
// the product on `lib`, gemm on the library gemmPlan() picks for the shape; both split it into
// gemmSplit's blocks, gemm runs them on the current thread pool (thread_pool.h).
template <class T>
void gemmOn(GemmLib lib, const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, void* workspace = nullptr,
            bool accumulate = false, bool transA = false, bool transB = false, const T* bias = nullptr) {
  if (m == 0 || n == 0) return;
  if (accumulate) bias = nullptr;
  if (k == 0 || !std::is_floating_point_v<T> || gemmIsDirect(m, k, n)) {
    if (bias)
      for (int64_t i = 0; i < m; ++i) std::memcpy(c + i * n, bias, size_t(n) * sizeof(T));
    accumulate = accumulate || bias;
    if (k == 0) {
      if (!accumulate) std::memset(c, 0, size_t(m * n) * sizeof(T));
      return;
    }
    return detail::gemmDirect(a, b, c, m, k, n, accumulate, transA, transB);
  }
  const GemmSplit s = gemmSplit(m, k, n);
  const int64_t lda = transA ? m : k, ldb = transB ? k : n;
  const int64_t wsBytes = gemmWorkspaceBytes<T>(m, k, n);
  ThreadPool* pool = currentPool();
  parallelFor(s.chunks, [&](int64_t chunk, int worker) {
    void* ws = worker == 0 ? workspace : pool->scratch(worker).data();
    const int64_t at = chunk * s.size, len = std::min(s.size, (s.columns ? n : m) - at);
    if (s.columns)  // columns at..at+len of b (a row offset when it is transposed) and of c
      detail::gemmBlock(lib, a, lda, b + (transB ? at * k : at), ldb, c + at, n, m, k, len, ws, accumulate, transA,
                        transB, bias ? bias + at : nullptr);
    else  // rows at..at+len of a (columns when it is transposed) and of c
      detail::gemmBlock(lib, a + (transA ? at : at * k), lda, b, ldb, c + at * n, n, len, k, n, ws, accumulate,
                        transA, transB, bias);
  }, size_t(wsBytes));
}

template <class T>
void gemm(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, void* workspace = nullptr,
          bool accumulate = false, bool transA = false, bool transB = false, const T* bias = nullptr) {
  constexpr bool blas = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if constexpr (blas) {
    const GemmPlan& plan = gemmPlan();
    GemmLib lib = plan.use[gemmClass(m, k, n, transA, transB)];
    if (lib != GemmLib::Eigen && !gemm_detail::usable(lib)) lib = GemmLib::Eigen;
    const ThreadPool* pool = currentPool();
    // On one thread, a library whose bits do not depend on the blocks runs the product in one call:
    // the blocks in turn would each pack the shared operand again and pay a call (3-6% on BLIS).
    if (plan.whole[int(lib)] && (!pool || pool->size() <= 1) && m > 0 && n > 0 && k > 0 && !gemmIsDirect(m, k, n) &&
        gemmSplit(m, k, n).chunks > 1)
      return detail::gemmBlock(lib, a, transA ? m : k, b, transB ? k : n, c, n, m, k, n, nullptr, accumulate, transA,
                               transB, accumulate ? nullptr : bias);  // (no workspace: these libraries pack their own)
    gemmOn(lib, a, b, c, m, k, n, workspace, accumulate, transA, transB, bias);
  } else {
    gemmOn(GemmLib::Eigen, a, b, c, m, k, n, workspace, accumulate, transA, transB, bias);
  }
}

// The fused form of fuse-epilogues before its activation: c[rows, n] = bias + a[rows, k] @ b[k, n],
// the product's first panel added to the bias row as the kernel writes c (no pass over c to
// fill or add it). The interpreter's kernel and generated code both run it.
template <class T>
void biasMatmul(const T* a, const T* b, const T* bias, T* c, int64_t rows, int64_t k, int64_t n,
                void* workspace = nullptr) {
  gemm(a, b, c, rows, k, n, workspace, false, false, false, bias);
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
  int64_t sa[kMaxRank], sb[kMaxRank];
  broadcastStrides(ab, cb, sa);
  broadcastStrides(bb, cb, sb);
  auto product = [&](int64_t i, void* ws) {  // matrix i of c, from its batch index's a and b
    int64_t oa = 0, ob = 0;
    for (int64_t d = cb.rank() - 1, rest = i; d >= 0; rest /= cb[d], --d) {
      oa += rest % cb[d] * sa[d];
      ob += rest % cb[d] * sb[d];
    }
    gemm(a + oa * m * k, b + ob * k * n, c + i * m * n, m, k, n, ws);
  };
  if (gemmSplit(m, k, n).chunks > 1) {  // each product splits itself
    for (int64_t i = 0; i < batch; ++i) product(i, workspace);
    return;
  }
  // Small products: the batch shared out, each product on one thread, in groups of at least 2M
  // multiply-adds (any grouping computes the same bits).
  const int64_t per = std::max<int64_t>(1, (int64_t(1) << 21) / std::max<int64_t>(1, m * k * n));
  const int64_t wsBytes = gemmWorkspaceBytes<T>(m, k, n);
  ThreadPool* pool = currentPool();
  parallelFor(chunkCount(batch, per), [&](int64_t chunk, int worker) {
    void* ws = worker == 0 ? workspace : pool->scratch(worker).data();
    for (int64_t i = chunk * per; i < std::min(batch, (chunk + 1) * per); ++i) product(i, ws);
  }, size_t(wsBytes));
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
WEFT_RT_INSTANCE(void gemmOn<float>(GemmLib, const float*, const float*, float*, int64_t, int64_t, int64_t, void*, bool, bool, bool,
                                    const float*))

}  // namespace weft::rt

#endif  // WEFT_RT_MATMUL_H
