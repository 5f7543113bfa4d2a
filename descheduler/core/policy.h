// The descheduler/v1alpha2 DeschedulerPolicy, reduced to what weft acts on: one profile
// whose balance extension point enables LoadAware, with DefaultEvictor args beside it.
// Volcano's LoadAware args (duration, numberOfNodes, nodeFit, metrics.type prometheus)
// are accepted as they are, so existing policies carry over. Unknown fields are errors.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/duration.h"
#include "kube/selector.h"

namespace weft::descheduler {

struct PriorityThreshold {
  std::optional<int32_t> value;
  std::string name;   // a PriorityClass name, resolved against the cluster
};

struct EvictorArgs {
  PriorityThreshold priority_threshold;   // neither set: system-cluster-critical
  bool node_fit = false;
  bool ignore_pvc_pods = false;
  bool evict_local_storage_pods = false;
  bool evict_system_critical_pods = false;
  bool evict_daemonset_pods = false;
  bool evict_failed_bare_pods = false;
  std::optional<kube::LabelSelector> label_selector;
  std::optional<Seconds> min_pod_age;
  int min_replicas = 0;                    // 0/1: no check
};

enum class MetricsType { Prometheus, Annotations };

struct MetricsArgs {
  MetricsType type = MetricsType::Prometheus;
  std::string address;                     // Prometheus base URL
  Seconds window{300};
  // Placeholders: {window} (e.g. "5m") and {label} (the node label).
  std::string cpu_query = "avg by ({label}) (avg_over_time(weft_node_cpu_busy_ratio[{window}]))";
  std::string memory_query = "avg by ({label}) (avg_over_time(weft_node_memory_used_ratio[{window}]))";
  // Time of the newest sample per node, one query per reading: a node whose samples
  // stopped is stale even though avg_over_time still averages its old samples.
  std::string freshness_query = "max by ({label}) (timestamp(weft_node_cpu_busy_ratio))";
  std::string memory_freshness_query = "max by ({label}) (timestamp(weft_node_memory_used_ratio))";
  std::string node_label = "node";
};

struct LoadAwareArgs {
  // Resource -> threshold in percent of the node: cpu and memory as measured, pods as
  // bound pods over allocatable pods (as upstream LowNodeUtilization counts them).
  std::map<std::string, double> thresholds;
  std::map<std::string, double> target_thresholds;
  std::optional<kube::LabelSelector> node_selector;
  std::vector<std::string> include_namespaces;
  std::vector<std::string> exclude_namespaces;
  MetricsArgs metrics;
  int number_of_nodes = 0;                 // act only when more low nodes than this
  std::optional<bool> node_fit;            // Volcano puts nodeFit here; overrides DefaultEvictor's
};

struct Policy {
  EvictorArgs evictor;
  LoadAwareArgs load_aware;
  std::optional<kube::LabelSelector> node_selector;   // top-level nodeSelector
  std::optional<int> max_per_node, max_per_namespace, max_total;
  std::vector<std::string> warnings;       // accepted fields weft does not act on

  bool node_fit() const { return load_aware.node_fit.value_or(evictor.node_fit); }
};

// `name` prefixes every error: "policy.yaml: profiles[0].pluginConfig[1].args.thresholds.gpu: unknown resource".
Result<Policy> parse_policy(const nlohmann::json& document, const std::string& name);
Result<Policy> parse_policy_text(const std::string& yaml_or_json, const std::string& name);

// The policy the deploy/ ConfigMap carries and tests start from.
Policy default_policy();

}  // namespace weft::descheduler
