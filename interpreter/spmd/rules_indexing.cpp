// Indexing: a dimension that a subscript takes whole stays split; one that is indexed or sliced
// is global (its positions are the program's), so it has no row. take splits the dimensions it
// keeps and the indices' own; one_hot the indices'.
#include "rule_helpers.h"

namespace weft::spmd::rules {

using ops::OpId;

namespace {

// For a getitem of `x` by `subs`: each result dimension's input dimension when the subscripts
// take that one whole, else -1.
std::vector<int> wholeDims(const Shape& x, const std::vector<ops::Subscript>& subs, int outRank) {
  std::vector<int> from(size_t(outRank), -1);
  int explicitDims = 0;
  for (const ops::Subscript& s : subs)
    if (s.kind == ops::Subscript::Index || s.kind == ops::Subscript::Range) ++explicitDims;
  int in = 0, out = 0;
  auto keep = [&](bool whole) {
    if (whole) from[size_t(out)] = in;
    ++in, ++out;
  };
  for (const ops::Subscript& s : subs) {
    switch (s.kind) {
      case ops::Subscript::Index: ++in; break;
      case ops::Subscript::NewAxis: ++out; break;
      case ops::Subscript::Range:
        keep((!s.start || *s.start == 0) && (!s.stop || (x[in] != rt::kUnknownDim && *s.stop >= x[in])) &&
             (!s.step || *s.step == 1));
        break;
      case ops::Subscript::Ellipsis:
        for (int k = 0; k < x.rank() - explicitDims; ++k) keep(true);
        break;
    }
  }
  while (in < x.rank() && out < outRank) keep(true);
  return from;
}

Rows getItemRows(Types in, Types out, const Attrs& attrs) {
  Rows rows = mappedRows(wholeDims(in[0].shape, ops::decodeSubscripts(attrs.ints("subs")), out[0].shape.rank()));
  rows.push_back(allPartial(1, 1));
  return rows;
}

// setitem(x, value): x's whole dimensions stay split, with the value split alike where it has
// that dimension of the selection at full size (it broadcasts to the selection).
Rows setItemRows(Types in, Types, const Attrs& attrs) {
  const std::vector<ops::Subscript> subs = ops::decodeSubscripts(attrs.ints("subs"));
  const TensorType selection = ops::opDef(OpId::GetItem).infer(in.first(1), attrs)[0];
  const int rs = selection.shape.rank(), rv = in[1].shape.rank();
  const std::vector<int> from = wholeDims(in[0].shape, subs, rs);
  Rows rows;
  for (int o = 0; o < rs; ++o) {
    if (from[size_t(o)] < 0) continue;
    const int dv = o - (rs - rv);
    const bool valueHas = dv >= 0 && in[1].shape[dv] == selection.shape[o];
    rows.push_back({{Placement::s(from[size_t(o)])},
                    {Placement::s(from[size_t(o)]), valueHas ? Placement::s(dv) : Placement::r()}});
  }
  rows.push_back(allPartial(2, 1));
  return rows;
}

Rows takeRows(Types in, Types, const Attrs& attrs) {
  const int rank = in[0].shape.rank(), ri = in[1].shape.rank();
  const int axis = normalized({attrs.i("axis")}, rank)[0];
  Rows rows;
  for (int d = 0; d < rank; ++d)
    if (d != axis) rows.push_back({{Placement::s(d < axis ? d : d - 1 + ri)}, {Placement::s(d), Placement::r()}});
  for (int j = 0; j < ri; ++j) rows.push_back({{Placement::s(axis + j)}, {Placement::r(), Placement::s(j)}});
  rows.push_back({{Placement::p()}, {Placement::p(), Placement::r()}});
  return rows;
}

Rows oneHotRows(Types in, Types, const Attrs&) {
  std::vector<int> from;
  for (int d = 0; d < in[0].shape.rank(); ++d) from.push_back(d);
  from.push_back(-1);  // the depth
  return mappedRows(from);
}

const ShardRule kGetItem{getItemRows};
const ShardRule kSetItem{setItemRows};
const ShardRule kTake{takeRows};
const ShardRule kOneHot{oneHotRows};

}  // namespace

void registerIndexingShardRules() {
  ops::setShard({OpId::GetItem}, &kGetItem);
  ops::setShard({OpId::SetItem}, &kSetItem);
  ops::setShard({OpId::Take}, &kTake);
  ops::setShard({OpId::OneHot}, &kOneHot);
  // A stack of rows lives on every device whole (its rows are a loop's iterations).
  ops::setShard({OpId::BroadcastRows, OpId::UpdateRow}, replicatedOnlyRule());
}

}  // namespace weft::spmd::rules
