// What `weft-scheduler run` writes to the API, behind an interface so the decision
// applier is unit-tested with a fake and runs against the real client in production.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/client.h"
#include "kube/client/events.h"

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
};

// Bindings and evictions go through `client`; PodGroup status and Events through
// `best_effort`, a client with fewer retries: both are written again by the next cycle
// when they fail, so they must not hold a cycle up for the full backoff.
class KubeSchedulerApi : public SchedulerApi {
 public:
  KubeSchedulerApi(kube::Client& client, kube::Client& best_effort, std::string component, std::string host);
  Status bind(const std::string& ns, const std::string& pod, const std::string& uid,
              const std::string& node) override;
  Result<EvictOutcome> evict(const std::string& ns, const std::string& pod, std::string* why) override;
  Status write_podgroup_status(const std::string& ns, const std::string& name, const nlohmann::json& status) override;
  Status record_event(const nlohmann::json& involved, const std::string& type, const std::string& reason,
                      const std::string& message) override;

 private:
  kube::Client& client_;
  kube::Client& best_effort_;
  kube::EventRecorder events_;
};

}  // namespace weft::scheduler
