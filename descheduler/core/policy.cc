#include "descheduler/core/policy.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "descheduler/core/plugins/common/args.h"
#include "descheduler/core/plugins/registry/registry.h"
#include "descheduler/core/prometheus_utilization.h"
#include "kube/priority.h"
#include "kube/scenario.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;
using args::Ctx;
using args::field;
using args::get_bool;
using args::get_count;
using args::get_duration;
using args::get_selector;
using args::get_string;
using args::get_strings;
using args::join;
using args::only_fields;

Result<std::map<std::string, double>> get_thresholds(const Ctx& c, const json& v, const std::string& path) {
  std::map<std::string, double> out;
  if (v.is_null()) return c.at(path, "is required");
  if (!v.is_object()) return c.at(path, "must be a mapping of resource to number");
  for (const auto& [res, val] : v.items()) {
    std::string p = path + "." + res;
    if (res.empty() || res.find_first_of(" \t") != std::string::npos) return c.at(p, "is not a resource name");
    if (!val.is_number()) return c.at(p, "must be a number");
    double x = val.get<double>();
    if (x < 0 || x > 100) return c.at(p, "must be a percentage 0..100");
    out[res] = x;
  }
  if (out.empty()) return c.at(path, "names no resource");
  return out;
}

Status parse_priority_threshold(const Ctx& c, const json& v, const std::string& path, PriorityThreshold& out) {
  if (v.is_null()) return {};
  if (auto s = only_fields(c, v, path, {"value", "name"}); !s) return s;
  const json& value = field(v, "value");
  const json& name = field(v, "name");
  if (!value.is_null() && !name.is_null()) return c.at(path, "set value or name, not both");
  if (!value.is_null()) {
    if (!value.is_number_integer() || value.get<int64_t>() > INT32_MAX || value.get<int64_t>() < INT32_MIN)
      return c.at(path + ".value", "must be a 32-bit integer");
    // As upstream: no threshold above system-cluster-critical's priority.
    if (value.get<int64_t>() > kube::kSystemClusterCriticalPriority)
      return c.at(path + ".value", "can't be greater than " + std::to_string(kube::kSystemClusterCriticalPriority));
    out.value = value.get<int32_t>();
  }
  if (!name.is_null()) {
    if (!name.is_string() || name.get<std::string>().empty()) return c.at(path + ".name", "must be a PriorityClass name");
    out.name = name.get<std::string>();
  }
  return {};
}

// args.evictableNamespaces: {include: [...]} or {exclude: [...]}, not both.
Status parse_evictable_namespaces(const Ctx& c, const json& args, const std::string& path, LoadAwareArgs& out) {
  const json& en = field(args, "evictableNamespaces");
  if (en.is_null()) return {};
  auto ns = args::get_namespaces(c, en, join(path, "evictableNamespaces"));
  if (!ns) return ns.error();
  out.include_namespaces = std::move(ns->include);
  out.exclude_namespaces = std::move(ns->exclude);
  return {};
}

// podProtections, the current form of the deprecated booleans (not both, as upstream):
// defaultDisabled lifts a default protection, extraEnabled adds one.
Status parse_pod_protections(const Ctx& c, const json& args, const std::string& path, EvictorArgs& e) {
  const json& v = field(args, "podProtections");
  if (v.is_null()) return {};
  const std::string at = join(path, "podProtections");
  if (auto s = only_fields(c, v, at, {"defaultDisabled", "extraEnabled", "config"}); !s) return s;
  auto disabled = get_strings(c, field(v, "defaultDisabled"), at + ".defaultDisabled");
  if (!disabled) return disabled.error();
  auto enabled = get_strings(c, field(v, "extraEnabled"), at + ".extraEnabled");
  if (!enabled) return enabled.error();
  if ((disabled->size() || enabled->size()) &&
      (e.evict_local_storage_pods || e.evict_daemonset_pods || e.evict_system_critical_pods || e.ignore_pvc_pods ||
       e.evict_failed_bare_pods || e.ignore_pods_without_pdb))
    return c.at(at, "cannot be used with the deprecated fields (evictLocalStoragePods, ignorePvcPods, ...)");
  struct Protection { const char* name; bool* flag; };
  auto apply = [&](const std::vector<std::string>& list, const std::string& where,
                   std::initializer_list<Protection> known) -> Status {
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string item = where + "[" + std::to_string(i) + "]";
      auto it = std::find_if(known.begin(), known.end(), [&](const Protection& p) { return list[i] == p.name; });
      if (it == known.end()) {
        std::string names;
        for (const Protection& p : known) names += std::string(names.empty() ? "" : ", ") + p.name;
        return c.at(item, "'" + list[i] + "' is not one of " + names);
      }
      if (!seen.insert(list[i]).second) return c.at(item, "'" + list[i] + "' appears twice");
      *it->flag = true;
    }
    return {};
  };
  // In upstream's order of its valid options.
  if (auto s = apply(*disabled, at + ".defaultDisabled",
                     {{"PodsWithLocalStorage", &e.evict_local_storage_pods},
                      {"SystemCriticalPods", &e.evict_system_critical_pods}, {"FailedBarePods", &e.evict_failed_bare_pods},
                      {"DaemonSetPods", &e.evict_daemonset_pods}});
      !s)
    return s;
  if (auto s = apply(*enabled, at + ".extraEnabled",
                     {{"PodsWithPVC", &e.ignore_pvc_pods}, {"PodsWithoutPDB", &e.ignore_pods_without_pdb},
                      {"PodsWithResourceClaims", &e.protect_resource_claims}});
      !s)
    return s;
  const bool pvc_enabled = std::find(enabled->begin(), enabled->end(), "PodsWithPVC") != enabled->end();
  const json& config = field(v, "config");
  if (!config.is_null()) {
    if (auto s = only_fields(c, config, at + ".config", {"PodsWithPVC"}); !s) return s;
    const json& pvc = field(config, "PodsWithPVC");
    if (!pvc.is_null()) {
      if (auto s = only_fields(c, pvc, at + ".config.PodsWithPVC", {"protectedStorageClasses"}); !s) return s;
      const std::string classes_at = at + ".config.PodsWithPVC.protectedStorageClasses";
      const json& classes = field(pvc, "protectedStorageClasses");
      if (!classes.is_null() && !classes.is_array()) return c.at(classes_at, "must be a list of {name}");
      for (size_t i = 0; classes.is_array() && i < classes.size(); ++i) {
        const std::string item = classes_at + "[" + std::to_string(i) + "]";
        if (auto s = only_fields(c, classes[i], item, {"name"}); !s) return s;
        auto name = get_string(c, field(classes[i], "name"), item + ".name");
        if (!name) return name.error();
        // As upstream, names are checked only with PodsWithPVC in extraEnabled.
        if (name->empty() && pvc_enabled) return c.at(item + ".name", "is required");
        e.protected_storage_classes.push_back(*name);
      }
    }
  }
  return {};
}

