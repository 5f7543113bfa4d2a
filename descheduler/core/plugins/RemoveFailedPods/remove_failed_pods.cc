#include "descheduler/core/plugins/RemoveFailedPods/remove_failed_pods.h"

#include <algorithm>

namespace weft::descheduler::plugins::remove_failed_pods {
namespace {

using args::field;
using args::join;

bool counts(const ContainerState& c, bool including_init) {
  return c.kind == ContainerState::Kind::App || (including_init && c.kind == ContainerState::Kind::Init);
}

bool any_reason(const PodInfo& pod, const Args& a) {
  auto wanted = [&](const SharedString& r) {
    return !r.empty() && std::find(a.reasons.begin(), a.reasons.end(), r.view()) != a.reasons.end();
  };
  if (wanted(pod.detail.reason)) return true;
  return std::any_of(pod.detail.containers.begin(), pod.detail.containers.end(), [&](const ContainerState& c) {
    return counts(c, a.including_init_containers) && (wanted(c.waiting_reason) || wanted(c.terminated_reason));
  });
}

bool any_exit_code(const PodInfo& pod, const Args& a) {
  return std::any_of(pod.detail.containers.begin(), pod.detail.containers.end(), [&](const ContainerState& c) {
    return counts(c, a.including_init_containers) && c.exit_code &&
           std::find(a.exit_codes.begin(), a.exit_codes.end(), *c.exit_code) != a.exit_codes.end();
  });
}

}  // namespace

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path,
                          {"namespaces", "labelSelector", "excludeOwnerKinds", "minPodLifetimeSeconds", "reasons",
                           "exitCodes", "includingInitContainers"}))
    return problems.error();
  if (auto filter = problems.take(read_pod_filter(c, a, path))) out.filter = std::move(*filter);
  problems.add(args::read(c, a, path, "excludeOwnerKinds", out.exclude_owner_kinds));
  problems.add(args::read(c, a, path, "minPodLifetimeSeconds", out.min_pod_lifetime_seconds));
  problems.add(args::read(c, a, path, "reasons", out.reasons));
  problems.add(args::read(c, a, path, "exitCodes", out.exit_codes));
  problems.add(args::read(c, a, path, "includingInitContainers", out.including_init_containers));
  if (!problems.empty()) return problems.error();
  return out;
}

std::string mismatch(const PodInfo& pod, const Args& a, TimePoint now) {
  if (pod.phase != "Failed") return "not failed";
  if (!a.filter.matches(pod)) return "namespace or labels";
  // A pod without a creation time is as old as can be (upstream reads Go's zero time).
  if (a.min_pod_lifetime_seconds && pod.detail.created &&
      now - *pod.detail.created < std::chrono::seconds(*a.min_pod_lifetime_seconds))
    return "younger than minPodLifetimeSeconds";
  if (!a.exclude_owner_kinds.empty() && owned_by_any(pod, a.exclude_owner_kinds)) return "owner kind excluded";
  if (!a.reasons.empty() && !any_reason(pod, a)) return "no matching reason";
  if (!a.exit_codes.empty() && !any_exit_code(pod, a)) return "no matching exit code";
  return "";
}

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  auto failed = [&](int node) {
    std::vector<int> out;
    for (int p : all_pods_on(cluster, node))
      if (mismatch(cluster.pods[static_cast<size_t>(p)], args_, handle.now()).empty()) out.push_back(p);
    return out;
  };
  evict_per_node(handle, nodes, failed, kName, [](int) { return std::string("failed pod"); });
  return {};
}

}  // namespace weft::descheduler::plugins::remove_failed_pods
