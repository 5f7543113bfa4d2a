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
  args::Problems problems;
  for (const auto& [res, val] : v.items()) {
    std::string p = path + "." + res;
    if (res.empty() || res.find_first_of(" \t") != std::string::npos) problems.add(c.at(p, "is not a resource name"));
    if (!val.is_number()) {
      problems.add(c.at(p, "must be a number"));
      continue;
    }
    double x = val.get<double>();
    if (x < 0 || x > 100) problems.add(c.at(p, "must be a percentage 0..100"));
    out[res] = x;
  }
  if (v.empty()) problems.add(c.at(path, "names no resource"));
  if (!problems.empty()) return problems.error();
  return out;
}

// upstream's PriorityThreshold {value *int32, name string}: an empty name is no name.
Status parse_priority_threshold(const Ctx& c, const json& v, const std::string& path, PriorityThreshold& out) {
  if (v.is_null()) return {};
  args::Problems problems;
  if (!problems.add(only_fields(c, v, path, {"value", "name"})) && !v.is_object()) return problems.status();
  const json& value = field(v, "value");
  auto name = problems.take(get_string(c, field(v, "name"), path + ".name"));
  if (!value.is_null()) {
    if (!value.is_number_integer() || value.get<int64_t>() > INT32_MAX || value.get<int64_t>() < INT32_MIN)
      problems.add(c.at(path + ".value", "must be a 32-bit integer"));
    // As upstream: no threshold above system-cluster-critical's priority.
    else if (value.get<int64_t>() > kube::kSystemClusterCriticalPriority)
      problems.add(c.at(path + ".value", "can't be greater than " + std::to_string(kube::kSystemClusterCriticalPriority)));
    else
      out.value = value.get<int32_t>();
  }
  if (name && !name->empty()) {
    if (!value.is_null()) problems.add(c.at(path, "set value or name, not both"));
    out.name = *name;
  }
  return problems.status();
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

// podProtections.config: {PodsWithPVC: {protectedStorageClasses: [{name}]}}.
Status parse_protected_storage_classes(const Ctx& c, const json& config, const std::string& at, bool pvc_enabled,
                                       EvictorArgs& e) {
  if (config.is_null()) return {};
  args::Problems problems;
  if (!problems.add(only_fields(c, config, at, {"PodsWithPVC"})) && !config.is_object()) return problems.status();
  const json& pvc = field(config, "PodsWithPVC");
  if (pvc.is_null()) return problems.status();
  if (!problems.add(only_fields(c, pvc, at + ".PodsWithPVC", {"protectedStorageClasses"})) && !pvc.is_object())
    return problems.status();
  const std::string classes_at = at + ".PodsWithPVC.protectedStorageClasses";
  const json& classes = field(pvc, "protectedStorageClasses");
  if (!classes.is_null() && !classes.is_array()) problems.add(c.at(classes_at, "must be a list of {name}"));
  for (size_t i = 0; classes.is_array() && i < classes.size(); ++i) {
    const std::string item = classes_at + "[" + std::to_string(i) + "]";
    if (!problems.add(only_fields(c, classes[i], item, {"name"})) && !classes[i].is_object()) continue;
    auto name = problems.take(get_string(c, field(classes[i], "name"), item + ".name"));
    if (!name) continue;
    // As upstream, names are checked only with PodsWithPVC in extraEnabled.
    if (name->empty() && pvc_enabled) problems.add(c.at(item + ".name", "is required"));
    e.protected_storage_classes.push_back(*name);
  }
  return problems.status();
}

// podProtections, the current form of the deprecated booleans (not both, as upstream):
// defaultDisabled lifts a default protection, extraEnabled adds one.
Status parse_pod_protections(const Ctx& c, const json& args, const std::string& path, EvictorArgs& e) {
  const json& v = field(args, "podProtections");
  if (v.is_null()) return {};
  const std::string at = join(path, "podProtections");
  args::Problems problems;
  if (!problems.add(only_fields(c, v, at, {"defaultDisabled", "extraEnabled", "config"})) && !v.is_object())
    return problems.status();
  auto disabled = problems.take(get_strings(c, field(v, "defaultDisabled"), at + ".defaultDisabled"))
                      .value_or(std::vector<std::string>());
  auto enabled = problems.take(get_strings(c, field(v, "extraEnabled"), at + ".extraEnabled"))
                     .value_or(std::vector<std::string>());
  if ((disabled.size() || enabled.size()) &&
      (e.evict_local_storage_pods || e.evict_daemonset_pods || e.evict_system_critical_pods || e.ignore_pvc_pods ||
       e.evict_failed_bare_pods || e.ignore_pods_without_pdb))
    problems.add(c.at(at, "cannot be used with the deprecated fields (evictLocalStoragePods, ignorePvcPods, ...)"));
  struct Protection { const char* name; bool* flag; };
  auto apply = [&](const std::vector<std::string>& list, const std::string& where,
                   std::initializer_list<Protection> known) {
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string item = where + "[" + std::to_string(i) + "]";
      auto it = std::find_if(known.begin(), known.end(), [&](const Protection& p) { return list[i] == p.name; });
      if (it == known.end()) {
        std::string names;
        for (const Protection& p : known) names += std::string(names.empty() ? "" : ", ") + p.name;
        problems.add(c.at(item, "'" + list[i] + "' is not one of " + names));
      } else if (!seen.insert(list[i]).second) {
        problems.add(c.at(item, "'" + list[i] + "' appears twice"));
      } else {
        *it->flag = true;
      }
    }
  };
  // In upstream's order of its valid options.
  apply(disabled, at + ".defaultDisabled",
        {{"PodsWithLocalStorage", &e.evict_local_storage_pods}, {"SystemCriticalPods", &e.evict_system_critical_pods},
         {"FailedBarePods", &e.evict_failed_bare_pods}, {"DaemonSetPods", &e.evict_daemonset_pods}});
  apply(enabled, at + ".extraEnabled",
        {{"PodsWithPVC", &e.ignore_pvc_pods}, {"PodsWithoutPDB", &e.ignore_pods_without_pdb},
         {"PodsWithResourceClaims", &e.protect_resource_claims}});
  const bool pvc_enabled = std::find(enabled.begin(), enabled.end(), "PodsWithPVC") != enabled.end();
  problems.add(parse_protected_storage_classes(c, field(v, "config"), at + ".config", pvc_enabled, e));
  return problems.status();
}

