// One scheduling cycle: snapshot in, decisions out. No I/O, no clocks, no globals;
// the same snapshot and config always give the same decisions.
//
// How to drive it (what `weft-scheduler simulate` does per cycle, and what `run` does
// after its informers have synced):
//
//   auto config = weft::scheduler::parse_config(conf_text, "scheduler.conf");   // or Config::defaults()
//   weft::scheduler::SnapshotBuilder builder;
//   for (const auto& obj : nodes_pods_podgroups_queues_hypernodes_priorityclasses)
//     if (auto st = builder.add(obj, where); !st) { /* log st.message(), skip or stop */ }
//   weft::scheduler::Snapshot snap = builder.build(now);
//   weft::scheduler::Decisions d = weft::scheduler::run_session(snap, *config);
//   for (b : d.bindings)      POST pods/binding (b.pod -> b.node)
//   for (e : d.evictions)     POST pods/eviction with e.reason in an Event
//   for (w : d.status_writes) PUT/PATCH podgroups/status with w.status (only changed ones are listed)
//   for (ev : d.events)       create Events (Unschedulable, Scheduled, Evicted)
//
// Pods are taken as pending when spec.nodeName is empty; the API applying a binding makes
// them bound in the next snapshot. Only pods whose schedulerName is in
// SessionOptions::scheduler_names are placed (empty set: every pending pod).
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/quantity.h"
#include "scheduler/core/config.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

struct Binding {
  std::string pod;    // "ns/name"
  std::string node;
};

struct Eviction {
  std::string pod;
  std::string node;
  std::string reason;  // "reclaim: queue q1 above its deserved share for queue q2 (job ns/j)"
};

// A PodGroup status to write: listed only when it differs from the snapshot's status,
// never for a PodGroup without pods.
struct StatusWrite {
  std::string podgroup;          // "ns/name"
  nlohmann::json status;         // {phase, running, succeeded, failed, conditions:[...]}
};

struct Event {
  std::string kind;              // "PodGroup" or "Pod"
  std::string object;            // "ns/name"
  std::string type;              // "Normal" | "Warning"
  std::string reason;            // "Unschedulable", "Scheduled", "Evicted"
  std::string message;           // names the filter: "2 node(s) had untolerated taint {...}, 3 Insufficient cpu"
};

// A gang found below minMember with running members (actions/gang-repair).
struct GangRepair {
  std::string podgroup;
  std::string result;            // "completed" | "undone"
};

// A multi-node gang bound this cycle and a node with fewer active IB rails than expected
// (plugin rail-health): `used` when a member went there, else a candidate it was kept off.
struct DegradedRailChoice {
  std::string podgroup;
  std::string node;
  bool used = false;
};

struct QueueShare {
  std::string name;
  double weight = 1;
  kube::ResourceList deserved, allocated;   // milli units, saturating at int64 (use the _units below)
  std::map<std::string, double> deserved_units, allocated_units;   // milli units, exact at any cluster size
};

struct Decisions {
  std::vector<Binding> bindings;
  std::vector<Eviction> evictions;
  std::vector<StatusWrite> status_writes;
  std::vector<Event> events;
  std::vector<QueueShare> queues;          // proportion's shares after this cycle
  // Pending pods that could not be placed: pod key -> reason naming the filter.
  std::map<std::string, std::string> unschedulable;
  // Preemptors whose room was freed by evictions this cycle -> that node: their
  // status.nominatedNodeName, as kube-scheduler sets it (they bind in a later cycle).
  std::map<std::string, std::string> nominations;
  // The same pods -> the reason word of their PodGroup's Unschedulable condition
  // (NotEnoughResources, NotEnoughPods, NotEnqueued, QueueClosed, ...), for metrics.
  std::map<std::string, std::string> unschedulable_reasons;
  std::vector<ClaimWrite> claim_writes;    // PreBind: claims to write before their pods' bindings (storage.h)
  std::vector<GangRepair> gang_repairs;
  std::vector<DegradedRailChoice> degraded_rails;
};

struct SessionOptions {
  std::set<std::string> scheduler_names;   // empty: schedule every pending pod
  // A half-bound gang whose newest member was bound longer ago is taken back (0: never).
  std::chrono::milliseconds gang_repair_timeout{60000};
};

Decisions run_session(const Snapshot& snapshot, const Config& config, const SessionOptions& options = {});

}  // namespace weft::scheduler
