#include "descheduler/core/planner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <unordered_map>

#include "descheduler/core/framework/default_evictor.h"
#include "descheduler/core/framework/plugin.h"
#include "descheduler/core/plugins/common/victim_order.h"
#include "kube/taints.h"

namespace weft::descheduler {
namespace {

// The planner works on measures in the node's own units: cpu in millicores and memory in
// millibytes as measured (ratio x allocatable, so moves between nodes of different sizes
// add up), the number of bound pods, then each other resource the thresholds name:
// measured when the policy has a query for it, else the pods' requests (as upstream).
constexpr int kCpu = 0, kMemory = 1, kPods = 2, kMaxMeasures = 16;
using Vec = std::array<double, kMaxMeasures>;

struct Limits {
  int count = 3;
  std::array<std::string, kMaxMeasures> names{"cpu", "memory", "pods"};
  std::array<bool, kMaxMeasures> active{};
  std::array<bool, kMaxMeasures> measured{true, true, false};
  std::array<Seconds, kMaxMeasures> max_age{};
  Vec low{}, target{};   // percent
  bool metric_resource = false;   // a Prometheus query's MetricResource alone (prometheus_utilization.h)
};

Result<Limits> limits_of(const LoadAwareArgs& la, Seconds default_max_age) {
  Limits l;
  for (const auto& [res, _] : la.thresholds) {
    if (res == "cpu" || res == "memory" || res == "pods") continue;
    if (l.count == kMaxMeasures)
      return make_error("policy LoadAware.thresholds names more than " + std::to_string(kMaxMeasures) + " resources");
    l.names[static_cast<size_t>(l.count)] = res;
    l.measured[static_cast<size_t>(l.count)] = la.metrics.resources.count(res) > 0;
    ++l.count;
  }
  if (la.requests_only) l.measured = {};
  l.metric_resource = la.metric_resource;
  for (int r = 0; r < l.count; ++r) {
    const std::string& name = l.names[static_cast<size_t>(r)];
    auto q = la.metrics.resources.find(name);
    l.max_age[static_cast<size_t>(r)] =
        q != la.metrics.resources.end() && q->second.max_age ? *q->second.max_age : default_max_age;
    auto lo = la.thresholds.find(name);
    auto hi = la.target_thresholds.find(name);
    if (lo == la.thresholds.end() || hi == la.target_thresholds.end()) continue;
    l.active[static_cast<size_t>(r)] = true;
    l.low[static_cast<size_t>(r)] = lo->second;
    l.target[static_cast<size_t>(r)] = hi->second;
  }
  return l;
}

struct NodeState {
  Vec alloc{};     // millicores, millibytes, pods (110, the kubelet default, when not reported), ...
  Vec used{};      // projected use, same units
  NodeClass cls = NodeClass::Unknown;
  bool target_ok = false;      // low, ready and schedulable
  bool selected = false;       // passes the node selectors
};

double percent(const NodeState& n, int r) {
  return n.alloc[static_cast<size_t>(r)] > 0 ? n.used[static_cast<size_t>(r)] * 100.0 / n.alloc[static_cast<size_t>(r)] : 0;
}

// Upstream's room: cpu, memory and pods always (not with a Prometheus query, which
// measures MetricResource alone), and every resource the thresholds name.
bool counted(const Limits& l, int r) { return (r <= kPods && !l.metric_resource) || l.active[static_cast<size_t>(r)]; }

// What a node may hold of a counted resource before it is past its target (upstream's
// capNodeCapacityToThreshold): targetThresholds of allocatable, truncated to whole units
// (millicores, bytes, pods, devices); allocatable for a resource without thresholds.
double cap(const NodeState& n, const Limits& l, int r) {
  const size_t k = static_cast<size_t>(r);
  if (!l.active[k]) return n.alloc[k];
  const double unit = r == kCpu || r == kPods ? 1.0 : 1000.0;   // our units: millicores, pods, milli-units
  return std::floor(l.target[k] / 100.0 * n.alloc[k] / unit) * unit;
}

// The source keeps giving pods while it holds more than its cap of any counted resource.
bool above_target(const NodeState& n, const Limits& l) {
  for (int r = 0; r < l.count; ++r)
    if (counted(l, r) && n.used[static_cast<size_t>(r)] > cap(n, l, r)) return true;
  return false;
}

double value_of(const kube::ResourceList& list, const std::string& key) {
  auto it = list.find(key);
  return it == list.end() ? 0.0 : static_cast<double>(it->second);
}

std::string fmt_pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

class Planner {
 public:
  Planner(const Cluster& c, const LoadReport& load, const LoadAwareArgs& p, const DeschedulerState& s,
          const PlanOptions& o, framework::Evictor& e, Limits limits, Plan& plan, const std::vector<int>& nodes)
      : cluster_(c), load_(load), args_(p), state_(s), opt_(o), evict_(e), limits_(std::move(limits)), plan_(plan) {
    in_profile_.assign(c.nodes.size(), 0);
    for (int n : nodes) in_profile_[static_cast<size_t>(n)] = 1;
  }

