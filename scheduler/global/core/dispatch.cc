#include "scheduler/global/core/dispatch.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>

#include "scheduler/global/core/member.h"
#include "scheduler/global/core/shares.h"

namespace weft::scheduler::global {
namespace {

using Action = BindingDecision::Action;

// Bytes in whole Ti or Gi as people write them ("2Ti", not "2199023255552").
std::string quantity(const std::string& resource, int64_t milli) {
  constexpr int64_t kGi = int64_t{1} << 30;
  const bool bytes = resource == "memory" || resource == "ephemeral-storage";
  if (bytes && milli % 1000 == 0 && milli / 1000 >= kGi && (milli / 1000) % kGi == 0) {
    int64_t gi = milli / 1000 / kGi;
    return gi % 1024 == 0 ? std::to_string(gi / 1024) + "Ti" : std::to_string(gi) + "Gi";
  }
  return kube::format_quantity(milli);
}

std::string quantities(const kube::ResourceList& l) {
  std::string out;
  for (const auto& [k, v] : l)
    if (k != "pods" && v > 0) out += (out.empty() ? "" : ", ") + k + " " + quantity(k, v);
  return out.empty() ? "nothing" : out;
}

// A binding during the cycle.
struct Live {
  const BindingInfo* info = nullptr;
  BindingDecision decision;
  bool holding = false;             // has clusters: counts in its queue, may be taken back
  std::string member;               // the one member it holds, when its placement is known
  Placement placement;
};

// A gang's replicas, each taken at most once: the first free one of a task, or of any task.
// The cursors only move forward, so taking all n replicas costs O(n), not O(n²) (a binding
// may have 100,000).
class Replicas {
 public:
  explicit Replicas(const Gang& g) : used_(g.pods.size()) {
    for (size_t p = 0; p < g.pods.size(); ++p) {
      any_.pods.push_back(p);
      by_task_[g.tasks[p]].pods.push_back(p);
    }
  }

  int take(const std::string* task) {
    if (!task) return take_from(any_);
    auto it = by_task_.find(*task);
    return it == by_task_.end() ? -1 : take_from(it->second);
  }

 private:
  struct Cursor {
    std::vector<size_t> pods;
    size_t next = 0;
  };

  int take_from(Cursor& c) {
    while (c.next < c.pods.size() && used_[c.pods[c.next]]) ++c.next;
    if (c.next == c.pods.size()) return -1;
    used_[c.pods[c.next]] = true;
    return static_cast<int>(c.pods[c.next]);
  }

  std::vector<bool> used_;
  Cursor any_;
  std::map<std::string, Cursor> by_task_;
};

const BindingDecision& find_decision(const GlobalDecisions& d, const std::string& key) {
  return *std::lower_bound(d.bindings.begin(), d.bindings.end(), key,
                           [](const BindingDecision& b, const std::string& k) { return b.key < k; });
}

class Dispatcher {
 public:
  explicit Dispatcher(const GlobalState& s) : s_(s) {}

  GlobalDecisions run() {
    for (const auto& [name, snap] : s_.members) members_.emplace(name, std::make_unique<MemberState>(name, snap));
    live_.resize(s_.bindings.size());
    for (size_t i = 0; i < s_.bindings.size(); ++i) init(i);
    index_owned_pods();
    for (size_t i = 0; i < live_.size(); ++i)
      if (live_[i].holding) reserve(live_[i]);
    compute_deserved();
    serve();
    return report();
  }

 private:
  void init(size_t i) {
    Live& l = live_[i];
    l.info = &s_.bindings[i];
    l.decision.key = l.info->key;
    l.decision.queue = l.info->gang.queue;
    l.decision.suspended = l.info->suspended;
    l.decision.clusters = l.info->clusters;
    l.holding = !l.info->clusters.empty();
    if (l.holding) kube::add_to(allocated_[l.info->gang.queue], l.info->gang.total);
    else if (l.info->suspended) pending_[l.info->gang.queue].push_back(i);
    else l.decision.reason = "not suspended and without clusters: left to the Karmada scheduler";
  }

