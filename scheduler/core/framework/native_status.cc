// Status of Kubernetes PodGroups (scheduling.k8s.io), as kube-scheduler writes it: the
// PodGroupInitiallyScheduled condition (PodGroupScheduled in v1alpha2), True with reason
// Scheduled once the gang was placed (terminal: never set back to False), else False with
// reason Unschedulable and why. A CompositePodGroup's status stays empty, as in Kubernetes
// 1.37; its children get theirs. Other conditions (DisruptionTarget) are kept. Nothing is
// written for a gang still short of its pods.
#include "scheduler/core/framework/native_status.h"

#include "kube/time.h"
#include "kube/workload.h"
#include "scheduler/core/framework/subgroups.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

const json* condition(const json& status, const std::string& type) {
  if (!status.is_object() || !status.contains("conditions") || !status["conditions"].is_array()) return nullptr;
  for (const auto& c : status["conditions"])
    if (c.is_object() && c.value("type", "") == type) return &c;
  return nullptr;
}

void write_group(Session& s, const PodGroupInfo& g, bool scheduled, const std::string& why) {
  const std::string type = kube::scheduled_condition_type(g.api_version);
  const json* old = condition(g.status, type);
  if (old && old->value("status", "") == "True") return;   // terminal
  json c = {{"type", type}, {"status", scheduled ? "True" : "False"},
            {"reason", scheduled ? "Scheduled" : "Unschedulable"}, {"message", scheduled ? "" : why}};
  if (old && old->value("status", "") == c["status"] && old->value("reason", "") == c["reason"] &&
      old->value("message", "") == c["message"])
    return;
  c["lastTransitionTime"] = old && old->value("status", "") == c["status"] ? old->value("lastTransitionTime", "")
                                                                            : kube::format_rfc3339(s.snap.now);
  json status = g.status.is_object() ? g.status : json::object();
  json conds = json::array();
  if (status.contains("conditions") && status["conditions"].is_array())
    for (const auto& other : status["conditions"])
      if (!other.is_object() || other.value("type", "") != type) conds.push_back(other);
  conds.push_back(c);
  status["conditions"] = conds;
  s.out.status_writes.push_back({g.key, status});
}

}  // namespace

void write_native_status(Session& s, const Job& j, const std::optional<std::pair<std::string, std::string>>& why) {
  // A gang still short of its pods is held before the queue (kube-scheduler's PreEnqueue):
  // no scheduling attempt, so no condition and no FailedScheduling (while a 4,096-pod gang
  // is being created, each count would be a write).
  if (s.job_valid(j)) return;
  const std::string message = why ? why->second : "";
  if (!j.pending.empty() && why)
    for (int p : j.pending)
      if (s.node_of_pod[p] < 0) s.out.events.push_back({"Pod", s.snap.pods[p].key, "Warning", "FailedScheduling", message});
  const bool ready = s.job_ready(j);
  if (j.group->kind != "CompositePodGroup") {
    write_group(s, *j.group, ready, message);
    return;
  }
  for (const auto& g : j.subgroups)
    if (g.child) write_group(s, *g.child, ready && subgroup_occupied(s, g, false) >= g.size, message);
}

}  // namespace weft::scheduler