Status parse_evictor(const Ctx& c, const json& args, const std::string& path, PolicyProfile& profile,
                     std::vector<std::string>& warnings) {
  if (args.is_null()) return {};
  if (auto s = only_fields(c, args, path,
                           {"priorityThreshold", "nodeFit", "ignorePvcPods", "evictLocalStoragePods",
                            "evictSystemCriticalPods", "evictDaemonSetPods", "evictFailedBarePods", "labelSelector",
                            "minPodAge", "minReplicas", "nodeSelector", "namespaceLabelSelector",
                            "ignorePodsWithoutPDB", "evictableNamespaces", "podProtections", "noEvictionPolicy"});
      !s)
    return s;
  EvictorArgs& e = profile.evictor;
  if (auto s = parse_priority_threshold(c, field(args, "priorityThreshold"), join(path, "priorityThreshold"),
                                        e.priority_threshold);
      !s)
    return s;
  struct Flag { const char* key; bool* into; };
  for (Flag f : {Flag{"nodeFit", &e.node_fit}, Flag{"ignorePvcPods", &e.ignore_pvc_pods},
                 Flag{"evictLocalStoragePods", &e.evict_local_storage_pods},
                 Flag{"evictSystemCriticalPods", &e.evict_system_critical_pods},
                 Flag{"evictDaemonSetPods", &e.evict_daemonset_pods},
                 Flag{"evictFailedBarePods", &e.evict_failed_bare_pods},
                 Flag{"ignorePodsWithoutPDB", &e.ignore_pods_without_pdb}}) {
    auto b = get_bool(c, field(args, f.key), join(path, f.key));
    if (!b) return b.error();
    *f.into = *b;
  }
  auto sel = args::get_label_selector(c, field(args, "labelSelector"), join(path, "labelSelector"));
  if (!sel) return sel.error();
  e.label_selector = std::move(*sel);
  if (!field(args, "minPodAge").is_null()) {
    auto d = get_duration(c, field(args, "minPodAge"), join(path, "minPodAge"));
    if (!d) return d.error();
    e.min_pod_age = *d;
  }
  auto mr = get_count(c, field(args, "minReplicas"), join(path, "minReplicas"));
  if (!mr) return mr.error();
  e.min_replicas = mr->value_or(0);
  // The nodes nodeFit may count as targets (upstream's PreEvictionFilter); the nodes the
  // plugins act on are the top-level nodeSelector's.
  auto ns = get_selector(c, field(args, "nodeSelector"), join(path, "nodeSelector"));
  if (!ns) return ns.error();
  e.node_selector = std::move(*ns);
  // Some older policies put evictableNamespaces on the evictor; it means the same there.
  if (auto s = parse_evictable_namespaces(c, args, path, profile.load_aware); !s) return s;
  if (auto s = parse_pod_protections(c, args, path, e); !s) return s;
  if (!e.protected_storage_classes.empty() && !e.ignore_pvc_pods)
    warnings.push_back(join(path, "podProtections.config.PodsWithPVC") +
                              ": PodsWithPVC is not enabled, so no storage class is protected; ignored");
  auto no_eviction = get_string(c, field(args, "noEvictionPolicy"), join(path, "noEvictionPolicy"));
  if (!no_eviction) return no_eviction.error();
  if (!no_eviction->empty() && *no_eviction != "Preferred" && *no_eviction != "Mandatory")
    return c.at(join(path, "noEvictionPolicy"), "'" + *no_eviction + "' is not Preferred or Mandatory");
  e.no_eviction_mandatory = *no_eviction == "Mandatory";
  auto ns_sel = args::get_label_selector(c, field(args, "namespaceLabelSelector"), join(path, "namespaceLabelSelector"));
  if (!ns_sel) return ns_sel.error();
  // An empty selector selects every namespace (upstream skips the check).
  if (*ns_sel && !(*ns_sel)->empty()) e.namespace_label_selector = std::move(*ns_sel);
  return {};
}

Status parse_window(const Ctx& c, const json& v, const std::string& path, std::optional<Seconds>& into) {
  if (v.is_null()) return {};
  auto d = get_duration(c, v, path);
  if (!d) return d.error();
  if (d->count() < 1) return c.at(path, "must be at least 1s");
  into = *d;
  return {};
}

Status set_text(const Ctx& c, const json& obj, const char* key, const std::string& path, std::string& into) {
  const json& v = field(obj, key);
  if (v.is_null()) return {};
  if (!v.is_string() || v.get<std::string>().empty()) return c.at(join(path, key), "must be a non-empty string");
  into = v.get<std::string>();
  return {};
}

