#include "bench/scheduler_affinity/workloads.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "kube/objects.h"

namespace weft::bench {

using nlohmann::json;

namespace {

constexpr const char* kHostname = "kubernetes.io/hostname";
constexpr const char* kZone = "topology.kubernetes.io/zone";

// The pod templates of scheduler_perf (templates/pod-*.yaml) these workloads use.
enum class Template { Default, AntiAffinity, Affinity, PreferredAffinity, PreferredAntiAffinity, NodeAffinity, Spread };

struct InitPods {
  Template t;
  int count;
};

struct Workload {
  const char* name;               // scheduler_perf's test name
  const char* threshold_of;       // its 5,000-node performance workload
  std::vector<std::string> zones;  // labelNodePrepareStrategy's values, round robin ("" none)
  std::vector<InitPods> init;     // in sched-0
  Template measured;              // in sched-1
  int measure_pods;
  int threshold;
};

const std::vector<Workload>& workloads() {
  using T = Template;
  static const std::vector<Workload> all{
      {"SchedulingPodAntiAffinity", "5000Nodes_2000Pods", {}, {{T::AntiAffinity, 1000}}, T::AntiAffinity, 2000, 60},
      {"SchedulingPodAffinity", "5000Nodes_5000Pods", {"zone1"}, {{T::Affinity, 5000}}, T::Affinity, 5000, 35},
      {"SchedulingPreferredPodAffinity", "5000Nodes_5000Pods", {}, {{T::PreferredAffinity, 5000}},
       T::PreferredAffinity, 5000, 90},
      {"SchedulingPreferredPodAntiAffinity", "5000Nodes_5000Pods", {}, {{T::PreferredAntiAffinity, 5000}},
       T::PreferredAntiAffinity, 5000, 90},
      {"SchedulingNodeAffinity", "5000Nodes_10000Pods", {"zone1"}, {{T::NodeAffinity, 5000}}, T::NodeAffinity, 10000,
       220},
      {"TopologySpreading", "5000Nodes_5000Pods", {"moon-1", "moon-2", "moon-3"}, {{T::Default, 5000}}, T::Spread, 5000,
       460},
      {"MixedSchedulingBasePod", "5000Nodes_5000Pods", {"zone1"},
       {{T::Default, 2000}, {T::Affinity, 2000}, {T::AntiAffinity, 2000}, {T::PreferredAffinity, 2000},
        {T::PreferredAntiAffinity, 2000}},
       T::Default, 5000, 140},
  };
  return all;
}

json term(const char* color, const char* key) {
  return {{"labelSelector", {{"matchLabels", {{"color", color}}}}},
          {"topologyKey", key},
          {"namespaces", {"sched-1", "sched-0"}}};
}

// Labels and spec fields of one template (the containers are the same in all).
void apply(Template t, json& labels, json& spec) {
  switch (t) {
    case Template::AntiAffinity:
      labels["color"] = "green";
      spec["affinity"] = {{"podAntiAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {term("green", kHostname)}}}}};
      break;
    case Template::Affinity:
      labels["color"] = "blue";
      spec["affinity"] = {{"podAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", {term("blue", kZone)}}}}};
      break;
    case Template::PreferredAffinity:
    case Template::PreferredAntiAffinity: {
      const bool anti = t == Template::PreferredAntiAffinity;
      const char* color = anti ? "yellow" : "red";
      labels["color"] = color;
      spec["affinity"] = {{anti ? "podAntiAffinity" : "podAffinity",
                           {{"preferredDuringSchedulingIgnoredDuringExecution",
                             {{{"weight", 1}, {"podAffinityTerm", term(color, kHostname)}}}}}}};
      break;
    }
    case Template::NodeAffinity:
      spec["affinity"] = {{"nodeAffinity",
                           {{"requiredDuringSchedulingIgnoredDuringExecution",
                             {{"nodeSelectorTerms",
                               {{{"matchExpressions",
                                  {{{"key", kZone}, {"operator", "In"}, {"values", {"zone1", "zone2"}}}}}}}}}}}}};
      break;
    case Template::Spread:
      labels["color"] = "blue";
      spec["topologySpreadConstraints"] = {{{"maxSkew", 5},
                                            {"topologyKey", kZone},
                                            {"whenUnsatisfiable", "DoNotSchedule"},
                                            {"labelSelector", {{"matchLabels", {{"color", "blue"}}}}}}};
      break;
    case Template::Default:
      break;
  }
}

json make_pod(Template t, const std::string& ns, const std::string& name, json labels, const std::string& scheduler) {
  json spec = {{"schedulerName", scheduler}};
  apply(t, labels, spec);
  const json resources = {{"cpu", "100m"}, {"memory", "500Mi"}};
  spec["containers"] = {{{"name", "pause"},
                         {"image", "registry.k8s.io/pause:3.10.1"},
                         {"ports", {{{"containerPort", 80}}}},
                         {"resources", {{"limits", resources}, {"requests", resources}}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", spec}};
}

// The rules a template's required terms make (preferred terms make none).
void add_rules(Template t, std::vector<Rule>& rules) {
  using K = Rule::Kind;
  Rule r;
  switch (t) {
    case Template::AntiAffinity: r = {K::OnePerDomain, {{"color", "green"}}, kHostname, 0, {}}; break;
    case Template::Affinity: r = {K::OneDomain, {{"color", "blue"}}, kZone, 0, {}}; break;
    case Template::Spread: r = {K::MaxSkew, {{"color", "blue"}}, kZone, 5, {}}; break;
    case Template::NodeAffinity: r = {K::NodeLabelIn, {}, kZone, 0, {"zone1", "zone2"}}; break;
    default: return;
  }
  for (const auto& q : rules)
    if (q.kind == r.kind && q.selector == r.selector && q.key == r.key) return;
  rules.push_back(std::move(r));
}

std::string numbered(const char* prefix, int i) { return prefix + std::to_string(i); }

}  // namespace

std::vector<std::string> affinity_workloads() {
  std::vector<std::string> names;
  for (const auto& w : workloads()) names.push_back(w.name);
  return names;
}

AffinityCase affinity_case(const std::string& name, const std::string& scheduler, int divide) {
  AffinityCase a;
  auto w = std::find_if(workloads().begin(), workloads().end(), [&](const Workload& x) { return name == x.name; });
  if (w == workloads().end()) return a;
  Case& c = a.c;
  c.name = name;
  c.label = "measured";
  c.ns = "sched-1";
  a.threshold = w->threshold;
  a.threshold_of = w->threshold_of;
  const int nodes = 5000 / divide;
  for (int i = 0; i < nodes; ++i) {
    json labels = json::object();
    if (!w->zones.empty()) labels[kZone] = w->zones[i % w->zones.size()];
    c.nodes.push_back(ready_node(numbered("node-", i), labels, {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}}));
  }
  // Init pods already bound, round robin over the nodes: no node holds two of one kind
  // while there are no more of a kind than nodes, so every required term holds.
  int k = 0;
  for (const auto& init : w->init) {
    add_rules(init.t, a.rules);
    for (int i = 0; i < init.count / divide; ++i, ++k) {
      json p = make_pod(init.t, "sched-0", numbered("init-", k), json::object(), scheduler);
      p["spec"]["nodeName"] = kube::name_of(c.nodes[k % nodes]);
      p["status"] = {{"phase", "Running"}};
      c.running_pods.push_back(std::move(p));
    }
  }
  add_rules(w->measured, a.rules);
  for (int i = 0; i < w->measure_pods / divide; ++i)
    c.pods.push_back(make_pod(w->measured, c.ns, numbered("measured-", i), {{"app", c.label}}, scheduler));
  return a;
}

std::string volcano_default_config() {
  return "actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
         "  - name: conformance\n- plugins:\n  - name: overcommit\n  - name: drf\n  - name: predicates\n"
         "  - name: proportion\n  - name: nodeorder\n";
}

bool matches(const Rule& r, const json& pod) {
  const json labels = pod["metadata"].value("labels", json::object());
  for (const auto& [k, v] : r.selector)
    if (labels.value(k, std::string("\x01")) != v) return false;
  return true;
}

std::string rule_breach(const std::vector<Rule>& rules, const std::vector<json>& nodes, const std::vector<json>& pods) {
  std::map<std::string, json> labels_of;
  for (const auto& n : nodes) labels_of[kube::name_of(n)] = n["metadata"].value("labels", json::object());
  std::string held;
  for (const auto& r : rules) {
    std::map<std::string, int> per_domain;
    for (const auto& n : nodes) {   // every domain counts, empty ones too (as skew does)
      const json& l = labels_of[kube::name_of(n)];
      if (l.contains(r.key)) per_domain[l[r.key].get<std::string>()];
    }
    for (const auto& p : pods) {
      const std::string node = p["spec"].value("nodeName", "");
      if (node.empty() || !matches(r, p)) continue;
      const std::string value = labels_of[node].value(r.key, "");
      ++per_domain[value];
      if (r.kind == Rule::Kind::NodeLabelIn && std::find(r.values.begin(), r.values.end(), value) == r.values.end())
        return "FAIL: " + kube::name_of(p) + " on " + node + " (" + r.key + "=" + value + ")";
    }
    int lo = 1 << 30, hi = 0, used = 0;
    for (const auto& [d, n] : per_domain) lo = std::min(lo, n), hi = std::max(hi, n), used += n > 0;
    const std::string what = r.selector.empty() ? "pods" : "color=" + r.selector.begin()->second;
    switch (r.kind) {
      case Rule::Kind::OnePerDomain:
        if (hi > 1) return "FAIL: " + std::to_string(hi) + " " + what + " in one " + r.key;
        held += ", " + what + " one per node (" + std::to_string(used) + " nodes)";
        break;
      case Rule::Kind::OneDomain:
        if (used > 1) return "FAIL: " + what + " in " + std::to_string(used) + " zones";
        held += ", " + what + " in one zone";
        break;
      case Rule::Kind::MaxSkew:
        if (hi - lo > r.max_skew) return "FAIL: " + what + " skew " + std::to_string(hi - lo);
        held += ", " + what + " skew " + std::to_string(hi - lo) + " over " + std::to_string(per_domain.size()) + " zones";
        break;
      case Rule::Kind::NodeLabelIn:
        held += ", every pod in " + r.key + " " + r.values.front() + "/" + r.values.back();
        break;
    }
  }
  return held.empty() ? "no required rule" : held.substr(2);
}

Verdict check_rules(kube::Client& client, const AffinityCase& a) {
  return check_placement(client, a.c, [&a](const kube::ObjectList& nodes, const kube::ObjectList& pods, Verdict& v) {
    v.rules = rule_breach(a.rules, nodes.items, pods.items);
    v.rules_ok = v.rules.rfind("FAIL", 0) != 0;
  });
}

}  // namespace weft::bench
