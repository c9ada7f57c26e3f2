// Ops that only change how the same elements are laid out: reshape, squeeze and expand_dims
// share storage (no copy); transpose copies.
#include "../../stdlib/runtime/copy.h"
#include "check.h"
#include "impl.h"
#include "row.h"

namespace weft::ops::impl {

namespace {

// transpose's permutation for rank r, checked; the reversed axes when none is given.
std::vector<int> permutation(const Shape& s, const std::vector<int>& permIn) {
  const int r = s.rank();
  std::vector<int> perm(static_cast<size_t>(r));
  if (permIn.empty()) {
    for (int i = 0; i < r; ++i) perm[size_t(i)] = r - 1 - i;
    return perm;
  }
  if (int(permIn.size()) != r)
    fail("transpose: the permutation has " + std::to_string(permIn.size()) + " axes but the shape " + s.str() +
         " has " + std::to_string(r));
  bool seen[rt::kMaxRank] = {};
  for (int i = 0; i < r; ++i) {
    int d = normalizeAxis("transpose", permIn[size_t(i)], s);
    if (seen[d]) fail("transpose: axis " + std::to_string(permIn[size_t(i)]) + " is repeated in the permutation");
    seen[d] = true;
    perm[size_t(i)] = d;
  }
  return perm;
}

}  // namespace

TensorType reshapeType(const TensorType& x, const std::vector<int64_t>& dims) {
  checkRank("reshape", int(dims.size()));
  Shape s;
  int infer = -1;
  int64_t known = 1;
  bool zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dims[i];
    if (d == -1) {
      if (infer >= 0) fail("reshape: only one dimension can be -1");
      infer = int(i);
      s.push_back(1);
      continue;
    }
    if (d < 0) fail("reshape: invalid dimension " + std::to_string(d));
    s.push_back(d);
    if (d == 0) zero = true;
    else if (known > (int64_t(1) << 62) / d) known = -1;  // overflow: certainly the wrong size
    else if (known >= 0) known *= d;
  }
  if (zero) known = 0;
  for (int64_t d : x.shape)
    if (d == rt::kUnknownDim) {  // a graph value of unknown size: -1 is decided when it runs
      if (infer >= 0) s[infer] = rt::kUnknownDim;
      return {x.dtype, s};
    }
  const int64_t n = *sizes::numel(x.shape);  // x's shape passed checkShape
  auto wrong = [&]() -> std::string {
    std::string target = "[";
    for (size_t i = 0; i < dims.size(); ++i) target += (i ? ", " : "") + std::to_string(dims[i]);
    return "cannot reshape " + x.shape.str() + " (" + std::to_string(n) + " elements) to " + target + "]";
  };
  if (sizes::symbolic(n)) {  // the element counts are compared when the code runs
    if (infer >= 0) {
      if (known <= 0) fail(wrong());
      s[infer] = sizes::floorDiv(n, known);
    }
    if (!sizes::same(*sizes::numel(s), n)) fail(wrong());
  } else if (infer >= 0) {
    if (known <= 0 || n % known != 0) fail(wrong());
    s[infer] = n / known;
  } else if (known != n) {
    fail(wrong());
  }
  return {x.dtype, s};
}

Tensor reshape(const Tensor& x, const std::vector<int64_t>& dims) { return x.reshaped(reshapeType(typeOf(x), dims).shape); }

TensorType transposeType(const TensorType& x, const std::vector<int>& perm) {
  TensorType out{x.dtype, {}};
  for (int d : permutation(x.shape, perm)) out.shape.push_back(x.shape[d]);
  return out;
}

Tensor transpose(const Tensor& x, const std::vector<int>& permIn) {
  const std::vector<int> perm = permutation(x.shape(), permIn);
  bool identity = true;
  Shape out;
  for (int i = 0; i < x.rank(); ++i) {
    out.push_back(x.shape()[perm[size_t(i)]]);
    if (perm[size_t(i)] != i) identity = false;
  }
  if (identity) return x;
  Tensor result = Tensor::empty(x.dtype(), out);
  rt::dispatch(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rt::permuteKernel(x.data<T>(), x.shape(), perm.data(), result.data<T>());
  });
  return result;
}

