#include "descheduler/core/framework/default_evictor.h"

#include <algorithm>
#include <map>

#include "kube/priority.h"
namespace weft::descheduler::framework {

EvictorOptions evictor_options(const Policy& policy, TimePoint now, Seconds cooldown) {
  EvictorOptions o;
  o.now = now;
  o.cooldown = cooldown;
  o.node_fit = policy.node_fit();
  o.max_per_node = policy.max_per_node;
  o.max_per_namespace = policy.max_per_namespace;
  o.max_total = policy.max_total;
  return o;
}

bool namespace_allowed(const std::vector<std::string>& include, const std::vector<std::string>& exclude,
                       const std::string& ns) {
  if (!include.empty() && std::find(include.begin(), include.end(), ns) == include.end()) return false;
  return std::find(exclude.begin(), exclude.end(), ns) == exclude.end();
}

DefaultEvictor::DefaultEvictor(const EvictorArgs& args, const Cluster& cluster, const DeschedulerState& state,
                               const EvictorOptions& options, Plan& plan)
    : args_(args), cluster_(cluster), state_(state), options_(options), plan_(plan) {
  evicted_from_.assign(cluster.nodes.size(), 0);
  evicted_pod_.assign(cluster.pods.size(), 0);
  running_in_group_ = cluster.running_in_group;
  for (const auto& pdb : cluster.pdbs) budget_left_.push_back(pdb.disruptions_allowed);
}

Result<std::unique_ptr<DefaultEvictor>> DefaultEvictor::create(const EvictorArgs& args, const Cluster& cluster,
                                                               const DeschedulerState& state,
                                                               const EvictorOptions& options, Plan& plan) {
  std::unique_ptr<DefaultEvictor> e(new DefaultEvictor(args, cluster, state, options, plan));
  const PriorityThreshold& pt = args.priority_threshold;
  if (pt.value) {
    e->threshold_ = *pt.value;
  } else if (!pt.name.empty()) {
    auto it = cluster.priority_classes.find(pt.name);
    if (it != cluster.priority_classes.end()) e->threshold_ = it->second;
    else if (auto builtin = kube::builtin_priority(pt.name)) e->threshold_ = *builtin;
    else return make_error("policy DefaultEvictor priorityThreshold.name: PriorityClass '" + pt.name + "' not found");
    // As upstream: a class above system-cluster-critical (system-node-critical) is refused.
    if (e->threshold_ > kSystemCriticalPriority)
      return make_error("policy DefaultEvictor priorityThreshold.name: PriorityClass '" + pt.name + "' has priority " +
                        std::to_string(e->threshold_) + "; the threshold can't be greater than " +
                        std::to_string(kSystemCriticalPriority));
  }
  return e;
}

std::string DefaultEvictor::filter(int index) const {
  const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
  // Never lifted: the Eviction API cannot move a mirror pod, a terminating pod is already going.
  if (pod.terminating) return "terminating";
  if (pod.mirror) return "mirror-pod";
  // As upstream, the annotation lifts every DefaultEvictor rule below.
  if (pod.evict_annotation) return "";
  return rule_blocker(pod);
}

// podProtections.config.PodsWithPVC: with no class listed every pod with a claim is
// protected; else a pod one of whose claims uses a listed class, or whose claim or class
// cannot be read (upstream protects it then).
bool DefaultEvictor::pvc_protected(const PodInfo& pod) const {
  const auto& classes = args_.protected_storage_classes;
  if (classes.empty()) return true;
  if (!pod.spec || !pod.spec->volumes) return false;
  for (const auto& v : pod.spec->volumes->volumes) {
    if (v.claim.empty() || v.ephemeral) continue;
    const scheduler::ClaimInfo* claim = cluster_.snapshot.storage.claim(pod.ns + "/" + v.claim);
    if (!claim || claim->storage_class.empty()) return true;
    if (std::find(classes.begin(), classes.end(), claim->storage_class) != classes.end()) return true;
  }
  return false;
}

std::string DefaultEvictor::rule_blocker(const PodInfo& pod) const {
  const EvictorArgs& a = args_;
  if (a.no_eviction_mandatory && pod.prefer_no_eviction) return "prefer-no-eviction";
  if (!a.evict_system_critical_pods) {
    if (pod.has_priority && pod.priority >= kSystemCriticalPriority) return "system-critical";
    // A pod without a priority is below any threshold (upstream).
    if (pod.has_priority && pod.priority >= threshold_) return "priority-threshold";
  }
  if (pod.owner_count == 0 && !(a.evict_failed_bare_pods && pod.phase == "Failed")) return "bare-pod";
  if (pod.has_local_storage && !a.evict_local_storage_pods) return "local-storage";
  if (pod.daemonset && !a.evict_daemonset_pods) return "daemonset";
  if (pod.has_pvc && a.ignore_pvc_pods && pvc_protected(pod)) return "pvc";
  if (a.protect_resource_claims && pod.spec && pod.spec->resource_claims) return "resource-claims";
  if (a.ignore_pods_without_pdb && pod.pdbs.empty()) return "no-pdb";
  if (a.label_selector && !a.label_selector->matches(pod.labels())) return "label-selector";
  if (a.min_replicas > 1 && pod.owner_count == 1) {
    auto it = cluster_.pods_of_owner.find(pod.owner_key());
    if (it == cluster_.pods_of_owner.end() || it->second < a.min_replicas) return "min-replicas";
  }
  if (a.min_pod_age &&
      (!pod.started || options_.now - *pod.started < std::chrono::duration_cast<TimePoint::duration>(*a.min_pod_age)))
    return "min-pod-age";
  return "";
}

std::string DefaultEvictor::limit_blocker(const PodInfo& pod) const {
  if (total_limit_reached()) return "limit-total";
  if (node_limit_reached(pod.node)) return "limit-per-node";
  if (options_.max_per_namespace) {
    auto it = evicted_in_namespace_.find(pod.ns);
    const int evicted_here = it == evicted_in_namespace_.end() ? 0 : it->second;
    if (evicted_here >= *options_.max_per_namespace) return "limit-per-namespace";   // a limit of 0 too
  }
  return "";
}

bool DefaultEvictor::cooling_down(const PodInfo& pod) const {
  auto it = state_.workload_moved_at.find(pod.workload());
  return it != state_.workload_moved_at.end() &&
         options_.now - it->second < std::chrono::duration_cast<TimePoint::duration>(options_.cooldown);
}

// The gang keeps minMember running pods after this eviction and every earlier one.
std::string DefaultEvictor::gang_blocker(const PodInfo& pod) const {
  if (pod.group.empty()) return "";
  std::string key = pod.ns + "/" + pod.group;
  auto g = cluster_.groups.find(key);
  if (g == cluster_.groups.end()) return "gang-podgroup-missing";
  auto r = running_in_group_.find(key);
  int running = r == running_in_group_.end() ? 0 : r->second;
  return running - 1 >= g->second.min_member ? "" : "gang-min-member";
}

// The Eviction API refuses a pod covered by more than one budget, and any eviction past a
// budget's disruptionsAllowed: the plan counts on neither.
std::string DefaultEvictor::budget_blocker(const PodInfo& pod) const {
  if (pod.pdbs.size() > 1) return "pdb-multiple";
  for (int b : pod.pdbs)
    if (budget_left_[static_cast<size_t>(b)] <= 0) return "pdb";
  return "";
}

std::string DefaultEvictor::pre_eviction_filter(int index, int target) const {
  const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
  if (evicted(index)) return "evicted";
  if (args_.namespace_label_selector) {
    auto ns = cluster_.snapshot.namespaces.find(pod.ns);
    if (ns == cluster_.snapshot.namespaces.end() || !args_.namespace_label_selector->matches(ns->second))
      return "namespace-label-selector";
  }
  if (std::string b = limit_blocker(pod); !b.empty()) return b;
  if (cooling_down(pod)) return "cooldown";
  if (std::string b = gang_blocker(pod); !b.empty()) return b;
  if (std::string b = budget_blocker(pod); !b.empty()) return b;
  if (target == kTargetChosenLater) return "";
  if (target >= 0) return target_blocker(index, target);
  return any_target(index);
}

const DomainRule& DefaultEvictor::domain_of(int index) const {
  if (domain_pod_ != index) {
    const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
    domain_ = domain_rule(pod, cluster_);
    domain_pod_ = index;
  }
  return domain_;
}

scheduler::query::Fit& DefaultEvictor::fit() const {
  if (!fit_) {
    fit_ = std::make_unique<scheduler::query::Fit>(cluster_.snapshot);
    for (const auto& [pod, node] : moves_) fit_->place(pod, node);
  }
  return *fit_;
}

std::string DefaultEvictor::fit_reason(int pod, int node, bool room) const {
  const int core = cluster_.pods[static_cast<size_t>(pod)].core;
  const int target = cluster_.topology_node[static_cast<size_t>(node)];
  if (core < 0 || target < 0) return "not in the scheduler's snapshot";
  return room ? fit().reject(core, target) : fit().reject_placement(core, target);
}

std::string DefaultEvictor::placement_blocker(int pod, int node) const { return fit_reason(pod, node, false); }

std::string DefaultEvictor::fit_blocker(int pod, int node) const { return fit_reason(pod, node, true); }

std::vector<std::string> DefaultEvictor::other_pod_blockers(int pod, int node) const {
  const int core = cluster_.pods[static_cast<size_t>(pod)].core;
  const int target = cluster_.topology_node[static_cast<size_t>(node)];
  if (core < 0 || target < 0) return {};
  return fit().other_pod_rejects(core, target);
}

std::string DefaultEvictor::target_blocker(int pod, int node) const {
  if (!domain_of(pod).allows(node, cluster_)) return "topology";
  // nodeFit: among the nodes the evictor's nodeSelector selects (upstream's ReadyNodes),
  // the scheduler's fit, the pod off its own node, this cycle's moves counted.
  if (options_.node_fit && args_.node_selector && !args_.node_selector->matches(cluster_.nodes[static_cast<size_t>(node)].labels))
    return "node-fit";
  if (options_.node_fit && !fit_blocker(pod, node).empty()) return "node-fit";
  return "";
}

// Some other ready, schedulable node takes the pod; else why not, by the furthest any
// node got ("no-target" when there is no other such node). As upstream, a pod is asked
// for no other node without nodeFit, unless it is bound to a fabric or tier domain (it
// must be able to come back inside it).
std::string DefaultEvictor::any_target(int pod) const {
  const DomainRule& domain = domain_of(pod);
  if (!options_.node_fit && domain.required.empty() && !domain.confined) return "";
  const int source = cluster_.pods[static_cast<size_t>(pod)].node;
  std::string furthest = "no-target";
  for (size_t n = 0; n < cluster_.nodes.size(); ++n) {
    const NodeInfo& info = cluster_.nodes[n];
    if (static_cast<int>(n) == source || !info.ready || info.unschedulable) continue;
    std::string why = target_blocker(pod, static_cast<int>(n));
    if (why.empty()) return "";
    if (why == "node-fit" || furthest == "no-target") furthest = why;
  }
  return furthest;
}

std::string DefaultEvictor::evict(const EvictionRequest& r) {
  const PodInfo& pod = cluster_.pods[static_cast<size_t>(r.pod)];
  std::string why = filter(r.pod);
  if (why.empty()) why = pre_eviction_filter(r.pod, r.target);
  if (!why.empty()) {
    plan_.skipped.push_back({pod.ns, pod.name, cluster_.nodes[static_cast<size_t>(pod.node)].name, why});
    return why;
  }
  count(r.pod, r.target);
  plan_.evictions.push_back({pod.ns, pod.name, cluster_.nodes[static_cast<size_t>(pod.node)].name,
                             r.target >= 0 ? cluster_.nodes[static_cast<size_t>(r.target)].name : "", r.reason,
                             pod.workload(), r.cpu, r.memory, r.sized_by, r.plugin});
  return "";
}

// Counts an allowed eviction: limits, budgets, the gang, and the pod's requests moved from
// its node to the target (so two moves never count the same free room).
void DefaultEvictor::count(int index, int target) {
  const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
  ++evicted_;
  evicted_pod_[static_cast<size_t>(index)] = 1;
  ++evicted_from_[static_cast<size_t>(pod.node)];
  ++evicted_in_namespace_[pod.ns];
  for (int b : pod.pdbs) --budget_left_[static_cast<size_t>(b)];
  if (!pod.group.empty()) --running_in_group_[pod.ns + "/" + pod.group];
  if (pod.core < 0) return;
  const int to = target < 0 ? -1 : cluster_.topology_node[static_cast<size_t>(target)];
  moves_.emplace_back(pod.core, to);
  if (fit_) fit_->place(pod.core, to);
}

bool DefaultEvictor::evicted(int pod) const { return evicted_pod_[static_cast<size_t>(pod)] != 0; }

bool DefaultEvictor::node_limit_reached(int node) const {
  return options_.max_per_node && evicted_from_[static_cast<size_t>(node)] >= *options_.max_per_node;
}

bool DefaultEvictor::total_limit_reached() const { return options_.max_total && evicted_ >= *options_.max_total; }

std::optional<int> DefaultEvictor::total_left() const {
  if (!options_.max_total) return std::nullopt;
  return std::max(0, *options_.max_total - evicted_);
}

std::vector<int> DefaultEvictor::overdrawn(const std::vector<int>& pods) const {
  // Budget keys: "p<index>" a PodDisruptionBudget, "g<ns/group>" a gang, "n<node>", "s<namespace>".
  std::map<std::string, int> use, left;
  auto draws = [&](int index, auto&& each) {
    const PodInfo& pod = cluster_.pods[static_cast<size_t>(index)];
    for (int b : pod.pdbs) each("p" + std::to_string(b), budget_left_[static_cast<size_t>(b)]);
    if (!pod.group.empty()) {
      std::string key = pod.ns + "/" + pod.group;
      auto g = cluster_.groups.find(key);
      auto r = running_in_group_.find(key);
      int spare = g == cluster_.groups.end() || r == running_in_group_.end() ? 0 : r->second - g->second.min_member;
      each("g" + key, spare);
    }
    if (options_.max_per_node)
      each("n" + std::to_string(pod.node), *options_.max_per_node - evicted_from_[static_cast<size_t>(pod.node)]);
    if (options_.max_per_namespace) {
      auto it = evicted_in_namespace_.find(pod.ns);
      each("s" + std::string(pod.ns), *options_.max_per_namespace - (it == evicted_in_namespace_.end() ? 0 : it->second));
    }
  };
  for (int p : pods)
    draws(p, [&](const std::string& key, int available) {
      ++use[key];
      left.try_emplace(key, available);
    });
  std::vector<int> out;
  for (int p : pods) {
    bool over = false;
    draws(p, [&](const std::string& key, int) { over |= use[key] > left[key]; });
    if (over) out.push_back(p);
  }
  return out;
}

}  // namespace weft::descheduler::framework
