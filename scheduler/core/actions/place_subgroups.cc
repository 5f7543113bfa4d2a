#include "scheduler/core/actions/place_subgroups.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>

#include "scheduler/core/framework/domains.h"
#include "scheduler/core/framework/ranks.h"
#include "scheduler/core/framework/statement.h"
#include "scheduler/core/framework/subgroups.h"

namespace weft::scheduler {
namespace {

struct Area {
  std::string name;
  int tier = 0;
  std::vector<int> nodes;   // ascending
};

std::vector<int> every_node(Session& ssn) {
  std::vector<int> out(ssn.cluster.node_count());
  std::iota(out.begin(), out.end(), 0);
  return out;
}

std::vector<int> intersect(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Free capacity of the resource the pod asks most of, summed over the area (best fit: least first).
int64_t free_for(Session& ssn, int pod, const std::vector<int>& nodes) {
  const auto& req = ssn.cluster.request(pod);
  int dim = 0;
  for (int d = 0; d < ssn.cluster.dims(); ++d)
    if (req[d] > req[dim] && ssn.cluster.dim_name(d) != "pods") dim = d;
  int64_t sum = 0;
  for (int n : nodes) sum += ssn.cluster.free(n, dim);
  return sum;
}

// Per dimension, the least that any `need` of the tasks ask together (the `need` smallest
// requests): an area with less free room cannot hold them.
std::vector<int64_t> least_request(Session& ssn, const std::vector<int>& tasks, int need) {
  std::vector<int64_t> out(ssn.cluster.dims(), 0);
  if (need <= 0) return out;
  std::vector<int64_t> col(tasks.size());
  for (int d = 0; d < ssn.cluster.dims(); ++d) {
    for (size_t i = 0; i < tasks.size(); ++i) col[i] = ssn.cluster.request(tasks[i])[d];
    const size_t n = std::min(col.size(), static_cast<size_t>(need));
    std::nth_element(col.begin(), col.begin() + static_cast<std::ptrdiff_t>(n) - (n ? 1 : 0), col.end());
    std::sort(col.begin(), col.begin() + static_cast<std::ptrdiff_t>(n));
    for (size_t i = 0; i < n; ++i) out[d] += col[i];
  }
  return out;
}

bool has_room_for(Session& ssn, const std::vector<int>& nodes, const std::vector<int64_t>& least) {
  for (int d = 0; d < ssn.cluster.dims(); ++d) {
    if (least[d] <= 0) continue;
    int64_t free = 0;
    for (int n : nodes)
      if ((free += std::max<int64_t>(ssn.cluster.free(n, d), 0)) >= least[d]) break;
    if (free < least[d]) return false;
  }
  return true;
}

void best_fit_first(Session& ssn, int pod, std::vector<Area>& areas) {
  std::vector<int64_t> free(areas.size());
  for (size_t i = 0; i < areas.size(); ++i) free[i] = free_for(ssn, pod, areas[i].nodes);
  std::vector<size_t> order(areas.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(areas[a].tier, free[a], areas[a].name) < std::tie(areas[b].tier, free[b], areas[b].name);
  });
  std::vector<Area> sorted;
  for (size_t i : order) sorted.push_back(std::move(areas[i]));
  areas = std::move(sorted);
}

// A domain cut to `outer`, added unless the cut is empty.
void add_cut(std::vector<Area>& out, const std::string& name, int tier, const std::vector<int>& nodes,
             const Area& outer) {
  Area a{name, tier, intersect(nodes, outer.nodes)};
  if (!a.nodes.empty()) out.push_back(std::move(a));
}

// The domains of a topology key cut to `outer`.
std::vector<Area> key_areas(Session& ssn, const std::string& key, const Area& outer) {
  std::vector<Area> out;
  for (const auto& d : key_domains(ssn, key)) add_cut(out, d.name, d.tier, d.nodes, outer);
  return out;
}

// Where a sub-group may go inside `outer`: its own domains (topology key, or HyperNodes up
// to its highest tier) cut to `outer`; else `outer` itself. The same for every sub-group
// of one rule, so computed once per outer area (InnerAreas).
std::vector<Area> constraint_areas(Session& ssn, const SubGroup& g, const Area& outer) {
  if (!g.topology_key.empty()) return key_areas(ssn, g.topology_key, outer);
  if (!g.topology || g.topology->mode == NetworkTopology::Mode::None) return {outer};
  std::vector<Area> out;
  if (auto highest = highest_tier_of(ssn, *g.topology))
    for (const auto& d : ssn.topo().domains)
      if (d.tier <= *highest) add_cut(out, d.name, d.tier, d.nodes, outer);
  if (g.topology->mode == NetworkTopology::Mode::Soft) out.push_back(outer);   // soft: the job's area at worst
  return out;
}

// Every pod of `pods` that is on a node (bound, or placed this cycle) is inside the area.
bool holds_placed(const Session& ssn, const Area& area, const std::vector<int>& pods) {
  for (int p : pods)
    if (int n = ssn.node_of_pod[p]; n >= 0 && !std::binary_search(area.nodes.begin(), area.nodes.end(), n)) return false;
  return true;
}

class InnerAreas {
 public:
  explicit InnerAreas(const Area& outer) : outer_(outer) {}
  // The areas of g's constraint inside the outer area that hold every bound pod of g.
  std::vector<Area> of(Session& ssn, const SubGroup& g) {
    const std::string key = g.topology_key + "\n" + std::to_string(reinterpret_cast<uintptr_t>(g.topology));
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, constraint_areas(ssn, g, outer_)).first;
    std::vector<Area> out;
    for (const auto& a : it->second)
      if (holds_placed(ssn, a, g.pods)) out.push_back(a);
    return out;
  }

