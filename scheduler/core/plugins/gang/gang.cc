// gang: a job runs when minMember pods (and minTaskMember per task role, and minSubGroups
// sub-groups of their size) run at once.
// Registers job order (jobs not yet ready first), job valid, ready, pipelined and
// starving, and victim rules that never take a job below minMember.
#include "scheduler/core/plugins/gang/gang.h"

#include <algorithm>
#include <map>

#include "scheduler/core/framework/ranks.h"
#include "scheduler/core/framework/subgroups.h"
#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

// Volcano counts minTaskMember only when minMember covers their sum.
bool roles_count(const Job& j) {
  if (!j.group || j.group->min_task_member.empty()) return false;
  int64_t total = 0;
  for (const auto& [role, n] : j.group->min_task_member) total += n;
  return j.min_member >= total;
}

// Roles whose running (or pipelined) pods are short of minTaskMember.
int missing_role_pods(const Job& j, const Session& ssn, bool with_pending) {
  if (!roles_count(j)) return 0;
  std::map<std::string, int> have = j.bound_by_task;
  if (with_pending)
    for (int p : j.pending) ++have[ssn.snap.pods[p].task_role];
  int missing = 0;
  for (const auto& [role, n] : j.group->min_task_member) {
    auto it = have.find(role);
    missing += std::max(0, n - (it == have.end() ? 0 : it->second));
  }
  return missing;
}

class Gang : public OptionPlugin {
 public:
  using OptionPlugin::OptionPlugin;

  void open(Session& ssn) override {
    if (opt_.enabled(Switch::JobReady))
      ssn.need_fn = [](const Job& j) { return std::max(0, j.min_member - j.occupied()); };
    ssn.add_job_valid(opt_, [&ssn](const Job& j) -> std::optional<std::string> {
      int valid = j.occupied() + static_cast<int>(j.pending.size());
      if (valid < j.min_member)
        return "gang needs " + std::to_string(j.min_member) + " pods (minMember), the job has " +
               std::to_string(valid) + " running or pending";
      if (missing_role_pods(j, ssn, true) > 0)
        return "gang needs every task role's minTaskMember; some role has too few pods";
      if (auto why = subgroups_invalid(ssn, j)) return "gang " + *why;
      return std::nullopt;
    });
    ssn.add_job_order(opt_, [](const Job& a, const Job& b) {
      bool ra = a.occupied() >= a.min_member, rb = b.occupied() >= b.min_member;
      if (ra == rb) return 0;
      return ra ? 1 : -1;
    });
    // Ranked pods of one job go in rank order (ranks.h), so consecutive ranks land together.
    ssn.add_task_order(opt_, [&ssn](int a, int b) {
      if (ssn.job_of_pod[a] != ssn.job_of_pod[b]) return 0;
      const Job& j = ssn.jobs[ssn.job_of_pod[a]];
      auto ra = rank_of(ssn.snap.pods[a], j.group), rb = rank_of(ssn.snap.pods[b], j.group);
      if (!ra || !rb || *ra == *rb) return 0;
      return *ra < *rb ? -1 : 1;
    });
    ssn.add_job_ready(opt_, [&ssn](const Job& j) {
      return j.occupied() >= j.min_member && missing_role_pods(j, ssn, false) == 0 && subgroups_ready(ssn, j, false);
    });
    ssn.add_job_pipelined(opt_, [&ssn](const Job& j, std::string*) {
      return j.occupied() + j.pipelined >= j.min_member && subgroups_ready(ssn, j, true) ? 1 : -1;
    });
    ssn.add_job_starving(opt_, [](const Job& j) { return j.occupied() + j.pipelined < j.min_member; });
    auto victims = [&ssn](int preemptor, const std::vector<int>& candidates) -> std::optional<std::vector<int>> {
      std::map<int, int> occupied;   // victim job -> pods it would keep
      std::vector<int> out;
      const int preemptor_priority = ssn.jobs[ssn.job_of_pod[preemptor]].priority;
      for (int v : candidates) {
        int ji = ssn.job_of_pod[v];
        const Job& vj = ssn.jobs[ji];
        auto [it, fresh] = occupied.try_emplace(ji, vj.occupied());
        // Volcano: only a job above minMember gives up pods; the gang actions with
        // allowWholeBundle also take a lower-priority gang whole.
        if (it->second > vj.min_member || (ssn.whole_gang_victims && vj.priority < preemptor_priority)) {
          --it->second;
          out.push_back(v);
        }
      }
      return out;
    };
    ssn.add_preemptable(opt_, victims);
    ssn.add_reclaimable(opt_, victims);
  }

};

}  // namespace

Result<std::unique_ptr<Plugin>> make_gang_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make_without_arguments<Gang>(option, warnings);
}

}  // namespace weft::scheduler
