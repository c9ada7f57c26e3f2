// The collectives of a sharded program (SPEC §7.1) on row-major blocks: each moves the blocks of
// one tensor axis between the devices of a group through a communicator (comm.h). The
// interpreter's kernels (interpreter/ops/collective.cpp) and generated code both call these.
// A tensor is viewed around its axis as [outer, axis, inner]: `outer` counts the elements before
// the axis, and a `chunk` is the bytes (or elements) after it in one block of the axis.
#ifndef WEFT_RT_COLLECTIVES_H
#define WEFT_RT_COLLECTIVES_H
#include <cstdint>
#include <cstring>

#include "comm.h"

namespace weft::rt {

// [outer, group, chunk] bytes -> [group, outer, chunk]: each block of the axis made contiguous.
inline void blocksFirst(const void* in, int64_t outer, int64_t group, int64_t chunk, void* out) {
  const char* from = static_cast<const char*>(in);
  char* to = static_cast<char*>(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < group; ++j)
      std::memcpy(to + (j * outer + o) * chunk, from + (o * group + j) * chunk, size_t(chunk));
}

// The inverse: [group, outer, chunk] bytes -> [outer, group, chunk] (the blocks joined).
inline void blocksJoined(const void* in, int64_t outer, int64_t group, int64_t chunk, void* out) {
  const char* from = static_cast<const char*>(in);
  char* to = static_cast<char*>(out);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < group; ++j)
      std::memcpy(to + (o * group + j) * chunk, from + (j * outer + o) * chunk, size_t(chunk));
}

// The workspace bytes of each collective below (none for all_reduce and local_slice), given the
// bytes of its input block and its group.
inline int64_t allGatherWorkspace(int64_t outer, int64_t inBytes, int64_t group) { return outer == 1 ? 0 : inBytes * group; }
inline int64_t reduceScatterWorkspace(int64_t outer, int64_t inBytes) { return outer == 1 ? 0 : inBytes; }
inline int64_t allToAllWorkspace(int64_t inBytes) { return 2 * inBytes; }

// Sums the block of every member of the group along mesh dimension k (n elements).
inline void allReduceBlocks(Comm& c, int k, DType dtype, const void* in, void* out, int64_t n) {
  c.allReduce(k, dtype, in, out, n);
}

// Joins the members' blocks along the axis: in is [outer, chunk] bytes, out [outer, group, chunk].
inline void allGatherAxis(Comm& c, int k, const void* in, int64_t outer, int64_t chunk, void* out, void* ws) {
  if (outer == 1) return c.allGather(k, in, out, chunk);
  c.allGather(k, in, ws, outer * chunk);
  blocksJoined(ws, outer, c.groupSize(k), chunk, out);
}

// Sums the members' inputs and keeps this member's block of the axis: in is [outer, group, chunk]
// elements, out [outer, chunk].
inline void reduceScatterAxis(Comm& c, int k, DType dtype, const void* in, int64_t outer, int64_t chunk, void* out,
                              void* ws) {
  if (outer == 1) return c.reduceScatter(k, dtype, in, out, chunk);
  blocksFirst(in, outer, c.groupSize(k), chunk * int64_t(dtypeSize(dtype)), ws);
  c.reduceScatter(k, dtype, ws, out, outer * chunk);
}

// Sends block j of the split axis to member j and joins what arrives along the concat axis: the
// input is [splitOuter, group, splitChunk] bytes; each block, viewed around the concat axis, is
// [concatOuter, concatChunk] bytes, and out is [concatOuter, group, concatChunk].
inline void allToAllAxes(Comm& c, int k, const void* in, int64_t splitOuter, int64_t splitChunk, int64_t concatOuter,
                         int64_t concatChunk, void* out, void* ws) {
  if (c.allToAllApart(k, in, splitOuter, splitChunk, concatOuter, concatChunk, out)) return;
  const int64_t group = c.groupSize(k), block = splitOuter * splitChunk;
  char* sent = static_cast<char*>(ws);
  char* received = sent + group * block;
  blocksFirst(in, splitOuter, group, splitChunk, sent);
  c.allToAll(k, sent, received, block);
  blocksJoined(received, concatOuter, group, concatChunk, out);
}

// This member's block of the axis, without communication: in is [outer, group, chunk] bytes,
// out [outer, chunk].
inline void localSliceAxis(const Comm& c, int k, const void* in, int64_t outer, int64_t chunk, void* out) {
  const int64_t group = c.groupSize(k), at = c.coordinate(k);
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(static_cast<char*>(out) + o * chunk, static_cast<const char*>(in) + (o * group + at) * chunk,
                size_t(chunk));
}

}  // namespace weft::rt

#endif
