// proportion: each queue's deserved share by weight (fairshare.h); queue order (spec.priority,
// then the smaller share), overused (deserved <= allocated everywhere), allocatable and
// preemptive (allocated + request within deserved), reclaimable (from queues above their
// deserved share), enqueueable (minResources within the queue's real capability).
// Arguments (weft): tolerations and nodeSelector choose the nodes whose capacity counts.
#include "scheduler/core/plugins/proportion/proportion.h"

#include <map>

#include "scheduler/core/plugins/plugin_makers.h"
#include "scheduler/core/plugins/proportion/fairshare.h"
#include "scheduler/core/plugins/proportion/usable_capacity.h"

namespace weft::scheduler {
namespace {

class Proportion : public OptionPlugin {
 public:
  Proportion(const PluginOption& o, CapacityFilter filter) : OptionPlugin(o), filter_(std::move(filter)) {}

  void open(Session& ssn) override {
    ssn.total = usable_capacity(ssn.snap, filter_);
    compute_deserved(ssn.queues, ssn.total);
    ssn.add_queue_order(opt_, compare_queues);
    ssn.add_reclaimable(opt_, [&ssn](int, const std::vector<int>& candidates) -> std::optional<std::vector<int>> {
      return reclaim_victims(ssn, candidates, [&ssn](Quantities& left, const QueueAccount& q, int v) {
        if (first_over(left, q.deserved).empty()) return false;   // within deserved: keep
        subtract(left, ssn.snap.pods[v].request);
        return true;
      });
    });
    ssn.add_overused(opt_, [](const QueueAccount& q) {
      for (const auto& [k, d] : q.deserved)
        if (!less_equal(d, get(q.allocated, k))) return false;
      return true;
    });
    auto fits_deserved = [&ssn](const QueueAccount& q, int pod) {
      if (!q.info->open) return false;
      for (const auto& [k, v] : ssn.snap.pods[pod].request) {
        if (v <= 0 || k == "pods") continue;
        if (!less_equal(get(q.allocated, k) + static_cast<double>(v), get(q.deserved, k))) return false;
      }
      return true;
    };
    ssn.add_allocatable(opt_, fits_deserved);
    ssn.add_preemptive(opt_, fits_deserved);
    ssn.add_job_enqueueable(opt_, [&ssn](const Job& j, std::string* why) {
      if (!j.group || !j.group->has_min_resources) return 1;
      const QueueAccount& q = *ssn.queue_of(j);
      if (!q.info->open) {
        *why = "queue '" + j.queue + "' is not open";
        return -1;
      }
      Quantities real = ssn.total;
      for (const auto& [name, other] : ssn.queues)
        if (name != j.queue)
          for (const auto& [k, v] : other.info->guarantee) real[k] -= static_cast<double>(v);
      for (const auto& [k, v] : q.info->capability)
        if (!real.count(k) || real[k] > static_cast<double>(v)) real[k] = static_cast<double>(v);
      Quantities want;
      add(want, j.group->min_resources);
      add(want, q.allocated);
      add(want, q.inqueue);
      std::string over = first_over(want, real);
      // Only the resources minResources names are compared (Volcano's LessEqualWithDimension).
      if (!over.empty() && j.group->min_resources.count(over)) {
        *why = "queue '" + j.queue + "': minResources do not fit its capability (" + over + ")";
        return -1;
      }
      return 1;
    });
    ssn.add_job_enqueued(opt_, [&ssn](const Job& j) {
      if (j.group && j.group->has_min_resources) add(ssn.queue_of(j)->inqueue, j.group->min_resources);
    });
  }

 private:
  CapacityFilter filter_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> make_proportion_plugin(const PluginOption& option, std::vector<std::string>*) {
  if (option.hierarchy())
    return make_error("enableHierarchy: proportion has no hierarchy in Volcano either; use the capacity plugin");
  return make_with_capacity_filter<Proportion>(option);
}

}  // namespace weft::scheduler
