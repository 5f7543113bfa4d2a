#include "descheduler/core/plugins/PodLifeTime/pod_lifetime.h"

#include <algorithm>
#include <array>

namespace weft::descheduler::plugins::pod_lifetime {
namespace {

using args::field;
using args::join;

// The values `states` may name (upstream's list): phases, pod status reasons, container
// waiting reasons and container terminated reasons.
constexpr std::array<const char*, 24> kStates = {
    "Running", "Pending", "Succeeded", "Failed", "Unknown", "NodeAffinity", "NodeLost", "Shutdown",
    "UnexpectedAdmissionError", "PodInitializing", "ContainerCreating", "ImagePullBackOff", "CrashLoopBackOff",
    "CreateContainerConfigError", "ErrImagePull", "CreateContainerError", "InvalidImageName", "OOMKilled", "Error",
    "Completed", "DeadlineExceeded", "Evicted", "ContainerCannotRun", "StartError"};

bool contains(const std::vector<std::string>& list, std::string_view v) {
  return !v.empty() && std::find(list.begin(), list.end(), v) != list.end();
}

bool container_counts(const ContainerState& c, const Args& a, bool for_exit_codes) {
  switch (c.kind) {
    case ContainerState::Kind::App: return true;
    case ContainerState::Kind::Init: return a.including_init_containers;
    case ContainerState::Kind::Ephemeral: return a.including_ephemeral_containers && !for_exit_codes;
  }
  return false;
}

bool in_state(const PodInfo& pod, const Args& a) {
  if (contains(a.states, pod.phase.view()) || contains(a.states, pod.detail.reason.view())) return true;
  return std::any_of(pod.detail.containers.begin(), pod.detail.containers.end(), [&](const ContainerState& c) {
    return container_counts(c, a, false) &&
           (contains(a.states, c.waiting_reason.view()) || contains(a.states, c.terminated_reason.view()));
  });
}

bool condition_matches(const PodCondition& cond, const ConditionFilter& f, TimePoint now) {
  if (!f.type.empty() && cond.type != f.type) return false;
  if (!f.status.empty() && cond.status != f.status) return false;
  if (!f.reason.empty() && cond.reason != f.reason) return false;
  if (!f.min_time_since_last_transition_seconds) return true;
  if (!cond.last_transition || *cond.last_transition > now) return false;
  return now - *cond.last_transition >= std::chrono::seconds(*f.min_time_since_last_transition_seconds);
}

bool any_condition(const PodInfo& pod, const Args& a, TimePoint now) {
  for (const auto& f : a.conditions)
    for (const auto& cond : pod.detail.conditions)
      if (condition_matches(cond, f, now)) return true;
  return false;
}

bool any_exit_code(const PodInfo& pod, const Args& a) {
  return std::any_of(pod.detail.containers.begin(), pod.detail.containers.end(), [&](const ContainerState& c) {
    return container_counts(c, a, true) && c.exit_code &&
           std::find(a.exit_codes.begin(), a.exit_codes.end(), *c.exit_code) != a.exit_codes.end();
  });
}

Result<std::vector<ConditionFilter>> parse_conditions(const args::Ctx& c, const nlohmann::json& v, const std::string& path) {
  std::vector<ConditionFilter> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return c.at(path, "must be a list");
  args::Problems problems;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string at = path + "[" + std::to_string(i) + "]";
    if (!problems.add(args::only_fields(c, v[i], at, {"type", "status", "reason", "minTimeSinceLastTransitionSeconds"})) &&
        !v[i].is_object())
      continue;
    ConditionFilter f;
    struct Text { const char* key; std::string* into; };
    for (Text t : {Text{"type", &f.type}, Text{"status", &f.status}, Text{"reason", &f.reason}})
      if (auto s = problems.take(args::get_string(c, field(v[i], t.key), join(at, t.key)))) *t.into = *s;
    if (auto min = problems.take(args::get_uint(c, field(v[i], "minTimeSinceLastTransitionSeconds"),
                                                join(at, "minTimeSinceLastTransitionSeconds"))))
      f.min_time_since_last_transition_seconds = *min;
    if (f.type.empty() && f.status.empty() && f.reason.empty() &&
        field(v[i], "minTimeSinceLastTransitionSeconds").is_null())
      problems.add(c.at(at, "set at least one of type, status, reason or minTimeSinceLastTransitionSeconds"));
    out.push_back(std::move(f));
  }
  if (!problems.empty()) return problems.error();
  return out;
}

}  // namespace

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path,
                          {"namespaces", "labelSelector", "ownerKinds", "maxPodLifeTimeSeconds", "states", "conditions",
                           "exitCodes", "includingInitContainers", "includingEphemeralContainers"}))
    return problems.error();
  if (auto filter = problems.take(read_pod_filter(c, a, path))) out.filter = std::move(*filter);
  // ownerKinds has the same {include, exclude} shape as namespaces.
  if (auto kinds = problems.take(args::get_namespaces(c, field(a, "ownerKinds"), join(path, "ownerKinds")))) {
    out.include_owner_kinds = std::move(kinds->include);
    out.exclude_owner_kinds = std::move(kinds->exclude);
  }
  problems.add(args::read(c, a, path, "maxPodLifeTimeSeconds", out.max_pod_lifetime_seconds));
  // A state given, even an unknown one, is a criterion: only the unknown one is reported.
  bool states_given = field(a, "states").is_array() && !field(a, "states").empty();
  if (auto states = problems.take(args::get_strings(c, field(a, "states"), join(path, "states")))) {
    for (size_t i = 0; i < states->size(); ++i)
      if (std::find(kStates.begin(), kStates.end(), (*states)[i]) == kStates.end())
        problems.add(c.at(join(path, "states") + "[" + std::to_string(i) + "]",
                          "'" + (*states)[i] + "' is not a pod phase, pod status reason or container state reason upstream knows"));
    out.states = std::move(*states);
  }
  bool conditions_given = field(a, "conditions").is_array() && !field(a, "conditions").empty();
  if (auto conditions = problems.take(parse_conditions(c, field(a, "conditions"), join(path, "conditions"))))
    out.conditions = std::move(*conditions);
  bool exit_codes_given = field(a, "exitCodes").is_array() && !field(a, "exitCodes").empty();
  problems.add(args::read(c, a, path, "exitCodes", out.exit_codes));
  problems.add(args::read(c, a, path, "includingInitContainers", out.including_init_containers));
  problems.add(args::read(c, a, path, "includingEphemeralContainers", out.including_ephemeral_containers));
  if (field(a, "maxPodLifeTimeSeconds").is_null() && !states_given && !conditions_given && !exit_codes_given)
    problems.add(c.at(path, "set at least one of maxPodLifeTimeSeconds, states, conditions or exitCodes"));
  if (!problems.empty()) return problems.error();
  return out;
}

