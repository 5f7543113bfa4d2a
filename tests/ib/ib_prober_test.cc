// The prober over a fake fabric (tests/ib/fake_fabric.h): what it reports, the fabric id
// it keeps while no SM answers, two subnets on one node, bounded retries and deadlines,
// and short or malformed replies that cost one port field, not the report.
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "collectors/ib/attributes.h"
#include "collectors/ib/prober.h"
#include "tests/ib/fake_fabric.h"

namespace weft::ib {
namespace {

using namespace std::chrono_literals;

struct World {
  fake::Subnet subnet{.switch_guids = {0x3001, 0x2000, 0x3000, 0x2001}};
  fake::HostPort host;
  World() {
    host.subnet = &subnet;
    host.spines = {0x3001, 0x3000};
  }
};

ProbeOptions fast_options() {
  ProbeOptions o;
  o.backend = "umad";
  o.mad_timeout = 20ms;
  o.mad_retries = 1;
  o.deadline = 2s;
  return o;
}

IbReport probe(fake::Devices& devices, PortMemory& last, ProbeOptions o = fast_options()) {
  Backends b;
  b.umad = &devices;
  b.verbs_missing = "not used in this test";
  return run_probe(o, b, last);
}

bool has(const std::vector<std::string>& errors, const std::string& part) {
  for (const auto& e : errors)
    if (e.find(part) != std::string::npos) return true;
  return false;
}

std::string all(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += e + "; ";
  return s;
}

TEST(IbProber, ReportsLeafSpineSmFabricAndCountersWithFewMads) {
  World w;
  fake::Devices devices({&w.host});
  PortMemory last;
  auto r = probe(devices, last);
  ASSERT_EQ(r.ports.size(), 1u);
  const auto& p = r.ports[0];
  EXPECT_TRUE(p.errors.empty()) << all(p.errors);
  EXPECT_EQ(p.state, "ACTIVE");
  ASSERT_TRUE(p.neighbor);
  EXPECT_EQ(p.neighbor->node_guid, guid_string(0x2000));
  EXPECT_EQ(p.neighbor->description, "leaf-2000");
  EXPECT_EQ(p.uplinks, (std::vector<std::string>{guid_string(0x3000), guid_string(0x3001)}));
  ASSERT_TRUE(p.sm);
  EXPECT_EQ(p.sm->guid, guid_string(0x5000));
  EXPECT_EQ(p.sm->state, "MASTER");
  EXPECT_EQ(p.counters.at("symbol_errors"), 2u);
  EXPECT_EQ(p.counters.at("xmit_data_bytes"), 20000u);   // the 64-bit counter wins, in bytes
  EXPECT_EQ(r.fabric, guid_string(0x2000));               // smallest switch GUID
  EXPECT_EQ(r.leaf, guid_string(0x2000));
  EXPECT_EQ(r.spine, guid_string(0x3000));
  EXPECT_EQ(ib_labels(r).at("weft.dev/ib-fabric"), guid_string(0x2000));
  // PortInfo, NodeInfo, NodeDescription, SMInfo, SA, 2 counters, 7 leaf ports, 2 uplinks.
  EXPECT_EQ(devices.counters.total, 16);
  EXPECT_EQ(devices.counters.sends["SA"], 1);

  // A fabric a hundred times bigger costs no more MADs (one SA table, no sweep).
  for (uint64_t g = 0x9000; g < 0x9000 + 400; ++g) w.subnet.switch_guids.push_back(g);
  fake::Devices bigger({&w.host});
  auto r2 = probe(bigger, last);
  EXPECT_EQ(bigger.counters.total, 16);
  EXPECT_EQ(r2.fabric, guid_string(0x2000));
}

TEST(IbProber, KeepsLastKnownFabricIdWhileNoSmAnswersAndSaysSo) {
  World w;
  PortMemory last;
  {
    fake::Devices devices({&w.host});
    ASSERT_EQ(probe(devices, last).fabric, guid_string(0x2000));
  }
  w.subnet.sm_answers = w.subnet.sa_answers = false;   // the master SM died, no standby yet
  fake::Devices devices({&w.host});
  auto r = probe(devices, last);
  EXPECT_EQ(r.fabric, guid_string(0x2000));
  EXPECT_NE(r.fabric_reason.find("last known"), std::string::npos) << r.fabric_reason;
  EXPECT_NE(r.ports[0].fabric_reason.find("SA did not answer"), std::string::npos) << r.ports[0].fabric_reason;
  EXPECT_EQ(ib_json(r)["fabric"], guid_string(0x2000));
  EXPECT_EQ(ib_json(r)["fabric_reason"], r.fabric_reason);
  EXPECT_EQ(ib_labels(r).at("weft.dev/ib-fabric"), guid_string(0x2000));
  EXPECT_FALSE(r.ports[0].sm);
  EXPECT_EQ(r.leaf, guid_string(0x2000));   // directed routes need no SM

  // A prober that never learnt the id says "unknown" with the reason.
  PortMemory fresh;
  fake::Devices again({&w.host});
  auto u = probe(again, fresh);
  EXPECT_TRUE(u.fabric.empty());
  EXPECT_EQ(ib_json(u)["fabric"], "unknown");
  EXPECT_NE(u.fabric_reason.find("SA did not answer"), std::string::npos) << u.fabric_reason;
  EXPECT_EQ(ib_labels(u).count("weft.dev/ib-fabric"), 0u);

  // The SM comes back (a standby took over): the id is learnt afresh and equal.
  w.subnet.sm_answers = w.subnet.sa_answers = true;
  w.subnet.sm_guid = 0x5001;
  fake::Devices back({&w.host});
  auto b = probe(back, last);
  EXPECT_EQ(b.fabric, guid_string(0x2000));
  EXPECT_EQ(b.fabric_reason.find("last known"), std::string::npos) << b.fabric_reason;
  ASSERT_TRUE(b.ports[0].sm);
  EXPECT_EQ(b.ports[0].sm->guid, guid_string(0x5001));
}

TEST(IbProber, TwoSubnetsBothInPortsLabelsFollowTheComputeFabric) {
  fake::Subnet storage{.switch_guids = {0x2000, 0x3000}};
  fake::Subnet compute{.switch_guids = {0x7100, 0x7000, 0x8000}, .gid_prefix = 0xfe80000000000001ULL};
  fake::HostPort a{.device = "mlx5_0", .port = 1, .subnet = &storage, .lid = 5, .port_guid = 0x101, .leaf_guid = 0x2000};
  fake::HostPort b1{.device = "mlx5_1", .port = 1, .subnet = &compute, .lid = 7, .port_guid = 0x201, .leaf_guid = 0x7100};
  fake::HostPort b2{.device = "mlx5_1", .port = 2, .subnet = &compute, .lid = 8, .port_guid = 0x202, .leaf_guid = 0x7000};
  a.spines = {0x3000};
  b1.spines = b2.spines = {0x8000};
  PortMemory last;

  fake::Devices devices({&a, &b1, &b2});
  auto r = probe(devices, last);
  ASSERT_EQ(r.ports.size(), 3u);
  EXPECT_EQ(r.ports[0].fabric, guid_string(0x2000));
  EXPECT_EQ(r.ports[1].fabric, guid_string(0x7000));
  EXPECT_EQ(r.ports[2].fabric, guid_string(0x7000));
  // Most active ports: the compute subnet.
  EXPECT_EQ(r.compute_devices, std::vector<std::string>{"mlx5_1"});
  EXPECT_EQ(r.fabric, guid_string(0x7000));
  EXPECT_EQ(r.leaf, guid_string(0x7000));
  EXPECT_EQ(r.spine, guid_string(0x8000));
  auto labels = ib_labels(r);
  EXPECT_EQ(labels.at("weft.dev/ib-fabric"), guid_string(0x7000));
  EXPECT_EQ(labels.at("weft.dev/ib-rate-gbps"), "80");   // the two 4x QDR compute ports
  EXPECT_EQ(ib_json(r)["ports"].size(), 3u);

  // --compute-devices picks the other subnet.
  auto o = fast_options();
  o.compute_devices = {"mlx5_0"};
  fake::Devices again({&a, &b1, &b2});
  auto s = probe(again, last, o);
  EXPECT_EQ(s.ports.size(), 3u);
  EXPECT_EQ(s.fabric, guid_string(0x2000));
  EXPECT_EQ(s.leaf, guid_string(0x2000));
  EXPECT_EQ(s.spine, guid_string(0x3000));
  EXPECT_EQ(ib_labels(s).at("weft.dev/ib-fabric"), guid_string(0x2000));
}

// auto loads libibverbs only for what umad cannot see: a RoCE port, or a device umad
// did not list; --ib-backend verbs always asks it, and so does auto when it cannot tell.
TEST(IbProber, AutoAsksVerbsOnlyForWhatUmadCannotSee) {
  World w;
  using Names = std::vector<std::string>;
  auto verbs_asked = [&](const fake::HostPort& host, std::optional<Names> verbs_devices, const std::string& backend) {
    fake::HostPort h = host;
    fake::Devices devices({&h});
    bool asked = false;
    Backends b;
    b.umad = &devices;
    b.verbs = [&]() -> Result<std::vector<PortReport>> {
      asked = true;
      return std::vector<PortReport>{};
    };
    if (verbs_devices) b.verbs_devices = [names = *verbs_devices] { return names; };
    auto o = fast_options();
    o.backend = backend;
    PortMemory last;
    auto r = run_probe(o, b, last);
    EXPECT_EQ(r.ports.size(), backend != "verbs" && h.link_layer == "InfiniBand" ? 1u : 0u);
    return asked;
  };
  EXPECT_FALSE(verbs_asked(w.host, Names{"mlx5_0"}, "auto"));
  EXPECT_FALSE(verbs_asked(w.host, Names{}, "auto"));
  EXPECT_TRUE(verbs_asked(w.host, Names{"mlx5_0", "rxe0"}, "auto"));   // a device umad did not list
  EXPECT_TRUE(verbs_asked(w.host, std::nullopt, "auto"));
  EXPECT_TRUE(verbs_asked(w.host, Names{"mlx5_0"}, "verbs"));
  fake::HostPort roce = w.host;
  roce.link_layer = "Ethernet";
  EXPECT_TRUE(verbs_asked(roce, Names{"mlx5_0"}, "auto"));
}

// A RoCE port comes from verbs only: umad lists it as Ethernet and leaves it; alone it
// makes the node rdma=roce with no fabric labels, beside an IB port the IB subnet wins.
TEST(IbProber, RocePortsComeFromVerbsAndMakeTheNodeRoceOnlyWithoutIb) {
  World w;
  fake::HostPort roce{.device = "mlx5_1", .port = 1, .link_layer = "Ethernet"};
  auto verbs_roce = []() -> Result<std::vector<PortReport>> {
    PortReport p{.device = "mlx5_1", .port = 1, .backend = "verbs", .state = "ACTIVE", .phys_state = "LINKUP",
                 .link_layer = "Ethernet", .rate_gbps = 100, .speed = "100GbE"};
    return std::vector<PortReport>{p};
  };
  auto run = [&](std::vector<fake::HostPort*> hosts, std::vector<std::string> verbs_devices) {
    fake::Devices devices(std::move(hosts));
    Backends b;
    b.umad = &devices;
    b.verbs = verbs_roce;
    b.verbs_devices = [verbs_devices] { return verbs_devices; };
    auto o = fast_options();
    o.backend = "auto";
    PortMemory last;
    return run_probe(o, b, last);
  };

  auto only = run({&roce}, {"mlx5_1"});
  ASSERT_EQ(only.ports.size(), 1u);
  EXPECT_EQ(only.ports[0].backend, "verbs");
  EXPECT_EQ(only.ports[0].backend_reason, "RoCE port: only verbs sees it");
  EXPECT_EQ(only.rdma, "roce");
  auto labels = ib_labels(only);
  EXPECT_EQ(labels.at("weft.dev/rdma"), "roce");
  EXPECT_FALSE(labels.count("weft.dev/ib-fabric"));
  EXPECT_FALSE(labels.count("weft.dev/ib-rate-gbps"));
  EXPECT_TRUE(has(only.backend_notes, "1 Ethernet port(s) left to verbs")) << all(only.backend_notes);

  auto both = run({&w.host, &roce}, {"mlx5_0", "mlx5_1"});
  ASSERT_EQ(both.ports.size(), 2u);
  EXPECT_EQ(both.rdma, "ib");
  EXPECT_EQ(both.compute_devices, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(ib_labels(both).at("weft.dev/ib-fabric"), guid_string(0x2000));
}

std::vector<MadRequest> three_requests() {
  std::vector<MadRequest> q;
  for (uint8_t port : {1, 2, 3}) q.push_back(*smp_get(MadDestination{{0, port}}, kAttrNodeInfo, 0));
  return q;
}

TEST(IbTransport, SilentPeerGivesErrorsAfterBoundedRetries) {
  World w;
  fake::Counters counters;
  auto t = make_pipelined_transport(std::make_unique<fake::Port>(w.host, [](const MadRequest&, int) { return fake::Fate{.drop = true}; }, &counters));
  MadPolicy policy{.timeout = 20ms, .retries = 2};
  const auto start = Clock::now();
  auto replies = t->exchange(three_requests(), policy);
  const auto took = Clock::now() - start;
  ASSERT_EQ(replies.size(), 3u);
  for (const auto& r : replies) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("no reply after 3 attempts"), std::string::npos) << r.message();
  }
  EXPECT_EQ(counters.total, 9);   // 3 requests x (1 + 2 retries), sent side by side
  EXPECT_GE(took, 55ms);
  EXPECT_LT(took, 200ms);
}

TEST(IbTransport, DeadlineCutsRetriesShort) {
  World w;
  auto t = make_pipelined_transport(std::make_unique<fake::Port>(w.host, [](const MadRequest&, int) { return fake::Fate{.drop = true}; }, nullptr));
  const auto start = Clock::now();
  MadPolicy policy{.timeout = 1000ms, .retries = 5, .deadline = start + 60ms};
  auto replies = t->exchange(three_requests(), policy);
  EXPECT_LT(Clock::now() - start, 200ms);
  for (const auto& r : replies) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("deadline"), std::string::npos) << r.message();
  }
}

