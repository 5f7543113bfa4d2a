// Small accessors over Kubernetes objects held as JSON, shared by every part.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/quantity.h"

namespace weft::kube {

// metadata.<field> when it is a string, else "" (uid, resourceVersion, creationTimestamp...).
std::string metadata_string(const nlohmann::json& obj, const char* field);
std::string name_of(const nlohmann::json& obj);
std::string namespace_of(const nlohmann::json& obj);   // "" for cluster-scoped objects
std::string key_of(const nlohmann::json& obj);          // "ns/name" or "name"
std::string kind_of(const nlohmann::json& obj);
std::string annotation(const nlohmann::json& obj, const std::string& key, const std::string& fallback = "");
std::string label(const nlohmann::json& obj, const std::string& key, const std::string& fallback = "");
// obj[key] when it is a string; "" when obj is not an object or key is absent or null; an
// error naming `where`.key when it is there but not a string.
Result<std::string> optional_string(const nlohmann::json& obj, const char* key, const std::string& where);

// Runs a decoder of one object (returning Result<T> or Status) and turns a field of a type
// nlohmann cannot convert, one the decoder does not check itself, into an error about the
// object at `where` instead of an exception: bad input is refused, never a crash.
template <typename Decode>
auto refuse_type_errors(const std::string& where, Decode&& decode) -> decltype(decode()) {
  try {
    return decode();
  } catch (const nlohmann::json::exception& e) {
    return make_error((where.empty() ? "" : where + ": ") + "a field has the wrong type (" + e.what() + ")");
  }
}

// What of a pod's spec its effective request is computed from, however it was read (a
// tree here, or straight from text by the scheduler's cache).
struct ContainerResources {
  ResourceList requests, limits;
  bool sidecar = false;   // an init container with restartPolicy Always
};
struct PodResources {
  std::vector<ContainerResources> containers, init_containers;
  ResourceList overhead;
  ContainerResources pod_level;   // spec.resources (pod-level requests and limits)
};
Result<PodResources> pod_resources(const nlohmann::json& pod);
// A pod's effective request, as Kubernetes and Volcano compute it: each container's
// requests (a limit standing in for a missing request, as the API server defaults them);
// the containers and the sidecars summed, at least each other init container plus the
// sidecars started before it, plus spec.overhead. Pod-level spec.resources, where set,
// stands for the containers' sum on the resources it may name (cpu, memory, hugepages-*).
ResourceList effective_request(const PodResources& pod);
// Both. Errors name the container and resource.
Result<ResourceList> pod_requests(const nlohmann::json& pod);
// status.allocatable (falling back to capacity) of a Node.
Result<ResourceList> node_allocatable(const nlohmann::json& node);
// Ready condition True.
bool node_ready(const nlohmann::json& node);
// The same rule over what status.conditions says, for readers that do not hold a tree:
// whether it is a list, its length, and the status of its first Ready condition.
bool node_ready(bool conditions_listed, size_t conditions, const std::optional<std::string>& ready_status);
bool node_unschedulable(const nlohmann::json& node);   // spec.unschedulable (cordon)
// spec.priority, else 0.
int32_t pod_priority(const nlohmann::json& pod);
// Pods that have finished hold no resources.
bool pod_terminal(const nlohmann::json& pod);          // phase Succeeded or Failed
// ownerReferences[controller=true].kind, or "" for a bare pod.
std::string controller_kind(const nlohmann::json& pod);
// A mirror or static pod, as upstream's descheduler tells them: the config.mirror annotation
// present (whatever its value), or a config.source other than "api". Each argument is that
// annotation's value, null when absent (callers read annotations their own way).
inline constexpr const char* kConfigMirrorAnnotation = "kubernetes.io/config.mirror";
inline constexpr const char* kConfigSourceAnnotation = "kubernetes.io/config.source";
bool pod_is_mirror_or_static(const std::string* config_mirror, const std::string* config_source);

}  // namespace weft::kube
