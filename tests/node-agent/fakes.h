// Fakes behind the daemon's interfaces, for unit tests only.
#pragma once

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "node-agent/daemon/sources.h"

namespace weft::agent::testing {

inline IbPort make_port(const std::string& device, int port, const std::string& state, double rate,
                        const std::string& guid) {
  IbPort p;
  p.device = device;
  p.port = port;
  p.state = state;
  p.link_layer = "InfiniBand";
  p.port_guid = guid;
  p.rate_gbps = rate;
  p.counters = {{"xmit_data_bytes", 1000}, {"symbol_errors", 0}};
  p.json = {{"device", device}, {"port", port}, {"state", state}, {"link_layer", "InfiniBand"},
            {"port_guid", guid}, {"rate_gbps", rate}};
  return p;
}

inline IbSnapshot make_ib(const std::string& fabric, const std::string& leaf, const std::string& spine,
                          std::vector<IbPort> ports) {
  IbSnapshot s;
  s.rdma = ports.empty() ? "none" : "ib";
  s.fabric = fabric;
  s.leaf = leaf;
  s.spine = spine;
  s.ports = std::move(ports);
  s.sm = SmInfo{"0x0002c90000000001", 1, "MASTER"};
  s.json = {{"fabric", fabric}, {"leaf", leaf}, {"spine", spine}};
  // As the IB collector's ib_labels() would give them.
  s.labels["weft.dev/rdma"] = s.rdma;
  if (!fabric.empty()) s.labels["weft.dev/ib-fabric"] = fabric;
  if (!leaf.empty()) s.labels["weft.dev/ib-leaf"] = leaf;
  if (!spine.empty()) s.labels["weft.dev/ib-spine"] = spine;
  double rate = 0;
  for (const auto& p : s.ports) rate += p.active() && p.infiniband() ? p.rate_gbps : 0;
  if (s.rdma == "ib") s.labels["weft.dev/ib-rate-gbps"] = fmt::format("{}", rate);
  return s;
}

inline LoadSnapshot make_load(double cpu, double memory) {
  LoadSnapshot l;
  l.source = "procfs";
  l.cpu = cpu;
  l.memory = memory;
  l.window_seconds = 5;
  l.json = {{"source", "procfs"}, {"cpu", cpu}, {"memory", memory}};
  return l;
}

class FakeIbSource : public IbSource {
 public:
  enum class Mode { Ok, Fail, Throw };
  Result<IbSnapshot> probe() override {
    std::lock_guard lock(mu);
    ++calls;
    if (mode == Mode::Throw) throw std::runtime_error("ib collector exploded");
    if (mode == Mode::Fail) return make_error("umad: no response from SM");
    return snapshot;
  }
  Result<std::string> port_states() override {
    std::lock_guard lock(mu);
    return states;
  }
  void recall(const nlohmann::json& ports) override {
    std::lock_guard lock(mu);
    recalled = ports;
    probes_before_recall = calls;
  }
  std::mutex mu;
  nlohmann::json recalled;        // what the daemon passed to recall(), null if never
  int probes_before_recall = -1;
  Mode mode = Mode::Ok;
  IbSnapshot snapshot;
  std::string states;
  std::atomic<int> calls{0};
};

class FakeLoadSource : public LoadSource {
 public:
  Result<LoadSnapshot> sample() override {
    std::lock_guard lock(mu);
    ++calls;
    if (throws) throw std::logic_error("load collector exploded");
    return snapshot;
  }
  std::mutex mu;
  bool throws = false;
  LoadSnapshot snapshot = make_load(0.2, 0.3);
  std::atomic<int> calls{0};
};

// A Node held in memory; patches apply as RFC 7386 merge patches.
class FakeNodeApi : public NodeApi {
 public:
  explicit FakeNodeApi(nlohmann::json node) : node(std::move(node)) {}
  Result<nlohmann::json> get_node(const std::string& name) override {
    std::lock_guard lock(mu);
    ++gets;
    if (fail_status) return make_error("GET /api/v1/nodes/" + name + ": HTTP " + std::to_string(fail_status),
                                       fail_status);
    return node;
  }
  Result<nlohmann::json> patch_node(const std::string& name, const nlohmann::json& patch) override {
    std::lock_guard lock(mu);
    ++patches;
    last_patch = patch;
    if (fail_status || patch_fail_status) {
      int s = fail_status ? fail_status : patch_fail_status;
      return make_error("PATCH /api/v1/nodes/" + name + ": HTTP " + std::to_string(s), s);
    }
    node.merge_patch(patch);
    return node;
  }
  nlohmann::json snapshot() {
    std::lock_guard lock(mu);
    return node;
  }
  std::mutex mu;
  nlohmann::json node;
  nlohmann::json last_patch;
  int gets = 0;
  int patches = 0;
  int fail_status = 0;        // every call fails with this status
  int patch_fail_status = 0;  // only patches fail
};

}  // namespace weft::agent::testing
