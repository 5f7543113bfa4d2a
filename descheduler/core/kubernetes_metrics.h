// Load from the metrics.k8s.io/v1beta1 API (metrics-server): NodeMetrics and PodMetrics
// lists as a LoadReport. Parsers only; listing them lives in the binary.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "descheduler/core/cluster.h"
#include "descheduler/core/load.h"

namespace weft::descheduler {

// The objects of a metrics.k8s.io list: {"items": [...]} or a bare array; anything else none.
const nlohmann::json& metrics_items(const nlohmann::json& list);
// One `usage` reading (usage.cpu, usage.memory) in thousandths: millicores, millibytes.
Result<int64_t> usage_milli(const nlohmann::json& usage, const char* resource);

// Each NodeMetrics' usage as the upstream descheduler reads it: usage.cpu over the node's
// allocatable cpu, usage.memory over its allocatable memory (ratios may pass 1: usage is
// not capped by allocatable). Both readings are dated by the object's `timestamp` (the end
// of its `window`), so the planner's freshness rule judges them like any other reading.
// A node without a usable object (no timestamp, a bad quantity, no allocatable) is
// invalid (unknown), with the reason. PodMetrics: the sum of the containers' usage, in
// cores and bytes, dated the same way; a pod missing a container's reading has none (its
// requests size it). Each list is {"items": [...]} or a bare array; null is empty.
LoadReport load_from_kubernetes_metrics(const nlohmann::json& node_metrics, const nlohmann::json& pod_metrics,
                                        const Cluster& cluster, const std::string& source_name);

}  // namespace weft::descheduler
