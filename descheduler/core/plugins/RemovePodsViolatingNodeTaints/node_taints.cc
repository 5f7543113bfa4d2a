#include "descheduler/core/plugins/RemovePodsViolatingNodeTaints/node_taints.h"

#include <algorithm>

namespace weft::descheduler::plugins::node_taints {
namespace {

using args::field;
using args::join;

bool names(const std::vector<std::string>& list, const kube::Taint& t) {
  auto has = [&](const std::string& s) { return std::find(list.begin(), list.end(), s) != list.end(); };
  return has(t.key) || (!t.value.empty() && has(t.key + "=" + t.value));
}

bool considered(const kube::Taint& t, const Args& a) {
  bool effect = t.effect == "NoSchedule" || (a.include_prefer_no_schedule && t.effect == "PreferNoSchedule");
  return effect && !names(a.excluded_taints, t) && (!a.included_taints || names(*a.included_taints, t));
}

}  // namespace

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path,
                          {"namespaces", "labelSelector", "includePreferNoSchedule", "excludedTaints", "includedTaints"}))
    return problems.error();
  if (auto filter = problems.take(read_pod_filter(c, a, path))) out.filter = std::move(*filter);
  problems.add(args::read(c, a, path, "includePreferNoSchedule", out.include_prefer_no_schedule));
  problems.add(args::read(c, a, path, "excludedTaints", out.excluded_taints));
  if (!field(a, "includedTaints").is_null())
    if (auto included = problems.take(args::get_strings(c, field(a, "includedTaints"), join(path, "includedTaints"))))
      out.included_taints = std::move(*included);
  if (!out.excluded_taints.empty() && out.included_taints && !out.included_taints->empty())
    problems.add(c.at(path, "set includedTaints or excludedTaints, not both"));
  if (!problems.empty()) return problems.error();
  return out;
}

std::optional<kube::Taint> violated_taint(const PodInfo& pod, const NodeInfo& node, const Args& a) {
  for (const auto& t : node.taints)
    if (considered(t, a) && !kube::tolerated(pod.tolerations(), t)) return t;
  return std::nullopt;
}

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  auto node_of = [&](int pod) -> const NodeInfo& {
    return cluster.nodes[static_cast<size_t>(cluster.pods[static_cast<size_t>(pod)].node)];
  };
  auto violating = [&](int node) {
    const NodeInfo& info = cluster.nodes[static_cast<size_t>(node)];
    std::vector<int> out;
    if (info.taints.empty()) return out;
    for (int p : info.pods) {
      const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
      if (args_.filter.matches(pod) && violated_taint(pod, info, args_)) out.push_back(p);
    }
    return out;
  };
  evict_per_node(handle, nodes, violating, kName, [&](int p) {
    auto t = violated_taint(cluster.pods[static_cast<size_t>(p)], node_of(p), args_);
    return "does not tolerate taint " + t->key + (t->value.empty() ? "" : "=" + t->value) + ":" + t->effect;
  });
  return {};
}

}  // namespace weft::descheduler::plugins::node_taints