TEST(IbTransport, RetryIsAnsweredAndTheLateFirstReplyIgnored) {
  World w;
  fake::Counters counters;
  // The first attempt is answered after 80 ms, past its 20 ms timeout; the retry at once.
  auto fate = [](const MadRequest& r, int attempt) {
    return fake::Fate{.delay = fake::attribute_key(r) == "NodeInfo" && attempt == 1 ? 80ms : 0ms};
  };
  auto t = make_pipelined_transport(std::make_unique<fake::Port>(w.host, fate, &counters));
  MadPolicy policy{.timeout = 20ms, .retries = 2};
  auto first = t->exchange(std::vector<MadRequest>{*smp_get(MadDestination{{0, 1}}, kAttrNodeInfo, 0)}, policy);
  ASSERT_TRUE(first[0].ok()) << first[0].message();
  EXPECT_EQ(counters.sends["NodeInfo"], 2);
  // The late reply to attempt 1 arrives during the next exchange and must not answer it.
  auto second = t->exchange(std::vector<MadRequest>{*smp_get(MadDestination{{0}}, kAttrPortInfo, 1)}, policy);
  std::this_thread::sleep_for(100ms);
  auto third = t->exchange(std::vector<MadRequest>{*smp_get(MadDestination{{0}}, kAttrPortInfo, 1)}, policy);
  for (const auto* r : {&second, &third}) {
    ASSERT_TRUE((*r)[0].ok()) << (*r)[0].message();
    auto pi = parse_port_info((*r)[0].value());
    ASSERT_TRUE(pi.ok()) << pi.message();
    EXPECT_EQ(pi->lid, 10);
  }
}

