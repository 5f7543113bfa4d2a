#include "scheduler/core/actions/evict.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "scheduler/core/framework/domains.h"

namespace weft::scheduler {
namespace {

bool pod_preemptable(const Session& ssn, int pod) {
  const PodInfo& p = ssn.snap.pods[pod];
  if (p.preemptable) return *p.preemptable;
  const Job& j = ssn.jobs[ssn.job_of_pod[pod]];
  return !j.group || j.group->preemptable.value_or(true);
}

std::string reason_for(const Session& ssn, EvictKind kind, const Job& victim, const Job& job) {
  if (kind == EvictKind::Preempt)
    return "preempt: job " + victim.key + " (priority " + std::to_string(victim.priority) + ") yields to job " +
           job.key + " (priority " + std::to_string(job.priority) + ")";
  (void)ssn;
  return "reclaim: queue " + victim.queue + " is above its deserved share; queue " + job.queue +
         " reclaims it for job " + job.key;
}

}  // namespace

VictimFinder::VictimFinder(Session& ssn, const Job& job, EvictKind kind) : ssn_(ssn), job_(job), kind_(kind) {
  on_node_.resize(ssn.cluster.node_count());
  for (size_t p = 0; p < ssn.snap.pods.size(); ++p)
    if (ssn.node_of_pod[p] >= 0 && ssn.job_of_pod[p] >= 0 && !ssn.pipelined_pod[p])
      on_node_[ssn.node_of_pod[p]].push_back(static_cast<int>(p));
  // Volcano's victim order: inside one job the task order reversed; across queues the
  // victim queue order (by default the reverse of queue order: a lower-priority queue
  // gives first); else the job order reversed. As ranks, so the sort key is consistent.
  std::vector<int> queue_rank_of_job(ssn.jobs.size(), 0), job_rank(ssn.jobs.size(), 0);
  std::vector<const QueueAccount*> queues;
  for (const auto& [name, q] : ssn.queues) queues.push_back(&q);
  std::sort(queues.begin(), queues.end(), [&](const QueueAccount* a, const QueueAccount* b) {
    return ssn.victim_queue_before(*a, *b);
  });
  std::map<std::string, int> queue_rank;
  for (size_t i = 0; i < queues.size(); ++i) queue_rank[queues[i]->info->name] = static_cast<int>(i);
  std::vector<int> jobs(ssn.jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i] = static_cast<int>(i);
  std::sort(jobs.begin(), jobs.end(), [&](int a, int b) { return ssn.job_before(ssn.jobs[b], ssn.jobs[a]); });
  for (size_t i = 0; i < jobs.size(); ++i) {
    job_rank[jobs[i]] = static_cast<int>(i);
    auto q = queue_rank.find(ssn.jobs[jobs[i]].queue);
    queue_rank_of_job[jobs[i]] = q == queue_rank.end() ? static_cast<int>(queues.size()) : q->second;
  }
  for (auto& pods : on_node_)
    std::sort(pods.begin(), pods.end(), [&](int a, int b) {
      int ja = ssn.job_of_pod[a], jb = ssn.job_of_pod[b];
      if (queue_rank_of_job[ja] != queue_rank_of_job[jb]) return queue_rank_of_job[ja] < queue_rank_of_job[jb];
      if (job_rank[ja] != job_rank[jb]) return job_rank[ja] < job_rank[jb];
      return ssn.task_before(b, a);
    });
}

// Volcano's filters before the plugins vote: a running pod of another job, preemptable,
// best-effort when the preemptor is; preempt stays inside the queue, reclaim takes only
// from other queues that are reclaimable.
bool VictimFinder::action_filter(int v, int task) const {
  if (ssn_.node_of_pod[v] < 0 || ssn_.pipelined_pod[v]) return false;
  const Job& vj = ssn_.jobs[ssn_.job_of_pod[v]];
  const PodInfo& vp = ssn_.snap.pods[v];
  if (&vj == &job_ || vp.terminating || !pod_preemptable(ssn_, v)) return false;
  if (ssn_.snap.pods[task].best_effort() && !vp.best_effort()) return false;
  if (kind_ == EvictKind::Preempt) return vj.queue == job_.queue;
  if (vj.queue == job_.queue) return false;
  auto q = ssn_.queues.find(vj.queue);
  return q != ssn_.queues.end() && q->second.info->reclaimable;
}

bool VictimFinder::candidate(int pod) {
  int task = job_.pending.front();
  if (!action_filter(pod, task)) return false;
  std::vector<int> one{pod};
  return !(kind_ == EvictKind::Preempt ? ssn_.preemptable(task, one) : ssn_.reclaimable(task, one)).empty();
}

std::vector<int> VictimFinder::victims_for(int task, int n) {
  std::vector<int> cands;
  for (int v : on_node_[n])
    if (ssn_.node_of_pod[v] == n && action_filter(v, task)) cands.push_back(v);
  if (cands.empty()) return {};
  std::vector<int> allowed = kind_ == EvictKind::Preempt ? ssn_.preemptable(task, cands) : ssn_.reclaimable(task, cands);
  // Keep the node's victim order.
  std::vector<int> ordered;
  for (int v : cands)
    if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) ordered.push_back(v);
  const auto& req = ssn_.cluster.request(task);
  std::vector<int64_t> freed(ssn_.cluster.dims(), 0);
  // Preempt: the victims leave the preemptor's own queue, which may then allocate it
  // (Volcano evicts first and checks the queue after, a queue at its capability included).
  QueueAccount after;
  if (kind_ == EvictKind::Preempt) after = *ssn_.queue_of(job_);
  auto fits = [&] {
    for (int d = 0; d < ssn_.cluster.dims(); ++d)
      if (req[d] > 0 && ssn_.cluster.free(n, d) + freed[d] < req[d]) return false;
    return kind_ == EvictKind::Reclaim || ssn_.allocatable(after, task);
  };
  // Where placements constrain each other (anti-affinity, spread, ports) the victims are
  // taken off the node for the check, so only a set that frees the constraint is chosen.
  const bool dynamic = ssn_.cluster.has_dynamic_predicates();
  std::vector<int> victims;
  bool ok = false;
  for (int v : ordered) {
    victims.push_back(v);
    if (dynamic) {
      ssn_.cluster.release(v, n);
    } else {
      const auto& vr = ssn_.cluster.request(v);
      for (int d = 0; d < ssn_.cluster.dims(); ++d) freed[d] += vr[d];
    }
    if (kind_ == EvictKind::Preempt) subtract(after.allocated, ssn_.snap.pods[v].request);
    if ((ok = fits() && (!dynamic || ssn_.cluster.dynamic_reject(task, n).empty()))) break;
  }
  if (dynamic)
    for (auto it = victims.rbegin(); it != victims.rend(); ++it) ssn_.cluster.assume(*it, n);
  return ok ? victims : std::vector<int>{};
}