bool qualifies(const PodInfo& pod, const Args& a, TimePoint now) {
  if (!a.filter.matches(pod)) return false;
  if (a.max_pod_lifetime_seconds) {
    // A pod without a creation time is as old as can be (upstream reads Go's zero time).
    if (pod.detail.created) {
      if (*pod.detail.created > now) return false;
      auto age = std::chrono::duration_cast<std::chrono::seconds>(now - *pod.detail.created).count();
      if (age <= *a.max_pod_lifetime_seconds) return false;
    }
  }
  if (!a.states.empty() && !in_state(pod, a)) return false;
  if (!a.include_owner_kinds.empty() && !owned_by_any(pod, a.include_owner_kinds)) return false;
  if (!a.exclude_owner_kinds.empty() && owned_by_any(pod, a.exclude_owner_kinds)) return false;
  if (!a.conditions.empty() && !any_condition(pod, a, now)) return false;
  if (!a.exit_codes.empty() && !any_exit_code(pod, a)) return false;
  return true;
}

Status Plugin::deschedule(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  framework::Evictor& evictor = handle.evictor();
  std::vector<int> qualifying;
  for (int node : nodes)
    for (int p : all_pods_on(cluster, node))
      if (qualifies(cluster.pods[static_cast<size_t>(p)], args_, handle.now())) qualifying.push_back(p);
  std::vector<Listed> candidates = list_pods(evictor, qualifying);
  // Oldest first across every node (a pod without a creation time is the oldest).
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Listed& a, const Listed& b) {
    const auto& ca = cluster.pods[static_cast<size_t>(a.pod)].detail.created;
    const auto& cb = cluster.pods[static_cast<size_t>(b.pod)].detail.created;
    if (!ca || !cb) return !ca && cb;
    return *ca < *cb;
  });
  for (const Listed& listed : candidates) {
    if (evictor.total_limit_reached()) return {};
    if (evictor.node_limit_reached(cluster.pods[static_cast<size_t>(listed.pod)].node)) continue;
    evict_listed(handle, listed, {-1, -1, "older than its lifetime or in a listed state", kName});
  }
  return {};
}

}  // namespace weft::descheduler::plugins::pod_lifetime
