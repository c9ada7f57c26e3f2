// Scaled dot-product attention, softmax(scale * q k^T + mask) v, for f32 and f64, fused in the
// manner of FlashAttention: queries are taken in blocks of kRows, keys in blocks of kCols, and
// each query row keeps a running maximum and sum of its exponentials (the online softmax), so the
// [Tq, Tk] score matrix never exists beyond one block — memory is O(T), not O(T^2). The backward
// pass recomputes each block's scores from q and k rather than storing them. Short key sequences
// (Tk <= kWide) are one block of every key: the forward pass needs no rescaling, and the backward
// pass takes each row's softmax from the block's scores instead of a separate pass for its
// log-sum-exp, and runs fewer, larger products. Block products are block_product.h's (summed in
// registers, no packing; under causal they skip the masked-off triangle's zeros); exponentials
// are Eigen's vectorised exp, as unary.h's Exp, fused with the shift and the row's sum; the
// per-block scratch lives on the stack, so no workspace is needed.
//
// Layout: q [B, Tq, d], k [B, Tk, d], v [B, Tk, dv], out [B, Tq, dv] row-major, B the product of
// the leading axes. The mask (optional) broadcasts to [lead..., Tq, Tk]: a bool mask keeps the
// scores where it is true (PyTorch's attn_mask, Keras' attention_mask), a float mask is added to
// them. `causal` keeps key j for query i when j <= i (top-left aligned, as PyTorch's is_causal).
// A query row with every key masked gives zeros (and zero gradients), not NaN; a NaN score gives NaN.
#ifndef WEFT_RT_ATTENTION_H
#define WEFT_RT_ATTENTION_H
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "block_product.h"
#include "instances.h"
#include "shape.h"
#include "strided.h"
#include "thread_pool.h"
#include "unary.h"

namespace weft::rt {

struct Attention {
  int64_t batch = 1, tq = 0, tk = 0, d = 0, dv = 0;
  double scale = 1;
  bool causal = false;
  // The mask's element for (batch b, query i, key j) is at maskOffset(b) + i * maskRow + j * maskCol.
  int lead = 0;  // the number of leading axes
  int64_t leadDims[kMaxRank] = {}, maskLead[kMaxRank] = {};
  int64_t maskRow = 0, maskCol = 0;