Status parse_evictor(const Ctx& c, const json& args, const std::string& path, PolicyProfile& profile,
                     std::vector<std::string>& warnings) {
  if (args.is_null()) return {};
  args::Problems problems;
  // Not an upstream DefaultEvictor field: said so, with where it belongs.
  if (!field(args, "evictableNamespaces").is_null())
    problems.add(c.at(join(path, "evictableNamespaces"),
                      "unknown field (DefaultEvictor has none, as upstream; set it on LowNodeUtilization, "
                      "HighNodeUtilization or LoadAware, or namespaces on the other plugins)"));
  json known = args;
  if (known.is_object()) known.erase("evictableNamespaces");
  if (!args::check_fields(problems, c, known, path,
                          {"priorityThreshold", "nodeFit", "ignorePvcPods", "evictLocalStoragePods",
                           "evictSystemCriticalPods", "evictDaemonSetPods", "evictFailedBarePods", "labelSelector",
                           "minPodAge", "minReplicas", "nodeSelector", "namespaceLabelSelector", "ignorePodsWithoutPDB",
                           "podProtections", "noEvictionPolicy"}))
    return problems.status();
  EvictorArgs& e = profile.evictor;
  problems.add(parse_priority_threshold(c, field(args, "priorityThreshold"), join(path, "priorityThreshold"),
                                        e.priority_threshold));
  struct Flag { const char* key; bool* into; };
  for (Flag f : {Flag{"nodeFit", &e.node_fit}, Flag{"ignorePvcPods", &e.ignore_pvc_pods},
                 Flag{"evictLocalStoragePods", &e.evict_local_storage_pods},
                 Flag{"evictSystemCriticalPods", &e.evict_system_critical_pods},
                 Flag{"evictDaemonSetPods", &e.evict_daemonset_pods},
                 Flag{"evictFailedBarePods", &e.evict_failed_bare_pods},
                 Flag{"ignorePodsWithoutPDB", &e.ignore_pods_without_pdb}})
    if (auto b = problems.take(get_bool(c, field(args, f.key), join(path, f.key)))) *f.into = *b;
  if (auto sel = problems.take(args::get_label_selector(c, field(args, "labelSelector"), join(path, "labelSelector"))))
    e.label_selector = std::move(*sel);
  if (!field(args, "minPodAge").is_null())
    if (auto d = problems.take(args::get_go_duration(c, field(args, "minPodAge"), join(path, "minPodAge"))))
      e.min_pod_age = *d;
  if (auto mr = problems.take(get_count(c, field(args, "minReplicas"), join(path, "minReplicas"))))
    e.min_replicas = mr->value_or(0);
  // The nodes nodeFit may count as targets (upstream's PreEvictionFilter); the nodes the
  // plugins act on are the top-level nodeSelector's.
  if (auto ns = problems.take(get_node_selector(c, field(args, "nodeSelector"), join(path, "nodeSelector"))))
    e.node_selector = std::move(*ns);
  // After the deprecated booleans: podProtections may not be used with them.
  problems.add(parse_pod_protections(c, args, path, e));
  if (!e.protected_storage_classes.empty() && !e.ignore_pvc_pods)
    warnings.push_back(join(path, "podProtections.config.PodsWithPVC") +
                              ": PodsWithPVC is not enabled, so no storage class is protected; ignored");
  if (auto no_eviction = problems.take(get_string(c, field(args, "noEvictionPolicy"), join(path, "noEvictionPolicy")))) {
    if (!no_eviction->empty() && *no_eviction != "Preferred" && *no_eviction != "Mandatory")
      problems.add(c.at(join(path, "noEvictionPolicy"), "'" + *no_eviction + "' is not Preferred or Mandatory"));
    e.no_eviction_mandatory = *no_eviction == "Mandatory";
  }
  auto ns_sel = problems.take(
      args::get_label_selector(c, field(args, "namespaceLabelSelector"), join(path, "namespaceLabelSelector")));
  // An empty selector selects every namespace (upstream skips the check).
  if (ns_sel && *ns_sel && !(*ns_sel)->empty()) e.namespace_label_selector = std::move(*ns_sel);
  return problems.status();
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
  args::Problems problems;
  auto th = problems.take(get_thresholds(c, field(args, "thresholds"), join(path, "thresholds")));
  auto tt = problems.take(get_thresholds(c, field(args, "targetThresholds"), join(path, "targetThresholds")));
  if (auto dev = problems.take(get_bool(c, field(args, "useDeviationThresholds"), join(path, "useDeviationThresholds"))))
    la.use_deviation_thresholds = *dev;
  if (!th || !tt) return problems.status();
  // One problem, as upstream's "configured different resources", naming each difference.
  std::string missing, extra;
  for (const auto& [res, v] : *th) {
    if (!tt->count(res)) missing += (missing.empty() ? "" : ", ") + res;
    // Deviation spans are independent: a wider low span than high span is allowed.
    else if (v > tt->at(res) && !la.use_deviation_thresholds)
      problems.add(c.at(join(path, "thresholds." + res), "is above targetThresholds." + res));
  }
  for (const auto& [res, _] : *tt)
    if (!th->count(res)) extra += (extra.empty() ? "" : ", ") + res;
  if (!missing.empty() || !extra.empty())
    problems.add(c.at(join(path, "targetThresholds"),
                      "names other resources than thresholds (" +
                          (missing.empty() ? "" : "has no " + missing + (extra.empty() ? "" : "; ")) +
                          (extra.empty() ? "" : "has " + extra + ", which thresholds lacks") + ")"));
  la.thresholds = *th;
  la.target_thresholds = *tt;
  return problems.status();
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
  args::Problems problems;
  if (!args::check_fields(problems, c, args, path,
                          {"thresholds", "targetThresholds", "useDeviationThresholds", "numberOfNodes",
                           "evictableNamespaces", "metricsUtilization", "evictionLimits"}))
    return problems.status();
  la.requests_only = true;
  const bool thresholds_ok = problems.add(parse_thresholds(c, args, path, la));
  if (problems.add(parse_evictable_namespaces(c, args, path, la)) && !la.include_namespaces.empty())
    problems.add(c.at(join(path, "evictableNamespaces.include"), "LowNodeUtilization takes only exclude (as upstream)"));
  // Its checks of the thresholds' resources need the thresholds.
  if (thresholds_ok || field(args, "metricsUtilization").is_null()) {
    bool metrics_ok = problems.add(parse_metrics_utilization(c, field(args, "metricsUtilization"),
                                                             join(path, "metricsUtilization"), kubernetes_metrics, la));
    if (metrics_ok && la.metrics.type == MetricsType::KubernetesMetrics)
      for (const auto& [res, _] : la.thresholds)
        if (res != "cpu" && res != "memory" && res != "pods")
          problems.add(c.at(join(path, "thresholds." + res),
                            "is not in metrics.k8s.io (it reports cpu and memory; pods are counted), so "
                            "metricsUtilization cannot measure it"));
  }
  if (auto n = problems.take(args::get_number_of_nodes(c, field(args, "numberOfNodes"), join(path, "numberOfNodes"))))
    la.number_of_nodes = *n;
  const json& limits = field(args, "evictionLimits");
  if (!limits.is_null() &&
      (problems.add(only_fields(c, limits, join(path, "evictionLimits"), {"node"})) || limits.is_object()))
    if (auto node = problems.take(get_count(c, field(limits, "node"), join(path, "evictionLimits.node"))))
      la.eviction_limit_node = *node;
  return problems.status();
}

