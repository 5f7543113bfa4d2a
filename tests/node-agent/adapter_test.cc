// The collectors' reports mapped into the daemon's snapshots.
#include <gtest/gtest.h>

#include "node-agent/daemon/ib_adapter.h"
#include "node-agent/daemon/load_adapter.h"
#include "node-agent/daemon/node_metadata.h"
#include "collectors/ib/prober.h"
#include "tests/ib/fake_fabric.h"

namespace weft::agent {
namespace {

weft::ib::PortReport ib_port(const std::string& device, const std::string& state, double rate) {
  weft::ib::PortReport p;
  p.device = device;
  p.port = 1;
  p.backend = "umad";
  p.state = state;
  p.phys_state = state == "ACTIVE" ? "LINKUP" : "POLLING";
  p.link_layer = "InfiniBand";
  p.lid = 7;
  p.port_guid = "0x0002c90300000001";
  p.node_guid = "0x0002c90300000000";
  p.rate_gbps = rate;
  p.width = "4x";
  p.speed = "EDR";
  p.sm = weft::ib::SmReport{1, "0x0002c90300000f00", 15, "MASTER"};
  p.counters = {{"xmit_data_bytes", 123456}, {"symbol_errors", 2}};
  p.errors = {"PerfMgt PortCounters: timeout"};
  return p;
}

weft::ib::IbReport report() {
  weft::ib::IbReport r;
  r.rdma = "ib";
  r.fabric = "0x0002c90300000a00";
  r.leaf = "0x0002c90300000a01";
  r.spine = "0x0002c90300000b01";
  r.compute_devices = {"mlx5_0", "mlx5_1"};
  r.ports = {ib_port("mlx5_0", "ACTIVE", 100), ib_port("mlx5_1", "DOWN", 0)};
  return r;
}

TEST(IbAdapter, ReportBecomesSnapshotWithCollectorLabels) {
  auto s = snapshot_from_report(report());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->labels.at("weft.dev/ib-leaf"), "0x0002c90300000a01");
  EXPECT_EQ(s->labels.at("weft.dev/ib-rate-gbps"), "100");   // the DOWN port adds nothing
  ASSERT_EQ(s->ports.size(), 2u);
  EXPECT_TRUE(s->ports[0].active());
  EXPECT_FALSE(s->ports[1].active());
  EXPECT_EQ(s->ports[0].counters.at("xmit_data_bytes"), 123456u);
  ASSERT_TRUE(s->sm.has_value());
  EXPECT_EQ(s->sm->guid, "0x0002c90300000f00");
  EXPECT_EQ(s->json["leaf"], "0x0002c90300000a01");
}

TEST(IbAdapter, AnnotationLeavesOutWhatMovesEveryProbe) {
  auto a = snapshot_from_report(report());
  auto r = report();
  r.ports[0].counters["xmit_data_bytes"] = 999999999;
  r.ports[0].errors.clear();
  r.probe_seconds = 3;
  auto b = snapshot_from_report(r);
  ASSERT_TRUE(a.ok() && b.ok());
  const auto& port = a->ports[0].json;
  EXPECT_FALSE(port.contains("counters"));
  EXPECT_FALSE(port.contains("errors"));
  for (const char* key : {"device", "port", "state", "phys_state", "link_layer", "lid", "port_guid", "node_guid",
                          "rate_gbps", "width", "speed", "subnet_prefix", "sm", "neighbor", "uplinks"})
    EXPECT_TRUE(port.contains(key)) << key;
  EXPECT_EQ(desired_ib_metadata(*a).annotations, desired_ib_metadata(*b).annotations);
}

TEST(IbAdapter, EveryPortFailingIsAnErrorButADownPortIsNot) {
  auto r = report();
  for (auto& p : r.ports) p.state.clear();
  auto s = snapshot_from_report(r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("mlx5_0/1: PerfMgt PortCounters: timeout"), std::string::npos) << s.message();
  auto down = report();
  down.ports[0].state = "DOWN";
  EXPECT_TRUE(snapshot_from_report(down).ok());
  weft::ib::IbReport none;   // no HCA: rdma none, not an error
  auto n = snapshot_from_report(none);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->labels.at("weft.dev/rdma"), "none");
}

// Two rails; the node's Node after the agent published `r` on a Node without weft.dev/ keys.
nlohmann::json published(const weft::ib::IbReport& r) {
  auto s = snapshot_from_report(r);
  EXPECT_TRUE(s.ok());
  const auto m = desired_ib_metadata(*s);
  PatchInputs in;
  in.ib = &m;
  nlohmann::json node = {{"metadata", {{"name", "n1"}}}};
  node.merge_patch(merge_patch_for(node, in));
  return node;
}

nlohmann::json patch_after(const nlohmann::json& node, const weft::ib::IbReport& r) {
  auto s = snapshot_from_report(r);
  EXPECT_TRUE(s.ok());
  const auto m = desired_ib_metadata(*s);
  PatchInputs in;
  in.ib = &m;
  return merge_patch_for(node, in);
}

