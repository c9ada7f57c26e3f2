// gelu(x) (the erf form) and gelu(x, approximate=true) (the tanh form written as x * sigmoid(2u)),
// as unary functors with a `chunk` form: a chunk runs the steps the prelude's composite of
// primitives ran, in the same order and through the same kernels (binaryRow, Erf's and Sigmoid's
// unaryBlock), so the results are the same bits as that composite's, eagerly, in fused loops and
// in generated code. x is first held at -1000 or above, where every form is -0.0 anyway, so that
// gelu(-inf) is -0.0, not -inf * 0 (docs/numerics.md). The output may alias x: x is read once,
// into the first step's buffer. Never inlined, as unaryChunk: every caller runs the same code.
#ifndef WEFT_RT_GELU_H
#define WEFT_RT_GELU_H
#include "binary.h"
#include "unary.h"

namespace weft::rt {

// 0.5 * x * (1 + erf(x * 1/sqrt(2))), x = maximum(x, -1000).
struct Gelu {
  template <class T>
  [[gnu::noinline]] static void chunk(const T* x, T* out, int64_t m) {
    const T lo = T(-1000.0), half = T(0.5), one = T(1.0), rsqrt2 = T(0.7071067811865476);
    alignas(64) T xc[kUnaryChunk], t[kUnaryChunk], e[kUnaryChunk], h[kUnaryChunk];
    binaryRow<Maximum>(x, 1, &lo, 0, xc, m);
    binaryRow<Mul>(xc, 1, &rsqrt2, 0, t, m);
    unaryBlock<Erf>(t, e, m);  // not in place: Erf's repair reads its input after
    binaryRow<Add>(&one, 0, e, 1, t, m);
    binaryRow<Mul>(&half, 0, xc, 1, h, m);
    binaryRow<Mul>(h, 1, t, 1, out, m);
  }
};

// x * sigmoid(2 sqrt(2/pi) * (x + 0.044715 * x * x * x)), x = maximum(x, -1000).
struct GeluTanh {
  template <class T>
  [[gnu::noinline]] static void chunk(const T* x, T* out, int64_t m) {
    const T lo = T(-1000.0), a = T(0.044715), k = T(1.5957691216057308);
    alignas(64) T xc[kUnaryChunk], t[kUnaryChunk], s[kUnaryChunk];
    binaryRow<Maximum>(x, 1, &lo, 0, xc, m);
    binaryRow<Mul>(&a, 0, xc, 1, t, m);
    binaryRow<Mul>(t, 1, xc, 1, t, m);
    binaryRow<Mul>(t, 1, xc, 1, t, m);
    binaryRow<Add>(xc, 1, t, 1, t, m);
    binaryRow<Mul>(&k, 0, t, 1, t, m);
    unaryBlock<Sigmoid>(t, s, m);  // not in place: Sigmoid's repair reads its input after
    binaryRow<Mul>(xc, 1, s, 1, out, m);
  }
};

}  // namespace weft::rt

#endif  // WEFT_RT_GELU_H
