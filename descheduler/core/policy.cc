#include "descheduler/core/policy.h"

#include <algorithm>
#include <set>

#include "kube/scenario.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

// Field checking: every parse step names the path it is at, so an error reads
// "profiles[0].pluginConfig[1].args.metrics.typo: unknown field".
struct Ctx {
  std::string name;
  Error at(const std::string& path, const std::string& what) const {
    return make_error(name + ": " + path + ": " + what);
  }
};

Status only_fields(const Ctx& c, const json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
  if (!obj.is_object()) return c.at(path.empty() ? "(document)" : path, "must be a mapping");
  for (const auto& item : obj.items()) {
    const std::string& key = item.key();   // not a structured binding: clang 14 cannot capture one
    bool known = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
    if (!known) return c.at(path.empty() ? key : path + "." + key, "unknown field");
  }
  return {};
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

Result<bool> get_bool(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return false;
  if (!v.is_boolean()) return c.at(path, "must be true or false");
  return v.get<bool>();
}

Result<std::optional<int>> get_count(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::optional<int>();
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1'000'000'000)
    return c.at(path, "must be a non-negative integer");
  return std::optional<int>(v.get<int>());
}

Result<std::string> get_string(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::string();
  if (!v.is_string()) return c.at(path, "must be a string");
  return v.get<std::string>();
}

Result<std::vector<std::string>> get_strings(const Ctx& c, const json& v, const std::string& path) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (!v.is_array()) return c.at(path, "must be a list of strings");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) return c.at(path + "[" + std::to_string(i) + "]", "must be a string");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

// A node or pod selector: the string form ("a=b,c in (d)") or a LabelSelector mapping.
Result<std::optional<kube::LabelSelector>> get_selector(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_null()) return std::optional<kube::LabelSelector>();
  auto sel = v.is_string() ? kube::LabelSelector::parse(v.get<std::string>()) : kube::LabelSelector::from_json(v);
  if (!sel) return c.at(path, sel.message());
  return std::optional<kube::LabelSelector>(std::move(*sel));
}

Result<Seconds> get_duration(const Ctx& c, const json& v, const std::string& path) {
  if (v.is_number()) {
    if (v.get<double>() < 0) return c.at(path, "must not be negative");
    return Seconds(v.get<double>());
  }
  if (!v.is_string()) return c.at(path, "must be a duration such as 5m");
  auto d = kube::parse_duration_at_least(v.get<std::string>(), kube::Duration::zero());
  if (!d) return c.at(path, d.message());
  return to_seconds(*d);
}

const json& field(const json& obj, const char* key) {
  static const json null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

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
  const std::string at = join(path, "evictableNamespaces");
  if (auto s = only_fields(c, en, at, {"include", "exclude"}); !s) return s;
  auto inc = get_strings(c, field(en, "include"), at + ".include");
  if (!inc) return inc.error();
  auto exc = get_strings(c, field(en, "exclude"), at + ".exclude");
  if (!exc) return exc.error();
  if (!inc->empty() && !exc->empty()) return c.at(at, "set include or exclude, not both");
  out.include_namespaces = *inc;
  out.exclude_namespaces = *exc;
  return {};
}