  void run() {
    classify();
    if (!load_.source_error.empty() && !args_.requests_only) {
      plan_.notes.push_back("load source " + load_.source_name + " is down (" + load_.source_error +
                            "): every node is unknown, nothing is evicted");
      return;
    }
    if (!load_.pods_error.empty())
      plan_.notes.push_back("per-pod usage unavailable (" + load_.pods_error + "): victims are sized by their requests");
    collect_targets();
    std::vector<int> high;
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].selected && nodes_[i].cls == NodeClass::High && cluster_.nodes[i].ready)
        high.push_back(static_cast<int>(i));
    if (high.empty()) return;
    if (targets_.empty()) {
      plan_.notes.push_back("no low node can take pods; nothing is evicted");
      return;
    }
    if (static_cast<int>(targets_.size()) <= args_.number_of_nodes) {
      plan_.notes.push_back("only " + std::to_string(targets_.size()) + " low nodes, numberOfNodes is " +
                            std::to_string(args_.number_of_nodes) + "; nothing is evicted");
      return;
    }
    std::sort(high.begin(), high.end(), [&](int a, int b) {
      double oa = overload(nodes_[static_cast<size_t>(a)]), ob = overload(nodes_[static_cast<size_t>(b)]);
      if (oa != ob) return oa > ob;
      return cluster_.nodes[static_cast<size_t>(a)].name < cluster_.nodes[static_cast<size_t>(b)].name;
    });
    for (int n : high) {
      if (stop_all_) break;
      balance_node(n);
    }
    return;
  }

 private:
  // Reads each selected node's load into its measures; false (with why) when the node is
  // unknown: no data, bad data, or a reading older than its resource's max age.
  bool measure(size_t i, NodeVerdict& v) {
    const NodeInfo& info = cluster_.nodes[i];
    NodeState& n = nodes_[i];
    if (args_.requests_only) {   // LowNodeUtilization: requests, always known
      for (int r = 0; r < limits_.count; ++r)
        if (r != kPods) n.used[static_cast<size_t>(r)] = value_of(info.requested, limits_.names[static_cast<size_t>(r)]);
      v.cpu = n.alloc[kCpu] > 0 ? std::optional<double>(n.used[kCpu] / n.alloc[kCpu]) : std::nullopt;
      v.memory = n.alloc[kMemory] > 0 ? std::optional<double>(n.used[kMemory] / n.alloc[kMemory]) : std::nullopt;
      return true;
    }
    const LoadSample* sample = nullptr;
    if (!load_.source_error.empty()) {
      v.why = "load source down";
    } else if (auto it = load_.nodes.find(info.name); it != load_.nodes.end()) {
      sample = &it->second;
    } else if (auto bad = load_.invalid.find(info.name); bad != load_.invalid.end()) {
      v.why = bad->second;
    } else {
      v.why = "no load data";
    }
    if (!sample) return false;
    if (!limits_.metric_resource) {
      v.cpu = sample->cpu;
      v.memory = sample->memory;
    }
    auto stale = [&](const std::string& what, const std::optional<TimePoint>& at, Seconds max_age) {
      if (!at || opt_.now - *at <= std::chrono::duration_cast<TimePoint::duration>(max_age)) return false;
      // A node is only as fresh as its older reading.
      v.why = "stale: " + what + " measured " + format_rfc3339(*at) + ", older than " + format_duration(max_age);
      return true;
    };
    if (stale("cpu", sample->cpu_at, limits_.max_age[kCpu]) ||
        stale("memory", sample->memory_at, limits_.max_age[kMemory]))
      return false;
    n.used[kCpu] = sample->cpu * n.alloc[kCpu];
    n.used[kMemory] = sample->memory * n.alloc[kMemory];
    for (int r = 3; r < limits_.count; ++r) {
      const std::string& name = limits_.names[static_cast<size_t>(r)];
      if (!limits_.measured[static_cast<size_t>(r)]) {
        n.used[static_cast<size_t>(r)] = value_of(info.requested, name);
        continue;
      }
      auto e = sample->extended.find(name);
      if (e == sample->extended.end()) {
        v.why = "no " + name + " reading";
        return false;
      }
      if (stale(name, e->second.at, limits_.max_age[static_cast<size_t>(r)])) return false;
      // MetricResource counts in whole percents of its capacity of 100, as upstream.
      const double ratio = limits_.metric_resource ? std::trunc(e->second.value * 100) / 100 : e->second.value;
      n.used[static_cast<size_t>(r)] = ratio * n.alloc[static_cast<size_t>(r)];
    }
    // Pods moved here within the last window are not (fully) in its averages yet.
    if (auto a = state_.arrivals.find(info.name); a != state_.arrivals.end() && opt_.now - a->second.at < window()) {
      n.used[kCpu] += a->second.cpu;
      n.used[kMemory] += a->second.memory;
    }
    return true;
  }

