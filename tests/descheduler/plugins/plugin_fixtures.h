// A Handle and an Evictor for running one strategy plugin in a test: the evictor records
// what the plugin asks for and applies only what a case sets (blocked pods, limits,
// refused targets), so a case shows the plugin's own rule. The DefaultEvictor's rules
// have their own tests.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "descheduler/core/framework/default_evictor.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/args.h"
#include "scheduler/core/query/fit.h"
#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {

class RecordingEvictor : public framework::Evictor {
 public:
  explicit RecordingEvictor(const Cluster& cluster) : cluster_(cluster), fit_(cluster.snapshot) {}

  std::set<std::string> blocked;             // pod keys Filter refuses
  std::set<std::string> refused_targets;     // node names target_blocker refuses
  std::optional<int> max_per_node, max_total;
  std::vector<std::string> evicted_keys;     // pod keys, in order
  std::vector<framework::EvictionRequest> requests;

  std::string filter(int pod) const override {
    const PodInfo& p = cluster_.pods[static_cast<size_t>(pod)];
    if (p.terminating) return "terminating";
    return blocked.count(p.key()) ? "blocked" : "";
  }
  std::string pre_eviction_filter(int, int) const override { return ""; }
  std::string listing_filter(int) const override { return ""; }
  std::string target_blocker(int, int node) const override {
    return refused_targets.count(cluster_.nodes[static_cast<size_t>(node)].name) ? "node-fit" : "";
  }
  std::string evict(const framework::EvictionRequest& r) override {
    const PodInfo& p = cluster_.pods[static_cast<size_t>(r.pod)];
    if (std::string f = filter(r.pod); !f.empty()) return f;
    if (node_limit_reached(p.node)) return "limit-per-node";
    if (total_limit_reached()) return "limit-total";
    if (evicted(r.pod)) return "already-evicted";
    evicted_keys.push_back(p.key());
    requests.push_back(r);
    if (p.core >= 0) fit_.place(p.core, -1);   // gone from where the scheduler's filters count it
    per_node_[p.node]++;
    return "";
  }
  bool node_limit_reached(int node) const override {
    auto it = per_node_.find(node);
    return max_per_node && (it == per_node_.end() ? 0 : it->second) >= *max_per_node;
  }
  bool total_limit_reached() const override { return max_total && static_cast<int>(evicted_keys.size()) >= *max_total; }
  bool evicted(int pod) const override {
    const std::string key = cluster_.pods[static_cast<size_t>(pod)].key();
    return std::find(evicted_keys.begin(), evicted_keys.end(), key) != evicted_keys.end();
  }
  std::optional<int> total_left() const override {
    if (!max_total) return std::nullopt;
    return std::max(0, *max_total - static_cast<int>(evicted_keys.size()));
  }
  std::vector<int> overdrawn(const std::vector<int>&) const override { return {}; }
  // The scheduler's filters, as the DefaultEvictor asks them (no moves are counted here).
  std::string placement_blocker(int pod, int node) const override {
    return fit_.reject_placement(cluster_.pods[static_cast<size_t>(pod)].core, cluster_.topology_node[static_cast<size_t>(node)]);
  }
  std::string fit_blocker(int pod, int node) const override {
    return fit_.reject(cluster_.pods[static_cast<size_t>(pod)].core, cluster_.topology_node[static_cast<size_t>(node)]);
  }
  std::vector<std::string> other_pod_blockers(int pod, int node) const override {
    return fit_.other_pod_rejects(cluster_.pods[static_cast<size_t>(pod)].core, cluster_.topology_node[static_cast<size_t>(node)]);
  }

 private:
  const Cluster& cluster_;
  mutable scheduler::query::Fit fit_;
  std::map<int, int> per_node_;
};

class TestHandle : public framework::Handle {
 public:
  TestHandle(const Cluster& cluster, TimePoint now) : cluster_(cluster), evictor_(cluster), now_(now) {}
  const Cluster& cluster() const override { return cluster_; }
  framework::Evictor& evictor() override { return evictor_; }
  TimePoint now() const override { return now_; }
  const LoadReport& load() const override { return load_; }
  const DeschedulerState& state() const override { return state_; }
  void skip(int, const std::string&) override {}
  void note(const std::string& text) override { notes.push_back(text); }
  Plan& plan() override { return plan_; }

