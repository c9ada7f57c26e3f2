// The sharding column against the kernels, in the manner of PyTorch DTensor's strategy
// validation: for every op, every valid case of the op table's tests and every row of its rule,
// on meshes of 2 and 4 devices and of 2×2 (a row per mesh dimension, every pair), each device
// runs the unsharded kernel on its local blocks — partial sums split unevenly and with signs, so
// that a wrong row cannot pass by chance — and the results, put back together as the row says,
// must equal the unsharded kernel's.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>

#include "interpreter/spmd/shard_rule.h"
#include "interpreter/values/context.h"
#include "op_cases.h"
#include "test_ops_util.h"

namespace weft {
namespace {

using ops::OpId;
using spmd::Placement;
using spmd::Placements;
using spmd::ShardRow;

// Device coordinates on a mesh of these sizes, row-major.
std::vector<std::vector<int64_t>> devices(const std::vector<int64_t>& mesh) {
  std::vector<std::vector<int64_t>> all{{}};
  for (int64_t n : mesh) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& c : all)
      for (int64_t j = 0; j < n; ++j) {
        next.push_back(c);
        next.back().push_back(j);
      }
    all = std::move(next);
  }
  return all;
}

// Signed values that differ by element and by part: the addends of a partial sum.
Tensor addend(const Tensor& like, int64_t part) {
  Tensor t = Tensor::empty(like.dtype(), like.shape());
  rt::dispatch(like.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>)
      for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(((i * 7 + part * 5 + 3) % 11) - 5) / T(2 - rt::isInt(like.dtype()));
  });
  return t;
}

// Device j's part of x under placement p on a mesh dimension of n devices.
Tensor cut(const Tensor& x, const Placement& p, int64_t n, int64_t j) {
  if (p.sharded()) {
    const int64_t len = x.shape()[p.dim] / n;
    std::vector<ops::Subscript> subs(size_t(p.dim) + 1);
    for (auto& s : subs) s.kind = ops::Subscript::Range;
    subs.back().start = j * len;
    subs.back().stop = (j + 1) * len;
    return ops::getItem(x, subs);
  }
  if (p.partial()) {  // parts 0 .. n-2 are addends; the last is what makes them add up to x
    if (j < n - 1) return addend(x, j);
    Tensor rest = x;
    for (int64_t k = 0; k < n - 1; ++k) rest = ops::binary(ops::BinaryOp::Sub, rest, addend(x, k));
    return rest;
  }
  return x;
}

bool fits(Shape shape, const Placements& ps, const std::vector<int64_t>& mesh) {
  for (size_t k = 0; k < ps.size(); ++k) {
    if (spmd::misfit(shape, ps[k], mesh[k])) return false;
    shape = spmd::localShape(shape, ps[k], mesh[k]);
  }
  return true;
}

