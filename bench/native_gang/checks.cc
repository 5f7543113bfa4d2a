#include "bench/native_gang/checks.h"

#include <algorithm>
#include <map>
#include <set>

#include "bench/native_gang/naive_placer.h"
#include "kube/client/resource.h"
#include "kube/objects.h"

namespace weft::bench {

using nlohmann::json;

namespace {

struct Seen {
  std::map<std::string, std::string> node_of;          // pod -> node
  std::map<std::string, std::map<std::string, std::string>> labels_of;   // node -> labels
};

std::set<std::string> values_of(const Seen& s, const std::vector<std::string>& pods, const std::string& key) {
  std::set<std::string> values;
  for (const auto& p : pods) {
    auto n = s.node_of.find(p);
    if (n == s.node_of.end()) continue;
    const auto& labels = s.labels_of.at(n->second);
    auto v = labels.find(key);
    values.insert(v == labels.end() ? "" : v->second);
  }
  return values;
}

int overfull(const kube::ObjectList& nodes, const kube::ObjectList& pods) {
  std::map<std::string, kube::ResourceList> used;
  for (const auto& p : pods.items) {
    const std::string node = p["spec"].value("nodeName", "");
    if (!node.empty()) kube::add_to(used[node], pod_request(p));
  }
  int n = 0;
  for (const auto& node : nodes.items) {
    auto alloc = kube::parse_resource_list(node["status"].value("allocatable", json::object()));
    if (alloc && !kube::fits(used[kube::name_of(node)], *alloc)) ++n;
  }
  return n;
}

}  // namespace

namespace {

Verdict check_lists(const kube::ObjectList& nodes, const kube::ObjectList& pods, const Case& c) {
  Verdict v;
  Seen s;
  for (const auto& n : nodes.items) {
    auto& labels = s.labels_of[kube::name_of(n)];
    const json node_labels = n["metadata"].value("labels", json::object());
    for (const auto& [k, val] : node_labels.items()) labels[k] = val;
  }
  std::set<std::string> pending;
  for (const auto& p : c.pods) pending.insert(kube::name_of(p));
  for (const auto& p : pods.items) {
    const std::string name = kube::name_of(p), node = p["spec"].value("nodeName", "");
    if (p["metadata"].value("namespace", "") != c.ns || !pending.count(name)) continue;
    ++v.pods;
    if (!node.empty()) s.node_of[name] = node, ++v.bound;
  }
  v.overfull_nodes = overfull(nodes, pods);
  v.has_groups = !c.jobs.empty();
  for (const auto& job : c.jobs) {
    std::vector<std::string> all;
    for (const auto& g : job.groups) {
      all.insert(all.end(), g.pods.begin(), g.pods.end());
      if (!g.topology_key.empty() && values_of(s, g.pods, g.topology_key).size() > 1) ++v.groups_split;
    }
    if (!job.topology_key.empty() && values_of(s, all, job.topology_key).size() > 1) ++v.jobs_split;
  }
  if (!c.rank_label.empty()) {
    std::vector<std::pair<int, std::string>> ranked;
    for (const auto& p : c.pods) {
      const auto labels = p["metadata"].value("labels", json::object());
      if (labels.contains(c.rank_label)) ranked.emplace_back(std::stoi(labels[c.rank_label].get<std::string>()), kube::name_of(p));
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::string> names;
    for (const auto& r : ranked) names.push_back(r.second);
    v.leaves_used = static_cast<int>(values_of(s, names, c.leaf_label).size());
    v.rank_pairs_across_leaf = 0;
    for (size_t i = 1; i < names.size(); ++i)
      if (values_of(s, {names[i - 1]}, c.leaf_label) != values_of(s, {names[i]}, c.leaf_label)) ++v.rank_pairs_across_leaf;
  }
  return v;
}

}  // namespace

Verdict check_placement(kube::Client& client, const Case& c, const MoreChecks& more) {
  auto nodes = client.list(kube::resources::nodes(), "");
  auto pods = client.list(kube::resources::pods(), "");
  if (!nodes || !pods) {
    Verdict v;
    v.error = !nodes ? nodes.message() : pods.message();
    return v;
  }
  Verdict v = check_lists(*nodes, *pods, c);
  if (more) more(*nodes, *pods, v);
  return v;
}

std::string Verdict::summary() const {
  std::string out = std::to_string(bound) + "/" + std::to_string(pods) + " bound";
  if (overfull_nodes) out += ", " + std::to_string(overfull_nodes) + " nodes over allocatable";
  if (groups_split) out += ", " + std::to_string(groups_split) + " groups split over domains";
  if (jobs_split) out += ", " + std::to_string(jobs_split) + " composites split over domains";
  if (has_groups && !groups_split && !jobs_split) out += ", every group and composite in one domain";
  if (!rules.empty()) out += ", " + rules;
  if (rank_pairs_across_leaf >= 0)
    out += ", adjacent ranks across a leaf " + std::to_string(rank_pairs_across_leaf) + " (" +
           std::to_string(leaves_used) + " leaves: at least " + std::to_string(std::max(leaves_used - 1, 0)) + ")";
  if (!error.empty()) out += ", error: " + error;
  return out;
}

}  // namespace weft::bench
