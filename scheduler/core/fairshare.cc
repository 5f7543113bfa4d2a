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
      double weight, lo, hi, d;
      bool saturated;
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
      hi = std::max(hi, lo);
      filling.push_back({&q, info.weight, lo, hi, lo, lo >= hi});
      remaining -= lo;
    }
    // Water-filling: share what is left by weight; a queue that reaches its cap drops out
    // and what it did not take is shared again among the rest.
    while (remaining > kEps) {
      double weights = 0;
      for (const auto& e : filling)
        if (!e.saturated) weights += e.weight;
      if (weights <= 0) break;
      double used = 0;
      bool any_saturated = false;
      for (auto& e : filling) {
        if (e.saturated) continue;
        double inc = remaining * e.weight / weights;
        if (e.d + inc >= e.hi - kEps) {
          used += e.hi - e.d;
          e.d = e.hi;
          e.saturated = any_saturated = true;
        }
      }
      if (!any_saturated) {
        for (auto& e : filling)
          if (!e.saturated) e.d += remaining * e.weight / weights;
        remaining = 0;
        break;
      }
      remaining -= used;
    }
    for (auto& e : filling) e.q->deserved[res] = e.d;
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
