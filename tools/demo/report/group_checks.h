// The demo's checks of LLM-shaped jobs, from the API's dumps: Kubernetes' own gang API
// (a scheduling.k8s.io PodGroup with a topology key) and Volcano sub-groups (a PodGroup's
// subGroupPolicy). Each returns the problems found (empty = the claim holds).
#pragma once

#include <nlohmann/json.hpp>

#include "tools/demo/report/checks.h"

namespace weft::demo {

// Every scheduling.k8s.io PodGroup in `native_groups` (a List): at least minCount of the
// pods naming it in spec.schedulingGroup are bound, all on nodes sharing one value of its
// topology key, and its PodGroupInitiallyScheduled condition is True.
// seen: {group: {minCount, key, pods: {pod: node}, domains: [..], condition}}.
Problems check_native_groups(const nlohmann::json& nodes, const nlohmann::json& pods,
                             const nlohmann::json& native_groups, nlohmann::json& seen);

// Every Volcano PodGroup in `podgroups` with a subGroupPolicy whose networkTopology is hard
// with highestTierAllowed: each sub-group (its pods sharing the values of matchLabelKeys)
// is bound whole inside one domain of that tier (1 leaf, 2 spine, 3 fabric labels), and a
// hard networkTopology of the job itself holds all its pods in one domain of its tier.
// seen: {group: {job: {tier, domains}, policy: {sub-group values: {pods: {pod: node}, domains}}}}.
Problems check_sub_groups(const nlohmann::json& nodes, const nlohmann::json& pods,
                          const nlohmann::json& podgroups, nlohmann::json& seen);

}  // namespace weft::demo
