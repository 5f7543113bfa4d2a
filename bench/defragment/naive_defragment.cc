#include "bench/defragment/naive_defragment.h"

#include <algorithm>
#include <map>

#include "scheduler/core/topology.h"

namespace weft::bench {
namespace {

using kube::ResourceList;

int slots(const ResourceList& alloc, const ResourceList& used, const ResourceList& shape) {
  int n = 1 << 20;
  for (const auto& [k, v] : shape) {
    if (v <= 0 || k == "pods") continue;
    auto a = alloc.find(k);
    auto u = used.find(k);
    int64_t free = (a == alloc.end() ? 0 : a->second) - (u == used.end() ? 0 : u->second);
    n = std::min<int64_t>(n, free < 0 ? 0 : free / v);
  }
  return n;
}

}  // namespace

std::vector<NaiveChoice> naive_defragment(const descheduler::defragment::World& w) {
  const auto& s = w.snapshot();
  scheduler::Topology topo = scheduler::build_topology(s);
  std::map<std::string, int> node_of;
  for (size_t i = 0; i < s.nodes.size(); ++i) node_of[s.nodes[i].name] = static_cast<int>(i);
  std::vector<ResourceList> used(s.nodes.size());
  std::vector<std::vector<int>> pods_on(s.nodes.size());
  std::map<std::string, std::vector<int>> pending;
  for (size_t p = 0; p < s.pods.size(); ++p) {
    const auto& pod = s.pods[p];
    if (pod.bound()) {
      int n = node_of[pod.node];
      kube::add_to(used[static_cast<size_t>(n)], pod.request);
      if (pod.namespace_name != "kube-system") pods_on[static_cast<size_t>(n)].push_back(static_cast<int>(p));
    } else if (!pod.group.empty()) {
      pending[pod.group].push_back(static_cast<int>(p));
    }
  }
  std::vector<NaiveChoice> out;
  for (const auto& [key, g] : s.podgroups) {
    auto pit = pending.find(key);
    if (g.topology.mode != scheduler::NetworkTopology::Mode::Hard || pit == pending.end()) continue;
    const ResourceList& shape = s.pods[static_cast<size_t>(pit->second.front())].request;
    int need = g.min_member, priority = s.pods[static_cast<size_t>(pit->second.front())].priority;
    NaiveChoice best{key, "", -1};
    for (const auto& d : topo.domains) {
      if (d.tier > g.topology.highest_tier) continue;
      // Emptiest nodes first, then evict the lowest-priority pods until each node is
      // full of gang pods, until the gang fits.
      std::vector<std::pair<int, int>> order;
      for (int n : d.nodes) order.push_back({-slots(s.nodes[static_cast<size_t>(n)].allocatable, used[static_cast<size_t>(n)], shape), n});
      std::sort(order.begin(), order.end());
      int placed = 0, evicted = 0;
      for (const auto& [neg, n] : order) {
        if (placed >= need) break;
        ResourceList u = used[static_cast<size_t>(n)];
        std::vector<int> victims = pods_on[static_cast<size_t>(n)];
        std::sort(victims.begin(), victims.end(), [&](int a, int b) {
          return s.pods[static_cast<size_t>(a)].priority < s.pods[static_cast<size_t>(b)].priority;
        });
        const auto& alloc = s.nodes[static_cast<size_t>(n)].allocatable;
        int want = need - placed;
        for (int v : victims) {
          if (slots(alloc, u, shape) >= want) break;
          if (s.pods[static_cast<size_t>(v)].priority >= priority) continue;
          kube::subtract_from(u, s.pods[static_cast<size_t>(v)].request);
          ++evicted;
        }
        placed += std::min(want, slots(alloc, u, shape));
      }
      if (placed >= need && (best.evictions < 0 || evicted < best.evictions)) {
        best.evictions = evicted;
        best.domain = d.name;
      }
    }
    out.push_back(best);
  }
  return out;
}

}  // namespace weft::bench
