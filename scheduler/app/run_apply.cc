#include "scheduler/app/run_apply.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include <spdlog/spdlog.h>

#include "kube/workload.h"

namespace weft::scheduler {

using nlohmann::json;

namespace {

bool transient(const Error& e) { return e.code == 0 || e.code == 429 || e.code >= 500; }

std::pair<std::string, std::string> split_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

std::string uid_in(const ObjectIndex& objects, const std::string& kind, const std::string& key) {
  auto it = objects.find(object_index_key(kind, key));
  if (it == objects.end()) return "";
  auto m = it->second.find("metadata");
  return m != it->second.end() && m->is_object() ? m->value("uid", "") : "";
}

// The object an Event is about: the cached one, or just its reference when not cached.
json involved_object(const ObjectIndex& objects, const std::string& kind, const std::string& key) {
  if (auto it = objects.find(object_index_key(kind, key)); it != objects.end()) return it->second;
  auto [ns, name] = split_key(key);
  json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"apiVersion", kind == "PodGroup" ? "scheduling.volcano.sh/v1beta1" : "v1"}, {"kind", kind},
          {"metadata", meta}};
}

}  // namespace

std::string object_index_key(const std::string& kind, const std::string& key) { return kind + "/" + key; }

DecisionApplier::DecisionApplier(SchedulerApi& api, ApplyOptions options) : api_(api), options_(std::move(options)) {
  if (!options_.sleep) options_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  if (!options_.may_write) options_.may_write = [] { return true; };
}

std::vector<std::string> DecisionApplier::remembered_objects() {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [pod, uid] : evicting_) out.push_back(object_index_key("Pod", pod));
  for (const auto& [key, what] : last_event_) out.push_back(key);
  return out;
}

void DecisionApplier::remember_eviction(const std::string& pod, const std::string& uid) {
  evicting_[pod] = uid;
  if (options_.on_evicted) options_.on_evicted(pod, uid);
}

bool DecisionApplier::writable(ApplyReport& report) {
  std::lock_guard lock(mu_);
  if (report.stopped) return false;
  if (options_.may_write()) return true;
  report.stopped = true;
  spdlog::warn("leadership lost: not applying the rest of this cycle's decisions");
  return false;
}

void DecisionApplier::parallel_for(size_t n, const std::function<void(size_t)>& fn) const {
  const size_t workers = std::min(n, static_cast<size_t>(std::max(options_.concurrency, 1)));
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : threads) t.join();
}

ApplyReport DecisionApplier::apply(const Decisions& d, const Snapshot& snap, const ObjectIndex& objects) {
  ApplyReport report;
  for (auto it = evicting_.begin(); it != evicting_.end();) {
    bool present = uid_in(objects, "Pod", it->first) == it->second &&
                   objects.count(object_index_key("Pod", it->first)) != 0;
    it = present ? std::next(it) : evicting_.erase(it);
  }
  apply_evictions(d, objects, report);
  apply_bindings(d, snap, objects, report);
  // Rolled back or refused before any member was accepted: its status is not written.
  std::set<std::string> not_whole(report.not_whole.begin(), report.not_whole.end());
  apply_status(d, not_whole, report);
  for (const auto& [pod, node] : d.nominations) {   // best effort: the binding follows in a later cycle
    auto [ns, name] = split_key(pod);
    if (!writable(report)) break;
    if (auto s = api_.nominate(ns, name, node); !s) spdlog::warn("pod {}: nominatedNodeName: {}", pod, s.message());
  }
  apply_events(d, objects, report);
  for (auto it = last_event_.begin(); it != last_event_.end();) {
    it = objects.count(it->first) ? std::next(it) : last_event_.erase(it);
  }
  return report;
}

