// The blocks of a sharded value (stdlib/runtime/shards.h, which the interpreter's
// interpreter/spmd/blocks.h and generated code both use) are what slicing each mesh dimension's
// part in turn gives: for every device of a 2x3 mesh and placements that split one dimension
// twice, another once, or sum partials; and the blocks put back give the value.
#include <doctest/doctest.h>

#include "interpreter/ops/ops.h"
#include "interpreter/spmd/blocks.h"
#include "stdlib/runtime/shards.h"

using namespace weft;

namespace {

int code(const spmd::Placement& p) { return p.sharded() ? p.dim : p.partial() ? rt::kPartial : rt::kReplicated; }

// Device d's block by NumPy slicing, one mesh dimension after the other.
Tensor sliced(Tensor x, const spmd::MeshAxes& mesh, const spmd::Placements& ps, int64_t d) {
  const std::vector<int64_t> at = spmd::coordinates(mesh, d);
  for (size_t k = 0; k < ps.size(); ++k) {
    if (!ps[k].sharded()) continue;
    const int64_t len = x.shape()[ps[k].dim] / mesh.sizes[k];
    std::vector<ops::Subscript> subs(size_t(ps[k].dim) + 1);
    for (auto& s : subs) s.kind = ops::Subscript::Range;
    subs.back().start = at[k] * len;
    subs.back().stop = (at[k] + 1) * len;
    x = ops::getItem(x, subs);
  }
  return x;
}

}  // namespace

TEST_CASE("runtime shards: a device's block is its slice of each split dimension") {
  const spmd::MeshAxes mesh{{"a", "b"}, {2, 3}};
  const int64_t sizes[] = {2, 3};
  const Tensor x = ops::reshape(ops::arange(0, 12 * 6, 1, DType::F32), {12, 6});
  using P = spmd::Placement;
  for (const spmd::Placements& ps : {spmd::Placements{P::s(0), P::s(0)}, spmd::Placements{P::s(1), P::s(0)},
                                     spmd::Placements{P::r(), P::s(1)}, spmd::Placements{P::s(0), P::r()}}) {
    INFO(spmd::placementsText(mesh, ps));
    const int places[] = {code(ps[0]), code(ps[1])};
    const rt::MeshPlace m{sizes, 2, places};
    CHECK(rt::unevenDimension(m, x.shape()) == -1);
    std::vector<Tensor> blocks;
    std::vector<float> whole(size_t(x.numel()), -1.0f);
    for (int64_t d = 0; d < 6; ++d) {
      const Tensor want = sliced(x, mesh, ps, d);
      std::vector<float> got(size_t(want.numel()));
      rt::cutBlock(m, x.raw(), x.shape(), sizeof(float), d, got.data());
      for (int64_t i = 0; i < want.numel(); ++i) CHECK(got[size_t(i)] == want.data<float>()[i]);
      blocks.push_back(spmd::localBlock(x, mesh, ps, d));
      CHECK(blocks.back().shape() == want.shape());
      for (int64_t i = 0; i < want.numel(); ++i) CHECK(blocks.back().data<float>()[i] == want.data<float>()[i]);
      rt::placeBlock(m, whole.data(), x.shape(), DType::F32, d, got.data());
    }
    for (int64_t i = 0; i < x.numel(); ++i) CHECK(whole[size_t(i)] == x.data<float>()[i]);
    const Tensor back = spmd::assemble(mesh, ps, blocks);
    REQUIRE(back.shape() == x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) CHECK(back.data<float>()[i] == x.data<float>()[i]);
  }
  // Partial sums add up in device order; a split the mesh cannot make evenly is named.
  const int partial[] = {rt::kPartial, 0};
  const rt::MeshPlace p{sizes, 2, partial};
  std::vector<float> sum(size_t(x.numel()), 0.0f);
  for (int64_t d = 0; d < 6; ++d) {
    std::vector<float> block(size_t(x.numel() / 3), float(d));
    rt::placeBlock(p, sum.data(), x.shape(), DType::F32, d, block.data());
  }
  CHECK(sum[0] == 0.0f + 3.0f);   // devices 0 and 3: coordinate 0 along b, both halves of a
  CHECK(sum[size_t(x.numel() - 1)] == 2.0f + 5.0f);
  const int uneven[] = {1, rt::kReplicated};
  CHECK(rt::unevenDimension({sizes, 2, uneven}, Shape{4, 5}) == 1);
}
