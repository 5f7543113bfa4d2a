// Kubernetes' own gang API (scheduling.k8s.io: KEP-4671 Workload, KEP-5732 topology
// constraints, KEP-6012 CompositePodGroup) as kube-scheduler reads it: PodGroup (basic or
// gang with minCount, a topology key, workload and parent references), CompositePodGroup
// (minGroupCount, a topology key), Workload (templates). Served versions: v1alpha2
// (PodGroup, Workload), v1alpha3 and v1beta1. Validation follows the API's declarative
// rules; fields weft does not model (resourceClaims) are refused, never ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

inline constexpr const char* kWorkloadApiGroup = "scheduling.k8s.io";

// The API group of an object's apiVersion ("" for the core group "v1").
std::string api_group_of(const nlohmann::json& obj);
// "v1beta1" of "scheduling.k8s.io/v1beta1".
std::string api_version_of(const nlohmann::json& obj);

// How these groups are told apart from a Volcano PodGroup of the same namespace and name
// in the scheduler's maps and messages: "podgroups.scheduling.k8s.io/<ns>/<name>" (and
// "compositepodgroups.scheduling.k8s.io/..."), resource.group as kubectl names them.
std::string native_group_key(const std::string& kind, const std::string& namespace_name, const std::string& name);
struct NativeGroupRef {
  std::string kind, namespace_name, name;
};
// The kind, namespace and name of such a key; nullopt for any other key (a Volcano PodGroup's "ns/name").
std::optional<NativeGroupRef> split_native_group_key(const std::string& key);

struct WorkloadReference {
  std::string workload_name, template_name;
};

// Fields PodGroup and CompositePodGroup share.
struct NativeGroupCommon {
  std::string namespace_name, name, api_version;
  bool gang = false;                    // schedulingPolicy.gang (else basic)
  std::string topology_key;             // schedulingConstraints.topology[0].key; "" = none
  std::string parent;                   // parentCompositePodGroupName; "" = a root
  std::optional<WorkloadReference> workload_ref;
  std::string priority_class_name;
  std::optional<int32_t> priority;
  bool preempt_never = false;           // preemptionPolicy: Never
  bool disrupt_all = false;             // disruptionMode.all
  nlohmann::json status = nlohmann::json::object();
};

struct NativePodGroup : NativeGroupCommon {
  int32_t min_count = 1;                // gang.minCount (basic: 1)
};

struct NativeCompositePodGroup : NativeGroupCommon {
  int32_t min_group_count = 0;          // gang.minGroupCount (basic: 0)
};

struct NativeWorkload {
  std::string namespace_name, name;
  std::vector<std::string> pod_group_templates, composite_templates;
};

// Errors name the object and the field: "PodGroup default/w: spec.schedulingPolicy: exactly
// one of basic and gang must be set".
Result<NativePodGroup> parse_native_podgroup(const nlohmann::json& obj);
Result<NativeCompositePodGroup> parse_composite_podgroup(const nlohmann::json& obj);
Result<NativeWorkload> parse_workload(const nlohmann::json& obj);

// A label key as Kubernetes validates one: [prefix/]name, the prefix a DNS subdomain,
// the name at most 63 of [A-Za-z0-9-_.] starting and ending alphanumeric.
bool valid_label_key(const std::string& key);
// A label value as Kubernetes validates one: empty, or at most 63 of [A-Za-z0-9-_.]
// starting and ending alphanumeric.
bool valid_label_value(const std::string& value);

// The condition type kube-scheduler writes on a PodGroup of this version
// (v1alpha2: PodGroupScheduled; later: PodGroupInitiallyScheduled).
std::string scheduled_condition_type(const std::string& api_version);

}  // namespace weft::kube
