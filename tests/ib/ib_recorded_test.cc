// The parsers on replies recorded from ibsim + OpenSM (tests/ib/recorded/f33_h0005.txt),
// checked against what the fat-tree generator says the fabric is, and the same replies
// cut short or corrupted.
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "collectors/ib/attributes.h"
#include "collectors/ib/mad.h"
#include "tests/support/process.h"
#include "tools/fat-tree/fat_tree.h"

namespace weft::ib {
namespace {

std::map<std::string, Bytes> recorded() {
  std::ifstream in(weft::testing::source_path("tests/ib/recorded/f33_h0005.txt"));
  std::map<std::string, Bytes> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, hex;
    words >> name >> hex;
    Bytes b;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) b.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    out[name] = b;
  }
  return out;
}

struct IbRecorded : ::testing::Test {
  void SetUp() override {
    replies = recorded();
    ASSERT_EQ(replies.size(), 9u) << "recorded file missing or incomplete";
    auto t = fattree::build({.levels = 2, .hosts = 8, .hosts_per_leaf = 4, .spines = 2, .fabric = 33});
    ASSERT_TRUE(t.ok());
    tree = *t;
    host = tree.hosts[5];
    for (const auto& s : tree.switches) {
      switches.insert(s.guid);
      if (s.tier == "spine") spines.insert(s.guid);
    }
  }
  std::map<std::string, Bytes> replies;
  fattree::FatTree tree;
  fattree::Host host;
  std::set<uint64_t> switches, spines;
};

TEST_F(IbRecorded, RepliesAnswerTheRequestsAProbeSends) {
  const MadDestination own{{0}, 0}, leaf{{0, 1}, 0}, sm{{}, 1};
  EXPECT_TRUE(check_reply(smp_get(own, kAttrPortInfo, 1)->mad, replies["port_info"]).ok());
  EXPECT_TRUE(check_reply(smp_get(leaf, kAttrNodeInfo, 0)->mad, replies["leaf_node_info"]).ok());
  EXPECT_TRUE(check_reply(smp_get(leaf, kAttrNodeDescription, 0)->mad, replies["leaf_node_description"]).ok());
  EXPECT_TRUE(check_reply(smp_get(sm, kAttrSmInfo, 0)->mad, replies["sm_info"]).ok());
  EXPECT_TRUE(check_reply(sa_node_records(1, 2).mad, replies["sa_switch_records"]).ok());
  EXPECT_TRUE(check_reply(perf_get(1, kAttrPortCounters, 1).mad, replies["port_counters"]).ok());
  EXPECT_TRUE(check_reply(perf_get(1, kAttrPortCountersExt, 1).mad, replies["port_counters_ext"]).ok());
  // A reply does not answer a different attribute.
  EXPECT_FALSE(check_reply(smp_get(leaf, kAttrPortInfo, 0)->mad, replies["leaf_node_info"]).ok());
}

