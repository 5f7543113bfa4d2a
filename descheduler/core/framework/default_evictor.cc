#include "descheduler/core/framework/default_evictor.h"

#include <algorithm>
#include <map>

#include "kube/priority.h"
namespace weft::descheduler::framework {

EvictorOptions evictor_options(const Policy& policy, const PolicyProfile& profile, TimePoint now, Seconds cooldown) {
  EvictorOptions o;
  o.now = now;
  o.cooldown = cooldown;
  o.node_fit = profile.node_fit();
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

DefaultEvictor::DefaultEvictor(const EvictorArgs& args, bool node_fit, std::unique_ptr<CycleLedger> own,
                               CycleLedger& ledger)
    : args_(args), node_fit_(node_fit), own_ledger_(std::move(own)), ledger_(ledger), cluster_(ledger.cluster()) {}

namespace {

// priorityThreshold as a priority: its value, or its PriorityClass's (default:
// system-cluster-critical's).
Result<int32_t> resolve_threshold(const PriorityThreshold& pt, const Cluster& cluster) {
  if (pt.value) return *pt.value;
  if (pt.name.empty()) return kSystemCriticalPriority;
  int32_t threshold = 0;
  auto it = cluster.priority_classes.find(pt.name);
  if (it != cluster.priority_classes.end()) threshold = it->second;
  else if (auto builtin = kube::builtin_priority(pt.name)) threshold = *builtin;
  else return make_error("policy DefaultEvictor priorityThreshold.name: PriorityClass '" + pt.name + "' not found");
  // As upstream: a class above system-cluster-critical (system-node-critical) is refused.
  if (threshold > kSystemCriticalPriority)
    return make_error("policy DefaultEvictor priorityThreshold.name: PriorityClass '" + pt.name + "' has priority " +
                      std::to_string(threshold) + "; the threshold can't be greater than " +
                      std::to_string(kSystemCriticalPriority));
  return threshold;
}

}  // namespace

Result<std::unique_ptr<DefaultEvictor>> DefaultEvictor::create(const EvictorArgs& args, bool node_fit,
                                                               CycleLedger& ledger) {
  auto threshold = resolve_threshold(args.priority_threshold, ledger.cluster());
  if (!threshold) return threshold.error();
  std::unique_ptr<DefaultEvictor> e(new DefaultEvictor(args, node_fit, nullptr, ledger));
  e->threshold_ = *threshold;
  return e;
}

Result<std::unique_ptr<DefaultEvictor>> DefaultEvictor::create(const EvictorArgs& args, const Cluster& cluster,
                                                               const DeschedulerState& state,
                                                               const EvictorOptions& options, Plan& plan) {
  auto threshold = resolve_threshold(args.priority_threshold, cluster);
  if (!threshold) return threshold.error();
  auto ledger = std::make_unique<CycleLedger>(cluster, state, options, plan);
  CycleLedger& own = *ledger;
  std::unique_ptr<DefaultEvictor> e(new DefaultEvictor(args, options.node_fit, std::move(ledger), own));
  e->threshold_ = *threshold;
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
      (!pod.started || ledger_.now() - *pod.started < std::chrono::duration_cast<TimePoint::duration>(*a.min_pod_age)))
    return "min-pod-age";
  return "";
}

std::string DefaultEvictor::standing_blocker(int index) const {
  if (evicted(index)) return "evicted";
  if (args_.namespace_label_selector) {
    auto ns = cluster_.snapshot.namespaces.find(cluster_.pods[static_cast<size_t>(index)].ns);
    if (ns == cluster_.snapshot.namespaces.end() || !args_.namespace_label_selector->matches(ns->second))
      return "namespace-label-selector";
  }
  return "";
}

std::string DefaultEvictor::pre_eviction_filter(int index, int target) const {
  if (std::string b = standing_blocker(index); !b.empty()) return b;
  if (std::string b = ledger_.blocker(cluster_.pods[static_cast<size_t>(index)]); !b.empty()) return b;
  if (target == kTargetChosenLater) return "";
  if (target >= 0) return target_blocker(index, target);
  return any_target(index);
}

std::string DefaultEvictor::listing_filter(int index) const {
  if (std::string b = standing_blocker(index); !b.empty()) return b;
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

std::string DefaultEvictor::fit_reason(int pod, int node, bool room) const {
  const int core = cluster_.pods[static_cast<size_t>(pod)].core;
  const int target = cluster_.topology_node[static_cast<size_t>(node)];
  if (core < 0 || target < 0) return "not in the scheduler's snapshot";
  return room ? ledger_.fit().reject(core, target) : ledger_.fit().reject_placement(core, target);
}

std::string DefaultEvictor::placement_blocker(int pod, int node) const { return fit_reason(pod, node, false); }

std::string DefaultEvictor::fit_blocker(int pod, int node) const { return fit_reason(pod, node, true); }

std::vector<std::string> DefaultEvictor::other_pod_blockers(int pod, int node) const {
  const int core = cluster_.pods[static_cast<size_t>(pod)].core;
  const int target = cluster_.topology_node[static_cast<size_t>(node)];
  if (core < 0 || target < 0) return {};
  return ledger_.fit().other_pod_rejects(core, target);
}

std::string DefaultEvictor::target_blocker(int pod, int node) const {
  if (!domain_of(pod).allows(node, cluster_)) return "topology";
  // nodeFit: among the nodes the evictor's nodeSelector selects (upstream's ReadyNodes),
  // the scheduler's fit, the pod off its own node, this cycle's moves counted.
  if (node_fit_ && args_.node_selector && !args_.node_selector->matches(cluster_.nodes[static_cast<size_t>(node)].labels))
    return "node-fit";
  if (node_fit_ && !fit_blocker(pod, node).empty()) return "node-fit";
  return "";
}

// Some other ready, schedulable node takes the pod; else why not, by the furthest any
// node got ("no-target" when there is no other such node). As upstream, a pod is asked
// for no other node without nodeFit, unless it is bound to a fabric or tier domain (it
// must be able to come back inside it).
std::string DefaultEvictor::any_target(int pod) const {
  const DomainRule& domain = domain_of(pod);
  if (!node_fit_ && domain.required.empty() && !domain.confined) return "";
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
  std::string why = filter(r.pod);
  if (why.empty()) why = pre_eviction_filter(r.pod, r.target);
  if (!why.empty()) {
    ledger_.skip(r.pod, why);
    return why;
  }
  ledger_.record(r);
  return "";
}

bool DefaultEvictor::evicted(int pod) const { return ledger_.evicted(pod); }
bool DefaultEvictor::node_limit_reached(int node) const { return ledger_.node_limit_reached(node); }
bool DefaultEvictor::total_limit_reached() const { return ledger_.total_limit_reached(); }
std::optional<int> DefaultEvictor::total_left() const { return ledger_.total_left(); }
std::vector<int> DefaultEvictor::overdrawn(const std::vector<int>& pods) const { return ledger_.overdrawn(pods); }

}  // namespace weft::descheduler::framework
