// Placing one job: gang all-or-nothing, one IB cluster, HyperNode tiers (hard/soft).
// Domains are chosen from per-node slot counts summed per domain (an index of free
// capacity per job shape), not by dry-running the job on every domain.
#include <algorithm>
#include <numeric>
#include <set>

#include "scheduler/core/session_state.h"

namespace weft::scheduler {
namespace {

struct Placed {
  int pod, node;
};

struct Attempt {
  std::vector<Placed> placed;
  std::map<std::string, int> reasons;   // node filter reasons for the first pod that failed
  std::string queue_short;              // resource over the queue's deserved share
  int failed = 0;
};

std::string template_key(const PodInfo& p) {
  std::string k = p.filter_signature + "#";
  for (const auto& [r, v] : p.request) k += r + "=" + std::to_string(v) + ";";
  return k;
}

// Tries each task on `candidates` (nullptr: every node); best score, or first fit in
// the given order when `ordered`. Keeps the placements when at least `need` succeed.
bool place_on(SessionState& s, Job& job, const std::vector<int>& tasks, const std::vector<int>* candidates,
              size_t need, bool ordered, Attempt& a) {
  a = Attempt{};
  std::set<std::string> failed_templates;
  QueueAccount* q = s.queue_of(job);
  bool proportion = s.config.has("proportion");
  for (int t : tasks) {
    const PodInfo& pod = s.snap.pods[t];
    std::string tk = template_key(pod);
    if (failed_templates.count(tk)) {
      ++a.failed;
      continue;
    }
    std::string short_res;
    if (q && proportion && !within_deserved(*q, pod.request, &short_res)) {
      a.queue_short = short_res;
      failed_templates.insert(tk);
      ++a.failed;
      continue;
    }
    if (q && !q->info->capability.empty()) {
      kube::ResourceList after = q->allocated;
      kube::add_to(after, pod.request);
      for (const auto& [k, v] : pod.request)
        if (v > 0 && q->info->capability.count(k) && after[k] > q->info->capability.at(k)) short_res = k;
      if (!short_res.empty()) {
        a.queue_short = short_res;
        failed_templates.insert(tk);
        ++a.failed;
        continue;
      }
    }
    int node = -1;
    if (ordered) {
      const StaticFilter& f = s.cluster.filter_for(t);
      for (int n : *candidates)
        if (!f.reject[n] && s.cluster.fits(t, n)) {
          node = n;
          break;
        }
    } else {
      node = s.cluster.best_node(t, candidates, nullptr);
    }
    if (node < 0) {
      if (a.reasons.empty()) s.cluster.best_node(t, candidates, &a.reasons);
      failed_templates.insert(tk);
      ++a.failed;
      continue;
    }
    s.assume(t, node);
    a.placed.push_back({t, node});
  }
  if (a.placed.size() >= need && !a.placed.empty()) return true;
  if (need == 0) return true;
  for (auto it = a.placed.rbegin(); it != a.placed.rend(); ++it) s.release(it->pod, it->node);
  a.placed.clear();
  return false;
}

struct Candidate {
  std::string name;
  int tier = 0;
  const std::vector<int>* nodes = nullptr;
  bool fit_all = false, fit_need = false;
  int64_t room = 0;                 // pods of the job that fit by resources and filters
  std::vector<int64_t> free;        // summed free capacity, dominant resource first
};

// Resources the job asks for, its largest share of the cluster first.
std::vector<int> dominant_order(SessionState& s, const std::vector<int>& tasks) {
  std::map<int, double> want;
  for (int t : tasks) {
    const auto& r = s.cluster.request(t);
    for (int d = 0; d < s.cluster.dims(); ++d)
      if (r[d] > 0 && s.cluster.dim_name(d) != "pods") want[d] += static_cast<double>(r[d]);
  }
  std::vector<std::pair<double, int>> order;
  for (auto [d, v] : want) {
    double total = 0;
    for (int n = 0; n < s.cluster.node_count(); ++n) total += static_cast<double>(s.cluster.allocatable(n, d));
    order.push_back({total > 0 ? -v / total : -1e18, d});
  }
  std::sort(order.begin(), order.end());
  std::vector<int> out;
  for (auto [share, d] : order) out.push_back(d);
  return out;
}

std::vector<Candidate> candidates_for(SessionState& s, const Job& job, const std::vector<int>& tasks, size_t need) {
  std::vector<Candidate> cands;
  for (const auto& d : allowed_domains(s, job)) cands.push_back({.name = d.name, .tier = d.tier, .nodes = d.nodes});
  // Per job shape: how many of its pods each node still holds.
  std::map<std::string, std::pair<int, int>> templates;   // key -> (representative, count)
  for (int t : tasks) {
    auto [it, inserted] = templates.try_emplace(template_key(s.snap.pods[t]), t, 0);
    ++it->second.second;
  }
  std::vector<std::vector<int64_t>> node_slots;
  for (const auto& [key, rep] : templates) {
    const StaticFilter& f = s.cluster.filter_for(rep.first);
    std::vector<int64_t> slots(s.cluster.node_count(), 0);
    for (int n : f.feasible) slots[n] = s.cluster.slots(rep.first, n);
    node_slots.push_back(std::move(slots));
  }
  std::vector<int> dims = dominant_order(s, tasks);
  for (auto& c : cands) {
    c.fit_all = true;
    size_t i = 0;
    for (const auto& [key, rep] : templates) {
      int64_t sum = 0;
      for (int n : *c.nodes) sum += node_slots[i][n];
      c.fit_all = c.fit_all && sum >= rep.second;
      c.room += std::min<int64_t>(sum, rep.second);
      ++i;
    }
    c.fit_need = c.room >= static_cast<int64_t>(need);
    c.free.assign(dims.size(), 0);
    for (int n : *c.nodes)
      for (size_t k = 0; k < dims.size(); ++k) c.free[k] += s.cluster.free(n, dims[k]);
  }
  // Lowest tier first; within it, domains that hold every pending pod, then the best
  // fit (least free capacity), then the name.
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    if (a.fit_all != b.fit_all) return a.fit_all;
    if (a.free != b.free) return a.free < b.free;
    return a.name < b.name;
  });
  return cands;
}

