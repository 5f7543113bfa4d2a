// The descheduler/v1alpha2 DeschedulerPolicy: its top level and its profiles, each with its
// DefaultEvictor args and the plugins it enables (LoadAware among them).
// Volcano's LoadAware args (duration, numberOfNodes, nodeFit, metrics.type prometheus)
// are accepted as they are, so existing policies carry over. Unknown fields are errors.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "descheduler/core/defragment/args.h"
#include "descheduler/core/load.h"
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
  bool ignore_pods_without_pdb = false;   // pods no PodDisruptionBudget covers stay
  std::optional<kube::LabelSelector> label_selector;
  std::optional<Seconds> min_pod_age;
  int min_replicas = 0;                    // 0/1: no check
  bool protect_resource_claims = false;    // podProtections.extraEnabled PodsWithResourceClaims
  bool no_eviction_mandatory = false;      // noEvictionPolicy Mandatory: prefer-no-eviction pods stay
  // podProtections.config.PodsWithPVC.protectedStorageClasses: with PodsWithPVC, only pods
  // whose claims use one of these are protected (empty: every pod with a claim).
  std::vector<std::string> protected_storage_classes;
  std::optional<kube::LabelSelector> namespace_label_selector;   // pods of namespaces it selects only
  std::optional<kube::LabelSelector> node_selector;   // with nodeFit, the only nodes that count as targets
};

// KubernetesMetrics: the metrics.k8s.io API (LowNodeUtilization's metricsUtilization).
enum class MetricsType { Prometheus, Annotations, KubernetesMetrics };

// One measured resource: its PromQL (placeholders {window} and {label}) giving a 0..1
// ratio per node, the query giving each node's newest sample time, the averaging window
// and how old that newest sample may be (unset: --max-metric-age).
struct ResourceQuery {
  std::string query;
  std::string freshness_query;
  std::optional<Seconds> window;       // unset: the metrics window
  std::optional<Seconds> max_age;      // unset: --max-metric-age

  bool operator==(const ResourceQuery&) const = default;
};

// Per-pod usage for sizing victims: cores and bytes per (namespace, pod), each with the
// time of its newest sample. Placeholders {window} and {label} as above.
struct PodUsageQueries {
  bool enabled = true;
  std::string cpu_query = "avg by (namespace, pod) (avg_over_time(weft_pod_cpu_usage_cores[{window}]))";
  std::string memory_query = "avg by (namespace, pod) (avg_over_time(weft_pod_memory_usage_bytes[{window}]))";
  std::string cpu_freshness_query = "max by (namespace, pod) (timestamp(weft_pod_cpu_usage_cores))";
  std::string memory_freshness_query = "max by (namespace, pod) (timestamp(weft_pod_memory_usage_bytes))";
  std::optional<Seconds> window;       // unset: the metrics window
  std::optional<Seconds> max_age;      // unset: --max-metric-age

  bool operator==(const PodUsageQueries&) const = default;
};

// How the descheduler authenticates to Prometheus (flags override these).
struct SecretReference {
  std::string ns, name;

  bool operator==(const SecretReference&) const = default;
};

struct PrometheusAuth {
  std::string bearer_token_file;       // read on every cycle, so a rotated token is picked up
  // metricsProviders' authToken.secretReference: the token is the Secret's key
  // prometheusAuthToken, read through the API on every cycle (upstream's rotation).
  std::optional<SecretReference> token_secret;
  std::string bearer_token;            // token_secret's value, resolved by the binary each cycle
  std::string ca_file;                 // PEM bundle the server's certificate must chain to
  std::string username;                // basic auth, with password_file
  std::string password_file;
  bool insecure_skip_verify = false;

  bool operator==(const PrometheusAuth&) const = default;
};

struct MetricsArgs {
  MetricsType type = MetricsType::Prometheus;
  std::string address;                     // Prometheus base URL
  Seconds window{300};
  std::string node_label = "node";
  // Measured resources by name. cpu and memory always; others (nvidia.com/gpu, ...) only
  // when the policy gives them a query (else they are counted from requests, as upstream).
  std::map<std::string, ResourceQuery> resources = default_resource_queries();
  PodUsageQueries pod_usage;
  PrometheusAuth auth;

  static std::map<std::string, ResourceQuery> default_resource_queries();
  Seconds window_of(const ResourceQuery& q) const { return q.window.value_or(window); }

  bool operator==(const MetricsArgs&) const = default;
};

