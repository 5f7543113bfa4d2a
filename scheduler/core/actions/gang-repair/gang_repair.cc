#include "scheduler/core/actions/gang-repair/gang_repair.h"

#include <algorithm>
#include <optional>

#include "scheduler/core/actions/place_job.h"
#include "scheduler/core/framework/domains.h"
#include "scheduler/core/framework/statement.h"

namespace weft::scheduler {
namespace {

bool half_bound(const Job& j) {
  return j.group && j.blocked.empty() && j.bound > 0 && j.occupied() < j.min_member;
}

std::vector<int> running_members(const Session& ssn, const Job& j) {
  std::vector<int> out;
  for (int p : j.pods)
    if (ssn.snap.pods[p].running_member()) out.push_back(p);
  return out;
}

// Since when the gang has made no progress: its newest member's binding. Unknown when no
// running member says when it was bound (a binding not yet seen by the watch).
std::optional<std::chrono::milliseconds> stalled_for(const Session& ssn, const std::vector<int>& members) {
  std::optional<TimePoint> newest;
  for (int p : members) {
    const auto& at = ssn.snap.pods[p].scheduled_at;
    if (!at) return std::nullopt;
    newest = std::max(newest.value_or(*at), *at);
  }
  if (!newest) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(ssn.snap.now - *newest);
}

std::string domain_names(Session& ssn, const Job& j) {
  if (!constrained(ssn, j)) return "the cluster";
  std::string out;
  for (const auto& d : confining_domains(ssn, j)) out += (out.empty() ? "" : ", ") + d.name;
  return out.empty() ? "no domain holding all its members" : out;
}

std::string seconds_text(std::chrono::milliseconds d) { return std::to_string(d.count() / 1000) + "s"; }

void record(Session& ssn, const Job& j, const std::string& result, const std::string& type, const std::string& reason,
            const std::string& message) {
  ssn.out.gang_repairs.push_back({j.key, result});
  ssn.out.events.push_back({"PodGroup", j.key, type, reason, message});
}

// Takes the gang back: its running members are evicted (they keep their nodes until the
// API deletes them) and the job is not placed again this cycle.
void undo(Session& ssn, Job& j, const std::vector<int>& members, std::chrono::milliseconds stalled) {
  const std::string why = "gang " + j.key + " has " + std::to_string(j.occupied()) + " of minMember " +
                          std::to_string(j.min_member) + " running and could not be completed in " +
                          domain_names(ssn, j) + " for " + seconds_text(stalled) + " (--gang-repair-timeout " +
                          seconds_text(ssn.opts.gang_repair_timeout) + ")";
  for (int p : members) {
    const PodInfo& pod = ssn.snap.pods[p];
    ssn.out.evictions.push_back({pod.key, pod.node, "gang-repair: " + why});
  }
  record(ssn, j, "undone", "Warning", "GangUndone",
         why + "; its " + std::to_string(members.size()) + " running members are evicted so it can start whole");
  j.blocked = why + "; taken back";
  j.blocked_reason = "GangUndone";
}

// Holds, for this cycle, whatever room the missing members find in the gang's domain.
void hold_room(Session& ssn, Job& j) {
  const std::vector<DomainRef> domains = constrained(ssn, j) ? confining_domains(ssn, j) : std::vector<DomainRef>{};
  if (constrained(ssn, j) && domains.empty()) return;
  const std::vector<int>* nodes = domains.empty() ? nullptr : domains.front().nodes;
  Statement stmt(ssn);
  int missing = ssn.need_of(j);
  for (int p : j.pending) {
    if (missing <= 0) break;
    if (ssn.node_of_pod[p] >= 0 || ssn.pipelined_pod[p]) continue;
    const int node = ssn.cluster.best_node(p, nodes, nullptr);
    if (node < 0) continue;
    stmt.pipeline(p, node);
    --missing;
  }
  stmt.commit();
}

void repair(Session& ssn, Job& j) {
  const std::vector<int> members = running_members(ssn, j);
  const auto stalled = stalled_for(ssn, members);
  const auto timeout = ssn.opts.gang_repair_timeout;
  if (stalled && timeout.count() > 0 && *stalled > timeout) return undo(ssn, j, members, *stalled);
  const int running = j.occupied();
  if (place_job(ssn, j, j.pending)) {
    record(ssn, j, "completed", "Normal", "GangCompleted",
           "gang " + j.key + " found with " + std::to_string(running) + " of minMember " +
               std::to_string(j.min_member) + " running is completed in " + domain_names(ssn, j));
    return;
  }
  // Nothing says how long it has waited, or it could not complete even with room (too
  // few pods): no room is held for it.
  if (!stalled || ssn.job_valid(j)) return;
  hold_room(ssn, j);
  // Stable text (no countdown): the PodGroup condition is written only when it changes.
  j.blocked = (j.unschedulable ? j.unschedulable->second + "; " : std::string()) + "gang has " +
              std::to_string(running) + " of minMember " + std::to_string(j.min_member) +
              " running: room held in " + domain_names(ssn, j) +
              (timeout.count() > 0 ? ", taken back " + seconds_text(timeout) + " after its newest binding" : "");
  j.blocked_reason = "GangIncomplete";
}

}  // namespace

void repair_gangs(Session& ssn) {
  if (!ssn.need_fn) return;   // no gang semantics: every pod is its own unit
  std::vector<int> order;
  for (size_t i = 0; i < ssn.jobs.size(); ++i)
    if (half_bound(ssn.jobs[i])) order.push_back(static_cast<int>(i));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return ssn.job_before(ssn.jobs[a], ssn.jobs[b]); });
  for (int i : order) repair(ssn, ssn.jobs[i]);
}

}  // namespace weft::scheduler
