#include "descheduler/core/plugins/RemoveDuplicates/remove_duplicates.h"

#include <deque>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "descheduler/core/plugins/common/placement.h"

namespace weft::descheduler::plugins::remove_duplicates {
namespace {

// One owner of a pod with the pod's sorted images: the unit spread across nodes. Views of
// the cluster's texts (Found::joined holds the images of pods with several), so counting
// 100,000 pods builds no strings.
struct OwnerKey {
  std::string_view ns, kind, name, images;
  auto operator<=>(const OwnerKey&) const = default;
};

struct OwnerKeyHash {
  size_t operator()(const OwnerKey& k) const noexcept {
    size_t h = 0;
    for (std::string_view part : {k.ns, k.kind, k.name, k.images})
      h = h * 1000003u ^ std::hash<std::string_view>()(part);
    return h;
  }
};

// One (namespace, owner kind, owner name, image) of a pod, as views of the cluster's texts.
using ContainerKey = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;

// Every (owner, image) of the pod, sorted: two pods are duplicates when these are equal.
// Upstream compares "ns/kind/name/image" strings; the parts name no '/' but the image
// (the last), so comparing the parts is the same test without building a string per pod.
std::vector<ContainerKey> container_keys(const PodInfo& pod) {
  std::vector<ContainerKey> out;
  out.reserve(pod.detail.owners.size() * pod.detail.images.size());
  for (const auto& o : pod.detail.owners)
    for (const auto& i : pod.detail.images) out.emplace_back(pod.ns.view(), o.kind.view(), o.name.view(), i.view());
  std::sort(out.begin(), out.end());
  return out;
}

struct Found {
  std::unordered_map<OwnerKey, int, OwnerKeyHash> occurrences;      // candidate pods per owner, all nodes
  std::map<OwnerKey, std::map<int, std::vector<int>>> duplicates;   // owner -> node -> surplus pods in order
  std::deque<std::string> joined;                                   // images of pods with several, '#'-joined

  // The pod's images as one text: the image itself, or several joined.
  std::string_view images_of(const PodInfo& pod) {
    const auto& images = pod.detail.images;
    if (images.empty()) return {};
    if (images.size() == 1) return images.front().view();
    std::string out;
    for (const auto& i : images) out += (out.empty() ? "" : "#") + std::string(i.view());
    return joined.emplace_back(std::move(out));
  }
};

// Nodes some duplicate could land on: those matching its selector, affinity and hard
// taints, counted only when more than one node matches it (upstream's getTargetNodes).
size_t feasible_nodes(const Cluster& cluster, const std::map<int, std::vector<int>>& by_node, const std::vector<int>& nodes) {
  std::set<int> targets;
  for (const auto& [_, pods] : by_node)
    for (int p : pods) {
      std::vector<int> matching;
      for (int n : nodes)
        if (node_matches_pod(cluster.pods[static_cast<size_t>(p)], cluster.nodes[static_cast<size_t>(n)]))
          matching.push_back(n);
      if (matching.size() > 1) targets.insert(matching.begin(), matching.end());
      if (targets.size() == nodes.size()) return targets.size();
    }
  return targets.size();
}

}  // namespace

Result<Args> parse_args(const args::Ctx& c, const nlohmann::json& a, const std::string& path) {
  Args out;
  args::Problems problems;
  if (!args::check_fields(problems, c, a, path, {"namespaces", "excludeOwnerKinds"})) return problems.error();
  if (auto ns = problems.take(args::get_namespaces(c, args::field(a, "namespaces"), args::join(path, "namespaces"))))
    out.namespaces = std::move(*ns);
  problems.add(args::read(c, a, path, "excludeOwnerKinds", out.exclude_owner_kinds));
  if (!problems.empty()) return problems.error();
  return out;
}

namespace {

// Counts the pods `listed` takes, node by node, as upstream's listing: the first pod of each
// key list on a node stays, the others are its duplicates. With `tally`, also every owner's
// pods (Found::occurrences); without, only whether there are duplicates is of use.
Found count(const Cluster& cluster, const std::vector<int>& nodes, const std::function<bool(int)>& listed, bool tally) {
  Found found;
  for (int node : nodes) {
    std::set<std::vector<ContainerKey>> seen_here;
    for (int p : cluster.nodes[static_cast<size_t>(node)].pods) {
      if (!listed(p)) continue;
      const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
      const std::string_view images = found.images_of(pod);
      if (tally)
        for (const auto& o : pod.detail.owners) found.occurrences[{pod.ns.view(), o.kind.view(), o.name.view(), images}]++;
      if (seen_here.insert(container_keys(pod)).second) continue;
      for (const auto& o : pod.detail.owners)
        found.duplicates[{pod.ns.view(), o.kind.view(), o.name.view(), images}][node].push_back(p);
    }
  }
  return found;
}

using OwnerName = std::tuple<std::string_view, std::string_view, std::string_view>;   // namespace, kind, name

bool has_owner_in(const PodInfo& pod, const std::set<OwnerName>& owners) {
  return std::any_of(pod.detail.owners.begin(), pod.detail.owners.end(),
                     [&](const OwnerRef& o) { return owners.count({pod.ns.view(), o.kind.view(), o.name.view()}) > 0; });
}

}  // namespace

Status Plugin::balance(const std::vector<int>& nodes, framework::Handle& handle) {
  const Cluster& cluster = handle.cluster();
  framework::Evictor& evictor = handle.evictor();
  auto eligible = [&](int p) {
    const PodInfo& pod = cluster.pods[static_cast<size_t>(p)];
    return !pod.detail.owners.empty() && args_.namespaces.allows(pod.ns) &&
           !owned_by_any(pod, args_.exclude_owner_kinds) && evictor.filter(p).empty();
  };
  // Upstream lists through the evictor's PreEvictionFilter too (nodeFit, before any
  // eviction): a pod it refuses is not counted. Asked only of the pods of owners that have
  // duplicates without it, as only those owners can have any with it.
  Found found = count(cluster, nodes, eligible, false);
  if (found.duplicates.empty()) return {};
  std::set<OwnerName> owners;   // those with duplicates
  for (const auto& [owner, _] : found.duplicates) owners.insert({owner.ns, owner.kind, owner.name});
  found = count(cluster, nodes, [&](int p) {
    return eligible(p) && has_owner_in(cluster.pods[static_cast<size_t>(p)], owners) && evictor.listing_filter(p).empty();
  }, true);
  for (const auto& [owner, by_node] : found.duplicates) {
    size_t targets = feasible_nodes(cluster, by_node, nodes);
    if (targets < 2) {
      handle.note(std::string(kName) + ": fewer than two feasible nodes for " + std::string(owner.kind) + " " +
                  std::string(owner.ns) + "/" + std::string(owner.name) + "; its duplicates stay");
      continue;
    }
    int total = found.occurrences[owner];
    size_t upper_avg = static_cast<size_t>((total + static_cast<int>(targets) - 1) / static_cast<int>(targets));
    for (const auto& [node, pods] : by_node) {
      // pods holds the duplicates beside the one that stays: the node has pods.size() + 1.
      if (pods.size() + 1 <= upper_avg) continue;
      for (size_t i = upper_avg - 1; i < pods.size(); ++i) {
        if (evictor.total_limit_reached()) return {};
        if (evictor.node_limit_reached(node)) break;
        evictor.evict({pods[i], -1,
                       "duplicate of " + std::string(owner.kind) + " " + std::string(owner.ns) + "/" +
                           std::string(owner.name) + " on its node",
                       kName});
      }
    }
  }
  return {};
}

}  // namespace weft::descheduler::plugins::remove_duplicates
