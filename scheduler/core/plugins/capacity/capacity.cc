// capacity: queue shares as stated (spec.deserved, spec.capability, spec.guarantee)
// rather than by weight. A queue's real capability is its capability bounded by the
// cluster less what other queues are guaranteed; it may allocate and enqueue up to it.
// Above deserved its pods may be reclaimed, never below its guarantee. With
// enableHierarchy, spec.parent builds a tree under "root": every check runs at each
// level, on the allocation of the whole subtree, so a parent's capability bounds all
// its children together.
#include "scheduler/core/plugins/capacity/capacity.h"

#include <algorithm>
#include <map>

#include "scheduler/core/plugins/plugin_makers.h"
#include "scheduler/core/plugins/proportion/fairshare.h"
#include "scheduler/core/plugins/proportion/usable_capacity.h"

namespace weft::scheduler {
namespace {

constexpr const char* kRoot = "root";

Quantities quantities(const kube::ResourceList& r) {
  Quantities q;
  add(q, r);
  return q;
}

class Capacity : public OptionPlugin {
 public:
  Capacity(const PluginOption& o, CapacityFilter filter) : OptionPlugin(o), filter_(std::move(filter)) {}

  void open(Session& ssn) override {
    ssn.total = usable_capacity(ssn.snap, filter_);
    Quantities guaranteed;
    for (const auto& [name, q] : ssn.queues) add(guaranteed, q.info->guarantee);
    for (auto& [name, q] : ssn.queues) {
      Quantities real = ssn.total;
      subtract(real, guaranteed);
      add(real, q.info->guarantee);
      for (const auto& [k, v] : q.info->capability)
        if (v > 0 && (!real.count(k) || real[k] > static_cast<double>(v))) real[k] = static_cast<double>(v);
      q.capability = real;
      q.deserved = quantities(q.info->deserved);
      for (auto& [k, v] : q.deserved)
        if (real.count(k)) v = std::min(v, real[k]);
      for (const auto& [k, v] : q.info->guarantee) q.deserved[k] = std::max(get(q.deserved, k), static_cast<double>(v));
    }
    if (opt_.hierarchy())
      for (auto& [name, q] : ssn.queues)
        if (name != kRoot) {
          std::string parent = q.info->parent.empty() ? kRoot : q.info->parent;
          if (auto it = ssn.queues.find(parent); it != ssn.queues.end()) it->second.children.push_back(name);
        }

    ssn.add_queue_order(opt_, compare_queues);
    ssn.add_allocatable(opt_, [this, &ssn](const QueueAccount& q, int pod) { return q.info->open && fits(ssn, q, pod); });
    ssn.add_preemptive(opt_, [this, &ssn](const QueueAccount& q, int pod) { return fits(ssn, q, pod); });
    ssn.add_reclaimable(opt_, [&ssn](int, const std::vector<int>& candidates) -> std::optional<std::vector<int>> {
      return reclaim_victims(ssn, candidates, [&ssn](Quantities& left, const QueueAccount& q, int v) {
        const auto& req = ssn.snap.pods[v].request;
        bool above = false;
        for (const auto& [k, r] : req)
          if (r > 0 && k != "pods" && !less_equal(get(left, k), get(q.deserved, k))) above = true;
        Quantities after = left;
        subtract(after, req);
        bool keeps_guarantee = true;
        for (const auto& [k, g] : q.info->guarantee)
          if (get(after, k) + 0.5 < static_cast<double>(g)) keeps_guarantee = false;
        if (!above || !keeps_guarantee) return false;
        left = std::move(after);
        return true;
      });
    });
    ssn.add_job_enqueueable(opt_, [this, &ssn](const Job& j, std::string* why) {
      const QueueAccount& q = *ssn.queue_of(j);
      if (!q.info->open) {
        *why = "queue '" + j.queue + "' is not open";
        return -1;
      }
      if (!j.group || !j.group->has_min_resources) return 1;
      for (const QueueAccount* level : chain(ssn, q)) {
        Quantities want = subtree(ssn, *level, &QueueAccount::allocated);
        add(want, subtree(ssn, *level, &QueueAccount::inqueue));
        add(want, j.group->min_resources);
        for (const auto& [k, v] : j.group->min_resources)
          if (v > 0 && k != "pods" && level->capability.count(k) && !less_equal(get(want, k), level->capability.at(k))) {
            *why = "queue '" + level->info->name + "': minResources do not fit its capability (" + k + ")";
            return -1;
          }
      }
      return 1;
    });
    ssn.add_job_enqueued(opt_, [&ssn](const Job& j) {
      if (j.group && j.group->has_min_resources) add(ssn.queue_of(j)->inqueue, j.group->min_resources);
    });
  }

 private:
  // The pod's request fits the real capability of the queue (and, with hierarchy, of every ancestor).
  bool fits(Session& ssn, const QueueAccount& q, int pod) const {
    const auto& req = ssn.snap.pods[pod].request;
    for (const QueueAccount* level : chain(ssn, q)) {
      Quantities after = subtree(ssn, *level, &QueueAccount::allocated);
      add(after, req);
      for (const auto& [k, v] : req)
        if (v > 0 && k != "pods" && level->capability.count(k) && !less_equal(get(after, k), level->capability.at(k)))
          return false;
    }
    return true;
  }

  // The queue and, with hierarchy, its ancestors up to root.
  std::vector<const QueueAccount*> chain(Session& ssn, const QueueAccount& q) const {
    std::vector<const QueueAccount*> out{&q};
    if (!opt_.hierarchy()) return out;
    const QueueAccount* at = &q;
    for (size_t guard = 0; guard < ssn.queues.size() && at->info->name != kRoot; ++guard) {
      std::string parent = at->info->parent.empty() ? kRoot : at->info->parent;
      auto it = ssn.queues.find(parent);
      if (it == ssn.queues.end()) break;
      at = &it->second;
      out.push_back(at);
    }
    return out;
  }

  Quantities subtree(Session& ssn, const QueueAccount& q, Quantities QueueAccount::*field) const {
    Quantities sum = q.*field;
    if (!opt_.hierarchy()) return sum;
    std::vector<const QueueAccount*> stack{&q};
    for (size_t guard = 0; !stack.empty() && guard <= ssn.queues.size(); ++guard) {
      const QueueAccount* at = stack.back();
      stack.pop_back();
      for (const auto& child : at->children) {
        const QueueAccount& c = ssn.queues.at(child);
        add(sum, c.*field);
        stack.push_back(&c);
      }
    }
    return sum;
  }

  CapacityFilter filter_;
};

}  // namespace

Result<std::unique_ptr<Plugin>> make_capacity_plugin(const PluginOption& option, std::vector<std::string>*) {
  return make_with_capacity_filter<Capacity>(option);
}

}  // namespace weft::scheduler
