#include "descheduler/core/defragment/defragment.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "descheduler/core/defragment/domain_search.h"
#include "descheduler/core/framework/default_evictor.h"
#include "scheduler/core/query/domain.h"
#include "scheduler/core/query/fit.h"
#include "scheduler/core/topology.h"

namespace weft::descheduler::defragment {
namespace {

using scheduler::NetworkTopology;

struct DomainRef {
  std::string name;
  int tier = 0;
  const std::vector<int>* nodes = nullptr;   // ascending snapshot node indices
};

struct Gang {
  const scheduler::PodGroupInfo* group = nullptr;
  std::vector<int> pending, bound;   // snapshot pod indices
  int32_t priority = 0;
};

// Repair rounds per gang: each one takes one victim out of the running (its budget ran
// out, or it fits nowhere outside the domain) and searches again.
constexpr int kMaxRepairs = 32;

class Defragmenter {
 public:
  Defragmenter(const World& w, const Args& args, const Options& opt, framework::Evictor& ev, const Plan& evictor_plan)
      : w_(w), s_(w.snapshot()), args_(args), opt_(opt), ev_(ev), evictor_plan_(evictor_plan),
        topo_(w.cluster.topology), fit_(w.snapshot()) {}

  Outcome run() {
    index();
    std::vector<Gang> all = gangs();
    for (const Gang& g : all) max_need_ = std::max(max_need_, g.group->min_member - static_cast<int>(g.bound.size()));
    mark_gang_hosts(all);
    for (Gang& g : all) help(g);
    return std::move(out_);
  }

 private:
  // ---- the cluster as the cycle changes it ----
  void index() {
    const size_t N = s_.nodes.size();
    node_pods_.resize(N);
    desched_node_.assign(N, -1);
    for (size_t n = 0; n < N; ++n) {
      node_of_[s_.nodes[n].name] = static_cast<int>(n);
      if (auto it = w_.cluster.node_index.find(s_.nodes[n].name); it != w_.cluster.node_index.end())
        desched_node_[n] = it->second;
    }
    std::unordered_map<std::string, int> desched_pod;
    for (size_t i = 0; i < w_.cluster.pods.size(); ++i) desched_pod[w_.cluster.pods[i].key()] = static_cast<int>(i);
    desched_pod_.assign(s_.pods.size(), -1);
    movable_.assign(s_.pods.size(), false);
    evicted_.assign(s_.pods.size(), false);
    pod_node_.assign(s_.pods.size(), -1);
    for (size_t p = 0; p < s_.pods.size(); ++p) {
      const auto& pod = s_.pods[p];
      if (!pod.bound()) continue;
      auto it = node_of_.find(pod.node);
      if (it == node_of_.end()) continue;
      pod_node_[p] = it->second;
      node_pods_[static_cast<size_t>(it->second)].push_back(static_cast<int>(p));   // the fit holds its room
      if (!pod.group.empty() && !pod.terminating) ++bound_in_group_[pod.group];
      auto d = desched_pod.find(pod.key);
      if (d == desched_pod.end()) continue;
      desched_pod_[p] = d->second;
      const PodInfo& dp = w_.cluster.pods[static_cast<size_t>(d->second)];
      movable_[p] = !pod.terminating &&
                    framework::namespace_allowed(args_.include_namespaces, args_.exclude_namespaces, dp.ns) &&
                    ev_.filter(d->second).empty() &&
                    ev_.pre_eviction_filter(d->second, framework::kTargetChosenLater).empty();
    }
    moved_earlier();
    kube::ReservedRooms reserved;
    for (const auto& [gang, r] : w_.reservations) {
      auto g = s_.podgroups.find(gang);
      bool satisfied = g == s_.podgroups.end() || bound_in_group_[gang] >= g->second.min_member;
      reserved.add(gang, r, satisfied, opt_.now);
    }
    held_ = std::move(reserved);
    reserved_holder_.assign(N, nullptr);
    for (size_t n = 0; n < N; ++n) reserved_holder_[n] = held_.holder(s_.nodes[n].name);
    taken_.assign(N, 0);
    for (size_t p = 0; p < s_.pods.size(); ++p)
      if (movable_[p]) priorities_.push_back(s_.pods[p].priority);
    std::sort(priorities_.begin(), priorities_.end());
    priorities_.erase(std::unique(priorities_.begin(), priorities_.end()), priorities_.end());
  }

