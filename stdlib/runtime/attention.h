// Scaled dot-product attention, softmax(scale * q k^T + mask) v, for f32 and f64, fused in the
// manner of FlashAttention: queries are taken in blocks of kRows, keys in blocks of kCols, and
// each query row keeps a running maximum and sum of its exponentials (the online softmax), so the
// [Tq, Tk] score matrix never exists beyond one block — memory is O(T), not O(T^2). The backward
// pass recomputes each block's scores from q and k rather than storing them. Short key sequences
// (Tk <= kWide) are one block of every key: the forward pass needs no rescaling, and the backward
// pass takes each row's softmax from the block's scores instead of a separate pass for its
// log-sum-exp, and runs fewer, larger products. Block products are Eigen's on the buffers;
// exponentials are unary.h's vectorised Exp (each value's result its own, whatever the blocking);
// the per-block scratch lives on the stack, so no workspace is needed.
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
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using In = Eigen::Map<const Mat<T>>;
template <class T>
using Out = Eigen::Map<Mat<T>>;

// The keys a block of queries [i0, i0 + br) sees: all of them, or up to the last query's under causal.
inline int64_t keyEnd(const Attention& g, int64_t i0, int64_t br) { return g.causal ? std::min(g.tk, i0 + br) : g.tk; }

// max(init, row[0..n)), NaN when any of them is NaN: std::max and std::max_element skip a NaN
// that is not first, and a row whose maximum came out -inf would pass for one with every key
// masked off, its NaN lost to zeros.
template <class T>
T rowMax(const T* row, int64_t n, T init) {
  T mx = init;
  bool nan = std::isnan(init);
  for (int64_t j = 0; j < n; ++j) {
    mx = std::max(mx, row[j]);
    nan |= std::isnan(row[j]);
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : mx;
}

// row[j] = exp(row[j] - shift) for j < n, and the sum of the results (in order); all zeros when
// shift is -inf (every key masked off). The trailing -inf scores (the causal mask's) are zeros
// without going through exp, whose vectorised form leaves infinities to a scalar fix.
template <class T>
T expShifted(T* row, int64_t n, T shift) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  int64_t live = shift == kNegInf ? 0 : n;
  while (live > 0 && row[live - 1] == kNegInf) --live;
  std::fill(row + live, row + n, T(0));
  for (int64_t j = 0; j < live; ++j) row[j] -= shift;
  unaryBlock<Exp>(row, row, live);
  T sum = 0;
  for (int64_t j = 0; j < live; ++j) sum += row[j];
  return sum;
}

// s[br, bc] = scale * q[i0:i0+br] k[j0:j0+bc]^T with the mask applied (-inf where masked off).
template <class T, class M>
void scores(const T* q, const T* k, const M* mask, const Attention& g, int64_t i0, int64_t br, int64_t j0, int64_t bc,
            T* s) {
  Out<T> S(s, br, bc);
  // The scale after the product: folded into it, a single query row (a matrix-vector product,
  // generation with a KV cache) would have Eigen allocate a scaled copy of the row.
  S.noalias() = In<T>(q + i0 * g.d, br, g.d) * In<T>(k + j0 * g.d, bc, g.d).transpose();
  S *= T(g.scale);
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  if (mask)
    for (int64_t i = 0; i < br; ++i) {
      const M* m = mask + (i0 + i) * g.maskRow + j0 * g.maskCol;
      T* row = s + i * bc;
      for (int64_t j = 0; j < bc; ++j) {
        if constexpr (std::is_same_v<M, bool>) {
          if (!m[j * g.maskCol]) row[j] = kNegInf;
        } else {
          row[j] += m[j * g.maskCol];
        }
      }
    }
  if (g.causal)
    for (int64_t i = 0; i < br; ++i)
      for (int64_t j = std::max<int64_t>(0, i0 + i + 1 - j0); j < bc; ++j) s[i * bc + j] = kNegInf;
}

