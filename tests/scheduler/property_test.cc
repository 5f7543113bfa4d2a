// Property tests: random scenarios (seeded) through the simulator; after the last cycle
// no node is over-committed, no gang is bound below minMember, no pod sits on a taint it
// does not tolerate, every ib-cluster: same gang is on one fabric, and hard tiers hold;
// after every cycle no gang is below minMember (reclaim never breaks one).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "kube/objects.h"
#include "kube/taints.h"
#include "scheduler/core/simulation.h"
#include "tests/scheduler/scenario_runner.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

struct Generated {
  std::vector<kube::SourcedObject> objects;
};

json node_obj(const std::string& name, int cpu, int mem_gi, int pods, const json& labels, bool tainted,
              bool cordoned, bool ready) {
  json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"labels", labels}}},
            {"spec", json::object()},
            {"status",
             {{"allocatable", {{"cpu", std::to_string(cpu)}, {"memory", std::to_string(mem_gi) + "Gi"},
                               {"pods", std::to_string(pods)}}},
              {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
  if (tainted) n["spec"]["taints"] = {{{"key", "t"}, {"value", "x"}, {"effect", "NoSchedule"}}};
  if (cordoned) n["spec"]["unschedulable"] = true;
  return n;
}

Generated generate(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](int percent) { return pick(1, 100) <= percent; };
  Generated g;
  int doc = 0;
  auto add = [&](json o) { g.objects.push_back({std::move(o), "random-" + std::to_string(seed), ++doc}); };
  int node_id = 0;
  for (int f = 0, fabrics = pick(1, 3); f < fabrics; ++f)
    for (int s = 0, spines = pick(1, 2); s < spines; ++s)
      for (int l = 0, leaves = pick(1, 2); l < leaves; ++l)
        for (int n = 0, nodes = pick(1, 3); n < nodes; ++n) {
          json labels = json::object();
          if (!chance(10)) {
            labels["weft.dev/ib-fabric"] = "f" + std::to_string(f);
            labels["weft.dev/ib-spine"] = "s" + std::to_string(f) + std::to_string(s);
            labels["weft.dev/ib-leaf"] = "l" + std::to_string(f) + std::to_string(s) + std::to_string(l);
          }
          static const int cpus[] = {4, 8, 16};
          add(node_obj("node-" + std::to_string(node_id++), cpus[pick(0, 2)], pick(16, 64), chance(20) ? 3 : 110,
                       labels, chance(20), chance(5), !chance(5)));
        }
  std::vector<std::string> queues{"default"};
  for (int q = 0, nq = pick(0, 3); q < nq; ++q) {
    std::string name = "q" + std::to_string(q);
    queues.push_back(name);
    json spec = {{"weight", pick(1, 3)}};
    if (chance(20)) spec["capability"] = {{"cpu", std::to_string(pick(4, 16))}};
    add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
         {"kind", "Queue"},
         {"metadata", {{"name", name}, {"annotations", {{"weft.dev/arrival-cycle", std::to_string(pick(0, 2))}}}}},
         {"spec", spec}});
  }
  // A PodGroup and its pods (same arrival); a pod gets a priority up to max_priority with
  // priority_percent chance.
  auto add_job = [&](const std::string& name, const json& spec, const json& annotations, int replicas, int cpu,
                     bool tolerate, int priority_percent, int max_priority) {
    add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
         {"kind", "PodGroup"},
         {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
         {"spec", spec}});
    const json arrival = annotations["weft.dev/arrival-cycle"];
    for (int p = 0; p < replicas; ++p) {
      json requests = {{"cpu", std::to_string(cpu)}, {"memory", std::to_string(pick(1, 4)) + "Gi"}};
      json container = {{"name", "c"}, {"resources", {{"requests", requests}}}};
      json pspec = {{"containers", json::array({container})}};
      if (tolerate) pspec["tolerations"] = {{{"key", "t"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
      if (chance(priority_percent)) pspec["priority"] = pick(0, max_priority);
      add({{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata",
            {{"name", name + "-" + std::to_string(p)},
             {"namespace", "default"},
             {"annotations", {{"scheduling.k8s.io/group-name", name}, {"weft.dev/arrival-cycle", arrival}}}}},
           {"spec", pspec}});
    }
  };
  for (int j = 0, jobs = pick(3, 10); j < jobs; ++j) {
    std::string name = "job-" + std::to_string(j);
    int min = pick(1, 4), replicas = min + pick(0, 1), cpu = 1 << pick(0, 2);
    std::string arrival = std::to_string(pick(0, 3));
    json annotations = {{"weft.dev/arrival-cycle", arrival}};
    json spec = {{"minMember", min}, {"queue", queues[pick(0, static_cast<int>(queues.size()) - 1)]}};
    if (chance(25)) annotations["weft.dev/ib-cluster"] = "same";
    int topo = pick(1, 100);
    if (topo <= 25) spec["networkTopology"] = {{"mode", "hard"}, {"highestTierAllowed", pick(1, 3)}};
    else if (topo <= 35) spec["networkTopology"] = {{"mode", "soft"}, {"highestTierAllowed", pick(1, 2)}};
    if (chance(20)) spec["minResources"] = {{"cpu", std::to_string(min * cpu)}};
    add_job(name, spec, annotations, replicas, cpu, chance(30), 10, 100);
  }
  // Pressure (half the seeds): a queue fills the cluster at cycle 0, then a late queue
  // arrives with gangs (IB-cluster, hard tiers, plain) that can only run by reclaiming.
  if (chance(50)) {
    for (const auto& [queue, arrival] : {std::pair{"fill", 0}, {"late", pick(1, 2)}})
      add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
           {"kind", "Queue"},
           {"metadata", {{"name", queue}, {"annotations", {{"weft.dev/arrival-cycle", std::to_string(arrival)}}}}},
           {"spec", {{"weight", pick(1, 2)}}}});
    for (int j = 0, n = pick(8, 20); j < n; ++j) {
      int min = pick(1, 3);
      add_job("fill-" + std::to_string(j), {{"minMember", min}, {"queue", "fill"}}, {{"weft.dev/arrival-cycle", "0"}},
              min + pick(0, 2), 1 << pick(0, 2), true, 30, 10);
    }
    for (int j = 0, n = pick(1, 3); j < n; ++j) {
      int min = pick(2, 4);
      json annotations = {{"weft.dev/arrival-cycle", "2"}}, spec = {{"minMember", min}, {"queue", "late"}};
      int kind = pick(1, 3);
      if (kind == 1) annotations["weft.dev/ib-cluster"] = "same";
      if (kind == 2) spec["networkTopology"] = {{"mode", "hard"}, {"highestTierAllowed", pick(1, 2)}};
      add_job("late-" + std::to_string(j), spec, annotations, min, 1 << pick(0, 2), true, 0, 0);
    }
  }
  return g;
}