  // The evictor's budgets (PodDisruptionBudgets, the pod's own gang, the limits) still
  // allow this pod to go.
  // Pods the profile's earlier plugins evicted: gone from their nodes, their requests held
  // on their targets.
  void moved_earlier() {
    for (const auto& e : evictor_plan_.evictions) {
      auto pod = std::lower_bound(s_.pods.begin(), s_.pods.end(), e.pod(),
                                  [](const scheduler::PodInfo& p, const std::string& key) { return p.key < key; });
      if (pod == s_.pods.end() || pod->key != e.pod()) continue;
      size_t p = static_cast<size_t>(pod - s_.pods.begin());
      if (pod_node_[p] < 0 || evicted_[p]) continue;
      evicted_[p] = true;
      movable_[p] = false;
      auto t = node_of_.find(e.to);
      fit_.place(static_cast<int>(p), t == node_of_.end() ? -1 : t->second);
    }
  }

  bool budget_left(int pod) const { return ev_.overdrawn({desched_pod_[static_cast<size_t>(pod)]}).empty(); }

  // Nodes that could hold a pod of some pending gang once every movable pod left. Victims
  // go to the other nodes first, so a move for one gang does not block the next.
  void mark_gang_hosts(const std::vector<Gang>& all) {
    const size_t N = s_.nodes.size();
    hosts_gang_.assign(N, false);
    const int D = fit_.dims();
    std::vector<Request> fixed(N, Request(static_cast<size_t>(D), 0));
    for (size_t n = 0; n < N; ++n)
      for (int p : node_pods_[n])
        if (!movable_[static_cast<size_t>(p)])
          for (int d = 0; d < D; ++d) fixed[n][static_cast<size_t>(d)] += fit_.request(p)[static_cast<size_t>(d)];
    for (const Gang& g : all) {
      Request shape = request_of(fit_.request(g.pending.front()));
      for (int p : g.pending) shape = max_of(shape, fit_.request(p));
      for (size_t n = 0; n < N; ++n) {
        if (hosts_gang_[n]) continue;
        bool room = true;
        for (int d = 0; d < D && room; ++d)
          room = fixed[n][static_cast<size_t>(d)] + shape[static_cast<size_t>(d)] <= fit_.allocatable(static_cast<int>(n), d);
        hosts_gang_[n] = room && node_takes(static_cast<int>(n), g.pending);
      }
    }
  }

  // ---- the gangs ----
  std::vector<Gang> gangs() const {
    std::map<std::string, Gang> by_key;
    for (const auto& [key, g] : s_.podgroups) {
      bool domain_bound = g.same_ib_cluster || g.topology.mode == NetworkTopology::Mode::Hard;
      if (domain_bound) by_key[key].group = &g;
    }
    for (size_t p = 0; p < s_.pods.size(); ++p) {
      const auto& pod = s_.pods[p];
      auto it = by_key.find(pod.group);
      if (it == by_key.end() || pod.terminal()) continue;
      if (pod.node.empty() && !pod.terminating) it->second.pending.push_back(static_cast<int>(p));
      else if (!pod.node.empty() && !pod.terminating) it->second.bound.push_back(static_cast<int>(p));
    }
    std::vector<Gang> out;
    for (auto& [key, g] : by_key) {
      if (g.pending.empty() || static_cast<int>(g.bound.size()) >= g.group->min_member) continue;
      g.priority = g.group->priority;
      for (int p : g.pending) g.priority = std::max(g.priority, s_.pods[static_cast<size_t>(p)].priority);
      out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end(), [](const Gang& a, const Gang& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.group->queue != b.group->queue) return a.group->queue < b.group->queue;
      return a.group->key < b.group->key;
    });
    return out;
  }

