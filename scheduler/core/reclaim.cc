// reclaim (across queues: from queues above their deserved share for a queue below it)
// and preempt (inside a queue: from lower-priority jobs). Victims go lowest priority
// first and never take another gang below its minMember. The freed room is held for
// the job for the rest of the cycle; it binds in a later cycle once the victims are gone.
#include <algorithm>

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

  // Evicts the fewest victims that make room for `task` on one node; -1 when impossible.
  int make_room(int task, std::vector<Evicted>& evicted, std::string& reason_out) {
    const StaticFilter& f = s_.cluster.filter_for(task);
    int best = -1;
    std::vector<int> best_victims;
    for (int n : f.feasible) {
      if (s_.cluster.fits(task, n)) {
        best = n;
        best_victims.clear();
        break;
      }
      std::vector<int> victims = victims_for(task, n);
      if (victims.empty()) continue;
      if (best < 0 || victims.size() < best_victims.size()) best = n, best_victims = std::move(victims);
    }
    if (best < 0) return -1;
    for (int v : best_victims) {
      const Job& vj = s_.jobs[s_.job_of_pod[v]];
      reason_out = within_queue_ ? "preempt: job " + vj.key + " (priority " + std::to_string(vj.priority) +
                                       ") yields to job " + job_.key + " (priority " + std::to_string(job_.priority) + ")"
                                 : "reclaim: queue " + vj.queue + " is above its deserved share; queue " + job_.queue +
                                       " reclaims it for job " + job_.key;
      s_.release(v, best);
      ++s_.jobs[s_.job_of_pod[v]].evicted_this_cycle;
      evicted.push_back({v, best});
      reasons_[v] = reason_out;
    }
    return best;
  }

  const std::string& reason(int pod) { return reasons_[pod]; }

 private:
  bool eligible(int v, std::map<std::string, kube::ResourceList>& taken, std::map<int, int>& job_taken) {
    if (s_.node_of_pod[v] < 0) return false;
    int vj_index = s_.job_of_pod[v];
    const Job& vj = s_.jobs[vj_index];
    const PodInfo& vp = s_.snap.pods[v];
    if (&vj == &job_ || protected_pod(s_, vp)) return false;
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
    if (job.group && (job.group->same_ib_cluster || job.group->topology.mode == NetworkTopology::Mode::Hard))
      continue;   // domain-bound gangs wait for room in one domain rather than evicting across several
    QueueAccount* q = s.queue_of(job);
    VictimFinder finder(s, job, within_queue);
    std::vector<Evicted> evicted;
    std::vector<std::pair<int, int>> placed;
    bool ok = true;
    for (int t : tasks) {
      if (s.config.has("proportion") && !within_deserved(*q, s.snap.pods[t].request, nullptr)) {
        ok = false;
        break;
      }
      std::string reason;
      int n = finder.make_room(t, evicted, reason);
      if (n < 0) {
        ok = false;
        break;
      }
      s.assume(t, n);
      placed.push_back({t, n});
    }
    if (!ok || evicted.empty()) {
      for (auto it = placed.rbegin(); it != placed.rend(); ++it) s.release(it->first, it->second);
      for (auto it = evicted.rbegin(); it != evicted.rend(); ++it) {
        s.assume(it->pod, it->node);
        --s.jobs[s.job_of_pod[it->pod]].evicted_this_cycle;
      }
      continue;
    }
    for (const auto& e : evicted) {
      const std::string& pod = s.snap.pods[e.pod].key;
      s.out.evictions.push_back({pod, s.snap.nodes[e.node].name, finder.reason(e.pod)});
      s.out.events.push_back({"Pod", pod, "Normal", within_queue ? "Preempted" : "Reclaimed", finder.reason(e.pod)});
      // The evicted pod is pending again (its controller recreates it); it counts as a request.
    }
    for (const auto& [t, n] : placed) {
      s.release(t, n);      // the job's own accounting stays pending ...
      s.cluster.assume(t, n);   // ... but the room stays held on the node for this cycle
    }
  }
}

}  // namespace weft::scheduler