int VictimFinder::make_room(int task, const std::vector<int>* nodes, Statement& stmt) {
  const StaticFilter& f = ssn_.cluster.filter_for(task);
  int best = -1;
  int best_priority = 0;
  std::vector<int> best_victims;
  QueueAccount* q = ssn_.queue_of(job_);
  for (int n : nodes ? *nodes : f.feasible) {
    if (f.reject[n]) continue;
    if (ssn_.cluster.fits_now(task, n) && (kind_ == EvictKind::Reclaim || !q || ssn_.allocatable(*q, task))) {
      best = n;
      best_victims.clear();
      break;
    }
    std::vector<int> victims = victims_for(task, n);
    if (victims.empty()) continue;
    int top = ssn_.snap.pods[victims.front()].priority;
    for (int v : victims) top = std::max(top, ssn_.snap.pods[v].priority);
    if (best < 0 || top < best_priority || (top == best_priority && victims.size() < best_victims.size()))
      best = n, best_priority = top, best_victims = std::move(victims);
  }
  if (best < 0) return -1;
  for (int v : best_victims)
    stmt.evict(v, kind_ == EvictKind::Preempt ? "Preempted" : "Reclaimed",
               reason_for(ssn_, kind_, ssn_.jobs[ssn_.job_of_pod[v]], job_));
  stmt.pipeline(task, best);
  return best;
}

