// Rail-optimized units in ibsim with real OpenSM: every HCA of a host probed in one
// process through ibsim's socket protocol (tests/ib/sim_umad.h), the PCIe tree from a fake
// sysfs. A healthy unit, a downed smallest-GUID rail, storage HCAs on the compute subnet,
// planes, and a restart with a rail down.
#include <algorithm>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "collectors/ib/prober.h"
#include "tests/ib/fake_sysfs.h"
#include "tests/ib/sim_umad.h"
#include "tests/support/ibsim.h"
#include "tools/fat-tree/rail_units.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;
using fattree::guid_hex;

struct RailFabric {
  fattree::RailUnits units;
  std::unique_ptr<TempDir> dir;
  std::vector<std::unique_ptr<IbSim>> sims;   // one per subnet, each with its own master SM
  std::unique_ptr<TempDir> sysfs_dir;         // every node's PCIe tree (they are built alike)
};

std::unique_ptr<RailFabric> start_rail_fabric(const fattree::RailSpec& spec) {
  auto f = std::make_unique<RailFabric>();
  auto units = fattree::build(spec);
  EXPECT_TRUE(units.ok()) << (units ? "" : units.message());
  if (!units) return nullptr;
  f->units = *units;
  f->dir = std::make_unique<TempDir>("weft-rail-fabric");
  for (size_t i = 0; i < f->units.subnets.size(); ++i) {
    const std::string net = f->dir->file("subnet" + std::to_string(i) + ".net");
    write_file(net, fattree::render_net(f->units.subnets[i]));
    std::string error;
    auto sim = IbSim::start(net, &error);
    EXPECT_NE(sim, nullptr) << error;
    if (!sim) return nullptr;
    const size_t sm = sim->start_sm({.host = f->units.subnets[i].hosts.front().name, .priority = 14});
    EXPECT_TRUE(sim->wait_sm_subnet_up(sm, 60s)) << sim->sm_output(sm) << sim->sm_log(sm);
    f->sims.push_back(std::move(sim));
  }
  f->sysfs_dir = std::make_unique<TempDir>("weft-rail-sysfs");
  ib::fake::Sysfs sysfs(f->sysfs_dir->path());
  ib::fake::dgx_like(sysfs, spec.rails, spec.storage_hcas);
  return f;
}

std::string ibsim_node(const RailFabric& f, const fattree::RailHca& h) {
  return f.units.subnets[h.subnet].hosts[h.host].name;
}

struct NodeProbe {
  ib::IbReport report;
  std::map<std::string, std::string> labels;
  int mads = 0;
};

// One probe of every HCA of node `n`, as its agent does it.
NodeProbe probe_node(const RailFabric& f, int n, ib::PortMemory& memory, bool with_sysfs = true) {
  std::vector<ib::sim::Hca> hcas;
  for (const auto& h : f.units.nodes[n].hcas) hcas.push_back({h.device, f.sims[h.subnet]->sockname(), ibsim_node(f, h)});
  ib::sim::Devices devices(hcas);
  ib::Backends b;
  b.umad = &devices;
  b.verbs_missing = "not used here";
  ib::ProbeOptions o;
  o.backend = "umad";
  o.sysfs_root = with_sysfs ? f.sysfs_dir->path() : "";
  NodeProbe out;
  out.report = ib::run_probe(o, b, memory);
  out.labels = ib::ib_labels(out.report);
  if (out.report.ports.empty()) {
    std::string notes;
    for (const auto& note : out.report.backend_notes) notes += note + "; ";
    ADD_FAILURE() << f.units.nodes[n].name << ": no ports: " << notes;
  }
  out.mads = devices.mads_sent();
  return out;
}

std::string port_errors(const ib::IbReport& r) {
  std::string s;
  for (const auto& p : r.ports)
    for (const auto& e : p.errors) s += p.device + ": " + e + "; ";
  return s;
}

