// Placing one job: gang all-or-nothing, one IB cluster, HyperNode tiers (hard/soft).
// Domains are chosen from per-node slot counts summed per domain (an index of free
// capacity per job shape), not by dry-running the job on every domain. A domain that
// holds every pending pod wins over one that holds only the gang's minimum; among
// those, the lowest tier, then the plugins' HyperNode order (best fit).
#include "scheduler/core/actions/place_job.h"
#include "scheduler/core/actions/place_subgroups.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "common/keys.h"
#include "scheduler/core/framework/domains.h"
#include "scheduler/core/framework/ranks.h"
#include "scheduler/core/framework/statement.h"

namespace weft::scheduler {
namespace {

struct Attempt {
  std::map<std::string, int> reasons;   // node filter reasons for the first pod that failed
  std::string queue_short;              // "deserved share of cpu", "capability of memory"
  int failed = 0;
};

// Pods with equal keys fare alike on every node. Where placements constrain each other
// (inter-pod affinity, spread, ports) the labels take part: they decide who repels whom.
std::string template_key(const Session& ssn, const PodInfo& p) {
  std::string k = p.filter_signature + "#" + p.task_role + "#";
  for (const auto& [r, v] : p.request) k += r + "=" + std::to_string(v) + ";";
  if (ssn.cluster.has_dynamic_predicates())
    for (const auto& [key, value] : p.labels) k += "#" + key + "=" + value;
  return k;
}

// What the queue would exceed with the pod: its real capability, else its deserved share.
std::string queue_shortage(const QueueAccount& q, const PodInfo& pod) {
  for (const auto& [limit, what] : {std::pair{&q.capability, "capability"}, std::pair{&q.deserved, "deserved share"}})
    for (const auto& [k, v] : pod.request)
      if (v > 0 && k != "pods" && limit->count(k) && !less_equal(get(q.allocated, k) + static_cast<double>(v), limit->at(k)))
        return std::string(what) + " of " + k;
  return "allocatable share";
}

// Tries each task on `candidates` (nullptr: every node); best score, or first fit in
// the given order when `ordered`. Keeps the placements when the job is then ready.
bool place_on(Session& ssn, Job& job, const std::vector<int>& tasks, const std::vector<int>* candidates, bool ordered,
              Statement& stmt, Attempt& a) {
  a = Attempt{};
  std::set<std::string> failed_templates;
  QueueAccount* q = ssn.queue_of(job);
  for (int t : tasks) {
    const PodInfo& pod = ssn.snap.pods[t];
    std::string tk = template_key(ssn, pod);
    if (failed_templates.count(tk)) {
      ++a.failed;
      continue;
    }
    if (q && !ssn.allocatable(*q, t)) {
      a.queue_short = queue_shortage(*q, pod);
      failed_templates.insert(tk);
      ++a.failed;
      continue;
    }
    int node = -1;
    if (ordered) {
      const StaticFilter& f = ssn.cluster.filter_for(t);
      for (int n : *candidates)
        if (!f.reject[n] && ssn.cluster.fits_now(t, n)) {
          node = n;
          break;
        }
    } else {
      node = ssn.cluster.best_node(t, candidates, nullptr);
    }
    if (node < 0) {
      if (a.reasons.empty()) ssn.cluster.best_node(t, candidates, &a.reasons);
      failed_templates.insert(tk);
      ++a.failed;
      continue;
    }
    stmt.allocate(t, node);
  }
  if (stmt.allocated() > 0 && ssn.job_ready(job)) return true;
  stmt.discard();
  return false;
}

// A ranked gang (ranks.h) goes first-fit in rank order over nodes ordered domain by
// domain, so consecutive ranks share the lowest domain; others take each pod's best node.
bool place_on_nodes(Session& ssn, Job& job, const std::vector<int>& tasks, const std::vector<int>* nodes,
                    Statement& stmt, Attempt& a) {
  if (!ranked(ssn, job)) return place_on(ssn, job, tasks, nodes, false, stmt, a);
  std::vector<int> order = rank_node_order(ssn, tasks.front(), nodes);
  return place_on(ssn, job, tasks, &order, true, stmt, a);
}

struct Candidate {
  DomainRef domain;
  bool fit_all = false, fit_need = false;
  int64_t room = 0;                 // pods of the job that fit by resources and filters
  double score = 0;                 // plugins' HyperNode order
  std::vector<double> free;         // summed free capacity, dominant resource first
};

// Resources the job asks for, its largest share of the cluster first.
std::vector<int> dominant_order(Session& ssn, const std::vector<int>& tasks) {
  std::map<int, double> want;
  for (int t : tasks) {
    const auto& r = ssn.cluster.request(t);
    for (int d = 0; d < ssn.cluster.dims(); ++d)
      if (r[d] > 0 && ssn.cluster.dim_name(d) != "pods") want[d] += static_cast<double>(r[d]);
  }
  std::vector<std::pair<double, int>> order;
  for (auto [d, v] : want) {
    double total = 0;
    for (int n = 0; n < ssn.cluster.node_count(); ++n) total += static_cast<double>(ssn.cluster.allocatable(n, d));
    order.push_back({total > 0 ? -v / total : -1e18, d});
  }
  std::sort(order.begin(), order.end());
  std::vector<int> out;
  for (auto [share, d] : order) out.push_back(d);
  return out;
}

// Per node, how many more pods like `pod` it holds now: static filters, the dynamic ones
// (at most one where the pod's host ports would meet its twin's), resources.
std::vector<int64_t> template_slots(Session& ssn, int pod) {
  const StaticFilter& f = ssn.cluster.filter_for(pod);
  std::vector<int64_t> slots(ssn.cluster.node_count(), 0);
  const bool dynamic = ssn.cluster.has_dynamic_predicates();
  const bool one_per_node = dynamic && !ssn.snap.pods[pod].contract().host_ports.empty();
  for (int n : f.feasible) {
    if (dynamic && !ssn.cluster.dynamic_reject(pod, n).empty()) continue;
    slots[n] = ssn.cluster.slots(pod, n);
    if (one_per_node) slots[n] = std::min<int64_t>(slots[n], 1);
  }
  return slots;
}

// Pods that repel their own kind on topology key `key` fit once per domain of it (and
// freely on nodes without the label).
int64_t repelled_room(Session& ssn, int key, const std::vector<int>& nodes, const std::vector<int64_t>& slots) {
  PlacedPods& placed = ssn.cluster.placed();
  std::vector<char> seen(placed.domain_count(key), 0);
  int64_t room = 0;
  for (int n : nodes) {
    if (slots[n] <= 0) continue;
    int d = placed.domain(key, n);
    if (d < 0) room += slots[n];
    else if (!seen[d]) seen[d] = 1, ++room;
  }
  return room;
}

std::vector<Candidate> candidates_for(Session& ssn, const Job& job, const std::vector<int>& tasks, size_t need) {
  std::vector<Candidate> cands;
  for (const auto& d : allowed_domains(ssn, job)) cands.push_back({.domain = d});
  // Per job shape: how many of its pods each node still holds.
  std::map<std::string, std::pair<int, int>> templates;   // key -> (representative, count)
  for (int t : tasks) {
    auto [it, inserted] = templates.try_emplace(template_key(ssn, ssn.snap.pods[t]), t, 0);
    ++it->second.second;
  }
  std::vector<std::vector<int64_t>> node_slots;
  std::vector<std::vector<int>> repelling_keys;   // per template: at most one pod per domain of each
  for (const auto& [key, rep] : templates) {
    node_slots.push_back(template_slots(ssn, rep.first));
    repelling_keys.emplace_back();
    if (ssn.cluster.has_dynamic_predicates())
      for (const auto& k : self_repelling_keys(ssn.snap, ssn.snap.pods[rep.first]))
        repelling_keys.back().push_back(ssn.cluster.placed().topology_key(k));
  }
  std::vector<int> dims = dominant_order(ssn, tasks);
  const bool scored = ssn.has_hypernode_order();
  for (auto& c : cands) {
    c.fit_all = true;
    size_t i = 0;
    for (const auto& [key, rep] : templates) {
      int64_t sum = 0;
      for (int n : *c.domain.nodes) sum += node_slots[i][n];
      for (int k : repelling_keys[i]) sum = std::min(sum, repelled_room(ssn, k, *c.domain.nodes, node_slots[i]));
      c.fit_all = c.fit_all && sum >= rep.second;
      c.room += std::min<int64_t>(sum, rep.second);
      ++i;
    }
    c.fit_need = c.room >= static_cast<int64_t>(need);
    if (!c.fit_all && !c.fit_need) continue;
    if (scored) c.score = ssn.hypernode_score(job, c.domain);
    c.free.assign(dims.size(), 0);
    for (int n : *c.domain.nodes)
      for (size_t k = 0; k < dims.size(); ++k) c.free[k] += static_cast<double>(ssn.cluster.free(n, dims[k]));
  }
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    if (a.fit_all != b.fit_all) return a.fit_all;
    if (a.domain.tier != b.domain.tier) return a.domain.tier < b.domain.tier;
    if (a.score != b.score) return a.score > b.score;
    if (a.free != b.free) return a.free < b.free;
    return a.domain.name < b.domain.name;
  });
  return cands;
}

