// weft-scheduler simulate/topology as a process: JSON shape, and bad input giving one
// error line that names file, document, object and field, with a non-zero exit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/process.h"

namespace weft::testing {
namespace {

std::string scheduler() { return binary("scheduler/weft-scheduler"); }
std::string scenario(const std::string& name) { return source_path("tests/scheduler/scenarios/" + name + ".yaml"); }

TEST(SchedulerCli, SimulatePrintsDesignJson) {
  auto [code, out] = run_command({scheduler(), "simulate", scenario("ib_cluster_gang")});
  ASSERT_EQ(code, 0) << out;
  auto j = nlohmann::json::parse(out);
  for (const char* k : {"cycles", "bindings", "evictions", "pods", "podgroups", "queues"}) EXPECT_TRUE(j.contains(k)) << k;
  ASSERT_FALSE(j["bindings"].empty());
  EXPECT_EQ(j["bindings"][0].size(), 3u);   // pod, node, cycle
  for (const char* k : {"name", "phase", "scheduled", "minMember", "status_writes"})
    EXPECT_TRUE(j["podgroups"][0].contains(k)) << k;
  for (const char* k : {"name", "weight", "deserved", "allocated"}) EXPECT_TRUE(j["queues"][0].contains(k)) << k;
  EXPECT_TRUE(j["queues"][0]["deserved"]["cpu"].is_number());
}

TEST(SchedulerCli, SimulateTableAndTopologyOutputs) {
  auto [code, out] = run_command({scheduler(), "simulate", scenario("ib_cluster_gang"), "--output", "table"});
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("no single IB cluster"), std::string::npos) << out;
  auto [c2, dot] = run_command({scheduler(), "topology", scenario("hypernode_soft_derived"), "--output", "dot"});
  ASSERT_EQ(c2, 0) << dot;
  EXPECT_NE(dot.find("digraph"), std::string::npos);
  EXPECT_NE(dot.find("\"spine-S1\" -> \"leaf-L1\""), std::string::npos) << dot;
  auto [c3, js] = run_command({scheduler(), "topology", scenario("hypernode_soft_derived"), "--output", "json"});
  ASSERT_EQ(c3, 0) << js;
  EXPECT_EQ(nlohmann::json::parse(js)["max_tier"], 3);
  auto [c4, hn] = run_command({scheduler(), "topology", scenario("hypernode_soft_derived")});
  ASSERT_EQ(c4, 0) << hn;
  EXPECT_NE(hn.find("\"kind\": \"HyperNode\""), std::string::npos) << hn;
}

struct BadInput {
  const char* yaml;
  std::vector<std::string> names;
};

TEST(SchedulerCli, BadInputIsOneLineNamingWhere) {
  const BadInput cases[] = {
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p\n",
       {"bad.yaml", "document 2", "YAML error"}},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
       {"bad.yaml: document 2 (Service s)", "kind: 'Service' is unknown"}},
      {"apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: g, namespace: ns}\n"
       "spec: {queue: nowhere, minMember: 1}\n",
       {"bad.yaml: document 1 (PodGroup ns/g)", "spec.queue", "nowhere"}},
      {"apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: 4x}}\n",
       {"bad.yaml: document 1 (Node n)", "status.allocatable", "resource 'cpu'", "'4x'"}},
      {"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {memory: 1Qi}}}]}\n",
       {"bad.yaml: document 1 (Pod p)", "spec.containers[0].resources.requests", "'1Qi'"}},
  };
  TempDir dir;
  for (const auto& c : cases) {
    write_file(dir.file("bad.yaml"), c.yaml);
    auto [code, out] = run_command({scheduler(), "simulate", dir.file("bad.yaml")});
    EXPECT_NE(code, 0) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    for (const auto& n : c.names) EXPECT_NE(out.find(n), std::string::npos) << "missing '" << n << "' in: " << out;
  }
  write_file(dir.file("sched.conf"), "actions: \"allocate, magic\"\n");
  write_file(dir.file("ok.yaml"), "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
  auto [code, out] = run_command({scheduler(), "simulate", dir.file("ok.yaml"), "--config", dir.file("sched.conf")});
  EXPECT_NE(code, 0);
  EXPECT_NE(out.find("action 'magic'"), std::string::npos) << out;
}

}  // namespace
}  // namespace weft::testing
