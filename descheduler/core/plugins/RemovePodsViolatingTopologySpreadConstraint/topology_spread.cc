#include "descheduler/core/plugins/RemovePodsViolatingTopologySpreadConstraint/topology_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "scheduler/core/query/spread.h"

namespace weft::descheduler::plugins::topology_spread {

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path, {"namespaces", "labelSelector", "constraints", "topologyBalanceNodeFit"}))
    return problems.error();
  if (auto filter = problems.take(read_pod_filter(c, a, path))) out.filter = std::move(*filter);
  const std::string at = args::join(path, "constraints");
  auto constraints = problems.take(args::get_strings(c, args::field(a, "constraints"), at));
  if (constraints && !constraints->empty()) {
    out.hard = false;
    for (size_t i = 0; i < constraints->size(); ++i) {
      const std::string& k = (*constraints)[i];
      if (k == kDoNotSchedule) out.hard = true;
      else if (k == kScheduleAnyway) out.soft = true;
      else problems.add(c.at(at + "[" + std::to_string(i) + "]", "'" + k + "' is not DoNotSchedule or ScheduleAnyway"));
    }
  }
  const nlohmann::json& fit = args::field(a, "topologyBalanceNodeFit");
  if (!fit.is_null())
    if (auto v = problems.take(args::get_bool(c, fit, args::join(path, "topologyBalanceNodeFit"))))
      out.topology_balance_node_fit = *v;
  if (!problems.empty()) return problems.error();
  return out;
}

namespace {

struct Domain {
  std::string value;
  std::vector<int> nodes, pods;   // Cluster indices
};

// One distinct constraint: the pod that declares it (snapshot index) and its index there.
struct Owned {
  int owner;
  size_t index;
};

class Balancer {
 public:
  Balancer(const Args& args, const std::vector<int>& nodes, framework::Handle& handle)
      : args_(args), nodes_(nodes), handle_(handle), cluster_(handle.cluster()), snap_(cluster_.snapshot) {}

  void run() {
    std::map<std::string, std::vector<int>> by_namespace;
    std::vector<int> listed;
    for (int n : nodes_) {
      listed.clear();
      for (int p : cluster_.nodes[static_cast<size_t>(n)].pods) {
        const PodInfo& pod = cluster_.pods[static_cast<size_t>(p)];
        // Upstream lists the plugin's pods through the evictor's Filter: pods it refuses
        // neither declare constraints nor count in a domain.
        if (pod.core >= 0 && args_.filter.matches(pod) && handle_.evictor().filter(p).empty()) listed.push_back(p);
      }
      // A node's pods by name, so that among pods of one rank the last by name leaves
      // first (upstream's order is its lister's; its tests list by name).
      std::sort(listed.begin(), listed.end(), [&](int a, int b) {
        return cluster_.pods[static_cast<size_t>(a)].name < cluster_.pods[static_cast<size_t>(b)].name;
      });
      for (int p : listed) by_namespace[cluster_.pods[static_cast<size_t>(p)].ns].push_back(p);
    }
    for (const auto& [ns, pods] : by_namespace)
      for (const Owned& o : constraints_of(pods)) balance(o, pods);
    evict();
  }

 private:
  const scheduler::PodInfo& core(int pod) const {
    return snap_.pods[static_cast<size_t>(cluster_.pods[static_cast<size_t>(pod)].core)];
  }
  const scheduler::NodeInfo& core_node(int node) const {
    return snap_.nodes[static_cast<size_t>(cluster_.topology_node[static_cast<size_t>(node)])];
  }

  std::vector<Owned> constraints_of(const std::vector<int>& pods) const {
    std::vector<Owned> out;
    std::set<std::string> seen;
    for (int p : pods) {
      const auto& spread = core(p).contract().spread;
      for (size_t i = 0; i < spread.size(); ++i)
        if ((spread[i].hard ? args_.hard : args_.soft) && seen.insert(scheduler::query::spread_identity(core(p), i)).second)
          out.push_back({cluster_.pods[static_cast<size_t>(p)].core, i});
    }
    return out;
  }

  // The domains of the constraint over the profile's nodes, with the pods it counts. As
  // upstream, the inclusion policies (nodeAffinityPolicy, nodeTaintsPolicy) choose the
  // domains it starts from and the nodes pods may move to (Domain::nodes), but a pod on
  // any profile node with the key counts in that node's domain.
  std::vector<Domain> domains(const Owned& o, const std::vector<int>& pods, int& total) const {
    const scheduler::PodInfo& owner = snap_.pods[static_cast<size_t>(o.owner)];
    const scheduler::SpreadConstraint& c = owner.contract().spread[o.index];
    std::map<std::string, Domain> by_value;
    std::vector<const std::string*> value_of(cluster_.nodes.size(), nullptr);
    for (int n : nodes_) {
      const scheduler::NodeInfo& node = core_node(n);
      const std::string* v = node.labels.find(c.topology_key);
      if (!v) continue;
      value_of[static_cast<size_t>(n)] = v;
      if (!scheduler::query::spread_counts_node(c, owner, node)) continue;
      Domain& d = by_value[*v];
      d.value = *v;
      d.nodes.push_back(n);
    }
    const scheduler::query::SpreadSelection selection(c, owner);
    total = 0;
    for (int p : pods) {
      const std::string* v = value_of[static_cast<size_t>(cluster_.pods[static_cast<size_t>(p)].node)];
      if (!v || !selection.counts(snap_, core(p))) continue;
      Domain& d = by_value[*v];
      d.value = *v;
      d.pods.push_back(p);
      ++total;
    }
    std::vector<Domain> out;
    for (auto& [v, d] : by_value) out.push_back(std::move(d));
    return out;
  }