  void classify() {
    nodes_.resize(cluster_.nodes.size());
    std::vector<std::pair<size_t, NodeVerdict>> verdicts;
    for (size_t i = 0; i < cluster_.nodes.size(); ++i) {
      const NodeInfo& info = cluster_.nodes[i];
      NodeState& n = nodes_[i];
      n.selected = in_profile_[i] &&
                   (!args_.node_selector || args_.node_selector->matches(info.labels));
      n.alloc[kCpu] = value_of(info.allocatable, "cpu");
      n.alloc[kMemory] = value_of(info.allocatable, "memory");
      auto pods = info.allocatable.find("pods");
      n.alloc[kPods] = pods == info.allocatable.end() ? 110.0 : static_cast<double>(pods->second) / 1000.0;
      for (int r = 3; r < limits_.count; ++r)
        n.alloc[static_cast<size_t>(r)] = limits_.metric_resource ? 100000.0   // 100 units, in milli-units
                                                                  : value_of(info.allocatable, limits_.names[static_cast<size_t>(r)]);
      n.used[kPods] = static_cast<double>(info.pods.size());
      if (!n.selected) continue;
      NodeVerdict v;
      v.name = info.name;
      if (measure(i, v)) n.cls = NodeClass::Normal;   // known; the class follows below
      verdicts.emplace_back(i, std::move(v));
    }
    if (args_.use_deviation_thresholds) deviation_limits();
    for (auto& [i, v] : verdicts) {
      NodeState& n = nodes_[i];
      if (n.cls != NodeClass::Unknown) n.cls = class_of(n);
      v.cls = n.cls;
      plan_.nodes.push_back(std::move(v));
    }
  }

  // useDeviationThresholds: the limits become the mean usage of the known nodes minus
  // thresholds (low) and plus targetThresholds (high), each clamped to 0..100.
  void deviation_limits() {
    Vec sum{};
    int known = 0;
    for (const NodeState& n : nodes_) {
      if (!n.selected || n.cls == NodeClass::Unknown) continue;
      ++known;
      for (int r = 0; r < limits_.count; ++r) sum[static_cast<size_t>(r)] += percent(n, r);
    }
    for (int r = 0; r < limits_.count; ++r) {
      size_t k = static_cast<size_t>(r);
      if (!limits_.active[k]) continue;
      double mean = known > 0 ? sum[k] / known : 0;
      limits_.low[k] = std::clamp(mean - limits_.low[k], 0.0, 100.0);
      limits_.target[k] = std::clamp(mean + limits_.target[k], 0.0, 100.0);
    }
  }

  // Low: no resource above its threshold (a node exactly at it is low, as upstream);
  // high: any resource above its target.
  NodeClass class_of(const NodeState& n) const {
    bool all_low = true;
    for (int r = 0; r < limits_.count; ++r) {
      size_t k = static_cast<size_t>(r);
      if (!limits_.active[k]) continue;
      double p = percent(n, r);
      if (p > limits_.target[k]) return NodeClass::High;
      if (p > limits_.low[k]) all_low = false;
    }
    return all_low ? NodeClass::Low : NodeClass::Normal;
  }