void check_invariants(uint32_t seed, const Generated& g, const json& report) {
  std::map<std::string, const json*> nodes, pods, groups;
  for (const auto& so : g.objects) {
    std::string kind = kube::kind_of(so.object);
    if (kind == "Node") nodes[kube::name_of(so.object)] = &so.object;
    if (kind == "Pod") pods["default/" + kube::name_of(so.object)] = &so.object;
    if (kind == "PodGroup") groups["default/" + kube::name_of(so.object)] = &so.object;
  }
  std::map<std::string, kube::ResourceList> used;
  std::map<std::string, int> pod_count;
  std::map<std::string, std::vector<std::string>> group_nodes;
  for (const auto& p : report["pods"]) {
    if (p["node"].is_null()) continue;
    std::string node = p["node"], key = p["pod"];
    const json& pod = *pods.at(key);
    kube::add_to(used[node], *kube::pod_requests(pod));
    ++pod_count[node];
    auto taints = *kube::taints_of_node(*nodes.at(node));
    auto tolerations = *kube::tolerations_of_pod(pod);
    EXPECT_FALSE(kube::first_untolerated_hard_taint(taints, tolerations)) << "seed " << seed << ": " << key << " on " << node;
    EXPECT_FALSE(nodes.at(node)->value("spec", json::object()).value("unschedulable", false)) << "seed " << seed;
    group_nodes["default/" + kube::annotation(pod, "scheduling.k8s.io/group-name")].push_back(node);
  }
  for (const auto& [node, req] : used) {
    auto alloc = *kube::node_allocatable(*nodes.at(node));
    EXPECT_TRUE(kube::fits(req, alloc)) << "seed " << seed << ": " << node << " over-committed";
    EXPECT_LE(pod_count[node] * 1000, alloc["pods"]) << "seed " << seed << ": " << node;
  }
  for (const auto& [key, gobj] : groups) {
    const auto& bound = group_nodes[key];
    int min = (*gobj)["spec"]["minMember"];
    EXPECT_TRUE(bound.empty() || static_cast<int>(bound.size()) >= min)
        << "seed " << seed << ": " << key << " has " << bound.size() << " < minMember " << min;
    if (bound.empty()) continue;
    auto label_set = [&](const char* label) {
      std::set<std::string> values;
      for (const auto& n : bound) values.insert(kube::label(*nodes.at(n), label));
      return values;
    };
    if (kube::annotation(*gobj, "weft.dev/ib-cluster") == "same") {
      auto fabrics = label_set("weft.dev/ib-fabric");
      EXPECT_EQ(fabrics.size(), 1u) << "seed " << seed << ": " << key;
      EXPECT_NE(*fabrics.begin(), "") << "seed " << seed << ": " << key;
    }
    const json& spec = (*gobj)["spec"];
    if (spec.contains("networkTopology") && spec["networkTopology"]["mode"] == "hard") {
      int tier = spec["networkTopology"]["highestTierAllowed"];
      const char* label = tier == 1 ? "weft.dev/ib-leaf" : tier == 2 ? "weft.dev/ib-spine" : "weft.dev/ib-fabric";
      auto domains = label_set(label);
      EXPECT_EQ(domains.size(), 1u) << "seed " << seed << ": " << key << " spans tier-" << tier << " domains";
      EXPECT_NE(*domains.begin(), "") << "seed " << seed << ": " << key;
    }
  }
  // After every cycle (its bindings and reclaim evictions applied), each gang has none or
  // at least minMember pods bound: victims never break a gang.
  auto group_of = [&](const std::string& pod) {
    return "default/" + kube::annotation(*pods.at(pod), "scheduling.k8s.io/group-name");
  };
  int cycle = 0;
  for (const auto& bound_now : testing::bound_after_each_cycle(report, group_of)) {
    for (const auto& [key, n] : bound_now) {
      int min = (*groups.at(key))["spec"]["minMember"];
      EXPECT_TRUE(n == 0 || n >= min) << "seed " << seed << ": " << key << " has " << n << " < minMember " << min
                                      << " after cycle " << cycle;
    }
    ++cycle;
  }
}

