// weft-agent probe against ibsim fat trees with real OpenSM subnet managers.
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "tests/ib/fabric_fixture.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;

const nlohmann::json& port0(const ProbeRun& r) { return r.report["ib"]["ports"][0]; }

// Every host of the tree reports its own leaf, the spine above it and one fabric id.
void expect_every_host_placed(const RunningFabric& f) {
  std::set<std::string> fabrics;
  for (const auto& h : f.tree.hosts) {
    auto r = probe_as(f, h.name);
    ASSERT_EQ(r.code, 0) << h.name << ": " << r.err;
    ASSERT_FALSE(r.report.is_null()) << h.name << ": " << r.out;
    const auto& labels = r.report["labels"];
    EXPECT_EQ(r.report["rdma"], "ib") << h.name;
    EXPECT_EQ(labels.value("weft.dev/ib-leaf", ""), fattree::guid_hex(f.tree.switches[h.leaf].guid)) << h.name;
    EXPECT_EQ(labels.value("weft.dev/ib-spine", ""), fattree::guid_hex(h.expected_spine)) << h.name;
    EXPECT_EQ(labels.value("weft.dev/ib-fabric", ""), fattree::guid_hex(f.tree.fabric_id)) << h.name;
    EXPECT_EQ(port0(r)["port_guid"], fattree::guid_hex(h.port_guid)) << h.name;
    EXPECT_EQ(port0(r)["state"], "ACTIVE") << h.name;
    EXPECT_EQ(port0(r)["neighbor"]["type"], "switch") << h.name;
    EXPECT_EQ(port0(r)["neighbor"]["description"], f.tree.switches[h.leaf].name) << h.name;
    EXPECT_EQ(port0(r)["sm"]["state"], "MASTER") << h.name;
    EXPECT_TRUE(port0(r)["errors"].empty()) << h.name << ": " << port0(r)["errors"].dump();
    fabrics.insert(labels.value("weft.dev/ib-fabric", ""));
  }
  EXPECT_EQ(fabrics.size(), 1u);
}

// A master SM on host 0 (subnet up) and a standby on host 1 that has found it (it logs
// STANDBY).
void start_master_and_standby(RunningFabric& f, size_t& master, size_t& standby) {
  master = f.sim->start_sm({.host = f.tree.hosts[0].name, .priority = 14});
  ASSERT_TRUE(f.sim->wait_sm_subnet_up(master, 30s));
  standby = f.sim->start_sm({.host = f.tree.hosts[1].name, .priority = 2});
  for (auto until = std::chrono::steady_clock::now() + 20s;
       f.sim->sm_log(standby).find("STANDBY") == std::string::npos && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(50ms);
  ASSERT_NE(f.sim->sm_log(standby).find("STANDBY"), std::string::npos) << f.sim->sm_log(standby);
}

TEST(IbFabric, TwoLevelFatTreeEveryHostHasItsLeafSpineAndFabric) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 24, .hosts_per_leaf = 4, .spines = 3, .fabric = 11});
  ASSERT_TRUE(f);
  start_master(*f);
  expect_every_host_placed(*f);
}

TEST(IbFabric, ThreeLevelFatTreeSpineNamesThePod) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 3, .hosts = 30, .hosts_per_leaf = 3, .leaves_per_pod = 2, .aggs_per_pod = 3,
                         .cores_per_agg = 2, .fabric = 12});
  ASSERT_TRUE(f);
  start_master(*f);
  expect_every_host_placed(*f);
  // Hosts in different pods name different spines; in one pod, the same.
  std::set<uint64_t> spines;
  for (const auto& h : f->tree.hosts) spines.insert(h.expected_spine);
  EXPECT_EQ(spines.size(), 5u);   // 10 leaves / 2 per pod
}

TEST(IbFabric, TwoFabricsAtOnceHaveDifferentIds) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto a = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 21});
  auto b = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 22});
  ASSERT_TRUE(a && b);
  start_master(*a);
  start_master(*b);
  auto ra = probe_as(*a, a->tree.hosts[5].name);
  auto rb = probe_as(*b, b->tree.hosts[5].name);
  ASSERT_EQ(ra.code, 0);
  ASSERT_EQ(rb.code, 0);
  const std::string fa = ra.report["ib"]["fabric"], fb = rb.report["ib"]["fabric"];
  EXPECT_EQ(fa, fattree::guid_hex(a->tree.fabric_id));
  EXPECT_EQ(fb, fattree::guid_hex(b->tree.fabric_id));
  EXPECT_NE(fa, fb);
}