void expect_placed(const RailFabric& f, int n, const NodeProbe& p) {
  const auto& node = f.units.nodes[n];
  EXPECT_EQ(p.labels.at("weft.dev/ib-leaf"), guid_hex(node.rail_group)) << node.name;
  EXPECT_EQ(p.labels.at("weft.dev/ib-spine"), guid_hex(node.spine)) << node.name;
  EXPECT_EQ(p.labels.at("weft.dev/ib-fabric"), guid_hex(f.units.subnets[0].fabric_id)) << node.name;
  EXPECT_EQ(p.labels.at("weft.dev/ib-rails"), std::to_string(f.units.spec.rails)) << node.name;
}

// Waits until the probe sees `device` of node n DOWN (ibsim applies an Unlink at once; the
// loop only guards against a slow console).
NodeProbe probe_until_down(const RailFabric& f, int n, const std::string& device, ib::PortMemory& memory) {
  NodeProbe p;
  for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;) {
    p = probe_node(f, n, memory);
    for (const auto& port : p.report.ports)
      if (port.device == device && port.state == "DOWN") return p;
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << device << " of node " << n << " never went DOWN";
  return p;
}

TEST(IbRailFabric, HealthyUnitsEveryNodeInItsRailGroupWithStorageApart) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_rail_fabric({.rails = 8, .nodes_per_unit = 3, .units = 2, .storage_hcas = 2, .fabric = 61});
  ASSERT_TRUE(f);
  std::set<std::string> groups;
  for (size_t n = 0; n < f->units.nodes.size(); ++n) {
    ib::PortMemory memory;
    auto p = probe_node(*f, static_cast<int>(n), memory);
    ASSERT_EQ(p.report.ports.size(), 10u);
    EXPECT_TRUE(port_errors(p.report).empty()) << port_errors(p.report);
    expect_placed(*f, static_cast<int>(n), p);
    EXPECT_EQ(p.labels.at("weft.dev/ib-rails-active"), "8");
    for (int i = 8; i < 10; ++i) {
      EXPECT_EQ(p.report.ports[i].role, "storage");
      EXPECT_EQ(p.report.ports[i].fabric, guid_hex(f->units.subnets[1].fabric_id));
    }
    groups.insert(p.labels.at("weft.dev/ib-leaf"));
    if (n == 0) std::printf("MADs for one probe of 8 compute + 2 storage HCAs: %d\n", p.mads);
  }
  EXPECT_EQ(groups.size(), 2u);   // one rail group per unit
}

TEST(IbRailFabric, DownedSmallestGuidRailLeavesTheLabelsAndAfterARestartToo) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_rail_fabric({.rails = 8, .nodes_per_unit = 2, .units = 1, .storage_hcas = 2, .fabric = 62});
  ASSERT_TRUE(f);
  const int n = 1;
  ib::PortMemory memory;
  const auto healthy = probe_node(*f, n, memory);
  expect_placed(*f, n, healthy);
  // mlx5_0 sits on the smallest rail leaf: the one that used to name the node.
  const auto& hca = f->units.nodes[n].hcas[0];
  ASSERT_EQ(f->units.subnets[0].switches[f->units.subnets[0].hosts[hca.host].leaf].guid, f->units.nodes[n].rail_group);
  f->sims[0]->console("Unlink \"" + ibsim_node(*f, hca) + "\"[1]");
  const auto down = probe_until_down(*f, n, "mlx5_0", memory);
  for (const char* key : {"weft.dev/ib-leaf", "weft.dev/ib-spine", "weft.dev/ib-fabric", "weft.dev/ib-rails", "weft.dev/rdma"})
    EXPECT_EQ(down.labels.at(key), healthy.labels.at(key)) << key;
  EXPECT_EQ(down.labels.at("weft.dev/ib-rails-active"), "7");

  // The agent restarts: it recalls its published ports and probes with nothing else known.
  ib::PortMemory recalled = ib::memory_from_ports_json(ib::ib_json(down.report)["ports"]);
  const auto restarted = probe_node(*f, n, recalled);
  EXPECT_EQ(restarted.labels, down.labels);
  EXPECT_EQ(ib::port_json(restarted.report.ports[0])["leaf"], guid_hex(f->units.nodes[n].rail_group));
}

