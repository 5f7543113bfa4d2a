#include "tools/demo/report/group_checks.h"

#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "common/keys.h"
#include "kube/objects.h"
#include "kube/podgroup.h"
#include "kube/selector.h"
#include "kube/workload.h"

namespace weft::demo {

namespace {

using nlohmann::json;

const json& items(const json& list) {
  static const json empty = json::array();
  return list.is_object() && list.contains("items") && list["items"].is_array() ? list["items"] : empty;
}

std::map<std::string, json> nodes_by_name(const json& nodes) {
  std::map<std::string, json> out;
  for (const auto& n : items(nodes)) out[kube::name_of(n)] = n;
  return out;
}

std::string node_of(const json& pod) { return pod.value("spec", json::object()).value("nodeName", ""); }

// The value of `key` on the pod's node; "" when unbound or the node lacks it.
std::string domain_of(const std::map<std::string, json>& nodes, const json& pod, const std::string& key) {
  auto n = nodes.find(node_of(pod));
  return n == nodes.end() ? "" : kube::label(n->second, key);
}

const char* tier_label(int tier) { return tier <= 1 ? keys::kLeaf : tier == 2 ? keys::kSpine : keys::kFabric; }

std::string condition_status(const json& group, const std::string& type) {
  for (const auto& c : group.value("status", json::object()).value("conditions", json::array()))
    if (c.value("type", "") == type) return c.value("status", "");
  return "";
}

kube::Labels labels_of(const json& pod) {
  kube::Labels out;
  const json labels = pod.value("metadata", json::object()).value("labels", json::object());
  for (const auto& [k, v] : labels.items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

std::string native_group_of(const json& pod) {
  const json g = pod.value("spec", json::object()).value("schedulingGroup", json::object());
  return g.is_object() ? g.value("podGroupName", "") : "";
}

bool member_of(const json& pod, const kube::PodGroupSpec& group) {
  return kube::namespace_of(pod) == group.namespace_name && kube::annotation(pod, keys::kGroupAnnotation) == group.name;
}

// The job's own hard networkTopology: all its pods inside one domain of that tier.
std::optional<std::string> job_outside_its_tier(const std::map<std::string, json>& nodes, const json& pods,
                                                const kube::PodGroupSpec& group, json& seen) {
  const auto& topo = group.network_topology;
  if (!topo || topo->mode != kube::PodGroupNetworkTopology::Mode::Hard || !topo->highest_tier_allowed)
    return std::nullopt;
  std::set<std::string> domains;
  for (const auto& p : items(pods))
    if (member_of(p, group)) domains.insert(domain_of(nodes, p, tier_label(*topo->highest_tier_allowed)));
  seen["job"] = {{"tier", *topo->highest_tier_allowed}, {"domains", domains}};
  if (domains.size() == 1 && !domains.count("")) return std::nullopt;
  return fmt::format("PodGroup {}: hard tier {}, but its pods sit in {} {} domains (or are not bound)", group.key(),
                     *topo->highest_tier_allowed, domains.size(), tier_label(*topo->highest_tier_allowed));
}

}  // namespace

Problems check_native_groups(const json& nodes, const json& pods, const json& native_groups, json& seen) {
  Problems problems;
  seen = json::object();
  const auto by_name = nodes_by_name(nodes);
  for (const auto& g : items(native_groups)) {
    auto group = kube::parse_native_podgroup(g);
    if (!group) {
      problems.push_back("PodGroup " + kube::key_of(g) + ": " + group.message());
      continue;
    }
    const std::string name = group->namespace_name + "/" + group->name;
    json j = {{"minCount", group->min_count}, {"key", group->topology_key}, {"pods", json::object()}};
    std::set<std::string> domains;
    int bound = 0;
    for (const auto& p : items(pods)) {
      if (kube::namespace_of(p) != group->namespace_name || native_group_of(p) != group->name) continue;
      j["pods"][kube::name_of(p)] = node_of(p);
      if (node_of(p).empty()) continue;
      ++bound;
      if (!group->topology_key.empty()) domains.insert(domain_of(by_name, p, group->topology_key));
    }
    j["domains"] = domains;
    const std::string type = kube::scheduled_condition_type(group->api_version);
    j["condition"] = {{"type", type}, {"status", condition_status(g, type)}};
    if (bound < group->min_count)
      problems.push_back(fmt::format("PodGroup {}: {} pods bound, below minCount {}", name, bound, group->min_count));
    if (domains.size() > 1 || domains.count(""))
      problems.push_back(fmt::format("PodGroup {}: topology key {}, but its pods sit in {} domains", name,
                                     group->topology_key, domains.size()));
    if (condition_status(g, type) != "True")
      problems.push_back(fmt::format("PodGroup {}: condition {} is '{}', not True", name, type, condition_status(g, type)));
    seen[name] = std::move(j);
  }
  if (items(native_groups).empty()) problems.push_back("no scheduling.k8s.io PodGroup in the dump");
  return problems;
}

Problems check_sub_groups(const json& nodes, const json& pods, const json& podgroups, json& seen) {
  Problems problems;
  seen = json::object();
  const auto by_name = nodes_by_name(nodes);
  for (const auto& g : items(podgroups)) {
    auto group = kube::parse_podgroup(g);
    if (!group) {
      problems.push_back("PodGroup " + kube::key_of(g) + ": " + group.message());
      continue;
    }
    if (group->sub_group_policy.empty()) continue;
    if (auto problem = job_outside_its_tier(by_name, pods, *group, seen[group->key()])) problems.push_back(*problem);
    for (const auto& policy : group->sub_group_policy) {
      const auto& topo = policy.network_topology;
      if (!topo || topo->mode != kube::PodGroupNetworkTopology::Mode::Hard || !topo->highest_tier_allowed) continue;
      const std::string key = tier_label(*topo->highest_tier_allowed);
      std::map<std::string, std::vector<const json*>> members;   // sub-group values -> pods
      for (const auto& p : items(pods)) {
        if (!member_of(p, *group)) continue;
        std::string values;
        bool all = true;
        for (const auto& k : policy.match_label_keys) {
          const std::string v = kube::label(p, k);
          all = all && !v.empty();
          values += (values.empty() ? "" : ",") + v;
        }
        if (all && (!policy.label_selector || policy.label_selector->matches(labels_of(p))))
          members[values].push_back(&p);
      }
      if (members.empty())
        problems.push_back(fmt::format("PodGroup {}: sub-group policy {} has no pods", group->key(), policy.name));
      for (const auto& [values, sub] : members) {
        json s = {{"pods", json::object()}};
        std::set<std::string> domains;
        for (const json* p : sub) {
          s["pods"][kube::name_of(*p)] = node_of(*p);
          domains.insert(domain_of(by_name, *p, key));
        }
        s["domains"] = domains;
        if (static_cast<int>(sub.size()) != policy.sub_group_size)
          problems.push_back(fmt::format("PodGroup {}: sub-group {}={} has {} pods, subGroupSize {}", group->key(),
                                         policy.name, values, sub.size(), policy.sub_group_size));
        if (domains.size() != 1 || domains.count(""))
          problems.push_back(fmt::format("PodGroup {}: sub-group {}={} spans {} {} domains (or is not bound)",
                                         group->key(), policy.name, values, domains.size(), key));
        seen[group->key()][policy.name][values] = std::move(s);
      }
    }
  }
  if (seen.empty()) problems.push_back("no Volcano PodGroup with a hard sub-group networkTopology in the dump");
  return problems;
}

}  // namespace weft::demo
