#include "device_comms.h"

#include <cstring>

#include "blocks.h"
#include "ranks.h"

namespace weft::spmd {
namespace {

// A device of a rank that holds several (device_comms.h).
class RankDeviceComm final : public rt::Comm {
 public:
  RankDeviceComm(const MeshAxes& mesh, rt::Rendezvous& local, std::vector<char>& gathered, int64_t device,
                 int64_t first)
      : sizes_(mesh.sizes), local_(local), gathered_(gathered), device_(device), first_(first) {}

  int meshRank() const override { return int(sizes_.size()); }
  int64_t groupSize(int k) const override { return sizes_[size_t(k)]; }
  int64_t coordinate(int k) const override { return device_ / stride(k) % sizes_[size_t(k)]; }
  int64_t device() const override { return device_; }

  void allGather(int k, const void* in, void* out, int64_t bytes) override {
    const char* all = exchange("all_gather", in, bytes);
    for (int64_t j = 0; j < groupSize(k); ++j)
      std::memcpy(static_cast<char*>(out) + j * bytes, all + member(k, j) * bytes, size_t(bytes));
  }
  void allReduce(int k, rt::DType dtype, const void* in, void* out, int64_t n) override {
    const int64_t bytes = n * int64_t(rt::dtypeSize(dtype));
    sum(k, dtype, exchange("all_reduce", in, bytes), bytes, 0, out, n);
  }
  void reduceScatter(int k, rt::DType dtype, const void* in, void* out, int64_t n) override {
    const int64_t block = n * int64_t(rt::dtypeSize(dtype)), bytes = groupSize(k) * block;
    sum(k, dtype, exchange("reduce_scatter", in, bytes), bytes, coordinate(k) * block, out, n);
  }
  void allToAll(int k, const void* in, void* out, int64_t bytes) override {
    const int64_t total = groupSize(k) * bytes;
    const char* all = exchange("all_to_all", in, total);
    for (int64_t j = 0; j < groupSize(k); ++j)
      std::memcpy(static_cast<char*>(out) + j * bytes, all + member(k, j) * total + coordinate(k) * bytes,
                  size_t(bytes));
  }

 private:
  int64_t stride(int k) const {
    int64_t s = 1;
    for (size_t d = size_t(k) + 1; d < sizes_.size(); ++d) s *= sizes_[d];
    return s;
  }
  // The device at coordinate j of this device's group along k.
  int64_t member(int k, int64_t j) const { return device_ + (j - coordinate(k)) * stride(k); }

  // Every device's `bytes` from `in`, in device order: this rank's devices meet (and check their
  // sizes agree), and the first sends theirs to every rank and receives the others'. The buffer
  // stays as it is until every device of the rank has come to the next collective.
  const char* exchange(const char* op, const void* in, int64_t bytes) {
    local_.meet(device_ - first_, 0, op, in, nullptr, bytes, [&](const rt::Rendezvous::Posted& p) {
      if (device_ != first_) return;
      std::vector<char> mine(p.in.size() * size_t(bytes));
      for (size_t j = 0; j < p.in.size(); ++j) std::memcpy(mine.data() + j * size_t(bytes), p.in[j], size_t(bytes));
      gathered_.resize(mine.size() * size_t(rankCount()));
      allGatherAcrossRanks(mine.data(), gathered_.data(), int64_t(mine.size()));
    });
    return gathered_.data();
  }

  // out = the group's n elements at byte `offset` of each member's `bytes`, summed in coordinate order.
  void sum(int k, rt::DType dtype, const char* all, int64_t bytes, int64_t offset, void* out, int64_t n) const {
    auto at = [&](int64_t j) { return all + member(k, j) * bytes + offset; };
    if (groupSize(k) == 1) {
      std::memcpy(out, at(0), size_t(n) * rt::dtypeSize(dtype));
      return;
    }
    rt::addInto(dtype, at(0), at(1), out, n);
    for (int64_t j = 2; j < groupSize(k); ++j) rt::addInto(dtype, out, at(j), out, n);
  }

  std::vector<int64_t> sizes_;
  rt::Rendezvous& local_;
  std::vector<char>& gathered_;
  int64_t device_, first_;
};

}  // namespace

DeviceComms::DeviceComms(const MeshAxes& mesh, rt::Cores* cores) : first_(firstOwnedDevice(mesh)) {
  const int64_t held = devicesHeld(mesh);
  if (acrossRanks() && held == 1) {
    shared_ = &rankComm(mesh);
    return;
  }
  rendezvous_ = std::make_unique<rt::Rendezvous>(acrossRanks() ? std::vector<int64_t>{held} : mesh.sizes, cores);
  for (int64_t d = first_; d < first_ + held; ++d) {
    if (acrossRanks()) own_.push_back(std::make_unique<RankDeviceComm>(mesh, *rendezvous_, gathered_, d, first_));
    else own_.push_back(std::make_unique<rt::ThreadComm>(*rendezvous_, d));
  }
}

DeviceComms::~DeviceComms() = default;

rt::Comm& DeviceComms::of(int64_t device) { return shared_ ? *shared_ : *own_[size_t(device - first_)]; }

void DeviceComms::abort(const std::string& why) {
  if (rendezvous_) rendezvous_->abort(why);
}

}  // namespace weft::spmd
