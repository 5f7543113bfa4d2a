#include "tools/kube-lite/auth.h"

#include <gtest/gtest.h>

namespace weft::kube_lite {
namespace {

using nlohmann::json;

json tokens() {
  return json::parse(R"([
    {"token":"agent-n1","user":"system:node:n1","groups":["system:nodes"],
     "rules":[{"verbs":["get","list","watch","patch"],"apiGroups":[""],"resources":["nodes"]}],
     "nodeRestriction":{"node":"n1","keyPrefixes":["weft.dev/"]}},
    {"token":"evictor","user":"descheduler",
     "rules":[{"verbs":["create"],"apiGroups":[""],"resources":["pods/eviction"]},
              {"verbs":["get"],"apiGroups":["*"],"resources":["*"],"resourceNames":["only-this"]}]}
  ])");
}

TEST(KubeLiteAuth, TokensAuthenticate) {
  auto auth = Authenticator::from_json(tokens(), "tokens.yaml");
  ASSERT_TRUE(auth) << auth.message();
  EXPECT_TRUE(auth->enabled());
  EXPECT_FALSE(auth->authenticate(""));
  EXPECT_FALSE(auth->authenticate("Bearer nope"));
  auto user = auth->authenticate("Bearer agent-n1");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->name, "system:node:n1");
  Authenticator open;
  EXPECT_TRUE(open.authenticate("")->unrestricted);
  auto bad = Authenticator::from_json(json::parse(R"([{"user":"x"}])"), "tokens.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.message(), "tokens.yaml: entry 1: field 'token' is missing");
}

TEST(KubeLiteAuth, RulesAndTheRealForbiddenMessage) {
  auto auth = *Authenticator::from_json(tokens(), "t");
  auto agent = *auth.authenticate("Bearer agent-n1");
  EXPECT_FALSE(authorize(agent, {"patch", "", "nodes", "", "", "n1"}));
  auto denied = authorize(agent, {"delete", "", "nodes", "", "", "n1"});
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->code, 403);
  EXPECT_EQ(denied->message,
            "nodes \"n1\" is forbidden: User \"system:node:n1\" cannot delete resource \"nodes\" in API group \"\" at "
            "the cluster scope");
  auto pods = authorize(agent, {"list", "", "pods", "", "default", ""});
  ASSERT_TRUE(pods);
  EXPECT_EQ(pods->message,
            "pods is forbidden: User \"system:node:n1\" cannot list resource \"pods\" in API group \"\" in the "
            "namespace \"default\"");
  auto evictor = *auth.authenticate("Bearer evictor");
  EXPECT_FALSE(authorize(evictor, {"create", "", "pods", "eviction", "default", "p"}));
  EXPECT_TRUE(authorize(evictor, {"delete", "", "pods", "", "default", "p"}));
  EXPECT_FALSE(authorize(evictor, {"get", "policy", "poddisruptionbudgets", "", "default", "only-this"}));
  EXPECT_TRUE(authorize(evictor, {"get", "policy", "poddisruptionbudgets", "", "default", "other"}));
}

TEST(KubeLiteAuth, NodeRestrictionAllowsOnlyOwnWeftKeys) {
  auto auth = *Authenticator::from_json(tokens(), "t");
  auto agent = *auth.authenticate("Bearer agent-n1");
  json n1 = {{"metadata", {{"name", "n1"}, {"labels", {{"kubernetes.io/hostname", "n1"}}}}}, {"spec", json::object()}};
  json weft = n1;
  weft["metadata"]["labels"]["weft.dev/rdma"] = "ib";
  weft["metadata"]["annotations"] = {{"weft.dev/load", "{}"}};
  EXPECT_FALSE(admit_node_change(agent, n1, weft));
  json other_key = n1;
  other_key["metadata"]["labels"]["kubernetes.io/hostname"] = "x";
  auto e = admit_node_change(agent, n1, other_key);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("kubernetes.io/hostname"), std::string::npos) << e->message;
  json spec = weft;
  spec["spec"]["unschedulable"] = true;
  EXPECT_TRUE(admit_node_change(agent, n1, spec));
  json n2 = n1;
  n2["metadata"]["name"] = "n2";
  json n2_weft = n2;
  n2_weft["metadata"]["labels"]["weft.dev/rdma"] = "ib";
  auto foreign = admit_node_change(agent, n2, n2_weft);
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->code, 403);
}

}  // namespace
}  // namespace weft::kube_lite
