// Everything GangDefragment plans on, built from plain objects (a scenario file or the
// API's lists): the scheduler's snapshot (pending pods, PodGroups, Queues, HyperNodes),
// the descheduler's cluster (evictor rules, fabric rules), the PodDisruptionBudgets and
// the reservations the PodGroups carry. No I/O.
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

struct DisruptionBudget {
  std::string ns, name;
  // policy/v1: a null selector selects no pod, an empty one every pod of the namespace.
  std::optional<kube::LabelSelector> selector;
  // status.disruptionsAllowed; unset until the disruption controller has counted, and then
  // every pod the budget selects stays (the budget's state is unknown).
  std::optional<int> allowed;
  std::string key() const { return ns + "/" + name; }
};

Result<DisruptionBudget> parse_disruption_budget(const nlohmann::json& pdb, const std::string& where);

struct World {
  scheduler::Snapshot snapshot;
  Cluster cluster;
  std::vector<DisruptionBudget> budgets;
  std::map<std::string, kube::Reservation> reservations;   // PodGroup key -> its annotation
};

// Built object by object, so a caller can stream the API's lists. Objects that arrive
// later (weft.dev/arrival-cycle > 0) are left out, as both planners do. Kinds neither
// side reads are skipped. Errors name `where` and the field.
class WorldBuilder {
 public:
  Status add(const nlohmann::json& object, const std::string& where);
  void reserve_pods(size_t pods) { cluster_.reserve_pods(pods); }
  World finish(TimePoint now);

 private:
  World world_;
  scheduler::SnapshotBuilder snapshot_;
  ClusterBuilder cluster_;
};

Result<World> world_from_objects(const std::vector<kube::SourcedObject>& objects, TimePoint now);

}  // namespace weft::descheduler::defragment