TEST(SchedulerProperties, RandomScenariosKeepInvariants) {
  int bound_total = 0, evictions = 0, domain_evictions = 0;
  for (uint32_t seed = 1; seed <= 400; ++seed) {
    Generated g = generate(seed);
    auto r = simulate(g.objects, Config::defaults(), SimulationOptions{.max_cycles = 60});
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.message();
    check_invariants(seed, g, r->report);
    EXPECT_LT(r->report["cycles"].get<int>(), 60) << "seed " << seed << ": did not settle";
    if (HasFailure()) {
      json objs = json::array();
      for (const auto& so : g.objects) objs.push_back(so.object);
      std::printf("scenario:\n%s\nreport:\n%s\n", json({{"apiVersion", "v1"}, {"kind", "List"}, {"items", objs}}).dump().c_str(),
                  r->report.dump().c_str());
    }
    bound_total += static_cast<int>(r->report["bindings"].size());
    evictions += static_cast<int>(r->report["evictions"].size());
    for (const auto& e : r->report["evictions"]) {   // reclaims for jobs bound to one domain
      const std::string reason = e["reason"];
      const std::string job = reason.substr(reason.rfind("job default/") + 12);
      for (const auto& so : g.objects)
        if (kube::kind_of(so.object) == "PodGroup" && kube::name_of(so.object) == job &&
            (kube::annotation(so.object, "weft.dev/ib-cluster") == "same" ||
             so.object["spec"].value("networkTopology", json::object()).value("mode", "") == "hard"))
          ++domain_evictions;
    }
    if (HasFailure()) break;
  }
  // The generator must exercise the scheduler, not only produce pending pods.
  EXPECT_GT(bound_total, 1000);
  EXPECT_GT(domain_evictions, 100);   // reclaim for IB-cluster and hard-tier gangs is exercised
  RecordProperty("bindings", bound_total);
  RecordProperty("evictions", evictions);
  RecordProperty("domain_evictions", domain_evictions);
  std::printf("400 scenarios: %d bindings, %d evictions (%d for gangs bound to one domain)\n", bound_total, evictions,
              domain_evictions);
}

}  // namespace
}  // namespace weft::scheduler
