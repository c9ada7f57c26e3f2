// A device's block of a global tensor on a mesh, and the global tensor back from every device's
// block (SPEC §7.1), for generated sharded code: its state cut at load, its inputs cut and its
// outputs assembled at each call. The rule is the interpreter's (interpreter/spmd/blocks.h):
// devices are numbered row-major over the mesh; each mesh dimension cuts the block the ones
// before it left; replicas are taken from the first, partial sums added in device order.
#ifndef WEFT_RT_SHARDS_H
#define WEFT_RT_SHARDS_H
#include <cstdint>
#include <cstring>

#include "comm.h"
#include "shape.h"

namespace weft::rt {

// How a tensor lies along one mesh dimension: replicated, a partial sum, or (>= 0) split along
// that tensor dimension.
inline constexpr int kReplicated = -1, kPartial = -2;

struct MeshPlace {
  const int64_t* sizes;  // the mesh's sizes
  int rank;              // its number of dimensions
  const int* placements; // per mesh dimension
};

inline int64_t meshCoordinate(const MeshPlace& m, int64_t device, int k) {
  for (int d = m.rank - 1; d > k; --d) device /= m.sizes[d];
  return device % m.sizes[k];
}

// Whether every split dimension of `global` divides evenly (else the tensor dimension).
inline int unevenDimension(const MeshPlace& m, const Shape& global) {
  Shape s = global;
  for (int k = 0; k < m.rank; ++k) {
    const int d = m.placements[k];
    if (d < 0) continue;
    if (d >= s.rank() || s[d] % m.sizes[k] != 0) return d;
    s[d] /= m.sizes[k];
  }
  return -1;
}

// Device `device`'s block of a tensor of `global` shape: its sizes and where it starts.
inline void blockOf(const MeshPlace& m, const Shape& global, int64_t device, Shape& size, Shape& start) {
  size = global;
  start = Shape();
  for (int a = 0; a < global.rank(); ++a) start.push_back(0);
  for (int k = 0; k < m.rank; ++k) {
    const int d = m.placements[k];
    if (d < 0) continue;
    size[d] /= m.sizes[k];
    start[d] += meshCoordinate(m, device, k) * size[d];
  }
}

// The global shape of blocks of `local` shape.
inline Shape globalOf(const MeshPlace& m, const Shape& local) {
  Shape s = local;
  for (int k = 0; k < m.rank; ++k)
    if (m.placements[k] >= 0) s[m.placements[k]] *= m.sizes[k];
  return s;
}

namespace detail {

// Walks the rows of a block inside a global tensor: each call of row(globalByte, localByte,
// bytes) is one run of the last dimension.
template <class Row>
void blockRows(const Shape& global, const Shape& size, const Shape& start, size_t elem, Row&& row) {
  const int r = global.rank();
  if (size.numel() == 0) return;
  if (r == 0) return row(int64_t(0), int64_t(0), int64_t(elem));
  const int64_t runBytes = size[r - 1] * int64_t(elem);
  Shape at;
  for (int a = 0; a < r; ++a) at.push_back(0);
  for (int64_t local = 0;; local += runBytes) {
    int64_t offset = 0;
    for (int a = 0; a < r; ++a) offset = offset * global[a] + start[a] + (a == r - 1 ? 0 : at[a]);
    row(offset * int64_t(elem), local, runBytes);
    int a = r - 2;
    while (a >= 0 && ++at[a] == size[a]) at[a--] = 0;
    if (a < 0) return;
  }
}

}  // namespace detail

// Copies device `device`'s block of `global` (of `shape`) to `local`.
inline void cutBlock(const MeshPlace& m, const void* global, const Shape& shape, size_t elem, int64_t device, void* local) {
  Shape size, start;
  blockOf(m, shape, device, size, start);
  detail::blockRows(shape, size, start, elem, [&](int64_t g, int64_t l, int64_t n) {
    std::memcpy(static_cast<char*>(local) + l, static_cast<const char*>(global) + g, size_t(n));
  });
}

// Device `device`'s block inside `global` (of `shape`) when it is one run of memory (a split of
// the first dimension longer than 1, or none), else null: then cutBlock copies it.
inline const char* blockInPlace(const MeshPlace& m, const void* global, const Shape& shape, size_t elem, int64_t device) {
  Shape size, start;
  blockOf(m, shape, device, size, start);
  int a = 0;
  while (a < shape.rank() && size[a] == 1) ++a;  // leading sizes of 1 do not break a run
  for (int b = a + 1; b < shape.rank(); ++b)
    if (size[b] != shape[b]) return nullptr;
  int64_t offset = 0;
  for (int b = 0; b < shape.rank(); ++b) offset = offset * shape[b] + start[b];
  return static_cast<const char*>(global) + offset * int64_t(elem);
}

// Puts device `device`'s block `local` into `global` (of `shape`), when it counts: a replica only
// from the device with coordinate 0 along the replicated mesh dimensions, and a partial sum added
// onto what is there (then global must start at zero: isPartial).
inline void placeBlock(const MeshPlace& m, void* global, const Shape& shape, DType dtype, int64_t device, const void* local) {
  bool partial = false;
  for (int k = 0; k < m.rank; ++k) {
    if (m.placements[k] == kReplicated && meshCoordinate(m, device, k) != 0) return;
    partial = partial || m.placements[k] == kPartial;
  }
  Shape size, start;
  blockOf(m, shape, device, size, start);
  const size_t elem = dtypeSize(dtype);
  detail::blockRows(shape, size, start, elem, [&](int64_t g, int64_t l, int64_t n) {
    char* to = static_cast<char*>(global) + g;
    const char* from = static_cast<const char*>(local) + l;
    if (partial) addInto(dtype, to, from, to, n / int64_t(elem));
    else std::memcpy(to, from, size_t(n));
  });
}

// Whether the blocks are summed (a partial placement): then global must start at zero.
inline bool isPartial(const MeshPlace& m) {
  for (int k = 0; k < m.rank; ++k)
    if (m.placements[k] == kPartial) return true;
  return false;
}

}  // namespace weft::rt

#endif