// metrics.resources.<name>: {query, freshnessQuery, window, maxAge}.
Status parse_resource_queries(const Ctx& c, const json& v, const std::string& path, MetricsArgs& out) {
  if (v.is_null()) return {};
  if (!v.is_object()) return c.at(path, "must be a mapping of resource name to {query, freshnessQuery, window, maxAge}");
  for (const auto& [res, q] : v.items()) {
    std::string at = path + "." + res;
    if (auto s = only_fields(c, q, at, {"query", "freshnessQuery", "window", "maxAge"}); !s) return s;
    if (res == "pods") return c.at(at, "pods are counted, not measured");
    bool known = out.resources.count(res) > 0;
    ResourceQuery& rq = out.resources[res];
    if (auto s = set_text(c, q, "query", at, rq.query); !s) return s;
    if (auto s = set_text(c, q, "freshnessQuery", at, rq.freshness_query); !s) return s;
    if (!known && (rq.query.empty() || rq.freshness_query.empty()))
      return c.at(at, "a resource weft does not measure by default needs query and freshnessQuery");
    if (auto s = parse_window(c, field(q, "window"), at + ".window", rq.window); !s) return s;
    std::optional<Seconds> age;
    if (auto s = parse_window(c, field(q, "maxAge"), at + ".maxAge", age); !s) return s;
    rq.max_age = age;
  }
  return {};
}

Status parse_pod_usage(const Ctx& c, const json& v, const std::string& path, PodUsageQueries& out) {
  if (v.is_null()) return {};
  if (auto s = only_fields(c, v, path,
                           {"enabled", "cpuQuery", "memoryQuery", "cpuFreshnessQuery", "memoryFreshnessQuery", "window",
                            "maxAge"});
      !s)
    return s;
  if (!field(v, "enabled").is_null()) {
    auto b = get_bool(c, field(v, "enabled"), path + ".enabled");
    if (!b) return b.error();
    out.enabled = *b;
  }
  struct Text { const char* key; std::string* into; };
  for (Text t : {Text{"cpuQuery", &out.cpu_query}, Text{"memoryQuery", &out.memory_query},
                 Text{"cpuFreshnessQuery", &out.cpu_freshness_query},
                 Text{"memoryFreshnessQuery", &out.memory_freshness_query}})
    if (auto s = set_text(c, v, t.key, path, *t.into); !s) return s;
  if (auto s = parse_window(c, field(v, "window"), path + ".window", out.window); !s) return s;
  return parse_window(c, field(v, "maxAge"), path + ".maxAge", out.max_age);
}

Status parse_auth(const Ctx& c, const json& v, const std::string& path, PrometheusAuth& out) {
  if (v.is_null()) return {};
  if (auto s = only_fields(c, v, path, {"bearerTokenFile", "caFile", "username", "passwordFile", "insecureSkipVerify"});
      !s)
    return s;
  struct Text { const char* key; std::string* into; };
  for (Text t : {Text{"bearerTokenFile", &out.bearer_token_file}, Text{"caFile", &out.ca_file},
                 Text{"username", &out.username}, Text{"passwordFile", &out.password_file}})
    if (auto s = set_text(c, v, t.key, path, *t.into); !s) return s;
  auto insecure = get_bool(c, field(v, "insecureSkipVerify"), path + ".insecureSkipVerify");
  if (!insecure) return insecure.error();
  out.insecure_skip_verify = *insecure;
  if (out.username.empty() != out.password_file.empty())
    return c.at(path, "basic auth needs both username and passwordFile");
  if (!out.username.empty() && !out.bearer_token_file.empty())
    return c.at(path, "set bearerTokenFile or username/passwordFile, not both");
  return {};
}

Status parse_metrics(const Ctx& c, const json& m, const std::string& path, MetricsArgs& out) {
  if (m.is_null()) return {};
  if (auto s = only_fields(c, m, path,
                           {"type", "address", "window", "duration", "cpuQuery", "memoryQuery", "freshnessQuery",
                            "memoryFreshnessQuery", "nodeLabel", "resources", "podUsage", "auth"});
      !s)
    return s;
  const json& type = field(m, "type");
  if (!type.is_null()) {
    if (!type.is_string()) return c.at(path + ".type", "must be Prometheus or Annotations");
    std::string t = type.get<std::string>();
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (t == "prometheus") out.type = MetricsType::Prometheus;
    else if (t == "annotations") out.type = MetricsType::Annotations;
    else if (t == "prometheus_adaptor")
      return c.at(path + ".type", "prometheus_adaptor is not supported; use Prometheus with its address");
    else return c.at(path + ".type", "'" + type.get<std::string>() + "' is not Prometheus or Annotations");
  }
  auto address = get_string(c, field(m, "address"), path + ".address");
  if (!address) return address.error();
  out.address = *address;
  const json& window = field(m, "window");
  const json& duration = field(m, "duration");
  if (!window.is_null() && !duration.is_null()) return c.at(path, "set window or duration, not both");
  std::optional<Seconds> w;
  if (auto s = parse_window(c, window.is_null() ? duration : window,
                            path + (window.is_null() ? ".duration" : ".window"), w);
      !s)
    return s;
  if (w) out.window = *w;
  // The one-query-per-reading form: cpuQuery and friends name the cpu and memory entries.
  struct Text { const char* key; std::string* into; };
  for (Text t : {Text{"cpuQuery", &out.resources["cpu"].query}, Text{"memoryQuery", &out.resources["memory"].query},
                 Text{"freshnessQuery", &out.resources["cpu"].freshness_query},
                 Text{"memoryFreshnessQuery", &out.resources["memory"].freshness_query},
                 Text{"nodeLabel", &out.node_label}})
    if (auto s = set_text(c, m, t.key, path, *t.into); !s) return s;
  const json& per_resource = field(m, "resources");
  for (const char* flat : {"cpuQuery", "memoryQuery", "freshnessQuery", "memoryFreshnessQuery"}) {
    std::string res = std::string(flat).rfind("memory", 0) == 0 ? "memory" : "cpu";
    if (!field(m, flat).is_null() && per_resource.is_object() && per_resource.contains(res))
      return c.at(join(path, flat), "set " + res + " either here or in resources." + res + ", not both");
  }
  if (auto s = parse_resource_queries(c, per_resource, path + ".resources", out); !s) return s;
  if (auto s = parse_pod_usage(c, field(m, "podUsage"), path + ".podUsage", out.pod_usage); !s) return s;
  return parse_auth(c, field(m, "auth"), path + ".auth", out.auth);
}

