// The prober's UmadDevices over ibsim's own client protocol (its control and data
// sockets), without umad2sim: each local device of the host is a node of some running
// ibsim, so one process can be every HCA of a host, on several fabrics at once (umad2sim
// attaches a process to one node). MADs go out as ibsim's sim_request datagrams.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "collectors/ib/mad_transport.h"

namespace weft::ib::sim {

struct Hca {
  std::string device;     // the name the host gives it: "mlx5_0"
  std::string sockname;   // the ibsim it is in (IBSIM_SOCKNAME)
  std::string node;       // its node name in that ibsim's net file
};

class Devices final : public UmadDevices {
 public:
  explicit Devices(std::vector<Hca> hcas);
  Result<std::vector<LocalPort>> ports() override;
  Result<std::unique_ptr<MadTransport>> open(const std::string& device, int port) override;
  // MADs sent through open() transports so far (retries included).
  int mads_sent() const { return sent_->load(); }

 private:
  int next_id();
  std::vector<Hca> hcas_;
  int next_ = 0;
  std::atomic<int> serial_{0};   // open() runs in the prober's threads, one per port
  std::shared_ptr<std::atomic<int>> sent_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace weft::ib::sim