  // Bound member pods by the dispatched binding that created them. A pod being deleted
  // is not one of them (Volcano's Releasing): its node stays taken (MemberState), and the
  // binding's replacement for it is placed in reserve() like any replica not yet bound.
  void index_owned_pods() {
    for (const auto& [member, owners] : s_.pod_owners) {
      for (const auto& p : s_.members.at(member).pods) {
        if (!p.running_member()) continue;
        auto o = owners.find(p.key);
        if (o != owners.end()) owned_[o->second.first].push_back({member, &p, o->second.second});
      }
    }
  }

  // A dispatched binding holds its members: its pods bound there already do; the rest of
  // each member's part is placed now, as that member's scheduler will place it.
  void reserve(Live& l) {
    const Gang& gang = l.info->gang;
    if (l.info->clusters.size() == 1) l.member = l.info->clusters.front().name;
    Replicas replicas(gang);   // accounted for, in any member
    for (const auto& t : l.info->clusters) {
      auto m = members_.find(t.name);
      if (m == members_.end()) continue;
      MemberState& member = *m->second;
      int bound_here = 0;
      for (const auto& o : owned_[l.info->key]) {
        int node = o.member == t.name ? member.node_index(o.pod->node) : -1;
        if (node < 0) continue;
        replicas.take(&o.task);
        ++bound_here;
        if (l.member == t.name) l.placement.nodes.push_back({node, o.pod->request});
      }
      Gang rest = gang;
      rest.pods.clear();
      rest.replicas = 0;
      for (int n = bound_here; n < t.replicas; ++n) {
        int p = replicas.take(nullptr);
        if (p < 0) break;
        rest.pods.push_back(gang.pods[static_cast<size_t>(p)]);
        ++rest.replicas;
      }
      if (rest.pods.empty()) continue;
      rest.signature = "reserve:" + l.info->key;
      FitResult f = member.fit(rest);
      if (!f.fits) continue;   // the member changed under it: its queue still counts it
      member.take(f.placement);
      if (l.member == t.name) l.placement.nodes.insert(l.placement.nodes.end(), f.placement.nodes.begin(), f.placement.nodes.end());
    }
  }

  void compute_deserved() {
    std::map<std::string, QueueDemand> demand;
    for (const auto& [name, q] : s_.queues) {
      demand[name].info = &q;
      demand[name].allocated = allocated_[name];
      demand[name].request = allocated_[name];
    }
    for (const auto& [q, list] : pending_)
      for (size_t i : list) kube::add_to(demand[q].request, live_[i].info->gang.total);
    kube::ResourceList total;
    for (const auto& [name, m] : members_)
      if (s_.clusters.at(name).ready) kube::add_to(total, m->usable());
    // A NotReady member takes nothing new, but what its bindings hold still counts.
    for (const auto& l : live_)
      if (l.holding && !l.member.empty() && !s_.clusters.at(l.member).ready) kube::add_to(total, l.info->gang.total);
    deserved_ = deserved_shares(demand, total);
  }

  int queue_priority(const std::string& q) const {
    auto it = s_.queue_extras.find(q);
    return it == s_.queue_extras.end() ? 0 : it->second.priority;
  }

  void serve() {
    for (auto& [q, list] : pending_)
      std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
        const BindingInfo &x = *live_[a].info, &y = *live_[b].info;
        if (x.gang.priority != y.gang.priority) return x.gang.priority > y.gang.priority;
        if (x.created != y.created) return x.created < y.created;
        return x.key < y.key;
      });
    std::map<std::string, std::deque<size_t>> queues;
    for (auto& [q, list] : pending_) queues[q] = std::deque<size_t>(list.begin(), list.end());
    while (true) {
      const std::string* best = nullptr;
      double best_share = 0;
      for (const auto& [q, list] : queues) {
        if (list.empty()) continue;
        double share = share_of(allocated_[q], deserved_[q], deserved_[q]);
        if (!best || queue_priority(q) > queue_priority(*best) ||
            (queue_priority(q) == queue_priority(*best) && share < best_share)) {
          best = &q;
          best_share = share;
        }
      }
      if (!best) break;
      size_t i = queues[*best].front();
      queues[*best].pop_front();
      decide(live_[i]);
    }
  }

  void stay(Live& l, const std::string& code, const std::string& reason) {
    l.decision.action = Action::Suspend;
    l.decision.suspended = true;
    l.decision.reason_code = code;
    l.decision.reason = reason;
  }