// Each query row's log-sum-exp of its scores (-inf when every key is masked off), one pass over
// the key blocks with a running maximum.
template <class T, class M>
void logSumExp(const T* q, const T* k, const M* mask, const Attention& g, int64_t i0, int64_t br, T* lse) {
  alignas(64) T s[kRows * kCols];
  T m[kRows], l[kRows];
  std::fill(m, m + br, -std::numeric_limits<T>::infinity());
  std::fill(l, l + br, T(0));
  const int64_t end = keyEnd(g, i0, br);
  for (int64_t j0 = 0; j0 < end; j0 += kCols) {
    const int64_t bc = std::min(kCols, end - j0);
    scores(q, k, mask, g, i0, br, j0, bc, s);
    for (int64_t i = 0; i < br; ++i) {
      T* row = s + i * bc;
      const T mx = rowMax(row, bc, m[i]);
      if (mx == -std::numeric_limits<T>::infinity()) continue;
      const T sum = expShifted(row, bc, mx);
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
    alignas(64) T s[kRows * kWide];
    T m[kRows], l[kRows];
    const int64_t b = item / blocks, i0 = item % blocks * kRows;
    const T *qb = q + b * g.tq * g.d, *kb = k + b * g.tk * g.d, *vb = v + b * g.tk * g.dv;
    const M* mb = mask ? mask + g.maskOffset(b) : nullptr;
    {
      const int64_t br = std::min(kRows, g.tq - i0);
      T* o = out + (b * g.tq + i0) * g.dv;
      std::fill(o, o + br * g.dv, T(0));
      std::fill(m, m + br, kNegInf);
      std::fill(l, l + br, T(0));
      const int64_t end = keyEnd(g, i0, br);
      for (int64_t j0 = 0, bc; j0 < end; j0 += bc) {
        bc = std::min(keyBlock(g), end - j0);
        scores(qb, kb, mb, g, i0, br, j0, bc, s);
        for (int64_t i = 0; i < br; ++i) {
          T* row = s + i * bc;
          const T mx = rowMax(row, bc, m[i]);
          const T sum = expShifted(row, bc, mx);
          if (mx == kNegInf) continue;  // nothing seen yet: this block adds nothing (row is zeros)
          const T alpha = std::exp(m[i] - mx);
          l[i] = l[i] * alpha + sum;
          m[i] = mx;
          if (alpha != T(1))
            for (int64_t c = 0; c < g.dv; ++c) o[i * g.dv + c] *= alpha;
        }
        Out<T>(o, br, g.dv).noalias() += In<T>(s, br, bc) * In<T>(vb + j0 * g.dv, bc, g.dv);
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
    alignas(64) T p[kRows * kWide], dp[kRows * kWide];
    T lse[kRows], rowDot[kRows];
    const T *qb = q + b * g.tq * g.d, *kb = k + b * g.tk * g.d, *vb = v + b * g.tk * g.dv;
    T *dkb = dk + b * g.tk * g.d, *dvb = dv + b * g.tk * g.dv;
    std::fill(dkb, dkb + g.tk * g.d, T(0));
    std::fill(dvb, dvb + g.tk * g.dv, T(0));
    const M* mb = mask ? mask + g.maskOffset(b) : nullptr;
    for (int64_t i0 = 0; i0 < g.tq; i0 += kRows) {
      const int64_t br = std::min(kRows, g.tq - i0);
      const T *o = out + (b * g.tq + i0) * g.dv, *dO = dout + (b * g.tq + i0) * g.dv;
      T* dQ = dq + (b * g.tq + i0) * g.d;
      std::fill(dQ, dQ + br * g.d, T(0));
      const int64_t end = keyEnd(g, i0, br);
      const bool whole = keyBlock(g) >= end;
      if (!whole) logSumExp(qb, kb, mb, g, i0, br, lse);
      for (int64_t i = 0; i < br; ++i) {
        T acc = 0;
        for (int64_t c = 0; c < g.dv; ++c) acc += o[i * g.dv + c] * dO[i * g.dv + c];
        rowDot[i] = acc;
      }
      for (int64_t j0 = 0, bc; j0 < end; j0 += bc) {
        bc = std::min(keyBlock(g), end - j0);
        scores(qb, kb, mb, g, i0, br, j0, bc, p);
        for (int64_t i = 0; i < br; ++i) {
          T* row = p + i * bc;
          if (!whole) {
            expShifted(row, bc, lse[i]);
            continue;
          }
          const T sum = expShifted(row, bc, rowMax(row, bc, -std::numeric_limits<T>::infinity()));
          const T inv = sum == 0 ? T(0) : T(1) / sum;
          for (int64_t j = 0; j < bc; ++j) row[j] *= inv;
        }
        In<T> P(p, br, bc), dOut(dO, br, g.dv);
        Out<T>(dvb + j0 * g.dv, bc, g.dv).noalias() += P.transpose() * dOut;
        Out<T>(dp, br, bc).noalias() = dOut * In<T>(vb + j0 * g.dv, bc, g.dv).transpose();
        for (int64_t i = 0; i < br; ++i)
          for (int64_t j = 0; j < bc; ++j) dp[i * bc + j] = T(g.scale) * p[i * bc + j] * (dp[i * bc + j] - rowDot[i]);
        In<T> dS(dp, br, bc);
        Out<T>(dQ, br, g.d).noalias() += dS * In<T>(kb + j0 * g.d, bc, g.d);
        Out<T>(dkb + j0 * g.d, bc, g.d).noalias() += dS.transpose() * In<T>(qb + i0 * g.d, br, g.d);
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
