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

namespace weft::kube {

struct PodGroupNetworkTopology {
  enum class Mode { Hard, Soft };
  Mode mode = Mode::Hard;                       // Volcano's default
  std::optional<int32_t> highest_tier_allowed;  // >= 0 (Volcano: Minimum=0)
  std::string highest_tier_name;                // a HyperNode tier name; exclusive with the above
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
  bool same_ib_cluster = false;                 // annotation weft.dev/ib-cluster: "same"
  std::string key() const { return namespace_name + "/" + name; }
};

// The spec and annotation of a PodGroup object. Errors name the field:
// "spec.networkTopology: highestTierAllowed and highestTierName are both set".
// Fields of spec that weft does not model (subGroupPolicy, ...) are errors too: a
// constraint accepted and then ignored would place the gang where its owner said not to.
Result<PodGroupSpec> parse_podgroup(const nlohmann::json& obj);

// DNS-1123 subdomain (lower-case alphanumerics, '-', '.', at most 253): queue,
// priorityClassName and highestTierName must be one.
bool valid_dns_subdomain(const std::string& text);

}  // namespace weft::kube
