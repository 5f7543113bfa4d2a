// What the demo runtime reads from a Pod and writes back: whether it should run on one
// of our nodes, how much real CPU its process burns, and the status of a running pod.
// Pure functions over the Pod JSON, so they are tested without an API server.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::noderuntime {

// Real cores a pod's process burns, overriding its request.
inline constexpr const char* kDemoCpuAnnotation = "weft.dev/demo-cpu";

// Bound to one of `nodes`, not being deleted, not finished.
bool should_run(const nlohmann::json& pod, const std::set<std::string>& nodes);

// Real cores to burn: the weft.dev/demo-cpu annotation, else the pod's CPU request times
// cpu_scale (a simulated node's nominal cores mapped onto its slice of this machine).
// Errors name the pod and the bad value.
Result<double> cpu_share(const nlohmann::json& pod, double cpu_scale);

// The status a kubelet reports for a started pod: phase Running, Ready, one running
// container status per container. now_rfc3339: the start time.
nlohmann::json running_status(const nlohmann::json& pod, int pid, const std::string& now_rfc3339);
// The status of a pod whose process ended on its own.
nlohmann::json failed_status(const nlohmann::json& pod, const std::string& reason, const std::string& now_rfc3339);

// Directory name of a pod's group under its node's cgroup: "pod-NS-NAME".
std::string pod_cgroup_name(const nlohmann::json& pod);

std::string rfc3339_now();

}  // namespace weft::noderuntime