  std::string over_capability(const std::string& q, const kube::ResourceList& allocated, const kube::ResourceList& add) {
    const QueueInfo& info = s_.queues.at(q);
    for (const auto& [r, cap] : info.capability) {
      auto it = add.find(r);
      if (r == "pods" || it == add.end() || it->second <= 0) continue;
      auto a = allocated.find(r);
      int64_t used = a == allocated.end() ? 0 : a->second;
      if (used + it->second > cap)
        return r + ": " + quantity(r, used) + " allocated + " + quantity(r, it->second) +
               " asked > capability " + quantity(r, cap);
    }
    return "";
  }

  // Members the binding may go to, best fit first; why the others may not.
  std::vector<std::vector<MemberState*>> candidates(const BindingInfo& b, std::vector<std::string>& why) {
    std::vector<std::vector<MemberState*>> groups;
    const size_t n = std::max<size_t>(1, b.affinity_groups.size());
    for (size_t g = 0; g < n; ++g) {
      std::vector<std::pair<double, MemberState*>> fit;
      for (auto& [name, m] : members_) {
        const MemberCluster& c = s_.clusters.at(name);
        if (!b.affinity_groups.empty() && !b.affinity_groups[g].matches(c)) {
          if (b.affinity_groups.size() == 1) why.push_back(name + ": not selected by spec.placement.clusterAffinity");
          continue;
        }
        if (!c.ready) {
          why.push_back(name + ": NotReady (" + c.not_ready + ")");
          continue;
        }
        if (s_.members.at(name).nodes.empty()) {
          why.push_back(name + ": no Nodes known (no member objects; in run mode no --member for it)");
          continue;
        }
        if (auto t = kube::first_untolerated_hard_taint(c.taints, b.cluster_tolerations)) {
          why.push_back(name + ": untolerated taint " + t->key + ":" + t->effect);
          continue;
        }
        double slack = std::numeric_limits<double>::infinity();
        std::string short_of;
        for (const auto& [r, v] : b.gang.total) {
          if (r == "pods" || v <= 0) continue;
          auto f = m->free().find(r);
          int64_t free = f == m->free().end() ? 0 : f->second;
          if (free < v && short_of.empty()) short_of = r + " " + quantity(r, free) + " free < " + quantity(r, v);
          auto u = m->usable().find(r);
          slack = std::min(slack, static_cast<double>(free - v) / static_cast<double>(u == m->usable().end() || u->second <= 0 ? 1 : u->second));
        }
        if (!short_of.empty()) {
          why.push_back(name + ": not enough free capacity (" + short_of + ")");
          continue;
        }
        fit.push_back({slack, m.get()});
      }
      std::stable_sort(fit.begin(), fit.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      groups.emplace_back();
      for (auto& [slack, m] : fit) groups.back().push_back(m);
    }
    return groups;
  }

  bool summed_free_enough(const Gang& g) {
    kube::ResourceList free;
    for (const auto& [name, m] : members_)
      if (s_.clusters.at(name).ready) kube::add_to(free, m->free());
    return kube::fits(g.total, free);
  }

  void dispatch_to(Live& l, MemberState& m, const Placement& p) {
    m.take(p);
    l.member = m.name();
    l.placement = p;
    l.holding = true;
    kube::add_to(allocated_[l.info->gang.queue], l.info->gang.total);
    l.decision.action = Action::Dispatch;
    order_.push_back(l.info->key);
    l.decision.suspended = false;
    l.decision.clusters = {{m.name(), l.info->gang.replicas}};
    l.decision.reason_code = "Dispatched";
    l.decision.reason = "all " + std::to_string(l.info->gang.replicas) + " pods fit on member " + m.name() + "'s nodes";
  }

  void decide(Live& l) {
    const BindingInfo& b = *l.info;
    const std::string& q = b.gang.queue;
    const QueueInfo& queue = s_.queues.at(q);
    if (!queue.open) return stay(l, "QueueClosed", "queue " + q + " is closed");
    if (b.min_groups > 1)
      return stay(l, "SpreadConstraints", "placement.spreadConstraints asks for " + std::to_string(b.min_groups) +
                                              " clusters; a gang goes whole to one member cluster");
    if (eligible(b).empty()) {
      std::vector<std::string> why;
      candidates(b, why);
      std::string detail;
      for (const auto& w : why) detail += (detail.empty() ? "" : "; ") + w;
      return stay(l, "NoClusterFit", "no member cluster may take it: " + (detail.empty() ? "no Cluster objects" : detail));
    }
    if (auto over = over_capability(q, allocated_[q], b.gang.total); !over.empty()) {
      if (preempt(l)) return;
      return stay(l, "QueueCapability", "queue " + q + " at its capability (" + over + ")" +
                                            (preempt_note_.empty() ? "" : "; " + preempt_note_));
    }
    for (const auto& [r, v] : b.gang.total) {
      if (r == "pods" || v <= 0) continue;
      auto d = deserved_[q].find(r);
      auto a = allocated_[q].find(r);
      int64_t alloc = a == allocated_[q].end() ? 0 : a->second;
      int64_t des = d == deserved_[q].end() ? 0 : d->second;
      if (alloc >= des)
        return stay(l, "QueueOverused", "queue " + q + " at its deserved share of " + r + " (" +
                                            quantity(r, alloc) + " allocated, " + quantity(r, des) +
                                            " deserved)");
    }
    std::vector<std::string> why;
    bool summed_member_enough = false;
    for (const auto& group : candidates(b, why)) {
      for (MemberState* m : group) {
        summed_member_enough = true;
        if (const std::string* known = m->known_misfit(b.gang.signature)) {
          why.push_back(m->name() + ": " + *known);
          continue;
        }
        FitResult f = m->fit(b.gang);
        if (f.fits) return dispatch_to(l, *m, f.placement);
        why.push_back(m->name() + ": " + f.reason);
      }
    }
    if (b.divisible && divide(l)) return;
    if (reclaim(l)) return;
    std::string head = "no member cluster fits all " + std::to_string(b.gang.replicas) + " pods (" + quantities(b.gang.total) + ")";
    if (summed_member_enough)
      head = "fragmentation: the free capacity summed over a member's nodes is enough, but the gang does not fit on "
             "them (" + quantities(b.gang.total) + ")";
    else if (summed_free_enough(b.gang))
      head = "fragmentation: the free capacity summed over the member clusters is enough, but no single member has "
             "it (" + quantities(b.gang.total) + ")";
    std::string detail;
    for (const auto& w : why) detail += (detail.empty() ? "" : "; ") + w;
    if (members_.empty()) detail = "no Cluster objects";
    if (!reclaim_note_.empty()) detail += "; " + reclaim_note_;
    stay(l, "NoClusterFit", head + ": " + detail);
  }

  // replicaScheduling Divided (not a Volcano Job): as few members as possible, the one
  // with the most free capacity first, each part as many replicas as fit there at once;
  // all replicas or nothing.
  bool divide(Live& l) {
    const Gang& gang = l.info->gang;
    std::vector<std::pair<int64_t, MemberState*>> order;
    for (MemberState* m : eligible(*l.info)) {
      int64_t free = 0;
      for (const auto& [r, v] : gang.total)
        if (r != "pods" && v > 0) free = std::max(free, m->free().count(r) ? m->free().at(r) : 0);
      order.push_back({-free, m});
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto slice = [&](int from, int count) {
      Gang part = gang;
      part.pods.assign(gang.pods.begin() + from, gang.pods.begin() + from + count);
      part.replicas = count;
      part.signature = gang.signature + "/part" + std::to_string(count);
      return part;
    };
    std::vector<std::tuple<MemberState*, int, Placement>> parts;
    int placed = 0;
    for (auto& [free, m] : order) {
      int lo = 0, hi = gang.replicas - placed;
      Placement best;
      while (lo < hi) {   // the most replicas that fit here: fewer always fit when more do
        int mid = (lo + hi + 1) / 2;
        FitResult f = m->fit(slice(placed, mid));
        if (f.fits) {
          lo = mid;
          best = f.placement;
        } else {
          hi = mid - 1;
        }
      }
      if (lo == 0) continue;
      m->take(best);
      parts.push_back({m, lo, best});
      placed += lo;
      if (placed == gang.replicas) break;
    }
    if (placed < gang.replicas) {
      for (auto& [m, n, p] : parts) m->give_back(p);
      return false;
    }
    l.holding = true;
    kube::add_to(allocated_[gang.queue], gang.total);
    l.decision.action = Action::Dispatch;
    order_.push_back(l.info->key);
    l.decision.suspended = false;
    l.decision.clusters.clear();
    std::string where;
    for (auto& [m, n, p] : parts) {
      l.decision.clusters.push_back({m->name(), n});
      where += (where.empty() ? "" : ", ") + std::to_string(n) + " on " + m->name();
    }
    l.decision.reason_code = "Dispatched";
    l.decision.reason = "divided (replicaScheduling Divided), each part fits on its member's nodes: " + where;
    return true;
  }

  // Takes back lower-priority bindings of the same queue, fewest needed, when that both
  // brings the queue under its capability and lets the binding fit on one member.
  bool preempt(Live& l) {
    preempt_note_.clear();
    const BindingInfo& b = *l.info;
    const std::string& q = b.gang.queue;
    std::vector<Live*> victims;
    for (auto& v : live_)
      if (v.holding && v.info->gang.queue == q && v.info->gang.priority < b.gang.priority && !v.member.empty())
        victims.push_back(&v);
    if (victims.empty()) {
      preempt_note_ = "no lower-priority binding of the queue to take back";
      return false;
    }
    auto why = [&](const Live& v) {
      return "taken back for " + b.key + " (priority " + std::to_string(b.gang.priority) + " > " +
             std::to_string(v.info->gang.priority) + ") in queue " + q + " at its capability";
    };
    if (place_taking_back(l, victims, [](const std::vector<Live*>&, const Live&, const MemberState&) { return true; },
                          "Preempted", why))
      return true;
    preempt_note_ = "taking back its lower-priority bindings would not make room";
    return false;
  }

  // Reclaim across queues (Volcano's reclaim, whole bindings): a binding that fits on no
  // member, of a queue that stays within its deserved share with it, may take back
  // bindings of reclaimable queues on one member, only from what those queues hold
  // beyond their deserved shares: a queue is never taken below its share, so what was
  // reclaimed is not reclaimed back in the next cycle.
  bool reclaim(Live& l) {
    reclaim_note_.clear();
    const BindingInfo& b = *l.info;
    const std::string& q = b.gang.queue;
    for (const auto& [r, v] : b.gang.total)
      if (r != "pods" && v > 0 && amount(allocated_[q], r) + v > amount(deserved_[q], r)) return false;
    auto over_share = [&](const std::string& vq, const kube::ResourceList& left) {
      for (const auto& [r, v] : b.gang.total)
        if (r != "pods" && v > 0 && amount(left, r) > amount(deserved_[vq], r)) return true;
      return false;
    };
    std::vector<Live*> victims;
    for (auto& v : live_) {
      const std::string& vq = v.info->gang.queue;
      if (v.holding && !v.member.empty() && vq != q && s_.queues.at(vq).reclaimable && over_share(vq, allocated_[vq]))
        victims.push_back(&v);
    }
    if (victims.empty()) return false;
    // Only a victim on the member makes room there, and only from its queue's excess.
    auto admit = [&](const std::vector<Live*>& chosen, const Live& v, const MemberState& m) {
      if (v.member != m.name()) return false;
      const std::string& vq = v.info->gang.queue;
      kube::ResourceList left = allocated_[vq];
      for (const Live* c : chosen)
        if (c->info->gang.queue == vq) kube::subtract_from(left, c->info->gang.total);
      if (!over_share(vq, left)) return false;
      for (const auto& [r, v_amount] : v.info->gang.total) {
        int64_t have = amount(left, r), share = amount(deserved_[vq], r);
        if (r != "pods" && v_amount > 0 && have > share && have - v_amount < share) return false;
      }
      return true;
    };
    auto why = [&](const Live& v) {
      const std::string& vq = v.info->gang.queue;
      return "reclaimed for " + b.key + " of queue " + q + " (below its deserved share): queue " + vq +
             " holds more than its deserved share (" + quantities(allocated_[vq]) + " allocated, " +
             quantities(deserved_[vq]) + " deserved)";
    };
    if (place_taking_back(l, victims, admit, "Reclaimed", why)) return true;
    reclaim_note_ = "reclaiming what other queues hold beyond their deserved shares would not make room";
    return false;
  }

  static int64_t amount(const kube::ResourceList& l, const std::string& r) {
    auto it = l.find(r);
    return it == l.end() ? 0 : it->second;
  }

  using Admit = std::function<bool(const std::vector<Live*>& chosen, const Live& victim, const MemberState& m)>;

  // Of the members the binding may go to, the one where the fewest `victims` (admitted
  // in order: lowest priority, newest first) make room, then the lowest priorities, then
  // the newest; those are taken back and the binding placed there. False: left as it was.
  bool place_taking_back(Live& l, std::vector<Live*> victims, const Admit& admit, const std::string& code,
                         const std::function<std::string(const Live&)>& why) {
    const BindingInfo& b = *l.info;
    std::stable_sort(victims.begin(), victims.end(), [](const Live* x, const Live* y) {
      if (x->info->gang.priority != y->info->gang.priority) return x->info->gang.priority < y->info->gang.priority;
      return x->info->created > y->info->created;
    });
    struct Choice {
      MemberState* member = nullptr;
      std::vector<Live*> victims;
      Placement placement;
    };
    std::optional<Choice> best;
    // Fewest victims, then lowest priorities, then the newest ones.
    auto better = [](const std::vector<Live*>& a, const std::vector<Live*>& b) {
      if (a.size() != b.size()) return a.size() < b.size();
      auto key = [](const std::vector<Live*>& v) {
        int64_t priority = 0;
        std::string oldest = "~";
        for (const Live* l : v) {
          priority += l->info->gang.priority;
          oldest = std::min(oldest, l->info->created);
        }
        return std::pair{priority, oldest};
      };
      auto ka = key(a), kb = key(b);
      if (ka.first != kb.first) return ka.first < kb.first;
      return ka.second > kb.second;
    };
    for (MemberState* m : eligible(b)) {
      // The best a member can offer is its first admitted victim alone: when that is not
      // better than a lone victim already found, the member is not tried.
      if (best && best->victims.size() == 1) {
        Live* first = nullptr;
        for (Live* v : victims)
          if (admit({}, *v, *m)) {
            first = v;
            break;
          }
        if (!first || !better({first}, best->victims)) continue;
      }
      kube::ResourceList could = m->free();   // with every victim there gone: else no session
      for (const Live* v : victims)
        if (v->member == m->name()) kube::add_to(could, v->info->gang.total);
      if (!kube::fits(b.gang.total, could)) continue;
      auto victims_here = victims_for(*m, victims, b, admit);
      if (victims_here && (!best || better(victims_here->first, best->victims)))
        best = Choice{m, std::move(victims_here->first), std::move(victims_here->second)};
    }
    if (!best) return false;
    std::string names;
    for (Live* v : best->victims) {
      names += (names.empty() ? "" : ", ") + v->info->key;
      take_back(*v, code, why(*v));
    }
    dispatch_to(l, *best->member, best->placement);
    l.decision.reason += " after taking back " + names;
    return true;
  }

  // The fewest admitted victims (in `victims` order) that keep the queue within its
  // capability and let the gang fit on `m`, with the placement; `m` is left as it was.
  std::optional<std::pair<std::vector<Live*>, Placement>> victims_for(MemberState& m, const std::vector<Live*>& victims,
                                                                     const BindingInfo& b, const Admit& admit) {
    const std::string& q = b.gang.queue;
    std::vector<Live*> chosen;
    auto fits_without = [&]() -> FitResult {
      kube::ResourceList a = allocated_[q];
      for (Live* v : chosen)
        if (v->info->gang.queue == q) kube::subtract_from(a, v->info->gang.total);
      if (!over_capability(q, a, b.gang.total).empty()) return {};
      return m.fit(b.gang);
    };
    auto release = [&](Live* v, bool back) {
      if (v->member != m.name()) return;
      if (back) m.give_back(v->placement);
      else m.take(v->placement);
    };
    FitResult f;
    for (Live* v : victims) {
      if (!admit(chosen, *v, m)) continue;
      chosen.push_back(v);
      release(v, true);
      if ((f = fits_without()).fits) break;
    }
    // Put each back in turn, the last chosen first; keep out only the ones the gang needs.
    // A lone victim is needed: callers come here only when the gang does not go without.
    if (f.fits && chosen.size() > 1) {
      for (size_t k = chosen.size(); k-- > 0;) {
        Live* v = chosen[k];
        chosen.erase(chosen.begin() + static_cast<long>(k));
        release(v, false);
        if (FitResult again = fits_without(); again.fits) {
          f = again;
          continue;
        }
        release(v, true);
        chosen.insert(chosen.begin() + static_cast<long>(k), v);
      }
    }
    for (Live* v : chosen) release(v, false);
    if (!f.fits) return std::nullopt;
    return std::pair{chosen, f.placement};
  }

  // Members the binding may go to, whatever their free capacity (preemption frees some).
  std::vector<MemberState*> eligible(const BindingInfo& b) {
    std::vector<MemberState*> out;
    for (auto& [name, m] : members_) {
      const MemberCluster& c = s_.clusters.at(name);
      bool allowed = b.affinity_groups.empty();
      for (const auto& t : b.affinity_groups) allowed = allowed || t.matches(c);
      if (allowed && c.ready && !kube::first_untolerated_hard_taint(c.taints, b.cluster_tolerations)) out.push_back(m.get());
    }
    return out;
  }

  void take_back(Live& v, const std::string& code, const std::string& reason) {
    members_.at(v.member)->give_back(v.placement);
    v.holding = false;
    kube::subtract_from(allocated_[v.info->gang.queue], v.info->gang.total);
    v.decision.action = Action::Preempt;
    v.decision.suspended = true;
    v.decision.clusters.clear();
    v.decision.reason_code = code;
    v.decision.reason = reason;
  }

  GlobalDecisions report() {
    GlobalDecisions d;
    for (auto& l : live_) {
      if (l.decision.action == Action::Keep && l.holding && l.decision.reason.empty()) {
        l.decision.reason_code = "Dispatched";
        l.decision.reason = "dispatched before";
      }
      switch (l.decision.action) {
        case Action::Dispatch: ++d.stats.dispatched; break;
        case Action::Suspend: ++d.stats.suspended; break;
        case Action::Preempt: ++d.stats.preempted; break;
        case Action::Keep: break;
      }
      d.bindings.push_back(l.decision);
    }
    for (const auto& [name, q] : s_.queues) {
      (void)q;
      d.queues.push_back({name, allocated_[name], deserved_[name]});
    }
    for (const auto& [name, m] : members_) d.stats.sessions += m->sessions();
    for (const auto& key : order_)
      if (!find_decision(d, key).suspended) d.dispatch_order.push_back(key);
    return d;
  }

  const GlobalState& s_;
  std::map<std::string, std::unique_ptr<MemberState>> members_;
  std::vector<Live> live_;
  std::map<std::string, kube::ResourceList> allocated_, deserved_;
  std::map<std::string, std::vector<size_t>> pending_;
  std::string preempt_note_, reclaim_note_;
  std::vector<std::string> order_;
  struct OwnedPod {
    std::string member;
    const PodInfo* pod;
    std::string task;
  };
  std::map<std::string, std::vector<OwnedPod>> owned_;
};

}  // namespace

GlobalDecisions dispatch(const GlobalState& state) { return Dispatcher(state).run(); }

nlohmann::json decisions_json(const GlobalDecisions& d) {
  nlohmann::json out = {{"bindings", nlohmann::json::array()}, {"queues", nlohmann::json::array()}};
  for (const auto& b : d.bindings) {
    nlohmann::json clusters = nlohmann::json::array();
    for (const auto& c : b.clusters) clusters.push_back({{"name", c.name}, {"replicas", c.replicas}});
    out["bindings"].push_back({{"name", b.key}, {"queue", b.queue}, {"suspended", b.suspended},
                               {"clusters", clusters}, {"reason", b.reason}});
  }
  for (const auto& q : d.queues)
    out["queues"].push_back({{"name", q.name}, {"allocated", kube::to_json(q.allocated)}, {"deserved", kube::to_json(q.deserved)}});
  return out;
}

}  // namespace weft::scheduler::global
