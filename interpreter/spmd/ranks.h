// A program run across processes (SPEC §7.1): under `mpirun -np N weft run FILE` with N > 1, every
// MPI rank runs the whole program, and of a mesh of D devices (N must divide D) rank r holds and
// computes devices r*k .. r*k+k-1, k = D/N. Their collectives cross ranks through MPI
// (device_comms.h), and a
// value the program reads (print, ==, .value, save) is put together from every rank's blocks by an
// all-gather, so every rank reads the same values and takes the same branches. Without mpirun,
// with -np 1, or in a Weft built without MPI, there is one rank and nothing here does anything.
#pragma once
#include <string>
#include <vector>

#include "../values/tensor.h"
#include "placement.h"

namespace weft::rt {
class Comm;
}

namespace weft::spmd {

// Starts MPI when this process is one of several ranks started by mpirun; else nothing. Returns
// why it cannot (a Weft built without MPI), or "".
std::string startRanks();
// Why the ranks cannot run together, or "": the first rank started with other arguments or another
// program text than rank 0's (mpirun's `:` form can do that), which would make it branch otherwise
// and meet other collectives. Every rank calls it at start, and every rank gets the same answer.
std::string rankStartedOtherwise(const std::vector<std::string>& args, const std::string& programText);
// Ends MPI (every rank finished the program).
void finishRanks();
// Ends every rank with `status` at once (an error on this one): no rank is left waiting.
[[noreturn]] void abortRanks(int status);

// Every rank waits here for the others (a barrier): after rank 0 writes a file, so that the file
// is there for whichever rank reads it next.
void waitForRanks();

// Rank 0's `v` on every rank (a broadcast): for what differs between processes, the clock, so
// that a program that branches on it takes the same branch on every rank.
double fromRankZero(double v);

int rankCount();  // 1 without mpirun
int rankIndex();
inline bool acrossRanks() { return rankCount() > 1; }

// Why a mesh of `devices` devices cannot run on these ranks, or "".
std::string meshMisfitOnRanks(int64_t devices);
// Whether this rank holds and computes device `device` of `mesh`, and the first such device.
bool ownsDevice(const MeshAxes& mesh, int64_t device);
int64_t firstOwnedDevice(const MeshAxes& mesh);
// How many devices of `mesh` this rank holds (all of them without mpirun).
int64_t devicesHeld(const MeshAxes& mesh);
// This rank's communicator on `mesh`'s devices (made on first use: every rank must ask for it at
// the same point of the program, as they do, running the same program).
rt::Comm& rankComm(const MeshAxes& mesh);
// Each rank's `bytes` at `in`, in rank order at `out` (rankCount() * bytes): an all-gather
// across ranks, from the thread that started MPI.
void allGatherAcrossRanks(const void* in, void* out, int64_t bytes);
// Fills in the blocks of the devices other ranks hold (one all-gather across ranks, which every
// rank calls at the same point). Every device's block has the owned one's dtype and shape.
void gatherRankBlocks(const MeshAxes& mesh, std::vector<Tensor>& locals);

}  // namespace weft::spmd
