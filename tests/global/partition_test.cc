// Volcano 1.15 partitionPolicy on a dispatched Volcano Job: the member must hold every
// partition whole inside one domain of its networkTopology, else the job stays suspended
// (its PodGroup could never start there).
#include <gtest/gtest.h>

#include "tests/global/global_objects.h"

namespace weft::scheduler::global::testing {
namespace {

// A member whose 8-GPU nodes sit `per_leaf` to a leaf (weft's derived tiers).
void add_leafy_member(std::vector<json>& o, const std::string& name, int nodes, int per_leaf) {
  o.push_back(cluster(name));
  for (int i = 0; i < nodes; ++i) {
    json n = gpu_node(name, name + "-n" + std::to_string(i));
    n["metadata"]["labels"] = {{"weft.dev/ib-fabric", "f"}, {"weft.dev/ib-spine", "s"},
                               {"weft.dev/ib-leaf", "l" + std::to_string(i / per_leaf)}};
    o.push_back(n);
  }
}

json partitioned_job(int total, int size, int min_partitions = 0) {
  json j = vcjob("ml", "tp", "team", total * size, 8);
  j["spec"]["tasks"][0]["partitionPolicy"] = {{"totalPartitions", total}, {"partitionSize", size},
                                              {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}};
  if (min_partitions) j["spec"]["tasks"][0]["partitionPolicy"]["minPartitions"] = min_partitions;
  return j;
}

TEST(GlobalPartitions, JobWhosePartitionsFitNoLeafStaysSuspended) {
  for (int per_leaf : {1, 2}) {
    SCOPED_TRACE(per_leaf);
    std::vector<json> o;
    add_leafy_member(o, "m1", 4, per_leaf);
    o.push_back(queue("team", 1));
    o.push_back(partitioned_job(2, 2));
    o.push_back(binding("ml", "tp", 4, at_second(1)));
    GlobalDecisions d = decide(o);
    const auto& b = find(d, "ml/tp-job");
    EXPECT_EQ(b.suspended, per_leaf == 1) << b.reason;
  }
}

TEST(GlobalPartitions, PolicyIsValidatedAsVolcanoAdmits) {
  std::vector<json> o;
  add_leafy_member(o, "m1", 4, 2);
  o.push_back(queue("team", 1));
  json j = partitioned_job(2, 2);
  j["spec"]["tasks"][0]["partitionPolicy"]["totalPartitions"] = 3;   // 3 * 2 != 4 replicas
  GlobalBuilder builder;
  for (const auto& x : o) ASSERT_TRUE(builder.add(x, "o").ok());
  ASSERT_TRUE(builder.add(j, "job").ok());
  ASSERT_TRUE(builder.add(binding("ml", "tp", 4, at_second(1)), "binding").ok());
  std::vector<std::string> skipped;
  auto state = builder.build(&skipped);
  bool named = false;
  for (const auto& s : skipped) named = named || s.find("partitionPolicy: replicas 4 are not totalPartitions * partitionSize") != std::string::npos;
  if (state) EXPECT_TRUE(named) << (skipped.empty() ? "" : skipped.front());
  else EXPECT_NE(state.message().find("partitionPolicy"), std::string::npos) << state.message();
}

}  // namespace
}  // namespace weft::scheduler::global::testing