TEST(IbProber, SilentFabricProbeEndsAtItsDeadlineWithTheReportStanding) {
  World w;
  fake::Devices devices({&w.host}, [](const MadRequest&, int) { return fake::Fate{.drop = true}; });
  PortMemory last;
  auto o = fast_options();
  o.mad_timeout = 100ms;
  o.mad_retries = 10;
  o.deadline = 150ms;
  auto r = probe(devices, last, o);
  EXPECT_LT(r.probe_seconds, 0.5);
  EXPECT_TRUE(r.deadline_hit);
  ASSERT_EQ(r.ports.size(), 1u);
  const auto& p = r.ports[0];
  EXPECT_TRUE(has(p.errors, "deadline")) << all(p.errors);
  EXPECT_EQ(p.state, "ACTIVE");   // from sysfs
  EXPECT_EQ(p.port_guid, guid_string(0x100));
  EXPECT_FALSE(p.neighbor);
}

// A reply changed by `garble` for requests whose key is `key` (and DR hop count `hops`, -1 any).
fake::Port::FateFn garbling(std::string key, int hops, std::function<void(Bytes&)> garble) {
  return [=](const MadRequest& r, int) {
    fake::Fate f;
    if (fake::attribute_key(r) == key && (hops < 0 || static_cast<int>(r.to.dr_path.size()) - 1 == hops)) f.garble = garble;
    return f;
  };
}