bool plan_in(Session& ssn, VictimFinder& finder, const std::vector<int>& tasks, const std::vector<int>* nodes,
             Statement& stmt) {
  for (int t : tasks)
    if (finder.make_room(t, nodes, stmt) < 0) {
      stmt.discard();
      return false;
    }
  (void)ssn;
  return true;
}

std::vector<int64_t> room_bound(Session& ssn, VictimFinder& finder, const std::vector<int>& tasks) {
  const int dims = ssn.cluster.dims(), nodes = ssn.cluster.node_count();
  std::vector<int64_t> min_request(dims, std::numeric_limits<int64_t>::max());
  std::vector<char> usable(nodes, 0);
  for (int t : tasks) {
    for (int d = 0; d < dims; ++d) min_request[d] = std::min(min_request[d], ssn.cluster.request(t)[d]);
    for (int n : ssn.cluster.filter_for(t).feasible) usable[n] = 1;
  }
  std::vector<int64_t> room(static_cast<size_t>(nodes) * dims);
  for (int n = 0; n < nodes; ++n)
    for (int d = 0; d < dims; ++d) room[static_cast<size_t>(n) * dims + d] = ssn.cluster.free(n, d);
  for (size_t p = 0; p < ssn.snap.pods.size(); ++p) {
    int n = ssn.node_of_pod[p];
    if (n < 0 || ssn.job_of_pod[p] < 0 || !usable[n] || !finder.candidate(static_cast<int>(p))) continue;
    for (int d = 0; d < dims; ++d) room[static_cast<size_t>(n) * dims + d] += ssn.cluster.request(static_cast<int>(p))[d];
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

namespace {

// A whole bundle: with `whole_gangs` every victim gang the plan takes below its minMember
// loses the rest of its running pods on `nodes` too (a gang short of its minimum only holds
// room); a Kubernetes PodGroup with disruptionMode all loses every pod wherever it runs.
void evict_broken_gangs(Session& ssn, Statement& stmt, EvictKind kind, const Job& job, const std::vector<int>* nodes,
                        bool whole_gangs) {
  std::map<int, int> kept;   // victim job -> running pods left after the plan
  for (int p : stmt.evicted_pods()) {
    int ji = ssn.job_of_pod[p];
    auto [it, fresh] = kept.try_emplace(ji, ssn.jobs[ji].occupied());
    --it->second;
  }
  for (auto [ji, left] : kept) {
    const Job& victim = ssn.jobs[ji];
    const bool all = victim.group && victim.group->disrupt_all;
    if (!all && (!whole_gangs || left >= victim.min_member)) continue;
    for (int p : victim.pods) {
      int n = ssn.node_of_pod[p];
      if (n < 0 || ssn.snap.pods[p].terminating || stmt.evicts(p)) continue;
      if (!all && nodes && !std::binary_search(nodes->begin(), nodes->end(), n)) continue;
      stmt.evict(p, kind == EvictKind::Preempt ? "Preempted" : "Reclaimed",
                 reason_for(ssn, kind, victim, job) + (all ? " (disruptionMode all: the whole group)" : " (whole gang: below its minMember)"));
    }
  }
}

// Plans the job's tasks; commits when the job is then pipelined and something was evicted.
void evict_for(Session& ssn, Job& job, EvictKind kind, const EvictOptions& options) {
  std::vector<int> tasks;
  for (int p : job.pending)
    if (ssn.node_of_pod[p] < 0 && !ssn.pipelined_pod[p] && !ssn.snap.pods[p].held_back()) tasks.push_back(p);
  size_t need = std::max<size_t>(1, static_cast<size_t>(ssn.need_of(job)));
  if (tasks.size() < need) return;
  tasks.resize(need);
  QueueAccount* q = ssn.queue_of(job);
  if (kind == EvictKind::Reclaim) {
    if (q && !ssn.preemptive(*q, tasks.front())) return;
  }
  VictimFinder finder(ssn, job, kind);
  std::vector<int64_t> could_hold = room_bound(ssn, finder, tasks);
  auto worth_planning = [&](const std::vector<int>* nodes) {
    int64_t sum = 0;
    if (nodes) {
      for (int n : *nodes) sum += could_hold[n];
    } else {
      for (int64_t h : could_hold) sum += h;
    }
    return sum >= static_cast<int64_t>(tasks.size());
  };
  if (!worth_planning(nullptr)) return;
  Statement stmt(ssn);
  bool ok = false;
  const std::vector<int>* planned_nodes = nullptr;
  if (!domain_bound(ssn, job)) {
    ok = plan_in(ssn, finder, tasks, nullptr, stmt);
  } else {
    // Plan every allowed domain that could hold the tasks; keep the one with the fewest
    // victims (then the lowest top victim priority, the lower tier, the name) and plan it
    // again for real.
    std::vector<DomainRef> domains = confining_domains(ssn, job);
    int planned = 0;
    const DomainRef* best = nullptr;
    std::pair<size_t, int> best_cost;   // (victims, their highest priority)
    for (const auto& d : domains) {
      if (!worth_planning(d.nodes)) continue;
      if (options.max_domains > 0 && planned++ >= options.max_domains) break;
      Statement trial(ssn);
      if (!plan_in(ssn, finder, tasks, d.nodes, trial)) continue;
      std::pair<size_t, int> cost = trial.eviction_cost();
      trial.discard();
      if (!best || std::tie(cost, d.tier, d.name) < std::tie(best_cost, best->tier, best->name))
        best = &d, best_cost = cost;
    }
    if (best) ok = plan_in(ssn, finder, tasks, best->nodes, stmt), planned_nodes = best->nodes;
  }
  if (!ok) return;
  evict_broken_gangs(ssn, stmt, kind, job, planned_nodes, options.whole_gangs);
  if (!stmt.has_evictions() || !ssn.job_pipelined(job)) {
    stmt.discard();
    return;
  }
  stmt.commit();
}

}  // namespace

void evict_for_jobs(Session& ssn, EvictKind kind, EvictOptions options) {
  std::vector<int> order;
  for (size_t i = 0; i < ssn.jobs.size(); ++i) {
    const Job& j = ssn.jobs[i];
    if (!j.blocked.empty() || !j.enqueued || j.pending.empty() || !ssn.queue_of(j)) continue;
    if (j.group && j.group->never_preempts) continue;   // preemptionPolicy: Never
    if (ssn.job_valid(j) || !ssn.job_starving(j)) continue;
    order.push_back(static_cast<int>(i));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const QueueAccount &qa = *ssn.queue_of(ssn.jobs[a]), &qb = *ssn.queue_of(ssn.jobs[b]);
    if (&qa != &qb) return ssn.queue_before(qa, qb);
    return ssn.job_before(ssn.jobs[a], ssn.jobs[b]);
  });
  for (int ji : order) {
    Job& job = ssn.jobs[ji];
    if (kind == EvictKind::Reclaim && ssn.overused(*ssn.queue_of(job))) continue;
    ssn.whole_gang_victims = options.whole_gangs;
    evict_for(ssn, job, kind, options);
    ssn.whole_gang_victims = false;
  }
}

}  // namespace weft::scheduler