TEST(IbRailFabric, StorageHcasOnTheComputeSubnetStayOutOfTheRailGroup) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_rail_fabric(
      {.rails = 8, .nodes_per_unit = 2, .units = 1, .storage_hcas = 2, .storage_subnet = false, .fabric = 63});
  ASSERT_TRUE(f);
  ASSERT_EQ(f->units.subnets.size(), 1u);
  ib::PortMemory memory;
  const auto p = probe_node(*f, 0, memory);
  expect_placed(*f, 0, p);
  EXPECT_EQ(p.report.ports[8].role, "storage");
  EXPECT_EQ(p.report.ports[8].fabric, p.report.ports[0].fabric);   // the same subnet ...
  EXPECT_LT(p.report.ports[8].leaf, p.labels.at("weft.dev/ib-leaf"));   // ... on a smaller leaf, not taken
  EXPECT_EQ(p.report.compute_devices.size(), 8u);
}

TEST(IbRailFabric, PlanesCountTogether) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_rail_fabric({.rails = 8, .nodes_per_unit = 2, .units = 1, .planes = 2, .storage_hcas = 2, .fabric = 64});
  ASSERT_TRUE(f);
  ASSERT_EQ(f->units.subnets.size(), 3u);
  for (bool with_sysfs : {true, false}) {   // by GPU affinity, and by subnet size alone
    ib::PortMemory memory;
    const auto p = probe_node(*f, 1, memory, with_sysfs);
    expect_placed(*f, 1, p);
    EXPECT_EQ(p.labels.at("weft.dev/ib-rails-active"), "8") << with_sysfs;
    EXPECT_NE(p.report.ports[4].fabric, p.report.ports[0].fabric);   // two subnets ...
    EXPECT_EQ(p.report.ports[4].role, "compute");                     // ... one set of rails
  }
}

}  // namespace
}  // namespace weft::testing

namespace weft::testing {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// bench/ib_probe's question for a rail-optimized node: one probe of 8 compute + 2 storage
// HCAs against ibnetdiscover from one of them, on a 4-unit fabric (256 compute HCAs).
// Printed, not asserted (timings on a shared machine); the MAD count is asserted: it does
// not grow with the fabric.
TEST(IbRailFabric, CostOfOneProbeOfTenHcasBesideIbnetdiscover) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_rail_fabric({.rails = 8, .nodes_per_unit = 8, .units = 4, .storage_hcas = 2, .fabric = 65});
  ASSERT_TRUE(f);
  const int n = 9;
  std::vector<double> probe_s, discover_s;
  int mads = 0;
  for (int rep = 0; rep < 5; ++rep) {
    ib::PortMemory memory;
    const auto start = std::chrono::steady_clock::now();
    auto p = probe_node(*f, n, memory);
    probe_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    mads = p.mads;
    expect_placed(*f, n, p);
  }
  for (int rep = 0; rep < 3; ++rep) {
    auto r = f->sims[0]->run_as(ibsim_node(*f, f->units.nodes[n].hcas[0]), {"ibnetdiscover"}, 60s);
    ASSERT_EQ(r.code, 0) << r.err;
    discover_s.push_back(r.seconds);
  }
  const double p = median(probe_s), d = median(discover_s);
  std::printf("rail node probe (8 compute + 2 storage HCAs, in-process): %.4f s, %d MADs; ibnetdiscover (one HCA, "
              "whole process): %.4f s; ratio %.1f\n", p, mads, d, d / p);
  // Per port: PortInfo, NodeInfo, NodeDescription, SMInfo, SA, 2 counters, the leaf's
  // other ports, NodeInfo per linked switch port: 7 + 2 x (leaf radix) at most.
  const int radix = f->units.subnets[0].max_switch_ports;
  EXPECT_LE(mads, 10 * (7 + 2 * radix));
}

}  // namespace
}  // namespace weft::testing
