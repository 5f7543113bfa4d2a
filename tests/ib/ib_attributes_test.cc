// Parsers against MADs encoded by libibmad (an independent encoder), and short,
// malformed or unexpected replies.
#include <infiniband/mad.h>

#include <gtest/gtest.h>

#include "collectors/ib/attributes.h"
#include "collectors/ib/mad.h"

namespace weft::ib {
namespace {

Bytes reply_for(const MadRequest& req, uint8_t method = kMethodGetResp) {
  Bytes m = req.mad;
  m[3] = method;
  return m;
}

TEST(IbAttributes, NodeInfoMatchesLibibmadLayout) {
  auto req = smp_get(MadDestination{{0, 1}}, kAttrNodeInfo, 0);
  ASSERT_TRUE(req.ok());
  Bytes m = reply_for(*req);
  uint8_t* d = m.data() + kSmpDataOffset;
  mad_set_field(d, 0, IB_NODE_TYPE_F, 2);
  mad_set_field(d, 0, IB_NODE_NPORTS_F, 36);
  mad_set_field64(d, 0, IB_NODE_GUID_F, 0x0002c90300aabbccULL);
  mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, 7);
  ASSERT_TRUE(check_reply(req->mad, m).ok());
  auto n = parse_node_info(m);
  ASSERT_TRUE(n.ok()) << n.message();
  EXPECT_EQ(n->node_type, 2);
  EXPECT_EQ(n->num_ports, 36);
  EXPECT_EQ(n->node_guid, 0x0002c90300aabbccULL);
  EXPECT_EQ(n->local_port, 7);
}

TEST(IbAttributes, PortInfoMatchesLibibmadLayout) {
  Bytes m(kMadSize, 0);
  uint8_t* d = m.data() + kSmpDataOffset;
  mad_set_field(d, 0, IB_PORT_LID_F, 0x1234);
  mad_set_field(d, 0, IB_PORT_SMLID_F, 3);
  mad_set_field(d, 0, IB_PORT_STATE_F, 4);
  mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 5);
  mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
  mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);
  auto p = parse_port_info(m);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->lid, 0x1234);
  EXPECT_EQ(p->sm_lid, 3);
  EXPECT_EQ(p->port_state, 4);
  EXPECT_EQ(p->phys_state, 5);
  EXPECT_EQ(width_name(p->link_width_active), "4x");
  EXPECT_EQ(speed_name(p->link_speed_active, p->link_speed_ext_active), "QDR");
}

TEST(IbAttributes, SmInfoAndCountersMatchLibibmadLayout) {
  Bytes m(kMadSize, 0);
  uint8_t* d = m.data() + kSmpDataOffset;
  mad_set_field64(d, 0, IB_SMINFO_GUID_F, 0x42);
  mad_set_field(d, 0, IB_SMINFO_PRIO_F, 14);
  mad_set_field(d, 0, IB_SMINFO_STATE_F, 3);
  auto s = parse_sm_info(m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->guid, 0x42u);
  EXPECT_EQ(s->priority, 14);
  EXPECT_EQ(sm_state_name(s->state), "MASTER");

  Bytes c(kMadSize, 0);
  uint8_t* g = c.data() + kGmpDataOffset;
  mad_set_field(g, 0, IB_PC_ERR_SYM_F, 7);
  mad_set_field(g, 0, IB_PC_LINK_DOWNED_F, 3);
  mad_set_field(g, 0, IB_PC_XMT_BYTES_F, 100);
  auto pc = parse_port_counters(c);
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc->at("symbol_errors"), 7u);
  EXPECT_EQ(pc->at("link_downed"), 3u);
  EXPECT_EQ(pc->at("xmit_data_bytes"), 400u);
}

TEST(IbAttributes, ShortAndMalformedRepliesAreErrors) {
  Bytes shortmad(40, 0);
  EXPECT_FALSE(parse_node_info(shortmad).ok());
  EXPECT_FALSE(parse_port_info(shortmad).ok());
  EXPECT_FALSE(parse_sm_info(shortmad).ok());
  EXPECT_FALSE(parse_port_counters(shortmad).ok());
  EXPECT_FALSE(parse_node_records(Bytes(10, 0)).ok());
  Bytes zero(kMadSize, 0);
  EXPECT_FALSE(parse_node_info(zero).ok());        // node type 0, GUID 0
  EXPECT_FALSE(parse_port_info(zero).ok());        // port state 0
  EXPECT_FALSE(parse_sm_info(zero).ok());          // GUID 0
}

TEST(IbAttributes, UnexpectedRepliesAreRejected) {
  auto req = smp_get(MadDestination{{0, 1}}, kAttrNodeInfo, 0);
  ASSERT_TRUE(req.ok());
  EXPECT_FALSE(check_reply(req->mad, req->mad).ok());                  // not a response
  Bytes wrong_attr = reply_for(*req);
  put_be(wrong_attr, 16, 2, kAttrPortInfo);
  EXPECT_FALSE(check_reply(req->mad, wrong_attr).ok());
  Bytes bad_status = reply_for(*req);
  put_be(bad_status, 4, 2, 0x001c);
  EXPECT_FALSE(check_reply(req->mad, bad_status).ok());
  EXPECT_FALSE(check_reply(req->mad, Bytes(10, 0)).ok());
}

}  // namespace
}  // namespace weft::ib