TEST(IbFabric, MasterSmFailoverKeepsFabricIdAndChangesSm) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 31});
  ASSERT_TRUE(f);
  size_t master = 0, standby = 0;
  ASSERT_NO_FATAL_FAILURE(start_master_and_standby(*f, master, standby));

  const std::string host = f->tree.hosts[6].name;
  auto before = probe_as(*f, host);
  ASSERT_EQ(before.code, 0);
  EXPECT_EQ(port0(before)["sm"]["guid"], fattree::guid_hex(f->tree.hosts[0].port_guid));

  f->sim->kill_sm(master);
  ASSERT_TRUE(f->sim->wait_sm_subnet_up(standby, 60s)) << "standby never took over:\n" << f->sim->sm_log(standby);
  // Poll with a deadline until the probe sees the new master (ports learn the new SM LID).
  ProbeRun after;
  for (auto until = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < until;) {
    after = probe_as(*f, host);
    if (after.code == 0 && port0(after)["sm"].is_object() &&
        port0(after)["sm"]["guid"] == fattree::guid_hex(f->tree.hosts[1].port_guid))
      break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_EQ(after.code, 0);
  EXPECT_EQ(port0(after)["sm"]["guid"], fattree::guid_hex(f->tree.hosts[1].port_guid)) << after.out;
  EXPECT_EQ(port0(after)["sm"]["state"], "MASTER");
  EXPECT_EQ(after.report["ib"]["fabric"], before.report["ib"]["fabric"]);
  EXPECT_EQ(after.report["ib"]["fabric"], fattree::guid_hex(f->tree.fabric_id));
}

// The daemon's case: one IbProber probing again and again in one process (umad agents
// registered and unregistered each time) sees the SM fail over; the fabric id stays.
TEST(IbFabric, RepeatedProbesInOneProcessFollowSmFailover) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 32});
  ASSERT_TRUE(f);
  size_t master = 0, standby = 0;
  ASSERT_NO_FATAL_FAILURE(start_master_and_standby(*f, master, standby));

  const std::string host = f->tree.hosts[6].name;
  Process loop({.argv = {binary("tests/ib/ib_probe_loop")},
                .env = f->sim->env_for(host),
                .cwd = f->dir->path(),
                .keep_stdin_open = true,
                .merge_stderr = false});
  int n = 0;
  auto probe_once = [&]() -> nlohmann::json {
    ++n;
    loop.write_stdin("probe\n");
    auto line = loop.wait_for_line(std::regex("^probe " + std::to_string(n) + " "), 20s);
    if (!line) return nullptr;
    return nlohmann::json::parse(line->substr(line->find('{')), nullptr, false);
  };
  const std::string fabric = fattree::guid_hex(f->tree.fabric_id);
  const std::string old_sm = fattree::guid_hex(f->tree.hosts[0].port_guid);
  const std::string new_sm = fattree::guid_hex(f->tree.hosts[1].port_guid);
  long fds = -1;
  for (int i = 0; i < 12; ++i) {   // 12 x 4 agents: more than umad2sim's 32 agent slots
    auto r = probe_once();
    ASSERT_TRUE(r.is_object()) << "probe " << n << " gave no report";
    const auto& p = r["ib"]["ports"][0];
    ASSERT_TRUE(p["errors"].empty()) << "probe " << n << ": " << p["errors"].dump();
    EXPECT_EQ(p["sm"]["guid"], old_sm) << "probe " << n;
    EXPECT_EQ(r["ib"]["fabric"], fabric) << "probe " << n;
    if (fds < 0) fds = r["fds"].get<long>();
    EXPECT_EQ(r["fds"].get<long>(), fds) << "descriptors leak across probes (probe " << n << ")";
  }

  f->sim->kill_sm(master);
  ASSERT_TRUE(f->sim->wait_sm_subnet_up(standby, 60s)) << "standby never took over:\n" << f->sim->sm_log(standby);
  nlohmann::json after;
  std::set<std::string> fabrics_seen;
  for (auto until = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < until;) {
    after = probe_once();
    ASSERT_TRUE(after.is_object()) << "probe " << n << " gave no report";
    fabrics_seen.insert(after["ib"]["fabric"].get<std::string>());
    const auto& sm = after["ib"]["ports"][0]["sm"];
    if (sm.is_object() && sm["guid"] == new_sm) break;
    std::this_thread::sleep_for(200ms);
  }
  const auto& p = after["ib"]["ports"][0];
  EXPECT_EQ(p["sm"]["guid"], new_sm) << after.dump();
  EXPECT_EQ(p["sm"]["state"], "MASTER");
  EXPECT_TRUE(p["errors"].empty()) << p["errors"].dump();
  EXPECT_EQ(after["ib"]["fabric"], fabric);
  EXPECT_EQ(after["labels"]["weft.dev/ib-fabric"], fabric);
  // While the SM was away the report kept the last known id, never "unknown".
  EXPECT_EQ(fabrics_seen, std::set<std::string>{fabric});
  EXPECT_EQ(after["fds"].get<long>(), fds);
  loop.stop(500ms);
}