  int64_t maskOffset(int64_t b) const {
    int64_t o = 0;
    for (int a = lead - 1; a >= 0; --a) {
      o += (b % leadDims[a]) * maskLead[a];
      b /= leadDims[a];
    }
    return o;
  }
};

// The geometry of q, k and v's shapes (the checks are the caller's); `mask` may be null.
inline Attention attentionGeometry(const Shape& q, const Shape& k, const Shape& v, const Shape* mask, bool causal,
                                   double scale) {
  Attention g;
  const int r = q.rank();
  g.lead = r - 2;
  for (int a = 0; a < g.lead; ++a) g.leadDims[a] = q[a], g.batch *= q[a];
  g.tq = q[r - 2], g.d = q[r - 1], g.tk = k[r - 2], g.dv = v[r - 1];
  g.scale = scale, g.causal = causal;
  if (mask) {
    Shape scores = q;
    scores[r - 1] = g.tk;
    int64_t st[kMaxRank] = {};
    broadcastStrides(*mask, scores, st);
    for (int a = 0; a < g.lead; ++a) g.maskLead[a] = st[a];
    g.maskRow = st[r - 2], g.maskCol = st[r - 1];
  }
  return g;
}

namespace attention_detail {
inline constexpr int64_t kRows = 64, kCols = 64, kWide = 256;

// The keys of one block: every key when there are at most kWide.
inline int64_t keyBlock(const Attention& g) { return g.tk <= kWide ? g.tk : kCols; }

template <class T>
using Vec = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>;

// The keys a block of queries [i0, i0 + br) sees: all of them, or up to the last query's under causal.
inline int64_t keyEnd(const Attention& g, int64_t i0, int64_t br) { return g.causal ? std::min(g.tk, i0 + br) : g.tk; }

// out[0, W) = exp(x[0, W) - shift), one packet: Eigen's vectorised exponential, as unary.h's
// Exp, and like it the C library's below expLow, where Eigen's flushes to zero.
template <class T, class P>
P expPacket(const T* x, T* out, T shift) {
  using namespace Eigen::internal;
  constexpr int W = packet_traits<T>::size;
  const P arg = psub(ploadu<P>(x), pset1<P>(shift));
  const P e = pexp(arg);
  if (!predux_any(pcmp_lt(arg, pset1<P>(expLow<T>())))) return pstoreu(out, e), e;
  alignas(64) T args[W];
  pstoreu(args, arg);
  pstoreu(out, e);
  for (int l = 0; l < W; ++l)
    if (args[l] < expLow<T>()) out[l] = std::exp(args[l]);
  return ploadu<P>(out);
}

// row[j] = exp(row[j] - shift) for j < live and zero up to n, and the sum of the results (a
// packet at a time, then across it); all zeros when shift is -inf (every key masked off).
template <class T>
T expShifted(T* row, int64_t live, int64_t n, T shift) {
  using namespace Eigen::internal;
  using P = typename packet_traits<T>::type;
  constexpr int W = packet_traits<T>::size;
  if (shift == -std::numeric_limits<T>::infinity()) live = 0;
  P sum = pset1<P>(T(0));
  int64_t j = 0;
  for (; j + W <= live; j += W) sum = padd(sum, expPacket<T, P>(row + j, row + j, shift));
  if (j < live) {  // the last values padded to a packet, the padding's results dropped
    alignas(64) T in[W], res[W];
    std::fill(in, in + W, shift);
    std::copy(row + j, row + live, in);
    expPacket<T, P>(in, res, shift);
    std::fill(res + (live - j), res + W, T(0));
    std::copy(res, res + (live - j), row + j);
    sum = padd(sum, ploadu<P>(res));
  }
  std::fill(row + live, row + n, T(0));
  return predux(sum);
}

// The larger of a and b, NaN when either is: std::max skips a NaN second argument, and a row
// whose maximum came out -inf would pass for one with every key masked off, its NaN lost to zeros.
template <class T>
T nanMax(T a, T b) {
  return std::isnan(a) || a > b ? a : b;
}

// The largest of row[0, n), -inf when n is 0, NaN when any is NaN.
template <class T>
T rowMax(const T* row, int64_t n) {
  return n > 0 ? Vec<T>(row, n).template maxCoeff<Eigen::PropagateNaN>() : -std::numeric_limits<T>::infinity();
}

// The band of a causal block product whose rows are queries from i0 and whose inner index or
// columns are keys from j0 (kInnerTo, kColsTo), or the other way round (kInnerFrom).
inline Band causalBand(const Attention& g, Band::Kind kind, int64_t i0, int64_t j0) {
  if (!g.causal) return {};
  return {kind, kind == Band::kInnerFrom ? j0 - i0 : i0 - j0};
}

// c[m, n] = a[m, K] b[n, K]^T (a and b row-major) through b's transpose, made in `bt` (kRows *
// kWide values) some of K at a time.
template <class T>
void productTransposed(int64_t m, int64_t n, int64_t K, const T* a, const T* b, T* c, T* bt, Band band) {
  const int64_t chunk = std::max<int64_t>(1, kRows * kWide / std::max<int64_t>(n, 1));
  int64_t k0 = 0;
  do {  // once at least, so that c is written when K is 0
    const int64_t kc = std::min(chunk, K - k0);
    blockTranspose(n, kc, b + k0, K, bt);
    blockProduct(m, n, kc, a + k0, K, 1, bt, n, c, n, k0 > 0, band);
    k0 += chunk;
  } while (k0 < K);
}

// The keys row i of a block sees: all bc of them, or under causal those up to query i0 + i.
inline int64_t liveKeys(const Attention& g, int64_t i0, int64_t i, int64_t j0, int64_t bc) {
  return g.causal ? std::clamp<int64_t>(i0 + i + 1 - j0, 0, bc) : bc;
}

// row[0, n) *= scale, and the largest result (-inf when n is 0, NaN when any is NaN).
template <class T>
T scaleRow(T* row, int64_t n, T scale) {
  using namespace Eigen::internal;
  using P = typename packet_traits<T>::type;
  constexpr int W = packet_traits<T>::size;
  P most = pset1<P>(-std::numeric_limits<T>::infinity());
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    const P x = pmul(ploadu<P>(row + j), pset1<P>(scale));
    pstoreu(row + j, x);
    most = pmax<Eigen::PropagateNaN>(most, x);
  }
  T mx = predux_max<Eigen::PropagateNaN>(most);
  for (; j < n; ++j) mx = nanMax(mx, row[j] *= scale);
  return mx;
}

// s[br, bc] = scale * q[i0:i0+br] k[j0:j0+bc]^T with the mask applied (-inf where masked off),
// and mx[i] the largest of row i's; under causal each row's entries past its live keys are left
// as they are (expShifted zeroes them). `bt` is scratch of kRows * kWide values.
template <class T, class M>
void scores(const T* q, const T* k, const M* mask, const Attention& g, int64_t i0, int64_t br, int64_t j0, int64_t bc,
            T* s, T* mx, T* bt) {
  productTransposed(br, bc, g.d, q + i0 * g.d, k + j0 * g.d, s, bt, causalBand(g, Band::kColsTo, i0, j0));
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < br; ++i) {
    T* row = s + i * bc;
    const int64_t live = liveKeys(g, i0, i, j0, bc);
    mx[i] = scaleRow(row, live, T(g.scale));
    if (!mask) continue;
    const M* m = mask + (i0 + i) * g.maskRow + j0 * g.maskCol;
    for (int64_t j = 0; j < live; ++j) {
      if constexpr (std::is_same_v<M, bool>) {
        if (!m[j * g.maskCol]) row[j] = kNegInf;
      } else {
        row[j] += m[j * g.maskCol];
      }
    }
    mx[i] = rowMax(row, live);
  }
}