void DecisionApplier::apply_evictions(const Decisions& d, const ObjectIndex& objects, ApplyReport& report) {
  parallel_for(d.evictions.size(), [&](size_t i) {
    const auto& e = d.evictions[i];
    {
      std::lock_guard lock(mu_);
      if (evicting_.count(e.pod)) return;   // asked already; waiting for it to go
    }
    if (!writable(report)) return;
    auto [ns, name] = split_key(e.pod);
    std::string why;
    auto outcome = api_.evict(ns, name, &why);
    if (!outcome) {
      std::lock_guard lock(mu_);
      ++report.errors;
      spdlog::warn("evict {} from {}: {}", e.pod, e.node, outcome.message());
      return;
    }
    switch (*outcome) {
      case EvictOutcome::Evicted: {
        spdlog::info("evicted {} from {}: {}", e.pod, e.node, e.reason);
        std::lock_guard lock(mu_);
        remember_eviction(e.pod, uid_in(objects, "Pod", e.pod));
        report.evicted.push_back(e.pod);
        break;
      }
      case EvictOutcome::Blocked:
        spdlog::info("eviction of {} refused: {}", e.pod, why);
        {
          std::lock_guard lock(mu_);
          report.eviction_blocked.push_back(e.pod);
        }
        event(objects, "Pod", e.pod, "Warning", "EvictionBlocked",
              "not evicted (" + e.reason + "): " + (why.empty() ? "disruption budget" : why), report);
        break;
      case EvictOutcome::Gone: break;
    }
  });
  // The same order whatever answered first.
  std::sort(report.evicted.begin(), report.evicted.end());
  std::sort(report.eviction_blocked.begin(), report.eviction_blocked.end());
}

void DecisionApplier::retry_rounds(const std::string& what, const std::function<std::string()>& attempt) {
  auto wait = options_.bind_backoff;
  for (int round = 0;; ++round) {
    std::string retry_because = attempt();
    if (retry_because.empty() || round >= options_.bind_rounds) return;
    spdlog::warn("{}: {} (retrying in {} ms)", what, retry_because, wait.count());
    options_.sleep(wait);
    wait *= 2;
  }
}

Status DecisionApplier::bind_with_retry(const Binding& b, const std::string& uid) {
  auto [ns, name] = split_key(b.pod);
  Status result;
  retry_rounds("bind " + b.pod + " to " + b.node, [&] {
    result = api_.bind(ns, name, uid, b.node);
    return !result && transient(result.error()) ? result.message() : std::string();
  });
  return result;
}

Status DecisionApplier::prebind(const std::vector<const ClaimWrite*>& writes) {
  for (const ClaimWrite* w : writes) {
    Status result;
    retry_rounds("write claim " + w->claim + " for " + w->pod, [&] {
      result = api_.write_claim(*w);
      return !result && transient(result.error()) ? result.message() : std::string();
    });
    if (!result) return wrap(result.error(), "PreBind of claim " + w->claim);
  }
  return {};
}

namespace {

// One gang's bindings of this cycle while they are in flight.
struct GangProgress {
  std::string group;
  int32_t min_member = 1;
  int already = 0;                  // members bound before this cycle
  std::vector<Binding> members;
  std::vector<char> bound;          // per member: accepted by the API
  size_t outstanding = 0;           // members neither accepted nor refused yet
  int accepted = 0;
  bool doomed = false;              // cannot reach minMember any more: send no more members
  std::string failure;
};

}  // namespace