  // The domains the scheduler would place the gang in (scheduler/core/placement.cc):
  // HyperNodes up to the allowed tier (one-fabric ones for an IB-cluster gang), else the
  // IB fabrics; only those holding the gang's pods already bound.
  std::vector<DomainRef> domains(const Gang& g) const {
    std::vector<DomainRef> out;
    const auto& pg = *g.group;
    if (pg.topology.mode == NetworkTopology::Mode::Hard) {
      auto tier = scheduler::query::highest_tier(topo_, pg.topology);   // an unknown tierName: no domain
      const int highest = tier ? *tier : 0;
      for (const auto& d : topo_.domains)
        if (d.tier <= highest && (!pg.same_ib_cluster || !d.fabric.empty()) && !d.nodes.empty())
          out.push_back({d.name, d.tier, &d.nodes});
    } else {
      for (const auto& [fabric, nodes] : topo_.fabrics)
        out.push_back({std::string(keys::kFabric) + "=" + fabric, 0, &nodes});
    }
    std::erase_if(out, [&](const DomainRef& d) {
      for (int p : g.bound)
        if (!std::binary_search(d.nodes->begin(), d.nodes->end(), pod_node_[static_cast<size_t>(p)])) return true;
      return false;
    });
    return out;
  }

  // The scheduler's filters, room aside, for every pod of the gang: ready, schedulable,
  // taints, node affinity, and those that count the pods there (ports, inter-pod
  // (anti-)affinity, spread, volumes).
  bool node_takes(int node, const std::vector<int>& pods) const {
    for (int p : pods)
      if (!fit_.reject_placement(p, node).empty()) return false;
    return true;
  }

  // Options per node are shared by the gangs of one shape, filter signature and priority
  // band (the same pods are movable for them), and recomputed only where a commit changed
  // the node. A gang's own bound pods and the victims a repair took out make gang-local
  // options on their nodes.
  struct OptionCache {
    std::vector<std::vector<Option>> options;
    std::vector<char> fresh;
  };

  struct Search {
    const Gang* gang = nullptr;
    std::vector<int> pods;          // the pending pods to make room for
    Request shape;
    OptionCache* cache = nullptr;
    std::set<int> excluded;         // victims taken out by repairs
    std::map<int, std::vector<Option>> local;
    // Its pods carry a term that counts the other pods of a node (anti-affinity, spread,
    // host ports): per node, the options capped at what the scheduler lets share it.
    bool counts_others = false;
    std::map<int, std::vector<Option>> capped;
  };

  std::string cache_key(const Search& s) const {
    std::string key;
    for (int64_t v : s.shape) key += std::to_string(v) + ",";
    std::set<std::string> signatures;
    for (int p : s.pods) signatures.insert(s_.pods[static_cast<size_t>(p)].filter_signature);
    for (const auto& sig : signatures) key += "|" + sig;
    auto band = std::lower_bound(priorities_.begin(), priorities_.end(), s.gang->priority) - priorities_.begin();
    return key + "|" + std::to_string(band);
  }

  std::vector<Option> compute_options(const Search& s, int node, bool gang_local) const {
    size_t n = static_cast<size_t>(node);
    if (!node_takes(node, s.pods)) return {};
    std::vector<Movable> mv;
    for (int p : node_pods_[n]) {
      size_t pi = static_cast<size_t>(p);
      const auto& pod = s_.pods[pi];
      if (!movable_[pi] || evicted_[pi] || pod.priority >= s.gang->priority || !budget_left(p)) continue;
      if (gang_local && (s.excluded.count(p) || pod.group == s.gang->group->key)) continue;
      mv.push_back({p, request_of(fit_.request(p)), Cost{1, pod.priority, share(p, node)}});
    }
    Request free(static_cast<size_t>(fit_.dims()));
    for (int d = 0; d < fit_.dims(); ++d) free[static_cast<size_t>(d)] = fit_.free(node, d);
    return node_options(free, s.shape, mv, max_need_, args_.max_evictions_per_gang);
  }