// Whether the values agree: exactly for integers and bools, to 1e-4 of the largest magnitude
// for floats (a partial sum's addends cancel).
bool close(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const Tensor fa = ops::cast(a, DType::F64), fb = ops::cast(b, DType::F64);
  const double* x = fa.data<double>();
  const double* y = fb.data<double>();
  double scale = 1;
  for (int64_t i = 0; i < fb.numel(); ++i)
    if (std::isfinite(y[i])) scale = std::max(scale, std::abs(y[i]));
  const double tol = rt::isFloat(a.dtype()) ? 1e-4 * scale : 0;
  for (int64_t i = 0; i < fa.numel(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (!(std::abs(x[i] - y[i]) <= tol) && x[i] != y[i]) return false;
  }
  return true;
}

// Runs `op` on every device of `mesh` with input placements rows[k].in on mesh dimension k and
// reassembles the results as rows[k].out say. Returns the global results, or an error text.
// The random stream of the context: the unsharded run and every device start from one state.
struct Stream {
  uint64_t key, counter;
};

std::string runSharded(OpId op, const testutil::OpCase& c, const std::vector<ShardRow>& rows,
                       const std::vector<int64_t>& mesh, const Stream& stream, std::vector<Tensor>& global) {
  const ops::OpDef& d = ops::opDef(op);
  ops::Attrs attrs = c.attrs;
  for (size_t k = 0; k < mesh.size(); ++k) attrs = spmd::localAttrs(op, attrs, rows[k], mesh[k]);
  // Each device's results, keyed by its coordinates; reassembled one mesh dimension at a time,
  // the last first (the order the cuts nest in).
  std::map<std::vector<int64_t>, std::vector<Tensor>> parts;
  ExecutionContext& context = weft::context();
  for (const auto& coords : devices(mesh)) {
    context.randomKey = stream.key, context.randomCounter = stream.counter;
    std::vector<Tensor> local = c.in;
    for (size_t i = 0; i < local.size(); ++i)
      for (size_t k = 0; k < mesh.size(); ++k) local[i] = cut(local[i], rows[k].in[i], mesh[k], coords[k]);
    const std::string error = testutil::errorOf([&] { parts[coords] = d.run(local, attrs); });
    if (!error.empty()) return "a device's kernel failed: " + error;
  }
  for (size_t k = mesh.size(); k-- > 0;) {
    std::map<std::vector<int64_t>, std::vector<Tensor>> outer;
    for (auto& entry : parts) {
      std::vector<int64_t> prefix(entry.first.begin(), entry.first.begin() + long(k));
      const int64_t j = entry.first[k];
      std::vector<Tensor>& acc = outer[prefix];
      if (j == 0) {
        acc = entry.second;
        continue;
      }
      for (size_t r = 0; r < acc.size(); ++r) {
        const Placement& p = rows[k].out[r];
        if (p.sharded()) acc[r] = ops::concat({acc[r], entry.second[r]}, p.dim);
        else if (p.partial()) acc[r] = ops::binary(ops::BinaryOp::Add, acc[r], entry.second[r]);
        else if (!close(acc[r], entry.second[r])) return "replicas of result " + std::to_string(r) + " differ";
      }
    }
    parts = std::move(outer);
  }
  global = parts.begin()->second;
  return "";
}

std::string rowText(const std::vector<ShardRow>& rows) {
  std::string s;
  for (const ShardRow& row : rows) {
    s += s.empty() ? "" : " ; ";
    for (size_t i = 0; i < row.out.size(); ++i) s += (i ? "," : "") + row.out[i].str();
    s += "|";
    for (size_t i = 0; i < row.in.size(); ++i) s += (i ? "," : "") + row.in[i].str();
  }
  return s;
}

TEST_CASE("shard rules: every primitive has one, and every row computes what the unsharded kernel does") {
  spmd::registerShardRules();
  const auto cases = testutil::opCases();
  const std::vector<std::vector<int64_t>> meshes{{2}, {4}, {2, 2}};
  std::map<OpId, int> validated;  // rows beyond the replicated one that ran, per op
  int combos = 0;
  for (const auto& entry : cases) {
    const OpId op = entry.first;
    const testutil::OpCase& c = entry.second;
    if (!c.valid) continue;
    const ops::OpDef& d = ops::opDef(op);
    REQUIRE_MESSAGE(d.shard != nullptr, std::string(d.name), " has a kernel but no sharding rule");
    const Stream stream{context().randomKey, context().randomCounter};
    const std::vector<Tensor> expected = d.run(c.in, c.attrs);
    const spmd::Rows rows = spmd::shardRows(op, testutil::typesOf(c.in), c.attrs);
    for (const auto& mesh : meshes) {
      // Every choice of a row per mesh dimension.
      std::vector<size_t> pick(mesh.size(), 0);
      for (;;) {
        std::vector<ShardRow> chosen;
        for (size_t p : pick) chosen.push_back(rows[p]);
        bool ok = true;
        for (size_t i = 0; i < c.in.size() && ok; ++i) {
          Placements ps;
          for (const ShardRow& r : chosen) ps.push_back(r.in[i]);
          ok = fits(c.in[i].shape(), ps, mesh);
        }
        for (size_t r = 0; r < expected.size() && ok; ++r) {
          Placements ps;
          for (const ShardRow& row : chosen) ps.push_back(row.out[r]);
          ok = fits(expected[r].shape(), ps, mesh);
        }
        if (ok) {
          INFO(testutil::label(d, c), " on mesh of ", mesh.size() == 1 ? std::to_string(mesh[0]) : "2x2", ": ",
               rowText(chosen));
          std::vector<Tensor> got;
          const std::string error = runSharded(op, c, chosen, mesh, stream, got);
          CHECK_MESSAGE(error.empty(), error);
          if (error.empty()) {
            REQUIRE(got.size() == expected.size());
            for (size_t r = 0; r < got.size(); ++r) CHECK_MESSAGE(close(got[r], expected[r]), "result ", r);
          }
          ++combos;
          for (size_t p : pick) validated[op] += p != 0;
        }
        size_t k = 0;
        while (k < pick.size() && ++pick[k] == rows.size()) pick[k++] = 0;
        if (k == pick.size()) break;
      }
    }
  }
  // Every op whose rule has rows beyond the replicated one ran some of them here.
  for (int i = 0; i < ops::kOpCount; ++i) {
    const ops::OpDef& d = ops::opDef(OpId(i));
    if (!d.run) continue;
    REQUIRE_MESSAGE(d.shard != nullptr, std::string(d.name), " has a kernel but no sharding rule");
    const auto range = cases.equal_range(d.id);
    bool hasRows = false;
    for (auto it = range.first; it != range.second; ++it)
      if (it->second.valid && spmd::shardRows(d.id, testutil::typesOf(it->second.in), it->second.attrs).size() > 1)
        hasRows = true;
    if (hasRows) CHECK_MESSAGE(validated[d.id] > 0, std::string(d.name), ": no row beyond the replicated one fits its cases");
  }
  MESSAGE(combos, " sharded runs validated");
}

// Every placement one operand or result of `t` could have on one mesh dimension: replicated,
// split along each dimension, and (for a float) a partial sum.
std::vector<Placement> candidates(const Tensor& t) {
  std::vector<Placement> ps{Placement::r()};
  for (int d = 0; d < t.rank(); ++d) ps.push_back(Placement::s(d));
  if (rt::isFloat(t.dtype())) ps.push_back(Placement::p());
  return ps;
}

// The other half of the validation (DTensor's strategy validator reports it too): operand
// placements no row covers, on a mesh of 2, for which some placements of the results still
// compute what the unsharded kernel does — rows a rule could have and does not (the partitioner
// gathers such operands: a missing row costs communication, not results). The list is known: a
// rule that loses a row adds to it, one that gains a row takes from it, and either fails here
// until the list says so. Some pass only by these cases' values (a bool reduction's, a
// comparison's of partial sums). An integer mean's partial means pass within the tolerance but
// round twice: its rule gathers instead (rules_reduce.cpp).
const std::set<std::string> kKnownUncovered = {
    "all: R|S2", "any: R|S0", "any: R|S2", "argmin: R|S2", "broadcast_rows: P|P,R", "broadcast_rows: S1|S0,R",
    "clip: R|R,P,R", "clip: S0|S0,P,R", "concat: S0|S0", "eq: R|P,P", "kth_largest: S0|S0", "layer_norm: P|R,P,P",
    "matmul: P|P,P", "mean: P|S0", "ne: R|P,P", "shape: R|P", "update_row: P|P,P,R", "where: P|R,P,R",
};

TEST_CASE("shard rules: operand placements that validate but that no row covers") {
  spmd::registerShardRules();
  std::map<std::string, std::string> uncovered;  // "op: out|in" -> the case
  for (const auto& entry : testutil::opCases()) {
    const OpId op = entry.first;  // not a structured binding: clang 14 cannot capture one
    const testutil::OpCase& c = entry.second;
    if (!c.valid || c.in.empty() || c.in.size() > 3) continue;
    bool empty = false;  // on no elements every placement "computes" the result
    for (const Tensor& t : c.in) empty = empty || t.numel() == 0;
    if (empty) continue;
    const ops::OpDef& d = ops::opDef(op);
    if (d.family == ops::Family::Random || d.family == ops::Family::Collective) continue;
    const Stream stream{context().randomKey, context().randomCounter};
    const std::vector<Tensor> expected = d.run(c.in, c.attrs);
    if (expected.size() != 1) continue;
    const spmd::Rows rows = spmd::shardRows(op, testutil::typesOf(c.in), c.attrs);
    std::vector<std::vector<Placement>> choices;
    for (const Tensor& t : c.in) choices.push_back(candidates(t));
    std::vector<size_t> pick(c.in.size(), 0);
    for (;;) {
      Placements in;
      for (size_t i = 0; i < pick.size(); ++i) in.push_back(choices[i][pick[i]]);
      bool covered = false, fit = true;
      for (const ShardRow& row : rows) covered = covered || row.in == in;
      for (size_t i = 0; i < in.size(); ++i) fit = fit && !spmd::misfit(c.in[i].shape(), in[i], 2);
      bool anySplit = false;
      for (const Placement& p : in) anySplit = anySplit || !p.replicated();
      if (!covered && fit && anySplit)
        for (const Placement& out : candidates(expected[0])) {
          if (spmd::misfit(expected[0].shape(), out, 2) || expected[0].numel() == 0) continue;
          std::vector<Tensor> got;
          const std::vector<ShardRow> row{ShardRow{{out}, in}};
          // On meshes of 2 and of 4, so that a row cannot pass by chance on one split.
          bool validates = true;
          for (int64_t n : {2, 4}) {
            if (spmd::misfit(expected[0].shape(), out, n)) continue;
            bool fits4 = true;
            for (size_t i = 0; i < in.size(); ++i) fits4 = fits4 && !spmd::misfit(c.in[i].shape(), in[i], n);
            if (!fits4) continue;
            std::string failed;  // a kernel's error, or an op's local attributes refusing the row
            failed += testutil::errorOf([&] { failed += runSharded(op, c, row, {n}, stream, got); });
            validates = validates && failed.empty() && close(got[0], expected[0]);
          }
          if (validates) {
            uncovered.emplace(std::string(d.name) + ": " + rowText(row), testutil::label(d, c));
            break;
          }
        }
      size_t k = 0;
      while (k < pick.size() && ++pick[k] == choices[k].size()) pick[k++] = 0;
      if (k == pick.size()) break;
    }
  }
  std::string list;
  for (const auto& [row, where] : uncovered) list += "\n  " + row + "   (" + where + ")";
  MESSAGE(uncovered.size(), " operand placements validate on these cases but no row covers them (candidate rows; some pass only by these values):", list);
  // Not a structured binding: doctest's CHECK_MESSAGE captures in a lambda, which clang refuses for bindings.
  for (const auto& entry : uncovered)
    CHECK_MESSAGE(kKnownUncovered.count(entry.first), "no row covers ", entry.first, " (", entry.second, ")");
  for (const std::string& row : kKnownUncovered) CHECK_MESSAGE(uncovered.count(row), "a row now covers ", row);
}

}  // namespace
}  // namespace weft
