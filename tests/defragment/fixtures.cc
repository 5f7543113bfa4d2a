#include "tests/defragment/fixtures.h"

#include <stdexcept>

#include "kube/objects.h"
#include "kube/reservation.h"
#include "scheduler/core/config.h"
#include "scheduler/core/simulation.h"

namespace weft::defrag_test {

json gpu_node(const std::string& name, const std::string& fabric, const std::string& spine, const std::string& leaf,
              int gpus) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels",
             {{"weft.dev/ib-fabric", fabric}, {"weft.dev/ib-spine", spine}, {"weft.dev/ib-leaf", leaf},
              {"weft.dev/rdma", "ib"}}}}},
          {"status",
           {{"allocatable",
             {{"cpu", "192"}, {"memory", "2Ti"}, {"nvidia.com/gpu", std::to_string(gpus)}, {"pods", "110"},
              {"rdma/hca", "1000"}}}}}};
}

json pod(const PodSpec& p) {
  json requests = {{"cpu", std::to_string(p.cpu)}, {"memory", "16Gi"}};
  if (p.gpus > 0) requests["nvidia.com/gpu"] = std::to_string(p.gpus);
  if (p.rdma) requests["rdma/hca"] = "1";
  json meta = {{"name", p.name}, {"namespace", p.ns}, {"creationTimestamp", "2026-11-01T00:00:00Z"}};
  if (!p.owner_kind.empty())
    meta["ownerReferences"] = json::array({{{"kind", p.owner_kind}, {"name", p.owner_name}, {"controller", true}}});
  if (!p.group.empty()) meta["annotations"] = {{"scheduling.k8s.io/group-name", p.group}};
  if (!p.labels.empty()) meta["labels"] = p.labels;
  json spec = {{"priority", p.priority},
               {"schedulerName", "weft-scheduler"},
               {"containers", json::array({{{"name", "main"}, {"resources", {{"requests", requests}}}}})}};
  if (!p.node_selector.empty()) spec["nodeSelector"] = p.node_selector;
  json o = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}};
  if (!p.node.empty()) {
    o["spec"]["nodeName"] = p.node;
    o["status"] = {{"phase", "Running"}};
  } else {
    o["status"] = {{"phase", "Pending"}};
  }
  return o;
}

json podgroup(const GroupSpec& g) {
  json o = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
            {"kind", "PodGroup"},
            {"metadata", {{"name", g.name}, {"namespace", g.ns}}},
            {"spec", {{"minMember", g.min_member}}}};
  if (g.same_ib_cluster) o["metadata"]["annotations"] = {{"weft.dev/ib-cluster", "same"}};
  if (g.hard_tier > 0) o["spec"]["networkTopology"] = {{"mode", "hard"}, {"highestTierAllowed", g.hard_tier}};
  if (!g.queue.empty()) o["spec"]["queue"] = g.queue;
  return o;
}

json pdb(const std::string& ns, const std::string& name, const std::string& app, int allowed) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", app}}}}}}},
          {"status", {{"disruptionsAllowed", allowed}}}};
}

std::vector<json> fragmented_fabric() {
  std::vector<json> o;
  for (int leaf = 1; leaf <= 2; ++leaf)
    for (int i = 1; i <= 4; ++i) {
      std::string node = "a-l" + std::to_string(leaf) + "-n" + std::to_string(i);
      o.push_back(gpu_node(node, "fab-a", "a-s1", "a-l" + std::to_string(leaf)));
      for (int k = 1; k <= leaf; ++k)
        o.push_back(pod({.name = "fill-" + node + "-" + std::to_string(k), .node = node, .gpus = 2}));
    }
  for (int i = 1; i <= 4; ++i) {
    std::string node = "b-n" + std::to_string(i);
    o.push_back(gpu_node(node, "fab-b", "b-s1", "b-l1"));
    o.push_back(pod({.ns = "kube-system", .name = "agent-" + node, .node = node, .gpus = 1,
                     .owner_kind = "DaemonSet", .owner_name = "agent"}));
  }
  return o;
}

void add_gang(std::vector<json>& o, const std::string& name, int pods, int gpus, int tier, int priority,
              bool same_ib) {
  o.push_back(podgroup({.name = name, .min_member = pods, .same_ib_cluster = same_ib, .hard_tier = tier}));
  for (int i = 0; i < pods; ++i)
    o.push_back(pod({.ns = "ml", .name = name + "-" + std::to_string(i), .gpus = gpus, .cpu = 32,
                     .priority = priority, .owner_kind = "Job", .owner_name = name, .group = name, .rdma = true}));
}

std::vector<kube::SourcedObject> sourced(const std::vector<json>& objects) {
  std::vector<kube::SourcedObject> out;
  for (size_t i = 0; i < objects.size(); ++i) out.push_back({objects[i], "scenario.yaml", static_cast<int>(i) + 1});
  return out;
}

std::vector<json> after_evictions(const std::vector<json>& objects, const descheduler::defragment::Outcome& outcome) {
  std::map<std::string, const descheduler::defragment::GangRoom*> rooms;
  std::map<std::string, bool> evicted;
  for (const auto& r : outcome.rooms) {
    rooms[r.gang] = &r;
    for (const auto& e : r.evictions) evicted[e.pod()] = true;
  }
  std::vector<json> out;
  for (json o : objects) {
    std::string kind = kube::kind_of(o), key = kube::namespace_of(o) + "/" + kube::name_of(o);
    if (kind == "Pod" && evicted.count(key)) {
      o["spec"].erase("nodeName");
      o["status"] = {{"phase", "Pending"}};
    }
    if (kind == "PodGroup" && rooms.count(key))
      o["metadata"]["annotations"][kube::kReservationAnnotation] = kube::format_reservation(rooms[key]->reservation);
    out.push_back(std::move(o));
  }
  return out;
}

std::map<std::string, std::string> simulate_placements(const std::vector<json>& objects, kube::TimePoint now) {
  scheduler::SimulationOptions opt;
  opt.now = now;
  auto result = scheduler::simulate(sourced(objects), scheduler::Config::defaults(), opt);
  if (!result) throw std::runtime_error(result.message());
  std::map<std::string, std::string> out;
  for (const auto& p : result->report["pods"])
    out[p["pod"].get<std::string>()] = p["node"].is_string() ? p["node"].get<std::string>() : "";
  return out;
}

descheduler::defragment::World world(const std::vector<json>& objects, kube::TimePoint now) {
  auto w = descheduler::defragment::world_from_objects(sourced(objects), now);
  if (!w) throw std::runtime_error(w.message());
  return std::move(*w);
}

kube::TimePoint test_now() { return *kube::parse_rfc3339("2026-11-24T12:00:00Z"); }

}  // namespace weft::defrag_test
