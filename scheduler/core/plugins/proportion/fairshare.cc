#include "scheduler/core/plugins/proportion/fairshare.h"

#include <algorithm>
#include <vector>

namespace weft::scheduler {

void compute_deserved(std::map<std::string, QueueAccount>& queues, const Quantities& total) {
  for (auto& [name, q] : queues) q.deserved.clear();
  for (const auto& [res, cap_total] : total) {
    if (res == "pods") continue;
    double remaining = cap_total;
    struct Entry {
      QueueAccount* q;
      double weight, lo, hi;
    };
    std::vector<Entry> filling;
    for (auto& [name, q] : queues) {
      const QueueInfo& info = *q.info;
      bool capped = info.capability.count(res) > 0;
      double capability = capped ? static_cast<double>(info.capability.at(res)) : 0;
      if (info.deserved.count(res)) {   // stated share: taken as it is, within capability
        double d = static_cast<double>(info.deserved.at(res));
        if (capped) d = std::min(d, capability);
        q.deserved[res] = d;
        remaining -= d;
        continue;
      }
      double hi = get(q.request, res);
      if (capped) hi = std::min(hi, capability);
      double lo = info.guarantee.count(res) ? static_cast<double>(info.guarantee.at(res)) : 0;
      filling.push_back({&q, info.weight > 0 ? info.weight : 1, lo, std::max(hi, lo)});
    }
    // One level per unit of weight; each queue at weight x level held between its
    // guarantee (a floor, as Volcano's max(deserved, guarantee)) and its cap; what a
    // capped queue does not take goes to the rest. The level is found by bisection (the
    // sum is monotone in it), relative to the total so huge clusters converge alike.
    auto level_sum = [&](double level) {
      double sum = 0;
      for (const auto& e : filling) sum += std::clamp(e.weight * level, e.lo, e.hi);
      return sum;
    };
    double low = 0, high = 1;
    while (level_sum(high) < remaining && high < 1e300) {
      if (level_sum(high * 2) == level_sum(high) && high > remaining) break;   // every queue capped
      high *= 2;
    }
    for (int i = 0; i < 200 && high - low > 0; ++i) {
      double mid = low + (high - low) / 2;
      if (mid <= low || mid >= high) break;
      (level_sum(mid) < remaining ? low : high) = mid;
    }
    for (auto& e : filling) e.q->deserved[res] = std::clamp(e.weight * high, e.lo, e.hi);
  }
}

double queue_share(const QueueAccount& q) {
  double share = 0;
  for (const auto& [k, v] : q.allocated) {
    if (k == "pods" || v <= 0) continue;
    double d = get(q.deserved, k);
    share = std::max(share, d > 0 ? v / d : 1e9);
  }
  return share;
}

int compare_queues(const QueueAccount& a, const QueueAccount& b) {
  if (a.info->priority != b.info->priority) return a.info->priority > b.info->priority ? -1 : 1;
  const double sa = queue_share(a), sb = queue_share(b);
  return sa == sb ? 0 : (sa < sb ? -1 : 1);
}

std::vector<int> reclaim_victims(Session& ssn, const std::vector<int>& candidates, const TakeVictim& take) {
  std::map<std::string, Quantities> left;
  std::vector<int> out;
  for (int v : candidates) {
    const Job& vj = ssn.jobs[ssn.job_of_pod[v]];
    const QueueAccount* q = ssn.queue_of(vj);
    if (!q) continue;
    auto it = left.try_emplace(vj.queue, q->allocated).first;
    if (take(it->second, *q, v)) out.push_back(v);
  }
  return out;
}

}  // namespace weft::scheduler