// thresholds, targetThresholds and useDeviationThresholds, shared by both balance plugins.
Status parse_thresholds(const Ctx& c, const json& args, const std::string& path, LoadAwareArgs& la) {
  auto th = get_thresholds(c, field(args, "thresholds"), join(path, "thresholds"));
  if (!th) return th.error();
  auto tt = get_thresholds(c, field(args, "targetThresholds"), join(path, "targetThresholds"));
  if (!tt) return tt.error();
  auto dev = get_bool(c, field(args, "useDeviationThresholds"), join(path, "useDeviationThresholds"));
  if (!dev) return dev.error();
  la.use_deviation_thresholds = *dev;
  for (const auto& [res, v] : *th) {
    if (!tt->count(res)) return c.at(join(path, "targetThresholds"), "has no " + res + " (thresholds has)");
    // Deviation spans are independent: a wider low span than high span is allowed.
    if (v > tt->at(res) && !la.use_deviation_thresholds)
      return c.at(join(path, "thresholds." + res), "is above targetThresholds." + res);
  }
  for (const auto& [res, _] : *tt)
    if (!th->count(res)) return c.at(join(path, "thresholds"), "has no " + res + " (targetThresholds has)");
  la.thresholds = *th;
  la.target_thresholds = *tt;
  return {};
}

// LowNodeUtilization's metricsUtilization, checked as upstream does. KubernetesMetrics (or
// the deprecated metricsServer): the nodes' actual usage from metrics.k8s.io, dated, so the
// planner's freshness rule applies. Prometheus: one query's value per node as MetricResource
// (prometheus_utilization.h), with its newest sample time. What upstream finds only when
// the plugin first balances (no metrics client, no source, a resource the metrics do not
// carry) is refused here.
Status parse_metrics_utilization(const Ctx& c, const json& v, const std::string& path, bool kubernetes_metrics,
                                 LoadAwareArgs& la) {
  if (v.is_null()) return {};
  if (auto s = only_fields(c, v, path, {"metricsServer", "source", "prometheus"}); !s) return s;
  auto server = get_bool(c, field(v, "metricsServer"), path + ".metricsServer");
  if (!server) return server.error();
  auto source = get_string(c, field(v, "source"), path + ".source");
  if (!source) return source.error();
  const json& prom = field(v, "prometheus");
  if (!prom.is_null())
    if (auto s = only_fields(c, prom, path + ".prometheus", {"query", "freshnessQuery"}); !s) return s;
  if (!source->empty() && *source != "KubernetesMetrics" && *source != "Prometheus")
    return c.at(path + ".source", "'" + *source + "' is not KubernetesMetrics or Prometheus");
  if (*source == "KubernetesMetrics" && *server)
    return c.at(path, "set source KubernetesMetrics or metricsServer, not both");
  if (*source == "KubernetesMetrics" && !prom.is_null())
    return c.at(path + ".prometheus", "is not allowed with source KubernetesMetrics");
  if (*source == "Prometheus" && field(prom, "query").is_null())
    return c.at(path + ".prometheus.query", "is required when the source is Prometheus");
  if (*source == "Prometheus") return parse_prometheus_utilization(c, prom, path + ".prometheus", la);
  if (!*server && source->empty()) return c.at(path + ".source", "is empty: set KubernetesMetrics or metricsServer");
  if (!kubernetes_metrics)
    return c.at(path, "reads metrics.k8s.io, which the policy does not enable: add metricsProviders "
                      "[{source: KubernetesMetrics}]");
  la.requests_only = false;
  la.metrics.type = MetricsType::KubernetesMetrics;
  la.metrics.pod_usage.enabled = true;
  return {};
}

// The Kubernetes descheduler's LowNodeUtilization: utilization is the pods' requests over
// allocatable (no metrics), evictableNamespaces takes only exclude, evictionLimits.node
// caps evictions per node.
Status parse_low_node_utilization(const Ctx& c, const json& args, const std::string& path, bool kubernetes_metrics,
                                  LoadAwareArgs& la) {
  if (auto s = only_fields(c, args, path,
                           {"thresholds", "targetThresholds", "useDeviationThresholds", "numberOfNodes",
                            "evictableNamespaces", "metricsUtilization", "evictionLimits"});
      !s)
    return s;
  la.requests_only = true;
  if (auto s = parse_thresholds(c, args, path, la); !s) return s;
  if (auto s = parse_evictable_namespaces(c, args, path, la); !s) return s;
  if (!la.include_namespaces.empty())
    return c.at(join(path, "evictableNamespaces.include"), "LowNodeUtilization takes only exclude (as upstream)");
  if (auto s = parse_metrics_utilization(c, field(args, "metricsUtilization"), join(path, "metricsUtilization"),
                                         kubernetes_metrics, la);
      !s)
    return s;
  if (la.metrics.type == MetricsType::KubernetesMetrics)
    for (const auto& [res, _] : la.thresholds)
      if (res != "cpu" && res != "memory" && res != "pods")
        return c.at(join(path, "thresholds." + res), "is not in metrics.k8s.io (it reports cpu and memory; pods are "
                                                     "counted), so metricsUtilization cannot measure it");
  auto n = args::get_number_of_nodes(c, field(args, "numberOfNodes"), join(path, "numberOfNodes"));
  if (!n) return n.error();
  la.number_of_nodes = *n;
  const json& limits = field(args, "evictionLimits");
  if (!limits.is_null()) {
    if (auto s = only_fields(c, limits, join(path, "evictionLimits"), {"node"}); !s) return s;
    auto node = get_count(c, field(limits, "node"), join(path, "evictionLimits.node"));
    if (!node) return node.error();
    la.eviction_limit_node = *node;
  }
  return {};
}

