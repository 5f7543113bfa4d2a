// Many HCAs per node over the fake fabric: PCIe distances from a fake sysfs tree, compute
// and storage roles, the rail group that a downed rail does not move (also after a restart
// that recalls the last published places), planes counted together.
#include <gtest/gtest.h>

#include "collectors/ib/pcie.h"
#include "collectors/ib/prober.h"
#include "tests/ib/fake_fabric.h"
#include "tests/ib/fake_sysfs.h"
#include "tests/support/process.h"

namespace weft::ib {
namespace {

using namespace std::chrono_literals;

ProbeOptions rail_options(const std::string& sysfs_root) {
  ProbeOptions o;
  o.backend = "umad";
  o.mad_timeout = 20ms;
  o.mad_retries = 1;
  o.deadline = 5s;
  o.counters = false;
  o.sysfs_root = sysfs_root;
  return o;
}

IbReport probe(std::vector<fake::HostPort*> ports, PortMemory& memory, const ProbeOptions& o) {
  fake::Devices devices(std::move(ports));
  Backends b;
  b.umad = &devices;
  b.verbs_missing = "not used in this test";
  return run_probe(o, b, memory);
}

// A node of a rail-optimized unit: compute HCA i on rail leaf `rail_leaf(i)` (the leaf GUIDs
// rise with the rail), storage HCAs on leaves with smaller GUIDs than any rail leaf.
struct RailNode {
  fake::Subnet compute{.switch_guids = {0x100, 0x101}};   // the spines; leaves added below
  std::vector<fake::HostPort> ports;
  RailNode(int rails, int storage, fake::Subnet* storage_subnet = nullptr) {
    for (int i = 0; i < storage; ++i) compute.switch_guids.push_back(0x300 + i);
    for (int i = 0; i < rails; ++i) compute.switch_guids.push_back(0x500 + i);
    ports.reserve(rails + storage);
    for (int i = 0; i < rails + storage; ++i) {
      fake::HostPort p;
      p.device = "mlx5_" + std::to_string(i);
      p.subnet = i < rails ? &compute : (storage_subnet ? storage_subnet : &compute);
      p.lid = static_cast<uint16_t>(10 + i);
      p.port_guid = 0x9000 + i;
      p.leaf_guid = i < rails ? 0x500 + i : 0x300 + (i - rails);
      p.spines = {0x101, 0x100};
      ports.push_back(p);
    }
  }
  std::vector<fake::HostPort*> all() {
    std::vector<fake::HostPort*> out;
    for (auto& p : ports) out.push_back(&p);
    return out;
  }
};

TEST(IbPcie, DistancesAsNcclClassesThem) {
  weft::testing::TempDir dir("weft-sysfs");
  fake::Sysfs sysfs(dir.path());
  fake::dgx_like(sysfs, 8, 2);
  // A second switch level: an HCA one switch further down from GPU 0000:13:00.0.
  sysfs.hca("mlx5_deep", "pci0000:10", {"0000:10:01.0", "0000:11:00.0", "0000:12:03.0", "0000:17:00.0", "0000:18:00.0"},
            "0000:19:00.0", 0);
  SysfsPci pci(dir.path());
  const auto gpus = pci.gpus();
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[0].address, "0000:13:00.0");
  auto hca0 = pci.ib_device("mlx5_0");
  ASSERT_TRUE(hca0.ok()) << hca0.message();
  EXPECT_EQ(hca0->address, "0000:15:00.0");
  EXPECT_EQ(distance_name(pcie_distance(*hca0, gpus[0])), std::string("PIX"));   // same switch
  EXPECT_EQ(distance_name(pcie_distance(*hca0, gpus[2])), std::string("PHB"));   // next switch, same NUMA node
  EXPECT_EQ(distance_name(pcie_distance(*hca0, gpus[4])), std::string("SYS"));   // the other socket
  auto deep = pci.ib_device("mlx5_deep");
  ASSERT_TRUE(deep.ok()) << deep.message();
  EXPECT_EQ(distance_name(pcie_distance(*deep, gpus[0])), std::string("PXB"));
  auto storage = pci.ib_device("mlx5_8");
  ASSERT_TRUE(storage.ok());
  for (const auto& g : gpus) EXPECT_FALSE(shares_switch(pcie_distance(*storage, g))) << g.address;
  EXPECT_FALSE(pci.ib_device("mlx5_99").ok());
}

TEST(IbRails, StorageHcasOnTheComputeSubnetNeverBecomeTheRailGroup) {
  weft::testing::TempDir dir("weft-sysfs");
  fake::Sysfs sysfs(dir.path());
  fake::dgx_like(sysfs, 8, 2);
  RailNode node(8, 2);
  PortMemory memory;
  auto r = probe(node.all(), memory, rail_options(dir.path()));
  ASSERT_EQ(r.ports.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(r.ports[i].role, i < 8 ? "compute" : "storage") << r.ports[i].device;
  EXPECT_EQ(r.ports[0].gpus.at("0000:13:00.0"), "PIX");
  EXPECT_EQ(r.ports[0].pci, "0000:15:00.0");
  EXPECT_EQ(r.leaf, guid_string(0x500));          // not the storage leaf 0x300
  EXPECT_EQ(r.spine, guid_string(0x100));
  EXPECT_EQ(r.rails, 8);
  EXPECT_EQ(r.rails_active, 8);
  EXPECT_EQ(r.compute_devices.size(), 8u);
  auto labels = ib_labels(r);
  EXPECT_EQ(labels.at("weft.dev/ib-leaf"), guid_string(0x500));
  EXPECT_EQ(labels.at("weft.dev/ib-rails"), "8");
  EXPECT_EQ(labels.at("weft.dev/ib-rails-active"), "8");
  EXPECT_EQ(ib_json(r)["ports"][8]["role"], "storage");

  // --compute-devices overrides: only those two are compute.
  auto o = rail_options(dir.path());
  o.compute_devices = {"mlx5_3", "mlx5_4"};
  PortMemory fresh;
  auto flagged = probe(node.all(), fresh, o);
  EXPECT_EQ(flagged.leaf, guid_string(0x503));
  EXPECT_EQ(flagged.rails, 2);
}

TEST(IbRails, DownedSmallestRailKeepsTheRailGroupAndCountsOneRailLess) {
  weft::testing::TempDir dir("weft-sysfs");
  fake::Sysfs sysfs(dir.path());
  fake::dgx_like(sysfs, 8, 2);
  RailNode node(8, 2);
  PortMemory memory;
  const auto o = rail_options(dir.path());
  const auto healthy = ib_labels(probe(node.all(), memory, o));
  node.ports[0].state = 1;   // the rail on the smallest leaf goes down
  auto r = probe(node.all(), memory, o);
  EXPECT_EQ(r.ports[0].state, "DOWN");
  EXPECT_EQ(r.ports[0].leaf, guid_string(0x500));
  EXPECT_NE(r.ports[0].leaf_reason.find("last known"), std::string::npos) << r.ports[0].leaf_reason;
  auto labels = ib_labels(r);
  for (const char* key : {"weft.dev/ib-leaf", "weft.dev/ib-spine", "weft.dev/ib-fabric", "weft.dev/ib-rails", "weft.dev/rdma"})
    EXPECT_EQ(labels.at(key), healthy.at(key)) << key;
  EXPECT_EQ(labels.at("weft.dev/ib-rails-active"), "7");

  // A restarted agent (nothing in memory) that recalls its last published ports: the same.
  PortMemory recalled = memory_from_ports_json(ib_json(r)["ports"]);
  auto again = probe(node.all(), recalled, o);
  EXPECT_EQ(ib_labels(again), labels);
  EXPECT_EQ(ib_json(again)["ports"][0]["leaf"], guid_string(0x500));
  // Without the recall, the down port's leaf is unknown and the group moves: what the
  // annotation is for.
  PortMemory none;
  EXPECT_EQ(probe(node.all(), none, o).leaf, guid_string(0x501));
}

TEST(IbRails, PlanesOnSeveralSubnetsCountTogether) {
  // 8 rails in 2 planes of 4 (each plane its own subnet), 2 storage HCAs on a third subnet;
  // no GPU information: the subnets with the most ports are compute.
  fake::Subnet storage{.switch_guids = {0x10, 0x11}};
  RailNode node(8, 2, &storage);
  fake::Subnet plane_b{.switch_guids = {0x200, 0x201}, .gid_prefix = 0xfe80000000000002ULL};
  for (int i = 4; i < 8; ++i) {
    plane_b.switch_guids.push_back(0x500 + i);
    node.ports[i].subnet = &plane_b;
    node.ports[i].spines = {0x201, 0x200};
  }
  PortMemory memory;
  const auto o = rail_options("");
  auto r = probe(node.all(), memory, o);
  EXPECT_EQ(r.rails, 8);
  EXPECT_EQ(r.compute_devices.size(), 8u);
  EXPECT_EQ(r.ports[8].role, "storage");
  EXPECT_EQ(r.fabric, guid_string(0x100));   // the smaller plane id
  EXPECT_EQ(r.leaf, guid_string(0x500));
  const auto healthy = ib_labels(r);
  EXPECT_EQ(healthy.at("weft.dev/ib-rails"), "8");
  // A whole plane's smallest rail down: nothing moves.
  node.ports[0].state = 1;
  auto down = ib_labels(probe(node.all(), memory, o));
  EXPECT_EQ(down.at("weft.dev/ib-leaf"), healthy.at("weft.dev/ib-leaf"));
  EXPECT_EQ(down.at("weft.dev/ib-fabric"), healthy.at("weft.dev/ib-fabric"));
  EXPECT_EQ(down.at("weft.dev/ib-rails-active"), "7");
}

// Every compute rail down: the node is off the fabric. Its leaf and spine are withdrawn (a
// leaf would draw IB gangs onto it) and come back, unchanged, with the first rail up.
TEST(IbRails, EveryRailDownWithdrawsTheLeafUntilOneComesBack) {
  RailNode node(8, 0);
  PortMemory memory;
  const auto o = rail_options("");
  const auto healthy = ib_labels(probe(node.all(), memory, o));
  for (auto& p : node.ports) p.state = 1;
  auto dark = probe(node.all(), memory, o);
  const auto labels = ib_labels(dark);
  EXPECT_EQ(labels.count("weft.dev/ib-leaf"), 0u);
  EXPECT_EQ(labels.count("weft.dev/ib-spine"), 0u);
  EXPECT_EQ(labels.at("weft.dev/ib-rails-active"), "0");
  EXPECT_NE(dark.leaf_reason.find("no compute port is ACTIVE"), std::string::npos) << dark.leaf_reason;
  node.ports[5].state = 4;
  const auto back = ib_labels(probe(node.all(), memory, o));
  EXPECT_EQ(back.at("weft.dev/ib-leaf"), healthy.at("weft.dev/ib-leaf"));
  EXPECT_EQ(back.at("weft.dev/ib-rails-active"), "1");
}

// Ports of a node on one leaf (two storage HCAs on the unit's storage leaf) walk it once
// between them and both report the switches above it.
TEST(IbRails, PortsOnOneLeafShareItsWalk) {
  fake::Subnet storage{.switch_guids = {0x10, 0x11}};
  RailNode node(1, 2, &storage);
  node.ports[2].leaf_guid = node.ports[1].leaf_guid;
  node.ports[2].leaf_port = 2;
  fake::Devices devices(node.all());
  Backends b;
  b.umad = &devices;
  b.verbs_missing = "not used in this test";
  PortMemory memory;
  const auto r = run_probe(rail_options(""), b, memory);
  ASSERT_EQ(r.ports.size(), 3u);
  const std::vector<std::string> spines = {guid_string(0x100), guid_string(0x101)};
  for (const auto& p : r.ports) {
    EXPECT_TRUE(p.errors.empty()) << p.device;
    EXPECT_EQ(p.uplinks, spines) << p.device;
    EXPECT_EQ(p.spine, guid_string(0x100)) << p.device;
  }
  EXPECT_EQ(r.ports[1].leaf, r.ports[2].leaf);
  // Per port PortInfo, NodeInfo, NodeDescription, SMInfo, SA; per leaf (two here) its 7
  // other ports' PortInfo and NodeInfo through the 2 linked to spines.
  EXPECT_EQ(devices.counters.total, 3 * 5 + 2 * (7 + 2));
}

// The ports of a node are probed side by side: with every reply 40 ms late, ten HCAs take
// about as long as one (one after the other they took ten times as long), and say the same.
TEST(IbRails, TenHcasAreProbedSideBySide) {
  fake::Subnet storage{.switch_guids = {0x10, 0x11}};
  RailNode node(8, 2, &storage);
  ProbeOptions o = rail_options("");
  o.mad_timeout = 1000ms;
  auto late = [](const MadRequest&, int) { return fake::Fate{.delay = 40ms}; };
  auto timed = [&](std::vector<fake::HostPort*> ports, IbReport& report) {
    fake::Devices devices(std::move(ports), late);
    Backends b;
    b.umad = &devices;
    b.verbs_missing = "not used in this test";
    PortMemory memory;
    const auto start = Clock::now();
    report = run_probe(o, b, memory);
    return Clock::now() - start;
  };
  IbReport one, all;
  const auto one_took = timed({&node.ports[0]}, one);
  const auto all_took = timed(node.all(), all);
  ASSERT_EQ(all.ports.size(), 10u);
  for (const auto& p : all.ports) EXPECT_TRUE(p.errors.empty()) << p.device << ": " << p.errors.front();
  EXPECT_EQ(ib_labels(all).at("weft.dev/ib-leaf"), "0x0000000000000500");
  EXPECT_EQ(ib_labels(all).at("weft.dev/ib-rails-active"), "8");
  EXPECT_EQ(all.ports[9].role, "storage");
  EXPECT_EQ(all.ports[3].leaf, "0x0000000000000503");
  EXPECT_LT(all_took, 3 * one_took) << "one port " << std::chrono::duration<double>(one_took).count() << " s, ten "
                                    << std::chrono::duration<double>(all_took).count() << " s";
}

}  // namespace
}  // namespace weft::ib
