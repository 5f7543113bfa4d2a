// The crash tests' checks (tests/crash/invariants.h) see what they promise to see: each
// on a cluster that breaks it, so a crash test cannot pass by checking nothing.
#include <gtest/gtest.h>

#include "tests/crash/invariants.h"

namespace weft::testing::crash {
namespace {

using nlohmann::json;

json pod(const std::string& name, const std::string& node, int cpu, const std::string& group = "") {
  json p = {{"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "a"}}}}},
            {"spec", {{"nodeName", node},
                      {"containers", json::array({{{"resources", {{"requests", {{"cpu", std::to_string(cpu)}}}}}}})}}},
            {"status", {{"phase", "Pending"}}}};
  if (!group.empty()) p["metadata"]["annotations"] = {{"scheduling.k8s.io/group-name", group}};
  return p;
}

TEST(Invariants, EachCheckNamesWhatIsBroken) {
  ClusterView v;
  v.nodes = {{{"metadata", {{"name", "n1"}}}, {"status", {{"allocatable", {{"cpu", "4"}, {"pods", "110"}}}}}}};
  v.pods = {pod("g-0", "n1", 3, "g"), pod("g-1", "", 3, "g"), pod("x", "n1", 2)};
  v.podgroups = {{{"metadata", {{"name", "g"}, {"namespace", "default"}}}, {"spec", {{"minMember", 2}}}}};
  v.budgets = {{{"metadata", {{"name", "b"}, {"namespace", "default"}}},
                {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "a"}}}}}}}}};
  EXPECT_EQ(gangs_whole_or_pending(v), "gang default/g has 1 of 2 bound; ");
  EXPECT_EQ(no_node_over_capacity(v), "node n1 over capacity in cpu by 1000m; ");
  EXPECT_EQ(no_budget_violated(v), "budget b has 0 healthy of 1; ");
  const json eviction = {{"verb", "POST"}, {"status", 201}, {"path", "/api/v1/namespaces/default/pods/x/eviction"}};
  EXPECT_EQ(no_pod_evicted_twice({eviction, eviction}, {}), "pod default/x evicted 2 times in 1 lives; ");
  EXPECT_EQ(no_pod_evicted_twice({eviction, eviction}, {{"default/x", 2}}), "");
}

}  // namespace
}  // namespace weft::testing::crash