  // How far above its targets a node is, relative to them: the most loaded go first.
  double overload(const NodeState& n) const {
    double worst = -std::numeric_limits<double>::infinity();
    for (int r = 0; r < limits_.count; ++r) {
      size_t k = static_cast<size_t>(r);
      if (limits_.active[k] && limits_.target[k] > 0) worst = std::max(worst, percent(n, r) / limits_.target[k]);
    }
    return worst;
  }

  // Low nodes take pods; the total room they have below their caps bounds the cycle
  // (upstream: evictions go on while every counted resource has room left in total).
  void collect_targets() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      NodeState& n = nodes_[i];
      const NodeInfo& info = cluster_.nodes[i];
      n.target_ok = n.selected && n.cls == NodeClass::Low && info.ready && !info.unschedulable;
      if (!n.target_ok) continue;
      for (int r = 0; r < limits_.count; ++r)
        if (counted(limits_, r)) room_[static_cast<size_t>(r)] += cap(n, limits_, r) - n.used[static_cast<size_t>(r)];
      targets_.insert({overload(n), static_cast<int>(i)});
    }
  }

  bool room_left() const {
    for (int r = 0; r < limits_.count; ++r)
      if (counted(limits_, r) && room_[static_cast<size_t>(r)] <= 0) return false;
    return true;
  }

  // A pod's fresh usage reading of one kind (cores or bytes), if the policy uses them.
  std::optional<double> measured_usage(const PodUsage* u, bool cpu) const {
    if (!u) return std::nullopt;
    const auto& value = cpu ? u->cpu_cores : u->memory_bytes;
    const auto& at = cpu ? u->cpu_at : u->memory_at;
    if (!value) return std::nullopt;
    Seconds max_age = args_.metrics.pod_usage.max_age.value_or(opt_.max_metric_age);
    if (at && opt_.now - *at > std::chrono::duration_cast<TimePoint::duration>(max_age)) return std::nullopt;
    return *value * 1000.0;   // millicores, millibytes
  }

  // What a pod is taken to use: its measured usage when a fresh reading exists (and the
  // policy uses per-pod usage), else its request, else, for a resource it requests none
  // of, an equal share of what its node measures (a best-effort pod still loads the node).
  // Other resources: the request. sized_by says whether a measurement decided it.
  Vec usage_of(const PodInfo& pod, const NodeState& node, size_t pods_on_node, bool& by_usage) const {
    Vec u{};
    const PodUsage* measured = nullptr;
    if (args_.metrics.pod_usage.enabled && !args_.requests_only && !load_.pods.empty())
      if (auto it = load_.pods.find(pod.key()); it != load_.pods.end()) measured = &it->second;
    by_usage = false;
    for (int r : {kCpu, kMemory}) {
      size_t k = static_cast<size_t>(r);
      if (auto m = measured_usage(measured, r == kCpu)) {
        u[k] = *m;
        by_usage = true;
        continue;
      }
      u[k] = value_of(pod.requests(), r == kCpu ? "cpu" : "memory");
      // Requests mode counts what pods request, so a pod requesting nothing moves nothing.
      if (u[k] <= 0 && pods_on_node > 0 && !args_.requests_only)
        u[k] = node.used[k] / static_cast<double>(pods_on_node);
    }
    u[kPods] = 1;
    for (int r = 3; r < limits_.count; ++r)
      u[static_cast<size_t>(r)] = value_of(pod.requests(), limits_.names[static_cast<size_t>(r)]);
    return u;
  }

  void skip(const PodInfo& pod, const std::string& reason) {
    plan_.skipped.push_back({pod.ns, pod.name, cluster_.nodes[static_cast<size_t>(pod.node)].name, reason});
  }

  TimePoint::duration window() const {
    return std::chrono::duration_cast<TimePoint::duration>(args_.metrics.window);
  }

  bool resting(const std::string& node) const {
    auto it = state_.source_evicted_at.find(node);
    return it != state_.source_evicted_at.end() && opt_.now - it->second < window();
  }

  // Finds the least loaded low node the pod may move to: in its domain, tolerated (hard
  // taints, as upstream asks of the low nodes even without nodeFit), fitting with nodeFit,
  // and still below its cap of every counted resource the pod uses. As upstream's room
  // rule, the pod may take the target past its cap. Else why not, by the furthest any
  // target got: "topology", "node-fit", or "target-full"; "no-target" when the source was
  // the only low node.
  int pick_target(int pod, int source, const Vec& usage, std::string& why) const {
    enum Stage { kNone, kOutsideDomain, kDoesNotFit, kFull };
    Stage furthest = kNone;
    const PodInfo& p = cluster_.pods[static_cast<size_t>(pod)];
    for (const auto& [score, t] : targets_) {
      if (t == source) continue;
      const NodeState& n = nodes_[static_cast<size_t>(t)];
      std::string blocker = evict_.target_blocker(pod, t);
      if (blocker.empty() && kube::first_untolerated_hard_taint(cluster_.nodes[static_cast<size_t>(t)].taints, p.tolerations()))
        blocker = "node-fit";
      if (!blocker.empty()) {
        furthest = std::max(furthest, blocker == "topology" ? kOutsideDomain : kDoesNotFit);
        continue;
      }
      bool has_room = true;
      for (int r = 0; r < limits_.count && has_room; ++r)
        if (counted(limits_, r) && usage[static_cast<size_t>(r)] > 0)
          has_room = n.used[static_cast<size_t>(r)] < cap(n, limits_, r);
      if (!has_room) {
        furthest = kFull;
        continue;
      }
      return t;
    }
    static const char* const reasons[] = {"no-target", "topology", "node-fit", "target-full"};
    why = reasons[furthest];
    return -1;
  }

  std::string eviction_reason(const NodeState& n) const {
    std::string out = "high-load:";
    for (int r = 0; r < limits_.count; ++r) {
      size_t k = static_cast<size_t>(r);
      if (limits_.active[k] && percent(n, r) > limits_.target[k])
        out += " " + limits_.names[k] + " " + fmt_pct(percent(n, r)) + "% > " + fmt_pct(limits_.target[k]) + "%";
    }
    return out;
  }

  void balance_node(int index) {
    const NodeInfo& info = cluster_.nodes[static_cast<size_t>(index)];
    NodeState& node = nodes_[static_cast<size_t>(index)];
    const std::string reason = eviction_reason(node);
    struct Candidate {
      int pod;
      Vec usage;
      double weight;
      bool by_usage;
    };
    std::vector<Candidate> candidates;
    for (int p : info.pods) {
      const PodInfo& pod = cluster_.pods[static_cast<size_t>(p)];
      if (evict_.evicted(p)) continue;   // another plugin of the profile moved it already
      std::string blocker = framework::namespace_allowed(args_.include_namespaces,
                                                         args_.exclude_namespaces, pod.ns)
                                ? evict_.filter(p)
                                : "namespace-excluded";
      if (!blocker.empty()) {
        skip(pod, blocker);
        continue;
      }
      bool by_usage = false;
      Vec u = usage_of(pod, node, info.pods.size(), by_usage);
      double weight = 0;
      for (int r = 0; r < limits_.count; ++r) {
        size_t k = static_cast<size_t>(r);
        if (r != kPods && limits_.active[k] && node.alloc[k] > 0) weight = std::max(weight, u[k] / node.alloc[k]);
      }
      candidates.push_back({p, u, weight, by_usage});
    }
    // Upstream's order (plugins::evicted_before); within it the pod that uses most goes
    // first (fewest evictions).
    std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
      const PodInfo& pa = cluster_.pods[static_cast<size_t>(a.pod)];
      const PodInfo& pb = cluster_.pods[static_cast<size_t>(b.pod)];
      if (plugins::evicted_before(pa, pb)) return true;
      if (plugins::evicted_before(pb, pa)) return false;
      if (a.weight != b.weight) return a.weight > b.weight;
      return pa.key() < pb.key();
    });
    bool rest = resting(info.name);
    const std::optional<int>& node_limit = args_.eviction_limit_node;
    int evicted_here = 0;
    for (const Candidate& c : candidates) {
      if (!above_target(node, limits_)) break;
      if (node_limit && evicted_here >= *node_limit) return;
      const PodInfo& pod = cluster_.pods[static_cast<size_t>(c.pod)];
      if (rest) {
        // A recent source rests a full window so its averaged load can catch up.
        skip(pod, "source-resting");
        for (int r = 0; r < limits_.count; ++r) node.used[static_cast<size_t>(r)] -= c.usage[static_cast<size_t>(r)];
        continue;
      }
      if (!room_left()) {
        plan_.notes.push_back("low nodes have no room left below their targetThresholds; stopping");
        stop_all_ = true;
        return;
      }
      // The evictor's cycle rules: the limits (upstream stops the node, or the whole
      // cycle, on them), cooldown, the gang, the budgets.
      std::string why = evict_.pre_eviction_filter(c.pod, framework::kTargetChosenLater);
      if (!why.empty()) skip(pod, why);
      if (why == "limit-total") {
        plan_.notes.push_back("maxNoOfPodsToEvictTotal reached");
        stop_all_ = true;
        return;
      }
      if (why == "limit-per-node") return;
      if (!why.empty()) continue;
      int target = pick_target(c.pod, index, c.usage, why);
      if (target < 0) {
        skip(pod, why);
        continue;
      }
      if (!evict_.evict({c.pod, target, reason, load_plugin_name(args_), c.usage[kCpu], c.usage[kMemory],
                         c.by_usage ? "usage" : "requests"})
               .empty())
        continue;
      ++evicted_here;
      // A query per node says nothing of a pod's share: upstream moves one pod per node,
      // or up to evictionLimits.node, without projecting it.
      if (limits_.metric_resource) {
        if (!node_limit) return;
        continue;
      }
      move(node, target, c.usage);
    }
  }

  // Applies an eviction the evictor allowed to the projected load (the evictor counts the
  // rest: requests reserved on the target, budgets, limits, the gang).
  void move(NodeState& source, int target, const Vec& usage) {
    NodeState& t = nodes_[static_cast<size_t>(target)];
    targets_.erase({overload(t), target});
    for (int r = 0; r < limits_.count; ++r) {
      size_t k = static_cast<size_t>(r);
      source.used[k] -= usage[k];
      t.used[k] += usage[k];
      room_[k] -= usage[k];
    }
    targets_.insert({overload(t), target});
  }

  const Cluster& cluster_;
  const LoadReport& load_;
  const LoadAwareArgs& args_;
  const DeschedulerState& state_;
  const PlanOptions& opt_;
  framework::Evictor& evict_;
  Limits limits_;
  std::vector<NodeState> nodes_;
  std::set<std::pair<double, int>> targets_;
  Vec room_{};
  Plan& plan_;
  std::vector<char> in_profile_;   // per node: one of the nodes the profile runs on
  bool stop_all_ = false;
};

}  // namespace