// Soft fallback: every node, the domain with the most room first at each tier from the top.
std::vector<int> roomiest_first(SessionState& s, const std::vector<Candidate>& cands, const std::vector<int>* within) {
  const Topology& topo = s.topo();
  std::map<std::string, int64_t> room;
  for (const auto& c : cands) room[c.name] = c.room;
  std::vector<int> nodes;
  if (within) nodes = *within;
  else {
    nodes.resize(s.cluster.node_count());
    std::iota(nodes.begin(), nodes.end(), 0);
  }
  std::vector<std::vector<int64_t>> key(s.cluster.node_count());
  for (int n : nodes) {
    std::vector<int64_t> k(topo.max_tier + 1, 0);
    for (int d : topo.node_domains[n]) {
      const Domain& dom = topo.domains[d];
      auto it = room.find(dom.name);
      k[topo.max_tier - dom.tier] = -(it == room.end() ? 0 : it->second);
    }
    key[n] = std::move(k);
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return key[a] < key[b]; });
  return nodes;
}

std::string failure_message(SessionState& s, const Attempt& a, size_t tasks, size_t need) {
  std::string msg;
  if (need > 1) msg = std::to_string(tasks) + " pending pods, gang needs " + std::to_string(need) + " at once: ";
  if (!a.queue_short.empty()) {
    msg += "queue would exceed its " + std::string(s.config.has("proportion") ? "deserved share" : "capability") +
           " of " + a.queue_short;
    if (!a.reasons.empty()) msg += "; ";
  }
  if (!a.reasons.empty() || a.queue_short.empty()) msg += format_reasons(s.cluster.node_count(), a.reasons);
  return msg;
}

}  // namespace

bool domain_bound(const Job& job) {
  return job.group && (job.group->same_ib_cluster || job.group->topology.mode == NetworkTopology::Mode::Hard);
}

namespace {

// HyperNodes of tier <= highestTierAllowed (single-fabric ones for an IB-cluster job) when
// `tiers`, else the IB clusters; only those holding every pod of the job already bound.
std::vector<DomainRef> domains_of(SessionState& s, const Job& job, bool tiers) {
  std::vector<DomainRef> out;
  if (!job.group) return out;
  const PodGroupInfo& g = *job.group;
  const Topology& topo = s.topo();
  if (tiers) {
    int highest = g.topology.highest_tier > 0 ? g.topology.highest_tier : topo.max_tier;
    for (const auto& d : topo.domains)
      if (d.tier <= highest && (!g.same_ib_cluster || !d.fabric.empty()) && !d.nodes.empty())
        out.push_back({d.name, d.tier, &d.nodes});
  } else if (g.same_ib_cluster) {
    for (const auto& [fabric, nodes] : topo.fabrics) out.push_back({fabric, 0, &nodes});
  }
  std::vector<int> bound;
  for (int p : job.pods)
    if (s.node_of_pod[p] >= 0) bound.push_back(s.node_of_pod[p]);
  std::erase_if(out, [&](const DomainRef& d) {
    for (int n : bound)
      if (!std::binary_search(d.nodes->begin(), d.nodes->end(), n)) return true;
    return false;
  });
  return out;
}

}  // namespace

