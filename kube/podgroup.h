// Volcano's PodGroup (scheduling.volcano.sh/v1beta1) as the scheduler and the descheduler
// both read it, with weft's weft.dev/ib-cluster annotation. Validation follows Volcano's
// CRD schema and admission webhook; docs/contracts.md lists where weft is stricter.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/quantity.h"
#include "kube/selector.h"

namespace weft::kube {

// On a PodGroup (either API): the pod label that holds each pod's rank, as Kueue's podIndexLabel.
inline constexpr const char* kPodIndexLabelAnnotation = "weft.dev/pod-index-label";

struct PodGroupNetworkTopology {
  enum class Mode { Hard, Soft };
  Mode mode = Mode::Hard;                       // Volcano's default
  std::optional<int32_t> highest_tier_allowed;  // >= 0 (Volcano: Minimum=0)
  std::string highest_tier_name;                // a HyperNode tier name; exclusive with the above
};

// One entry of spec.subGroupPolicy (Volcano 1.15): the pods the selector takes are split by
// the values of matchLabelKeys into sub-groups of subGroupSize pods, each placed whole
// inside one domain of its networkTopology; minSubGroups of them must start together.
struct SubGroupPolicy {
  std::string name;
  std::optional<PodGroupNetworkTopology> network_topology;
  int32_t sub_group_size = 1;                   // Volcano's default
  int32_t min_sub_groups = 0;                   // Volcano's default
  std::optional<LabelSelector> label_selector;  // absent: every pod
  std::vector<std::string> match_label_keys;    // Volcano puts a pod in a sub-group only when it has them all
};

struct PodGroupSpec {
  std::string namespace_name;                   // "default" when the object has none
  std::string name;
  std::string queue = "default";                // Volcano's default queue
  int32_t min_member = 0;                       // absent: 0, as Volcano reads it
  std::map<std::string, int32_t> min_task_member;
  std::optional<ResourceList> min_resources;
  std::string priority_class_name;
  std::optional<PodGroupNetworkTopology> network_topology;
  std::vector<SubGroupPolicy> sub_group_policy;
  bool same_ib_cluster = false;                 // annotation weft.dev/ib-cluster: "same"
  std::string key() const { return namespace_name + "/" + name; }
};

// The spec and annotation of a PodGroup object. Errors name the field:
// "spec.networkTopology: highestTierAllowed and highestTierName are both set".
// Fields of spec that weft does not model are errors too: a constraint accepted and then
// ignored would place the gang where its owner said not to.
Result<PodGroupSpec> parse_podgroup(const nlohmann::json& obj);

// DNS-1123 subdomain (lower-case alphanumerics, '-', '.', at most 253): the queue must be
// one (Volcano's schema pattern); priorityClassName and highestTierName are only bounded
// to 253 characters there, and so here.
bool valid_dns_subdomain(const std::string& text);

}  // namespace weft::kube