 private:
  const Area& outer_;
  std::map<std::string, std::vector<Area>> cache_;
};

int first_fit(Session& ssn, int pod, const std::vector<int>& order) {
  const StaticFilter& f = ssn.cluster.filter_for(pod);
  for (int n : order)
    if (!f.reject[n] && ssn.cluster.fits_now(pod, n)) return n;
  return -1;
}

// Places the sub-group's pending pods whole (its size reached) in the first area that
// takes them; the placements join `stmt`.
bool place_group(Session& ssn, Job& job, const SubGroup& g, const std::vector<int>& tasks, InnerAreas& inner,
                 Statement& stmt) {
  const int have = subgroup_occupied(ssn, g, true);
  if (tasks.empty()) return have >= g.size;
  std::vector<Area> areas = inner.of(ssn, g);
  const std::vector<int64_t> least = least_request(ssn, tasks, g.size - have);
  std::erase_if(areas, [&](const Area& a) { return !has_room_for(ssn, a.nodes, least); });
  best_fit_first(ssn, tasks.front(), areas);
  QueueAccount* q = ssn.queue_of(job);
  const bool by_rank = ranked(ssn, job);
  for (const auto& area : areas) {
    Statement trial(ssn);
    int placed = 0;
    const std::vector<int> order = by_rank ? rank_node_order(ssn, tasks.front(), &area.nodes) : std::vector<int>{};
    for (int t : tasks) {
      if (q && !ssn.allocatable(*q, t)) continue;
      int node = by_rank ? first_fit(ssn, t, order) : ssn.cluster.best_node(t, &area.nodes, nullptr);
      if (node < 0) continue;
      trial.allocate(t, node);
      ++placed;
    }
    if (have + placed >= g.size) {
      stmt.merge(trial);
      return true;
    }
    trial.discard();
  }
  return false;
}

// Every pod of a composite's subtree.
void subtree_pods(const Job& job, int scope, std::vector<int>& out) {
  for (int g : job.scopes[scope].subgroups) out.insert(out.end(), job.subgroups[g].pods.begin(), job.subgroups[g].pods.end());
  for (int c : job.scopes[scope].scopes) subtree_pods(job, c, out);
}

// Where a child composite may go inside `outer`: the domains of its topology key cut to
// `outer` that hold its bound pods (no key: `outer`), best fit first.
std::vector<Area> scope_areas(Session& ssn, const Job& job, int scope, const Area& outer, int first_pod) {
  const std::string& key = job.scopes[scope].group->topology_key;
  if (key.empty()) return {outer};
  std::vector<int> pods;
  subtree_pods(job, scope, pods);
  std::vector<Area> out = key_areas(ssn, key, outer);
  std::erase_if(out, [&](const Area& a) { return !holds_placed(ssn, a, pods); });
  if (first_pod >= 0) best_fit_first(ssn, first_pod, out);
  return out;
}

int first_task(const Job& job, int scope, const std::vector<std::vector<int>>& tasks) {
  for (int g : job.scopes[scope].subgroups)
    if (!tasks[g].empty()) return tasks[g].front();
  for (int c : job.scopes[scope].scopes)
    if (int t = first_task(job, c, tasks); t >= 0) return t;
  return -1;
}

bool place_child_scope(Session& ssn, Job& job, int scope, const Area& outer, const std::vector<std::vector<int>>& tasks,
                       Statement& stmt);

// Places a composite's children inside `area` (each child PodGroup whole in a domain of its
// own key); returns how many of them are ready.
int place_scope(Session& ssn, Job& job, int scope, const Area& area, const std::vector<std::vector<int>>& tasks,
                Statement& stmt) {
  InnerAreas inner(area);
  int ready = 0;
  for (int g : job.scopes[scope].subgroups) ready += place_group(ssn, job, job.subgroups[g], tasks[g], inner, stmt);
  for (int c : job.scopes[scope].scopes) ready += place_child_scope(ssn, job, c, area, tasks, stmt);
  return ready;
}

// A child composite goes whole into one domain of its key inside `outer`, with the
// children it needs ready, or not at all (its pods wait, as kube-scheduler leaves an
// unready subtree while its ready siblings start).
bool place_child_scope(Session& ssn, Job& job, int scope, const Area& outer, const std::vector<std::vector<int>>& tasks,
                       Statement& stmt) {
  for (const auto& area : scope_areas(ssn, job, scope, outer, first_task(job, scope, tasks))) {
    Statement trial(ssn);
    place_scope(ssn, job, scope, area, tasks, trial);
    if (scope_ready(ssn, job, scope, true)) {
      stmt.merge(trial);
      return true;
    }
    trial.discard();
  }
  return false;
}

std::vector<Area> outer_areas(Session& ssn, Job& job) {
  std::vector<Area> out;
  if (constrained(ssn, job)) {
    for (const auto& d : allowed_domains(ssn, job)) out.push_back({d.name, d.tier, *d.nodes});
    if (job.group && job.group->topology.mode == NetworkTopology::Mode::Soft) out.push_back({"", 99, every_node(ssn)});
  } else {
    out.push_back({"", 0, every_node(ssn)});
  }
  return out;
}

}  // namespace