// Soft fallback: every node, the domain with the most room first at each tier from the top.
std::vector<int> roomiest_first(Session& ssn, const std::vector<Candidate>& cands, const std::vector<int>* within) {
  const Topology& topo = ssn.topo();
  std::map<std::string, int64_t> room;
  for (const auto& c : cands) room[c.domain.name] = c.room;
  std::vector<int> nodes;
  if (within) {
    nodes = *within;
  } else {
    nodes.resize(ssn.cluster.node_count());
    std::iota(nodes.begin(), nodes.end(), 0);
  }
  std::vector<std::vector<int64_t>> key(ssn.cluster.node_count());
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

std::string failure_message(Session& ssn, const Attempt& a, size_t tasks, size_t need) {
  std::string msg;
  if (need > 1) msg = std::to_string(tasks) + " pending pods, gang needs " + std::to_string(need) + " at once: ";
  if (!a.queue_short.empty()) {
    msg += "queue would exceed its " + a.queue_short;
    if (!a.reasons.empty()) msg += "; ";
  }
  if (!a.reasons.empty() || a.queue_short.empty()) msg += format_reasons(ssn.cluster.node_count(), a.reasons);
  return msg;
}

// Tries the job's domains; true when placed (the statement holds the placements).
bool place_in_domains(Session& ssn, Job& job, const std::vector<int>& tasks, size_t need, Statement& stmt, Attempt& a,
                      std::string& constraint_msg) {
  const PodGroupInfo* g = job.group;
  auto highest = highest_tier(ssn, job);
  if (!highest) {
    constraint_msg = highest.message();
    return false;
  }
  std::vector<Candidate> cands = candidates_for(ssn, job, tasks, std::max<size_t>(need, 1));
  for (const auto& c : cands) {
    if (!c.fit_all && !c.fit_need) continue;
    if (place_on_nodes(ssn, job, tasks, c.domain.nodes, stmt, a)) return true;
  }
  bool soft = g && g->topology.mode == NetworkTopology::Mode::Soft;
  if (soft) {
    if (g->same_ib_cluster) {
      for (const auto& fabric : confining_domains(ssn, job)) {   // pods already bound pin the fabric
        std::vector<int> order = roomiest_first(ssn, cands, fabric.nodes);
        if (place_on(ssn, job, tasks, &order, true, stmt, a)) return true;
      }
    } else if (ssn.topo().domains.empty()) {
      if (place_on(ssn, job, tasks, nullptr, false, stmt, a)) return true;
    } else {
      std::vector<int> order = roomiest_first(ssn, cands, nullptr);
      if (place_on(ssn, job, tasks, &order, true, stmt, a)) return true;
    }
  }
  int64_t best_room = 0;
  std::string best_name;
  for (const auto& c : cands)
    if (c.room > best_room) best_room = c.room, best_name = c.domain.name;
  std::string what = g && !g->topology_key.empty() ? "no single domain of topology key " + g->topology_key
                     : g && g->topology.mode == NetworkTopology::Mode::Hard
                         ? "no single HyperNode of tier <= " + std::to_string(*highest)
                         : "no single IB cluster (" + std::string(keys::kFabric) + ")";
  constraint_msg = "gang of " + std::to_string(std::max<size_t>(need, 1)) + " pods fits " + what +
                   (best_name.empty() ? std::string(" (no candidate domain)")
                                      : " (most room: " + best_name + " holds " + std::to_string(best_room) + ")");
  if (!soft || a.reasons.empty()) {
    // Name the filters as seen on every node for the first pod.
    a.reasons.clear();
    ssn.cluster.best_node(tasks.front(), nullptr, &a.reasons);
  }
  return false;
}

}  // namespace