TEST(IbProber, ShortNodeInfoReplyIsAPortErrorAndTheRestStands) {
  World w;
  fake::Devices devices({&w.host}, garbling("NodeInfo", 1, [](Bytes& m) { m.resize(40); }));
  PortMemory last;
  auto r = probe(devices, last);
  const auto& p = r.ports[0];
  EXPECT_TRUE(has(p.errors, "NodeInfo via DR 0,1")) << all(p.errors);
  EXPECT_FALSE(p.neighbor);
  EXPECT_FALSE(p.neighbor_reason.empty());
  EXPECT_EQ(p.state, "ACTIVE");
  ASSERT_TRUE(p.sm);
  EXPECT_EQ(r.fabric, guid_string(0x2000));
  EXPECT_FALSE(p.counters.empty());
  EXPECT_TRUE(r.leaf.empty());
  EXPECT_FALSE(r.leaf_reason.empty());
}

TEST(IbProber, MalformedSmInfoAndSaTableCostOnlyTheirFields) {
  World w;
  auto fate = [](const MadRequest& r, int) {
    fake::Fate f;
    const auto key = fake::attribute_key(r);
    if (key == "SMInfo") f.garble = [](Bytes& m) { std::fill(m.begin() + kSmpDataOffset, m.begin() + kSmpDataOffset + 8, 0); };
    if (key == "SA") f.garble = [](Bytes& m) { put_be(m, 44, 2, 1); };   // records "8 bytes apart"
    return f;
  };
  fake::Devices devices({&w.host}, fate);
  PortMemory last;
  auto r = probe(devices, last);
  const auto& p = r.ports[0];
  EXPECT_FALSE(p.sm);
  EXPECT_NE(p.sm_reason.find("GUID is zero"), std::string::npos) << p.sm_reason;
  EXPECT_TRUE(r.fabric.empty());
  EXPECT_NE(r.fabric_reason.find("attribute offset"), std::string::npos) << r.fabric_reason;
  EXPECT_EQ(r.leaf, guid_string(0x2000));
  EXPECT_EQ(r.spine, guid_string(0x3000));
  EXPECT_FALSE(p.counters.empty());
}

TEST(IbProber, ReplyToTheWrongAttributeIsRejected) {
  World w;
  fake::Devices devices({&w.host}, garbling("PortInfo", 0, [](Bytes& m) { put_be(m, 16, 2, kAttrNodeInfo); }));
  PortMemory last;
  auto r = probe(devices, last);
  const auto& p = r.ports[0];
  EXPECT_TRUE(has(p.errors, "reply attribute 0x0011, expected 0x0015")) << all(p.errors);
  EXPECT_EQ(p.state, "ACTIVE");   // sysfs still says so
  EXPECT_EQ(r.leaf, guid_string(0x2000));
  EXPECT_EQ(r.fabric, guid_string(0x2000));
}

}  // namespace
}  // namespace weft::ib
