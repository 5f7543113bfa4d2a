#include "descheduler/app/cycle.h"

#include <chrono>
#include <thread>

#include <spdlog/spdlog.h>

#include "descheduler/app/cluster_source.h"
#include "descheduler/app/defragment_step.h"
#include "descheduler/core/defragment/plugin.h"
#include "descheduler/core/framework/runner.h"
#include "descheduler/core/profiles.h"
#include "descheduler/app/eviction_events.h"
#include "descheduler/app/prometheus_token.h"

namespace weft::descheduler {

namespace {
// Between writing GangDefragment's reservations and evicting their victims: watch events
// of one resource reach a scheduler within milliseconds, but the PodGroup's and the
// replacement pod's come on different watches; two seconds covers a loaded control plane.
constexpr std::chrono::seconds kReservationLead{2};

// One load a cycle plans on, its Prometheus token read from its Secret first.
Result<LoadReport> read_load(kube::Client& client, const LoadRead& read, const Cluster& cluster, TimePoint now,
                             const NodeMetricsCollector* node_usage) {
  MetricsArgs metrics = read.metrics;   // with the Prometheus token of this cycle
  if (auto s = resolve_prometheus_token(client, metrics.auth); !s) return s.error();
  return fetch_load(read.spec, metrics, cluster, now, &client, node_usage);
}

// "3 high, 10 normal, 2 low, 0 unknown nodes", or with several classifying plugins each's
// counts after its "profile/plugin".
std::string class_counts_text(const ClassCounts& counts) {
  if (counts.empty()) return "0 high, 0 normal, 0 low, 0 unknown nodes";
  std::string out;
  for (const auto& [by, of] : counts) {
    auto count = [&](NodeClass c) { return of.count(c) ? of.at(c) : 0; };
    if (!out.empty()) out += "; ";
    if (counts.size() > 1) out += by.text() + ": ";
    out += fmt::format("{} high, {} normal, {} low, {} unknown nodes", count(NodeClass::High),
                       count(NodeClass::Normal), count(NodeClass::Low), count(NodeClass::Unknown));
  }
  return out;
}

// GangDefragment's rooms are carried out after the runner (and resumed from an earlier
// run): their evictions, and the skips of those not done, are the gang profile's.
void name_gang_profile(Plan& plan, const std::string& profile) {
  for (auto& e : plan.evictions)
    if (e.plugin == defragment::kPluginName && e.profile.empty()) e.profile = profile;
  for (auto& s : plan.skipped)
    if (s.plugin == defragment::kPluginName && s.profile.empty()) s.profile = profile;
}

}  // namespace

void execute_evictions(Plan& plan, const EvictFn& evict) {
  std::vector<PlannedEviction> done;
  int errors_in_row = 0;
  for (const auto& e : plan.evictions) {
    if (errors_in_row >= 3) {
      plan.skipped.push_back(e.not_done("eviction-aborted: the API failed three times in a row"));
      continue;
    }
    auto r = evict(e.ns, e.name);
    if (!r) {
      ++errors_in_row;
      spdlog::error("evict {} from {}: {}", e.pod(), e.from, r.message());
      plan.skipped.push_back(e.not_done("eviction-error: " + r.message()));
      continue;
    }
    errors_in_row = 0;
    switch (r->outcome) {
      case kube::EvictionResult::Outcome::Evicted:
        spdlog::info("evicted {} from {} (target {}): {}", e.pod(), e.from, e.to, e.reason);
        done.push_back(e);
        break;
      case kube::EvictionResult::Outcome::Blocked:
        spdlog::warn("evict {} from {}: refused by a PodDisruptionBudget: {}", e.pod(), e.from, r->message);
        plan.skipped.push_back(e.not_done("pdb: " + r->message));
        break;
      case kube::EvictionResult::Outcome::NotFound:
        plan.skipped.push_back(e.not_done("pod-gone"));
        break;
    }
  }
  plan.evictions = std::move(done);
}

Result<Plan> Cycle::run(DeschedulerState& state) {
  auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::vector<std::string> warnings;
  TimePoint now = std::chrono::system_clock::now();
  PatchPodGroupFn patch = [&](const std::string& ns, const std::string& name, const nlohmann::json& p) -> Status {
    auto r = client_.patch(kube::resources::podgroups(), ns, name, p, kube::PatchType::Merge);
    if (!r) return r.error();
    return {};
  };
  EvictFn evict = [&](const std::string& ns, const std::string& name) {
    return client_.evict(ns, name, config_.policy.grace_period_seconds.value_or(-1));
  };
  Plan resumed;   // what an interrupted run left, finished before anything is listed
  if (config_.policy.gang_profile() && !config_.dry_run) {
    auto getter = [&](const kube::ResourceRef& ref) {
      return [&, ref](const std::string& ns, const std::string& name) { return client_.get(ref, ns, name); };
    };
    if (auto s = resume_rooms(config_.rooms, resumed, getter(kube::resources::podgroups()),
                              getter(kube::resources::pods()), patch, evict);
        !s)
      spdlog::error("defragment: {}", s.message());
  }
  // A load that does not read the cluster (a file, Prometheus) is read while the cluster is
  // listed: on another core, or while this one waits for the API.
  const Cluster not_listed;
  LoadReader loads(
      config_.loads, [&](const LoadRead& read, const Cluster& c) { return read_load(client_, read, c, now, config_.node_usage); },
      not_listed);
  // GangDefragment needs pending pods, Queues and HyperNodes too: its world holds the cluster.
  std::optional<defragment::World> world;
  Result<Cluster> listed = make_error("not listed");
  if (config_.policy.gang_profile()) {
    auto w = world_from_api(client_, warnings, now);
    if (!w) {
      metrics_.cycle_failed(seconds());
      return wrap(w.error(), "listing the cluster from " + client_.address());
    }
    world = std::move(*w);
  } else {
    listed = cluster_from_api(client_, warnings);
    if (!listed) {
      metrics_.cycle_failed(seconds());
      return wrap(listed.error(), "listing the cluster from " + client_.address());
    }
  }
  const Cluster* cluster = world ? &world->cluster : &*listed;
  for (const auto& w : warnings) spdlog::warn("{}", w);
  const double listed_s = seconds();
  spdlog::info("listed {} nodes and {} bound pods in {:.3f}s", cluster->nodes.size(), cluster->pods.size(), listed_s);
  PlanOptions options{now, config_.max_metric_age, config_.cooldown};
  auto fetched = loads.finish(*cluster);
  if (!fetched) {
    metrics_.cycle_failed(seconds());
    return fetched.error();
  }
  for (const LoadReport& load : *fetched)
    if (!load.source_error.empty())
      spdlog::error("load source {} is down: {}; every node it measures is unknown, its profiles evict nothing "
                    "this cycle", load.source_name, load.source_error);
  const double loaded_s = seconds();
  const LoadReport no_load;
  auto profiles = profiles_from_policy(config_.policy, {options, world ? &*world : nullptr});
  Result<Plan> plan =
      profiles ? framework::run_profiles(*profiles, config_.policy,
                                         {*cluster, no_load, state, now, config_.cooldown,
                                          loads_by_profile(config_.loads, *fetched, config_.policy.profiles.size())})
               : Result<Plan>(profiles.error());
  if (!plan) {
    metrics_.cycle_failed(seconds());
    return plan.error();
  }
  const double planned_s = seconds();
  for (const auto& note : plan->notes) spdlog::info("plan: {}", note);
  for (const auto& n : plan->nodes)
    if (n.cls == NodeClass::Unknown) spdlog::debug("node {} is unknown: {}", n.name, n.why);
  const defragment::Outcome* rooms = nullptr;
  for (const auto& profile : *profiles)
    for (const auto& p : profile.balance)
      if (const auto* g = dynamic_cast<const defragment::GangDefragment*>(p.get())) rooms = &g->outcome();
  if (!config_.dry_run) {
    // A room's victims go only after its reservation is written (carry_out_rooms); the
    // other plugins' evictions first.
    std::erase_if(plan->evictions, [](const PlannedEviction& e) { return e.plugin == defragment::kPluginName; });
    execute_evictions(*plan, evict);
    if (rooms)
      carry_out_rooms(*rooms, *plan, patch, evict, [] { std::this_thread::sleep_for(kReservationLead); }, config_.rooms);
  }
  plan->evictions.insert(plan->evictions.begin(), resumed.evictions.begin(), resumed.evictions.end());
  plan->skipped.insert(plan->skipped.end(), resumed.skipped.begin(), resumed.skipped.end());
  if (const PolicyProfile* gang = config_.policy.gang_profile()) name_gang_profile(*plan, gang->name);
  plan->notes.insert(plan->notes.end(), resumed.notes.begin(), resumed.notes.end());
  if (rooms) metrics_.observe_defragment(*rooms);
  if (!config_.dry_run) {
    record_eviction_events(client_, *plan, config_.policy);
    record_evictions(state, plan->evictions, now, config_.policy.largest_window());
    state.prune(now, std::max(config_.cooldown, config_.policy.largest_window()));
  }
  spdlog::info("cycle: {}; {} evictions{}, {} skipped, {:.3f}s (list {:.3f}s, load {:.3f}s, plan {:.3f}s)",
               class_counts_text(class_counts(*plan)), plan->evictions.size(), config_.dry_run ? " (dry-run)" : "", plan->skipped.size(), seconds(), listed_s,
               loaded_s - listed_s, planned_s - loaded_s);
  metrics_.observe(*plan, config_.dry_run, seconds());
  return plan;
}

}  // namespace weft::descheduler
