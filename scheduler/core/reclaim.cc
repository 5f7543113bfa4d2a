// reclaim (across queues: from queues above their deserved share for a queue below it)
// and preempt (inside a queue: from lower-priority jobs). Victims go lowest priority
// first and never take another gang below its minMember. The freed room is held for
// the job for the rest of the cycle; it binds in a later cycle once the victims are gone.
// A job bound to one IB cluster or a hard network tier reclaims inside one domain: each
// allowed domain is planned (tentatively) and the one needing the fewest victims wins,
// then the one whose victims have the lower priority, the lower tier, the name.
#include <algorithm>
#include <limits>
#include <tuple>

#include "scheduler/core/session_state.h"

namespace weft::scheduler {
namespace {

bool protected_pod(const SessionState& s, const PodInfo& p) {
  if (!s.config.has("conformance")) return false;
  return p.namespace_name == "kube-system" || p.priority_class == "system-cluster-critical" ||
         p.priority_class == "system-node-critical";
}

struct Evicted {
  int pod, node;
};

class VictimFinder {
 public:
  VictimFinder(SessionState& s, const Job& job, bool within_queue) : s_(s), job_(job), within_queue_(within_queue) {
    on_node_.resize(s.cluster.node_count());
    for (size_t p = 0; p < s.snap.pods.size(); ++p)
      if (s.node_of_pod[p] >= 0 && s.job_of_pod[p] >= 0) on_node_[s.node_of_pod[p]].push_back(static_cast<int>(p));
    for (auto& pods : on_node_)
      std::sort(pods.begin(), pods.end(), [&](int a, int b) {
        const auto &pa = s.snap.pods[a], &pb = s.snap.pods[b];
        int ja = s.jobs[s.job_of_pod[a]].priority, jb = s.jobs[s.job_of_pod[b]].priority;
        if (pa.priority != pb.priority) return pa.priority < pb.priority;
        if (ja != jb) return ja < jb;
        return pa.key > pb.key;
      });
  }

  // Evicts victims that make room for `task` on one node among `nodes` (nullptr: every
  // node); -1 when impossible. A node with room needs none; otherwise the node whose
  // victims have the lowest top priority wins, then the one needing the fewest.
  int make_room(int task, const std::vector<int>* nodes, std::vector<Evicted>& evicted) {
    const StaticFilter& f = s_.cluster.filter_for(task);
    int best = -1;
    int best_priority = 0;
    std::vector<int> best_victims;
    for (int n : nodes ? *nodes : f.feasible) {
      if (f.reject[n]) continue;
      if (s_.cluster.fits(task, n)) {
        best = n;
        best_victims.clear();
        break;
      }
      std::vector<int> victims = victims_for(task, n);
      if (victims.empty()) continue;
      int top = s_.snap.pods[victims.front()].priority;
      for (int v : victims) top = std::max(top, s_.snap.pods[v].priority);
      if (best < 0 || top < best_priority || (top == best_priority && victims.size() < best_victims.size()))
        best = n, best_priority = top, best_victims = std::move(victims);
    }
    if (best < 0) return -1;
    for (int v : best_victims) {
      const Job& vj = s_.jobs[s_.job_of_pod[v]];
      reasons_[v] = within_queue_ ? "preempt: job " + vj.key + " (priority " + std::to_string(vj.priority) +
                                        ") yields to job " + job_.key + " (priority " + std::to_string(job_.priority) + ")"
                                  : "reclaim: queue " + vj.queue + " is above its deserved share; queue " + job_.queue +
                                        " reclaims it for job " + job_.key;
      s_.release(v, best);
      ++s_.jobs[s_.job_of_pod[v]].evicted_this_cycle;
      evicted.push_back({v, best});
    }
    return best;
  }

  // Whether `pod` could be a victim at all (before any other is taken).
  bool candidate(int pod) {
    std::map<std::string, kube::ResourceList> taken;
    std::map<int, int> job_taken;
    return eligible(pod, taken, job_taken);
  }

  const std::string& reason(int pod) { return reasons_[pod]; }

