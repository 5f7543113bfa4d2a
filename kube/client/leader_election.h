// Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: the holder
// renews spec.renewTime every retry period; a candidate takes the lease over only after
// it has seen the record unchanged for leaseDurationSeconds on its own clock (so clock
// skew between machines does not matter); every write is conditional on resourceVersion.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

#include "kube/client/client.h"

namespace weft::kube {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name;
  std::string identity;              // unique per process: "hostname_pid"
  Millis lease_duration{15000};
  Millis renew_deadline{10000};      // a leader that cannot renew for this long steps down
  Millis retry_period{2000};
};

class LeaderElector {
 public:
  LeaderElector(Client& client, LeaderElectionConfig config);

  // One round: create, renew or take over the lease. true when we hold it afterwards.
  Result<bool> try_acquire_or_renew();
  // Gives the lease up (holder cleared, duration 1s) if we hold it.
  Status release();
  bool is_leader() const { return leader_.load(); }
  std::string observed_holder() const;

  // Blocks: acquires (retrying every retry_period), calls on_started, renews until
  // renewing fails for renew_deadline or stop() is called, then calls on_stopped,
  // releases the lease if still held, and returns.
  void run(const std::function<void()>& on_started, const std::function<void()>& on_stopped);
  void stop();

 private:
  bool wait(Millis d);
  static std::string now_micro_time();

  Client& client_;
  LeaderElectionConfig config_;
  std::atomic<bool> leader_{false};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::string observed_record_;   // holder + renewTime + transitions as last seen
  Clock::time_point observed_at_{};
  std::string observed_holder_;
};

}  // namespace weft::kube
