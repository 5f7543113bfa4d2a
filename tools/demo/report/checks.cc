#include "tools/demo/report/checks.h"

#include <set>

#include <fmt/format.h>

namespace weft::demo {

namespace {

bool agent_node(const NodeView& n) { return !n.control_plane; }

int running_count(const ClusterView& v, const JobView& job) {
  int n = 0;
  for (size_t i : job.pods)
    if (!v.pods[i].node.empty() && v.pods[i].phase == "Running") ++n;
  return n;
}

std::string domain_of(const NodeView& n, int tier) {
  return tier <= 1 ? n.leaf : tier == 2 ? n.spine : n.fabric;
}
const char* tier_name(int tier) { return tier <= 1 ? "leaf" : tier == 2 ? "spine" : "fabric"; }

}  // namespace

Problems check_labels(const ClusterView& v, int fabrics, nlohmann::json& seen) {
  Problems problems;
  seen = nlohmann::json::object();
  for (const auto& [name, n] : v.nodes) {
    if (!agent_node(n)) continue;
    if (n.fabric.empty() || n.fabric == "unknown" || n.leaf.empty() || n.spine.empty()) {
      problems.push_back(fmt::format("node {}: labels fabric='{}' leaf='{}' spine='{}'", name, n.fabric, n.leaf,
                                     n.spine));
      continue;
    }
    seen[n.fabric]["leaves"][n.leaf].push_back(name);
    seen[n.fabric]["spines"][n.spine].push_back(name);
  }
  if (problems.empty() && static_cast<int>(seen.size()) != fabrics)
    problems.push_back(fmt::format("{} distinct weft.dev/ib-fabric values, expected {}", seen.size(), fabrics));
  return problems;
}

Problems check_placement(const ClusterView& v, nlohmann::json& seen) {
  Problems problems;
  seen = nlohmann::json::object();
  for (const auto& [name, job] : v.jobs) {
    nlohmann::json j = {{"kind", job.kind}, {"minMember", job.min_member}, {"pods", nlohmann::json::array()}};
    std::set<std::string> fabrics, leaves, spines, domains;
    for (size_t i : job.pods) {
      const PodView& p = v.pods[i];
      const NodeView* n = v.node(p.node);
      j["pods"].push_back({{"pod", p.key},
                           {"node", p.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.node)},
                           {"phase", p.phase},
                           {"fabric", n ? n->fabric : ""},
                           {"leaf", n ? n->leaf : ""},
                           {"spine", n ? n->spine : ""}});
      if (p.node.empty()) {
        problems.push_back(fmt::format("job {}: pod {} is not bound", name, p.key));
        continue;
      }
      if (p.phase != "Running")
        problems.push_back(fmt::format("job {}: pod {} on {} is {}", name, p.key, p.node,
                                       p.phase.empty() ? "without a phase" : p.phase));
      if (!n) {
        problems.push_back(fmt::format("job {}: pod {} is bound to unknown node {}", name, p.key, p.node));
        continue;
      }
      fabrics.insert(n->fabric);
      leaves.insert(n->leaf);
      spines.insert(n->spine);
      if (job.hard_tier) domains.insert(domain_of(*n, job.hard_tier));
    }
    j["fabrics"] = fabrics;
    j["leaves"] = leaves;
    j["spines"] = spines;
    j["running"] = running_count(v, job);
    if (job.min_member > 0 && running_count(v, job) < job.min_member)
      problems.push_back(fmt::format("job {}: {} pods running, below minMember {}", name, running_count(v, job),
                                     job.min_member));
    if (job.same_cluster && fabrics.size() > 1)
      problems.push_back(fmt::format("job {}: ib-cluster same, but its pods span {} fabrics", name, fabrics.size()));
    if (job.hard_tier && domains.size() > 1)
      problems.push_back(fmt::format("job {}: hard tier {}, but its pods span {} {}s", name, job.hard_tier,
                                     domains.size(), tier_name(job.hard_tier)));
    seen[name] = std::move(j);
  }
  return problems;
}

Problems check_gangs_whole(const ClusterView& v) {
  Problems problems;
  for (const auto& [name, job] : v.jobs) {
    if (job.min_member <= 0) continue;
    int bound = 0;
    for (size_t i : job.pods)
      if (!v.pods[i].node.empty()) ++bound;
    if (bound < job.min_member)
      problems.push_back(fmt::format("gang {}: {} pods bound, below minMember {}", name, bound, job.min_member));
  }
  return problems;
}