 private:
  bool eligible(int v, std::map<std::string, kube::ResourceList>& taken, std::map<int, int>& job_taken) {
    if (s_.node_of_pod[v] < 0) return false;
    int vj_index = s_.job_of_pod[v];
    const Job& vj = s_.jobs[vj_index];
    const PodInfo& vp = s_.snap.pods[v];
    if (&vj == &job_ || vp.terminating || protected_pod(s_, vp)) return false;
    if (s_.gang() && vj.min_member > 1 && vj.occupied() - job_taken[vj_index] - 1 < vj.min_member) return false;
    if (within_queue_) {
      if (vj.queue != job_.queue) return false;
      if (!s_.config.has("priority") || vj.priority >= job_.priority) return false;
      return true;
    }
    if (vj.queue == job_.queue) return false;
    QueueAccount* q = s_.queue_of(vj);
    if (!q || !q->info->reclaimable) return false;
    QueueAccount after = *q;
    kube::subtract_from(after.allocated, taken[vj.queue]);
    return over_deserved(after, vp.request);
  }

  std::vector<int> victims_for(int task, int n) {
    std::vector<int64_t> freed(s_.cluster.dims(), 0);
    const auto& req = s_.cluster.request(task);
    std::map<std::string, kube::ResourceList> taken;
    std::map<int, int> job_taken;
    std::vector<int> victims;
    auto fits = [&] {
      for (int d = 0; d < s_.cluster.dims(); ++d)
        if (req[d] > 0 && s_.cluster.free(n, d) + freed[d] < req[d]) return false;
      return true;
    };
    for (int v : on_node_[n]) {
      if (!eligible(v, taken, job_taken)) continue;
      victims.push_back(v);
      const auto& vr = s_.cluster.request(v);
      for (int d = 0; d < s_.cluster.dims(); ++d) freed[d] += vr[d];
      kube::add_to(taken[s_.jobs[s_.job_of_pod[v]].queue], s_.snap.pods[v].request);
      ++job_taken[s_.job_of_pod[v]];
      if (fits()) return victims;
    }
    return {};
  }

