#include "tools/demo/report/fragment.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace weft::demo {

namespace {

weft::kube::ResourceList free_room(const NodeView& n) {
  weft::kube::ResourceList free = n.allocatable;
  weft::kube::subtract_from(free, n.requested);
  return free;
}

int64_t amount(const weft::kube::ResourceList& l, const std::string& name) {
  auto it = l.find(name);
  return it == l.end() ? 0 : it->second;
}

// leaf -> its nodes, of agent nodes carrying leaf labels, in name order.
std::map<std::pair<std::string, std::string>, std::vector<const NodeView*>> leaves_of(const ClusterView& v) {
  std::map<std::pair<std::string, std::string>, std::vector<const NodeView*>> out;
  for (const auto& [name, n] : v.nodes)
    if (!n.control_plane && !n.leaf.empty()) out[{n.fabric, n.leaf}].push_back(&n);
  return out;
}

}  // namespace

int slots_on(const NodeView& node, const PodShape& shape) {
  const auto free = free_room(node);
  int64_t slots = std::numeric_limits<int>::max();
  for (const auto& [resource, want] : shape.requests) {
    if (want <= 0) continue;
    slots = std::min(slots, std::max<int64_t>(0, amount(free, resource)) / want);
  }
  if (amount(free, "pods") < 1000) return 0;
  return static_cast<int>(std::min<int64_t>(slots, amount(free, "pods") / 1000));
}

nlohmann::json leaf_room(const ClusterView& v, const PodShape& shape) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, nodes] : leaves_of(v)) {
    nlohmann::json leaf = {{"fabric", key.first}, {"leaf", key.second}, {"nodes", nlohmann::json::array()}};
    int slots = 0;
    int64_t free_cpu = 0;
    for (const NodeView* n : nodes) {
      const int s = slots_on(*n, shape);
      const int64_t cpu = amount(free_room(*n), "cpu");
      leaf["nodes"].push_back({{"node", n->name}, {"slots", s}, {"free_cpu", cpu / 1000.0}});
      slots += s;
      free_cpu += cpu;
    }
    leaf["slots"] = slots;
    leaf["free_cpu"] = free_cpu / 1000.0;
    out.push_back(leaf);
  }
  return out;
}

nlohmann::json plan_fragmentation(const ClusterView& v, const PodShape& gang, int max_slots, const PodShape& filler,
                                  Problems& problems) {
  ClusterView after = v;
  nlohmann::json fillers = nlohmann::json::object();
  for (const auto& [key, nodes] : leaves_of(v)) {
    auto slots_of_leaf = [&] {
      int s = 0;
      for (const NodeView* n : nodes) s += slots_on(after.nodes.at(n->name), gang);
      return s;
    };
    while (slots_of_leaf() > max_slots) {
      NodeView* best = nullptr;
      for (const NodeView* n : nodes) {
        NodeView& cand = after.nodes.at(n->name);
        if (!best) { best = &cand; continue; }
        const int s = slots_on(cand, gang), bs = slots_on(*best, gang);
        const int64_t c = amount(free_room(cand), "cpu"), bc = amount(free_room(*best), "cpu");
        if (s > bs || (s == bs && c > bc)) best = &cand;
      }
      if (!weft::kube::fits(filler.requests, free_room(*best))) {
        problems.push_back(fmt::format("leaf {} of fabric {}: a filler does not fit on {}, the leaf still holds {} "
                                       "gang pods", key.second, key.first, best->name, slots_of_leaf()));
        break;
      }
      weft::kube::add_to(best->requested, filler.requests);
      fillers[best->name] = fillers.value(best->name, 0) + 1;
    }
  }
  return {{"fillers", fillers}, {"leaves", leaf_room(after, gang)}};
}

Problems check_fragmented(const ClusterView& v, const PodShape& shape, int gang_pods, nlohmann::json& seen) {
  Problems problems;
  seen = leaf_room(v, shape);
  int most = 0;
  for (const auto& leaf : seen) {
    const int slots = leaf["slots"].get<int>();
    most = std::max(most, slots);
    if (slots >= gang_pods)
      problems.push_back(fmt::format("leaf {} of fabric {} has room for {} of the gang's {} pods",
                                     leaf["leaf"].get<std::string>(), leaf["fabric"].get<std::string>(), slots,
                                     gang_pods));
  }
  if (most == 0) problems.push_back("no leaf has room for any pod of the gang: the cluster is full, not fragmented");
  return problems;
}

}  // namespace weft::demo
