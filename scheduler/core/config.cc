#include "scheduler/core/config.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "kube/scenario.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

const std::set<std::string>& supported_plugins() {
  static const std::set<std::string> s{"gang",      "priority", "conformance", "drf",
                                       "proportion", "predicates", "nodeorder", "binpack",
                                       "network-topology-aware", "usage", "overcommit"};
  return s;
}

// Volcano's per-plugin switches (PluginOption fields); accepted, they keep the plugin's role.
const std::set<std::string>& plugin_option_keys() {
  static const std::set<std::string> s{
      "name", "arguments", "enableJobOrder", "enableHierarchy", "enableJobReady", "enableJobPipelined",
      "enableTaskOrder", "enablePreemptable", "enableReclaimable", "enablePreemptive", "enableQueueOrder",
      "enableClusterOrder", "enablePredicate", "enableBestNode", "enableNodeOrder", "enableTargetJob",
      "enableReservedNodes", "enableJobEnqueued", "enableVictim", "enableJobStarving", "enabledOverused",
      "enabledAllocatable"};
  return s;
}

Result<double> number_arg(const json& v, const std::string& key) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      size_t used = 0;
      double d = std::stod(v.get<std::string>(), &used);
      if (used == v.get<std::string>().size()) return d;
    } catch (const std::exception&) {
    }
  }
  return make_error("argument '" + key + "': " + v.dump() + " is not a number");
}

// "90s", "2m", "1h", "45" (seconds) or a number.
Result<double> duration_arg(const json& v, const std::string& key) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string() || v.get<std::string>().empty())
    return make_error("argument '" + key + "': " + v.dump() + " is not a duration");
  std::string s = v.get<std::string>();
  double unit = 1;
  char last = s.back();
  if (last == 's' || last == 'm' || last == 'h') {
    unit = last == 's' ? 1 : last == 'm' ? 60 : 3600;
    s.pop_back();
  }
  auto n = number_arg(json(s), key);
  if (!n || *n < 0) return make_error("argument '" + key + "': " + v.dump() + " is not a duration");
  return *n * unit;
}

Status set_binpack(Config& c, const std::string& k, const json& v) {
  if (k == "binpack.resources") {
    if (!v.is_string()) return make_error("argument 'binpack.resources': not a comma-separated string");
    std::string list = v.get<std::string>();
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      std::string name = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (!name.empty() && !c.binpack.resources.count(name)) c.binpack.resources[name] = 1;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return {};
  }
  auto n = number_arg(v, k);
  if (!n) return n.error();
  if (k == "binpack.weight") c.binpack.weight = *n;
  else if (k == "binpack.cpu") c.binpack.resources["cpu"] = *n;
  else if (k == "binpack.memory") c.binpack.resources["memory"] = *n;
  else if (k.rfind("binpack.resources.", 0) == 0) c.binpack.resources[k.substr(18)] = *n;
  else return make_error("argument '" + k + "' is unknown");
  return {};
}

Status set_nodeorder(Config& c, const std::string& k, const json& v) {
  auto n = number_arg(v, k);
  if (!n) return n.error();
  if (k == "leastrequested.weight") c.nodeorder.least_requested = *n;
  else if (k == "mostrequested.weight") c.nodeorder.most_requested = *n;
  else if (k == "balancedresource.weight") c.nodeorder.balanced_resource = *n;
  else if (k == "tainttoleration.weight") c.nodeorder.taint_toleration = *n;
  else return make_error("argument '" + k + "' is unknown (supported: leastrequested.weight, mostrequested.weight, "
                         "balancedresource.weight, tainttoleration.weight)");
  return {};
}

Status set_proportion(Config& c, const std::string& k, const json& v) {
  if (k == "tolerations") {
    auto t = kube::tolerations_of_pod(json{{"spec", {{"tolerations", v}}}});
    if (!t) return make_error("argument 'tolerations': " + t.message());
    c.proportion.tolerations = std::move(*t);
    return {};
  }
  if (k == "nodeSelector") {
    if (!v.is_object()) return make_error("argument 'nodeSelector': not a map of labels");
    for (const auto& [lk, lv] : v.items()) {
      if (!lv.is_string()) return make_error("argument 'nodeSelector." + lk + "': not a string");
      c.proportion.node_selector[lk] = lv.get<std::string>();
    }
    return {};
  }
  return make_error("argument '" + k + "' is unknown (supported: tolerations, nodeSelector)");
}