TEST(IbAdapter, RestartWithARailDownRecallsItsPlacesAndPatchesNothing) {
  weft::ib::fake::Subnet subnet{.switch_guids = {0x100, 0x500, 0x501}};
  weft::ib::fake::HostPort a{.device = "mlx5_0", .subnet = &subnet, .lid = 10, .port_guid = 0x901, .leaf_guid = 0x500};
  weft::ib::fake::HostPort b{.device = "mlx5_1", .subnet = &subnet, .lid = 11, .port_guid = 0x902, .leaf_guid = 0x501};
  a.spines = b.spines = {0x100};
  weft::ib::ProbeOptions o;
  o.backend = "umad";
  o.sysfs_root = "";
  o.mad_timeout = std::chrono::milliseconds(20);
  auto probe = [&](weft::ib::PortMemory& memory) {
    weft::ib::fake::Devices devices({&a, &b});
    weft::ib::Backends backends;
    backends.umad = &devices;
    return weft::ib::run_probe(o, backends, memory);
  };
  weft::ib::PortMemory memory;
  const auto healthy = published(probe(memory));
  a.state = 1;   // the rail on the smaller leaf goes down, then the agent restarts
  const auto before_restart = patch_after(healthy, probe(memory));
  ASSERT_FALSE(before_restart.is_null());
  // Only the counts move: the rail group, spine and fabric stay.
  EXPECT_EQ(before_restart["metadata"]["labels"],
            (nlohmann::json{{"weft.dev/ib-rails-active", "1"}, {"weft.dev/ib-rate-gbps", "40"}}));
  nlohmann::json node = healthy;
  node.merge_patch(before_restart);

  const std::string annotation = node["metadata"]["annotations"]["weft.dev/ib-ports"];
  weft::ib::PortMemory recalled = weft::ib::memory_from_ports_json(nlohmann::json::parse(annotation));
  for (int round = 0; round < 3; ++round)   // the first probe after the restart, and the ones after it
    EXPECT_TRUE(patch_after(node, probe(recalled)).is_null()) << patch_after(node, probe(recalled)).dump();
  EXPECT_EQ(node["metadata"]["labels"]["weft.dev/ib-leaf"], weft::ib::guid_string(0x500));
}

TEST(LoadAdapter, SummaryBecomesSnapshot) {
  weft::load::LoadSummary s;
  s.source = "ebpf";
  s.source_reason = "auto: ebpf loaded";
  s.window.window_s = 60;
  s.window.cpu = 0.4;
  s.window.cpus = {0.3, 0.5};
  s.window.memory = 0.6;
  s.window.runq_p99_s = 0.002;
  s.memory_avg = 0.55;
  s.runq_buckets_total.assign(40, 0);
  s.runq_buckets_total[5] = 4;    // ~32-64 ns: folds into the first exported bucket
  s.runq_buckets_total[12] = 3;   // ~4-8 us
  s.runq_buckets_total[38] = 1;   // beyond the last exported bucket: only in +Inf
  s.runq_sum_seconds_total = 1.25;
  s.reclaim_stall_seconds_total = 0.5;
  auto l = snapshot_from_summary(s);
  EXPECT_EQ(l.source, "ebpf");
  EXPECT_DOUBLE_EQ(l.cpu, 0.4);
  EXPECT_DOUBLE_EQ(l.memory, 0.55);
  EXPECT_EQ(l.json["memory"], 0.55);
  EXPECT_EQ(l.json["source"], "ebpf");
  EXPECT_DOUBLE_EQ(l.reclaim_stall_seconds_total, 0.5);
  ASSERT_TRUE(l.runq_histogram.has_value());
  const auto& h = *l.runq_histogram;
  EXPECT_EQ(h.count, 8u);
  EXPECT_DOUBLE_EQ(h.sum_seconds, 1.25);
  ASSERT_EQ(h.upper_bounds.size(), 26u);
  EXPECT_EQ(h.cumulative_counts.front(), 4u);
  EXPECT_EQ(h.cumulative_counts.back(), 7u);
  for (size_t i = 1; i < h.upper_bounds.size(); ++i) EXPECT_GT(h.upper_bounds[i], h.upper_bounds[i - 1]);
}

TEST(LoadAdapter, ProcfsHasNoHistogram) {
  weft::load::LoadSummary s;
  s.source = "procfs";
  s.window.window_s = 5;
  auto l = snapshot_from_summary(s);
  EXPECT_FALSE(l.runq_histogram.has_value());
  EXPECT_EQ(l.json["source"], "procfs");
}

// A simulated node (--load-cgroup) owning 0.04 real cores and advertising 16: its pods'
// usage is reported in the Node's cores, the unit their requests are in.
TEST(LoadAdapter, CgroupNodePodsAreScaledToTheNodesCores) {
  class OnePod : public weft::load::LoadMonitor {
   public:
    std::optional<weft::load::LoadSummary> summary() const override {
      weft::load::LoadSummary s;
      weft::load::PodUsage p;
      p.cgroup.runtime_name = "team-a-worker-0";
      p.cpu_cores = 0.015;
      p.memory_bytes = 1e9;
      s.pods.push_back(p);
      return s;
    }
    std::string last_error() const override { return ""; }
  };
  class Node : public LoadSource {
   public:
    Result<LoadSnapshot> sample() override {
      LoadSnapshot l;
      l.cpu = 0.4;
      return l;
    }
  };
  NodeLoadWithPods source(std::make_unique<Node>(), std::make_unique<OnePod>(), 16 / 0.04);
  auto l = source.sample();
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_DOUBLE_EQ(l->cpu, 0.4);
  ASSERT_EQ(l->pods.size(), 1u);
  EXPECT_NEAR(l->pods[0].cpu_cores, 6.0, 1e-9);
  EXPECT_DOUBLE_EQ(*l->pods[0].memory_bytes, 1e9);   // bytes are bytes on any node
}

}  // namespace
}  // namespace weft::agent
