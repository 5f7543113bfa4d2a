#include "scheduler/global/core/shares.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace weft::scheduler::global {
namespace {

double get(const kube::ResourceList& l, const std::string& k) {
  auto it = l.find(k);
  return it == l.end() ? 0 : static_cast<double>(it->second);
}

double limit_of(const QueueDemand& q, const std::string& r) {
  double limit = get(q.request, r);
  if (q.info && q.info->capability.count(r)) limit = std::min(limit, get(q.info->capability, r));
  return limit;
}

}  // namespace

std::map<std::string, kube::ResourceList> deserved_shares(const std::map<std::string, QueueDemand>& queues,
                                                          const kube::ResourceList& total) {
  std::map<std::string, kube::ResourceList> out;
  for (const auto& [name, q] : queues) out[name];
  for (const auto& [r, amount] : total) {
    if (r == "pods") continue;
    std::map<std::string, double> d;
    std::set<std::string> fixed;   // spec.deserved states the share outright
    double given = 0;
    for (const auto& [name, q] : queues) {
      double g = q.info ? std::min(get(q.info->guarantee, r), limit_of(q, r)) : 0;
      if (q.info && q.info->deserved.count(r)) {
        g = get(q.info->deserved, r);
        if (q.info->capability.count(r)) g = std::min(g, get(q.info->capability, r));
        fixed.insert(name);
      }
      d[name] = g;
      given += g;
    }
    double remaining = static_cast<double>(amount) - given;
    // Rounds of weighted filling; a queue that reaches its limit hands its excess back.
    for (int round = 0; round < 64 && remaining > 0.5; ++round) {
      double weights = 0;
      for (const auto& [name, q] : queues)
        if (!fixed.count(name) && d[name] < limit_of(q, r)) weights += q.info ? q.info->weight : 1;
      if (weights <= 0) break;
      double handed = 0;
      for (const auto& [name, q] : queues) {
        double limit = limit_of(q, r);
        if (fixed.count(name) || d[name] >= limit) continue;
        double add = std::min(remaining * (q.info ? q.info->weight : 1) / weights, limit - d[name]);
        d[name] += add;
        handed += add;
      }
      remaining -= handed;
    }
    for (const auto& [name, v] : d)
      if (v > 0) out[name][r] = static_cast<int64_t>(std::floor(v));
  }
  return out;
}

double share_of(const kube::ResourceList& allocated, const kube::ResourceList& deserved, const kube::ResourceList& of) {
  double share = 0;
  for (const auto& [r, v] : of) {
    if (r == "pods" || v <= 0) continue;
    double a = get(allocated, r), d = get(deserved, r);
    if (d <= 0) {
      if (a > 0) return std::numeric_limits<double>::infinity();
      continue;
    }
    share = std::max(share, a / d);
  }
  return share;
}

}  // namespace weft::scheduler::global
