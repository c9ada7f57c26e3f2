// The blocks generated sharded code cuts and assembles (stdlib/runtime/shards.h) are the
// interpreter's (interpreter/spmd/blocks.h): for every device of a 2x3 mesh and placements that
// split one dimension twice, another once, or sum partials, the same elements.
#include <doctest/doctest.h>

#include "interpreter/ops/ops.h"
#include "interpreter/spmd/blocks.h"
#include "stdlib/runtime/shards.h"

using namespace weft;

namespace {

int code(const spmd::Placement& p) { return p.sharded() ? p.dim : p.partial() ? rt::kPartial : rt::kReplicated; }

}  // namespace

TEST_CASE("runtime shards: cut and placed blocks are the interpreter's") {
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
      const Tensor want = spmd::localBlock(x, mesh, ps, d);
      std::vector<float> got(size_t(want.numel()));
      rt::cutBlock(m, x.raw(), x.shape(), sizeof(float), d, got.data());
      for (int64_t i = 0; i < want.numel(); ++i) CHECK(got[size_t(i)] == want.data<float>()[i]);
      rt::placeBlock(m, whole.data(), x.shape(), DType::F32, d, got.data());
    }
    for (int64_t i = 0; i < x.numel(); ++i) CHECK(whole[size_t(i)] == x.data<float>()[i]);
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
