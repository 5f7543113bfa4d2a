#include "tools/node-runtime/pod_spec.h"

#include <chrono>

#include <fmt/format.h>

#include "kube/objects.h"
#include "kube/quantity.h"
#include "kube/time.h"

namespace weft::noderuntime {

bool should_run(const nlohmann::json& pod, const std::set<std::string>& nodes) {
  const auto& spec = pod.value("spec", nlohmann::json::object());
  const std::string node = spec.value("nodeName", "");
  if (node.empty() || !nodes.count(node)) return false;
  if (pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp") &&
      !pod["metadata"]["deletionTimestamp"].is_null())
    return false;
  return !weft::kube::pod_terminal(pod);
}

Result<double> cpu_share(const nlohmann::json& pod, double cpu_scale) {
  const std::string key = weft::kube::key_of(pod);
  const std::string annotated = weft::kube::annotation(pod, kDemoCpuAnnotation);
  if (!annotated.empty()) {
    auto milli = weft::kube::parse_quantity_milli(annotated);
    if (!milli || *milli < 0)
      return make_error(fmt::format("pod {}: annotation {}: '{}' is not a CPU quantity", key, kDemoCpuAnnotation,
                                    annotated));
    return static_cast<double>(*milli) / 1000.0;
  }
  auto requests = weft::kube::pod_requests(pod);
  if (!requests) return wrap(requests.error(), "pod " + key);
  auto it = requests->find("cpu");
  const double cores = it == requests->end() ? 0.0 : static_cast<double>(it->second) / 1000.0;
  return cores * cpu_scale;
}

nlohmann::json running_status(const nlohmann::json& pod, int pid, const std::string& now) {
  auto condition = [&](const char* type) {
    return nlohmann::json{{"type", type}, {"status", "True"}, {"lastTransitionTime", now}};
  };
  nlohmann::json containers = nlohmann::json::array();
  for (const auto& c : pod.value("spec", nlohmann::json::object()).value("containers", nlohmann::json::array())) {
    containers.push_back({{"name", c.value("name", "main")},
                          {"image", c.value("image", "")},
                          {"imageID", ""},
                          {"containerID", fmt::format("weft-demo://{}", pid)},
                          {"ready", true},
                          {"started", true},
                          {"restartCount", 0},
                          {"state", {{"running", {{"startedAt", now}}}}}});
  }
  return {{"phase", "Running"},
          {"hostIP", "127.0.0.1"},
          {"podIP", "127.0.0.1"},
          {"startTime", now},
          {"conditions",
           {condition("PodScheduled"), condition("Initialized"), condition("ContainersReady"), condition("Ready")}},
          {"containerStatuses", containers}};
}

nlohmann::json failed_status(const nlohmann::json& pod, const std::string& reason, const std::string& now) {
  nlohmann::json status = pod.value("status", nlohmann::json::object());
  status["phase"] = "Failed";
  status["reason"] = "ProcessExited";
  status["message"] = reason;
  status["conditions"] = nlohmann::json::array(
      {{{"type", "Ready"}, {"status", "False"}, {"reason", "ProcessExited"}, {"lastTransitionTime", now}}});
  return status;
}

std::string pod_cgroup_name(const nlohmann::json& pod) {
  return "pod-" + weft::kube::namespace_of(pod) + "-" + weft::kube::name_of(pod);
}

std::string rfc3339_now() { return weft::kube::format_rfc3339(std::chrono::system_clock::now()); }

}  // namespace weft::noderuntime
