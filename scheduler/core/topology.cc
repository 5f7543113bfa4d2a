#include "scheduler/core/topology.h"

#include "scheduler/core/derived_tiers.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace weft::scheduler {
namespace {

using nlohmann::json;

bool member_matches_node(const HyperNodeMember& m, const NodeInfo& n) {
  if (!m.exact_name.empty()) return n.name == m.exact_name;
  if (!m.regex.empty()) return std::regex_search(n.name, std::regex(m.regex));
  if (m.labels) return m.labels->matches(n.labels);
  return false;
}

std::vector<Domain> resolve(const Snapshot& s) {
  std::vector<Domain> out;
  std::map<std::string, int> by_name;
  for (const auto& h : s.hypernodes) {
    Domain d;
    d.name = h.name;
    d.tier = h.tier;
    d.tier_name = h.tier_name;
    d.members = h.members;
    by_name[h.name] = static_cast<int>(out.size());
    out.push_back(std::move(d));
  }
  // Direct node members and child HyperNodes.
  std::vector<std::set<int>> direct(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    for (const auto& m : out[i].members) {
      if (m.type == HyperNodeMember::Type::Node) {
        if (!m.exact_name.empty()) {
          auto it = std::lower_bound(s.nodes.begin(), s.nodes.end(), m.exact_name,
                                     [](const NodeInfo& n, const std::string& v) { return n.name < v; });
          if (it != s.nodes.end() && it->name == m.exact_name) direct[i].insert(static_cast<int>(it - s.nodes.begin()));
          continue;
        }
        for (size_t n = 0; n < s.nodes.size(); ++n)
          if (member_matches_node(m, s.nodes[n])) direct[i].insert(static_cast<int>(n));
      } else {
        for (size_t c = 0; c < out.size(); ++c) {
          if (c == i) continue;
          bool match = !m.exact_name.empty() ? out[c].name == m.exact_name
                       : !m.regex.empty()    ? std::regex_search(out[c].name, std::regex(m.regex))
                                             : false;
          if (match && out[c].parent < 0) {
            out[c].parent = static_cast<int>(i);
            out[i].children.push_back(static_cast<int>(c));
          }
        }
      }
    }
  }
  // Leaf nodes of each HyperNode, through its children (a cycle is cut where it closes).
  std::vector<int> state(out.size(), 0);
  std::vector<std::set<int>> all(out.size());
  std::function<void(int)> visit = [&](int i) {
    if (state[i]) return;
    state[i] = 1;
    all[i] = direct[i];
    for (int c : out[i].children) {
      if (state[c] == 1) continue;
      visit(c);
      all[i].insert(all[c].begin(), all[c].end());
    }
    state[i] = 2;
  };
  for (size_t i = 0; i < out.size(); ++i) visit(static_cast<int>(i));
  for (size_t i = 0; i < out.size(); ++i) out[i].nodes.assign(all[i].begin(), all[i].end());
  return out;
}

// A derived domain with children lists the nodes that sit in it directly (a node without
// an NVLink domain beside the domains of its rail group) by name; one without children
// keeps its label selector.
void name_direct_nodes(Topology& t, const Snapshot& s) {
  for (auto& d : t.domains) {
    if (d.children.empty()) continue;
    std::set<int> direct(d.nodes.begin(), d.nodes.end());
    for (int c : d.children)
      for (int n : t.domains[c].nodes) direct.erase(n);
    d.members.clear();
    for (int n : direct) {
      HyperNodeMember m;
      m.exact_name = s.nodes[n].name;
      d.members.push_back(std::move(m));
    }
  }
}

}  // namespace

