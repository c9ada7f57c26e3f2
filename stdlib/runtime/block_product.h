// The small matrix products of fused attention's blocks (attention.h): C[m, n] = or += A[m, K]
// B[K, n] with m, n and K at most a few hundred. Eigen's general product packs both operands
// and zeroes C first, which at these sizes costs about as much as the arithmetic; here each
// tile of MR rows by NP packets of C is summed in registers straight from A and B, over k in
// order from zero (one fused multiply-add a term), then stored or added to C. Each element's
// result depends only on the operands and its place in the band (below), never on threads.
//
// A's element (i, k) is at a[i * aRow + k * aCol], so A may be a transposed row-major block; B
// and C are row-major with row strides ldb and ldc. A band skips what a causal mask makes zero
// or leaves masked off: with kInnerTo a row strip [i, i + MR) sums k < i + MR + offset only
// (A is zero beyond), with kInnerFrom k >= i + offset only, and with kColsTo it writes the
// columns j < i + MR + offset only (rounded up to whole packets; the caller fills the rest).
#ifndef WEFT_RT_BLOCK_PRODUCT_H
#define WEFT_RT_BLOCK_PRODUCT_H
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace weft::rt {

struct Band {
  enum Kind { kNone, kInnerTo, kInnerFrom, kColsTo } kind = kNone;
  int64_t offset = 0;
};

namespace block_product_detail {
inline constexpr int kRowsPerTile = 4;

// C[MR, NP packets] at c (or += it) from rows of A at a and columns of B at b, k in [k0, k1).
template <class T, int MR, int NP>
void tile(const T* a, int64_t aRow, int64_t aCol, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t k0, int64_t k1,
          bool add) {
  using namespace Eigen::internal;
  using P = typename packet_traits<T>::type;
  constexpr int W = packet_traits<T>::size;
  P acc[MR][NP];
  for (int r = 0; r < MR; ++r)
    for (int p = 0; p < NP; ++p) acc[r][p] = pset1<P>(T(0));
  for (int64_t k = k0; k < k1; ++k) {
    P bk[NP];
    for (int p = 0; p < NP; ++p) bk[p] = ploadu<P>(b + k * ldb + p * W);
    for (int r = 0; r < MR; ++r) {
      const P ar = pset1<P>(a[r * aRow + k * aCol]);
      for (int p = 0; p < NP; ++p) acc[r][p] = pmadd(ar, bk[p], acc[r][p]);
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int p = 0; p < NP; ++p) {
      T* cp = c + r * ldc + p * W;
      pstoreu(cp, add ? padd(ploadu<P>(cp), acc[r][p]) : acc[r][p]);
    }
}

// A strip of MR rows: whole packets of columns four, two and one at a time, then single columns.
template <class T, int MR>
void strip(const T* a, int64_t aRow, int64_t aCol, const T* b, int64_t ldb, T* c, int64_t ldc, int64_t n, int64_t k0,
           int64_t k1, bool add) {
  constexpr int W = Eigen::internal::packet_traits<T>::size;
  int64_t j = 0;
  for (; j + 4 * W <= n; j += 4 * W) tile<T, MR, 4>(a, aRow, aCol, b + j, ldb, c + j, ldc, k0, k1, add);
  if (j + 2 * W <= n) tile<T, MR, 2>(a, aRow, aCol, b + j, ldb, c + j, ldc, k0, k1, add), j += 2 * W;
  if (j + W <= n) tile<T, MR, 1>(a, aRow, aCol, b + j, ldb, c + j, ldc, k0, k1, add), j += W;
  for (; j < n; ++j)
    for (int r = 0; r < MR; ++r) {
      T acc = 0;
      for (int64_t k = k0; k < k1; ++k) acc = std::fma(a[r * aRow + k * aCol], b[k * ldb + j], acc);
      T& cr = c[r * ldc + j];
      cr = add ? cr + acc : acc;
    }
}
}  // namespace block_product_detail

template <class T>
void blockProduct(int64_t m, int64_t n, int64_t K, const T* a, int64_t aRow, int64_t aCol, const T* b, int64_t ldb,
                  T* c, int64_t ldc, bool add, Band band = {}) {
  using namespace block_product_detail;
  constexpr int W = Eigen::internal::packet_traits<T>::size;
  // Eight rows at a time when C is at most two packets wide, four when wider: up to 16 sums in
  // registers either way.
  const int64_t tileRows = n <= 2 * W ? 2 * kRowsPerTile : kRowsPerTile;
  for (int64_t i = 0; i < m; i += tileRows) {
    const int64_t rows = std::min(tileRows, m - i);
    int64_t k0 = 0, k1 = K, cols = n;
    if (band.kind == Band::kInnerTo) k1 = std::clamp<int64_t>(i + rows + band.offset, 0, K);
    if (band.kind == Band::kInnerFrom) k0 = std::clamp<int64_t>(i + band.offset, 0, K);
    if (band.kind == Band::kColsTo) cols = std::min(n, (std::max<int64_t>(0, i + rows + band.offset) + W - 1) / W * W);
    const T* ai = a + i * aRow;
    T* ci = c + i * ldc;
    if (rows == 2 * kRowsPerTile)
      strip<T, 2 * kRowsPerTile>(ai, aRow, aCol, b, ldb, ci, ldc, cols, k0, k1, add);
    else if (rows == kRowsPerTile)
      strip<T, kRowsPerTile>(ai, aRow, aCol, b, ldb, ci, ldc, cols, k0, k1, add);
    else
      for (int64_t r = 0; r < rows; ++r) strip<T, 1>(ai + r * aRow, aRow, aCol, b, ldb, ci + r * ldc, ldc, cols, k0, k1, add);
  }
}

// bt[k, j] = b[j, k] for j < n, k < K (b's rows ldb apart, bt's n): whole packets transposed in
// registers, the edges one value at a time.
template <class T>
void blockTranspose(int64_t n, int64_t K, const T* b, int64_t ldb, T* bt) {
  using namespace Eigen::internal;
  using P = typename packet_traits<T>::type;
  constexpr int W = packet_traits<T>::size;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    int64_t k = 0;
    for (; k + W <= K; k += W) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"  // P's alignment, which a PacketBlock keeps
      PacketBlock<P, W> block;
#pragma GCC diagnostic pop
      for (int r = 0; r < W; ++r) block.packet[r] = ploadu<P>(b + (j + r) * ldb + k);
      ptranspose(block);
      for (int r = 0; r < W; ++r) pstoreu(bt + (k + r) * n + j, block.packet[r]);
    }
    for (; k < K; ++k)
      for (int r = 0; r < W; ++r) bt[k * n + j + r] = b[(j + r) * ldb + k];
  }
  for (; j < n; ++j)
    for (int64_t k = 0; k < K; ++k) bt[k * n + j] = b[j * ldb + k];
}

}  // namespace weft::rt

#endif  // WEFT_RT_BLOCK_PRODUCT_H