Status parse_load_aware(const Ctx& c, const json& args, const std::string& path, LoadAwareArgs& la) {
  if (auto s = only_fields(c, args, path,
                           {"thresholds", "targetThresholds", "nodeSelector", "evictableNamespaces", "metrics",
                            "numberOfNodes", "nodeFit", "duration", "useDeviationThresholds"});
      !s)
    return s;
  if (auto s = parse_thresholds(c, args, path, la); !s) return s;
  auto sel = get_selector(c, field(args, "nodeSelector"), join(path, "nodeSelector"));
  if (!sel) return sel.error();
  la.node_selector = std::move(*sel);
  if (auto s = parse_evictable_namespaces(c, args, path, la); !s) return s;
  if (auto s = parse_metrics(c, field(args, "metrics"), join(path, "metrics"), la.metrics); !s) return s;
  std::optional<Seconds> duration;   // Volcano's name for the query window
  if (auto s = parse_window(c, field(args, "duration"), join(path, "duration"), duration); !s) return s;
  if (duration) la.metrics.window = *duration;
  for (const auto& [res, _] : la.metrics.resources)
    if (res != "cpu" && res != "memory" && !la.thresholds.count(res))
      return c.at(join(path, "metrics.resources." + res), "has a query but no threshold (add it to thresholds)");
  auto n = get_count(c, field(args, "numberOfNodes"), join(path, "numberOfNodes"));
  if (!n) return n.error();
  la.number_of_nodes = n->value_or(0);
  if (!field(args, "nodeFit").is_null()) {
    auto b = get_bool(c, field(args, "nodeFit"), join(path, "nodeFit"));
    if (!b) return b.error();
    la.node_fit = *b;
  }
  return {};
}

struct PluginSet {
  std::vector<std::string> enabled, disabled;
};

Result<std::map<std::string, PluginSet>> parse_plugins(const Ctx& c, const json& plugins, const std::string& path) {
  std::map<std::string, PluginSet> out;
  if (plugins.is_null()) return out;
  if (auto s = only_fields(c, plugins, path,
                           {"presort", "sort", "deschedule", "balance", "filter", "preEvictionFilter", "preevictionfilter"});
      !s)
    return s.error();
  for (const auto& [key, set] : plugins.items()) {
    // upstream's JSON tag is "preevictionfilter"; its docs write "preEvictionFilter".
    const std::string point = key == "preevictionfilter" ? "preEvictionFilter" : key;
    std::string p = path + "." + key;
    if (set.is_null()) continue;
    if (auto s = only_fields(c, set, p, {"enabled", "disabled"}); !s) return s.error();
    auto en = get_strings(c, field(set, "enabled"), p + ".enabled");
    if (!en) return en.error();
    auto dis = get_strings(c, field(set, "disabled"), p + ".disabled");
    if (!dis) return dis.error();
    out[point] = PluginSet{*en, *dis};
  }
  return out;
}

// Running a policy with a plugin left out would do less than its author asked for.
std::string not_implemented(const std::string& plugin) {
  std::string known;
  for (const auto& n : plugins::names()) known += ", " + n;
  return "plugin " + plugin + " is not implemented by weft-descheduler (it implements LoadAware, LowNodeUtilization, " +
         std::string(defragment::kPluginName) + known + " and DefaultEvictor); remove it or run the Kubernetes descheduler for it";
}

// A registered strategy plugin enabled at `point`: it must implement that extension point.
Result<const plugins::Registration*> strategy_at(const Ctx& c, const std::string& name, const std::string& point,
                                                 const std::string& path) {
  const plugins::Registration* r = plugins::find(name);
  if (!r) return c.at(path, not_implemented(name));
  bool balance = point == "balance";
  if (balance ? !r->balance : !r->deschedule)
    return c.at(path, "plugin " + name + " is a " + (r->balance ? "Balance" : "Deschedule") + " plugin, not " +
                          (balance ? "a Balance" : "a Deschedule") + " one");
  return r;
}

// Makes each enabled strategy from its pluginConfig args (none: upstream's defaults); args
// of a strategy the profile does not enable are still checked, then noted as unused.
Status add_strategies(const Ctx& c, const std::vector<std::pair<const plugins::Registration*, bool>>& enabled,
                      const std::map<std::string, std::pair<const json*, std::string>>& configured,
                      const std::string& path, PolicyProfile& profile, std::vector<std::string>& warnings) {
  for (const auto& [reg, balance] : enabled) {
    auto cfg = configured.find(reg->name);
    static const json no_args;
    const json& a = cfg == configured.end() ? no_args : *cfg->second.first;
    std::string at = cfg == configured.end() ? path + ".pluginConfig(" + reg->name + ")" : cfg->second.second;
    auto plugin = reg->make(c, a, at);
    if (!plugin) return plugin.error();
    profile.strategies.push_back({reg->name, balance, std::move(*plugin)});
  }
  for (const auto& [name, cfg] : configured) {
    bool used = std::any_of(enabled.begin(), enabled.end(), [&](const auto& e) { return name == e.first->name; });
    if (used) continue;
    auto plugin = plugins::find(name)->make(c, *cfg.first, cfg.second);
    if (!plugin) return plugin.error();
    warnings.push_back(cfg.second + ": plugin " + name + " is configured but not enabled; ignored");
  }
  return {};
}

// gracePeriodSeconds (sent with every eviction) and evictionFailureEventNotification (a
// Warning Event on a pod the Eviction API refused).
Status parse_top_level_eviction(const Ctx& c, const json& doc, Policy& policy) {
  auto events = get_bool(c, field(doc, "evictionFailureEventNotification"), "evictionFailureEventNotification");
  if (!events) return events.error();
  policy.eviction_failure_events = *events;
  auto grace = args::get_uint(c, field(doc, "gracePeriodSeconds"), "gracePeriodSeconds");
  if (!grace) return grace.error();
  policy.grace_period_seconds = *grace;
  return {};
}