Status parse_load_aware(const Ctx& c, const json& args, const std::string& path, LoadAwareArgs& la) {
  args::Problems problems;
  if (!problems.add(only_fields(c, args, path,
                                {"thresholds", "targetThresholds", "nodeSelector", "evictableNamespaces", "metrics",
                                 "numberOfNodes", "nodeFit", "duration", "useDeviationThresholds"})) &&
      !args.is_object())
    return problems.status();
  const bool thresholds_ok = problems.add(parse_thresholds(c, args, path, la));
  if (auto sel = problems.take(get_selector(c, field(args, "nodeSelector"), join(path, "nodeSelector"))))
    la.node_selector = std::move(*sel);
  problems.add(parse_evictable_namespaces(c, args, path, la));
  const bool metrics_ok = problems.add(parse_metrics(c, field(args, "metrics"), join(path, "metrics"), la.metrics));
  std::optional<Seconds> duration;   // Volcano's name for the query window
  problems.add(parse_window(c, field(args, "duration"), join(path, "duration"), duration));
  if (duration) la.metrics.window = *duration;
  for (const auto& [res, _] : la.metrics.resources)
    if (thresholds_ok && metrics_ok && res != "cpu" && res != "memory" && !la.thresholds.count(res))
      problems.add(c.at(join(path, "metrics.resources." + res), "has a query but no threshold (add it to thresholds)"));
  if (auto n = problems.take(get_count(c, field(args, "numberOfNodes"), join(path, "numberOfNodes"))))
    la.number_of_nodes = n->value_or(0);
  if (!field(args, "nodeFit").is_null())
    if (auto b = problems.take(get_bool(c, field(args, "nodeFit"), join(path, "nodeFit")))) la.node_fit = *b;
  return problems.status();
}