TEST(IbFabric, UnlinkedHostPortIsDownWithNoUplinks) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 41});
  ASSERT_TRUE(f);
  start_master(*f);
  const std::string host = f->tree.hosts[3].name;
  auto up = probe_as(*f, host);
  ASSERT_EQ(up.code, 0);
  ASSERT_EQ(port0(up)["state"], "ACTIVE");
  f->sim->console("Unlink \"" + host + "\"[1]");
  ProbeRun down;
  for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;) {
    down = probe_as(*f, host);
    if (down.code == 0 && port0(down)["state"] == "DOWN") break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(down.code, 0) << down.err;
  EXPECT_EQ(port0(down)["state"], "DOWN") << down.out;
  EXPECT_TRUE(port0(down)["uplinks"].empty());
  EXPECT_TRUE(port0(down)["neighbor"].is_null());
  EXPECT_FALSE(down.report["labels"].contains("weft.dev/ib-leaf"));
  EXPECT_FALSE(down.report["labels"].contains("weft.dev/ib-spine"));
  EXPECT_TRUE(down.report["ib"]["leaf"].is_null());
  // The rest of the fabric is unaffected.
  auto other = probe_as(*f, f->tree.hosts[4].name);
  ASSERT_EQ(other.code, 0);
  EXPECT_EQ(port0(other)["state"], "ACTIVE");
}

TEST(IbFabric, WithoutSmPortsInitSwitchesFoundFabricUnknown) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 51});
  ASSERT_TRUE(f);
  const auto& h = f->tree.hosts[2];
  auto r = probe_as(*f, h.name);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(port0(r)["state"], "INIT") << r.out;
  EXPECT_EQ(port0(r)["neighbor"]["node_guid"], fattree::guid_hex(f->tree.switches[h.leaf].guid));
  EXPECT_EQ(r.report["ib"]["fabric"], "unknown");
  EXPECT_NE(r.report["ib"].value("fabric_reason", "").find("no subnet manager"), std::string::npos) << r.out;
  EXPECT_TRUE(port0(r)["sm"].is_null());
  // Uplinks are found by directed route; leaf/spine labels need an ACTIVE port.
  EXPECT_EQ(port0(r)["uplinks"].size(), 2u) << r.out;
  EXPECT_FALSE(r.report["labels"].contains("weft.dev/ib-fabric"));
}

TEST(IbFabric, ErrorOnNodeInfoGivesPortErrorsInBoundedTime) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 61});
  ASSERT_TRUE(f);
  start_master(*f);
  const auto& h = f->tree.hosts[5];
  // Drop every NodeInfo (attribute 17) through the leaf's port facing the host.
  f->sim->console("Error \"" + f->tree.switches[h.leaf].name + "\"[" + std::to_string(5 % 4 + 1) + "] 100 17");
  f->sim->console("Error \"" + h.name + "\"[1] 100 17");
  auto r = probe_as(*f, h.name, {"--mad-timeout-ms", "100", "--mad-retries", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  const auto& errors = port0(r)["errors"];
  ASSERT_FALSE(errors.empty()) << r.out;
  EXPECT_NE(errors.dump().find("NodeInfo"), std::string::npos) << errors.dump();
  EXPECT_TRUE(port0(r)["neighbor"].is_null());
  // The rest of the port's report stands.
  EXPECT_EQ(port0(r)["state"], "ACTIVE");
  EXPECT_EQ(port0(r)["port_guid"], fattree::guid_hex(h.port_guid));
  EXPECT_EQ(r.report["ib"]["fabric"], fattree::guid_hex(f->tree.fabric_id));
}

TEST(IbFabric, CountersMoveAfterPerformanceSet) {
  WEFT_SKIP_UNLESS(need_ibsim());
  auto f = start_fabric({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 71});
  ASSERT_TRUE(f);
  start_master(*f);
  const std::string host = f->tree.hosts[7].name;
  auto before = probe_as(*f, host);
  ASSERT_EQ(before.code, 0);
  const auto& c0 = port0(before)["counters"];
  ASSERT_TRUE(c0.contains("symbol_errors")) << before.out;
  f->sim->console("PerformanceSet \"" + host + "\"[1] PortCounters.SymbolErrorCounter=7");
  f->sim->console("PerformanceSet \"" + host + "\"[1] PortCounters.LinkDownedCounter=3");
  ProbeRun after;
  for (auto until = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < until;) {
    after = probe_as(*f, host);
    if (after.code == 0 && port0(after)["counters"].value("symbol_errors", 0) == 7) break;
    std::this_thread::sleep_for(100ms);
  }
  const auto& c1 = port0(after)["counters"];
  EXPECT_EQ(c1.value("symbol_errors", 0), 7) << after.out;
  EXPECT_EQ(c1.value("link_downed", 0), 3);
  // Our own probe traffic moves the packet counters too.
  EXPECT_GT(c1.value("xmit_packets", 0), c0.value("xmit_packets", 0));
}

}  // namespace
}  // namespace weft::testing
