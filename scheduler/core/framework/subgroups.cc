#include "scheduler/core/framework/subgroups.h"

#include <algorithm>
#include <functional>
#include <map>

namespace weft::scheduler {
namespace {

// Volcano: the first rule whose selector takes the pod and whose matchLabelKeys it all
// carries (non-empty); the sub-group is named by those values. -1: none.
int volcano_rule_of(const PodGroupInfo& g, const PodInfo& pod, std::string* name) {
  for (size_t r = 0; r < g.sub_groups.size(); ++r) {
    const SubGroupRule& rule = g.sub_groups[r];
    if (rule.match_label_keys.empty()) continue;   // no values: Volcano leaves the pod in the job's default group
    if (rule.selector && !rule.selector->matches(pod.labels)) continue;
    std::string values;
    bool all = true;
    for (const auto& key : rule.match_label_keys) {
      const std::string* v = pod.labels.find(key);
      if (!v || v->empty()) {
        all = false;
        break;
      }
      values += (values.empty() ? "" : ",") + *v;
    }
    if (!all) continue;
    *name = rule.name + "/" + values;
    return static_cast<int>(r);
  }
  return -1;
}

void add_pod(Job& job, std::map<std::string, int>& index, const std::string& name, int pod,
             const std::function<SubGroup()>& make) {
  auto [it, fresh] = index.try_emplace(name, static_cast<int>(job.subgroups.size()));
  if (fresh) job.subgroups.push_back(make());
  job.subgroups[it->second].pods.push_back(pod);
}

void composite_min_member(Job& job) {
  std::vector<int> sizes;
  for (const auto& g : job.subgroups) sizes.push_back(g.size);
  std::sort(sizes.begin(), sizes.end());
  const int groups = std::max(1, job.group->sub_groups.front().min_groups);
  int need = 0;
  for (int i = 0; i < groups && i < static_cast<int>(sizes.size()); ++i) need += sizes[i];
  job.min_member = std::max(need, 1);
}

}  // namespace

void build_subgroups(Session& ssn, Job& job) {
  if (!job.group || job.group->sub_groups.empty()) return;
  const PodGroupInfo& g = *job.group;
  std::map<std::string, int> index;
  const bool composite = g.kind == "CompositePodGroup";
  for (int p : job.pods) {
    const PodInfo& pod = ssn.snap.pods[p];
    if (composite) {
      auto child = ssn.snap.podgroups.find(pod.group);
      if (child == ssn.snap.podgroups.end()) continue;
      const PodGroupInfo* c = &child->second;
      add_pod(job, index, c->key, p, [&] {
        return SubGroup{.name = c->key, .rule = 0, .size = c->min_member, .topology_key = c->topology_key, .child = c};
      });
      continue;
    }
    std::string name;
    int r = volcano_rule_of(g, pod, &name);
    if (r < 0) continue;
    add_pod(job, index, name, p, [&] {
      return SubGroup{.name = name, .rule = r, .size = g.sub_groups[r].size, .topology = &g.sub_groups[r].topology};
    });
  }
  if (composite) composite_min_member(job);
}

int subgroup_occupied(const Session& ssn, const SubGroup& g, bool with_pipelined) {
  int n = 0;
  for (int p : g.pods) {
    const PodInfo& pod = ssn.snap.pods[p];
    if (pod.phase == std::string_view("Succeeded")) ++n;
    else if (ssn.node_of_pod[p] >= 0 && !pod.terminating && !pod.terminal()) ++n;
    else if (with_pipelined && ssn.pipelined_pod[p]) ++n;
  }
  return n;
}

bool subgroups_ready(const Session& ssn, const Job& job, bool with_pipelined) {
  if (job.subgroups.empty()) return true;
  std::map<int, int> ready;   // rule -> sub-groups holding their size
  for (const auto& g : job.subgroups)
    if (subgroup_occupied(ssn, g, with_pipelined) >= g.size) ++ready[g.rule];
  for (size_t r = 0; r < job.group->sub_groups.size(); ++r)
    if (ready[static_cast<int>(r)] < job.group->sub_groups[r].min_groups) return false;
  return true;
}

std::optional<std::string> subgroups_invalid(const Session& ssn, const Job& job) {
  if (job.subgroups.empty() && (!job.group || job.group->sub_groups.empty())) return std::nullopt;
  std::map<int, int> could;   // rule -> sub-groups with enough pods to fill
  for (const auto& g : job.subgroups) {
    int have = subgroup_occupied(ssn, g, true);
    for (int p : g.pods)
      if (ssn.node_of_pod[p] < 0 && !ssn.pipelined_pod[p] && !ssn.snap.pods[p].terminal()) ++have;
    if (have >= g.size) ++could[g.rule];
  }
  for (size_t r = 0; r < job.group->sub_groups.size(); ++r) {
    const SubGroupRule& rule = job.group->sub_groups[r];
    if (could[static_cast<int>(r)] < rule.min_groups)
      return "needs " + std::to_string(rule.min_groups) + " sub-groups" + (rule.name.empty() ? "" : " of '" + rule.name + "'") +
             " with their pods, has " + std::to_string(could[static_cast<int>(r)]);
  }
  return std::nullopt;
}

}  // namespace weft::scheduler