  const std::vector<Option>& options_on(Search& s, int node) {
    size_t n = static_cast<size_t>(node);
    if (taken_[n] || (reserved_holder_[n] && *reserved_holder_[n] != s.gang->group->key)) return no_options_;
    if (!s.counts_others) return room_options(s, node);
    auto it = s.capped.find(node);
    if (it == s.capped.end()) {
      const std::vector<Option>& room = room_options(s, node);
      const int most = room.empty() ? 0 : room.back().slots;
      it = s.capped.emplace(node, capped(room, together_on(s, node, most))).first;
    }
    return it->second;
  }

  // The options by room alone: the gang's own (local) ones, else the shared cache's.
  const std::vector<Option>& room_options(Search& s, int node) {
    size_t n = static_cast<size_t>(node);
    if (auto it = s.local.find(node); it != s.local.end()) return it->second;
    if (!s.cache->fresh[n]) {
      s.cache->options[n] = compute_options(s, node, false);
      s.cache->fresh[n] = 1;
    }
    return s.cache->options[n];
  }

  void set_local(Search& s, int node) {
    s.local[node] = compute_options(s, node, true);
    s.capped.erase(node);
  }

  // How many of the gang's pods (at most `most`) the scheduler's filters, room aside, let
  // share the node: each is placed there in turn, as the scheduler places a gang's pods,
  // until one is refused (anti-affinity toward its own pods, a host port, a spread
  // constraint). The fit is left as it was.
  int together_on(const Search& s, int node, int most) {
    int placed = 0;
    while (placed < most && placed < static_cast<int>(s.pods.size()) &&
           fit_.reject_placement(s.pods[static_cast<size_t>(placed)], node).empty())
      fit_.place(s.pods[static_cast<size_t>(placed++)], node);
    for (int i = 0; i < placed; ++i) fit_.place(s.pods[static_cast<size_t>(i)], -1);
    return placed;
  }

  // The options up to the first that holds `cap` slots, that one counted as `cap`.
  static std::vector<Option> capped(const std::vector<Option>& options, int cap) {
    std::vector<Option> out;
    if (cap <= 0) return out;
    for (const Option& o : options) {
      out.push_back(o);
      if (o.slots >= cap) {
        out.back().slots = cap;
        break;
      }
    }
    return out;
  }

  static bool counts_other_pods(const scheduler::PodInfo& pod) {
    const auto& c = pod.contract();
    return !c.anti_affinity.empty() || !c.spread.empty() || !c.host_ports.empty();
  }

  // A move touched the node; when some pod's filters count other pods (anti-affinity over
  // a zone, spread), what fits elsewhere may have changed too.
  void changed(int node) {
    for (auto& [key, c] : caches_) {
      if (fit_.depends_on_other_pods()) std::fill(c.fresh.begin(), c.fresh.end(), 0);
      else c.fresh[static_cast<size_t>(node)] = 0;
    }
  }

  // The pod's largest share of the node's allocatable (its "usage" for tie-breaks).
  double share(int pod, int node) const {
    double worst = 0;
    const auto r = fit_.request(pod);
    for (int d = 0; d < fit_.dims(); ++d) {
      int64_t a = fit_.allocatable(node, d);
      if (fit_.dim_name(d) != "pods" && a > 0) worst = std::max(worst, static_cast<double>(r[static_cast<size_t>(d)]) / static_cast<double>(a));
    }
    return worst;
  }

  void unhelped(const Gang& g, const std::string& reason, const std::string& detail) {
    out_.unhelped.push_back({g.group->key, reason, detail});
  }