TEST_F(IbRecorded, ParsedValuesMatchTheGeneratedFabric) {
  auto pi = parse_port_info(replies["port_info"]);
  ASSERT_TRUE(pi.ok()) << pi.message();
  EXPECT_EQ(port_state_name(pi->port_state), "ACTIVE");
  EXPECT_EQ(phys_state_name(pi->phys_state), "LINKUP");
  EXPECT_NE(pi->lid, 0);
  EXPECT_NE(pi->sm_lid, 0);
  EXPECT_EQ(pi->gid_prefix, 0xfe80000000000000ULL);

  auto leaf = parse_node_info(replies["leaf_node_info"]);
  ASSERT_TRUE(leaf.ok()) << leaf.message();
  EXPECT_EQ(node_type_name(leaf->node_type), "switch");
  EXPECT_EQ(leaf->node_guid, tree.switches[host.leaf].guid);
  EXPECT_EQ(leaf->local_port, 5 % 4 + 1);   // host ports first on each leaf
  EXPECT_EQ(*parse_node_description(replies["leaf_node_description"]), tree.switches[host.leaf].name);

  auto sm = parse_sm_info(replies["sm_info"]);
  ASSERT_TRUE(sm.ok()) << sm.message();
  EXPECT_EQ(sm->guid, tree.hosts[0].port_guid);
  EXPECT_EQ(sm_state_name(sm->state), "MASTER");
  EXPECT_EQ(sm->priority, 0);

  auto recs = parse_node_records(replies["sa_switch_records"]);
  ASSERT_TRUE(recs.ok()) << recs.message();
  ASSERT_FALSE(recs->empty());
  for (const auto& r : *recs) {
    EXPECT_EQ(r.info.node_type, 2);
    EXPECT_TRUE(switches.count(r.info.node_guid)) << fattree::guid_hex(r.info.node_guid);
  }
  // umad2sim passes one 256-byte MAD, no RMPP: the first record only. On this generated
  // fabric OpenSM lists the smallest switch GUID first (see docs/ib-collector.md).
  EXPECT_EQ(recs->front().info.node_guid, tree.fabric_id);

  auto pc = parse_port_counters(replies["port_counters"]);
  ASSERT_TRUE(pc.ok()) << pc.message();
  EXPECT_TRUE(pc->count("symbol_errors") && pc->count("xmit_data_bytes"));
  auto pcx = parse_port_counters_ext(replies["port_counters_ext"]);
  ASSERT_TRUE(pcx.ok()) << pcx.message();
  EXPECT_GT(pcx->at("xmit_packets"), 0u);   // OpenSM's and our own MADs went out of this port

  auto top = parse_port_info(replies["leaf_top_port_info"]);
  ASSERT_TRUE(top.ok()) << top.message();
  EXPECT_EQ(port_state_name(top->port_state), "ACTIVE");
  auto spine = parse_node_info(replies["spine_node_info"]);
  ASSERT_TRUE(spine.ok()) << spine.message();
  EXPECT_TRUE(spines.count(spine->node_guid)) << fattree::guid_hex(spine->node_guid);
}

TEST_F(IbRecorded, CutShortOrCorruptedTheyAreErrorsNamingTheAttribute) {
  const std::map<std::string, std::string> names = {
      {"port_info", "PortInfo"}, {"leaf_node_info", "NodeInfo"}, {"leaf_node_description", "NodeDescription"},
      {"sm_info", "SMInfo"}, {"port_counters", "PortCounters"}, {"port_counters_ext", "PortCountersExtended"}};
  for (const auto& [key, name] : names) {
    Bytes cut(replies[key].begin(), replies[key].begin() + 70);
    std::string error;
    if (key == "port_info") error = parse_port_info(cut).message();
    if (key == "leaf_node_info") error = parse_node_info(cut).message();
    if (key == "leaf_node_description") error = parse_node_description(cut).message();
    if (key == "sm_info") error = parse_sm_info(cut).message();
    if (key == "port_counters") error = parse_port_counters(cut).message();
    if (key == "port_counters_ext") error = parse_port_counters_ext(cut).message();
    EXPECT_EQ(error.rfind(name, 0), 0u) << key << ": " << error;
  }
  Bytes sa = replies["sa_switch_records"];
  put_be(sa, 44, 2, 2);   // records 16 bytes apart: shorter than a NodeRecord
  EXPECT_FALSE(parse_node_records(sa).ok());
  Bytes zero_type = replies["leaf_node_info"];
  zero_type[kSmpDataOffset + 2] = 0;   // NodeType 0
  EXPECT_FALSE(parse_node_info(zero_type).ok());
  Bytes bad_state = replies["sm_info"];
  bad_state[kSmpDataOffset + 20] = (bad_state[kSmpDataOffset + 20] & 0xf0) | 0x9;   // SM state 9
  EXPECT_FALSE(parse_sm_info(bad_state).ok());
}

}  // namespace
}  // namespace weft::ib