  static bool balanced(const std::vector<Domain>& domains, int32_t max_skew) {
    size_t lo = SIZE_MAX, hi = 0;
    for (const auto& d : domains) lo = std::min(lo, d.pods.size()), hi = std::max(hi, d.pods.size());
    return domains.empty() || static_cast<int64_t>(hi - lo) <= max_skew;
  }

  bool pins_node(int pod) const {
    const scheduler::PodInfo& p = core(pod);
    return !p.affinity().empty() || !p.contract().preferred_node.empty();
  }

  // Upstream's order inside a domain, taken from the back: pods with a nodeSelector or
  // node affinity first, each by priority (none first, then ascending: upstream's
  // sortDomains takes the highest first). Its first rule, pods the evictor's Filter
  // refuses, is moot: such pods are not listed.
  void order(std::vector<int>& pods) const {
    std::stable_sort(pods.begin(), pods.end(), [&](int a, int b) {
      const bool sa = pins_node(a), sb = pins_node(b);
      if (sa != sb) return sa;
      const PodInfo &pa = cluster_.pods[static_cast<size_t>(a)], &pb = cluster_.pods[static_cast<size_t>(b)];
      if (pa.has_priority != pb.has_priority) return !pa.has_priority;
      return pa.priority < pb.priority;
    });
  }

  // The scheduler takes the pod, room included, on another node of `targets`, and the
  // evictor's target rules (its domain) allow it there.
  bool fits_elsewhere(int pod, const std::vector<int>& targets) const {
    const int own = cluster_.pods[static_cast<size_t>(pod)].node;
    return std::any_of(targets.begin(), targets.end(), [&](int n) {
      return n != own && handle_.evictor().fit_blocker(pod, n).empty() && handle_.evictor().target_blocker(pod, n).empty();
    });
  }

  // Upstream's balanceDomains: from the largest domains toward the smallest, at most half
  // the excess skew at a time, never taking a domain below the average nor filling one
  // above it.
  void balance(const Owned& o, const std::vector<int>& pods) {
    const int32_t max_skew = snap_.pods[static_cast<size_t>(o.owner)].contract().spread[o.index].max_skew;
    int total = 0;
    std::vector<Domain> sorted = domains(o, pods, total);
    if (balanced(sorted, max_skew)) return;
    const double ideal = static_cast<double>(total) / static_cast<double>(sorted.size());
    for (auto& d : sorted) order(d.pods);
    std::stable_sort(sorted.begin(), sorted.end(), [](const Domain& a, const Domain& b) { return a.pods.size() < b.pods.size(); });
    std::vector<int> below;
    for (const auto& d : sorted)
      if (static_cast<double>(d.pods.size()) < ideal) below.insert(below.end(), d.nodes.begin(), d.nodes.end());
    size_t i = 0, j = sorted.size() - 1;
    while (i < j) {
      if (static_cast<double>(sorted[j].pods.size()) <= ideal) --j;
      const double skew = static_cast<double>(sorted[j].pods.size()) - static_cast<double>(sorted[i].pods.size());
      if (skew <= max_skew) {
        ++i;
        continue;
      }
      const double above = std::ceil(static_cast<double>(sorted[j].pods.size()) - ideal);
      const double under = std::ceil(ideal - static_cast<double>(sorted[i].pods.size()));
      const double half = std::ceil((skew - max_skew) / 2);
      const size_t move = static_cast<size_t>(std::max(0.0, std::min(std::min(above, under), half)));
      if (move == 0) {
        ++i;
        continue;
      }
      std::vector<int>& from = sorted[j].pods;
      // Pods that could go to a domain below the average are taken first (from the back).
      std::vector<char> can(cluster_.pods.size(), 0);
      for (int p : from) can[static_cast<size_t>(p)] = fits_elsewhere(p, below);
      std::stable_sort(from.begin(), from.end(), [&](int a, int b) { return !can[static_cast<size_t>(a)] && can[static_cast<size_t>(b)]; });
      std::vector<int> taken(from.end() - static_cast<std::ptrdiff_t>(move), from.end());
      for (int p : taken)
        if (!args_.topology_balance_node_fit || can[static_cast<size_t>(p)])
          if (chosen_.insert(p).second) order_.push_back(p);
      from.resize(from.size() - move);
      sorted[i].pods.insert(sorted[i].pods.end(), taken.begin(), taken.end());
    }
  }

  void evict() {
    framework::Evictor& evictor = handle_.evictor();
    for (int p : order_) {
      if (evictor.total_limit_reached()) return;
      if (evictor.node_limit_reached(cluster_.pods[static_cast<size_t>(p)].node)) continue;
      framework::EvictionRequest request;
      request.pod = p;
      request.reason = "its topology spread constraint's domains differ by more than maxSkew";
      request.plugin = kName;
      evictor.evict(request);
    }
  }

  const Args& args_;
  const std::vector<int>& nodes_;
  framework::Handle& handle_;
  const Cluster& cluster_;
  const scheduler::Snapshot& snap_;
  std::set<int> chosen_;
  std::vector<int> order_;
};

}  // namespace

Status Plugin::balance(const std::vector<int>& nodes, framework::Handle& handle) {
  Balancer(args_, nodes, handle).run();
  return {};
}

}  // namespace weft::descheduler::plugins::topology_spread