// The port of scheme://[userinfo@]host[:port][/...], if any, is digits only.
bool has_valid_port(const std::string& url) {
  const size_t start = url.find("://") + 3;
  std::string authority = url.substr(start, url.find_first_of("/?#", start) - start);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  size_t colon = authority.rfind(':');
  if (colon == std::string::npos || (authority.rfind(']') != std::string::npos && colon < authority.rfind(']')))
    return true;
  const std::string port = authority.substr(colon + 1);
  return std::all_of(port.begin(), port.end(), [](unsigned char ch) { return std::isdigit(ch); });
}

// {url, authToken: {secretReference: {namespace, name}}}, as upstream validates it.
Result<PrometheusProvider> parse_prometheus_provider(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return c.at(path, "is required when the source is Prometheus");
  if (auto s = only_fields(c, v, path, {"url", "authToken"}); !s) return s.error();
  PrometheusProvider out;
  auto url = get_string(c, field(v, "url"), path + ".url");
  if (!url) return url.error();
  if (url->empty()) return c.at(path + ".url", "is required");
  if (url->rfind("http://", 0) != 0 && url->rfind("https://", 0) != 0)
    return c.at(path + ".url", "'" + *url + "' is not an http(s) URL");
  if (!has_valid_port(*url)) return c.at(path + ".url", "'" + *url + "' has an invalid port (digits only, as Go's URL parser)");
  out.url = *url;
  const json& token = field(v, "authToken");
  if (token.is_null()) return out;
  const std::string at = path + ".authToken";
  if (auto s = only_fields(c, token, at, {"secretReference"}); !s) return s.error();
  const json& ref = field(token, "secretReference");
  if (ref.is_null()) return c.at(at + ".secretReference", "is required when authToken is set");
  if (auto s = only_fields(c, ref, at + ".secretReference", {"namespace", "name"}); !s) return s.error();
  auto ns = get_string(c, field(ref, "namespace"), at + ".secretReference.namespace");
  if (!ns) return ns.error();
  auto name = get_string(c, field(ref, "name"), at + ".secretReference.name");
  if (!name) return name.error();
  if (ns->empty() || name->empty()) return c.at(at + ".secretReference", "must set both namespace and name");
  out.auth_token_secret = SecretReference{*ns, *name};
  return out;
}

// metricsProviders (each source once), the older top-level prometheus, and the deprecated
// metricsCollector (not together with a KubernetesMetrics provider, as upstream).
Status parse_metrics_sources(const Ctx& c, const json& doc, Policy& policy) {
  const json& collector = field(doc, "metricsCollector");
  if (!collector.is_null()) {
    if (auto s = only_fields(c, collector, "metricsCollector", {"enabled"}); !s) return s;
    auto enabled = get_bool(c, field(collector, "enabled"), "metricsCollector.enabled");
    if (!enabled) return enabled.error();
    policy.kubernetes_metrics = *enabled;
  }
  const json& providers = field(doc, "metricsProviders");
  if (!providers.is_null() && !providers.is_array()) return c.at("metricsProviders", "must be a list");
  std::set<std::string> seen;
  for (size_t i = 0; providers.is_array() && i < providers.size(); ++i) {
    std::string at = "metricsProviders[" + std::to_string(i) + "]";
    const json& pr = providers[i];
    if (auto s = only_fields(c, pr, at, {"source", "prometheus"}); !s) return s;
    auto source = get_string(c, field(pr, "source"), at + ".source");
    if (!source) return source.error();
    if (!seen.insert(*source).second)
      return c.at(at + ".source", "'" + *source + "' is already configured (each source once)");
    if (*source == "KubernetesMetrics") {
      if (policy.kubernetes_metrics)
        return c.at(at + ".source", "KubernetesMetrics is not allowed with metricsCollector.enabled (as upstream)");
      policy.kubernetes_metrics = true;
      if (!field(pr, "prometheus").is_null()) return c.at(at + ".prometheus", "is not allowed with source KubernetesMetrics");
      continue;
    }
    if (*source != "Prometheus") return c.at(at + ".source", "'" + *source + "' is not Prometheus or KubernetesMetrics");
    auto prom = parse_prometheus_provider(c, field(pr, "prometheus"), at + ".prometheus");
    if (!prom) return prom.error();
    policy.prometheus = *prom;
  }
  const json& older = field(doc, "prometheus");
  if (!older.is_null()) {
    if (policy.prometheus) return c.at("prometheus", "set Prometheus once (here or in metricsProviders)");
    auto prom = parse_prometheus_provider(c, older, "prometheus");
    if (!prom) return prom.error();
    policy.prometheus = *prom;
  }
  return {};
}

