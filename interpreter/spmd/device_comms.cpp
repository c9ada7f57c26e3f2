#include "device_comms.h"

#include "../../stdlib/runtime/comm_rank_devices.h"
#include "ranks.h"

namespace weft::spmd {

DeviceComms::DeviceComms(const MeshAxes& mesh, rt::Cores* cores) : first_(firstOwnedDevice(mesh)) {
  const int64_t held = devicesHeld(mesh);
  if (acrossRanks() && held == 1) {
    shared_ = &rankComm(mesh);
    return;
  }
  rendezvous_ = std::make_unique<rt::Rendezvous>(acrossRanks() ? std::vector<int64_t>{held} : mesh.sizes, cores);
  if (acrossRanks())
    exchange_ = std::make_unique<rt::RankExchange>(rt::RankExchange{&allGatherAcrossRanks, rankCount(), {}, {}});
  for (int64_t d = first_; d < first_ + held; ++d) {
    if (acrossRanks()) own_.push_back(std::make_unique<rt::RankDeviceComm>(mesh.sizes, *rendezvous_, *exchange_, d, first_));
    else own_.push_back(std::make_unique<rt::ThreadComm>(*rendezvous_, d));
  }
}

DeviceComms::~DeviceComms() = default;

rt::Comm& DeviceComms::of(int64_t device) { return shared_ ? *shared_ : *own_[size_t(device - first_)]; }

void DeviceComms::abort(const std::string& why) {
  if (rendezvous_) rendezvous_->abort(why);
}

}  // namespace weft::spmd