const char* to_string(NodeClass c) {
  switch (c) {
    case NodeClass::Low: return "low";
    case NodeClass::Normal: return "normal";
    case NodeClass::High: return "high";
    case NodeClass::Unknown: return "unknown";
  }
  return "unknown";
}

ClassCounts class_counts(const Plan& plan) {
  ClassCounts out;
  for (const NodeVerdict& v : plan.nodes) out[v.by][v.cls]++;
  return out;
}

const char* load_plugin_name(const LoadAwareArgs& args) {
  const bool low_node_utilization =
      args.requests_only || args.metric_resource || args.metrics.type == MetricsType::KubernetesMetrics;
  return low_node_utilization ? "LowNodeUtilization" : "LoadAware";
}

Status balance_load(const Cluster& cluster, const std::vector<int>& nodes, const LoadReport& load,
                    const LoadAwareArgs& args, const DeschedulerState& state, const PlanOptions& options,
                    framework::Evictor& evictor, Plan& plan) {
  auto limits = limits_of(args, options.max_metric_age);
  if (!limits) return limits.error();
  Planner(cluster, load, args, state, options, evictor, std::move(*limits), plan, nodes).run();
  return {};
}

void record_evictions(DeschedulerState& state, const std::vector<PlannedEviction>& done, TimePoint now,
                      Seconds window) {
  auto w = std::chrono::duration_cast<TimePoint::duration>(window);
  for (const auto& e : done) {
    state.source_evicted_at[e.from] = now;
    state.workload_moved_at[e.workload] = now;
    Arrival& a = state.arrivals[e.to];
    if (now - a.at >= w) a = Arrival{};
    a.at = now;
    a.cpu += e.cpu;
    a.memory += e.memory;
  }
}

}  // namespace weft::descheduler
