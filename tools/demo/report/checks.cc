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
        kinds[p.node].insert("plain pod (movable)");
      } else if (running <= job.min_member) {
        kinds[p.node].insert("gang at minMember (must stay)");
      } else if (job.same_cluster || job.hard_tier) {
        kinds[p.node].insert("fabric-bound gang above minMember");
      }
    }
  }
  std::string best;
  int best_score = -1;
  for (const auto& [node, k] : kinds) {
    int score = 0;
    if (k.count("plain pod (movable)")) score += 4;
    if (k.count("gang at minMember (must stay)")) score += 2;
    if (k.count("fabric-bound gang above minMember")) score += 3;
    if (score > best_score) {
      best = node;
      best_score = score;
    }
  }
  why = {{"node", best}, {"holds", best.empty() ? nlohmann::json::array() : nlohmann::json(kinds[best])},
         {"pods", best.empty() ? nlohmann::json::array() : nlohmann::json(pods_on[best])}};
  if (const NodeView* n = v.node(best)) why["fabric"] = n->fabric;
  return best;
}

}  // namespace weft::demo