  void help(const Gang& g) {
    const auto& pg = *g.group;
    if (auto r = w_.reservations.find(pg.key); r != w_.reservations.end() && r->second.live(opt_.now)) {
      unhelped(g, "reserved", "room in " + r->second.domain + " is held until " + kube::format_rfc3339(r->second.expires));
      return;
    }
    if (auto q = s_.queues.find(pg.queue); q != s_.queues.end() && !q->second.open) {
      unhelped(g, "queue-closed", "queue " + pg.queue + " is closed");
      return;
    }
    int need = pg.min_member - static_cast<int>(g.bound.size());
    if (static_cast<int>(g.pending.size()) < need) {
      unhelped(g, "not-enough-pods", std::to_string(g.pending.size()) + " pending, " + std::to_string(need) + " needed");
      return;
    }
    std::vector<DomainRef> doms = domains(g);
    if (doms.empty()) {
      unhelped(g, "no-domain", "no domain holds the gang's bound pods, or the cluster has none");
      return;
    }
    Search s;
    s.gang = &g;
    s.pods.assign(g.pending.begin(), g.pending.begin() + need);
    s.shape = request_of(fit_.request(s.pods.front()));
    for (int p : s.pods) s.shape = max_of(s.shape, fit_.request(p));
    OptionCache& cache = caches_[cache_key(s)];
    if (cache.options.empty()) {
      cache.options.resize(s_.nodes.size());
      cache.fresh.assign(s_.nodes.size(), 0);
    }
    s.cache = &cache;
    s.counts_others = std::any_of(s.pods.begin(), s.pods.end(),
                                  [&](int p) { return counts_other_pods(s_.pods[static_cast<size_t>(p)]); });
    for (int p : g.bound) set_local(s, pod_node_[static_cast<size_t>(p)]);
    OptionsOf options_of = [&](int n) -> const std::vector<Option>& { return options_on(s, n); };
    for (int round = 0; round <= kMaxRepairs; ++round) {
      DomainPlan best;
      const DomainRef* where = nullptr;
      for (const auto& d : doms) {
        DomainPlan p = search_.cheapest(*d.nodes, options_of, need);
        if (p.found() && (!where || p.cost < best.cost || (!(best.cost < p.cost) && d.tier < where->tier))) {
          best = std::move(p);
          where = &d;
        }
      }
      if (!where) {
        unhelped(g, round == 0 ? "no-movable-room" : "victims-cannot-move",
                 "no domain of " + std::to_string(doms.size()) + " fits " + std::to_string(need) +
                     " pods even after evicting every movable pod");
        return;
      }
      if (best.cost.pods == 0) {
        unhelped(g, "fits", where->name + " already has room for " + std::to_string(need) + " pods");
        return;
      }
      if (best.cost.pods > args_.max_evictions_per_gang) {
        unhelped(g, "too-many-evictions", where->name + " needs " + std::to_string(best.cost.pods) +
                                              " evictions, maxEvictionsPerGang is " +
                                              std::to_string(args_.max_evictions_per_gang));
        return;
      }
      if (auto total_left = ev_.total_left(); total_left && best.cost.pods > *total_left) {
        unhelped(g, "eviction-limit", where->name + " needs " + std::to_string(best.cost.pods) + " evictions, " +
                                          std::to_string(*total_left) + " left under maxNoOfPodsToEvictTotal");
        return;
      }
      std::vector<int> victims;
      for (const auto& [node, o] : best.picks)
        for (int v : options_on(s, node)[static_cast<size_t>(o)].victims) victims.push_back(v);
      int bad = over_budget(victims);
      std::vector<std::pair<int, int>> moves;   // (victim, target)
      if (bad < 0) bad = place_victims(victims, *where->nodes, moves);
      if (bad >= 0) {
        s.excluded.insert(bad);
        set_local(s, pod_node_[static_cast<size_t>(bad)]);
        continue;
      }
      commit(s, *where, best, moves);
      return;
    }
    unhelped(g, "victims-cannot-move", "no set of movable victims found in " + std::to_string(kMaxRepairs) + " rounds");
  }

  // A victim whose budget the set overdraws (the costliest such), or -1.
  int over_budget(const std::vector<int>& victims) const {
    std::vector<int> evictor_pods;
    std::unordered_map<int, int> snapshot_pod;
    for (int v : victims) {
      evictor_pods.push_back(desched_pod_[static_cast<size_t>(v)]);
      snapshot_pod[evictor_pods.back()] = v;
    }
    int worst = -1;
    for (int d : ev_.overdrawn(evictor_pods)) {
      int v = snapshot_pod.at(d);
      if (worst < 0 || cost_of(worst) < cost_of(v)) worst = v;
    }
    return worst;
  }

  Cost cost_of(int p) const {
    return {1, s_.pods[static_cast<size_t>(p)].priority, share(p, pod_node_[static_cast<size_t>(p)])};
  }

