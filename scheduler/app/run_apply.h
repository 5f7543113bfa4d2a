// Applies one cycle's decisions to the API: evictions, gang-aware bindings, PodGroup
// status writes and Events. API errors are logged and reported, never thrown.
//
// A gang's bindings are all-or-nothing in the core. The API can still refuse one member
// (the pod was deleted or bound by someone else, the node went away, the API kept
// failing). Transient refusals are retried with backoff; when a member still cannot be
// bound and the group would be left below minMember, the members bound in this cycle are
// evicted again (Eviction API), so the job's controller re-creates them and the next
// cycle places the gang whole. Kubernetes has no "unbind"; a half-bound gang would hold
// its nodes while waiting forever for the missing member.
//
// With concurrency > 1 the calls of each phase (evictions, then bindings, then status
// writes) are in flight together, members of one gang included: a gang is judged whole
// or rolled back once all its calls have answered, and no further member of a gang is
// sent once the gang can no longer reach minMember. Evictions still all answer before
// the first binding is sent (they free what the bindings use).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/app/run_api.h"
#include "scheduler/core/session.h"
#include "scheduler/core/snapshot.h"

namespace weft::scheduler {

struct ApplyOptions {
  int concurrency = 1;                                    // API calls in flight together; 1 = one at a time
  int bind_rounds = 3;                                    // extra rounds for transient errors
  std::chrono::milliseconds bind_backoff{200};            // doubled each round
  std::function<bool()> may_write = [] { return true; };  // false once leadership is lost
  std::function<void(std::chrono::milliseconds)> sleep;   // default: this_thread::sleep_for
  // Told of each eviction the API accepted (victims and gang members taken back), as it
  // is accepted: the cache shows the pod leaving before the next snapshot.
  std::function<void(const std::string& pod, const std::string& uid)> on_evicted;
};

struct ApplyReport {
  std::vector<Binding> bound;                 // accepted by the API and kept
  std::vector<std::string> bind_failed;       // pods whose binding the API refused
  std::vector<std::string> rolled_back;       // gang members bound, then evicted again
  std::vector<std::string> not_whole;         // PodGroups left short by refused bindings (no status written)
  std::vector<std::string> evicted;
  std::vector<std::string> eviction_blocked;  // 429: a PodDisruptionBudget said no
  std::vector<StatusWrite> status_written;
  int status_failed = 0;
  int events_recorded = 0;
  int events_failed = 0;                      // not recorded (the event queue was full)
  int errors = 0;                             // API calls that failed
  bool stopped = false;                       // may_write turned false half-way
};

// Objects of the cycle by "Kind/ns/name" (or "Kind/name"), for uids and Event references.
using ObjectIndex = std::map<std::string, nlohmann::json>;
std::string object_index_key(const std::string& kind, const std::string& key);

class DecisionApplier {
 public:
  DecisionApplier(SchedulerApi& api, ApplyOptions options = {});
  // `snapshot` needs only the pods the decisions name and every member of their groups;
  // `objects` those pods and groups, the objects of the Events and remembered_objects().
  ApplyReport apply(const Decisions& decisions, const Snapshot& snapshot, const ObjectIndex& objects);
  // ObjectIndex keys of objects this applier remembers across cycles (evictions asked
  // for, Events recorded): it forgets them when a later cycle's index lacks them.
  std::vector<std::string> remembered_objects();

 private:
  void apply_evictions(const Decisions& d, const ObjectIndex& objects, ApplyReport& report);
  void apply_bindings(const Decisions& d, const Snapshot& snap, const ObjectIndex& objects, ApplyReport& report);
  // Calls `attempt` until it returns "" (done) or options_.bind_rounds extra rounds are
  // used, sleeping bind_backoff, doubled each round; a non-empty answer says why to retry.
  void retry_rounds(const std::string& what, const std::function<std::string()>& attempt);
  Status bind_with_retry(const Binding& b, const std::string& uid);
  // kube-scheduler's PreBind: the pod's claims written before its binding.
  Status prebind(const std::vector<const ClaimWrite*>& writes);
  void roll_back(const std::string& group, const std::vector<Binding>& bound, const std::string& why,
                 const ObjectIndex& objects, ApplyReport& report);
  void apply_status(const Decisions& d, const std::set<std::string>& skip, ApplyReport& report);
  void apply_events(const Decisions& d, const ObjectIndex& objects, ApplyReport& report);
  void event(const ObjectIndex& objects, const std::string& kind, const std::string& key, const std::string& type,
             const std::string& reason, const std::string& message, ApplyReport& report);
  bool writable(ApplyReport& report);
  // Under mu_: an eviction the API accepted (evicting_, and options_.on_evicted).
  void remember_eviction(const std::string& pod, const std::string& uid);
  // Runs fn(0..n-1) on up to options_.concurrency threads (inline when 1), in order of i.
  void parallel_for(size_t n, const std::function<void(size_t)>& fn) const;

  SchedulerApi& api_;
  ApplyOptions options_;
  std::map<std::string, std::string> evicting_;      // pod key -> uid asked to leave
  std::map<std::string, std::string> last_event_;    // object -> reason+message last recorded
  std::mutex mu_;                                    // report, evicting_, last_event_ while calls run
};

}  // namespace weft::scheduler