// Each query row's log-sum-exp of its scores (-inf when every key is masked off), one pass over
// the key blocks with a running maximum.
template <class T, class M>
void logSumExp(const T* q, const T* k, const M* mask, const Attention& g, int64_t i0, int64_t br, T* lse, T* bt) {
  alignas(64) T s[kRows * kCols];
  T m[kRows], l[kRows], rmax[kRows];
  std::fill(m, m + br, -std::numeric_limits<T>::infinity());
  std::fill(l, l + br, T(0));
  const int64_t end = keyEnd(g, i0, br);
  for (int64_t j0 = 0; j0 < end; j0 += kCols) {
    const int64_t bc = std::min(kCols, end - j0);
    scores(q, k, mask, g, i0, br, j0, bc, s, rmax, bt);
    for (int64_t i = 0; i < br; ++i) {
      T* row = s + i * bc;
      const int64_t live = liveKeys(g, i0, i, j0, bc);
      const T mx = nanMax(m[i], rmax[i]);
      if (mx == -std::numeric_limits<T>::infinity()) continue;
      const T sum = expShifted(row, live, bc, mx);
      l[i] = l[i] * std::exp(m[i] - mx) + sum;
      m[i] = mx;
    }
  }
  for (int64_t i = 0; i < br; ++i) lse[i] = l[i] == 0 ? -std::numeric_limits<T>::infinity() : m[i] + std::log(l[i]);
}
}  // namespace attention_detail

// out = softmax(scores) v, each query block's rows accumulated in place in `out`.
template <class T, class M = bool>
void attentionForward(const T* q, const T* k, const T* v, const M* mask, T* out, const Attention& g) {
  using namespace attention_detail;
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  // Each query block of each batch row is computed alone: they share out on the thread pool.
  const int64_t blocks = (g.tq + kRows - 1) / kRows;
  parallelFor(g.batch * blocks, [&](int64_t item, int) {
    alignas(64) T s[kRows * kWide], bt[kRows * kWide];
    T m[kRows], l[kRows], rmax[kRows];
    const int64_t b = item / blocks, i0 = item % blocks * kRows;
    const T *qb = q + b * g.tq * g.d, *kb = k + b * g.tk * g.d, *vb = v + b * g.tk * g.dv;
    const M* mb = mask ? mask + g.maskOffset(b) : nullptr;
    {
      const int64_t br = std::min(kRows, g.tq - i0);
      T* o = out + (b * g.tq + i0) * g.dv;
      std::fill(m, m + br, kNegInf);
      std::fill(l, l + br, T(0));
      const int64_t end = keyEnd(g, i0, br);
      if (end == 0) std::fill(o, o + br * g.dv, T(0));  // (the first key block's product writes o)
      for (int64_t j0 = 0, bc; j0 < end; j0 += bc) {
        bc = std::min(keyBlock(g), end - j0);
        scores(qb, kb, mb, g, i0, br, j0, bc, s, rmax, bt);
        for (int64_t i = 0; i < br; ++i) {
          T* row = s + i * bc;
          const int64_t live = liveKeys(g, i0, i, j0, bc);
          const T mx = nanMax(m[i], rmax[i]);
          const T sum = expShifted(row, live, bc, mx);
          if (mx == kNegInf) continue;  // nothing seen yet: this block adds nothing (row is zeros)
          const T alpha = std::exp(m[i] - mx);
          // (o's row is still zeros while m[i] is -inf)
          if (alpha != T(1) && m[i] != kNegInf)
            for (int64_t c = 0; c < g.dv; ++c) o[i * g.dv + c] *= alpha;
          l[i] = l[i] * alpha + sum;
          m[i] = mx;
        }
        blockProduct(br, g.dv, bc, s, bc, 1, vb + j0 * g.dv, g.dv, o, g.dv, j0 > 0, causalBand(g, Band::kInnerTo, i0, j0));
      }
      for (int64_t i = 0; i < br; ++i) {
        const T inv = l[i] == 0 ? T(0) : T(1) / l[i];
        for (int64_t c = 0; c < g.dv; ++c) o[i * g.dv + c] *= inv;
      }
    }
  });
}

