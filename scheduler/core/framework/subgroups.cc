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

// The scope of composite `g` in the job, made (with its ancestors) on first use. The job's
// pods all lead to its root (open.cc), so the walk up ends there.
int scope_of(const Snapshot& snap, Job& job, std::map<std::string, int>& index, const PodGroupInfo& g) {
  if (auto it = index.find(g.key); it != index.end()) return it->second;
  int parent = -1;
  if (!g.parent.empty())
    if (auto p = snap.podgroups.find(g.parent); p != snap.podgroups.end()) parent = scope_of(snap, job, index, p->second);
  const int s = static_cast<int>(job.scopes.size());
  index.emplace(g.key, s);
  job.scopes.push_back(Scope{.group = &g, .parent = parent, .min_groups = g.sub_groups.front().min_groups});
  if (parent >= 0) job.scopes[parent].scopes.push_back(s);
  return s;
}

// Children a scope needs at once: minGroupCount, or any one of a basic composite's.
int groups_needed(const Scope& s) { return std::max(1, s.min_groups); }

// The fewest pods that can start the scope: its cheapest groups_needed children.
int pods_needed(const Job& job, int scope) {
  const Scope& s = job.scopes[scope];
  std::vector<int> needs;
  for (int g : s.subgroups) needs.push_back(job.subgroups[g].size);
  for (int c : s.scopes) needs.push_back(pods_needed(job, c));
  std::sort(needs.begin(), needs.end());
  int need = 0;
  for (int i = 0; i < groups_needed(s) && i < static_cast<int>(needs.size()); ++i) need += needs[i];
  return need;
}

// Children of the scope for which `leaf_ok` holds (a child composite: recursively enough of
// its own), against what the scope needs.
template <class LeafOk>
std::pair<int, int> children_ok(const Job& job, int scope, const LeafOk& leaf_ok) {
  const Scope& s = job.scopes[scope];
  int ok = 0;
  for (int g : s.subgroups) ok += leaf_ok(job.subgroups[g]);
  for (int c : s.scopes) {
    auto [child_ok, child_need] = children_ok(job, c, leaf_ok);
    ok += child_ok >= child_need;
  }
  return {ok, groups_needed(s)};
}

}  // namespace

bool scope_ready(const Session& ssn, const Job& job, int scope, bool with_pipelined) {
  auto [ok, need] = children_ok(job, scope, [&](const SubGroup& g) { return subgroup_occupied(ssn, g, with_pipelined) >= g.size; });
  return ok >= need;
}

namespace {

// Could the sub-group ever fill: pods running, placed, or pending for it.
bool could_fill(const Session& ssn, const SubGroup& g) {
  int have = subgroup_occupied(ssn, g, true);
  for (int p : g.pods)
    if (ssn.node_of_pod[p] < 0 && !ssn.pipelined_pod[p] && !ssn.snap.pods[p].terminal()) ++have;
  return have >= g.size;
}

}  // namespace

void build_subgroups(Session& ssn, Job& job) {
  if (!job.group || job.group->sub_groups.empty()) return;
  const PodGroupInfo& g = *job.group;
  std::map<std::string, int> index, scopes;
  const bool composite = g.kind == "CompositePodGroup";
  if (composite) scope_of(ssn.snap, job, scopes, g);
  for (int p : job.pods) {
    const PodInfo& pod = ssn.snap.pods[p];
    if (composite) {
      auto child = ssn.snap.podgroups.find(pod.group);
      if (child == ssn.snap.podgroups.end()) continue;
      const PodGroupInfo* c = &child->second;
      auto parent = ssn.snap.podgroups.find(c->parent);
      if (parent == ssn.snap.podgroups.end()) continue;
      const int scope = scope_of(ssn.snap, job, scopes, parent->second);
      auto [it, fresh] = index.try_emplace(c->key, static_cast<int>(job.subgroups.size()));
      if (fresh) {
        job.subgroups.push_back(
            SubGroup{.name = c->key, .rule = 0, .size = c->min_member, .topology_key = c->topology_key, .child = c, .scope = scope});
        job.scopes[scope].subgroups.push_back(it->second);
      }
      job.subgroups[it->second].pods.push_back(p);
      continue;
    }
    std::string name;
    int r = volcano_rule_of(g, pod, &name);
    if (r < 0) continue;
    add_pod(job, index, name, p, [&] {
      return SubGroup{.name = name, .rule = r, .size = g.sub_groups[r].size, .topology = &g.sub_groups[r].topology};
    });
  }
  if (composite) job.min_member = std::max(pods_needed(job, 0), 1);
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
  if (!job.scopes.empty()) return scope_ready(ssn, job, 0, with_pipelined);
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
  if (!job.scopes.empty()) {
    auto [could, need] = children_ok(job, 0, [&](const SubGroup& g) { return could_fill(ssn, g); });
    if (could >= need) return std::nullopt;
    return "needs " + std::to_string(need) + " of its child groups with their pods, has " + std::to_string(could);
  }
  std::map<int, int> could;   // rule -> sub-groups with enough pods to fill
  for (const auto& g : job.subgroups)
    if (could_fill(ssn, g)) ++could[g.rule];
  for (size_t r = 0; r < job.group->sub_groups.size(); ++r) {
    const SubGroupRule& rule = job.group->sub_groups[r];
    if (could[static_cast<int>(r)] < rule.min_groups)
      return "needs " + std::to_string(rule.min_groups) + " sub-groups" + (rule.name.empty() ? "" : " of '" + rule.name + "'") +
             " with their pods, has " + std::to_string(could[static_cast<int>(r)]);
  }
  return std::nullopt;
}

}  // namespace weft::scheduler
