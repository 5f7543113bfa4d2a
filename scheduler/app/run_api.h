// What `weft-scheduler run` writes to the API, behind an interface so the decision
// applier is unit-tested with a fake and runs against the real client in production.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/client.h"
#include "kube/client/events.h"
#include "scheduler/core/storage.h"

namespace weft::scheduler {

enum class EvictOutcome { Evicted, Blocked, Gone };

class SchedulerApi {
 public:
  virtual ~SchedulerApi() = default;
  // POST pods/NAME/binding. A pod already bound to this very node counts as bound.
  virtual Status bind(const std::string& ns, const std::string& pod, const std::string& uid,
                      const std::string& node) = 0;
  // Eviction API; a PodDisruptionBudget refusal (429) is an outcome, not an error.
  virtual Result<EvictOutcome> evict(const std::string& ns, const std::string& pod, std::string* why) = 0;
  // Replaces the PodGroup's status with `status` (read, modify, write; re-read on 409).
  virtual Status write_podgroup_status(const std::string& ns, const std::string& name,
                                       const nlohmann::json& status) = 0;
  virtual Status record_event(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                              const std::string& message) = 0;
  // kube-scheduler's PreBind of a claim (storage.h): the PV's claimRef, or the claim's
  // selected node. An API that cannot write claims refuses.
  virtual Status write_claim(const ClaimWrite& write) {
    return make_error("cannot write claim " + write.claim + ": this API has no claim writer");
  }
  // status.nominatedNodeName of a preemptor (merge patch of pods/status).
  virtual Status nominate(const std::string& ns, const std::string& pod, const std::string& node) = 0;
  // The same for a scheduling.k8s.io PodGroup (kube-scheduler's conditions).
  virtual Status write_native_group_status(const std::string& ns, const std::string& name,
                                           const nlohmann::json& status) {
    (void)ns, (void)name, (void)status;
    return make_error("scheduling.k8s.io PodGroup status is not written by this API");
  }
};

// Bindings and evictions go through `client`; PodGroup status through `best_effort`, a
// client with fewer retries: it is written again by the next cycle when it fails, so it
// must not hold a cycle up for the full backoff. Events are queued to `events`, which
// posts them apart (and drops them when its queue is full) so they never wait in line
// with bindings.
class KubeSchedulerApi : public SchedulerApi {
 public:
  KubeSchedulerApi(kube::Client& client, kube::Client& best_effort, kube::AsyncEventRecorder& events);
  Status bind(const std::string& ns, const std::string& pod, const std::string& uid,
              const std::string& node) override;
  Result<EvictOutcome> evict(const std::string& ns, const std::string& pod, std::string* why) override;
  Status write_podgroup_status(const std::string& ns, const std::string& name, const nlohmann::json& status) override;
  Status record_event(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                      const std::string& message) override;
  Status write_claim(const ClaimWrite& write) override;
  Status nominate(const std::string& ns, const std::string& pod, const std::string& node) override;
  Status write_native_group_status(const std::string& ns, const std::string& name, const nlohmann::json& status) override;

 private:
  kube::Client& client_;
  kube::Client& best_effort_;
  kube::AsyncEventRecorder& events_;
};

}  // namespace weft::scheduler
