#include "scheduler/core/session.h"

#include <algorithm>

#include "scheduler/core/session_state.h"

namespace weft::scheduler {
namespace {

bool ours(const PodInfo& p, const SessionOptions& o) {
  return o.scheduler_names.empty() || o.scheduler_names.count(p.scheduler_name) ||
         (p.scheduler_name.empty() && o.scheduler_names.count("default-scheduler"));
}

void build_jobs(SessionState& s) {
  const Snapshot& snap = s.snap;
  std::map<std::string, int> index;
  s.job_of_pod.assign(snap.pods.size(), -1);
  s.node_of_pod.assign(snap.pods.size(), -1);
  for (const auto& [name, q] : snap.queues) s.queues[name].info = &q;
  for (size_t p = 0; p < snap.pods.size(); ++p) {
    const PodInfo& pod = snap.pods[p];
    std::string key = pod.group.empty() ? pod.key : pod.group;
    auto it = index.find(key);
    if (it == index.end()) {
      Job j;
      j.key = key;
      j.priority = pod.priority;
      if (!pod.group.empty()) {
        auto g = snap.podgroups.find(pod.group);
        if (g == snap.podgroups.end()) {
          j.blocked = "PodGroup " + pod.group + " not found";
          j.blocked_reason = "PodGroupNotFound";
        } else {
          j.group = &g->second;
          j.queue = g->second.queue;
          j.min_member = g->second.min_member;
          j.priority = g->second.priority;
          j.phase = g->second.phase();
          if (j.phase == "Completed") j.phase = "Running";
        }
      } else {
        j.phase = pod.bound() ? "Running" : "Pending";
      }
      auto q = snap.queues.find(j.queue);
      if (q == snap.queues.end()) {
        j.blocked = "queue '" + j.queue + "' not found";
        j.blocked_reason = "QueueNotFound";
      } else if (!q->second.open && j.blocked.empty()) {
        j.blocked = "queue '" + j.queue + "' is closed";
        j.blocked_reason = "QueueClosed";
      }
      it = index.emplace(key, static_cast<int>(s.jobs.size())).first;
      s.jobs.push_back(std::move(j));
    }
    Job& j = s.jobs[it->second];
    s.job_of_pod[p] = it->second;
    j.pods.push_back(static_cast<int>(p));
    if (pod.phase == "Succeeded") ++j.succeeded;
    else if (pod.phase == "Failed") ++j.failed;
    else if (!pod.node.empty()) {
      int n = s.node_index(pod.node);
      s.node_of_pod[p] = n;
      ++j.bound;
      kube::add_to(j.allocated, pod.request);
      if (auto* qa = s.queue_of(j)) kube::add_to(qa->allocated, pod.request);
    } else if (ours(pod, s.opts) && !pod.terminating) {
      j.pending.push_back(static_cast<int>(p));
      if (!pod.best_effort()) j.has_nonbest_effort_pending = true;
    }
  }
  for (auto& j : s.jobs) {
    // Higher priority pods first, then by name.
    std::sort(j.pending.begin(), j.pending.end(), [&](int a, int b) {
      const auto &pa = snap.pods[a], &pb = snap.pods[b];
      return pa.priority != pb.priority ? pa.priority > pb.priority : pa.key < pb.key;
    });
    if (j.bound > 0 && j.phase == "Pending") j.phase = "Running";
    j.enqueued = j.phase != "Pending";
    if (auto* qa = s.queue_of(j)) {
      kube::add_to(qa->request, j.allocated);
      for (int p : j.pending) kube::add_to(qa->request, snap.pods[p].request);
      if (j.phase == "Inqueue" && j.bound == 0 && j.group && j.group->has_min_resources)
        kube::add_to(qa->inqueue, j.group->min_resources);
    }
  }
}

}  // namespace

const Topology& SessionState::topo() {
  if (!topology) topology = std::make_unique<Topology>(build_topology(snap));
  return *topology;
}

int SessionState::node_index(const std::string& name) const {
  auto it = std::lower_bound(snap.nodes.begin(), snap.nodes.end(), name,
                             [](const NodeInfo& n, const std::string& v) { return n.name < v; });
  return it != snap.nodes.end() && it->name == name ? static_cast<int>(it - snap.nodes.begin()) : -1;
}

QueueAccount* SessionState::queue_of(const Job& j) {
  auto it = queues.find(j.queue);
  return it == queues.end() ? nullptr : &it->second;
}

void SessionState::assume(int pod, int node) {
  if (node >= 0) cluster.assume(pod, node);
  Job& j = jobs[job_of_pod[pod]];
  ++j.bound;
  kube::add_to(j.allocated, snap.pods[pod].request);
  if (auto* q = queue_of(j)) kube::add_to(q->allocated, snap.pods[pod].request);
  node_of_pod[pod] = node;
}

void SessionState::release(int pod, int node) {
  if (node >= 0) cluster.release(pod, node);
  Job& j = jobs[job_of_pod[pod]];
  --j.bound;
  kube::subtract_from(j.allocated, snap.pods[pod].request);
  if (auto* q = queue_of(j)) kube::subtract_from(q->allocated, snap.pods[pod].request);
  node_of_pod[pod] = -1;
}

int SessionState::need_of(const Job& j) const {
  if (!gang()) return j.pending.empty() ? 0 : 1;
  return std::max(0, j.min_member - j.occupied());
}

Decisions run_session(const Snapshot& snapshot, const Config& config, const SessionOptions& options) {
  SessionState s(snapshot, config, options);
  build_jobs(s);
  if (config.has("proportion")) {
    s.total = usable_capacity(snapshot, config.proportion);
    compute_deserved(s.queues, s.total);
  }
  if (!config.has(Action::Enqueue))
    for (auto& j : s.jobs)
      if (j.blocked.empty()) j.enqueued = true;
  for (Action a : config.actions) {
    switch (a) {
      case Action::Enqueue: enqueue(s); break;
      case Action::Allocate: allocate(s, false); break;
      case Action::Backfill: allocate(s, true); break;
      case Action::Reclaim: reclaim(s, false); break;
      case Action::Preempt: reclaim(s, true); break;
    }
  }
  write_statuses(s);
  for (const auto& [name, q] : s.queues) {
    QueueShare share{.name = name, .weight = q.info->weight, .allocated = q.allocated};
    for (const auto& [k, v] : q.deserved) share.deserved[k] = static_cast<int64_t>(v + 0.5);
    for (auto it = share.allocated.begin(); it != share.allocated.end();)
      it = it->first == "pods" ? share.allocated.erase(it) : std::next(it);
    s.out.queues.push_back(std::move(share));
  }
  return std::move(s.out);
}

}  // namespace weft::scheduler