struct PluginSet {
  std::vector<std::string> enabled, disabled;
};

Result<std::map<std::string, PluginSet>> parse_plugins(const Ctx& c, const json& plugins, const std::string& path) {
  std::map<std::string, PluginSet> out;
  if (plugins.is_null()) return out;
  args::Problems problems;
  if (!args::check_fields(problems, c, plugins, path,
                          {"presort", "sort", "deschedule", "balance", "filter", "preEvictionFilter", "preevictionfilter",
                           "evict"}))
    return problems.error();
  for (const auto& [key, set] : plugins.items()) {
    // upstream's JSON tag is "preevictionfilter"; its docs write "preEvictionFilter".
    const std::string point = key == "preevictionfilter" ? "preEvictionFilter" : key;
    std::string p = path + "." + key;
    if (set.is_null()) continue;
    if (!problems.add(only_fields(c, set, p, {"enabled", "disabled"})) && !set.is_object()) continue;
    auto en = problems.take(get_strings(c, field(set, "enabled"), p + ".enabled"));
    auto dis = problems.take(get_strings(c, field(set, "disabled"), p + ".disabled"));
    if (en && dis) out[point] = PluginSet{*en, *dis};
  }
  if (!problems.empty()) return problems.error();
  return out;
}

// Running a policy with a plugin left out would do less than its author asked for.
std::string not_implemented(const std::string& plugin) {
  std::string known;
  for (const auto& n : plugins::names()) known += ", " + n;
  return "plugin " + plugin + " is not implemented by weft-descheduler (it implements LoadAware, LowNodeUtilization, " +
         std::string(defragment::kPluginName) + known + " and DefaultEvictor); remove it or run the Kubernetes descheduler for it";
}

// The extension point a plugin weft knows implements ("" for one it does not know).
std::string point_of(const std::string& name) {
  if (name == "DefaultEvictor") return "Filter/PreEvictionFilter";
  if (name == "LoadAware" || name == "LowNodeUtilization" || name == defragment::kPluginName) return "Balance";
  const plugins::Registration* r = plugins::find(name);
  if (!r) return "";
  return r->balance ? "Balance" : "Deschedule";
}