  // A node outside the domain for every victim, largest first, each one placed on its
  // target meanwhile. The first victim that fits nowhere is returned; every victim is
  // back on its node afterwards.
  int place_victims(std::vector<int> victims, const std::vector<int>& domain, std::vector<std::pair<int, int>>& moves) {
    std::sort(victims.begin(), victims.end(), [&](int a, int b) {
      double sa = share(a, pod_node_[static_cast<size_t>(a)]), sb = share(b, pod_node_[static_cast<size_t>(b)]);
      return sa != sb ? sa > sb : a < b;
    });
    std::vector<std::pair<int, int>> held;
    int failed = -1;
    for (int v : victims) {
      int t = target_for(v, domain);
      if (t < 0) {
        failed = v;
        break;
      }
      fit_.place(v, t);
      held.push_back({v, t});
    }
    for (const auto& [v, t] : held) fit_.place(v, pod_node_[static_cast<size_t>(v)]);
    if (failed >= 0) return failed;
    moves = std::move(held);
    return -1;
  }

  int target_for(int victim, const std::vector<int>& domain) {
    int source = pod_node_[static_cast<size_t>(victim)];
    const int evictor_pod = desched_pod_[static_cast<size_t>(victim)];
    const size_t N = s_.nodes.size();
    for (int pass = 0; pass < 2; ++pass)
      // Next fit: each pass resumes where its last target was found.
      for (size_t i = 0; i < N; ++i) {
        size_t n = (cursor_[pass] + i) % N;
        if (hosts_gang_[n] != (pass == 1)) continue;
        if (!fits_victim(victim, evictor_pod, static_cast<int>(n), source, domain)) continue;
        cursor_[pass] = n;
        return static_cast<int>(n);
      }
    return -1;
  }

  bool fits_victim(int victim, int evictor_pod, int ni, int source, const std::vector<int>& domain) const {
    const size_t n = static_cast<size_t>(ni);
    if (ni == source || std::binary_search(domain.begin(), domain.end(), ni)) return false;
    if (taken_[n] || reserved_holder_[n]) return false;
    // The scheduler's fit, with this plan's moves; then the evictor's target rules (the
    // victim's own fabric or tier domain, and nodeFit).
    if (!fit_.reject(victim, ni).empty()) return false;
    return desched_node_[n] >= 0 && ev_.target_blocker(evictor_pod, desched_node_[n]).empty();
  }

  void commit(Search& s, const DomainRef& d, const DomainPlan& plan, const std::vector<std::pair<int, int>>& moves) {
    GangRoom room;
    room.gang = s.gang->group->key;
    room.reservation.domain = d.name;
    room.reservation.expires =
        opt_.now + std::chrono::duration_cast<TimePoint::duration>(args_.reservation_ttl);
    // The gang's pods take the room they were planned on; those nodes are its alone.
    size_t next = 0;
    for (const auto& [node, o] : plan.picks) {
      size_t k = std::min(s.pods.size() - next, static_cast<size_t>(options_on(s, node)[static_cast<size_t>(o)].slots));
      for (size_t i = 0; i < k; ++i) fit_.place(s.pods[next++], node);
      room.reservation.nodes.push_back(s_.nodes[static_cast<size_t>(node)].name);
    }
    for (const auto& [node, o] : plan.picks) {
      taken_[static_cast<size_t>(node)] = 1;
      changed(node);
    }
    std::sort(room.reservation.nodes.begin(), room.reservation.nodes.end());
    const std::string reason = "defragment: gang " + room.gang + " into " + d.name;
    bool budget_ran_out = false;
    for (const auto& [v, t] : moves) {
      size_t vi = static_cast<size_t>(v);
      int from = pod_node_[vi];
      const auto& pod = s_.pods[vi];
      auto value = [&](const char* r) {
        auto it = pod.request.find(r);
        return it == pod.request.end() ? 0.0 : static_cast<double>(it->second);
      };
      if (!ev_.evict({desched_pod_[vi], desched_node_[static_cast<size_t>(t)], reason, kPluginName, value("cpu"),
                      value("memory"), "requests"})
               .empty())
        continue;   // not expected: every rule was checked when the victims were chosen
      evicted_[vi] = true;
      fit_.place(v, t);
      changed(from);
      changed(t);
      budget_ran_out |= !budget_left(v);   // a budget this victim drew on is used up
      room.evictions.push_back(evictor_plan_.evictions.back());
    }
    // Pods whose budget ran out are no longer movable anywhere.
    if (budget_ran_out)
      for (size_t p = 0; p < s_.pods.size(); ++p)
        if (movable_[p] && !evicted_[p] && !budget_left(static_cast<int>(p))) changed(pod_node_[p]);
    out_.rooms.push_back(std::move(room));
  }

