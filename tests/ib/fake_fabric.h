// A fake IB fabric behind the MadPort and UmadDevices interfaces, for unit tests of the
// prober without ibsim: host ports on leaf switches with spines above, an SM answering
// SMInfo, an SA answering NodeRecord tables, PerfMgt counters. Replies are encoded with
// libibmad (an encoder independent of ours). Knobs drop, delay or garble replies.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collectors/ib/mad_transport.h"

namespace weft::ib::fake {

struct Subnet {
  uint16_t sm_lid = 1;
  uint64_t sm_guid = 0x5000;
  int sm_priority = 14;
  bool sm_answers = true;                 // SMInfo at the SM LID
  bool sa_answers = true;                 // SA NodeRecord tables
  std::vector<uint64_t> switch_guids;     // every switch of the subnet (SA records)
  uint64_t gid_prefix = 0xfe80000000000000ULL;
};

struct HostPort {
  std::string device = "mlx5_0";
  int port = 1;
  std::string link_layer = "InfiniBand";  // "Ethernet": a RoCE port, listed but not probed by umad
  Subnet* subnet = nullptr;
  uint16_t lid = 10;
  uint64_t port_guid = 0x100;
  uint8_t state = 4;                      // ACTIVE
  uint64_t leaf_guid = 0x2000;
  uint8_t leaf_port = 1;                  // the leaf's port facing us
  uint8_t leaf_radix = 8;
  std::vector<uint64_t> spines;           // on leaf ports radix, radix-1, ...
};

// What happens to the reply of one send: delivered after `delay`, dropped, or changed.
struct Fate {
  bool drop = false;
  std::chrono::milliseconds delay{0};
  std::function<void(Bytes&)> garble;     // e.g. truncate or zero a field
};

struct Counters {
  std::map<std::string, int> sends;       // by attribute name ("NodeInfo", "SA", ...)
  int total = 0;
  std::mutex lock;                        // the prober sends from one thread per port; also guards fate calls
};

// Builds the reply the fabric would give to one request from `port`, or nullopt when no
// one answers it.
std::optional<Bytes> answer(const HostPort& port, const MadRequest& request);
std::string attribute_key(const MadRequest& request);   // "NodeInfo", "PortInfo", "SMInfo", "SA", "PortCounters"...

class Port final : public MadPort {
 public:
  // fate(request, attempt number for this key) decides each reply's fate.
  using FateFn = std::function<Fate(const MadRequest&, int attempt)>;
  Port(HostPort host, FateFn fate, Counters* counters) : host_(std::move(host)), fate_(std::move(fate)), counters_(counters) {}
  Status send(const MadRequest& r, uint32_t tid, std::chrono::milliseconds timeout) override;
  std::optional<Received> receive(std::chrono::milliseconds wait) override;

 private:
  struct Pending { Clock::time_point at; Received got; };
  HostPort host_;
  FateFn fate_;
  Counters* counters_;
  std::map<std::string, int> attempts_;
  std::deque<Pending> queue_;
};

class Devices final : public UmadDevices {
 public:
  Devices(std::vector<HostPort*> ports, Port::FateFn fate = {}) : ports_(std::move(ports)), fate_(std::move(fate)) {}
  Result<std::vector<LocalPort>> ports() override;
  Result<std::unique_ptr<MadTransport>> open(const std::string& device, int port) override;
  Counters counters;

 private:
  std::vector<HostPort*> ports_;
  Port::FateFn fate_;
};

}  // namespace weft::ib::fake
