// priority: higher-priority tasks and jobs first; a job may preempt only jobs of lower
// priority (inside one job, tasks of lower priority).
#include "scheduler/core/plugins/priority/priority.h"

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

int higher_first(int a, int b) { return a == b ? 0 : (a > b ? -1 : 1); }

class Priority : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    ssn.add_task_order(opt_, [&ssn](int a, int b) { return higher_first(ssn.snap.pods[a].priority, ssn.snap.pods[b].priority); });
    ssn.add_job_order(opt_, [](const Job& a, const Job& b) { return higher_first(a.priority, b.priority); });
    ssn.add_preemptable(opt_, [&ssn](int preemptor, const std::vector<int>& candidates) -> std::optional<std::vector<int>> {
      int pj = ssn.job_of_pod[preemptor];
      std::vector<int> out;
      for (int v : candidates) {
        int vj = ssn.job_of_pod[v];
        bool lower = vj != pj ? ssn.jobs[vj].priority < ssn.jobs[pj].priority
                              : ssn.snap.pods[v].priority < ssn.snap.pods[preemptor].priority;
        if (lower) out.push_back(v);
      }
      return out;
    });
    ssn.add_job_starving(opt_, [](const Job& j) {
      return j.occupied() + j.pipelined < static_cast<int>(j.pods.size()) - j.failed;
    });
  }

};

}  // namespace

Result<std::unique_ptr<Plugin>> make_priority_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make_without_arguments<Priority>(option, warnings);
}

}  // namespace weft::scheduler
