#include "kube/client/events.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "kube/objects.h"

namespace weft::kube {

using nlohmann::json;

EventRecorder::EventRecorder(Client& client, std::string component, std::string host)
    : client_(client), component_(std::move(component)), host_(std::move(host)) {}

json EventRecorder::build(const json& involved, const std::string& type, const std::string& reason,
                          const std::string& message) const {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos));

  std::string ns = namespace_of(involved);
  if (ns.empty()) ns = "default";  // events about cluster-scoped objects (Nodes) live here
  const json& meta = involved.contains("metadata") ? involved["metadata"] : json::object();
  json ref = {{"apiVersion", involved.value("apiVersion", "v1")},
              {"kind", involved.value("kind", "")},
              {"name", name_of(involved)}};
  if (!namespace_of(involved).empty()) ref["namespace"] = namespace_of(involved);
  if (meta.contains("uid")) ref["uid"] = meta["uid"];
  if (meta.contains("resourceVersion")) ref["resourceVersion"] = meta["resourceVersion"];
  json source = {{"component", component_}};
  if (!host_.empty()) source["host"] = host_;
  return json{{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name_of(involved) + suffix}, {"namespace", ns}}},
              {"involvedObject", ref},
              {"type", type},
              {"reason", reason},
              {"message", message.substr(0, 1024)},
              {"source", source},
              {"reportingComponent", component_},
              {"reportingInstance", host_.empty() ? component_ : host_},
              {"firstTimestamp", stamp},
              {"lastTimestamp", stamp},
              {"count", 1}};
}

Result<json> EventRecorder::record(const json& involved, const std::string& type, const std::string& reason,
                                   const std::string& message) {
  json event = build(involved, type, reason, message);
  std::string ns = event["metadata"]["namespace"];
  return client_.create(resources::events(), ns, event);
}

}  // namespace weft::kube