// The gradients dq, dk, dv of attentionForward given out (its result) and dout (out's gradient),
// FlashAttention-2's backward: per query block, the row statistics recomputed, then per key block
// P = exp(s - lse), dv += P^T dout, dS = P * (dout v^T - rowsum(dout * out)), dq += scale dS k,
// dk += scale dS^T q. When one block holds every key a query block sees (keyBlock), P is that
// block's softmax, with no separate pass for the statistics.
template <class T, class M = bool>
void attentionBackward(const T* q, const T* k, const T* v, const M* mask, const T* out, const T* dout, T* dq, T* dk,
                       T* dv, const Attention& g) {
  using namespace attention_detail;
  // Each batch row alone (its query blocks in order, accumulating its dk and dv): they share out
  // on the thread pool.
  parallelFor(g.batch, [&](int64_t b, int) {
    alignas(64) T p[kRows * kWide], dp[kRows * kWide], bt[kRows * kWide];
    T lse[kRows], rowDot[kRows], rmax[kRows];
    const T *qb = q + b * g.tq * g.d, *kb = k + b * g.tk * g.d, *vb = v + b * g.tk * g.dv;
    T *dkb = dk + b * g.tk * g.d, *dvb = dv + b * g.tk * g.dv;
    std::fill(dkb, dkb + g.tk * g.d, T(0));
    std::fill(dvb, dvb + g.tk * g.dv, T(0));
    const M* mb = mask ? mask + g.maskOffset(b) : nullptr;
    for (int64_t i0 = 0; i0 < g.tq; i0 += kRows) {
      const int64_t br = std::min(kRows, g.tq - i0);
      const T *o = out + (b * g.tq + i0) * g.dv, *dO = dout + (b * g.tq + i0) * g.dv;
      T* dQ = dq + (b * g.tq + i0) * g.d;
      const int64_t end = keyEnd(g, i0, br);
      if (end == 0) std::fill(dQ, dQ + br * g.d, T(0));  // (the first key block's product writes dQ)
      const bool whole = keyBlock(g) >= end;
      if (!whole) logSumExp(qb, kb, mb, g, i0, br, lse, bt);
      for (int64_t i = 0; i < br; ++i) rowDot[i] = Vec<T>(o + i * g.dv, g.dv).dot(Vec<T>(dO + i * g.dv, g.dv));
      for (int64_t j0 = 0, bc; j0 < end; j0 += bc) {
        bc = std::min(keyBlock(g), end - j0);
        scores(qb, kb, mb, g, i0, br, j0, bc, p, rmax, bt);
        for (int64_t i = 0; i < br; ++i) {
          T* row = p + i * bc;
          const int64_t live = liveKeys(g, i0, i, j0, bc);
          if (!whole) {
            expShifted(row, live, bc, lse[i]);
            continue;
          }
          const T sum = expShifted(row, live, bc, rmax[i]);
          const T inv = sum == 0 ? T(0) : T(1) / sum;
          for (int64_t j = 0; j < live; ++j) row[j] *= inv;
        }
        blockProduct(bc, g.dv, br, p, 1, bc, dO, g.dv, dvb + j0 * g.dv, g.dv, true,
                     causalBand(g, Band::kInnerFrom, i0, j0));
        productTransposed(br, bc, g.dv, dO, vb + j0 * g.dv, dp, bt, causalBand(g, Band::kColsTo, i0, j0));
        for (int64_t i = 0; i < br; ++i) {
          T *row = dp + i * bc, *prow = p + i * bc;
          const int64_t live = liveKeys(g, i0, i, j0, bc);
          for (int64_t j = 0; j < live; ++j) row[j] = T(g.scale) * prow[j] * (row[j] - rowDot[i]);
          std::fill(row + live, row + bc, T(0));
        }
        blockProduct(br, g.d, bc, dp, bc, 1, kb + j0 * g.d, g.d, dQ, g.d, j0 > 0, causalBand(g, Band::kInnerTo, i0, j0));
        blockProduct(bc, g.d, br, dp, 1, bc, qb + i0 * g.d, g.d, dkb + j0 * g.d, g.d, true,
                     causalBand(g, Band::kInnerFrom, i0, j0));
      }
    }
  });
}

// Compiled once, in instances.cpp (for float: the doubles stay where they are used).
WEFT_RT_INSTANCE(void attentionForward<float, bool>(const float*, const float*, const float*, const bool*, float*, const Attention&))
WEFT_RT_INSTANCE(void attentionForward<float, float>(const float*, const float*, const float*, const float*, float*, const Attention&))
WEFT_RT_INSTANCE(void attentionBackward<float, bool>(const float*, const float*, const float*, const bool*, const float*, const float*, float*, float*, float*, const Attention&))
WEFT_RT_INSTANCE(void attentionBackward<float, float>(const float*, const float*, const float*, const float*, const float*, const float*, float*, float*, float*, const Attention&))

}  // namespace weft::rt

#endif  // WEFT_RT_ATTENTION_H
