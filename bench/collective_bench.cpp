// The in-process collectives (stdlib/runtime/comm_threads.h) against a memcpy of the same bytes,
// on 2 device threads: all-reduce and all-gather of BYTES (default 4 MiB) of f32, the median of
// N calls (default 200), and the ratio. SPEC §7.1's target: an all-reduce of 4 MiB between 2
// devices within 2x a memcpy. Usage: bench_collective [BYTES] [N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench/figures.h"
#include "stdlib/runtime/comm_threads.h"

namespace {

using Clock = std::chrono::steady_clock;

using weft::bench::cpuModel;
using weft::bench::median;

// Device 0's time per call of `op` on both devices (each call starts after a barrier).
template <class Op>
double timeCollective(int64_t n, int calls, Op op) {
  weft::rt::Rendezvous rendezvous({2});
  std::vector<std::vector<float>> in(2, std::vector<float>(size_t(n), 1.0f)), out(2, std::vector<float>(size_t(2 * n)));
  std::vector<double> times;
  auto device = [&](int64_t d) {
    weft::rt::ThreadComm comm(rendezvous, d);
    float sync = 0, synced[2];
    for (int i = 0; i < calls + 10; ++i) {
      comm.allGather(0, &sync, synced, sizeof sync);  // line the two devices up
      const auto start = Clock::now();
      op(comm, in[size_t(d)].data(), out[size_t(d)].data(), n);
      if (d == 0 && i >= 10) times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
  };
  std::thread other(device, 1);
  device(0);
  other.join();
  return median(times);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t bytes = argc > 1 ? std::atoll(argv[1]) : int64_t(4) << 20;
  const int calls = argc > 2 ? std::atoi(argv[2]) : 200;
  const int64_t n = bytes / 4;
  std::vector<float> a(size_t(n), 1.0f), b(size_t(n), 0.0f);
  std::vector<double> copies;
  for (int i = 0; i < calls + 10; ++i) {
    const auto start = Clock::now();
    std::memcpy(b.data(), a.data(), size_t(bytes));
    if (i >= 10) copies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  const double copy = median(copies);
  const double reduce = timeCollective(n, calls, [](weft::rt::Comm& c, const float* in, float* out, int64_t n) {
    c.allReduce(0, weft::rt::DType::F32, in, out, n);
  });
  const double gather = timeCollective(n, calls, [](weft::rt::Comm& c, const float* in, float* out, int64_t n) {
    c.allGather(0, in, out, n * 4);
  });
  std::printf("%s, 2 devices, %lld bytes, median of %d\n", cpuModel().c_str(), static_cast<long long>(bytes), calls);
  std::printf("memcpy      %9.1f us\n", copy);
  std::printf("all_reduce  %9.1f us  %.2fx memcpy (target <= 2x)\n", reduce, reduce / copy);
  std::printf("all_gather  %9.1f us  %.2fx memcpy (it writes twice the bytes)\n", gather, gather / copy);
}
