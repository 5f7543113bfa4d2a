// Right at the sizes weft is for: resource sums at 10,000 nodes of 512 cpu / 4 TiB /
// 8 GPUs (4.4e19 milli-bytes, past int64) and 5,000 GPU nodes of 192 cpu / 2 TiB where
// every gang must bind inside one IB fabric.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "scheduler/core/session.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler::testing {
namespace {

using nlohmann::json;

json gpu_node(const std::string& name, int cpu, const std::string& memory, const std::string& fabric) {
  json labels = json::object();
  if (!fabric.empty()) labels["weft.dev/ib-fabric"] = fabric;
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"status", {{"allocatable", {{"cpu", std::to_string(cpu)}, {"memory", memory}, {"nvidia.com/gpu", "8"},
                                       {"pods", "110"}}}}}};
}

json gpu_pod(const std::string& name, const std::string& group, int cpu, const std::string& memory, int gpus) {
  json requests = {{"cpu", std::to_string(cpu)}, {"memory", memory}, {"nvidia.com/gpu", std::to_string(gpus)}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", {{"scheduling.k8s.io/group-name", group}}}}},
          {"spec", {{"schedulerName", "weft"}, {"containers", json::array({{{"name", "c"}, {"resources", {{"requests", requests}}}}})}}}};
}

json podgroup(const std::string& name, const std::string& queue, int min, bool same_fabric) {
  json md = {{"name", name}, {"namespace", "default"}};
  if (same_fabric) md["annotations"] = {{"weft.dev/ib-cluster", "same"}};
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata", md},
          {"spec", {{"queue", queue}, {"minMember", min}}}};
}

json queue(const std::string& name, double weight) {
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"metadata", {{"name", name}}},
          {"spec", {{"weight", weight}}}};
}

// 10,000 nodes of 512 cpu, 4 TiB and 8 GPUs: the cluster holds 4.4e19 milli-bytes of
// memory. Two queues asking for more than all of it share every resource by weight,
// extended ones included; nothing wraps to zero or negative.
TEST(Scale, SumsAtTenThousandNodesOfFourTebibytes) {
  SnapshotBuilder b;
  for (int i = 0; i < 10000; ++i) ASSERT_TRUE(b.add(gpu_node("n" + std::to_string(i), 512, "4Ti", "")).ok());
  ASSERT_TRUE(b.add(queue("a", 1)).ok());
  ASSERT_TRUE(b.add(queue("b", 3)).ok());
  // Each queue asks for 12,000 whole nodes' worth (one pod per node shape).
  for (const char* q : {"a", "b"}) {
    for (int j = 0; j < 12000; ++j) {
      std::string g = std::string(q) + "-" + std::to_string(j);
      ASSERT_TRUE(b.add(podgroup(g, q, 1, false)).ok());
      ASSERT_TRUE(b.add(gpu_pod(g + "-0", g, 512, "4Ti", 8)).ok());
    }
  }
  Snapshot snap = b.build();
  Decisions d = run_session(snap, Config::defaults());
  const double memory = 10000.0 * 4 * 1024 * 1024 * 1024 * 1024 * 1000;   // milli-bytes
  const double cpu = 10000.0 * 512 * 1000, gpus = 10000.0 * 8 * 1000;
  std::map<std::string, QueueShare> shares;
  for (const auto& q : d.queues) shares[q.name] = q;
  ASSERT_TRUE(shares.count("a") && shares.count("b"));
  for (auto [res, total] : {std::pair{"memory", memory}, std::pair{"cpu", cpu}, std::pair{"nvidia.com/gpu", gpus}}) {
    double da = shares["a"].deserved_units.at(res), db = shares["b"].deserved_units.at(res);
    EXPECT_NEAR(da / total, 0.25, 1e-9) << res;
    EXPECT_NEAR(db / total, 0.75, 1e-9) << res;
    EXPECT_GT(shares["a"].deserved.at(res), 0) << res;   // the saturating ResourceList stays positive
  }
  // Every node is taken, by weight: 2,500 whole-node pods for a, 7,500 for b.
  std::map<char, int> bound;
  for (const auto& bind : d.bindings) ++bound[bind.pod[8]];   // "default/a-..." -> 'a'
  EXPECT_EQ(bound['a'], 2500);
  EXPECT_EQ(bound['b'], 7500);
  EXPECT_NEAR(shares["b"].allocated_units.at("memory") / memory, 0.75, 1e-9);
}

// 5,000 GPU nodes of 192 cpu / 2 TiB / 8 GPUs in 10 fabrics, 500 gangs of 8 pods that
// each take a whole node's GPUs and must share one fabric: every gang binds, inside one.
TEST(Scale, FiveThousandGpuNodesEveryGangInOneFabric) {
  ScenarioBuilder s;
  std::map<std::string, std::string> fabric_of;
  for (int i = 0; i < 5000; ++i) {
    std::string name = "gpu-" + std::to_string(i), fabric = "f" + std::to_string(i % 10);
    fabric_of[name] = fabric;
    s.add(gpu_node(name, 192, "2Ti", fabric));
  }
  for (int j = 0; j < 500; ++j) {
    std::string g = "gang-" + std::to_string(j);
    s.add(podgroup(g, "default", 8, true));
    for (int p = 0; p < 8; ++p) s.add(gpu_pod(g + "-" + std::to_string(p), g, 96, "1Ti", 8));
  }
  auto run = s.run();
  std::map<std::string, std::set<std::string>> fabrics;   // gang -> fabrics of its pods
  size_t bound = 0;
  for (const auto& p : run.report()["pods"]) {
    if (p["node"].is_null()) continue;
    ++bound;
    std::string pod = p["pod"];
    fabrics[pod.substr(8, pod.rfind('-') - 8)].insert(fabric_of.at(p["node"]));
  }
  EXPECT_EQ(bound, 4000u);
  EXPECT_EQ(fabrics.size(), 500u);
  for (const auto& [gang, fs] : fabrics) EXPECT_EQ(fs.size(), 1u) << gang;
  for (const auto& q : run.report()["queues"])
    if (q["name"] == "default") {
      EXPECT_GT(q["deserved"]["memory"].get<double>(), 0);
    }
}

}  // namespace
}  // namespace weft::scheduler::testing
