// Everything GangDefragment plans on, built from plain objects (a scenario file or the
// API's lists): the descheduler's cluster (evictor rules, fabric rules, PodDisruptionBudgets)
// with the scheduler's snapshot of the same objects (pending pods, PodGroups, Queues,
// HyperNodes) and the reservations the PodGroups carry. No I/O.
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
  Cluster cluster;                                         // with its PodDisruptionBudgets and snapshot
  std::map<std::string, kube::Reservation> reservations;   // PodGroup key -> its annotation
  const scheduler::Snapshot& snapshot() const { return cluster.snapshot; }
};

// Built object by object, so a caller can stream the API's lists. Objects that arrive
// later (weft.dev/arrival-cycle > 0) are left out, as both planners do. Kinds neither
// side reads are skipped. Errors name `where` and the field.
class WorldBuilder {
 public:
  Status add(const nlohmann::json& object, const std::string& where) { return cluster_.add(object, where); }
  bool added_as_pod(std::string_view text, const std::string& where, bool kind_implied) {
    return cluster_.added_as_pod(text, where, kind_implied);
  }
  ClusterBuilder::TextReader& text_reader() { return cluster_.text_reader(); }
  void add_read(ClusterBuilder::ReadPod&& pod) { cluster_.add_read(std::move(pod)); }
  bool add_read(ClusterBuilder::ReadNode&& node) { return cluster_.add_read(std::move(node)); }
  void reserve_pods(size_t pods) { cluster_.reserve_pods(pods); }
  size_t pod_capacity() const { return cluster_.pod_capacity(); }
  ClusterBuilder::PodRoom reserved_pod_room() { return cluster_.reserved_pod_room(); }
  World finish(TimePoint now);

 private:
  ClusterBuilder cluster_;
};

Result<World> world_from_objects(const std::vector<kube::SourcedObject>& objects, TimePoint now);

}  // namespace weft::descheduler::defragment