// A plugin enabled at an extension point it does not implement (upstream: "configures
// <point> extension point of non-existing plugins").
std::string not_at_point(const std::string& name, const std::string& point) {
  const std::string implemented = point_of(name);
  if (implemented.empty()) return not_implemented(name);
  return "plugin " + name + " is a " + implemented + " plugin, not a " + point + " one";
}

// A registered strategy plugin enabled at `point`: it must implement that extension point.
Result<const plugins::Registration*> strategy_at(const Ctx& c, const std::string& name, const std::string& point,
                                                 const std::string& path) {
  const plugins::Registration* r = plugins::find(name);
  const bool balance = point == "balance";
  if (!r || (balance ? !r->balance : !r->deschedule)) return c.at(path, not_at_point(name, balance ? "Balance" : "Deschedule"));
  return r;
}

// Makes each enabled strategy from its pluginConfig args (none: upstream's defaults); args
// of a strategy the profile does not enable are still checked, then noted as unused.
Status add_strategies(const Ctx& c, const std::vector<std::pair<const plugins::Registration*, bool>>& enabled,
                      const std::map<std::string, std::pair<const json*, std::string>>& configured,
                      const std::string& path, PolicyProfile& profile, std::vector<std::string>& warnings) {
  args::Problems problems;
  for (const auto& [reg, balance] : enabled) {
    auto cfg = configured.find(reg->name);
    static const json no_args;
    const json& a = cfg == configured.end() ? no_args : *cfg->second.first;
    std::string at = cfg == configured.end() ? path + ".pluginConfig(" + reg->name + ")" : cfg->second.second;
    if (auto plugin = problems.take(reg->make(c, a, at)))
      profile.strategies.push_back({reg->name, balance, std::move(*plugin)});
  }
  for (const auto& [name, cfg] : configured) {
    const std::string& plugin = name;   // clang 14 refuses a lambda capturing a structured binding
    bool used = std::any_of(enabled.begin(), enabled.end(), [&](const auto& e) { return plugin == e.first->name; });
    if (used) continue;
    if (problems.take(plugins::find(name)->make(c, *cfg.first, cfg.second)))
      warnings.push_back(cfg.second + ": plugin " + name + " is configured but not enabled; ignored");
  }
  return problems.status();
}