bool place_subgroups(Session& ssn, Job& job, const std::vector<int>& in) {
  std::vector<char> pending(ssn.snap.pods.size(), 0);
  for (int t : in)
    if (ssn.node_of_pod[t] < 0 && !ssn.pipelined_pod[t]) pending[t] = 1;
  std::vector<char> grouped(ssn.snap.pods.size(), 0);
  std::vector<std::vector<int>> tasks(job.subgroups.size());
  for (size_t i = 0; i < job.subgroups.size(); ++i)
    for (int p : job.subgroups[i].pods) {
      grouped[p] = 1;
      if (pending[p]) tasks[i].push_back(p);
    }
  std::vector<int> loose;   // pods no sub-group takes: anywhere in the job's area
  for (int t : in)
    if (pending[t] && !grouped[t]) loose.push_back(t);
  std::vector<Area> outers = outer_areas(ssn, job);
  std::vector<int> all_pending;
  for (int t : in)
    if (pending[t]) all_pending.push_back(t);
  // An area with less free room than the job's least need cannot start it: not tried.
  const std::vector<int64_t> least = least_request(ssn, all_pending, job.min_member - job.occupied() - job.pipelined);
  std::erase_if(outers, [&](const Area& a) { return !has_room_for(ssn, a.nodes, least); });
  if (!outers.empty() && !in.empty()) best_fit_first(ssn, in.front(), outers);
  int best_groups = -1;
  for (const auto& outer : outers) {
    Statement stmt(ssn);
    InnerAreas inner(outer);
    int groups = 0;
    if (!job.scopes.empty()) groups = place_scope(ssn, job, 0, outer, tasks, stmt);
    else
      for (size_t i = 0; i < job.subgroups.size(); ++i) groups += place_group(ssn, job, job.subgroups[i], tasks[i], inner, stmt);
    QueueAccount* q = ssn.queue_of(job);
    for (int t : loose) {
      if (q && !ssn.allocatable(*q, t)) continue;
      int node = ssn.cluster.best_node(t, &outer.nodes, nullptr);
      if (node >= 0) stmt.allocate(t, node);
    }
    if (stmt.allocated() > 0 && ssn.job_ready(job)) {
      stmt.commit();
      std::erase_if(job.pending, [&](int p) { return ssn.node_of_pod[p] >= 0; });
      if (job.enqueued && job.phase != "Running" && job.occupied() >= job.min_member) job.phase = "Running";
      job.unschedulable.reset();
      return true;
    }
    best_groups = std::max(best_groups, groups);
    stmt.discard();
  }
  std::string msg = std::to_string(job.subgroups.size()) + " sub-groups, at most " + std::to_string(std::max(best_groups, 0)) +
                    " fit whole in one " + (constrained(ssn, job) ? "domain of the job" : "cluster");
  if (auto why = subgroups_invalid(ssn, job)) msg += "; " + *why;
  for (size_t r = 0; job.group && r < job.group->sub_groups.size(); ++r)
    if (job.group->sub_groups[r].min_groups > 0)
      msg += "; '" + job.group->sub_groups[r].name + "' needs " + std::to_string(job.group->sub_groups[r].min_groups);
  job.unschedulable = {"NotEnoughResources", msg};
  return false;
}

}  // namespace weft::scheduler