Status parse_evictor(const Ctx& c, const json& args, const std::string& path, Policy& policy) {
  if (args.is_null()) return {};
  if (auto s = only_fields(c, args, path,
                           {"priorityThreshold", "nodeFit", "ignorePvcPods", "evictLocalStoragePods",
                            "evictSystemCriticalPods", "evictDaemonSetPods", "evictFailedBarePods", "labelSelector",
                            "minPodAge", "minReplicas", "nodeSelector", "namespaceLabelSelector",
                            "ignorePodsWithoutPDB", "evictableNamespaces"});
      !s)
    return s;
  EvictorArgs& e = policy.evictor;
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
  auto sel = get_selector(c, field(args, "labelSelector"), join(path, "labelSelector"));
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
  // The DefaultEvictor's own nodeSelector narrows nodes just like the top-level one.
  auto ns = get_selector(c, field(args, "nodeSelector"), join(path, "nodeSelector"));
  if (!ns) return ns.error();
  if (*ns) {
    if (policy.node_selector) return c.at(join(path, "nodeSelector"), "set nodeSelector once (top level or here)");
    policy.node_selector = std::move(*ns);
  }
  // Some older policies put evictableNamespaces on the evictor; it means the same there.
  if (auto s = parse_evictable_namespaces(c, args, path, policy.load_aware); !s) return s;
  if (!field(args, "namespaceLabelSelector").is_null())
    return c.at(join(path, "namespaceLabelSelector"),
                "is not supported by weft-descheduler (it lists no Namespaces); use evictableNamespaces");
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

// The Kubernetes descheduler's LowNodeUtilization: utilization is the pods' requests over
// allocatable (no metrics), evictableNamespaces takes only exclude, evictionLimits.node
// caps evictions per node.
Status parse_low_node_utilization(const Ctx& c, const json& args, const std::string& path, Policy& policy) {
  if (auto s = only_fields(c, args, path,
                           {"thresholds", "targetThresholds", "useDeviationThresholds", "numberOfNodes",
                            "evictableNamespaces", "metricsUtilization", "evictionLimits"});
      !s)
    return s;
  LoadAwareArgs& la = policy.load_aware;
  la.requests_only = true;
  if (auto s = parse_thresholds(c, args, path, la); !s) return s;
  if (auto s = parse_evictable_namespaces(c, args, path, la); !s) return s;
  if (!la.include_namespaces.empty())
    return c.at(join(path, "evictableNamespaces.include"), "LowNodeUtilization takes only exclude (as upstream)");
  if (!field(args, "metricsUtilization").is_null())
    return c.at(join(path, "metricsUtilization"),
                "not supported; weft measures load with the LoadAware plugin (metrics from Prometheus or the agents)");
  auto n = get_count(c, field(args, "numberOfNodes"), join(path, "numberOfNodes"));
  if (!n) return n.error();
  la.number_of_nodes = n->value_or(0);
  const json& limits = field(args, "evictionLimits");
  if (!limits.is_null()) {
    if (auto s = only_fields(c, limits, join(path, "evictionLimits"), {"node"}); !s) return s;
    auto node = get_count(c, field(limits, "node"), join(path, "evictionLimits.node"));
    if (!node) return node.error();
    if (*node) policy.max_per_node = policy.max_per_node ? std::min(*policy.max_per_node, **node) : **node;
  }
  return {};
}

Status parse_load_aware(const Ctx& c, const json& args, const std::string& path, Policy& policy) {
  if (auto s = only_fields(c, args, path,
                           {"thresholds", "targetThresholds", "nodeSelector", "evictableNamespaces", "metrics",
                            "numberOfNodes", "nodeFit", "duration", "useDeviationThresholds"});
      !s)
    return s;
  LoadAwareArgs& la = policy.load_aware;
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
  if (auto s = only_fields(c, plugins, path, {"presort", "sort", "deschedule", "balance", "filter", "preEvictionFilter"}); !s)
    return s.error();
  for (const auto& [point, set] : plugins.items()) {
    std::string p = path + "." + point;
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
  return "plugin " + plugin + " is not implemented by weft-descheduler (it implements LoadAware and "
         "LowNodeUtilization under balance, and DefaultEvictor's args); remove it or run the Kubernetes "
         "descheduler for it";
}

}  // namespace

Result<Policy> parse_policy(const json& doc, const std::string& name) {
  Ctx c{name};
  Policy policy;
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
  // Accepting these and going on without them would mislead: the metrics source is
  // LoadAware.metrics, evictions use each pod's own grace period, failures are logged.
  for (const char* unsupported : {"evictionFailureEventNotification", "gracePeriodSeconds", "metricsCollector",
                                  "metricsProviders", "prometheus"})
    if (!field(doc, unsupported).is_null())
      return c.at(unsupported, "is not supported by weft-descheduler (set the metrics source in LoadAware.metrics; "
                               "evictions use each pod's own grace period)");

  const json& profiles = field(doc, "profiles");
  if (!profiles.is_array() || profiles.empty()) return c.at("profiles", "must be a non-empty list");
  int load_aware_profile = -1;
  for (size_t i = 0; i < profiles.size(); ++i) {
    std::string p = "profiles[" + std::to_string(i) + "]";
    const json& prof = profiles[i];
    if (auto s = only_fields(c, prof, p, {"name", "pluginConfig", "plugins"}); !s) return s.error();
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
        if (name != "LoadAware" && name != "LowNodeUtilization")
          return c.at(p + ".plugins.balance", not_implemented(name));
        if (!balance.empty()) return c.at(p + ".plugins.balance", "enables both LoadAware and LowNodeUtilization; use one");
        balance = name;
      }
    }
    for (const auto& point : {"deschedule", "presort", "sort"})
      if (plugins->count(point))
        for (const auto& other : plugins->at(point).enabled)
          return c.at(p + ".plugins." + point, not_implemented(other));
    for (const auto& point : {"filter", "preEvictionFilter"})
      if (plugins->count(point))
        for (const auto& other : plugins->at(point).enabled)
          if (other != "DefaultEvictor") return c.at(p + ".plugins." + point, not_implemented(other));
    const json* load_aware_args = nullptr;
    const json* evictor_args = nullptr;
    const json* defragment_args = nullptr;
    std::string la_path, ev_path, df_path = p + ".pluginConfig";
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
      } else {
        return c.at(q + ".name", not_implemented(*pname));
      }
    }
    if (defragment_enabled) {
      if (policy.gang_defragment) return c.at(p, "a second profile enables " + std::string(defragment::kPluginName));
      auto args = defragment::parse_args(defragment_args ? *defragment_args : json(), df_path);
      if (!args) return make_error(name + ": " + args.message());
      policy.gang_defragment = *args;
    } else if (defragment_args) {
      policy.warnings.push_back(df_path + ": " + defragment::kPluginName + " is configured but not enabled in plugins.balance; ignored");
    }
    bool active = !balance.empty() && (has_plugins || load_aware_args);
    if (!active) {
      // GangDefragment alone: the profile's DefaultEvictor still decides what may move.
      if (defragment_enabled && load_aware_profile >= 0)
        return c.at(p, "enables GangDefragment but profiles[" + std::to_string(load_aware_profile) +
                           "] enables a balance plugin: enable both in one profile (weft-descheduler runs one "
                           "DefaultEvictor)");
      if (defragment_enabled && evictor_args)
        if (auto s = parse_evictor(c, *evictor_args, ev_path, policy); !s) return s.error();
      continue;
    }
    if (policy.gang_defragment && !defragment_enabled)
      return c.at(p, "enables " + balance + " but another profile enables GangDefragment: enable both in one "
                     "profile (weft-descheduler runs one DefaultEvictor)");
    if (load_aware_profile >= 0)
      return c.at(p, "a second profile enables a balance plugin (profiles[" + std::to_string(load_aware_profile) +
                         "] does)");
    load_aware_profile = static_cast<int>(i);
    if (!load_aware_args || load_aware_args->is_null())
      return c.at(p + ".pluginConfig", balance + " is enabled but has no args (thresholds, targetThresholds)");
    auto parsed = balance == "LoadAware" ? parse_load_aware(c, *load_aware_args, la_path, policy)
                                         : parse_low_node_utilization(c, *load_aware_args, la_path, policy);
    if (!parsed) return parsed.error();
    if (evictor_args)
      if (auto s = parse_evictor(c, *evictor_args, ev_path, policy); !s) return s.error();
  }
  if (load_aware_profile < 0 && !policy.gang_defragment)
    return c.at("profiles", "no profile enables LoadAware, LowNodeUtilization or GangDefragment in plugins.balance");
  policy.load_aware_enabled = load_aware_profile >= 0;
  if (policy.load_aware_enabled && !policy.load_aware.requests_only &&
      policy.load_aware.metrics.type == MetricsType::Prometheus &&
      policy.load_aware.metrics.address.empty())
    policy.warnings.push_back("LoadAware.metrics.address is empty: give --load prometheus=URL or set it");
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

Policy default_policy() {
  Policy p;
  p.evictor.priority_threshold.value = 10000;
  p.evictor.node_fit = true;
  p.evictor.ignore_pvc_pods = true;
  p.load_aware.thresholds = {{"cpu", 30}, {"memory", 30}};
  p.load_aware.target_thresholds = {{"cpu", 80}, {"memory", 85}};
  p.load_aware.exclude_namespaces = {"kube-system"};
  return p;
}

}  // namespace weft::descheduler
