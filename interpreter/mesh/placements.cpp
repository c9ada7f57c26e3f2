// A variable's layout as the graph passes read it: its mesh's dimensions and, per mesh
// dimension, the tensor dimension it splits (S<d>) or none (R).
#include "builtins.h"
#include "layout.h"
#include "shards.h"

namespace weft::mesh {

bool layoutPlacements(const LayoutObj& layout, spmd::MeshAxes& axes, spmd::Placements& placements) {
  if (!layout.mesh) return false;
  const MeshObj& m = *layout.mesh;
  axes = {m.dimNames, m.dimSizes};
  placements.assign(m.dimNames.size(), spmd::Placement::r());
  for (size_t d = 0; d < layout.dims.size(); ++d)
    if (layout.dims[d]) placements[size_t(m.dimIndex(*layout.dims[d]))] = spmd::Placement::s(int(d));
  return true;
}

bool variablePlacements(const VariableObj& var, spmd::MeshAxes& axes, spmd::Placements& placements) {
  const LayoutObj* layout = layoutOf(var);
  return layout && layoutPlacements(*layout, axes, placements);
}

}  // namespace weft::mesh
