// ib_record_mads: sends the queries a probe sends, once each, from the first InfiniBand
// port of this host, and prints every reply as "<name> <hex>" (one line each). Run under
// umad2sim as a host of an ibsim fabric with OpenSM to (re)make tests/ib/recorded/*.txt:
//   LD_PRELOAD=.../libumad2sim.so SIM_HOST=f33-h0005 IBSIM_SOCKNAME=x ib_record_mads > file
#include <cstdio>
#include <string>
#include <vector>

#include "collectors/ib/attributes.h"
#include "collectors/ib/mad_transport.h"
#include "collectors/ib/umad_transport.h"

using namespace weft::ib;

namespace {

std::string hex(const Bytes& b) {
  std::string s;
  char buf[3];
  for (uint8_t c : b) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    s += buf;
  }
  return s;
}

MadDestination dr(std::vector<uint8_t> path) { return MadDestination{std::move(path), 0}; }
MadDestination lid(uint16_t l) { return MadDestination{{}, l}; }

}  // namespace

int main() {
  auto devices = make_umad_devices();
  auto ports = devices->ports();
  if (!ports || ports->empty()) {
    std::fprintf(stderr, "no umad ports: %s\n", ports ? "none" : ports.message().c_str());
    return 1;
  }
  const LocalPort& lp = ports->front();
  auto t = devices->open(lp.device, lp.port);
  if (!t) {
    std::fprintf(stderr, "%s\n", t.message().c_str());
    return 1;
  }
  const auto port = static_cast<uint8_t>(lp.port);
  MadPolicy policy;
  // The leaf's NodeInfo first: its port facing us and its radix pick the next queries.
  std::vector<std::pair<std::string, MadRequest>> q = {
      {"port_info", *smp_get(dr({0}), kAttrPortInfo, port)},
      {"leaf_node_info", *smp_get(dr({0, port}), kAttrNodeInfo, 0)},
      {"leaf_node_description", *smp_get(dr({0, port}), kAttrNodeDescription, 0)},
      {"sm_info", *smp_get(lid(lp.sm_lid), kAttrSmInfo, 0)},
      {"sa_switch_records", sa_node_records(lp.sm_lid, 2)},
      {"port_counters", perf_get(lp.lid, kAttrPortCounters, port)},
      {"port_counters_ext", perf_get(lp.lid, kAttrPortCountersExt, port)},
  };
  std::vector<MadRequest> requests;
  for (auto& [name, r] : q) requests.push_back(r);
  auto replies = exchange_checked(**t, requests, policy);
  int failed = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (!replies[i]) {
      std::fprintf(stderr, "%s: %s\n", q[i].first.c_str(), replies[i].message().c_str());
      ++failed;
      continue;
    }
    std::printf("%s %s\n", q[i].first.c_str(), hex(replies[i].value()).c_str());
  }
  // Through the leaf: the PortInfo of its top port (a spine link) and the spine's NodeInfo.
  if (replies[1]) {
    auto leaf = parse_node_info(replies[1].value());
    if (leaf) {
      const auto top = leaf->num_ports;
      std::vector<MadRequest> more = {*smp_get(dr({0, port}), kAttrPortInfo, top),
                                      *smp_get(dr({0, port, top}), kAttrNodeInfo, 0)};
      auto r = exchange_checked(**t, more, policy);
      const char* names[] = {"leaf_top_port_info", "spine_node_info"};
      for (size_t i = 0; i < r.size(); ++i) {
        if (r[i]) std::printf("%s %s\n", names[i], hex(r[i].value()).c_str());
        else std::fprintf(stderr, "%s: %s\n", names[i], r[i].message().c_str()), ++failed;
      }
    }
  }
  return failed ? 1 : 0;
}
