#include "descheduler/core/plugins/HighNodeUtilization/high_node_utilization.h"

#include <algorithm>

#include "descheduler/core/plugins/common/victim_order.h"
#include "kube/taints.h"

namespace weft::descheduler::plugins::high_node_utilization {
namespace {

using args::field;
using args::join;

constexpr int64_t kDefaultPods = 110;   // the kubelet's default when allocatable names none

// Allocatable and requested of one resource on a node, in the list's units (pods: count).
std::pair<double, double> capacity_and_use(const NodeInfo& node, const std::string& resource) {
  if (resource == "pods") {
    auto it = node.allocatable.find("pods");
    double alloc = it == node.allocatable.end() ? kDefaultPods : static_cast<double>(it->second) / 1000.0;
    return {alloc, static_cast<double>(node.pods.size())};
  }
  auto a = node.allocatable.find(resource);
  auto r = node.requested.find(resource);
  return {a == node.allocatable.end() ? 0.0 : static_cast<double>(a->second),
          r == node.requested.end() ? 0.0 : static_cast<double>(r->second)};
}

double pod_use(const PodInfo& pod, const std::string& resource) {
  if (resource == "pods") return 1;
  auto it = pod.requests().find(resource);
  return it == pod.requests().end() ? 0.0 : static_cast<double>(it->second);
}

std::vector<std::string> resource_names(const Args& a) {
  std::vector<std::string> out = {"cpu", "memory", "pods"};
  for (const auto& [r, _] : a.thresholds)
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  return out;
}

bool below_thresholds(const NodeInfo& node, const Args& a) {
  for (const auto& [r, limit] : a.thresholds)
    if (usage_percent(node, r) > limit) return false;
  return true;
}

bool requests_a_threshold_resource(const PodInfo& pod, const Args& a) {
  for (const auto& [r, _] : a.thresholds)
    if (r != "pods" && pod.requests().count(r)) return true;
  return false;
}

}  // namespace

double usage_percent(const NodeInfo& node, const std::string& resource) {
  auto [alloc, used] = capacity_and_use(node, resource);
  return alloc > 0 ? used * 100.0 / alloc : 0.0;
}

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path, {"thresholds", "numberOfNodes", "evictionModes", "evictableNamespaces"}))
    return problems.error();
  const nlohmann::json& th = field(a, "thresholds");
  const std::string at = join(path, "thresholds");
  if (!th.is_object() || th.empty()) problems.add(c.at(at, "must name at least one resource with a percentage"));
  for (const auto& [res, v] : th.items()) {
    if (!v.is_number()) {
      problems.add(c.at(at + "." + res, "must be a number"));
      continue;
    }
    double x = v.get<double>();
    if (x < 0 || x > 100) problems.add(c.at(at + "." + res, "must be a percentage 0..100"));
    out.thresholds[res] = x;
  }
  if (auto n = problems.take(args::get_number_of_nodes(c, field(a, "numberOfNodes"), join(path, "numberOfNodes"))))
    out.number_of_nodes = *n;
  auto modes = problems.take(args::get_strings(c, field(a, "evictionModes"), join(path, "evictionModes")));
  for (size_t i = 0; modes && i < modes->size(); ++i) {
    if ((*modes)[i] != "OnlyThresholdingResources")
      problems.add(c.at(join(path, "evictionModes") + "[" + std::to_string(i) + "]",
                        "'" + (*modes)[i] + "' is not OnlyThresholdingResources"));
    out.only_thresholding_resources = true;
  }
  auto ns = problems.take(args::get_namespaces(c, field(a, "evictableNamespaces"), join(path, "evictableNamespaces")));
  if (ns && !ns->include.empty())
    problems.add(c.at(join(path, "evictableNamespaces.include"), "HighNodeUtilization takes only exclude (as upstream)"));
  if (!problems.empty()) return problems.error();
  out.exclude_namespaces = std::move(ns->exclude);
  return out;
}

Status Plugin::balance(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  std::vector<int> low, destinations;
  for (int n : nodes) {
    const NodeInfo& info = cluster.nodes[static_cast<size_t>(n)];
    if (below_thresholds(info, args_)) low.push_back(n);
    else if (!info.unschedulable) destinations.push_back(n);
  }
  if (low.empty() || static_cast<int>(low.size()) <= args_.number_of_nodes || low.size() == nodes.size() ||
      destinations.empty()) {
    handle.note(std::string(kName) + ": " + std::to_string(low.size()) + " underutilized of " +
                std::to_string(nodes.size()) + " nodes; nothing to move");
    return {};
  }
  // Room on the destinations, up to their allocatable, per resource.
  const std::vector<std::string> names = resource_names(args_);
  std::map<std::string, double> room;
  for (int n : destinations)
    for (const auto& r : names) {
      auto [alloc, used] = capacity_and_use(cluster.nodes[static_cast<size_t>(n)], r);
      room[r] += alloc - used;
    }
  auto room_left = [&] {
    return std::all_of(room.begin(), room.end(), [](const auto& kv) { return kv.second > 0; });
  };
  // Least used first (summed percentages; upstream sums raw quantities of mixed units).
  auto total = [&](int n) {
    double sum = 0;
    for (const auto& r : names) sum += usage_percent(cluster.nodes[static_cast<size_t>(n)], r);
    return sum;
  };
  std::stable_sort(low.begin(), low.end(), [&](int a, int b) { return total(a) < total(b); });
  framework::Evictor& evictor = handle.evictor();
  for (int n : low) {
    std::vector<int> pods;
    for (int p : cluster.nodes[static_cast<size_t>(n)].pods) {
      const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
      if (!evictor.filter(p).empty()) continue;
      if (args_.only_thresholding_resources && !requests_a_threshold_resource(pod, args_)) continue;
      pods.push_back(p);
    }
    std::stable_sort(pods.begin(), pods.end(), [&](int a, int b) {
      return evicted_before(cluster.pods[static_cast<size_t>(a)], cluster.pods[static_cast<size_t>(b)]);
    });
    for (int p : pods) {
      if (!room_left()) break;
      if (evictor.total_limit_reached()) return {};
      if (evictor.node_limit_reached(n)) break;
      const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
      if (std::find(args_.exclude_namespaces.begin(), args_.exclude_namespaces.end(), pod.ns) !=
          args_.exclude_namespaces.end())
        continue;
      // Some destination's hard taints must be tolerated (upstream's PodToleratesTaints).
      bool tolerated = std::any_of(destinations.begin(), destinations.end(), [&](int d) {
        return !kube::first_untolerated_hard_taint(cluster.nodes[static_cast<size_t>(d)].taints, pod.tolerations());
      });
      if (!tolerated) continue;
      if (!evictor.evict({p, -1, "node below HighNodeUtilization thresholds", kName}).empty()) continue;
      for (auto& [r, left] : room) left -= pod_use(pod, r);
    }
  }
  return {};
}

}  // namespace weft::descheduler::plugins::high_node_utilization