bool place_job(Session& ssn, Job& job, const std::vector<int>& in) {
  std::vector<int> tasks;
  int held_back = -1;   // a pending pod that is no candidate (gated, DRA), which the gang cannot count
  for (int t : in)
    if (ssn.node_of_pod[t] < 0 && !ssn.pipelined_pod[t]) {
      if (ssn.snap.pods[t].held_back()) held_back = t;
      else tasks.push_back(t);
    }
  if (tasks.empty() && held_back >= 0) {
    job.unschedulable = ssn.snap.pods[held_back].held_back_reason();
    return false;
  }
  if (tasks.empty()) return true;
  size_t need = static_cast<size_t>(ssn.need_of(job));
  if (need > tasks.size()) {
    job.unschedulable = {"NotEnoughPods", "gang needs " + std::to_string(need) + " pods placed at once (minMember " +
                                              std::to_string(job.min_member) + "), only " +
                                              std::to_string(tasks.size()) + " pending"};
    return false;
  }
  if (!job.subgroups.empty()) return place_subgroups(ssn, job, tasks);
  Statement stmt(ssn);
  Attempt a;
  std::string constraint_msg;
  bool ok = constrained(ssn, job) ? place_in_domains(ssn, job, tasks, need, stmt, a, constraint_msg)
                                  : place_on_nodes(ssn, job, tasks, nullptr, stmt, a);
  if (ok) {
    stmt.commit();
    std::erase_if(job.pending, [&](int p) { return ssn.node_of_pod[p] >= 0; });
    if (job.enqueued && job.phase != "Running" && job.occupied() >= job.min_member) job.phase = "Running";
    if (a.failed > 0) job.unschedulable = {"NotEnoughResources", failure_message(ssn, a, tasks.size(), 0)};
    else job.unschedulable.reset();
    return true;
  }
  std::string msg = failure_message(ssn, a, tasks.size(), need);
  if (!constraint_msg.empty()) msg = constraint_msg + "; " + msg;
  job.unschedulable = {"NotEnoughResources", msg};
  return false;
}

}  // namespace weft::scheduler