  RecordingEvictor& recorder() { return evictor_; }
  std::vector<std::string> evicted_keys() const { return evictor_.evicted_keys; }
  std::vector<int> all_nodes() const {
    std::vector<int> out;
    for (size_t i = 0; i < cluster_.nodes.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  std::vector<std::string> notes;

 private:
  const Cluster& cluster_;
  RecordingEvictor evictor_;
  TimePoint now_;
  LoadReport load_;
  DeschedulerState state_;
  Plan plan_;
};

// A Handle whose evictor is the real DefaultEvictor, for the upstream rows that run a
// plugin with DefaultEvictorArgs (nodeFit and the others).
class EvictorHandle : public framework::Handle {
 public:
  // options.now is the test's t0().
  EvictorHandle(const Cluster& cluster, const EvictorArgs& args, framework::EvictorOptions options)
      : cluster_(cluster), now_(t0()) {
    options.now = now_;
    auto e = framework::DefaultEvictor::create(args, cluster, state_, options, plan_);
    EXPECT_TRUE(e.ok()) << e.message();
    if (e.ok()) evictor_ = std::move(*e);
  }
  const Cluster& cluster() const override { return cluster_; }
  framework::Evictor& evictor() override { return *evictor_; }
  TimePoint now() const override { return now_; }
  const LoadReport& load() const override { return load_; }
  const DeschedulerState& state() const override { return state_; }
  void skip(int, const std::string&) override {}
  void note(const std::string&) override {}
  Plan& plan() override { return plan_; }

  std::vector<int> all_nodes() const {
    std::vector<int> out;
    for (size_t i = 0; i < cluster_.nodes.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  std::vector<std::string> evicted_keys() const {
    std::vector<std::string> out;
    for (const auto& e : plan_.evictions) out.push_back(e.pod());
    return out;
  }

 private:
  const Cluster& cluster_;
  TimePoint now_;
  LoadReport load_;
  DeschedulerState state_;
  Plan plan_;
  std::unique_ptr<framework::DefaultEvictor> evictor_;
};

inline framework::EvictorOptions with_node_fit(bool node_fit) {
  framework::EvictorOptions o;
  o.node_fit = node_fit;
  return o;
}

// The DefaultEvictor's nodeFit and the policy's maxNoOfPodsToEvict* limits of one row.
inline framework::EvictorOptions with_limits(bool node_fit, std::optional<int> per_node, std::optional<int> per_namespace,
                                             std::optional<int> total) {
  framework::EvictorOptions o = with_node_fit(node_fit);
  o.max_per_node = per_node;
  o.max_per_namespace = per_namespace;
  o.max_total = total;
  return o;
}

// Runs a Deschedule or Balance plugin over every node; returns the evicted pod keys.
template <class P, class H>
std::vector<std::string> run_plugin(P& plugin, H& h) {
  Status s;
  if constexpr (std::is_base_of_v<framework::DeschedulePlugin, P>) s = plugin.deschedule(h.all_nodes(), h);
  else s = plugin.balance(h.all_nodes(), h);
  EXPECT_TRUE(s.ok()) << s.message();
  return h.evicted_keys();
}

// Container status entries: {"state": {...}, "restartCount": n}.
inline json terminated(const std::string& reason, int exit_code = 0) {
  json t = {{"exitCode", exit_code}};
  if (!reason.empty()) t["reason"] = reason;
  return {{"name", "c"}, {"state", {{"terminated", t}}}};
}
inline json waiting(const std::string& reason) { return {{"name", "c"}, {"state", {{"waiting", {{"reason", reason}}}}}}; }
inline json restarted(int count) { return {{"name", "c"}, {"restartCount", count}, {"state", {{"running", json::object()}}}}; }

inline json with_status(json pod, const std::string& phase, json containers = json::array(), json init = json::array(),
                        const std::string& reason = "") {
  pod["status"]["phase"] = phase;
  if (!containers.empty()) pod["status"]["containerStatuses"] = containers;
  if (!init.empty()) pod["status"]["initContainerStatuses"] = init;
  if (!reason.empty()) pod["status"]["reason"] = reason;
  return pod;
}

inline json created_at(json pod, TimePoint at) {
  pod["metadata"]["creationTimestamp"] = format_rfc3339(at);
  return pod;
}

inline args::Ctx ctx() { return args::Ctx{"policy.yaml"}; }

// The nodeFit-when-listed cases (upstream lists a node's pods through the evictor's
// PreEvictionFilter): node "small" (1000m) and "large" (2000m); pod "a" (500m) on small
// fits on large, pod "b" (900m) on large fits on small only once "a" has left. `decorate`
// makes a pod break the plugin's rule.
inline Cluster listing_cluster(const std::function<json(json)>& decorate, std::vector<json> nodes = {}) {
  if (nodes.empty()) nodes = {node("small", {}, "1000m", "3000", "10"), node("large", {}, "2000m", "3000", "10")};
  nodes.push_back(decorate(pod("a", "small", {.cpu = "500m", .memory = "0"})));
  nodes.push_back(decorate(pod("b", "large", {.cpu = "900m", .memory = "0"})));
  return build(nodes);
}

// A policy whose one profile enables RemovePodsViolatingNodeTaints and gives the
// DefaultEvictor these args (YAML flow, as a policy writes them).
inline std::string evictor_policy_text(const std::string& evictor_args) {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n"
         "  - name: DefaultEvictor\n    args: " + evictor_args +
         "\n  plugins:\n    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints]\n";
}

}  // namespace weft::descheduler::test
