#include "descheduler/core/plugins/RemovePodsHavingTooManyRestarts/too_many_restarts.h"

#include <algorithm>

namespace weft::descheduler::plugins::too_many_restarts {

using args::field;
using args::join;

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path,
                          {"namespaces", "labelSelector", "podRestartThreshold", "includingInitContainers", "states"}))
    return problems.error();
  if (auto filter = problems.take(read_pod_filter(c, a, path))) out.filter = std::move(*filter);
  const nlohmann::json& threshold = field(a, "podRestartThreshold");
  if (!threshold.is_null() && (!threshold.is_number_integer() || threshold.get<int64_t>() > INT32_MAX ||
                               threshold.get<int64_t>() < INT32_MIN))
    problems.add(c.at(join(path, "podRestartThreshold"), "must be a 32-bit integer"));
  else if (threshold.is_null() || threshold.get<int64_t>() < 1)
    problems.add(c.at(join(path, "podRestartThreshold"), "must be at least 1 (upstream has no default)"));
  else
    out.pod_restart_threshold = threshold.get<int32_t>();
  problems.add(args::read(c, a, path, "includingInitContainers", out.including_init_containers));
  if (auto states = problems.take(args::get_strings(c, field(a, "states"), join(path, "states")))) {
    for (size_t i = 0; i < states->size(); ++i)
      if ((*states)[i] != "Running" && (*states)[i] != "CrashLoopBackOff")
        problems.add(c.at(join(path, "states") + "[" + std::to_string(i) + "]", "must be Running or CrashLoopBackOff"));
    out.states = std::move(*states);
  }
  if (!problems.empty()) return problems.error();
  return out;
}

int32_t total_restarts(const PodInfo& pod, bool including_init) {
  int64_t total = 0;
  for (const auto& c : pod.detail.containers)
    if (c.kind == ContainerState::Kind::App || (including_init && c.kind == ContainerState::Kind::Init))
      total += c.restarts;
  return static_cast<int32_t>(std::min<int64_t>(total, INT32_MAX));
}

bool qualifies(const PodInfo& pod, const Args& a) {
  if (!a.filter.matches(pod)) return false;
  if (total_restarts(pod, a.including_init_containers) < a.pod_restart_threshold) return false;
  if (a.states.empty()) return true;
  auto listed = [&](std::string_view v) { return !v.empty() && std::find(a.states.begin(), a.states.end(), v) != a.states.end(); };
  if (listed(pod.phase.view())) return true;
  return std::any_of(pod.detail.containers.begin(), pod.detail.containers.end(), [&](const ContainerState& c) {
    bool counted = c.kind == ContainerState::Kind::App || (a.including_init_containers && c.kind == ContainerState::Kind::Init);
    return counted && listed(c.waiting_reason.view());
  });
}

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  auto most_restarts_first = [&](int node) {
    std::vector<std::pair<int32_t, int>> ranked;   // (restarts, pod)
    for (int p : all_pods_on(cluster, node)) {
      const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
      if (qualifies(pod, args_)) ranked.emplace_back(total_restarts(pod, args_.including_init_containers), p);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> order;
    for (const auto& [_, p] : ranked) order.push_back(p);
    return order;
  };
  evict_per_node(handle, nodes, most_restarts_first, kName, [&](int p) {
    return std::to_string(total_restarts(cluster.pods[static_cast<size_t>(p)], args_.including_init_containers)) +
           " restarts >= " + std::to_string(args_.pod_restart_threshold);
  });
  return {};
}

}  // namespace weft::descheduler::plugins::too_many_restarts
