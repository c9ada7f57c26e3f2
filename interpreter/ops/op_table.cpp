// The rows of the op table: each primitive's attribute schema and its run function, an adapter
// from (inputs, attributes) to the implementation in impl.h.
#include "op_table.h"

#include <stdexcept>

#include "../../grammar/diagnostics.h"
#include "../../stdlib/runtime/reduce.h"
#include "impl.h"

namespace weft::ops {
namespace {

using K = AttrKind;
using In = std::span<const Tensor>;
using Out = std::vector<Tensor>;

using Ty = std::span<const TensorType>;
using Types = std::vector<TensorType>;

std::vector<int> intsOf(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }
Shape shapeOf(const std::vector<int64_t>& v) {
  Shape s;
  for (int64_t d : v) s.push_back(d);
  return s;
}
// A (height, width) attribute, which a graph's text may hold in any length.
std::array<int64_t, 2> pairAttr(OpId op, const Attrs& a, const char* key) {
  const std::vector<int64_t>& v = a.ints(key);
  if (v.size() != 2)
    throw WeftError(std::string(opName(op)) + ": attribute '" + key + "' must hold 2 integers (height, width), got " +
                    std::to_string(v.size()));
  return {v[0], v[1]};
}
std::vector<Tensor> listOf(In in) { return std::vector<Tensor>(in.begin(), in.end()); }
std::vector<int64_t> shapeBlocks(const Attrs& a) { return a.has("blocks") ? a.ints("blocks") : std::vector<int64_t>{}; }
std::optional<int64_t> seedOf(const Attrs& a) { return a.has("seed") ? std::optional(a.i("seed")) : std::nullopt; }

template <UnaryOp U>
Out runUnary(In in, const Attrs&) { return {impl::unary(U, in[0])}; }
template <UnaryOp U>
Types inferUnary(Ty in, const Attrs&) { return {impl::unaryType(U, in[0])}; }
template <BinaryOp B>
Out runBinary(In in, const Attrs&) { return {impl::binary(B, in[0], in[1])}; }
template <BinaryOp B>
Types inferBinary(Ty in, const Attrs&) { return {impl::binaryType(B, in[0], in[1])}; }
template <ReduceOp R>
Out runReduce(In in, const Attrs& a) {
  return {impl::reduce(R, in[0], intsOf(a.ints("axes")), a.b("keepdims"), meanShards(a))};
}
template <ReduceOp R>
Types inferReduce(Ty in, const Attrs& a) {
  return {impl::reduceType(R, in[0], intsOf(a.ints("axes")), a.b("keepdims"))};
}
// The scratch of reduceKernel and of the cast before it, for the result's dtype.
template <ReduceOp R>
int64_t reduceWorkspace(Ty in, const Attrs& a) {
  const TensorType out = impl::reduceType(R, in[0], intsOf(a.ints("axes")), a.b("keepdims"));
  return rt::reduceWorkspaceBytes(in[0].shape.numel(), int64_t(rt::dtypeSize(out.dtype)));
}
template <bool IsMax>
Out runArg(In in, const Attrs& a) { return {impl::argReduce(IsMax, in[0], int(a.i("axis")), a.b("keepdims"))}; }
template <bool IsMax>
Types inferArg(Ty in, const Attrs& a) { return {impl::argReduceType(IsMax, in[0], int(a.i("axis")), a.b("keepdims"))}; }
template <bool IsMax>
Out runPool(In in, const Attrs& a) {
  const OpId op = IsMax ? OpId::MaxPool2D : OpId::AvgPool2D;
  return {impl::pool2d(IsMax, in[0], pairAttr(op, a, "pool"), pairAttr(op, a, "strides"), a.s("padding"))};
}
template <bool IsMax>
Types inferPool(Ty in, const Attrs& a) {
  const OpId op = IsMax ? OpId::MaxPool2D : OpId::AvgPool2D;
  return {impl::pool2dType(IsMax, in[0], pairAttr(op, a, "pool"), pairAttr(op, a, "strides"), a.s("padding"))};
}

// A collective's row: the mesh dimension and group, then its own attributes. Collectives meet
// the other devices of their group: an effect, so that every device runs them in program order
// and none is merged or removed on one device alone.
template <OpId Op>
void collectiveRow(OpDef& d, std::vector<AttrSpec> own) {
  d.attrs = {{"mesh_dim", K::Int}, {"group", K::Int}};
  d.attrs.insert(d.attrs.end(), own.begin(), own.end());
  d.effect = true;
  d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::collectiveType(Op, in[0], a)}; };
  d.run = [](In in, const Attrs& a) -> Out { return {impl::collective(Op, in[0], a)}; };
  // A graph's collective writes into its last call's result (its pages touched once, not every call).
  d.into = [](std::span<const Tensor* const> in, const Attrs& a, Tensor& out) {
    out = impl::collective(Op, *in[0], a, &out);
  };
  d.intoChecks = true;
}

