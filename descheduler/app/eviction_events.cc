#include "descheduler/app/eviction_events.h"

#include <spdlog/spdlog.h>

#include "kube/client/events.h"

namespace weft::descheduler {
namespace {

constexpr const char* kComponent = "weft-descheduler";

nlohmann::json pod_ref(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"namespace", ns}, {"name", name}}}};
}

std::string limit_text(const std::optional<int>& limit) { return limit ? std::to_string(*limit) : "unset"; }

// Why a skip was a refused eviction, in upstream's words for the limits; empty when the
// pod was never put to the evictor's limits or the API (filtered, not attempted).
std::string refusal(const PlannedSkip& skip, const Policy& policy) {
  if (skip.reason == "limit-total") return "total eviction limit exceeded (" + limit_text(policy.max_total) + ")";
  if (skip.reason == "limit-per-node") return "node eviction limit exceeded (" + limit_text(policy.max_per_node) + ")";
  if (skip.reason == "limit-per-namespace")
    return "namespace eviction limit exceeded (" + limit_text(policy.max_per_namespace) + ")";
  for (const char* prefix : {"eviction-error: ", "pdb: "})
    if (skip.reason.starts_with(prefix)) return skip.reason.substr(std::string(prefix).size());
  return "";
}

}  // namespace

std::vector<EvictionEvent> eviction_events(const Plan& plan, const Policy& policy) {
  std::vector<EvictionEvent> out;
  for (const auto& e : plan.evictions)
    out.push_back({e.ns, e.name, "Normal", e.plugin.empty() ? "NotSet" : e.plugin,
                   "pod eviction from " + e.from + " node by " + kComponent});
  if (!policy.eviction_failure_events) return out;
  for (const auto& s : plan.skipped)
    if (std::string why = refusal(s, policy); !why.empty())
      out.push_back({s.ns, s.name, "Warning", "EvictionFailed",
                     "pod eviction from " + s.node + " node by " + kComponent + " failed: " + why});
  return out;
}

void record_eviction_events(kube::Client& client, const Plan& plan, const Policy& policy) {
  kube::EventRecorder recorder(client, kComponent);
  for (const auto& e : eviction_events(plan, policy)) {
    nlohmann::json event = recorder.build(pod_ref(e.ns, e.pod), e.type, e.reason, e.message);
    event["action"] = "Descheduled";
    if (auto r = recorder.post(event); !r) spdlog::warn("event {} for {}/{}: {}", e.reason, e.ns, e.pod, r.message());
  }
}

}  // namespace weft::descheduler