// One profile: its plugins with their args and its own DefaultEvictor's (absent: upstream's
// defaults). Warnings go to the policy; GangDefragment may be enabled by one profile only.
Result<PolicyProfile> parse_profile(const Ctx& c, const json& prof, const std::string& p, Policy& policy) {
  PolicyProfile out;
  if (auto s = only_fields(c, prof, p, {"name", "pluginConfig", "plugins"}); !s) return s.error();
  out.name = field(prof, "name").is_string() ? field(prof, "name").get<std::string>() : p;
  auto plugins = parse_plugins(c, field(prof, "plugins"), p + ".plugins");
  if (!plugins) return plugins.error();
  bool has_plugins = prof.contains("plugins") && !prof["plugins"].is_null();
  const json& configs = field(prof, "pluginConfig");
  if (!configs.is_null() && !configs.is_array()) return c.at(p + ".pluginConfig", "must be a list");
  // The balance plugins weft plans: Volcano's LoadAware (measured load) and the Kubernetes
  // descheduler's LowNodeUtilization (requests); beside either or alone, GangDefragment.
  std::string balance;
  bool defragment_enabled = false;
  if (plugins->count("balance")) {
    for (const auto& name : plugins->at("balance").enabled) {
      if (name == defragment::kPluginName) {
        defragment_enabled = true;
        continue;
      }
      if (name != "LoadAware" && name != "LowNodeUtilization") continue;   // a strategy: below
      if (!balance.empty()) return c.at(p + ".plugins.balance", "enables both LoadAware and LowNodeUtilization; use one");
      balance = name;
    }
  }
  for (const auto& point : {"presort", "sort"})
    if (plugins->count(point))
      for (const auto& other : plugins->at(point).enabled)
        return c.at(p + ".plugins." + point, not_implemented(other));
  // The upstream strategies (their args come from pluginConfig below).
  std::vector<std::pair<const plugins::Registration*, bool>> enabled_strategies;   // (plugin, balance)
  for (const auto& point : {"deschedule", "balance"}) {
    if (!plugins->count(point)) continue;
    for (const auto& sname : plugins->at(point).enabled) {
      if (std::string(point) == "balance" &&
          (sname == "LoadAware" || sname == "LowNodeUtilization" || sname == defragment::kPluginName))
        continue;
      auto r = strategy_at(c, sname, point, p + ".plugins." + point);
      if (!r) return r.error();
      enabled_strategies.emplace_back(*r, std::string(point) == "balance");
    }
  }
  for (const auto& point : {"filter", "preEvictionFilter"})
    if (plugins->count(point))
      for (const auto& other : plugins->at(point).enabled)
        if (other != "DefaultEvictor") return c.at(p + ".plugins." + point, not_implemented(other));
  const json* load_aware_args = nullptr;
  const json* evictor_args = nullptr;
  const json* defragment_args = nullptr;
  std::string la_path, ev_path, df_path = p + ".pluginConfig";
  std::map<std::string, std::pair<const json*, std::string>> strategy_args;   // name -> (args, path)
  for (size_t j = 0; configs.is_array() && j < configs.size(); ++j) {
    std::string q = p + ".pluginConfig[" + std::to_string(j) + "]";
    const json& pc = configs[j];
    if (auto s = only_fields(c, pc, q, {"name", "args"}); !s) return s.error();
    auto pname = get_string(c, field(pc, "name"), q + ".name");
    if (!pname) return pname.error();
    if (*pname == "LoadAware" || *pname == "LowNodeUtilization") {
      if (!plugins->count("balance")) balance = *pname;
      if (*pname != balance) {
        policy.warnings.push_back(q + ": plugin " + *pname + " is configured but not enabled; ignored");
        continue;
      }
      load_aware_args = &field(pc, "args");   // absent: null (a const operator[] on a missing key is undefined)
      la_path = q + ".args";
    } else if (*pname == defragment::kPluginName) {
      if (pc.contains("args")) defragment_args = &pc["args"];
      df_path = q + ".args";
    } else if (*pname == "DefaultEvictor") {
      if (pc.contains("args")) evictor_args = &pc["args"];
      ev_path = q + ".args";
    } else if (pname->empty()) {
      return c.at(q + ".name", "is required");
    } else if (plugins::find(*pname)) {
      strategy_args[*pname] = {&field(pc, "args"), q + ".args"};
    } else {
      return c.at(q + ".name", not_implemented(*pname));
    }
  }
  if (defragment_enabled) {
    // weft's own plugin: one per cycle, as its reservations are one set of rooms.
    if (policy.gang_profile())
      return c.at(p, "a second profile enables " + std::string(defragment::kPluginName) +
                         " (weft-descheduler runs it in one profile; enable it in one)");
    auto args = defragment::parse_args(defragment_args ? *defragment_args : json(), df_path);
    if (!args) return make_error(c.name + ": " + args.message());
    out.gang_defragment = *args;
  } else if (defragment_args) {
    policy.warnings.push_back(df_path + ": " + defragment::kPluginName + " is configured but not enabled in plugins.balance; ignored");
  }
  if (auto s = add_strategies(c, enabled_strategies, strategy_args, p, out, policy.warnings); !s) return s.error();
  if (plugins->count("balance"))
    for (const auto& name : plugins->at("balance").enabled)
      if (name == balance || (name == defragment::kPluginName) || plugins::find(name)) out.balance_order.push_back(name);
  out.load_aware_enabled = !balance.empty() && (has_plugins || load_aware_args);
  if (out.load_aware_enabled) {
    if (!load_aware_args || load_aware_args->is_null())
      return c.at(p + ".pluginConfig", balance + " is enabled but has no args (thresholds, targetThresholds)");
    auto parsed = balance == "LoadAware"
                      ? parse_load_aware(c, *load_aware_args, la_path, out.load_aware)
                      : parse_low_node_utilization(c, *load_aware_args, la_path, policy.kubernetes_metrics, out.load_aware);
    if (!parsed) return parsed.error();
  }
  // Every profile's DefaultEvictor args are validated, as upstream, and filter its own plugins.
  static const json no_args;
  if (auto s = parse_evictor(c, evictor_args ? *evictor_args : no_args, ev_path, out, policy.warnings); !s)
    return s.error();
  if (!out.load_aware_enabled && !defragment_enabled && enabled_strategies.empty() && evictor_args)
    policy.warnings.push_back(p + ": enables no deschedule or balance plugin; it evicts nothing");
  return out;
}