  const World& w_;
  const scheduler::Snapshot& s_;
  const Args& args_;
  Options opt_;
  framework::Evictor& ev_;
  const Plan& evictor_plan_;   // where the evictor records what it allowed
  const scheduler::Topology& topo_;
  mutable scheduler::query::Fit fit_;   // the scheduler's fit and room, with this plan's moves
  std::unordered_map<std::string, int> node_of_;
  std::vector<int> desched_node_;                      // per snapshot node: its Cluster::nodes index, or -1
  std::vector<std::vector<int>> node_pods_;
  std::vector<int> desched_pod_, pod_node_;
  std::vector<bool> movable_, evicted_, hosts_gang_;
  std::unordered_map<std::string, int> bound_in_group_;
  kube::ReservedRooms held_;
  std::vector<char> taken_;                             // per node: given to a gang this cycle
  std::vector<const std::string*> reserved_holder_;     // per node: the gang an earlier cycle reserved it for
  std::vector<int32_t> priorities_;                     // distinct priorities of movable pods, ascending
  int max_need_ = 1;
  std::map<std::string, OptionCache> caches_;
  std::vector<Option> no_options_;
  DomainSearch search_;
  size_t cursor_[2] = {0, 0};
  Outcome out_;
};

}  // namespace

Result<Outcome> plan_defragment(const World& world, const Policy& policy, const Args& args,
                                const DeschedulerState& state, const Options& options) {
  Plan plan;
  // Under the DefaultEvictor of the profile enabling GangDefragment (else the first).
  const PolicyProfile* profile = policy.gang_profile();
  if (!profile && policy.profiles.empty()) return make_error("the policy has no profile");
  if (!profile) profile = &policy.profiles.front();
  auto ev = framework::DefaultEvictor::create(profile->evictor, world.cluster, state,
                                              framework::evictor_options(policy, *profile, options.now, options.cooldown),
                                              plan);
  if (!ev) return ev.error();
  return plan_defragment(world, args, **ev, plan, options);
}

Outcome plan_defragment(const World& world, const Args& args, framework::Evictor& evictor, const Plan& evictor_plan,
                        const Options& options) {
  return Defragmenter(world, args, options, evictor, evictor_plan).run();
}

nlohmann::json reservation_patch(const GangRoom& room) {
  return {{"metadata", {{"annotations", {{kube::kReservationAnnotation, kube::format_reservation(room.reservation)}}}}}};
}

void add_to_plan(const Outcome& outcome, Plan& plan) {
  for (const auto& room : outcome.rooms) plan.evictions.insert(plan.evictions.end(), room.evictions.begin(), room.evictions.end());
  note_outcome(outcome, plan);
}

void note_outcome(const Outcome& outcome, Plan& plan) {
  for (const auto& room : outcome.rooms) {
    plan.notes.push_back("defragment: gang " + room.gang + " gets room in " + room.reservation.domain + " on " +
                         std::to_string(room.reservation.nodes.size()) + " nodes, " +
                         std::to_string(room.evictions.size()) + " evictions, held until " +
                         kube::format_rfc3339(room.reservation.expires));
    plan.reservations[room.gang] = kube::format_reservation(room.reservation);
  }
  for (const auto& u : outcome.unhelped)
    plan.notes.push_back("defragment: gang " + u.gang + " not helped (" + u.reason + "): " + u.detail);
}

}  // namespace weft::descheduler::defragment