void DecisionApplier::apply_bindings(const Decisions& d, const Snapshot& snap, const ObjectIndex& objects,
                                     ApplyReport& report) {
  std::map<std::string, const PodInfo*> pods;
  std::map<std::string, int> bound_in_group;
  for (const auto& p : snap.pods) {
    pods[p.key] = &p;
    if (!p.group.empty() && p.running_member()) ++bound_in_group[p.group];
  }
  // Bindings per group in the core's order; pods without a group are groups of one.
  std::vector<GangProgress> gangs;
  std::map<std::string, size_t> gang_of;
  for (const auto& b : d.bindings) {
    auto p = pods.find(b.pod);
    std::string group = p != pods.end() && !p->second->group.empty() ? p->second->group : "pod:" + b.pod;
    auto [it, fresh] = gang_of.emplace(group, gangs.size());
    if (fresh) {
      GangProgress g;
      g.group = group;
      if (auto pg = snap.podgroups.find(group); pg != snap.podgroups.end()) {
        g.min_member = pg->second.min_member;
        g.already = bound_in_group[group];
      }
      gangs.push_back(std::move(g));
    }
    gangs[it->second].members.push_back(b);
  }
  std::map<std::string, std::vector<const ClaimWrite*>> claims_of;   // pod -> its PreBind writes
  for (const auto& w : d.claim_writes) claims_of[w.pod].push_back(&w);
  std::vector<std::pair<size_t, size_t>> calls;   // (gang, member) in the core's order
  for (size_t g = 0; g < gangs.size(); ++g) {
    gangs[g].bound.assign(gangs[g].members.size(), 0);
    gangs[g].outstanding = gangs[g].members.size();
    for (size_t m = 0; m < gangs[g].members.size(); ++m) calls.emplace_back(g, m);
  }
  parallel_for(calls.size(), [&](size_t i) {
    auto& g = gangs[calls[i].first];
    const auto& b = g.members[calls[i].second];
    bool send = false;
    {
      std::lock_guard lock(mu_);
      send = !g.doomed && !report.stopped;
    }
    if (send) send = writable(report);
    if (!send) {
      std::lock_guard lock(mu_);
      --g.outstanding;
      return;
    }
    auto claims = claims_of.find(b.pod);
    auto s = claims == claims_of.end() ? Status{} : prebind(claims->second);
    if (s) s = bind_with_retry(b, uid_in(objects, "Pod", b.pod));
    std::lock_guard lock(mu_);
    --g.outstanding;
    if (s) {
      g.bound[calls[i].second] = 1;
      ++g.accepted;
      return;
    }
    ++report.errors;
    report.bind_failed.push_back(b.pod);
    spdlog::warn("bind {} to {}: {}", b.pod, b.node, s.message());
    if (g.failure.empty()) g.failure = b.pod + ": " + s.message();
    if (g.already + g.accepted + static_cast<int>(g.outstanding) < g.min_member) g.doomed = true;
  });
  std::vector<size_t> to_roll_back;
  for (size_t i = 0; i < gangs.size(); ++i) {
    auto& g = gangs[i];
    const bool whole = g.already + g.accepted >= g.min_member;
    // A gang whose first refusal came before any member was accepted has nothing to take
    // back, and is no more placed than one that has.
    if (!whole && g.group.rfind("pod:", 0) != 0) report.not_whole.push_back(g.group);
    if (!whole && g.accepted > 0 && !report.stopped) {
      to_roll_back.push_back(i);
      continue;
    }
    for (size_t m = 0; m < g.members.size(); ++m)
      if (g.bound[m]) report.bound.push_back(g.members[m]);
  }
  parallel_for(to_roll_back.size(), [&](size_t i) {
    auto& g = gangs[to_roll_back[i]];
    std::vector<Binding> done;
    for (size_t m = 0; m < g.members.size(); ++m)
      if (g.bound[m]) done.push_back(g.members[m]);
    roll_back(g.group, done, g.failure, objects, report);
  });
}