// gracePeriodSeconds (sent with every eviction) and evictionFailureEventNotification (a
// Warning Event on a pod the Eviction API refused).
Status parse_top_level_eviction(const Ctx& c, const json& doc, Policy& policy) {
  args::Problems problems;
  auto events = problems.take(
      get_bool(c, field(doc, "evictionFailureEventNotification"), "evictionFailureEventNotification"));
  if (events) policy.eviction_failure_events = *events;
  // A Go *int64 upstream leaves unchecked and sends as it is; the API server reads a negative
  // grace period as 1 s, so weft sends that.
  const json& grace = field(doc, "gracePeriodSeconds");
  if (!grace.is_null() && (!grace.is_number_integer() || (grace.is_number_unsigned() && grace.get<uint64_t>() > INT64_MAX)))
    problems.add(c.at("gracePeriodSeconds", "must be an integer (seconds)"));
  else if (!grace.is_null())
    policy.grace_period_seconds = grace.get<int64_t>() < 0 ? 1 : grace.get<int64_t>();
  return problems.status();
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

// authToken: {secretReference: {namespace, name}}, both required (absent: no token).
Result<std::optional<SecretReference>> parse_auth_token(const Ctx& c, const json& token, const std::string& at) {
  if (token.is_null()) return std::optional<SecretReference>();
  args::Problems problems;
  if (!problems.add(only_fields(c, token, at, {"secretReference"})) && !token.is_object()) return problems.error();
  const json& ref = field(token, "secretReference");
  if (ref.is_null()) {
    problems.add(c.at(at + ".secretReference", "is required when authToken is set"));
    return problems.error();
  }
  if (!problems.add(only_fields(c, ref, at + ".secretReference", {"namespace", "name"})) && !ref.is_object())
    return problems.error();
  auto ns = problems.take(get_string(c, field(ref, "namespace"), at + ".secretReference.namespace"));
  auto name = problems.take(get_string(c, field(ref, "name"), at + ".secretReference.name"));
  if (ns && name && (ns->empty() || name->empty()))
    problems.add(c.at(at + ".secretReference", "must set both namespace and name"));
  if (!problems.empty()) return problems.error();
  return std::optional<SecretReference>(SecretReference{*ns, *name});
}

// {url, authToken: {secretReference: {namespace, name}}}, as upstream validates it.
Result<PrometheusProvider> parse_prometheus_provider(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return c.at(path, "is required when the source is Prometheus");
  args::Problems problems;
  if (!problems.add(only_fields(c, v, path, {"url", "authToken"})) && !v.is_object()) return problems.error();
  PrometheusProvider out;
  if (auto url = problems.take(get_string(c, field(v, "url"), path + ".url"))) {
    if (url->empty()) problems.add(c.at(path + ".url", "is required"));
    else if (url->rfind("http://", 0) != 0 && url->rfind("https://", 0) != 0)
      problems.add(c.at(path + ".url", "'" + *url + "' is not an http(s) URL"));
    else if (!has_valid_port(*url))
      problems.add(c.at(path + ".url", "'" + *url + "' has an invalid port (digits only, as Go's URL parser)"));
    out.url = *url;
  }
  if (auto secret = problems.take(parse_auth_token(c, field(v, "authToken"), path + ".authToken")))
    out.auth_token_secret = *secret;
  if (!problems.empty()) return problems.error();
  return out;
}

// metricsProviders (each source once) and the deprecated metricsCollector (not together with a KubernetesMetrics provider, as upstream).
Status parse_metrics_sources(const Ctx& c, const json& doc, Policy& policy) {
  args::Problems problems;
  const json& collector = field(doc, "metricsCollector");
  if (!collector.is_null() &&
      (problems.add(only_fields(c, collector, "metricsCollector", {"enabled"})) || collector.is_object()))
    if (auto enabled = problems.take(get_bool(c, field(collector, "enabled"), "metricsCollector.enabled")))
      policy.kubernetes_metrics = *enabled;
  const json& providers = field(doc, "metricsProviders");
  if (!providers.is_null() && !providers.is_array()) problems.add(c.at("metricsProviders", "must be a list"));
  std::set<std::string> seen;
  for (size_t i = 0; providers.is_array() && i < providers.size(); ++i) {
    std::string at = "metricsProviders[" + std::to_string(i) + "]";
    const json& pr = providers[i];
    if (!problems.add(only_fields(c, pr, at, {"source", "prometheus"})) && !pr.is_object()) continue;
    auto source = problems.take(get_string(c, field(pr, "source"), at + ".source"));
    if (!source) continue;
    if (!seen.insert(*source).second) {
      problems.add(c.at(at + ".source", "'" + *source + "' is already configured (each source once)"));
      continue;
    }
    if (*source == "KubernetesMetrics") {
      if (policy.kubernetes_metrics)
        problems.add(c.at(at + ".source", "KubernetesMetrics is not allowed with metricsCollector.enabled (as upstream)"));
      policy.kubernetes_metrics = true;
      if (!field(pr, "prometheus").is_null())
        problems.add(c.at(at + ".prometheus", "is not allowed with source KubernetesMetrics"));
      continue;
    }
    if (*source != "Prometheus") {
      problems.add(c.at(at + ".source", "'" + *source + "' is not Prometheus or KubernetesMetrics"));
      continue;
    }
    if (auto prom = problems.take(parse_prometheus_provider(c, field(pr, "prometheus"), at + ".prometheus")))
      policy.prometheus = *prom;
  }
  return problems.status();
}

// One profile: its plugins with their args and its own DefaultEvictor's (absent: upstream's
// defaults). Warnings go to the policy; GangDefragment may be enabled by one profile only.
Result<PolicyProfile> parse_profile(const Ctx& c, const json& prof, const std::string& p, Policy& policy) {
  PolicyProfile out;
  args::Problems problems;
  if (!problems.add(only_fields(c, prof, p, {"name", "pluginConfig", "plugins"})) && !prof.is_object())
    return problems.error();
  auto name = problems.take(get_string(c, field(prof, "name"), p + ".name"));
  out.name = name && !name->empty() ? *name : p;
  auto plugins = problems.take(parse_plugins(c, field(prof, "plugins"), p + ".plugins"))
                     .value_or(std::map<std::string, PluginSet>());
  const json& configs = field(prof, "pluginConfig");
  if (!configs.is_null() && !configs.is_array()) problems.add(c.at(p + ".pluginConfig", "must be a list"));
  // The balance plugins weft plans: Volcano's LoadAware (measured load) and the Kubernetes
  // descheduler's LowNodeUtilization (requests); beside either or alone, GangDefragment.
  std::string balance;
  bool defragment_enabled = false;
  if (plugins.count("balance")) {
    for (const auto& pname : plugins.at("balance").enabled) {
      if (pname == defragment::kPluginName) {
        defragment_enabled = true;
        continue;
      }
      if (pname != "LoadAware" && pname != "LowNodeUtilization") continue;   // a strategy: below
      if (!balance.empty() && balance != pname)
        problems.add(c.at(p + ".plugins.balance", "enables both LoadAware and LowNodeUtilization; use one"));
      else
        balance = pname;
    }
  }
  for (const auto& point : {"presort", "sort"})
    if (plugins.count(point))
      for (const auto& other : plugins.at(point).enabled)
        problems.add(c.at(p + ".plugins." + point, "weft-descheduler does not run this extension point (upstream's "
                                                   "profile ignores it too): remove " + other));
  // The upstream strategies (their args come from pluginConfig below).
  std::vector<std::pair<const plugins::Registration*, bool>> enabled_strategies;   // (plugin, balance)
  for (const auto& point : {"deschedule", "balance"}) {
    if (!plugins.count(point)) continue;
    for (const auto& sname : plugins.at(point).enabled) {
      if (std::string(point) == "balance" &&
          (sname == "LoadAware" || sname == "LowNodeUtilization" || sname == defragment::kPluginName))
        continue;
      if (auto r = problems.take(strategy_at(c, sname, point, p + ".plugins." + point)))
        enabled_strategies.emplace_back(*r, std::string(point) == "balance");
    }
  }
  // The Evict extension point of the first v1alpha2 releases (dropped upstream in 0.27, whose
  // decoder now skips it): enabling DefaultEvictor there still means what it meant.
  if (plugins.count("evict"))
    for (const auto& other : plugins.at("evict").enabled)
      if (other != "DefaultEvictor")
        problems.add(c.at(p + ".plugins.evict", "the Evict extension point is gone (upstream dropped it in 0.27); "
                                                "DefaultEvictor is the one evictor, and " + other + " is not one"));
  for (const auto& point : {"filter", "preEvictionFilter"})
    if (plugins.count(point))
      for (const auto& other : plugins.at(point).enabled)
        if (other != "DefaultEvictor") problems.add(c.at(p + ".plugins." + point, not_at_point(other, "Filter/PreEvictionFilter")));
  const json* load_aware_args = nullptr;
  const json* evictor_args = nullptr;
  const json* defragment_args = nullptr;
  std::string la_path, ev_path, df_path = p + ".pluginConfig";
  std::map<std::string, std::pair<const json*, std::string>> strategy_args;   // name -> (args, path)
  std::map<std::string, std::string> configured_at;                          // name -> its first entry's path
  for (size_t j = 0; configs.is_array() && j < configs.size(); ++j) {
    std::string q = p + ".pluginConfig[" + std::to_string(j) + "]";
    const json& pc = configs[j];
    if (!problems.add(only_fields(c, pc, q, {"name", "args"})) && !pc.is_object()) continue;
    auto pname = problems.take(get_string(c, field(pc, "name"), q + ".name"));
    if (!pname) continue;
    if (pname->empty()) {
      problems.add(c.at(q + ".name", "is required"));
      continue;
    }
    // Upstream runs the first entry of a name and ignores the others: one is required.
    if (auto [it, first] = configured_at.emplace(*pname, q); !first) {
      problems.add(c.at(q + ".name", *pname + " is configured twice in this profile (first at " + it->second +
                                         "); give each plugin one entry"));
      continue;
    }
    if (*pname == "LoadAware" || *pname == "LowNodeUtilization") {
      if (*pname != balance) {
        // As upstream, every pluginConfig's args are validated, enabled or not; only
        // plugins.balance runs it.
        LoadAwareArgs unused;
        const json& a = field(pc, "args");
        bool checked = problems.add(*pname == "LoadAware" ? (a.is_null() ? Status() : parse_load_aware(c, a, q + ".args", unused))
                                                          : parse_low_node_utilization(c, a, q + ".args", true, unused));
        if (checked) policy.warnings.push_back(q + ": plugin " + *pname + " is configured but not enabled; ignored");
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
    } else if (plugins::find(*pname)) {
      strategy_args[*pname] = {&field(pc, "args"), q + ".args"};
    } else {
      problems.add(c.at(q + ".name", not_implemented(*pname)));
    }
  }
  if (defragment_enabled) {
    // weft's own plugin: one per cycle, as its reservations are one set of rooms.
    if (policy.gang_profile())
      problems.add(c.at(p, "a second profile enables " + std::string(defragment::kPluginName) +
                               " (weft-descheduler runs it in one profile; enable it in one)"));
    if (auto parsed = problems.take(defragment::parse_args(c, defragment_args ? *defragment_args : json(), df_path)))
      out.gang_defragment = *parsed;
  } else if (defragment_args) {
    policy.warnings.push_back(df_path + ": " + defragment::kPluginName + " is configured but not enabled in plugins.balance; ignored");
  }
  problems.add(add_strategies(c, enabled_strategies, strategy_args, p, out, policy.warnings));
  if (plugins.count("balance"))
    for (const auto& pname : plugins.at("balance").enabled)
      if (pname == balance || (pname == defragment::kPluginName) || plugins::find(pname)) out.balance_order.push_back(pname);
  out.load_aware_enabled = !balance.empty();
  if (out.load_aware_enabled) {
    if (!load_aware_args || load_aware_args->is_null())
      problems.add(c.at(p + ".pluginConfig", balance + " is enabled but has no args (thresholds, targetThresholds)"));
    else if (balance == "LoadAware")
      problems.add(parse_load_aware(c, *load_aware_args, la_path, out.load_aware));
    else
      problems.add(parse_low_node_utilization(c, *load_aware_args, la_path, policy.kubernetes_metrics, out.load_aware));
  }
  // Every profile's DefaultEvictor args are validated, as upstream, and filter its own plugins.
  static const json no_args;
  problems.add(parse_evictor(c, evictor_args ? *evictor_args : no_args, ev_path, out, policy.warnings));
  if (!problems.empty()) return problems.error();
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
  if (!doc.is_object()) return c.at("(document)", "must be a mapping");
  // field(): a null or non-string apiVersion is refused like a wrong one, not thrown on.
  const json& api = field(doc, "apiVersion");
  if (api != "descheduler/v1alpha2") return c.at("apiVersion", api.dump() + " is not descheduler/v1alpha2");
  const json& kind = field(doc, "kind");
  if (kind != "DeschedulerPolicy") return c.at("kind", kind.dump() + " is not DeschedulerPolicy");
  // Every other problem is gathered, so the whole policy is told at once (as upstream).
  args::Problems problems;
  if (!field(doc, "prometheus").is_null())
    problems.add(c.at("prometheus", "unknown field (v1alpha2 has no top-level prometheus; upstream drops it unread): write "
                                    "metricsProviders: [{source: Prometheus, prometheus: {url, authToken}}]"));
  json known = doc;
  known.erase("prometheus");
  problems.add(only_fields(c, known, "",
                           {"apiVersion", "kind", "profiles", "nodeSelector", "maxNoOfPodsToEvictPerNode",
                            "maxNoOfPodsToEvictPerNamespace", "maxNoOfPodsToEvictTotal",
                            "evictionFailureEventNotification", "gracePeriodSeconds", "metricsCollector",
                            "metricsProviders"}));
  if (auto sel = problems.take(args::get_node_selector(c, field(doc, "nodeSelector"), "nodeSelector")))
    policy.node_selector = std::move(*sel);
  struct Limit { const char* key; std::optional<int>* into; };
  for (Limit l : {Limit{"maxNoOfPodsToEvictPerNode", &policy.max_per_node},
                  Limit{"maxNoOfPodsToEvictPerNamespace", &policy.max_per_namespace},
                  Limit{"maxNoOfPodsToEvictTotal", &policy.max_total}})
    if (auto v = problems.take(get_count(c, field(doc, l.key), l.key))) *l.into = *v;
  problems.add(parse_top_level_eviction(c, doc, policy));
  problems.add(parse_metrics_sources(c, doc, policy));

  const json& profiles = field(doc, "profiles");
  // Absent or empty, as upstream: a valid policy that runs nothing (the warning below says so).
  if (!profiles.is_null() && !profiles.is_array()) problems.add(c.at("profiles", "must be a list"));
  for (size_t i = 0; profiles.is_array() && i < profiles.size(); ++i)
    if (auto profile = problems.take(parse_profile(c, profiles[i], "profiles[" + std::to_string(i) + "]", policy)))
      policy.profiles.push_back(std::move(*profile));
  if (!problems.empty()) return problems.error();
  // As upstream, a policy whose profiles enable only the evictor is valid; it evicts nothing.
  if (std::all_of(policy.profiles.begin(), policy.profiles.end(), [](const PolicyProfile& p) {
        return !p.load_aware_enabled && !p.gang_defragment && p.strategies.empty();
      }))
    policy.warnings.push_back("profiles: no profile enables a plugin under deschedule or balance; nothing is evicted");
  for (PolicyProfile& profile : policy.profiles) problems.add(use_top_level_prometheus(c, policy, profile));
  if (!problems.empty()) return problems.error();
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
