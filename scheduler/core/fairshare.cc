#include "scheduler/core/fairshare.h"

#include <algorithm>
#include <set>
#include <vector>

namespace weft::scheduler {
namespace {

constexpr double kEps = 1e-6;

double get(const kube::ResourceList& l, const std::string& k) {
  auto it = l.find(k);
  return it == l.end() ? 0.0 : static_cast<double>(it->second);
}

double get(const Shares& l, const std::string& k) {
  auto it = l.find(k);
  return it == l.end() ? 0.0 : it->second;
}

}  // namespace

kube::ResourceList usable_capacity(const Snapshot& s, const ProportionArgs& args) {
  kube::ResourceList total;
  for (const auto& n : s.nodes) {
    if (!n.ready || n.unschedulable) continue;
    if (kube::first_untolerated_hard_taint(n.taints, args.tolerations)) continue;
    bool selected = true;
    for (const auto& [k, v] : args.node_selector) {
      auto it = n.labels.find(k);
      if (it == n.labels.end() || it->second != v) selected = false;
    }
    if (!selected) continue;
    for (const auto& [k, v] : n.allocatable)
      if (k != "pods") total[k] += v;
  }
  return total;
}

void compute_deserved(std::map<std::string, QueueAccount>& queues, const kube::ResourceList& total) {
  for (auto& [name, q] : queues) q.deserved.clear();
  for (const auto& [res, cap_total] : total) {
    double remaining = static_cast<double>(cap_total);
    struct Entry {
      QueueAccount* q;
      double weight, lo, hi;
    };
    std::vector<Entry> filling;
    for (auto& [name, q] : queues) {
      const QueueInfo& info = *q.info;
      double capability = info.capability.count(res) ? get(info.capability, res) : -1;
      if (info.deserved.count(res)) {   // stated share: taken as it is, within capability
        double d = get(info.deserved, res);
        if (capability >= 0) d = std::min(d, capability);
        q.deserved[res] = d;
        remaining -= d;
        continue;
      }
      double hi = get(q.request, res);
      if (capability >= 0) hi = std::min(hi, capability);
      double lo = get(info.guarantee, res);
      filling.push_back({&q, info.weight > 0 ? info.weight : 1, lo, std::max(hi, lo)});
    }
    // Water-filling: one level per unit of weight, each queue at weight x level held
    // between its guarantee (a floor, as Volcano's max(deserved, guarantee)) and its cap
    // (capability, what it asks for); what a capped queue does not take goes to the rest.
    // The level is found by bisection: the sum is monotone in it.
    auto level_sum = [&](double level) {
      double sum = 0;
      for (const auto& e : filling) sum += std::clamp(e.weight * level, e.lo, e.hi);
      return sum;
    };
    double low = 0, high = 1;
    while (level_sum(high) < remaining - kEps && high < 1e30) high *= 2;
    for (int i = 0; i < 200 && high - low > 0; ++i) {
      double mid = low + (high - low) / 2;
      if (mid <= low || mid >= high) break;
      (level_sum(mid) < remaining ? low : high) = mid;
    }
    for (auto& e : filling) e.q->deserved[res] = std::clamp(e.weight * high, e.lo, e.hi);
  }
}

bool within_deserved(const QueueAccount& q, const kube::ResourceList& extra, std::string* short_resource) {
  for (const auto& [k, v] : extra) {
    if (v <= 0 || k == "pods") continue;
    if (get(q.allocated, k) + static_cast<double>(v) > get(q.deserved, k) + kEps) {
      if (short_resource) *short_resource = k;
      return false;
    }
  }
  return true;
}

double queue_share(const QueueAccount& q) {
  double share = 0;
  for (const auto& [k, v] : q.allocated) {
    if (k == "pods" || v <= 0) continue;
    double d = get(q.deserved, k);
    share = std::max(share, d > 0 ? static_cast<double>(v) / d : 1e9);
  }
  return share;
}

bool over_deserved(const QueueAccount& q, const kube::ResourceList& victim_request) {
  for (const auto& [k, v] : victim_request) {
    if (v <= 0 || k == "pods") continue;
    if (get(q.allocated, k) > get(q.deserved, k) + kEps) return true;
  }
  return false;
}

}  // namespace weft::scheduler
