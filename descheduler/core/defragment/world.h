// Everything GangDefragment plans on, built from plain objects (a scenario file or the
// API's lists): the scheduler's snapshot (pending pods, PodGroups, Queues, HyperNodes),
// the descheduler's cluster (evictor rules, fabric rules, PodDisruptionBudgets) and the
// reservations the PodGroups carry. No I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "descheduler/core/cluster.h"
#include "kube/reservation.h"
#include "kube/scenario.h"
#include "kube/selector.h"
#include "scheduler/core/snapshot.h"

namespace weft::descheduler::defragment {

struct World {
  scheduler::Snapshot snapshot;
  Cluster cluster;                                         // with its PodDisruptionBudgets
  std::map<std::string, kube::Reservation> reservations;   // PodGroup key -> its annotation
};

// Built object by object, so a caller can stream the API's lists. Objects that arrive
// later (weft.dev/arrival-cycle > 0) are left out, as both planners do. Kinds neither
// side reads are skipped. Errors name `where` and the field.
class WorldBuilder {
 public:
  Status add(const nlohmann::json& object, const std::string& where);
  void reserve_pods(size_t pods) { cluster_.reserve_pods(pods); }
  size_t pod_capacity() const { return cluster_.pod_capacity(); }
  World finish(TimePoint now);

 private:
  scheduler::SnapshotBuilder snapshot_;
  ClusterBuilder cluster_;
};

Result<World> world_from_objects(const std::vector<kube::SourcedObject>& objects, TimePoint now);

}  // namespace weft::descheduler::defragment
