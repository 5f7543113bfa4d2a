#include "tests/scheduler/scenario_runner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kube/time.h"

namespace weft::scheduler::testing {

std::string ScenarioRun::node_of(const std::string& pod) const {
  for (const auto& p : report()["pods"])
    if (p["pod"] == pod) return p["node"].is_null() ? "" : p["node"].get<std::string>();
  ADD_FAILURE() << "no pod " << pod << " in the report";
  return "";
}

nlohmann::json ScenarioRun::podgroup(const std::string& name) const {
  for (const auto& g : report()["podgroups"])
    if (g["name"] == name) return g;
  return nlohmann::json::object();
}

nlohmann::json ScenarioRun::queue(const std::string& name) const {
  for (const auto& q : report()["queues"])
    if (q["name"] == name) return q;
  return nlohmann::json::object();
}

int ScenarioRun::bound_in(const std::string& prefix) const {
  int n = 0;
  for (const auto& p : report()["pods"])
    if (p["pod"].get<std::string>().rfind("default/" + prefix + "-", 0) == 0 && !p["node"].is_null()) ++n;
  return n;
}

std::string ScenarioRun::reason_of(const std::string& pod) const {
  auto it = result.pending_reasons.find(pod);
  return it == result.pending_reasons.end() ? "" : it->second;
}

using nlohmann::json;

std::vector<std::map<std::string, int>> bound_after_each_cycle(
    const json& report, const std::function<std::string(const std::string& pod)>& group_of,
    std::map<std::string, int> bound) {
  std::vector<std::map<std::string, int>> out;
  for (int cycle = 0; cycle < report["cycles"].get<int>(); ++cycle) {
    for (const auto& b : report["bindings"])
      if (b["cycle"] == cycle) ++bound[group_of(b["pod"])];
    for (const auto& e : report["evictions"])
      if (e["cycle"] == cycle) --bound[group_of(e["pod"])];
    out.push_back(bound);
  }
  return out;
}

void ScenarioBuilder::add(json o) { objects_.push_back({std::move(o), "built", static_cast<int>(objects_.size()) + 1}); }

void ScenarioBuilder::node(const std::string& name, int cpu, json labels, json spec) {
  add({{"apiVersion", "v1"},
       {"kind", "Node"},
       {"metadata", {{"name", name}, {"labels", labels}}},
       {"spec", spec},
       {"status", {{"allocatable", {{"cpu", std::to_string(cpu)}, {"memory", "64Gi"}, {"pods", "110"}}}}}});
}

void ScenarioBuilder::queue(const std::string& name, int arrival, json spec) {
  add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
       {"kind", "Queue"},
       {"metadata", {{"name", name}, {"annotations", {{"weft.dev/arrival-cycle", std::to_string(arrival)}}}}},
       {"spec", spec}});
}

void ScenarioBuilder::group(const std::string& name, const std::string& queue, int min, int arrival, bool ib,
                            json extra) {
  json annotations = {{"weft.dev/arrival-cycle", std::to_string(arrival)}};
  if (ib) annotations["weft.dev/ib-cluster"] = "same";
  json spec = {{"queue", queue}, {"minMember", min}};
  spec.update(extra);
  add({{"apiVersion", "scheduling.volcano.sh/v1beta1"},
       {"kind", "PodGroup"},
       {"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
       {"spec", spec}});
}

void ScenarioBuilder::pod(const std::string& name, const std::string& group, int cpu, int arrival,
                          const std::string& node, int priority, const std::string& ns) {
  json spec = {{"schedulerName", "weft"},
               {"containers", json::array({{{"name", "c"},
                                            {"resources", {{"requests", {{"cpu", std::to_string(cpu)},
                                                                         {"memory", "1Gi"}}}}}}})}};
  if (priority != 0) spec["priority"] = priority;
  json status = json::object();
  if (!node.empty()) spec["nodeName"] = node, status["phase"] = "Running";
  json annotations = {{"weft.dev/arrival-cycle", std::to_string(arrival)}};
  if (!group.empty()) annotations["scheduling.k8s.io/group-name"] = group;
  add({{"apiVersion", "v1"},
       {"kind", "Pod"},
       {"metadata", {{"name", name}, {"namespace", ns}, {"annotations", annotations}}},
       {"spec", spec},
       {"status", status}});
}

void ScenarioBuilder::bound(const std::string& group, const std::string& node, int count, int cpu, int priority) {
  for (int i = 0; i < count; ++i) pod(group + "-" + node + "-" + std::to_string(i), group, cpu, 0, node, priority);
}

ScenarioRun ScenarioBuilder::run(const Config& config) const {
  auto r = simulate(objects_, config, SimulationOptions{.max_cycles = 30});
  EXPECT_TRUE(r.ok()) << r.message();
  return ScenarioRun{r.ok() ? std::move(*r) : SimulationResult{}};
}

ScenarioRun ScenarioBuilder::run_at(const Config& config, TimePoint now) const {
  auto r = simulate(objects_, config, SimulationOptions{.max_cycles = 30, .now = now});
  EXPECT_TRUE(r.ok()) << r.message();
  return ScenarioRun{r.ok() ? std::move(*r) : SimulationResult{}};
}

ScenarioRun run_scenario(const std::string& name, const std::string& now) {
  std::string dir = std::string(WEFT_SOURCE_DIR) + "/tests/scheduler/scenarios/";
  auto objects = kube::load_objects_file(dir + name + ".yaml");
  if (!objects) throw std::runtime_error(objects.message());
  Config config = Config::defaults();
  std::ifstream conf(dir + name + ".conf");
  if (conf) {
    std::stringstream ss;
    ss << conf.rdbuf();
    auto c = parse_config(ss.str(), name + ".conf");
    if (!c) throw std::runtime_error(c.message());
    config = *c;
  }
  SimulationOptions opts;
  if (!now.empty()) opts.now = kube::parse_rfc3339(now).value();
  auto r = simulate(*objects, config, opts);
  if (!r) throw std::runtime_error(r.message());
  return ScenarioRun{std::move(*r)};
}

}  // namespace weft::scheduler::testing
