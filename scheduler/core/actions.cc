// enqueue, allocate and backfill.
#include <algorithm>

#include "scheduler/core/session_state.h"

namespace weft::scheduler {
namespace {

double dominant_share(const Job& j, const kube::ResourceList& total) {
  double share = 0;
  for (const auto& [k, v] : j.allocated) {
    auto it = total.find(k);
    if (k == "pods" || v <= 0 || it == total.end() || it->second <= 0) continue;
    share = std::max(share, static_cast<double>(v) / static_cast<double>(it->second));
  }
  return share;
}

// Job order inside a queue: priority (higher first), gang (not yet ready first), drf
// (smaller dominant share first), then name.
std::vector<int> ordered_jobs(SessionState& s, const std::vector<int>& jobs) {
  struct Key {
    int priority;
    bool ready;
    double share;
    int index;
  };
  std::vector<Key> keys;
  for (int i : jobs) {
    const Job& j = s.jobs[i];
    keys.push_back({s.config.has("priority") ? j.priority : 0,
                    s.gang() && j.occupied() >= j.min_member,
                    s.config.has("drf") ? dominant_share(j, s.total) : 0.0, i});
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.ready != b.ready) return !a.ready;
    if (a.share != b.share) return a.share < b.share;
    return s.jobs[a.index].key < s.jobs[b.index].key;
  });
  std::vector<int> out;
  for (const auto& k : keys) out.push_back(k.index);
  return out;
}

std::string first_over(const kube::ResourceList& want, const kube::ResourceList& limit) {
  for (const auto& [k, v] : want) {
    if (v <= 0 || k == "pods") continue;
    auto it = limit.find(k);
    if (it == limit.end() || it->second < v) return k;
  }
  return "";
}

// Volcano's proportion rule: minResources + allocated + inqueue fit the queue's real
// capability (capability, and the total less what other queues are guaranteed).
std::string enqueue_blocker(SessionState& s, const Job& j) {
  if (!j.group || !j.group->has_min_resources) return "";
  const auto& min = j.group->min_resources;
  if (s.config.has("proportion")) {
    QueueAccount& q = *s.queue_of(j);
    kube::ResourceList real = s.total;
    for (const auto& [name, other] : s.queues)
      if (name != j.queue) kube::subtract_from(real, other.info->guarantee);
    for (const auto& [k, v] : q.info->capability)
      if (!real.count(k) || real[k] > v) real[k] = v;
    kube::ResourceList want = min;
    kube::add_to(want, q.allocated);
    kube::add_to(want, q.inqueue);
    if (auto r = first_over(want, real); !r.empty())
      return "queue '" + j.queue + "': minResources do not fit its capability (" + r + ")";
  }
  if (s.config.has("overcommit")) {
    kube::ResourceList idle;
    for (size_t n = 0; n < s.snap.nodes.size(); ++n)
      for (int d = 0; d < s.cluster.dims(); ++d) {
        if (s.cluster.dim_name(d) == "pods") continue;
        idle[s.cluster.dim_name(d)] += static_cast<int64_t>(
            static_cast<double>(s.cluster.allocatable(static_cast<int>(n), d)) * s.config.overcommit_factor) -
            (s.cluster.allocatable(static_cast<int>(n), d) - s.cluster.free(static_cast<int>(n), d));
      }
    kube::ResourceList want = min;
    for (const auto& [name, q] : s.queues) kube::add_to(want, q.inqueue);
    if (auto r = first_over(want, idle); !r.empty())
      return "overcommit: minResources do not fit the idle cluster (" + r + ")";
  }
  return "";
}

}  // namespace

void enqueue(SessionState& s) {
  std::map<std::string, std::vector<int>> by_queue;
  for (size_t i = 0; i < s.jobs.size(); ++i)
    if (!s.jobs[i].enqueued && s.jobs[i].blocked.empty()) by_queue[s.jobs[i].queue].push_back(static_cast<int>(i));
  for (auto& [queue, jobs] : by_queue) {
    for (int i : ordered_jobs(s, jobs)) {
      Job& j = s.jobs[i];
      if (auto why = enqueue_blocker(s, j); !why.empty()) {
        j.unschedulable = {"NotEnqueued", why};
        continue;
      }
      j.enqueued = true;
      if (j.phase == "Pending") j.phase = "Inqueue";
      if (j.group && j.group->has_min_resources) kube::add_to(s.queue_of(j)->inqueue, j.group->min_resources);
    }
  }
}

void allocate(SessionState& s, bool best_effort_only) {
  // Per queue, its candidate jobs in order; the queue with the smallest share goes next.
  std::map<std::string, std::vector<int>> by_queue;
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    Job& j = s.jobs[i];
    if (!j.blocked.empty() || !j.enqueued || j.pending.empty()) continue;
    if (best_effort_only == j.has_nonbest_effort_pending) continue;
    by_queue[j.queue].push_back(static_cast<int>(i));
  }
  std::map<std::string, std::pair<std::vector<int>, size_t>> queues;
  for (auto& [q, jobs] : by_queue) queues[q] = {ordered_jobs(s, jobs), 0};
  while (true) {
    std::string next;
    double best = 0;
    for (auto& [q, entry] : queues) {
      if (entry.second >= entry.first.size()) continue;
      double share = s.config.has("proportion") ? queue_share(s.queues[q]) : 0;
      if (next.empty() || share < best) next = q, best = share;
    }
    if (next.empty()) break;
    auto& entry = queues[next];
    Job& j = s.jobs[entry.first[entry.second++]];
    place_job(s, j, j.pending);
  }
}

}  // namespace weft::scheduler