std::vector<DomainRef> allowed_domains(SessionState& s, const Job& job) {
  return domains_of(s, job, job.group && job.group->topology.mode != NetworkTopology::Mode::None);
}

std::vector<DomainRef> confining_domains(SessionState& s, const Job& job) {
  return domains_of(s, job, job.group && job.group->topology.mode == NetworkTopology::Mode::Hard);
}

bool place_job(SessionState& s, Job& job, const std::vector<int>& in) {
  std::vector<int> tasks;
  for (int t : in)
    if (s.node_of_pod[t] < 0) tasks.push_back(t);
  if (tasks.empty()) return true;
  size_t need = static_cast<size_t>(s.need_of(job));
  if (!s.gang()) need = std::min<size_t>(need, 1);
  if (need > tasks.size()) {
    job.unschedulable = {"NotEnoughPods", "gang needs " + std::to_string(need) + " pods placed at once (minMember " +
                                              std::to_string(job.min_member) + "), only " +
                                              std::to_string(tasks.size()) + " pending"};
    return false;
  }
  const PodGroupInfo* g = job.group;
  bool constrained = g && (g->same_ib_cluster || g->topology.mode != NetworkTopology::Mode::None);
  Attempt a;
  bool ok = false;
  std::string constraint_msg;
  if (!constrained) {
    ok = place_on(s, job, tasks, nullptr, need, false, a);
  } else {
    std::vector<Candidate> cands = candidates_for(s, job, tasks, std::max<size_t>(need, 1));
    for (const auto& c : cands) {
      if (!c.fit_all && !c.fit_need) continue;
      if ((ok = place_on(s, job, tasks, c.nodes, need, false, a))) break;
    }
    bool soft = g->topology.mode == NetworkTopology::Mode::Soft;
    if (!ok && soft) {
      if (g->same_ib_cluster) {
        for (const auto& fabric : confining_domains(s, job)) {   // pods already bound pin the fabric
          std::vector<int> order = roomiest_first(s, cands, fabric.nodes);
          if ((ok = place_on(s, job, tasks, &order, need, true, a))) break;
        }
      } else if (s.topo().domains.empty()) {
        ok = place_on(s, job, tasks, nullptr, need, false, a);
      } else {
        std::vector<int> order = roomiest_first(s, cands, nullptr);
        ok = place_on(s, job, tasks, &order, need, true, a);
      }
    }
    if (!ok) {
      int64_t best_room = 0;
      std::string best_name;
      for (const auto& c : cands)
        if (c.room > best_room) best_room = c.room, best_name = c.name;
      std::string what;
      if (g->topology.mode == NetworkTopology::Mode::Hard)
        what = "no single HyperNode of tier <= " +
               std::to_string(g->topology.highest_tier > 0 ? g->topology.highest_tier : s.topo().max_tier);
      else
        what = "no single IB cluster (" + std::string(keys::kFabric) + ")";
      constraint_msg = "gang of " + std::to_string(std::max<size_t>(need, 1)) + " pods fits " + what +
                       (best_name.empty() ? std::string(" (no candidate domain)")
                                          : " (most room: " + best_name + " holds " + std::to_string(best_room) + ")");
      if (!soft || a.reasons.empty()) {
        // Name the filters as seen on every node for the first pod.
        a.reasons.clear();
        s.cluster.best_node(tasks.front(), nullptr, &a.reasons);
      }
    }
  }
  if (ok) {
    for (const auto& p : a.placed) {
      s.out.bindings.push_back({s.snap.pods[p.pod].key, s.snap.nodes[p.node].name});
      s.out.events.push_back({"Pod", s.snap.pods[p.pod].key, "Normal", "Scheduled",
                              "Successfully assigned " + s.snap.pods[p.pod].key + " to " + s.snap.nodes[p.node].name});
    }
    std::erase_if(job.pending, [&](int p) { return s.node_of_pod[p] >= 0; });
    if (job.enqueued && job.phase != "Running" && job.occupied() >= job.min_member) job.phase = "Running";
    if (a.failed > 0) job.unschedulable = {"NotEnoughResources", failure_message(s, a, tasks.size(), 0)};
    else job.unschedulable.reset();
    return true;
  }
  std::string msg = failure_message(s, a, tasks.size(), need);
  if (!constraint_msg.empty()) msg = constraint_msg + "; " + msg;
  job.unschedulable = {"NotEnoughResources", msg};
  return false;
}

}  // namespace weft::scheduler