  SessionState& s_;
  const Job& job_;
  bool within_queue_;
  std::vector<std::vector<int>> on_node_;
  std::map<int, std::string> reasons_;
};

// One tentative plan: the victims evicted and the job's pods placed into their room.
struct Plan {
  bool ok = false;
  std::vector<Evicted> evicted;
  std::vector<std::pair<int, int>> placed;   // (pod, node)
};

Plan plan_in(SessionState& s, VictimFinder& finder, const std::vector<int>& tasks, const std::vector<int>* nodes,
             QueueAccount* q) {
  Plan p;
  p.ok = true;
  for (int t : tasks) {
    if (q && s.config.has("proportion") && !within_deserved(*q, s.snap.pods[t].request, nullptr)) {
      p.ok = false;
      break;
    }
    int n = finder.make_room(t, nodes, p.evicted);
    if (n < 0) {
      p.ok = false;
      break;
    }
    s.assume(t, n);
    p.placed.push_back({t, n});
  }
  return p;
}

void undo(SessionState& s, const Plan& p) {
  for (auto it = p.placed.rbegin(); it != p.placed.rend(); ++it) s.release(it->first, it->second);
  for (auto it = p.evicted.rbegin(); it != p.evicted.rend(); ++it) {
    s.assume(it->pod, it->node);
    --s.jobs[s.job_of_pod[it->pod]].evicted_this_cycle;
  }
}

// Reclaim takes only from queues above their deserved share: none, nothing to plan.
bool other_queue_over_share(SessionState& s, const Job& job) {
  for (const auto& [name, q] : s.queues)
    if (name != job.queue && q.info->reclaimable && over_deserved(q, q.allocated)) return true;
  return false;
}

// Per node, an upper bound on how many of `tasks` it could hold if every pod `finder` might
// take were gone (smallest request per resource; nodes every task's filters reject hold
// none). Domains whose bound is below the gang are not planned: a cheap cut before the
// victim search.
std::vector<int64_t> room_bound(SessionState& s, VictimFinder& finder, const std::vector<int>& tasks) {
  const int dims = s.cluster.dims(), nodes = s.cluster.node_count();
  std::vector<int64_t> min_request(dims, std::numeric_limits<int64_t>::max());
  std::vector<char> usable(nodes, 0);
  for (int t : tasks) {
    for (int d = 0; d < dims; ++d) min_request[d] = std::min(min_request[d], s.cluster.request(t)[d]);
    for (int n : s.cluster.filter_for(t).feasible) usable[n] = 1;
  }
  std::vector<int64_t> room(static_cast<size_t>(nodes) * dims);
  for (int n = 0; n < nodes; ++n)
    for (int d = 0; d < dims; ++d) room[static_cast<size_t>(n) * dims + d] = s.cluster.free(n, d);
  for (size_t p = 0; p < s.snap.pods.size(); ++p) {
    int n = s.node_of_pod[p];
    if (n < 0 || s.job_of_pod[p] < 0 || !usable[n] || !finder.candidate(static_cast<int>(p))) continue;
    for (int d = 0; d < dims; ++d) room[static_cast<size_t>(n) * dims + d] += s.cluster.request(static_cast<int>(p))[d];
  }
  std::vector<int64_t> bound(nodes, 0);
  for (int n = 0; n < nodes; ++n) {
    if (!usable[n]) continue;
    int64_t b = std::numeric_limits<int64_t>::max();
    for (int d = 0; d < dims; ++d)
      if (min_request[d] > 0) b = std::min(b, std::max<int64_t>(0, room[static_cast<size_t>(n) * dims + d]) / min_request[d]);
    bound[n] = std::min<int64_t>(b, static_cast<int64_t>(tasks.size()));
  }
  return bound;
}

}  // namespace

void reclaim(SessionState& s, bool within_queue) {
  if (!within_queue && !s.config.has("proportion")) return;
  std::vector<int> order;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const Job& j = s.jobs[i];
    if (j.blocked.empty() && j.enqueued && j.has_nonbest_effort_pending && !j.pending.empty())
      order.push_back(static_cast<int>(i));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Job &ja = s.jobs[a], &jb = s.jobs[b];
    double sa = queue_share(*s.queue_of(ja)), sb = queue_share(*s.queue_of(jb));
    if (sa != sb) return sa < sb;
    if (ja.priority != jb.priority) return ja.priority > jb.priority;
    return ja.key < jb.key;
  });
  for (int ji : order) {
    Job& job = s.jobs[ji];
    std::vector<int> tasks;
    for (int p : job.pending)
      if (s.node_of_pod[p] < 0) tasks.push_back(p);
    size_t need = std::max<size_t>(1, static_cast<size_t>(s.need_of(job)));
    if (tasks.size() < need) continue;
    tasks.resize(need);
    QueueAccount* q = s.queue_of(job);
    if (q && s.config.has("proportion") && !within_deserved(*q, s.snap.pods[tasks.front()].request, nullptr)) continue;
    if (!within_queue && !other_queue_over_share(s, job)) continue;
    VictimFinder finder(s, job, within_queue);
    std::vector<int64_t> could_hold = room_bound(s, finder, tasks);
    auto worth_planning = [&](const std::vector<int>* nodes) {
      int64_t sum = 0;
      if (nodes) {
        for (int n : *nodes) sum += could_hold[n];
      } else {
        for (int64_t h : could_hold) sum += h;
      }
      return sum >= static_cast<int64_t>(tasks.size());
    };
    if (!worth_planning(nullptr)) continue;
    Plan chosen;
    if (!domain_bound(job)) {
      chosen = plan_in(s, finder, tasks, nullptr, q);
    } else {
      // Plan every allowed domain that could hold the gang; keep the one with the
      // fewest victims (then the lowest top victim priority, the lower tier, the name)
      // and plan it again for real.
      const DomainRef* best = nullptr;
      std::pair<size_t, int> best_cost;   // (victims, their highest priority)
      std::vector<DomainRef> domains = confining_domains(s, job);
      for (const auto& d : domains) {
        if (!worth_planning(d.nodes)) continue;
        Plan p = plan_in(s, finder, tasks, d.nodes, q);
        undo(s, p);
        if (!p.ok) continue;
        std::pair<size_t, int> cost{p.evicted.size(), 0};
        for (const auto& e : p.evicted) cost.second = std::max(cost.second, s.snap.pods[e.pod].priority);
        if (!best || std::tie(cost, d.tier, d.name) < std::tie(best_cost, best->tier, best->name))
          best = &d, best_cost = cost;
      }
      if (best) chosen = plan_in(s, finder, tasks, best->nodes, q);
    }
    if (!chosen.ok || chosen.evicted.empty()) {
      undo(s, chosen);
      continue;
    }
    for (const auto& e : chosen.evicted) {
      const std::string& pod = s.snap.pods[e.pod].key;
      s.out.evictions.push_back({pod, s.snap.nodes[e.node].name, finder.reason(e.pod)});
      s.out.events.push_back({"Pod", pod, "Normal", within_queue ? "Preempted" : "Reclaimed", finder.reason(e.pod)});
      // The evicted pod is pending again (its controller recreates it); it counts as a request.
    }
    for (const auto& [t, n] : chosen.placed) {
      s.release(t, n);      // the job's own accounting stays pending ...
      s.cluster.assume(t, n);   // ... but the room stays held on the node for this cycle
    }
  }
}

}  // namespace weft::scheduler