Topology build_topology(const Snapshot& s) {
  Topology t;
  t.derived = s.hypernodes.empty();
  std::vector<Domain> domains = t.derived ? derive_domains(s, &t.problems) : resolve(s);
  // Sort by (tier, name), remapping parent/children.
  std::vector<int> order(domains.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return std::tie(domains[a].tier, domains[a].name) < std::tie(domains[b].tier, domains[b].name);
  });
  std::vector<int> remap(domains.size());
  for (size_t i = 0; i < order.size(); ++i) remap[order[i]] = static_cast<int>(i);
  for (int o : order) {
    Domain d = std::move(domains[o]);
    if (d.parent >= 0) d.parent = remap[d.parent];
    t.domains.push_back(std::move(d));
  }
  for (auto& d : t.domains) d.children.clear();
  for (size_t i = 0; i < t.domains.size(); ++i)
    if (t.domains[i].parent >= 0) t.domains[t.domains[i].parent].children.push_back(static_cast<int>(i));
  t.node_domains.assign(s.nodes.size(), {});
  for (size_t i = 0; i < t.domains.size(); ++i) {
    auto& d = t.domains[i];
    t.max_tier = std::max(t.max_tier, d.tier);
    std::string fabric;
    bool mixed = false;
    for (int n : d.nodes) {
      t.node_domains[n].push_back(static_cast<int>(i));
      std::string f = label_or(s.nodes[n], keys::kFabric);
      if (f.empty() || (!fabric.empty() && f != fabric)) mixed = true;
      fabric = f;
    }
    d.fabric = mixed ? "" : fabric;
  }
  if (t.derived) name_direct_nodes(t, s);
  std::map<std::string, std::vector<int>> fabrics;
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    std::string f = label_or(s.nodes[i], keys::kFabric);
    if (!f.empty()) fabrics[f].push_back(static_cast<int>(i));
  }
  t.fabrics.assign(fabrics.begin(), fabrics.end());
  return t;
}

json hypernode_objects(const Topology& topo) {
  json items = json::array();
  for (const auto& d : topo.domains) {
    json members = json::array();
    for (int c : d.children)
      members.push_back({{"type", "HyperNode"}, {"selector", {{"exactMatch", {{"name", topo.domains[c].name}}}}}});
    if (d.children.empty() || topo.derived) {
      for (const auto& m : d.members) {
        json sel;
        if (!m.exact_name.empty()) sel["exactMatch"] = {{"name", m.exact_name}};
        else if (!m.regex.empty()) sel["regexMatch"] = {{"pattern", m.regex}};
        else if (m.labels) {
          json ml = json::object();
          for (const auto& r : m.labels->requirements())
            if (!r.values.empty()) ml[r.key] = r.values[0];
          sel["labelMatch"] = {{"matchLabels", ml}};
        }
        members.push_back({{"type", m.type == HyperNodeMember::Type::Node ? "Node" : "HyperNode"}, {"selector", sel}});
      }
    }
    items.push_back({{"apiVersion", "topology.volcano.sh/v1alpha1"},
                     {"kind", "HyperNode"},
                     {"metadata", {{"name", d.name}}},
                     {"spec", {{"tier", d.tier}, {"members", members}}}});
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

std::string topology_dot(const Topology& topo, const Snapshot& s) {
  std::ostringstream out;
  out << "digraph weft_topology {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n";
  for (size_t i = 0; i < topo.domains.size(); ++i) {
    const auto& d = topo.domains[i];
    out << "  \"" << d.name << "\" [shape=box, label=\"" << d.name << "\\ntier " << d.tier << " (" << d.nodes.size()
        << " nodes)\"];\n";
    for (int c : d.children) out << "  \"" << d.name << "\" -> \"" << topo.domains[c].name << "\";\n";
    if (d.children.empty())
      for (int n : d.nodes) out << "  \"" << d.name << "\" -> \"node/" << s.nodes[n].name << "\";\n";
  }
  for (size_t n = 0; n < s.nodes.size(); ++n)
    if (!topo.node_domains[n].empty())
      out << "  \"node/" << s.nodes[n].name << "\" [shape=ellipse, label=\"" << s.nodes[n].name << "\"];\n";
  out << "}\n";
  return out.str();
}

json topology_json(const Topology& topo, const Snapshot& s) {
  json hns = json::array();
  for (const auto& d : topo.domains) {
    json nodes = json::array(), children = json::array();
    for (int n : d.nodes) nodes.push_back(s.nodes[n].name);
    for (int c : d.children) children.push_back(topo.domains[c].name);
    hns.push_back({{"name", d.name},
                   {"tier", d.tier},
                   {"parent", d.parent >= 0 ? json(topo.domains[d.parent].name) : json(nullptr)},
                   {"children", children},
                   {"fabric", d.fabric.empty() ? json(nullptr) : json(d.fabric)},
                   {"nodes", nodes}});
  }
  json clusters = json::array();
  for (const auto& [fabric, nodes] : topo.fabrics) {
    json names = json::array();
    for (int n : nodes) names.push_back(s.nodes[n].name);
    clusters.push_back({{"fabric", fabric}, {"nodes", names}});
  }
  json out = {{"derived", topo.derived}, {"max_tier", topo.max_tier}, {"clusters", clusters}, {"hypernodes", hns}};
  if (!topo.problems.empty()) out["problems"] = topo.problems;
  return out;
}

}  // namespace weft::scheduler
