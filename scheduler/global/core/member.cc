#include "scheduler/global/core/member.h"

#include <algorithm>

namespace weft::scheduler::global {
namespace {

bool control_plane(const NodeInfo& n) {
  for (const auto& t : n.taints)
    if ((t.effect == "NoSchedule" || t.effect == "NoExecute") &&
        (t.key == "node-role.kubernetes.io/control-plane" || t.key == "node-role.kubernetes.io/master"))
      return true;
  return false;
}

// Room for `request` and one more pod (a node that does not state "pods" has no such limit).
bool may_hold(const NodeInfo& n, const kube::ResourceList& request) {
  auto pods = n.allocatable.find("pods");
  if (pods != n.allocatable.end() && pods->second < 1000) return false;
  for (const auto& [r, v] : request) {
    if (v <= 0 || r == "pods") continue;
    auto it = n.allocatable.find(r);
    if (it == n.allocatable.end() || it->second < v) return false;
  }
  return true;
}

// Feasibility only: the default configuration's gang rule, predicates, topology tiers and
// best-fit order, without the member's queues (the global queues decide), DRF or load,
// and only the actions that place.
Config fit_config() {
  Config c = Config::defaults();
  c.actions = {Action::Enqueue, Action::Allocate};
  std::erase_if(c.plugins, [](const auto& p) {
    return p.name == "proportion" || p.name == "drf" || p.name == "usage" || p.name == "overcommit";
  });
  return c;
}

}  // namespace

MemberState::MemberState(std::string name, const Snapshot& member) : name_(std::move(name)), config_(fit_config()) {
  snap_.nodes = member.nodes;
  snap_.hypernodes = member.hypernodes;
  snap_.now = member.now;
  snap_.queues[kDefaultQueue] = QueueInfo{.name = kDefaultQueue};
  for (size_t i = 0; i < snap_.nodes.size(); ++i) node_index_[snap_.nodes[i].name] = static_cast<int>(i);
  for (const auto& p : member.pods) {
    if (!p.bound()) continue;   // a pod being deleted too: it holds its node until it is gone
    auto it = node_index_.find(p.node);
    if (it == node_index_.end()) continue;
    NodeInfo& n = snap_.nodes[it->second];
    kube::subtract_from(n.allocatable, p.request);
    if (n.allocatable.count("pods")) n.allocatable["pods"] -= 1000;
  }
  takes_work_.resize(snap_.nodes.size());
  for (size_t i = 0; i < snap_.nodes.size(); ++i) {
    const NodeInfo& n = snap_.nodes[i];
    takes_work_[i] = n.ready && !n.unschedulable && !control_plane(n);
    if (!takes_work_[i]) continue;
    kube::add_to(free_, n.allocatable);
    kube::add_to(usable_, member.nodes[i].allocatable);
  }
  free_.erase("pods");
  usable_.erase("pods");
}

FitResult MemberState::fit(const Gang& gang) {
  FitResult r;
  if (gang.pods.empty()) {
    r.fits = true;
    return r;
  }
  const std::string group = gang.pods.front().group;
  PodGroupInfo g;
  g.key = group;
  g.min_member = gang.replicas;
  g.priority = gang.priority;
  g.topology = gang.topology;
  g.sub_groups = gang.sub_groups;   // every partition whole in its own domain, or the job is not dispatched
  g.same_ib_cluster = gang.same_ib_cluster;
  // The session sees only nodes that could hold the gang's smallest pod: the others
  // cannot take any of it, and the core's per-session work grows with the nodes.
  kube::ResourceList smallest = gang.pods.front().request;
  for (const auto& p : gang.pods)
    for (auto& [r, v] : smallest) {
      auto it = p.request.find(r);
      v = std::min(v, it == p.request.end() ? 0 : it->second);
    }
  Snapshot session;
  session.hypernodes = snap_.hypernodes;
  session.queues = snap_.queues;
  session.now = snap_.now;
  for (const auto& n : snap_.nodes) {
    if (!n.ready || n.unschedulable) continue;
    if (may_hold(n, smallest)) session.nodes.push_back(n);
  }
  session.pods = gang.pods;
  std::sort(session.pods.begin(), session.pods.end(), [](const PodInfo& a, const PodInfo& b) { return a.key < b.key; });
  session.podgroups = {{group, g}};
  ++sessions_;
  Decisions d = run_session(session, config_);
  if (d.bindings.size() == gang.pods.size()) {
    std::map<std::string, const PodInfo*> by_key;
    for (const auto& p : gang.pods) by_key[p.key] = &p;
    for (const auto& b : d.bindings) r.placement.nodes.push_back({node_index_.at(b.node), by_key.at(b.pod)->request});
    r.fits = true;
    return r;
  }
  for (const auto& e : d.events)
    if (e.kind == "PodGroup" && e.type == "Warning") r.reason = e.message;
  if (r.reason.empty() && !d.unschedulable.empty()) r.reason = d.unschedulable.begin()->second;
  if (r.reason.empty()) r.reason = "only " + std::to_string(d.bindings.size()) + " of " + std::to_string(gang.replicas) + " pods fit";
  misfits_[gang.signature] = r.reason;
  return r;
}

void MemberState::take(const Placement& p) {
  for (const auto& [node, request] : p.nodes) {
    NodeInfo& n = snap_.nodes[node];
    kube::subtract_from(n.allocatable, request);
    if (n.allocatable.count("pods")) n.allocatable["pods"] -= 1000;
    if (takes_work_[node])
      for (const auto& [k, v] : request)
        if (k != "pods") free_[k] -= v;
  }
}

void MemberState::give_back(const Placement& p) {
  for (const auto& [node, request] : p.nodes) {
    NodeInfo& n = snap_.nodes[node];
    kube::add_to(n.allocatable, request);
    if (n.allocatable.count("pods")) n.allocatable["pods"] += 1000;
    if (takes_work_[node])
      for (const auto& [k, v] : request)
        if (k != "pods") free_[k] += v;
  }
  misfits_.clear();
}

const std::string* MemberState::known_misfit(const std::string& signature) const {
  auto it = misfits_.find(signature);
  return it == misfits_.end() ? nullptr : &it->second;
}

}  // namespace weft::scheduler::global
