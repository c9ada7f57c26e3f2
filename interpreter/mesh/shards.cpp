#include "shards.h"

#include <cstring>

namespace weft::mesh {
namespace {

// Copies the block at `offsets` of shape block.shape() between `full` and `block`.
void copyBlock(const Tensor& full, const Tensor& block, const std::vector<int64_t>& offsets, bool intoBlock) {
  const Shape& fs = full.shape();
  const Shape& bs = block.shape();
  const int r = fs.rank();
  const int64_t esize = int64_t(rt::dtypeSize(full.dtype()));
  char* f = static_cast<char*>(full.raw());
  char* b = static_cast<char*>(block.raw());
  if (r == 0 || block.numel() == 0) {
    if (r == 0) std::memcpy(intoBlock ? b : f, intoBlock ? f : b, size_t(esize));
    return;
  }
  std::vector<int64_t> stride(size_t(r), 1);
  for (int d = r - 2; d >= 0; --d) stride[size_t(d)] = stride[size_t(d) + 1] * fs[d + 1];
  const int64_t rowBytes = bs[r - 1] * esize;
  std::vector<int64_t> idx(size_t(r), 0);  // over the block's leading dimensions
  for (int64_t row = 0, rows = block.numel() / bs[r - 1]; row < rows; ++row) {
    int64_t src = offsets[size_t(r) - 1];
    for (int d = 0; d < r - 1; ++d) src += (offsets[size_t(d)] + idx[size_t(d)]) * stride[size_t(d)];
    char* fp = f + src * esize;
    char* bp = b + row * rowBytes;
    std::memcpy(intoBlock ? bp : fp, intoBlock ? fp : bp, size_t(rowBytes));
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[size_t(d)] < bs[d]) break;
      idx[size_t(d)] = 0;
    }
  }
}

// The offsets of block number k (row-major over the split dimensions, as blockIndex).
std::vector<int64_t> blockOffsets(const LayoutObj& l, const Shape& shard, int64_t k) {
  std::vector<int64_t> off(size_t(l.rank()), 0);
  for (int d = l.rank() - 1; d >= 0; --d) {
    if (!l.dims[size_t(d)]) continue;
    int64_t n = l.mesh->dimSizes[size_t(l.mesh->dimIndex(*l.dims[size_t(d)]))];
    off[size_t(d)] = (k % n) * shard[d];
    k /= n;
  }
  return off;
}

void cut(Placement& p, const Tensor& value) {
  const LayoutObj& l = *p.layout;
  p.blocks.clear();
  p.source = value;
  if (l.numBlocks() == 1) {  // replicated: every device holds the value itself
    p.blocks.push_back(value);
    return;
  }
  Shape s = l.shardShape(value.shape());
  for (int64_t k = 0; k < l.numBlocks(); ++k) {
    if (value.isAbstract()) {
      p.blocks.push_back(Tensor::abstract(value.dtype(), s));
      continue;
    }
    Tensor b = Tensor::empty(value.dtype(), s);
    copyBlock(value, b, blockOffsets(l, s, k), true);
    p.blocks.push_back(b);
  }
}

Tensor assemble(const Placement& p, const Tensor& like) {
  if (p.blocks.size() == 1 || like.isAbstract()) return p.blocks.size() == 1 ? p.blocks[0] : like;
  Tensor full = Tensor::empty(like.dtype(), like.shape());
  for (size_t k = 0; k < p.blocks.size(); ++k)
    copyBlock(full, p.blocks[k], blockOffsets(*p.layout, p.blocks[k].shape(), int64_t(k)), false);
  return full;
}

}  // namespace

void place(VariableObj& var, std::shared_ptr<LayoutObj> layout) {
  Placement& p = *var.placement;
  p.layout = std::move(layout);
  store(var, var.value);
}

void store(VariableObj& var, Tensor value) {
  if (VariableAccess* a = variableAccess()) return a->write(var, value);  // a graph being traced
  if (!var.placement || !var.placement->layout) {
    var.value = std::move(value);
    return;
  }
  Placement& p = *var.placement;
  cut(p, value);
  var.value = assemble(p, value);
  p.source = var.value;
}

Tensor shard(VariableObj& var, int64_t device) {
  Placement& p = *var.placement;
  // A value replaced without store() (by code that writes var.value directly): cut it again.
  if (!var.value.sharesStorage(p.source) || var.value.shape() != p.source.shape()) store(var, var.value);
  return p.blocks[size_t(p.layout->blockIndex(device))];
}

const LayoutObj* layoutOf(const VariableObj& var) {
  return var.placement && var.placement->layout ? var.placement->layout.get() : nullptr;
}

void placeLike(VariableObj& var, const VariableObj& like) {
  if (!layoutOf(like)) return;
  var.placement = std::make_shared<Placement>();
  var.placement->resolved = true;
  place(var, like.placement->layout);
}

int64_t bytesPerDevice(const VariableObj& var) {
  const LayoutObj* l = layoutOf(var);
  int64_t esize = int64_t(rt::dtypeSize(var.value.dtype()));
  if (!l) return var.value.numel() * esize;
  return l->shardShape(var.value.shape()).numel() * esize;
}

void installPlacementHook() {
  struct Hook : PlacementHook {
    void write(VariableObj& v, Tensor value) override { store(v, std::move(value)); }
    std::string layoutRepr(const VariableObj& v) override {
      return v.placement->key >= 0 ? " layout=" + v.placement->layout->repr() : "";
    }
  };
  static Hook hook;
  setPlacementHook(&hook);
}

}  // namespace weft::mesh