// The top-level Prometheus is where a profile's LoadAware reads when its own metrics name
// no address.
Status use_top_level_prometheus(const Ctx& c, Policy& policy, PolicyProfile& profile) {
  MetricsArgs& metrics = profile.load_aware.metrics;
  if (policy.prometheus && metrics.type == MetricsType::Prometheus && metrics.address.empty()) {
    metrics.address = policy.prometheus->url;
    if (!metrics.auth.bearer_token_file.empty() || !metrics.auth.username.empty()) {
      if (policy.prometheus->auth_token_secret)
        return c.at("metricsProviders", "Prometheus authToken and LoadAware.metrics.auth both give credentials; use one");
    } else {
      metrics.auth.token_secret = policy.prometheus->auth_token_secret;
    }
  }
  if (profile.reads_load() && metrics.type == MetricsType::Prometheus && metrics.address.empty())
    policy.warnings.push_back("LoadAware.metrics.address is empty: give --load prometheus=URL or set it");
  return {};
}

}  // namespace

Result<Policy> parse_policy(const json& doc, const std::string& name) {
  Ctx c{name};
  Policy policy;
  // Before the field check: a v1alpha1 policy would otherwise read "strategies: unknown field".
  if (field(doc, "apiVersion") == "descheduler/v1alpha1")
    return c.at("apiVersion", "descheduler/v1alpha1 is not served (the Kubernetes descheduler dropped it too): "
                              "write a descheduler/v1alpha2 policy, with each strategy as a plugin of a profile");
  if (auto s = only_fields(c, doc, "",
                           {"apiVersion", "kind", "profiles", "nodeSelector", "maxNoOfPodsToEvictPerNode",
                            "maxNoOfPodsToEvictPerNamespace", "maxNoOfPodsToEvictTotal", "evictionFailureEventNotification",
                            "gracePeriodSeconds", "metricsCollector", "metricsProviders", "prometheus"});
      !s)
    return s.error();
  // field(): a null or non-string apiVersion is refused like a wrong one, not thrown on.
  const json& api = field(doc, "apiVersion");
  if (api != "descheduler/v1alpha2") return c.at("apiVersion", api.dump() + " is not descheduler/v1alpha2");
  const json& kind = field(doc, "kind");
  if (kind != "DeschedulerPolicy") return c.at("kind", kind.dump() + " is not DeschedulerPolicy");
  auto sel = get_selector(c, field(doc, "nodeSelector"), "nodeSelector");
  if (!sel) return sel.error();
  policy.node_selector = std::move(*sel);
  struct Limit { const char* key; std::optional<int>* into; };
  for (Limit l : {Limit{"maxNoOfPodsToEvictPerNode", &policy.max_per_node},
                  Limit{"maxNoOfPodsToEvictPerNamespace", &policy.max_per_namespace},
                  Limit{"maxNoOfPodsToEvictTotal", &policy.max_total}}) {
    auto v = get_count(c, field(doc, l.key), l.key);
    if (!v) return v.error();
    *l.into = *v;
  }
  if (auto s = parse_top_level_eviction(c, doc, policy); !s) return s.error();
  if (auto s = parse_metrics_sources(c, doc, policy); !s) return s.error();

  const json& profiles = field(doc, "profiles");
  // Absent or empty, as upstream: a valid policy that runs nothing (the warning below says so).
  if (!profiles.is_null() && !profiles.is_array()) return c.at("profiles", "must be a list");
  for (size_t i = 0; i < profiles.size(); ++i) {
    auto profile = parse_profile(c, profiles[i], "profiles[" + std::to_string(i) + "]", policy);
    if (!profile) return profile.error();
    policy.profiles.push_back(std::move(*profile));
  }
  // As upstream, a policy whose profiles enable only the evictor is valid; it evicts nothing.
  if (std::all_of(policy.profiles.begin(), policy.profiles.end(), [](const PolicyProfile& p) {
        return !p.load_aware_enabled && !p.gang_defragment && p.strategies.empty();
      }))
    policy.warnings.push_back("profiles: no profile enables a plugin under deschedule or balance; nothing is evicted");
  for (PolicyProfile& profile : policy.profiles)
    if (auto s = use_top_level_prometheus(c, policy, profile); !s) return s.error();
  return policy;
}

Result<Policy> parse_policy_text(const std::string& text, const std::string& name) {
  auto doc = kube::yaml_to_json(text, name);
  if (!doc) return doc.error();
  return parse_policy(*doc, name);
}

std::map<std::string, ResourceQuery> MetricsArgs::default_resource_queries() {
  std::map<std::string, ResourceQuery> out;
  out["cpu"] = {"avg by ({label}) (avg_over_time(weft_node_cpu_busy_ratio[{window}]))",
                "max by ({label}) (timestamp(weft_node_cpu_busy_ratio))", std::nullopt, std::nullopt};
  out["memory"] = {"avg by ({label}) (avg_over_time(weft_node_memory_used_ratio[{window}]))",
                   "max by ({label}) (timestamp(weft_node_memory_used_ratio))", std::nullopt, std::nullopt};
  return out;
}

bool Policy::load_aware_enabled() const {
  return std::any_of(profiles.begin(), profiles.end(), [](const PolicyProfile& p) { return p.load_aware_enabled; });
}

const PolicyProfile* Policy::gang_profile() const {
  for (const auto& p : profiles)
    if (p.gang_defragment) return &p;
  return nullptr;
}

Seconds Policy::largest_window() const {
  std::optional<Seconds> out;
  for (const auto& p : profiles)
    if (p.load_aware_enabled) out = std::max(out.value_or(Seconds{0}), p.load_aware.metrics.window);
  return out.value_or(MetricsArgs{}.window);   // none: the default window
}

Policy default_policy() {
  PolicyProfile p;
  p.name = "default";
  p.evictor.priority_threshold.value = 10000;
  p.evictor.node_fit = true;
  p.evictor.ignore_pvc_pods = true;
  p.load_aware_enabled = true;
  p.load_aware.thresholds = {{"cpu", 30}, {"memory", 30}};
  p.load_aware.target_thresholds = {{"cpu", 80}, {"memory", 85}};
  p.load_aware.exclude_namespaces = {"kube-system"};
  Policy policy;
  policy.profiles.push_back(std::move(p));
  return policy;
}

}  // namespace weft::descheduler