void DecisionApplier::roll_back(const std::string& group, const std::vector<Binding>& bound, const std::string& why,
                                const ObjectIndex& objects, ApplyReport& report) {
  spdlog::warn("gang {}: binding failed ({}); evicting the {} member(s) bound this cycle so it is placed whole",
               group, why, bound.size());
  for (const auto& b : bound) {
    auto [ns, name] = split_key(b.pod);
    std::string blocked;
    Result<EvictOutcome> outcome = EvictOutcome::Blocked;
    // Taking a member back must not fail on a passing refusal: transient errors and 429s
    // (a budget, or an overloaded API server the client cannot tell apart) get the same
    // extra rounds as bindings.
    retry_rounds("take back " + b.pod + " from " + b.node, [&] {
      blocked.clear();
      outcome = api_.evict(ns, name, &blocked);
      if (!outcome) return transient(outcome.error()) ? outcome.message() : std::string();
      return *outcome == EvictOutcome::Blocked ? "eviction refused: " + blocked : std::string();
    });
    std::lock_guard lock(mu_);
    if (outcome && *outcome != EvictOutcome::Blocked) {
      report.rolled_back.push_back(b.pod);
      remember_eviction(b.pod, uid_in(objects, "Pod", b.pod));
      continue;
    }
    // Still bound: report it as bound so the cache does not offer its node again; the next
    // cycle completes the gang around it.
    ++report.errors;
    report.bound.push_back(b);
    spdlog::error("gang {}: could not take back {} from {}: {}", group, b.pod, b.node,
                  outcome ? "eviction refused: " + blocked : outcome.message());
  }
  event(objects, "PodGroup", group, "Warning", "GangBindingFailed",
        "binding refused by the API (" + why + "); " + std::to_string(bound.size()) +
            " member(s) bound this cycle were evicted so the gang is placed whole",
        report);
}

void DecisionApplier::apply_status(const Decisions& d, const std::set<std::string>& skip, ApplyReport& report) {
  std::vector<char> written(d.status_writes.size(), 0);
  parallel_for(d.status_writes.size(), [&](size_t i) {
    const auto& w = d.status_writes[i];
    if (skip.count(w.podgroup)) return;
    if (!writable(report)) return;
    auto [ns, name] = split_key(w.podgroup);
    const auto native = kube::split_native_group_key(w.podgroup);
    if (auto s = native ? api_.write_native_group_status(native->namespace_name, native->name, w.status)
                        : api_.write_podgroup_status(ns, name, w.status);
        !s) {
      std::lock_guard lock(mu_);
      ++report.errors;
      ++report.status_failed;
      spdlog::warn("PodGroup {} status: {}", w.podgroup, s.message());
      return;
    }
    written[i] = 1;
  });
  for (size_t i = 0; i < d.status_writes.size(); ++i)
    if (written[i]) report.status_written.push_back(d.status_writes[i]);
}

void DecisionApplier::apply_events(const Decisions& d, const ObjectIndex& objects, ApplyReport& report) {
  // Events about bindings and evictions only for those the API accepted.
  std::set<std::string> decided, done(report.evicted.begin(), report.evicted.end());
  for (const auto& b : d.bindings) decided.insert(b.pod);
  for (const auto& e : d.evictions) decided.insert(e.pod);
  for (const auto& b : report.bound) done.insert(b.pod);
  for (const auto& e : d.events) {
    if (e.kind == "Pod" && decided.count(e.object) && !done.count(e.object)) continue;
    if (!writable(report)) return;
    event(objects, e.kind, e.object, e.type, e.reason, e.message, report);
  }
}

void DecisionApplier::event(const ObjectIndex& objects, const std::string& kind, const std::string& key,
                            const std::string& type, const std::string& reason, const std::string& message,
                            ApplyReport& report) {
  // kubectl describe needs one line per distinct reason, not one per cycle.
  const std::string index_key = object_index_key(kind, key), what = reason + "\n" + message;
  std::lock_guard lock(mu_);
  if (auto it = last_event_.find(index_key); it != last_event_.end() && it->second == what) return;
  if (auto s = api_.record_event(involved_object(objects, kind, key), type, reason, message); !s) {
    // Not an API error: Events are advisory and the queue says how many it dropped.
    if (report.events_failed++ == 0) spdlog::warn("event {} on {} {}: {}", reason, kind, key, s.message());
    return;
  }
  last_event_[index_key] = what;
  ++report.events_recorded;
}

}  // namespace weft::scheduler
