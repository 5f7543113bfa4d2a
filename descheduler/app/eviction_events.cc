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

// The Warning's reason text: upstream's words for the limits, with their value.
std::string refusal_text(const RefusedEviction& r, const Policy& policy) {
  using By = RefusedEviction::By;
  switch (r.by) {
    case By::TotalLimit: return "total eviction limit exceeded (" + limit_text(policy.max_total) + ")";
    case By::NodeLimit: return "node eviction limit exceeded (" + limit_text(policy.max_per_node) + ")";
    case By::NamespaceLimit: return "namespace eviction limit exceeded (" + limit_text(policy.max_per_namespace) + ")";
    case By::Api: return r.api_message;
    case By::None: break;
  }
  return "";
}

}  // namespace

RefusedEviction refused_eviction(const PlannedSkip& skip) {
  using By = RefusedEviction::By;
  if (skip.reason == "limit-total") return {By::TotalLimit, ""};
  if (skip.reason == "limit-per-node") return {By::NodeLimit, ""};
  if (skip.reason == "limit-per-namespace") return {By::NamespaceLimit, ""};
  // Upstream's evictPod words a pod gone by the eviction's time as an error too.
  if (skip.reason == "pod-gone") return {By::Api, "pod not found when evicting \"" + skip.name + "\""};
  for (const char* prefix : {"eviction-error: ", "pdb: "})
    if (skip.reason.starts_with(prefix)) return {By::Api, skip.reason.substr(std::string(prefix).size())};
  return {};
}

std::vector<EvictionEvent> eviction_events(const Plan& plan, const Policy& policy) {
  std::vector<EvictionEvent> out;
  for (const auto& e : plan.evictions)
    out.push_back({e.ns, e.name, "Normal", e.plugin.empty() ? "NotSet" : e.plugin,
                   "pod eviction from " + e.from + " node by " + kComponent});
  if (!policy.eviction_failure_events) return out;
  for (const auto& s : plan.skipped)
    if (std::string why = refusal_text(refused_eviction(s), policy); !why.empty())
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