TensorType squeezeType(const TensorType& x, const std::vector<int>& axes) {
  const Shape& s = x.shape;
  bool drop[rt::kMaxRank] = {};
  if (axes.empty()) {
    for (int d = 0; d < s.rank(); ++d) drop[d] = s[d] == 1;
  } else {
    for (int a : axes) {
      int d = normalizeAxis("squeeze", a, s);
      if (!sizes::same(s[d], 1))  // a symbolic size is checked when the code runs
        fail("squeeze: axis " + std::to_string(a) + " of shape " + s.str() + " has size " + std::to_string(s[d]) +
             ", not 1");
      drop[d] = true;
    }
  }
  TensorType out{x.dtype, {}};
  for (int d = 0; d < s.rank(); ++d)
    if (!drop[d]) out.shape.push_back(s[d]);
  return out;
}

Tensor squeeze(const Tensor& x, const std::vector<int>& axes) { return x.reshaped(squeezeType(typeOf(x), axes).shape); }

TensorType expandDimsType(const TensorType& x, int axis) {
  checkRank("expand_dims", x.shape.rank() + 1);
  TensorType out = x;
  out.shape.insert(normalizeAxis("expand_dims", axis, x.shape.rank() + 1, x.shape), 1);
  return out;
}

Tensor expandDims(const Tensor& x, int axis) { return x.reshaped(expandDimsType(typeOf(x), axis).shape); }

TensorType shapeOfType(const TensorType& x, const std::vector<int64_t>& blocks) {
  if (int(blocks.size()) > x.shape.rank())
    fail("shape_of: blocks has " + std::to_string(blocks.size()) + " entries for a tensor of rank " +
         std::to_string(x.shape.rank()));
  return {DType::I64, Shape{x.shape.rank()}};
}

Tensor shapeOf(const Tensor& x, const std::vector<int64_t>& blocks) {
  shapeOfType(typeOf(x), blocks);
  Tensor out = Tensor::empty(DType::I64, Shape{x.rank()});
  for (int i = 0; i < x.rank(); ++i)
    out.data<int64_t>()[i] = x.shape()[i] * (size_t(i) < blocks.size() ? blocks[size_t(i)] : 1);
  return out;
}

}  // namespace weft::ops::impl

namespace weft::ops {

using namespace rows;

namespace {

std::vector<int64_t> shapeBlocks(const Attrs& a) { return a.has("blocks") ? a.ints("blocks") : std::vector<int64_t>{}; }

}  // namespace

void defineShapeRows() {
  {
    OpDef& d = defineRow(OpId::Reshape, Family::Shape);
    d.attrs = {{"shape", K::Ints}};
    d.view = true;
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::reshapeType(in[0], a.ints("shape"))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::reshape(in[0], a.ints("shape"))}; };
  }
  {
    OpDef& d = defineRow(OpId::Transpose, Family::Shape);
    d.attrs = {{"perm", K::Ints}};
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::transposeType(in[0], intsOf(a.ints("perm")))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::transpose(in[0], intsOf(a.ints("perm")))}; };
  }
  {
    OpDef& d = defineRow(OpId::Squeeze, Family::Shape);
    d.attrs = {{"axes", K::Ints}};
    d.view = true;
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::squeezeType(in[0], intsOf(a.ints("axes")))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::squeeze(in[0], intsOf(a.ints("axes")))}; };
  }
  {
    OpDef& d = defineRow(OpId::ExpandDims, Family::Shape);
    d.attrs = {{"axis", K::Int}};
    d.view = true;
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::expandDimsType(in[0], int(a.i("axis")))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::expandDims(in[0], int(a.i("axis")))}; };
  }
  {
    // A tensor's shape as an i64 tensor (TensorFlow's tf.shape: known only when a graph runs).
    // blocks (optional): each size times this, on a device holding one block.
    OpDef& d = defineRow(OpId::ShapeOf, Family::Shape);
    d.attrs = {{"blocks", K::Ints, true}};
    d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::shapeOfType(in[0], shapeBlocks(a))}; };
    d.run = [](In in, const Attrs& a) -> Out { return {impl::shapeOf(in[0], shapeBlocks(a))}; };
  }
  // The value itself, moved to the placements `to` on `mesh` (per mesh dimension, the tensor
  // dimension it splits, or -1 for replicated): the program's explicit re-layout (relayout(),
  // distribute()). Propagation moves its input there; on one device it is the identity.
  OpDef& d = defineRow(OpId::Relayout, Family::Shape);
  d.attrs = {{"mesh", K::Str}, {"to", K::Ints}};
  d.view = true;
  d.infer = [](Ty in, const Attrs&) -> Types { return {in[0]}; };
  d.run = [](In in, const Attrs&) -> Out { return {in[0]}; };
}

}  // namespace weft::ops
