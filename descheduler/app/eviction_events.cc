#include "descheduler/app/eviction_events.h"

#include <spdlog/spdlog.h>

#include "kube/client/events.h"

namespace weft::descheduler {

Result<kube::EvictionResult> evict_and_report(kube::Client& client, const std::string& ns, const std::string& pod,
                                              int64_t grace_seconds, bool events) {
  auto r = client.evict(ns, pod, grace_seconds);
  if (!events) return r;
  std::string why;
  if (!r) why = r.message();
  else if (r->outcome == kube::EvictionResult::Outcome::Blocked) why = r->message;
  else return r;
  nlohmann::json involved = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"namespace", ns}, {"name", pod}}}};
  kube::EventRecorder recorder(client, "weft-descheduler");
  auto posted = recorder.record(involved, "Warning", "EvictionFailed", "pod eviction by weft-descheduler failed: " + why);
  if (!posted) spdlog::warn("event for failed eviction of {}/{}: {}", ns, pod, posted.message());
  return r;
}

}  // namespace weft::descheduler
