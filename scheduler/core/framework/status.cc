// PodGroup status: written only when phase, counts or the condition change, never for a
// PodGroup without pods. Unschedulable jobs get a condition and an Event naming the filter.
#include "scheduler/core/framework/native_status.h"
#include "scheduler/core/framework/session.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

json comparable(const json& status) {
  json out = json::object();
  for (const char* k : {"phase", "running", "succeeded", "failed"})
    if (status.contains(k)) out[k] = status[k];
  for (const char* k : {"running", "succeeded", "failed"})
    if (!out.contains(k) || out[k].is_null()) out[k] = 0;
  if (!out.contains("phase")) out["phase"] = "Pending";
  json conds = json::array();
  if (status.contains("conditions") && status["conditions"].is_array())
    for (const auto& c : status["conditions"])
      if (c.is_object())
        conds.push_back({{"type", c.value("type", "")}, {"status", c.value("status", "")},
                         {"reason", c.value("reason", "")}, {"message", c.value("message", "")}});
  out["conditions"] = conds;
  return out;
}

}  // namespace

void write_statuses(Session& s) {
  for (const Job& j : s.jobs) {
    std::optional<std::pair<std::string, std::string>> why = j.unschedulable;
    if (!j.blocked.empty()) why = {j.blocked_reason, j.blocked};
    for (int p : j.pending) {
      if (s.node_of_pod[p] >= 0) continue;
      const PodInfo& pod = s.snap.pods[p];
      auto pod_why = pod.held_back() ? std::optional(pod.held_back_reason()) : why;
      if (!pod_why) continue;
      s.out.unschedulable[pod.key] = pod_why->second;
      s.out.unschedulable_reasons[pod.key] = pod_why->first;
    }
    if (j.group && j.group->native) {
      write_native_status(s, j, why);
      continue;
    }
    if (!j.group) {
      if (why && !j.pending.empty())
        s.out.events.push_back({"Pod", j.key, "Warning", "FailedScheduling", why->second});
      continue;
    }
    if (j.pods.empty()) continue;   // never reached: jobs are built from pods; kept for clarity
    std::string phase;
    if (!j.enqueued) phase = "Pending";
    else if (j.bound == 0 && j.succeeded > 0 && j.succeeded + j.failed == static_cast<int>(j.pods.size()))
      phase = "Completed";
    else if (j.occupied() >= j.min_member && j.bound > 0) phase = "Running";
    else if (j.bound > 0) phase = "Unknown";
    else phase = "Inqueue";
    json status = {{"phase", phase}, {"running", j.bound}, {"succeeded", j.succeeded}, {"failed", j.failed}};
    json conds = json::array();
    if (why)
      conds.push_back({{"type", "Unschedulable"}, {"status", "True"}, {"reason", why->first}, {"message", why->second}});
    status["conditions"] = conds;
    if (comparable(j.group->status) == comparable(status)) continue;
    s.out.status_writes.push_back({j.key, status});
    if (why) s.out.events.push_back({"PodGroup", j.key, "Warning", "Unschedulable", why->second});
  }
}

}  // namespace weft::scheduler
