#include "descheduler/core/plugins/RemovePodsViolatingInterPodAntiAffinity/inter_pod_anti_affinity.h"

#include <algorithm>

#include "descheduler/core/plugins/common/victim_order.h"
#include "scheduler/core/plugins/interpodaffinity/inter_pod_affinity.h"

namespace weft::descheduler::plugins::inter_pod_anti_affinity {

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path, {"namespaces", "labelSelector"})) return problems.error();
  auto filter = problems.take(read_pod_filter(c, a, path));
  if (!problems.empty()) return problems.error();
  return Args{std::move(*filter)};
}

namespace {

bool has_required_anti_affinity(const Cluster& cluster, const PodInfo& pod) {
  return pod.core >= 0 && !cluster.snapshot.pods[static_cast<size_t>(pod.core)].contract().anti_affinity.empty();
}

// The scheduler's InterPodAffinity filter refuses the pod where it is for its own
// anti-affinity terms (not for other pods' terms toward it).
bool violates(framework::Evictor& evictor, int pod, int node) {
  auto reasons = evictor.other_pod_blockers(pod, node);
  return std::find(reasons.begin(), reasons.end(), scheduler::kAntiAffinityReason) != reasons.end();
}

}  // namespace

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  framework::Evictor& evictor = handle.evictor();
  for (int node : nodes) {
    std::vector<int> candidates;
    for (int p : cluster.nodes[static_cast<size_t>(node)].pods) {
      const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
      if (args_.filter.matches(pod) && has_required_anti_affinity(cluster, pod)) candidates.push_back(p);
    }
    std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
      return evicted_before(cluster.pods[static_cast<size_t>(a)], cluster.pods[static_cast<size_t>(b)]);
    });
    for (int p : candidates) {
      if (evictor.total_limit_reached()) return {};
      if (evictor.node_limit_reached(node)) break;
      // Asked one by one: an eviction just allowed takes its pod out of the count.
      if (evictor.evicted(p) || !violates(evictor, p, node)) continue;
      if (!evictor.filter(p).empty()) continue;
      framework::EvictionRequest request;
      request.pod = p;
      request.reason = "breaks its required inter-pod anti-affinity on this node's domain";
      request.plugin = kName;
      evictor.evict(request);
    }
  }
  return {};
}

}  // namespace weft::descheduler::plugins::inter_pod_anti_affinity