// The attributes of conv2d and its gradients, read once for the three columns.
struct ConvAttrs {
  std::array<int64_t, 2> size, strides, dilation;  // size: the gradient's input_size or kernel_size
  std::string padding;
};
ConvAttrs convAttrs(OpId op, const Attrs& a, const char* sizeKey) {
  return {sizeKey ? pairAttr(op, a, sizeKey) : std::array<int64_t, 2>{}, pairAttr(op, a, "strides"),
          pairAttr(op, a, "dilation"), a.s("padding")};
}
ConvAttrs conv(const Attrs& a) { return convAttrs(OpId::Conv2D, a, nullptr); }
ConvAttrs backpropInput(const Attrs& a) { return convAttrs(OpId::Conv2DBackpropInput, a, "input_size"); }
ConvAttrs backpropFilter(const Attrs& a) { return convAttrs(OpId::Conv2DBackpropFilter, a, "kernel_size"); }
// The pools' gradients: pool, strides, padding and (avg_pool2d_grad) input_size.
struct PoolAttrs {
  std::array<int64_t, 2> pool, strides, inputSize;
  std::string padding;
};
PoolAttrs poolAttrs(OpId op, const Attrs& a) {
  return {pairAttr(op, a, "pool"), pairAttr(op, a, "strides"),
          op == OpId::AvgPool2DGrad ? pairAttr(op, a, "input_size") : std::array<int64_t, 2>{}, a.s("padding")};
}

Family familyOf(OpId id) {
  switch (id) {
#define WEFT_FAMILY(F, Id, ...) \
  case OpId::F##Id: return Family::F;
    WEFT_FOR_EACH_UNARY_OP(WEFT_FAMILY)
    WEFT_FOR_EACH_BINARY_OP(WEFT_FAMILY)
    WEFT_FOR_EACH_REDUCE_OP(WEFT_FAMILY)
#undef WEFT_FAMILY
    case OpId::Gelu: return Family::Unary;
    case OpId::MatMul: return Family::MatMul;
    case OpId::ArgMax:
    case OpId::ArgMin:
    case OpId::KthLargest: return Family::ArgReduce;
    case OpId::Cast:
    case OpId::Reshape:
    case OpId::Transpose:
    case OpId::BroadcastTo:
    case OpId::Concat:
    case OpId::Stack:
    case OpId::Split:
    case OpId::Squeeze:
    case OpId::ExpandDims:
    case OpId::ShapeOf:
    case OpId::Relayout:
    case OpId::BroadcastRows: return Family::Shape;
    case OpId::Where:
    case OpId::Clip: return Family::Ternary;
    case OpId::OneHot:
    case OpId::GetItem:
    case OpId::SetItem:
    case OpId::Take:
    case OpId::UpdateRow: return Family::Indexing;
    case OpId::Full:
    case OpId::Eye:
    case OpId::Arange:
    case OpId::Linspace: return Family::Creation;
    case OpId::RandomNormal:
    case OpId::RandomUniform:
    case OpId::RandomTruncatedNormal: return Family::Random;
    case OpId::Conv2D:
    case OpId::MaxPool2D:
    case OpId::AvgPool2D:
    case OpId::Conv2DBackpropInput:
    case OpId::Conv2DBackpropFilter:
    case OpId::MaxPool2DGrad:
    case OpId::AvgPool2DGrad:
    case OpId::MaxPool2DGradGrad: return Family::Conv;
    case OpId::Attention:
    case OpId::AttentionGrad: return Family::Attention;
    case OpId::LayerNorm:
    case OpId::LayerNormGrad: return Family::Norm;
    case OpId::AdamUpdate: return Family::Update;
    case OpId::AllReduce:
    case OpId::AllGather:
    case OpId::ReduceScatter:
    case OpId::AllToAll:
    case OpId::LocalSlice: return Family::Collective;
    case OpId::Constant:
    case OpId::ReadVariable:
    case OpId::AssignVariable: return Family::State;
    case OpId::Print:
    case OpId::Check: return Family::Output;
    case OpId::Cond:
    case OpId::While: return Family::Control;
  }
  throw std::logic_error("op without a family");
}