struct LoadAwareArgs {
  // Resource -> threshold in percent of the node: cpu, memory and resources with a query
  // as measured, pods as bound pods over allocatable pods, any other resource
  // (nvidia.com/gpu, vendor/name) as the pods' requests over allocatable, as upstream
  // LowNodeUtilization counts them.
  std::map<std::string, double> thresholds;
  std::map<std::string, double> target_thresholds;
  std::optional<kube::LabelSelector> node_selector;
  std::vector<std::string> include_namespaces;
  std::vector<std::string> exclude_namespaces;
  MetricsArgs metrics;
  // Thresholds are spans around the mean usage of the classified nodes (low: mean -
  // thresholds, high: mean + targetThresholds, clamped to 0..100), as upstream.
  bool use_deviation_thresholds = false;
  // LowNodeUtilization: every resource is the pods' requests over allocatable, as upstream
  // (no metrics are read, no node is unknown, victims are sized by their requests).
  bool requests_only = false;
  // LowNodeUtilization on a Prometheus query (metricsUtilization.prometheus): one measured
  // resource, MetricResource; cpu, memory and pods are not counted and victims are not
  // sized, so at most one pod leaves a node unless evictionLimits.node is set (upstream).
  bool metric_resource = false;
  int number_of_nodes = 0;                 // act only when more low nodes than this
  // LowNodeUtilization's evictionLimits.node: its own evictions per source node (upstream
  // counts them apart from the policy's maxNoOfPodsToEvictPerNode).
  std::optional<int> eviction_limit_node;
  std::optional<bool> node_fit;            // Volcano puts nodeFit here; overrides DefaultEvictor's
};

namespace framework {
class Plugin;
}

// An upstream strategy plugin a profile enables (descheduler/core/plugins/<Name>/), its
// args read, defaulted and validated.
struct EnabledPlugin {
  std::string name;
  bool balance = false;                          // the extension point: balance, else deschedule
  std::shared_ptr<framework::Plugin> plugin;     // a DeschedulePlugin or a BalancePlugin
};

// The policy's Prometheus (metricsProviders[source: Prometheus]): the address and credentials
// of measured load when LoadAware.metrics names none.
struct PrometheusProvider {
  std::string url;
  std::optional<SecretReference> auth_token_secret;
};

// One profile of the policy, as upstream runs it: its own DefaultEvictor (absent args:
// upstream's defaults) filtering its own plugins. The eviction limits and weft's cycle-wide
// rules (a pod evicted once, budgets, gangs, cooldown, the moves) are the policy's.
struct PolicyProfile {
  std::string name;
  EvictorArgs evictor;
  bool load_aware_enabled = false;         // LoadAware or LowNodeUtilization in plugins.balance
  LoadAwareArgs load_aware;
  std::optional<defragment::Args> gang_defragment;   // GangDefragment in plugins.balance
  std::vector<EnabledPlugin> strategies;   // deschedule before balance, each in the order enabled
  // Every enabled balance plugin's name (strategies, LoadAware or LowNodeUtilization,
  // GangDefragment) in the order enabled: the order they run in.
  std::vector<std::string> balance_order;

  bool node_fit() const { return load_aware.node_fit.value_or(evictor.node_fit); }
  // Its balance plugin reads measured load (LoadAware, LowNodeUtilization on metrics).
  bool reads_load() const { return load_aware_enabled && !load_aware.requests_only; }
};

struct Policy {
  std::vector<PolicyProfile> profiles;     // in the policy's order
  std::optional<kube::LabelSelector> node_selector;   // top-level nodeSelector
  std::optional<int> max_per_node, max_per_namespace, max_total;
  std::vector<std::string> warnings;       // accepted fields weft does not act on
  std::optional<PrometheusProvider> prometheus;
  bool kubernetes_metrics = false;         // metricsProviders KubernetesMetrics or metricsCollector.enabled
  bool eviction_failure_events = false;    // evictionFailureEventNotification
  std::optional<int64_t> grace_period_seconds;   // passed with every eviction

  // Some profile enables LoadAware or LowNodeUtilization.
  bool load_aware_enabled() const;
  // The profile enabling GangDefragment (at most one does), or null.
  const PolicyProfile* gang_profile() const;
  // The longest metrics window of the profiles' balance plugins (what the state remembers).
  Seconds largest_window() const;
};

// `name` prefixes every error: "policy.yaml: profiles[0].pluginConfig[1].args.thresholds.gpu: unknown resource".
// A policy with several problems is refused with all of them, one line each, in the order
// of the policy (top-level fields, then each profile: plugins, pluginConfig, args).
Result<Policy> parse_policy(const nlohmann::json& document, const std::string& name);
Result<Policy> parse_policy_text(const std::string& yaml_or_json, const std::string& name);

// The policy the deploy/ ConfigMap carries and tests start from.
Policy default_policy();

}  // namespace weft::descheduler
