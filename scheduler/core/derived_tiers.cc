#include "scheduler/core/derived_tiers.h"

#include <charconv>
#include <map>
#include <set>
#include <tuple>

#include "scheduler/core/topology.h"

namespace weft::scheduler {

namespace {

// Topograph (NVIDIA): the variable-depth family of v1, and the fixed keys before it.
constexpr std::string_view kTopographTier = "fabric.topograph.run/tier-";
constexpr const char* kTopographDomain = "accelerator.topograph.run/domain";
constexpr const char* kTopographAccelerator = "network.topology.nvidia.com/accelerator";
constexpr const char* kTopographLeaf = "network.topology.nvidia.com/leaf";
constexpr const char* kTopographSpine = "network.topology.nvidia.com/spine";
constexpr const char* kTopographCore = "network.topology.nvidia.com/core";

NodeLevel level(int rank, std::string scope, std::string value, kube::Labels selector) {
  static const char* const names[] = {"nvlink", "leaf", "spine", "fabric"};
  NodeLevel l;
  l.rank = rank;
  l.scope = std::move(scope);
  l.value = std::move(value);
  l.tier_name = rank < 4 ? names[rank] : "tier-" + std::to_string(rank - 1);
  l.name_prefix = l.tier_name + "-";
  l.selector = std::move(selector);
  return l;
}

void add_nvlink(const NodeInfo& n, std::vector<NodeLevel>& out) {
  for (const char* key : {keys::kNvlinkDomain, kTopographDomain, kTopographAccelerator, keys::kGpuClique}) {
    if (auto v = label_or(n, key); !v.empty()) {
      out.push_back(level(0, "", v, {{key, v}}));
      return;
    }
  }
}

void add_weft(const NodeInfo& n, const std::string& fabric, std::vector<NodeLevel>& out) {
  if (auto leaf = label_or(n, keys::kLeaf); !leaf.empty())
    out.push_back(level(1, fabric, leaf, {{keys::kFabric, fabric}, {keys::kLeaf, leaf}}));
  if (auto spine = label_or(n, keys::kSpine); !spine.empty())
    out.push_back(level(2, fabric, spine, {{keys::kFabric, fabric}, {keys::kSpine, spine}}));
  out.push_back(level(3, fabric, fabric, {{keys::kFabric, fabric}}));
}

// fabric.topograph.run/tier-N (N = 0 closest to the node) as rank N + 1; the fixed keys
// of older Topograph when the family is absent.
void add_topograph(const NodeInfo& n, std::vector<NodeLevel>& out, std::vector<std::string>* problems) {
  std::map<int, std::pair<std::string, std::string>> tiers;   // N -> (key, value)
  for (const auto& [key, value] : n.labels) {
    const std::string_view k = key.view();
    if (k.substr(0, kTopographTier.size()) != kTopographTier) continue;
    const auto digits = k.substr(kTopographTier.size());
    int tier = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), tier);
    if (ec != std::errc() || end != digits.data() + digits.size() || tier < 0 || tier > 16) {
      if (problems) problems->push_back("node " + n.name + ": label " + std::string(k) + ": not tier-<0..16>; ignored");
      continue;
    }
    tiers[tier] = {key.str(), value.str()};
  }
  if (tiers.empty()) {
    const char* fixed[] = {kTopographLeaf, kTopographSpine, kTopographCore};
    for (int t = 0; t < 3; ++t)
      if (auto v = label_or(n, fixed[t]); !v.empty()) tiers[t] = {fixed[t], v};
  }
  for (const auto& [t, kv] : tiers) out.push_back(level(t + 1, "topograph", kv.second, {{kv.first, kv.second}}));
}

}  // namespace

std::string label_or(const NodeInfo& n, const char* key) {
  const std::string* v = n.labels.find(key);
  return v ? *v : "";
}

std::vector<NodeLevel> node_levels(const NodeInfo& n, std::vector<std::string>* problems) {
  std::vector<NodeLevel> out;
  add_nvlink(n, out);
  if (auto fabric = label_or(n, keys::kFabric); !fabric.empty()) add_weft(n, fabric, out);
  else add_topograph(n, out, problems);
  return out;
}

std::vector<Domain> derive_domains(const Snapshot& s, std::vector<std::string>* problems) {
  std::vector<std::vector<NodeLevel>> levels(s.nodes.size());
  bool any_nvlink = false;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    levels[i] = node_levels(s.nodes[i], problems);
    any_nvlink |= !levels[i].empty() && levels[i].front().rank == 0;
  }
  const int offset = any_nvlink ? 1 : 0;
  std::vector<Domain> out;
  std::map<std::tuple<int, std::string, std::string>, int> index;
  std::set<std::string> names;
  auto get = [&](const NodeLevel& l) {
    auto key = std::make_tuple(l.rank, l.scope, l.value);
    if (auto it = index.find(key); it != index.end()) return it->second;
    Domain d;
    d.tier = l.rank + offset;
    d.tier_name = l.tier_name;
    d.name = l.name_prefix + l.value;
    if (names.count(d.name) && !l.scope.empty()) d.name += "-" + l.scope;
    names.insert(d.name);
    HyperNodeMember m;
    m.labels = *kube::LabelSelector::from_json(nlohmann::json{{"matchLabels", l.selector}});
    d.members.push_back(std::move(m));
    out.push_back(std::move(d));
    return index[key] = static_cast<int>(out.size()) - 1;
  };
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    int below = -1;
    for (const auto& l : levels[i]) {
      const int d = get(l);
      out[d].nodes.push_back(static_cast<int>(i));
      if (below >= 0 && out[below].parent < 0) out[below].parent = d;   // the first node decides
      below = d;
    }
  }
  return out;
}

}  // namespace weft::scheduler
