// overcommit: a job is enqueued while its minResources, with those of the jobs already
// Inqueue (and what Running jobs still miss of theirs), fit the cluster's capacity times
// overcommit-factor less what is in use. A factor below 1 is warned about and replaced
// by the default 1.2, as Volcano does.
#include "scheduler/core/plugins/overcommit/overcommit.h"

#include <algorithm>

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

constexpr double kDefaultFactor = 1.2;

class Overcommit : public OptionPlugin {
 public:
  Overcommit(const PluginOption& o, double factor) : OptionPlugin(o), factor_(factor) {}

  void open(Session& ssn) override {
    for (int n = 0; n < ssn.cluster.node_count(); ++n)
      for (int d = 0; d < ssn.cluster.dims(); ++d) {
        double a = static_cast<double>(ssn.cluster.allocatable(n, d));
        if (ssn.cluster.dim_name(d) == "pods" || a <= 0) continue;
        idle_[ssn.cluster.dim_name(d)] += a * factor_ - (a - static_cast<double>(ssn.cluster.free(n, d)));
      }
    for (const Job& j : ssn.jobs) {
      if (!j.group || !j.group->has_min_resources) continue;
      if (j.phase == "Inqueue") {
        add(inqueue_, j.group->min_resources);
      } else if (j.phase == "Running" && j.occupied() >= j.min_member) {
        for (const auto& [k, v] : j.group->min_resources) inqueue_[k] += std::max(0.0, static_cast<double>(v) - get(j.allocated, k));
      }
    }
    ssn.add_job_enqueueable(opt_, [this](const Job& j, std::string* why) {
      if (!j.group || !j.group->has_min_resources) return 1;
      Quantities want = inqueue_;
      add(want, j.group->min_resources);
      for (const auto& [k, v] : j.group->min_resources)
        if (v > 0 && k != "pods" && !less_equal(get(want, k), get(idle_, k))) {
          *why = "overcommit: minResources do not fit the idle cluster (" + k + ")";
          return -1;
        }
      return 1;
    });
    ssn.add_job_enqueued(opt_, [this](const Job& j) {
      if (j.group && j.group->has_min_resources) add(inqueue_, j.group->min_resources);
    });
  }

 private:
  double factor_;
  Quantities idle_, inqueue_;
};

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>* warnings) {
  double factor = kDefaultFactor;
  for (const auto& [k, v] : option.arguments.items()) {
    if (k != "overcommit-factor") return unknown_argument(k, "overcommit-factor");
    auto n = number_arg(v, k);
    if (!n) return n.error();
    factor = *n;
  }
  if (factor < 1) {
    if (warnings)
      warnings->push_back("argument 'overcommit-factor': " + std::to_string(factor) +
                          " is below 1; using the default 1.2 (as Volcano does)");
    factor = kDefaultFactor;
  }
  return std::unique_ptr<Plugin>(std::make_unique<Overcommit>(option, factor));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_overcommit_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
