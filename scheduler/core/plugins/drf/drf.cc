// drf: dominant resource fairness between jobs. The job with the smaller dominant share
// (its largest allocated/total over every resource, extended ones included) goes first;
// a preemptor may take from a job whose share stays at least its own after the eviction.
#include "scheduler/core/plugins/drf/drf.h"

#include <cmath>
#include <map>

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

constexpr double kShareDelta = 1e-6;

class Drf : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    for (const auto& n : ssn.snap.nodes) add(total_, n.allocatable);
    total_.erase("pods");
    ssn.add_job_order(opt_, [this](const Job& a, const Job& b) {
      double sa = share(a.allocated), sb = share(b.allocated);
      return sa == sb ? 0 : (sa < sb ? -1 : 1);
    });
    ssn.add_preemptable(opt_, [this, &ssn](int preemptor, const std::vector<int>& candidates) -> std::optional<std::vector<int>> {
      Quantities mine = ssn.jobs[ssn.job_of_pod[preemptor]].allocated;
      add(mine, ssn.snap.pods[preemptor].request);
      double ls = share(mine);
      std::map<int, Quantities> left;
      std::vector<int> out;
      for (int v : candidates) {
        int ji = ssn.job_of_pod[v];
        auto it = left.try_emplace(ji, ssn.jobs[ji].allocated).first;
        subtract(it->second, ssn.snap.pods[v].request);
        double rs = share(it->second);
        if (ls < rs || std::fabs(ls - rs) <= kShareDelta) out.push_back(v);
      }
      return out;
    });
  }

 private:
  double share(const Quantities& allocated) const {
    double s = 0;
    for (const auto& [k, total] : total_)
      if (total > 0) s = std::max(s, get(allocated, k) / total);
    return s;
  }

  Quantities total_;
};

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>* warnings) {
  if (option.hierarchy())
    return make_error("enableHierarchy: hierarchical DRF is not implemented by weft (use the capacity plugin "
                      "with enableHierarchy for hierarchical queues)");
  return make_without_arguments<Drf>(option, warnings);
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_drf_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