Status set_usage(Config& c, const std::string& k, const json& v) {
  if (k == "thresholds") {
    if (!v.is_object()) return make_error("argument 'thresholds': not a map {cpu, mem}");
    for (const auto& [tk, tv] : v.items()) {
      auto n = number_arg(tv, "thresholds." + tk);
      if (!n) return n.error();
      if (tk == "cpu") c.usage.cpu_threshold = *n;
      else if (tk == "mem" || tk == "memory") c.usage.memory_threshold = *n;
      else return make_error("argument 'thresholds." + tk + "' is unknown (supported: cpu, mem)");
    }
    return {};
  }
  if (k == "usage.maxAge") {
    auto d = duration_arg(v, k);
    if (!d) return d.error();
    c.usage.max_age_s = *d;
    return {};
  }
  auto n = number_arg(v, k);
  if (!n) return n.error();
  if (k == "usage.weight") c.usage.weight = *n;
  else if (k == "cpu.weight") c.usage.cpu_weight = *n;
  else if (k == "memory.weight") c.usage.memory_weight = *n;
  else return make_error("argument '" + k + "' is unknown (supported: usage.weight, cpu.weight, memory.weight, "
                         "thresholds, usage.maxAge)");
  return {};
}

// Volcano's predicates switches. weft always applies the filters it has (resources,
// taints, node selector and required affinity, pod count, cordon, readiness), so a
// switch may keep them on but not off; the optional extras weft lacks may stay off.
// The filters weft lacks that Volcano enables by default are accepted either way (a
// carried-over config keeps working; docs/scheduler.md lists them).
Status set_predicates(const std::string& k, const json& v) {
  static const std::set<std::string> always_on{"predicate.NodeAffinityEnable", "predicate.TaintTolerationEnable"};
  static const std::set<std::string> not_built{"predicate.NodePortsEnable",        "predicate.PodAffinityEnable",
                                               "predicate.NodeVolumeLimitsEnable", "predicate.VolumeZoneEnable",
                                               "predicate.PodTopologySpreadEnable", "predicate.VolumeBindingEnable",
                                               "predicate.DynamicResourceAllocationEnable"};
  static const std::set<std::string> extras_off{"predicate.GPUSharingEnable", "predicate.GPUNumberEnable",
                                                "predicate.CacheEnable", "predicate.ProportionalEnable"};
  if (k == "predicate.resources" || k.rfind("predicate.resources.", 0) == 0) {
    // Settings of the ProportionalEnable extra, which must stay off.
    if (!v.is_string() && !v.is_number()) return make_error("argument '" + k + "': not a string or number");
    return {};
  }
  if (!always_on.count(k) && !not_built.count(k) && !extras_off.count(k))
    return make_error("argument '" + k + "' is unknown (supported: Volcano's predicate.*Enable switches and "
                      "predicate.resources)");
  bool on = false;
  if (v.is_boolean()) on = v.get<bool>();
  else if (v.is_string() && (v == "true" || v == "false")) on = v == "true";
  else return make_error("argument '" + k + "': " + v.dump() + " is not a boolean");
  if (always_on.count(k) && !on) return make_error("argument '" + k + "': weft always applies this filter");
  if (extras_off.count(k) && on) return make_error("argument '" + k + "': weft does not implement this predicate");
  return {};
}

Status set_argument(Config& c, const std::string& plugin, const std::string& k, const json& v) {
  if (plugin == "binpack") return set_binpack(c, k, v);
  if (plugin == "nodeorder") return set_nodeorder(c, k, v);
  if (plugin == "proportion") return set_proportion(c, k, v);
  if (plugin == "usage") return set_usage(c, k, v);
  if (plugin == "predicates") return set_predicates(k, v);
  if (plugin == "overcommit" && k == "overcommit-factor") {
    auto n = number_arg(v, k);
    if (!n) return n.error();
    if (*n < 1) return make_error("argument 'overcommit-factor': must be at least 1");
    c.overcommit_factor = *n;
    return {};
  }
  if (plugin == "network-topology-aware" && k == "weight") {
    auto n = number_arg(v, k);
    if (!n) return n.error();
    c.topology_weight = *n;
    return {};
  }
  return make_error("argument '" + k + "' is unknown");
}

Result<Action> parse_action(const std::string& name) {
  if (name == "enqueue") return Action::Enqueue;
  if (name == "allocate") return Action::Allocate;
  if (name == "preempt") return Action::Preempt;
  if (name == "reclaim") return Action::Reclaim;
  if (name == "backfill") return Action::Backfill;
  return make_error("action '" + name + "' is unknown (supported: enqueue, allocate, preempt, reclaim, backfill)");
}