// The named property sets (op_table.h says what each means).
void setProperties(OpDef& d) {
  const OpId id = d.id;
  d.view = id == OpId::Reshape || id == OpId::ExpandDims || id == OpId::Squeeze || id == OpId::GetItem ||
           id == OpId::Cast;
  d.overwrites = id == OpId::UpdateRow;
  d.sizedByValue = id == OpId::BroadcastRows;
  const bool elementwise = d.family == Family::Unary || d.family == Family::Binary;
  d.fusible = elementwise || id == OpId::Cast;
  d.inPlace = (elementwise && id != OpId::UnaryExp && id != OpId::UnarySigmoid) || id == OpId::AdamUpdate;
  d.epilogue = id == OpId::UnaryRelu || id == OpId::UnaryTanh || id == OpId::UnaryErf || id == OpId::UnaryNeg ||
               id == OpId::UnaryAbs || id == OpId::UnarySquare;
}

OpDef row(OpId id) {
  OpDef d{id, opName(id), opArity(id), familyOf(id)};
  setProperties(d);
  switch (id) {
#define WEFT_UNARY_ROW(F, Id, ...)                                                                   \
  case OpId::F##Id:                                                                                  \
    d.infer = inferUnary<UnaryOp::Id>, d.run = runUnary<UnaryOp::Id>, d.into = impl::unaryInto(UnaryOp::Id); \
    break;
    WEFT_FOR_EACH_UNARY_OP(WEFT_UNARY_ROW)
#undef WEFT_UNARY_ROW
#define WEFT_BINARY_ROW(F, Id, ...)                                                                        \
  case OpId::F##Id:                                                                                        \
    d.infer = inferBinary<BinaryOp::Id>, d.run = runBinary<BinaryOp::Id>, d.into = impl::binaryInto(BinaryOp::Id); \
    break;
    WEFT_FOR_EACH_BINARY_OP(WEFT_BINARY_ROW)
#undef WEFT_BINARY_ROW
#define WEFT_REDUCE_ROW(F, Id, ...)                                                                         \
  case OpId::F##Id:                                                                                         \
    d.attrs = {{"axes", K::Ints}, {"keepdims", K::Bool}};                                                   \
    if (ReduceOp::Id == ReduceOp::Mean) d.attrs.push_back({"shards", K::Int, true});                        \
    d.infer = inferReduce<ReduceOp::Id>, d.run = runReduce<ReduceOp::Id>, d.workspace = reduceWorkspace<ReduceOp::Id>; \
    break;
    WEFT_FOR_EACH_REDUCE_OP(WEFT_REDUCE_ROW)
#undef WEFT_REDUCE_ROW
    case OpId::MatMul:  // transpose_a/_b (optional): that matrix operand is read transposed
      d.attrs = {{"transpose_a", K::Bool, true}, {"transpose_b", K::Bool, true}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::matmulType(in[0], in[1], transposes(a))}; };
      // A third input: fuse-epilogues' bias, with its `epilogue` (graph/passes.h).
      d.run = [](In in, const Attrs& a) -> Out {
        if (in.size() == 3) return {impl::biasMatmul(in[0], in[1], in[2], a.s("epilogue"))};
        return {impl::matmul(in[0], in[1], nullptr, transposes(a))};
      };
      d.into = [](std::span<const Tensor* const> in, const Attrs& a, Tensor& out) {
        out = in.size() == 3 ? impl::biasMatmul(*in[0], *in[1], *in[2], a.s("epilogue"), &out)
                             : impl::matmul(*in[0], *in[1], &out, transposes(a));
      };
      d.intoChecks = true;
      d.workspace = [](Ty in, const Attrs& a) { return impl::matmulWorkspace(in[0], in[1], transposes(a)); };
      break;
    case OpId::ArgMax:
      d.attrs = {{"axis", K::Int}, {"keepdims", K::Bool}};
      d.infer = inferArg<true>, d.run = runArg<true>;
      break;
    case OpId::ArgMin:
      d.attrs = {{"axis", K::Int}, {"keepdims", K::Bool}};
      d.infer = inferArg<false>, d.run = runArg<false>;
      break;
    case OpId::KthLargest:
      d.attrs = {{"k", K::Int}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::kthLargestType(in[0], a.i("k"))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::kthLargest(in[0], a.i("k"))}; };
      break;
    case OpId::Cast:
      d.attrs = {{"dtype", K::DType}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::castType(in[0], a.dtype("dtype"))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::cast(in[0], a.dtype("dtype"))}; };
      break;
    case OpId::Reshape:
      d.attrs = {{"shape", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::reshapeType(in[0], a.ints("shape"))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::reshape(in[0], a.ints("shape"))}; };
      break;
    case OpId::Transpose:
      d.attrs = {{"perm", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::transposeType(in[0], intsOf(a.ints("perm")))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::transpose(in[0], intsOf(a.ints("perm")))}; };
      break;
    case OpId::BroadcastTo:
      d.attrs = {{"shape", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::broadcastToType(in[0], shapeOf(a.ints("shape")))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::broadcastTo(in[0], shapeOf(a.ints("shape")))}; };
      break;
    case OpId::Concat:
      d.attrs = {{"axis", K::Int}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::concatType(in, int(a.i("axis")))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::concat(listOf(in), int(a.i("axis")))}; };
      break;
    case OpId::Stack:
      d.attrs = {{"axis", K::Int}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::stackType(in, int(a.i("axis")))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::stack(listOf(in), int(a.i("axis")))}; };
      break;
    case OpId::Split:
      d.attrs = {{"sizes", K::Ints}, {"axis", K::Int}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return impl::splitTypes(in[0], a.ints("sizes"), int(a.i("axis"))); };
      d.run = [](In in, const Attrs& a) -> Out { return impl::split(in[0], a.ints("sizes"), int(a.i("axis"))); };
      break;
    case OpId::Squeeze:
      d.attrs = {{"axes", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::squeezeType(in[0], intsOf(a.ints("axes")))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::squeeze(in[0], intsOf(a.ints("axes")))}; };
      break;
    case OpId::ExpandDims:
      d.attrs = {{"axis", K::Int}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::expandDimsType(in[0], int(a.i("axis")))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::expandDims(in[0], int(a.i("axis")))}; };
      break;
    case OpId::Where:
      d.infer = [](Ty in, const Attrs&) -> Types { return {impl::whereType(in[0], in[1], in[2])}; };
      d.run = [](In in, const Attrs&) -> Out { return {impl::where(in[0], in[1], in[2])}; };
      break;
    case OpId::Clip:
      d.infer = [](Ty in, const Attrs&) -> Types { return {impl::clipType(in[0], in[1], in[2])}; };
      d.run = [](In in, const Attrs&) -> Out { return {impl::clip(in[0], in[1], in[2])}; };
      break;
    case OpId::OneHot:
      d.attrs = {{"depth", K::Int}, {"dtype", K::DType}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::oneHotType(in[0], a.i("depth"), a.dtype("dtype"))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::oneHot(in[0], a.i("depth"), a.dtype("dtype"))}; };
      break;
    case OpId::GetItem:
      d.attrs = {{"subs", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        return {impl::getItemType(in[0], decodeSubscripts(a.ints("subs")))};
      };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::getItem(in[0], decodeSubscripts(a.ints("subs")))}; };
      break;
    case OpId::SetItem:
      d.attrs = {{"subs", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        return {impl::setItemType(in[0], decodeSubscripts(a.ints("subs")), in[1])};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        return {impl::setItem(in[0], decodeSubscripts(a.ints("subs")), in[1])};
      };
      break;
    case OpId::Take:
      // ids (optional): the indices are ids in [0, n), a negative one an error (Embedding's).
      d.attrs = {{"axis", K::Int}, {"ids", K::Bool, true}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::takeType(in[0], in[1], int(a.i("axis")))}; };
      d.run = [](In in, const Attrs& a) -> Out {
        return {impl::take(in[0], in[1], int(a.i("axis")), a.has("ids") && a.b("ids"))};
      };
      break;
    case OpId::BroadcastRows:
      d.infer = [](Ty in, const Attrs&) -> Types { return {impl::broadcastRowsType(in[0], in[1])}; };
      d.run = [](In in, const Attrs&) -> Out { return {impl::broadcastRows(in[0], in[1])}; };
      break;
    case OpId::UpdateRow:
      d.infer = [](Ty in, const Attrs&) -> Types { return {impl::updateRowType(in[0], in[1], in[2])}; };
      d.run = [](In in, const Attrs&) -> Out {
        Tensor out;
        impl::updateRowInto(in[0], in[1], in[2], out);
        return {out};
      };
      d.into = [](std::span<const Tensor* const> in, const Attrs&, Tensor& out) {
        impl::updateRowInto(*in[0], *in[1], *in[2], out);
      };
      d.intoChecks = true;
      break;
    case OpId::Full:
      d.attrs = {{"shape", K::Ints}, {"value", K::Float}, {"dtype", K::DType}};
      d.infer = [](Ty, const Attrs& a) -> Types { return {impl::fullType(shapeOf(a.ints("shape")), a.dtype("dtype"))}; };
      d.run = [](In, const Attrs& a) -> Out { return {impl::full(shapeOf(a.ints("shape")), a.f("value"), a.dtype("dtype"))}; };
      break;
    case OpId::Eye:
      d.attrs = {{"n", K::Int}, {"m", K::Int}, {"dtype", K::DType}};
      d.infer = [](Ty, const Attrs& a) -> Types { return {impl::eyeType(a.i("n"), a.i("m"), a.dtype("dtype"))}; };
      d.run = [](In, const Attrs& a) -> Out { return {impl::eye(a.i("n"), a.i("m"), a.dtype("dtype"))}; };
      break;
    case OpId::Arange:
      d.attrs = {{"start", K::Float}, {"stop", K::Float}, {"step", K::Float}, {"dtype", K::DType}};
      d.infer = [](Ty, const Attrs& a) -> Types {
        return {impl::arangeType(a.f("start"), a.f("stop"), a.f("step"), a.dtype("dtype"))};
      };
      d.run = [](In, const Attrs& a) -> Out {
        return {impl::arange(a.f("start"), a.f("stop"), a.f("step"), a.dtype("dtype"))};
      };
      break;
    case OpId::Linspace:
      d.attrs = {{"start", K::Float}, {"stop", K::Float}, {"num", K::Int}, {"dtype", K::DType}};
      d.infer = [](Ty, const Attrs& a) -> Types {
        return {impl::linspaceType(a.f("start"), a.f("stop"), a.i("num"), a.dtype("dtype"))};
      };
      d.run = [](In, const Attrs& a) -> Out {
        return {impl::linspace(a.f("start"), a.f("stop"), a.i("num"), a.dtype("dtype"))};
      };
      break;
    // The random ops advance the context's stream (an effect), unless an op-level `seed` gives
    // them a stream of their own.
    case OpId::RandomNormal:
    case OpId::RandomTruncatedNormal:
      d.attrs = {{"shape", K::Ints}, {"mean", K::Float}, {"stddev", K::Float}, {"dtype", K::DType}, {"seed", K::Int, true}};
      d.effect = true;
      if (id == OpId::RandomNormal) {
        d.infer = [](Ty, const Attrs& a) -> Types {
          return {impl::randomNormalType(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"))};
        };
        d.run = [](In, const Attrs& a) -> Out {
          return {impl::randomNormal(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"), seedOf(a))};
        };
        break;
      }
      d.infer = [](Ty, const Attrs& a) -> Types {
        return {impl::randomTruncatedNormalType(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"))};
      };
      d.run = [](In, const Attrs& a) -> Out {
        return {impl::randomTruncatedNormal(shapeOf(a.ints("shape")), a.f("mean"), a.f("stddev"), a.dtype("dtype"), seedOf(a))};
      };
      d.workspace = [](Ty, const Attrs& a) {
        return impl::randomTruncatedNormalWorkspace(shapeOf(a.ints("shape")), a.dtype("dtype"));
      };
      break;
    case OpId::RandomUniform:
      d.attrs = {{"shape", K::Ints}, {"minval", K::Float}, {"maxval", K::Float}, {"dtype", K::DType}, {"seed", K::Int, true}};
      d.effect = true;
      d.infer = [](Ty, const Attrs& a) -> Types {
        return {impl::randomUniformType(shapeOf(a.ints("shape")), a.f("minval"), a.f("maxval"), a.dtype("dtype"))};
      };
      d.run = [](In, const Attrs& a) -> Out {
        return {impl::randomUniform(shapeOf(a.ints("shape")), a.f("minval"), a.f("maxval"), a.dtype("dtype"), seedOf(a))};
      };
      break;
    case OpId::Conv2D:
      d.attrs = {{"strides", K::Ints}, {"padding", K::Str}, {"dilation", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        const ConvAttrs c = conv(a);
        return {impl::conv2dType(in[0], in[1], c.strides, c.padding, c.dilation)};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        const ConvAttrs c = conv(a);
        return {impl::conv2d(in[0], in[1], c.strides, c.padding, c.dilation)};
      };
      d.workspace = [](Ty in, const Attrs& a) {
        const ConvAttrs c = conv(a);
        return impl::conv2dWorkspace(in[0], in[1], c.strides, c.padding, c.dilation);
      };
      break;
    case OpId::MaxPool2D:
    case OpId::AvgPool2D:
      d.attrs = {{"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
      d.infer = id == OpId::MaxPool2D ? inferPool<true> : inferPool<false>;
      d.run = id == OpId::MaxPool2D ? runPool<true> : runPool<false>;
      break;
    case OpId::Conv2DBackpropInput:
      d.attrs = {{"input_size", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}, {"dilation", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        const ConvAttrs c = backpropInput(a);
        return {impl::conv2dBackpropInputType(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        const ConvAttrs c = backpropInput(a);
        return {impl::conv2dBackpropInput(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
      };
      d.workspace = [](Ty in, const Attrs& a) {
        const ConvAttrs c = backpropInput(a);
        return impl::conv2dBackpropInputWorkspace(in[0], in[1], c.size, c.strides, c.padding, c.dilation);
      };
      break;
    case OpId::Conv2DBackpropFilter:
      d.attrs = {{"kernel_size", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}, {"dilation", K::Ints}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        const ConvAttrs c = backpropFilter(a);
        return {impl::conv2dBackpropFilterType(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        const ConvAttrs c = backpropFilter(a);
        return {impl::conv2dBackpropFilter(in[0], in[1], c.size, c.strides, c.padding, c.dilation)};
      };
      d.workspace = [](Ty in, const Attrs& a) {
        const ConvAttrs c = backpropFilter(a);
        return impl::conv2dBackpropFilterWorkspace(in[0], in[1], c.size, c.strides, c.padding, c.dilation);
      };
      break;
    case OpId::MaxPool2DGrad:
      d.attrs = {{"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        const PoolAttrs p = poolAttrs(OpId::MaxPool2DGrad, a);
        return {impl::maxPool2dGradType(in[0], in[1], p.pool, p.strides, p.padding)};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        const PoolAttrs p = poolAttrs(OpId::MaxPool2DGrad, a);
        return {impl::maxPool2dGrad(in[0], in[1], p.pool, p.strides, p.padding)};
      };
      break;
    case OpId::AvgPool2DGrad:
      d.attrs = {{"input_size", K::Ints}, {"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        const PoolAttrs p = poolAttrs(OpId::AvgPool2DGrad, a);
        return {impl::avgPool2dGradType(in[0], p.inputSize, p.pool, p.strides, p.padding)};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        const PoolAttrs p = poolAttrs(OpId::AvgPool2DGrad, a);
        return {impl::avgPool2dGrad(in[0], p.inputSize, p.pool, p.strides, p.padding)};
      };
      break;
    case OpId::MaxPool2DGradGrad:
      d.attrs = {{"pool", K::Ints}, {"strides", K::Ints}, {"padding", K::Str}};
      d.infer = [](Ty in, const Attrs& a) -> Types {
        const PoolAttrs p = poolAttrs(OpId::MaxPool2DGradGrad, a);
        return {impl::maxPool2dGradGradType(in[0], in[1], p.pool, p.strides, p.padding)};
      };
      d.run = [](In in, const Attrs& a) -> Out {
        const PoolAttrs p = poolAttrs(OpId::MaxPool2DGradGrad, a);
        return {impl::maxPool2dGradGrad(in[0], in[1], p.pool, p.strides, p.padding)};
      };
      break;
    case OpId::Attention:
    case OpId::AttentionGrad:
      d.attrs = {{"causal", K::Bool}, {"scale", K::Float, true}};
      d.infer = id == OpId::Attention ? impl::attentionTypes : impl::attentionGradTypes;
      d.run = id == OpId::Attention ? impl::attention : impl::attentionGrad;
      break;
    case OpId::LayerNorm:
    case OpId::LayerNormGrad:
      d.attrs = {{"epsilon", K::Float}};
      d.infer = id == OpId::LayerNorm ? impl::layerNormTypes : impl::layerNormGradTypes;
      d.run = id == OpId::LayerNorm ? impl::layerNorm : impl::layerNormGrad;
      if (id == OpId::LayerNormGrad) d.workspace = [](Ty in, const Attrs&) { return impl::layerNormGradWorkspace(in); };
      break;
    case OpId::AdamUpdate:
      d.infer = impl::adamUpdateTypes;
      d.run = impl::adamUpdate;
      d.intoAll = impl::adamUpdateInto;
      break;
    case OpId::Gelu:
      d.attrs = {{"approximate", K::Bool}};
      d.infer = [](Ty in, const Attrs&) -> Types { return {impl::geluType(in[0])}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::gelu(in[0], a.b("approximate"))}; };
      d.into = [](std::span<const Tensor* const> in, const Attrs& a, Tensor& out) {
        impl::geluInto(*in[0], a.b("approximate"), out);
      };
      break;
    case OpId::ShapeOf:  // blocks (optional): each size times this, on a device holding one block
      d.attrs = {{"blocks", K::Ints, true}};
      d.infer = [](Ty in, const Attrs& a) -> Types { return {impl::shapeOfType(in[0], shapeBlocks(a))}; };
      d.run = [](In in, const Attrs& a) -> Out { return {impl::shapeOf(in[0], shapeBlocks(a))}; };
      break;
    case OpId::AllReduce: collectiveRow<OpId::AllReduce>(d, {}); break;
    case OpId::AllGather: collectiveRow<OpId::AllGather>(d, {{"axis", K::Int}}); break;
    case OpId::ReduceScatter: collectiveRow<OpId::ReduceScatter>(d, {{"axis", K::Int}}); break;
    case OpId::AllToAll: collectiveRow<OpId::AllToAll>(d, {{"split_axis", K::Int}, {"concat_axis", K::Int}}); break;
    case OpId::LocalSlice: collectiveRow<OpId::LocalSlice>(d, {{"axis", K::Int}}); break;
    // The value itself, moved to the placements `to` on `mesh` (per mesh dimension, the tensor
    // dimension it splits, or -1 for replicated): the program's explicit re-layout (relayout(),
    // distribute()). Propagation moves its input there; on one device it is the identity.
    case OpId::Relayout:
      d.attrs = {{"mesh", K::Str}, {"to", K::Ints}};
      d.view = true;
      d.infer = [](Ty in, const Attrs&) -> Types { return {in[0]}; };
      d.run = [](In in, const Attrs&) -> Out { return {in[0]}; };
      break;
    case OpId::Constant: d.attrs = {{"value", K::Tensor}}; break;
    case OpId::ReadVariable: d.attrs = {{"var", K::Int}}; d.effect = true; break;
    case OpId::AssignVariable: d.attrs = {{"var", K::Int}}; d.effect = true; break;
    case OpId::Print: d.attrs = {{"format", K::Str}}; d.effect = true; break;
    // Where the failing statement is: its file and [line, column, end line, end column].
    case OpId::Check: d.attrs = {{"message", K::Str}, {"file", K::Str}, {"span", K::Ints}}; d.effect = true; break;
    case OpId::Cond:
    case OpId::While: d.effect = true; break;
  }
  return d;
}

std::vector<OpDef>& table() {
  static std::vector<OpDef> rows = [] {
    std::vector<OpDef> r;
    for (int i = 0; i < kOpCount; ++i) r.push_back(row(OpId(i)));
    return r;
  }();
  return rows;
}

bool anySymbolic(In in) {
  for (const auto& t : in)
    if (t.isSymbolic()) return true;
  return false;
}

bool anyAbstract(In in) {
  for (const auto& t : in)
    if (t.isAbstract()) return true;
  return false;
}

bool anySharded(In in) {
  for (const auto& t : in)
    if (t.shards()) return true;
  return false;
}

ShardedApply shardedApply = nullptr;

}  // namespace

const OpDef& opDef(OpId op) { return table()[size_t(op)]; }

void setVjpRules(VjpFn (*rule)(OpId op)) {
  for (OpDef& d : table()) d.vjp = rule(d.id);
}

void setEmitRules(const EmitRule* (*rule)(OpId op)) {
  for (OpDef& d : table()) d.emit = rule(d.id);
}

void setShardRules(const ShardRule* (*rule)(OpId op)) {
  for (OpDef& d : table()) d.shard = rule(d.id);
}

bool findOp(const std::string& name, OpId& out) {
  for (const auto& d : table())
    if (name == d.name) {
      out = d.id;
      return true;
    }
  return false;
}

void setShardedApply(ShardedApply run) { shardedApply = run; }

TraceHook* traceHook() { return context().traceHook; }
void setTraceHook(TraceHook* hook) { context().traceHook = hook; }
TapeHook* tapeHook() { return context().tapeHook; }
void setTapeHook(TapeHook* hook) { context().tapeHook = hook; }
bool hooked() { return context().traceHook || context().tapeHook; }

std::vector<Tensor> apply(OpId op, In in, const Attrs& attrs) {
  const OpDef& d = opDef(op);
  if (!d.run) throw std::logic_error(std::string("op ") + d.name + " runs only inside a graph");
  const ExecutionContext& c = context();
  TraceHook* const trace = c.traceHook;
  TapeHook* const tape = c.tapeHook;
  const bool symbolic = anySymbolic(in);
  if (symbolic && !trace)  // a trace paused, or a value leaked from a finished one
    for (const auto& t : in) requireLiveTrace(t);
  const bool traced = trace && (d.effect || symbolic);
  if (!traced && shardedApply && anySharded(in)) {  // SPMD on the operands' mesh, also on shapes alone
    std::vector<Tensor> out = shardedApply(op, in, attrs);
    if (tape) tape->recorded(op, in, attrs, out);
    return out;
  }
  // Inference alone while tracing, on abstract inputs, and for the creation and random ops on
  // shapes alone (so that recording a random op does not advance the stream).
  if (traced || anyAbstract(in) || (in.empty() && c.shapesOnly)) {
    std::vector<TensorType> types;
    types.reserve(in.size());
    for (const auto& t : in) types.push_back(typeOf(t));
    std::vector<Tensor> out;
    for (const TensorType& t : d.infer(types, attrs)) out.push_back(Tensor::abstract(t.dtype, t.shape));
    if (traced) out = trace->record(op, in, attrs, std::move(out));
    if (tape) tape->recorded(op, in, attrs, out);
    return out;
  }
  std::vector<Tensor> out = d.run(in, attrs);
  if (tape) tape->recorded(op, in, attrs, out);
  return out;
}

Tensor apply1(OpId op, In in, const Attrs& attrs) {
  std::vector<Tensor> r = apply(op, in, attrs);
  return std::move(r.at(0));
}

// Per subscript: its kind, then for an index the index, for a range a mask of the parts given
// (1 start, 2 stop, 4 step) and the three values.
std::vector<int64_t> encodeSubscripts(const std::vector<Subscript>& subs) {
  std::vector<int64_t> code;
  for (const auto& s : subs) {
    code.push_back(int64_t(s.kind));
    if (s.kind == Subscript::Index) code.push_back(s.index);
    if (s.kind == Subscript::Range) {
      code.push_back((s.start ? 1 : 0) | (s.stop ? 2 : 0) | (s.step ? 4 : 0));
      code.push_back(s.start.value_or(0));
      code.push_back(s.stop.value_or(0));
      code.push_back(s.step.value_or(0));
    }
  }
  return code;
}

std::vector<Subscript> decodeSubscripts(const std::vector<int64_t>& code) {
  std::vector<Subscript> subs;
  size_t i = 0;
  auto next = [&]() {
    if (i >= code.size()) throw WeftError("getitem: malformed subscripts attribute");
    return code[i++];
  };
  while (i < code.size()) {
    Subscript s;
    int64_t kind = next();
    if (kind < 0 || kind > Subscript::Ellipsis) throw WeftError("getitem: malformed subscripts attribute");
    s.kind = Subscript::Kind(kind);
    if (s.kind == Subscript::Index) s.index = next();
    if (s.kind == Subscript::Range) {
      int64_t mask = next(), a = next(), b = next(), c = next();
      if (mask & 1) s.start = a;
      if (mask & 2) s.stop = b;
      if (mask & 4) s.step = c;
    }
    subs.push_back(s);
  }
  return subs;
}

}  // namespace weft::ops