Problems compare_labels(const ClusterView& before, const ClusterView& after) {
  Problems problems;
  for (const auto& [name, b] : before.nodes) {
    if (!agent_node(b)) continue;
    const NodeView* a = after.node(name);
    if (!a) {
      problems.push_back("node " + name + " disappeared");
      continue;
    }
    if (a->fabric != b.fabric || a->leaf != b.leaf || a->spine != b.spine)
      problems.push_back(fmt::format("node {}: fabric/leaf/spine {}/{}/{} became {}/{}/{}", name, b.fabric, b.leaf,
                                     b.spine, a->fabric, a->leaf, a->spine));
  }
  return problems;
}

namespace {

constexpr const char* kPlain = "plain pod (movable)";
constexpr const char* kGangAtMin = "gang at minMember (must stay)";
constexpr const char* kFabricBound = "fabric-bound gang above minMember";

nlohmann::json hot_entry(const std::string& node, const std::set<std::string>& holds,
                         const std::vector<std::string>& pods, const ClusterView& v) {
  nlohmann::json e = {{"node", node}, {"holds", holds}, {"pods", pods}};
  if (const NodeView* n = v.node(node)) e["fabric"] = n->fabric;
  return e;
}

}  // namespace

std::string pick_hot_node(const ClusterView& v, nlohmann::json& why) {
  std::map<std::string, std::set<std::string>> kinds;   // node -> what it holds
  std::map<std::string, std::vector<std::string>> pods_on;
  for (const auto& [name, job] : v.jobs) {
    const int running = running_count(v, job);
    for (size_t i : job.pods) {
      const PodView& p = v.pods[i];
      if (p.node.empty()) continue;
      pods_on[p.node].push_back(p.key);
      if (job.min_member == 0) {
        kinds[p.node].insert(kPlain);
      } else if (running <= job.min_member) {
        kinds[p.node].insert(kGangAtMin);
      } else if (job.same_cluster || job.hard_tier) {
        kinds[p.node].insert(kFabricBound);
      }
    }
  }
  // The first hot node must hold a plain pod (something the rebalancer may move); the
  // others are added until the set shows every kind of pod it must keep. std::map
  // order breaks ties by name, so the choice is deterministic.
  auto score = [&](const std::set<std::string>& k, const std::set<std::string>& wanted) {
    int s = 0;
    for (const auto& w : wanted) s += static_cast<int>(k.count(w));
    return s;
  };
  std::string best;
  int best_score = -1;
  for (const auto& [node, k] : kinds) {
    if (!k.count(kPlain)) continue;
    int s = score(k, {kGangAtMin, kFabricBound});
    if (s > best_score) best = node, best_score = s;
  }
  why = {{"node", best}, {"nodes", nlohmann::json::array()}};
  if (best.empty()) return best;
  why["nodes"].push_back(hot_entry(best, kinds[best], pods_on[best], v));
  std::set<std::string> missing;
  for (const char* k : {kGangAtMin, kFabricBound})
    if (!kinds[best].count(k)) missing.insert(k);
  while (!missing.empty()) {
    std::string extra;
    int extra_score = 0;
    for (const auto& [node, k] : kinds) {
      if (node == best || score(k, missing) == 0) continue;
      int s = 2 * score(k, missing) + static_cast<int>(k.count(kPlain));
      if (s > extra_score) extra = node, extra_score = s;
    }
    if (extra.empty()) break;
    for (const auto& k : kinds[extra]) missing.erase(k);
    why["nodes"].push_back(hot_entry(extra, kinds[extra], pods_on[extra], v));
  }
  // At least two movable pods, so where the re-created pods go can show whether the
  // scheduler spreads them or piles them onto one node.
  auto plain_on = [&](const std::string& node) {
    int n = 0;
    for (const auto& key : pods_on[node])
      for (const auto& p : v.pods)
        if (p.key == key && v.jobs.at(p.job).min_member == 0) ++n;
    return n;
  };
  auto chosen = [&](const std::string& node) {
    for (const auto& h : why["nodes"])
      if (h["node"] == node) return true;
    return false;
  };
  int plain = 0;
  for (const auto& h : why["nodes"]) plain += plain_on(h["node"].get<std::string>());
  while (plain < 2) {
    std::string extra;
    for (const auto& [node, k] : kinds)
      if (!chosen(node) && plain_on(node) > (extra.empty() ? 0 : plain_on(extra))) extra = node;
    if (extra.empty()) break;
    plain += plain_on(extra);
    why["nodes"].push_back(hot_entry(extra, kinds[extra], pods_on[extra], v));
  }
  const nlohmann::json& first = why["nodes"][0];
  why["holds"] = first["holds"];
  why["pods"] = first["pods"];
  if (first.contains("fabric")) why["fabric"] = first["fabric"];
  return best;
}

}  // namespace weft::demo