Status parse_plugin(Config& c, const json& p, const std::string& where) {
  if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
    return make_error(where + ": missing 'name'");
  std::string name = p["name"].get<std::string>();
  std::string at = where + " (" + name + ")";
  if (!supported_plugins().count(name))
    return make_error(at + ": plugin '" + name + "' is unknown (supported: gang, priority, conformance, drf, "
                      "proportion, predicates, nodeorder, binpack, network-topology-aware, usage, overcommit)");
  for (const auto& [k, v] : p.items()) {
    if (!plugin_option_keys().count(k)) return make_error(at + ": option '" + k + "' is unknown");
    if (k.rfind("enable", 0) == 0 && !v.is_boolean() && !v.is_null())
      return make_error(at + ": option '" + k + "': not a boolean");
  }
  if (std::find(c.plugins.begin(), c.plugins.end(), name) == c.plugins.end()) c.plugins.push_back(name);
  if (p.contains("arguments") && !p["arguments"].is_null()) {
    if (!p["arguments"].is_object()) return make_error(at + ": arguments: not a map");
    for (const auto& [k, v] : p["arguments"].items())
      if (auto st = set_argument(c, name, k, v); !st) return wrap(st.error(), at);
  }
  return {};
}

}  // namespace

std::string action_name(Action a) {
  switch (a) {
    case Action::Enqueue: return "enqueue";
    case Action::Allocate: return "allocate";
    case Action::Preempt: return "preempt";
    case Action::Reclaim: return "reclaim";
    case Action::Backfill: return "backfill";
  }
  return "?";
}

bool Config::has(const std::string& plugin) const {
  return std::find(plugins.begin(), plugins.end(), plugin) != plugins.end();
}

bool Config::has(Action a) const { return std::find(actions.begin(), actions.end(), a) != actions.end(); }

Config Config::defaults() {
  Config c;
  c.actions = {Action::Enqueue, Action::Allocate, Action::Reclaim, Action::Backfill};
  c.plugins = {"priority", "gang", "conformance", "drf", "predicates", "proportion", "binpack",
               "network-topology-aware"};
  return c;
}

Result<Config> parse_config(const std::string& yaml_text, const std::string& name) {
  auto doc = kube::yaml_to_json(yaml_text, name);
  if (!doc) return doc.error();
  if (!doc->is_object()) return make_error(name + ": not a map with 'actions' and 'tiers'");
  Config c;
  for (const auto& [k, v] : doc->items()) {
    (void)v;
    if (k != "actions" && k != "tiers" && k != "configurations" && k != "metrics")
      return make_error(name + ": key '" + k + "' is unknown (supported: actions, tiers, configurations, metrics)");
  }
  if (!doc->contains("actions") || !(*doc)["actions"].is_string())
    return make_error(name + ": actions: missing (a string such as \"enqueue, allocate, backfill\")");
  std::string actions = (*doc)["actions"].get<std::string>();
  size_t start = 0;
  while (true) {
    size_t comma = actions.find(',', start);
    std::string a = trim(actions.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!a.empty()) {
      auto act = parse_action(a);
      if (!act) return make_error(name + ": actions: " + act.message());
      c.actions.push_back(*act);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (c.actions.empty()) return make_error(name + ": actions: empty");
  const json tiers = doc->value("tiers", json::array());
  if (!tiers.is_array()) return make_error(name + ": tiers: not a list");
  for (size_t t = 0; t < tiers.size(); ++t) {
    std::string tw = name + ": tiers[" + std::to_string(t) + "]";
    if (!tiers[t].is_object()) return make_error(tw + ": not a map");
    for (const auto& [k, v] : tiers[t].items()) {
      (void)v;
      if (k != "plugins") return make_error(tw + ": key '" + k + "' is unknown");
    }
    const json plugins = tiers[t].value("plugins", json::array());
    if (!plugins.is_array()) return make_error(tw + ".plugins: not a list");
    for (size_t i = 0; i < plugins.size(); ++i)
      if (auto st = parse_plugin(c, plugins[i], tw + ".plugins[" + std::to_string(i) + "]"); !st) return st.error();
  }
  if (doc->contains("configurations") && (*doc)["configurations"].is_array()) {
    const auto& confs = (*doc)["configurations"];
    for (size_t i = 0; i < confs.size(); ++i) {
      std::string cw = name + ": configurations[" + std::to_string(i) + "]";
      const auto& conf = confs[i];
      if (!conf.is_object() || !conf.contains("name") || !conf["name"].is_string())
        return make_error(cw + ": missing 'name'");
      if (auto act = parse_action(conf["name"].get<std::string>()); !act) return make_error(cw + ": " + act.message());
      if (conf.contains("arguments") && conf["arguments"].is_object() && !conf["arguments"].empty())
        return make_error(cw + " (" + conf["name"].get<std::string>() + "): argument '" +
                          conf["arguments"].items().begin().key() + "' is unknown");
    }
  }
  return c;
}

}  // namespace weft::scheduler
