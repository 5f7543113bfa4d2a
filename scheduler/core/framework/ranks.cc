#include "scheduler/core/framework/ranks.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace weft::scheduler {
namespace {

std::optional<long long> number(const std::string* text) {
  if (!text || text->empty()) return std::nullopt;
  long long v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < 0) return std::nullopt;
  return v;
}

// The lowest-tier domain a node is in, -1 when none.
int leaf_of(const Topology& topo, int node) {
  if (node < 0 || node >= static_cast<int>(topo.node_domains.size()) || topo.node_domains[node].empty()) return -1;
  return topo.node_domains[node].front();
}

}  // namespace

std::optional<Rank> rank_of(const PodInfo& pod, const PodGroupInfo* group) {
  if (group && !group->pod_index_label.empty()) {
    auto v = number(pod.labels.find(group->pod_index_label));
    if (!v) return std::nullopt;
    return Rank{0, *v};
  }
  for (const char* key : {"batch.kubernetes.io/job-completion-index", "volcano.sh/task-index"})
    if (auto v = number(pod.labels.find(key))) {
      long long outer = number(pod.labels.find("jobset.sigs.k8s.io/job-index")).value_or(0);
      return Rank{outer, *v};
    }
  return std::nullopt;
}

bool ranked(const Session& ssn, const Job& job) {
  if (job.pending.size() < 2) return false;
  return std::all_of(job.pending.begin(), job.pending.end(),
                     [&](int p) { return rank_of(ssn.snap.pods[p], job.group).has_value(); });
}

std::vector<int> rank_node_order(Session& ssn, int pod, const std::vector<int>* within) {
  const Topology& topo = ssn.topo();
  std::vector<int> nodes;
  if (within) {
    nodes = *within;
  } else {
    nodes.resize(ssn.cluster.node_count());
    std::iota(nodes.begin(), nodes.end(), 0);
  }
  const StaticFilter& f = ssn.cluster.filter_for(pod);
  std::vector<int64_t> room(topo.domains.size(), 0);
  for (int n : nodes) {
    if (f.reject[n]) continue;
    int64_t s = ssn.cluster.slots(pod, n);
    for (int d : topo.node_domains[n]) room[d] += s;
  }
  // Per node: (-room, domain) from the top tier down, then the node itself.
  std::vector<std::vector<int64_t>> key(ssn.cluster.node_count());
  for (int n : nodes) {
    std::vector<int64_t> k(2 * (topo.max_tier + 1) + 1, 0);
    for (int d : topo.node_domains[n]) {
      const size_t at = 2 * static_cast<size_t>(topo.max_tier - topo.domains[d].tier);
      k[at] = -room[d];
      k[at + 1] = d;
    }
    k.back() = -ssn.cluster.slots(pod, n);
    key[n] = std::move(k);
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return key[a] < key[b]; });
  return nodes;
}

int rank_pairs_crossing(const Topology& topo, const std::vector<std::pair<Rank, int>>& rank_and_node) {
  auto sorted = rank_and_node;
  std::sort(sorted.begin(), sorted.end());
  int crossing = 0;
  for (size_t i = 1; i < sorted.size(); ++i)
    if (leaf_of(topo, sorted[i - 1].second) != leaf_of(topo, sorted[i].second)) ++crossing;
  return crossing;
}

}  // namespace weft::scheduler
